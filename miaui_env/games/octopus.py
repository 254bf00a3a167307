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
        "env": "miaui_env.octopus.env:env",
        "load_agent": "miaui_env.octopus.agents:load_octopus_agent",
        "agent_names": "miaui_env.octopus.agents:octopus_agents",
        "shipped_policies": "miaui_env.octopus.agents:shipped_octopus_policies",
        "observation_version": "miaui_env.octopus.observation:OBSERVATION_VERSION",
        "gauntlet": "miaui_env.apps.octopus_arena:gauntlet",
        "arena": "miaui_env.apps.octopus_arena:main",
        "play": "miaui_env.apps.octopus_play:play",
        "replay": "miaui_env.apps.octopus_replay:main",
    },
)
