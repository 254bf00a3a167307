"""What every game's env shares for `render()`: the render modes, the seats' agent names, and the
check that Pillow, which draws the pictures, is installed."""

from __future__ import annotations

from miaui_env.core.errors import InvalidConfigError

EXTRA = 'pip install "miaui-rl[render]"'


class MissingExtraError(ImportError):
    """Pillow, which draws the pictures, is not installed."""


def require_pillow() -> None:
    """MissingExtraError naming the extra unless Pillow can be imported."""
    try:
        import PIL  # noqa: F401
    except ImportError as missing:
        raise MissingExtraError(f"render_mode='rgb_array' draws with Pillow, which is not installed: {EXTRA}") from missing


RENDER_MODES = ("human", "ansi", "rgb_array")


def check_render_mode(render_mode: str | None) -> None:
    """Refuse anything but None or a known render mode, naming the modes."""
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in RENDER_MODES):
        raise InvalidConfigError(f"render_mode={render_mode!r} is not allowed; use None, {', '.join(map(repr, RENDER_MODES))}")


def seat_name(seat: int) -> str:
    """The PettingZoo agent name of a seat."""
    return f"player_{seat}"
