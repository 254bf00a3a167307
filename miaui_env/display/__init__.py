"""A table for people: text (`text`), pictures (`picture`), both drawn from what one seat's
observation holds (or a spectator's view of the game), never from hidden state."""
