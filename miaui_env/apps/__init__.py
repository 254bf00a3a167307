"""What users run, each command once for any game (the registry finds the game's own): the arena
(`arena`), a policy's card (`card`), replays (`replay`), terminal play (`play`), the demo (`demo`),
the browser app (`web`), and the arena, play and replays of a game that gives only its env
(`any_game`). Miaui's own arena and replays live in `arena` and `replay` beside the commands."""
