"""Deprecated: moved to `miaui_env.integrations.privileged` in 0.2; this alias goes in 0.3.

Checkpoints saved by 0.1 (the shipped ones too) pickle their policy class under this path.
"""

from miaui_env._moved import alias

alias(__name__ if __name__ != "__main__" else "miaui_env.privileged")
