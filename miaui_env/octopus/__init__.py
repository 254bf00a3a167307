"""The octopus fishing game (rulings O1-O12: docs/rules/octopus.md), beside Miaui.

`rules` is the pure engine (numpy at most): cards as ids 0..65, a mutable `OctopusState` owned by
`new_game` and `step`, `legal_decisions`, the event log and the scores. The env, agents and
training build on it. `observation` is what a seat sees (O4; no RL library either); `env` is the
PettingZoo AEC env: `from miaui_env.octopus.env import env, raw_env`, or `miaui_env.octopus_env`
(importing this package loads no RL library).
"""

from miaui_env.octopus.rules import (
    FLIP,
    NO_THEFT,
    NUM_ACTIONS,
    NUM_CARDS,
    STOP,
    Decision,
    Event,
    IllegalDecisionError,
    InvalidConfigError,
    Move,
    OctopusState,
    Phase,
    Theft,
    action_mask,
    action_of,
    card_name,
    decision_of,
    legal_decisions,
    new_game,
    session_score,
    step,
    winners,
)

__all__ = [
    "FLIP",
    "NO_THEFT",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "STOP",
    "Decision",
    "Event",
    "IllegalDecisionError",
    "InvalidConfigError",
    "Move",
    "OctopusState",
    "Phase",
    "Theft",
    "action_mask",
    "action_of",
    "card_name",
    "decision_of",
    "legal_decisions",
    "new_game",
    "session_score",
    "step",
    "winners",
]
