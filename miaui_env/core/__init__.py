"""What every game shares: the room below the games.

    errors      the error family every game raises, the integer check, end-of-game rewards
    seeding     the seed tree: every random stream of a run, a named child of one seed
    layout      observation layouts: named pieces of a flat vector, and who sees which (views)
    aec         the PettingZoo AEC base, its option checks and its refusing wrappers
    render      render modes, seat names, and the check that Pillow is installed
    cli         the commands' argument types, checks and error exit
    files       writing result folders atomically and reading them back

A game (`miaui_env.games.<name>`) builds on these and on the registry (`miaui_env.games`), never
on another game. Nothing here imports a game, an RL library or a compiler, except `aec`, which is
PettingZoo's.
"""
