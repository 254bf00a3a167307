"""Parameter-shared self-play for Stable-Baselines3: the batched engine as an SB3 `VecEnv`.

    from sb3_contrib import MaskablePPO
    from miaui_env.sb3 import MiauiSelfPlayVecEnv

    venv = MiauiSelfPlayVecEnv(num_games=256, num_players=4, learner_seats=[0, 1], seed=0)
    MaskablePPO("MlpPolicy", venv).learn(100_000)

Every (game, learner seat) pair is one env index: index `g * L + j` is game g's j-th learner seat,
so all learner seats' experience trains the one policy, and each index only ever receives its own
seat's reward (never another seat's perspective). The other seats are played by `opponent`, a
batched agent or callable `(observations, masks) -> actions` (default: random legal cards);
`set_opponent` swaps it from the next episode on. With `rotate_seats` (default) the learner seats
move one place clockwise every episode, so the policy learns every position relative to Kiti.
`action_masks()` is what sb3-contrib's MaskablePPO reads. Episodes end together (the engine runs
its games in lockstep); the final observation of each index is in its info's
`terminal_observation`, and its info's `episode` holds the return and length for SB3's logger.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Unpack

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from miaui_env.agents import Agent, Policy, RandomAgent, as_policy, reset_agent
from miaui_env.observation import OBSERVATION_LAYOUT, VECTOR_BOUND
from miaui_env.rules import NUM_DIVER_CARDS, NUM_ROUNDS
from miaui_env.settings import SettingsKwargs
from miaui_env.vector import VectorMiaui


class _OneEnvVecEnv(VecEnv):
    """A VecEnv whose indices are slots of one engine: attributes and methods are shared."""

    def action_masks(self) -> np.ndarray:
        """(num_envs, 12) bool: the legal cards of each index."""
        raise NotImplementedError

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute, once per index (every index shares this one env)."""
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the (shared) env."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        """`action_masks` per index (what sb3-contrib calls); other methods once, result repeated."""
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[chosen])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(chosen)

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """No index is wrapped."""
        return [False] * len(list(self._get_indices(indices)))

    def close(self) -> None:
        """Nothing to release."""


class MiauiSelfPlayVecEnv(_OneEnvVecEnv):
    """Learner seats of many games as one SB3 VecEnv; see the module docstring."""

    def __init__(
        self,
        num_games: int,
        *,
        learner_seats: Sequence[int] | None = None,
        opponent: Agent | Policy | None = None,
        rotate_seats: bool = True,
        seed: int | None = None,
        **settings: Unpack[SettingsKwargs],
    ):
        self.engine = VectorMiaui(num_games, seed=seed, **settings)
        num_players = self.engine.num_players
        seats = list(range(num_players)) if learner_seats is None else sorted({int(s) for s in learner_seats})
        if not seats or not set(seats) <= set(range(num_players)):
            raise ValueError(f"learner_seats={learner_seats!r} must be a non-empty subset of 0-{num_players - 1}")
        self.num_games, self.num_players = num_games, num_players
        self.learner_seats = np.array(seats)
        self.rotate_seats = rotate_seats
        self._shift = 0
        self.opponent: Agent | Policy = opponent if opponent is not None else RandomAgent(seed)
        self._next_opponent: Agent | Policy | None = None
        self.render_mode = None
        observation_space = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (OBSERVATION_LAYOUT.size,), np.float32)
        super().__init__(num_games * len(seats), observation_space, gymnasium.spaces.Discrete(NUM_DIVER_CARDS))
        self._actions = np.zeros(self.num_envs, dtype=np.int64)
        self._masks = self.engine.action_masks()
        self._obs = self.engine._obs
        self._returns = np.zeros(self.num_envs, dtype=np.float64)
        self._episode_start = time.time()

    # -- seats ----------------------------------------------------------------------------------
    def _seats(self) -> tuple[np.ndarray, np.ndarray]:
        """This episode's learner seats and opponent seats."""
        learners = (self.learner_seats + self._shift) % self.num_players
        return learners, np.setdiff1d(np.arange(self.num_players), learners)

    def set_opponent(self, opponent: Agent | Policy) -> None:
        """Play the non-learner seats with `opponent` from the next episode on."""
        self._next_opponent = opponent

    # -- VecEnv ---------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """New games in every slot (seeded by `seed()` if it was called)."""
        seed = self._seeds[0]
        self._obs, self._masks = self.engine.reset(seed=seed)
        self._reset_seeds()
        self._shift = 0
        self._start_episode()
        return self._learner_view(self._obs)

    def _start_episode(self) -> None:
        if self._next_opponent is not None:
            self.opponent, self._next_opponent = self._next_opponent, None
        reset_agent(self.opponent)
        self._returns[:] = 0.0
        self._episode_start = time.time()

    def _learner_view(self, per_seat: np.ndarray) -> np.ndarray:
        learners, _ = self._seats()
        return per_seat[:, learners].reshape(self.num_envs, *per_seat.shape[2:])

    def step_async(self, actions: np.ndarray) -> None:
        """Store the learner seats' actions (one per env index)."""
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """Let the opponents choose, play the round in every game, and hand each index its own seat's result."""
        learners, opponents = self._seats()
        games, n_learners = self.num_games, len(learners)
        joint = np.empty((games, self.num_players), dtype=np.int64)
        joint[:, learners] = self._actions.reshape(games, n_learners)
        if opponents.size:
            seen = self._obs[:, opponents].reshape(-1, self._obs.shape[-1])
            masks = self._masks[:, opponents].reshape(-1, NUM_DIVER_CARDS)
            joint[:, opponents] = np.asarray(as_policy(self.opponent)(seen, masks)).reshape(games, opponents.size)
        obs, self._masks, rewards, dones, infos = self.engine.step(joint)
        self._obs = obs
        learner_rewards = rewards[:, learners].reshape(self.num_envs).astype(np.float32)
        self._returns += learner_rewards
        done = bool(dones[0])
        env_dones = np.full(self.num_envs, done)
        if not done:
            return self._learner_view(obs), learner_rewards, env_dones, [{} for _ in range(self.num_envs)]
        final = infos["final_observation"][:, learners].reshape(self.num_envs, -1)
        scores = infos["scores"][:, learners].reshape(self.num_envs)
        winners = infos["winners"][:, learners].reshape(self.num_envs)
        elapsed = round(time.time() - self._episode_start, 6)
        env_infos = [
            {
                "terminal_observation": final[i],
                "score": int(scores[i]),
                "winner": bool(winners[i]),
                "seat": int(learners[i % n_learners]),
                "episode": {"r": float(self._returns[i]), "l": NUM_ROUNDS - 1, "t": elapsed},
            }
            for i in range(self.num_envs)
        ]
        if self.rotate_seats:
            self._shift = (self._shift + 1) % self.num_players
        self._start_episode()
        return self._learner_view(obs), learner_rewards, env_dones, env_infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 12) bool: the legal cards of each index's seat."""
        return self._learner_view(self._masks).astype(bool)


class MultiTableVecEnv(_OneEnvVecEnv):
    """Several self-play VecEnvs (say 3-, 4- and 6-player tables, or variants) as one, so one
    network learns them all. Indices run through the tables in order; all tables share the
    observation layout, and their episodes all last 11 steps."""

    def __init__(self, tables: Sequence[MiauiSelfPlayVecEnv]):
        if not tables:
            raise ValueError("MultiTableVecEnv needs at least one table")
        self.tables = list(tables)
        self._bounds = np.cumsum([0] + [t.num_envs for t in self.tables])
        self.render_mode = None
        super().__init__(int(self._bounds[-1]), self.tables[0].observation_space, self.tables[0].action_space)

    def reset(self) -> np.ndarray:
        """Reset every table (seeded by `seed()` if it was called: table i gets seed + 1000 i)."""
        if self._seeds[0] is not None:
            for i, table in enumerate(self.tables):
                table.seed(int(self._seeds[0]) + 1000 * i)
        self._reset_seeds()
        return np.concatenate([table.reset() for table in self.tables])

    def step_async(self, actions: np.ndarray) -> None:
        """Hand each table its share of the actions."""
        for table, start, stop in zip(self.tables, self._bounds[:-1], self._bounds[1:], strict=True):
            table.step_async(np.asarray(actions)[start:stop])

    def step_wait(self) -> VecEnvStepReturn:
        """Step every table; concatenate what they return."""
        results = [table.step_wait() for table in self.tables]
        obs, rewards, dones, infos = zip(*results, strict=True)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for table in infos for i in table]

    def action_masks(self) -> np.ndarray:
        """(num_envs, 12) bool legal cards, table after table."""
        return np.concatenate([table.action_masks() for table in self.tables])
