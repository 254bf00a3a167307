"""Deprecated: moved to `miaui_env.observe.observation` in 0.2; this alias goes in 0.3."""

from miaui_env._moved import alias

alias(__name__ if __name__ != "__main__" else "miaui_env.observation")
