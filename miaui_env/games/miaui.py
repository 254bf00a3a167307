"""Miaui in the game registry: 3-6 players of simultaneous hidden bids (rulings R1-R11, docs/rules/miaui.md)."""

from miaui_env.games import Game

GAME = Game(
    name="miaui",
    title="Miaui",
    min_players=3,
    max_players=6,
    default_players=4,
    variants=("open_baskets", "no_fighting"),
    views=("table", "recall"),
    baselines=("random", "greedy", "counter"),
    card_players=(3, 4, 6),
    play_opponents=("counter", "greedy", "random"),
    parts={
        "env": "miaui_env.envs.miaui:env",
        "parallel_env": "miaui_env.envs.miaui:parallel_env",
        "load_agent": "miaui_env.agents.loading:load_agent",
        "agent_names": "miaui_env.agents:builtin_agents",
        "shipped_policies": "miaui_env.core.loading:shipped_policy_names",
        "observation_version": "miaui_env.observe.observation:OBSERVATION_VERSION",
        "gauntlet": "miaui_env.apps.arena:gauntlet",
        "arena": "miaui_env.apps.arena:miaui_main",
        "play": "miaui_env.apps.play:play",
        "replay": "miaui_env.apps.replay:miaui_main",
    },
)
