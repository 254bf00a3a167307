"""The batched engine: `VectorMiaui` plays many games as arrays, proven identical to `rules.py`.

`engine` holds `VectorMiaui`; `state` the named structures of arrays it keeps; `rule_kernels` the
numba kernels of the rules (R4-R9), which know nothing of observations; `encode_kernels` the
numba kernels that write observations, the only ones that know the layout.
"""

from miaui_env.vector.engine import DECISIONS, VectorMiaui
from miaui_env.vector.state import RoundArrays

__all__ = ["DECISIONS", "RoundArrays", "VectorMiaui"]
