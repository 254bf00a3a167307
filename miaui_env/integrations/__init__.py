"""The games in other libraries' shapes: wrappers that carry Miaui's action mask inside a flat
observation (`adapters`), SB3's `action_masks()` for a VecEnv of such rows (`sb3`), and both games
as OpenSpiel games (`openspiel`). Each game's own training pieces (self-play VecEnvs, network
inputs, the privileged critic) live in its package, `miaui_env.games.<game>`."""
