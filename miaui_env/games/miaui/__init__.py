"""Miaui: 3-6 players of simultaneous hidden bids (rulings R1-R11, docs/rules/miaui.md), one package.

    cards, rules, saved_state        the game itself: the deck, the pure rules engine, states as JSON (stdlib + numpy)
    observation, encoder, compact, belief
                                     what a seat may see (R11): layout, visibility tables, encoder, uint8 codes, beliefs
    spec                             TableSpec: players, variants, view, reward, observation dtype
    vector/                          the batched engine, proven identical to the rules and the encoder
    display/                         text and pictures of a table, one observation decoder for both
    agents/                          greedy, counter, styles, search, and Miaui's agent specs
    env, single_agent                the PettingZoo AEC and Parallel envs, the single-seat Gymnasium env
    replay, arena, play, web         replays, the duplicate-dealt arena, terminal play, the browser page (the commands' Miaui parts)
    selfplay, privileged, card_odds, compact_torch
                                     training: the SB3 self-play VecEnv, the privileged critic, card counting as
                                     inputs, the codes expanded in torch (the network classes checkpoints name)

This module is Miaui's entry in the game registry (`GAME`) and its env ids: importing it loads none
of the above.
"""

from miaui_env.core.registry import Game

GYMNASIUM_ID = "miaui_env/Miaui-v0"  # one seat against fixed opponents (single_agent), registered by `import miaui_env`
PETTINGZOO_ID = "miaui_env/miaui-v0"  # the AEC and Parallel envs (env)

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
        "env": "miaui_env.games.miaui.env:env",
        "parallel_env": "miaui_env.games.miaui.env:parallel_env",
        "load_agent": "miaui_env.games.miaui.agents.loading:load_agent",
        "agent_names": "miaui_env.games.miaui.agents:builtin_agents",
        "shipped_policies": "miaui_env.core.loading:shipped_policy_names",
        "observation_version": "miaui_env.games.miaui.observation:OBSERVATION_VERSION",
        "gauntlet": "miaui_env.games.miaui.arena:gauntlet",
        "arena": "miaui_env.games.miaui.arena:miaui_main",
        "play": "miaui_env.games.miaui.play:play",
        "replay": "miaui_env.games.miaui.replay:miaui_main",
        "web": "miaui_env.games.miaui.web:game_web",
    },
    policy_classes={
        "CompactInputPolicy": "miaui_env.games.miaui.compact_torch:CompactInputPolicy",  # the MlpPolicy taking uint8 codes too
        "PrivilegedCriticPolicy": "miaui_env.games.miaui.privileged:PrivilegedCriticPolicy",  # a critic reading the global state
    },
    features_extractors={
        "ExpandCompactObservations": "miaui_env.games.miaui.compact_torch:ExpandCompactObservations",  # rows as uint8 codes
        "CardOddsFeatures": "miaui_env.games.miaui.card_odds:CardOddsFeatures",  # card counting as inputs
    },
)
