"""The trainers: `python -m training.selfplay`, `training.exploit`, `training.rllib_selfplay` and what they share."""

from miaui_env import _interrupts  # noqa: F401  # first: Ctrl-C while a trainer's imports run ends it in one line
