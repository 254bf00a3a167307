"""The batched engine: `VectorMiaui` plays many games as arrays, proven identical to `rules.py`.

`engine` holds `VectorMiaui`; `state` the named structures of arrays it keeps; `loading` turns
reference `GameState`s into those arrays (checked) and holds their snapshots; `rule_kernels` the
numba kernels of the rules (R4-R9), which know nothing of observations; `encode_kernels` the
numba kernels that write observations, the only ones that know the layout.
"""

from miaui_env.games.miaui.vector.engine import DECISIONS, VectorMiaui
from miaui_env.games.miaui.vector.loading import EngineSnapshot
from miaui_env.games.miaui.vector.state import GameArrays, Reveal, RoundArrays

__all__ = ["DECISIONS", "EngineSnapshot", "GameArrays", "Reveal", "RoundArrays", "VectorMiaui"]
