"""A table for people: text (`text`) and pictures (`picture`) of the whole game for a spectator,
or of what one seat's observation holds, read back by the one decoder every display shares
(`decode`), never from hidden state."""
