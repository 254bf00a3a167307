"""The octopus fishing game: 2-4 players pushing their luck in turn (rulings O1-O12, docs/rules/octopus.md), one package.

    rules, observation       the pure rules engine and what a seat sees (O4), numpy at most
    env, agents              the PettingZoo AEC env (its docstring is the env card) and the baselines
    replay, arena, play      replays, the duplicate-deal arena, a person's game in the terminal
    odds, selfplay           the heuristics' odds as network inputs, and the SB3 self-play VecEnv
    web                      its page in the browser app

This module is the game's entry in the game registry (`GAME`) and its env id: importing it loads
none of the above.
"""

from miaui_env.core.registry import Game

PETTINGZOO_ID = "miaui_env/octopus-v0"  # the AEC env, registered by `import miaui_env` (AEC only: its turns are sequential)

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
        "web": "miaui_env.games.octopus.web:game_web",
    },
    # Each action reads its own odds (the flip its edge, each theft its expected swing).
    policy_classes={"OctopusActionOddsPolicy": "miaui_env.games.octopus.action_odds:OctopusActionOddsPolicy"},
    features_extractors={"OctopusOddsFeatures": "miaui_env.games.octopus.odds:OctopusOddsFeatures"},  # the heuristics' odds as inputs
)
