"""Small adapters for RL clients that ignore action masks (SuperSuit's vector envs, skrl, plain
Box-observation pipelines): the mask carried inside the observation, where such a client passes
everything on untouched, and taken back out on the policy's side.

    env = MaskInObservation(miaui_env.parallel_env(num_players=4))
    # observation_space: Box((632,), float32) = the 620-float observation, then the 12-card mask
    # (with observation_dtype="uint8": Box((632,), uint8) = the 620 codes, then the mask as 0 and 1)

`split_mask(observations)` cuts a batch back into observations and boolean masks;
`miaui_env.integrations.sb3.ActionMasksFromObservation` gives an SB3 VecEnv built from such an env (by
SuperSuit, say) the `action_masks()` that sb3-contrib's MaskablePPO reads.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv

from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS

MASKED_SIZE = OBSERVATION_LAYOUT.size + NUM_DIVER_CARDS


class MaskedObservationError(ValueError):
    """What `split_mask` was given is no batch of observations with their masks."""


def split_mask(observations: Any) -> tuple[np.ndarray, np.ndarray]:
    """(..., 632) observations with their mask at the end: the (..., 620) observations and (..., 12) bool masks."""
    if observations is None:
        raise MaskedObservationError(f"split_mask needs observations with their mask, numbers of shape (..., {MASKED_SIZE}); got None")
    try:
        observations = np.asarray(observations)
    except ValueError:  # a ragged nesting of lists
        ragged = type(observations).__name__
        raise MaskedObservationError(f"observations with their mask are (..., {MASKED_SIZE}) numbers; got a ragged {ragged}") from None
    if observations.shape[-1:] != (MASKED_SIZE,):
        raise MaskedObservationError(f"observations with their mask are (..., {MASKED_SIZE}); got shape {observations.shape}")
    if observations.dtype.kind not in "biuf":  # (a complex number is no observation)
        raise MaskedObservationError(f"observations with their mask are (..., {MASKED_SIZE}) numbers; got dtype {observations.dtype}")
    return observations[..., : OBSERVATION_LAYOUT.size], observations[..., OBSERVATION_LAYOUT.size :] > 0


def _observation_dtype(env: ParallelEnv) -> np.dtype[Any]:
    """The dtype of the wrapped env's observations: float32, or uint8 for compact codes."""
    space = env.observation_space(env.possible_agents[0])
    inner = space["observation"] if isinstance(space, gymnasium.spaces.Dict) else space
    dtype = np.dtype(inner.dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.uint8)):
        raise InvalidConfigError(f"MaskInObservation wraps float32 or uint8 observations, got {inner}")
    return dtype


class MaskInObservation(ParallelEnv):
    """A Parallel env whose observations are one Box: the observation, then the action mask."""

    def __init__(self, env: ParallelEnv):
        if not isinstance(env, ParallelEnv):
            hint = " (an AEC env: wrap miaui_env.parallel_env(...) instead)" if isinstance(env, AECEnv) else ""
            raise InvalidConfigError(f"MaskInObservation wraps a PettingZoo Parallel env; got {type(env).__name__}{hint}")
        self.env = env
        self.metadata = env.metadata
        self.possible_agents = env.possible_agents
        self.render_mode = getattr(env, "render_mode", None)
        self._dtype = _observation_dtype(env)
        self._space: gymnasium.spaces.Box  # generic over its dtype since Gymnasium 1.3
        if self._dtype == np.uint8:  # codes stay codes: cast to floats they would fall outside a float Box
            self._space = gymnasium.spaces.Box(0, np.iinfo(np.uint8).max, (MASKED_SIZE,), np.uint8)
        else:
            self._space = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (MASKED_SIZE,), np.float32)

    @property
    def agents(self) -> list[str]:
        """The agents still playing."""
        agents: list[str] = self.env.agents
        return agents

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Box((632,)) of the wrapped env's dtype (float32 or uint8 codes): the observation, then the mask."""
        return self._space

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The wrapped env's: Discrete(12)."""
        space: gymnasium.spaces.Space[Any] = self.env.action_space(agent)
        return space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The wrapped env's reset, observations joined with their masks."""
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._joined(observations), infos

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """The wrapped env's step, observations joined with their masks."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return self._joined(observations), rewards, terminations, truncations, infos

    def _joined(self, observations: dict[str, Any]) -> dict[str, np.ndarray]:
        return {
            agent: np.concatenate([seen["observation"], seen["action_mask"]]).astype(self._dtype) for agent, seen in observations.items()
        }

    def state(self) -> np.ndarray:
        """The wrapped env's global state."""
        state: np.ndarray = self.env.state()
        return state

    def render(self) -> Any:
        """The wrapped env's picture."""
        return self.env.render()

    def close(self) -> None:
        """Close the wrapped env."""
        self.env.close()
