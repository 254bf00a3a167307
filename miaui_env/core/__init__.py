"""What every game shares: the room below the games.

    registry    the game registry: a `Game` per game, found by name (`miaui_env.games` names it for users)
    errors      the error family every game raises, the integer check, end-of-game rewards
    seeding     the seed tree: every random stream of a run, a named child of one seed
    layout      observation layouts: named pieces of a flat vector, and who sees which (views)
    aec         the PettingZoo AEC base, its option checks and its refusing wrappers
    render      render modes, seat names, and the check that Pillow is installed
    cli         the commands' argument types, checks and error exit
    files       writing result folders atomically, and reading files within a limit
    agents      the agent protocol, the random agent, the checks of an agent's answer
    policy, policy_spec, checkpoint, loading
                trained policies: loaded by name (no pickled module path), checked to be the game's
    arena       arena statistics: lineups, intervals, ratings, the gauntlet's test, result files
    replays     replay files: written whole, read back within the file limit
    vec, selfplay
                the SB3 VecEnv plumbing of self-play, and AECSelfPlayVecEnv for any registered game
    web         what every game's page in the browser app shares

A game (`miaui_env.games.<name>`) builds on these, never on another game. Nothing here imports a
game; the registry, errors, seeds, layouts and files load no RL library and no compiler (an import
contract); `aec` is PettingZoo's, `vec` and `selfplay` load Stable-Baselines3, and `policy` loads it
when it loads a policy.
"""
