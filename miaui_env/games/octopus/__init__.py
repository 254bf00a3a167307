"""The octopus fishing game in the game registry: 2-4 players pushing their luck in turn (rulings O1-O12, docs/rules/octopus.md)."""

from miaui_env.games import Game

GAME = Game(
    name="octopus",
    title="the octopus game",
    min_players=2,
    max_players=4,
    default_players=3,
    variants=(),
    views=("table", "recall"),
    baselines=("random", "risk-aware", "rival-aware"),
    card_players=(2, 3, 4),
    play_opponents=("random",),
    parts={
        "env": "miaui_env.games.octopus.env:env",
        "load_agent": "miaui_env.games.octopus.agents:load_octopus_agent",
        "agent_names": "miaui_env.games.octopus.agents:octopus_agents",
        "shipped_policies": "miaui_env.games.octopus.agents:shipped_octopus_policies",
        "observation_version": "miaui_env.games.octopus.observation:OBSERVATION_VERSION",
        "gauntlet": "miaui_env.games.octopus.arena:gauntlet",
        "arena": "miaui_env.games.octopus.arena:main",
        "play": "miaui_env.games.octopus.play:play",
        "replay": "miaui_env.games.octopus.replay:main",
    },
)
