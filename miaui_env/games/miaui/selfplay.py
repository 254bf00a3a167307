"""Parameter-shared self-play for Stable-Baselines3: the batched engine as an SB3 `VecEnv`.

    from sb3_contrib import MaskablePPO
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

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
`terminal_observation`, its `opponents` names who played the game's other seats, seat by seat,
and its `episode` holds the return and length for SB3's logger.
With `privileged=True` each row is the seat's observation followed by the global state, for a
privileged critic (`miaui_env.games.miaui.privileged`); opponents are still shown observations only.

Seeding: a seed (an int or a `numpy.random.SeedSequence`) is the root of a seed tree
(`miaui_env.core.seeding`). Every game slot gets its own seed from the tree's child 0
(`slot_seeds`: 64-bit words of its state, not `seed + i`), and the default opponent its seed from
child 1, so two tables seeded from sibling children never share a game, however many games each
holds. `miaui_env.core.vec.MultiTableVecEnv.seed` gives each table its own child. `seed()` (which SB3 calls with
MaskablePPO's `seed`) deals the next reset's games exactly as the same seed given to the
constructor does; after that each slot's generator carries on, game after game.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Unpack

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from miaui_env.core.agents import Agent, Policy, RandomAgent, agent_name, check_agent, checked_actions, reset_agent
from miaui_env.core.errors import IllegalActionError, InvalidConfigError
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.seeding import Seed, seed_tree
from miaui_env.core.vec import OneEnvVecEnv, checked_seats, index_array, opponent_seed, slot_seeds
from miaui_env.games.miaui.compact import expand_observations
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.privileged import PRIVILEGED_SIZE, empty_privileged_codes, privileged_codes, privileged_features
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, illegal_action
from miaui_env.games.miaui.spec import TableKwargs
from miaui_env.games.miaui.vector import VectorMiaui


class MiauiSelfPlayVecEnv(OneEnvVecEnv):
    """Learner seats of many games as one SB3 VecEnv; see the module docstring."""

    def __init__(
        self,
        num_games: int,
        *,
        learner_seats: Sequence[int] | None = None,
        opponent: Agent | Policy | None = None,
        rotate_seats: bool = True,
        seed: Seed | None = None,
        threads: int = 1,
        privileged: bool = False,
        **settings: Unpack[TableKwargs],
    ):
        self.engine = VectorMiaui(num_games, threads=threads, **settings)  # checks num_games, threads and the settings first
        if not isinstance(privileged, bool):
            raise InvalidConfigError(f"privileged must be True or False, got {privileged!r}")
        self.privileged = privileged
        # The first reset deals these games again, so the games before and after it are the same.
        self._next_seeds: list[int] | None = None if seed is None else slot_seeds(seed, num_games)
        if self._next_seeds is not None:
            self.engine.reset(seeds=self._next_seeds)
        num_players = self.engine.num_players
        seats = checked_seats(learner_seats, num_players)
        if opponent is not None:
            check_agent(opponent, "opponent")
        self.num_games, self.num_players = num_games, num_players
        self._decisions = self.engine.config.rounds - 1  # an episode's steps: the last card is forced (R6)
        self.learner_seats = np.array(seats)
        if not isinstance(rotate_seats, bool):
            raise InvalidConfigError(f"rotate_seats must be True or False, got {rotate_seats!r}")
        self.rotate_seats = rotate_seats
        self._shift = 0
        default = RandomAgent(None if seed is None else opponent_seed(seed))
        self.opponent: Agent | Policy = opponent if opponent is not None else default
        self._next_opponent: Agent | Policy | None = None
        self.render_mode = None
        observation_space: gymnasium.spaces.Box  # generic over its dtype since Gymnasium 1.3
        width = OBSERVATION_LAYOUT.size + (PRIVILEGED_SIZE if privileged else 0)
        if self.engine.compact:  # uint8 codes: a policy expands them (CompactInputPolicy, PrivilegedCriticPolicy)
            observation_space = gymnasium.spaces.Box(0, np.iinfo(np.uint8).max, (width,), np.uint8)
        else:
            observation_space = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (width,), np.float32)
        super().__init__(num_games * len(seats), observation_space, gymnasium.spaces.Discrete(NUM_DIVER_CARDS))
        self._actions = np.zeros(self.num_envs, dtype=np.int64)
        self._actions_pending = False
        self._masks = self.engine.action_masks()
        self._obs = self.engine.observations
        self._returns = np.zeros(self.num_envs, dtype=np.float64)
        self._episode_start = time.time()

    # -- seats ----------------------------------------------------------------------------------
    def _seats(self) -> tuple[np.ndarray, np.ndarray]:
        """This episode's learner seats and opponent seats."""
        learners = (self.learner_seats + self._shift) % self.num_players
        return learners, np.setdiff1d(np.arange(self.num_players), learners)

    def set_opponent(self, opponent: Agent | Policy) -> None:
        """Play the non-learner seats with `opponent` from the next episode on."""
        self._next_opponent = check_agent(opponent, "opponent")

    # -- VecEnv ---------------------------------------------------------------------------------
    def seed(self, seed: Seed | None = None) -> list[int | None]:
        """Deal the next reset's games from `seed` (None: fresh entropy), as the constructor's `seed`
        would; returns each index's game seed."""
        self._next_seeds = slot_seeds(seed_tree(seed), self.num_games)
        return [s for s in self._next_seeds for _ in self.learner_seats]

    def reset(self) -> np.ndarray:
        """New games in every slot (dealt from the seed given to `seed()`, if it was called since)."""
        self._obs, self._masks = self.engine.reset(seeds=self._next_seeds)
        self._next_seeds = None
        self._shift = 0
        self._actions_pending = False  # actions stored before a reset were checked against the old hands
        self._start_episode()
        return self._learner_rows(self._obs)

    def _start_episode(self) -> None:
        if self._next_opponent is not None:
            self.opponent, self._next_opponent = self._next_opponent, None
        reset_agent(self.opponent)
        self._returns[:] = 0.0
        self._episode_start = time.time()

    def _learner_view(self, per_seat: np.ndarray) -> np.ndarray:
        learners, _ = self._seats()
        return per_seat[:, learners].reshape(self.num_envs, *per_seat.shape[2:])

    def _learner_rows(self, observations: np.ndarray) -> np.ndarray:
        """The learner seats' observations, followed by the global state when the env is privileged."""
        rows = self._learner_view(observations)
        if not self.privileged:
            return rows
        state_of = privileged_codes if self.engine.compact else privileged_features
        state = state_of(self.engine, self._seats()[0]).reshape(self.num_envs, PRIVILEGED_SIZE)
        return np.concatenate([rows, state], axis=1)

    def step_async(self, actions: np.ndarray, *, trusted: bool = False) -> None:
        """Store the learner seats' actions (one per env index), checked before any opponent moves;
        `trusted`: they are what `check_actions` returned, and are not checked again."""
        if not isinstance(trusted, bool | np.bool_):  # a truthy string would skip every check
            raise IllegalActionError(f"trusted must be True or False, got {trusted!r:.60}")
        self._actions = actions if trusted else self.check_actions(actions)
        self._actions_pending = True

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """The learner seats' actions as int64 card indices, one per env index; IllegalActionError
        naming the index, game and seat of the first that is no card in its seat's hand."""
        given = index_array(actions, self.num_envs, "card", NUM_DIVER_CARDS)
        masks = self._learner_view(self._masks)  # the int8 hands: no bool copy on every step
        bad = (given < 0) | (given >= NUM_DIVER_CARDS)
        if not bad.any():
            bad = masks[np.arange(self.num_envs), given] == 0
        if bad.any():
            index = int(np.flatnonzero(bad)[0])
            learners, _ = self._seats()
            game, seat = divmod(index, len(learners))
            raise illegal_action(f"env index {index} (game {game}, player_{learners[seat]})", int(given[index]), masks[index])
        return given

    def step_wait(self) -> VecEnvStepReturn:
        """Let the opponents choose, play the round in every game, and hand each index its own seat's result."""
        self.check_actions_pending()
        self._actions_pending = False
        learners, opponents = self._seats()
        games, n_learners = self.num_games, len(learners)
        joint = np.empty((games, self.num_players), dtype=np.int64)
        joint[:, learners] = self._actions.reshape(games, n_learners)
        if opponents.size:
            seen = self._obs[:, opponents].reshape(-1, self._obs.shape[-1])
            if self.engine.compact:  # agents read the float layout
                seen = expand_observations(seen)
            masks = self._masks[:, opponents].reshape(-1, NUM_DIVER_CARDS)
            joint[:, opponents] = checked_actions(self.opponent, seen, masks).reshape(games, opponents.size)
        obs, self._masks, rewards, dones, infos = self.engine.step(joint)
        self._obs = obs
        learner_rewards = rewards[:, learners].reshape(self.num_envs).astype(np.float32)
        self._returns += learner_rewards
        done = bool(dones[0])
        env_dones = np.full(self.num_envs, done)
        if not done:
            return self._learner_rows(obs), learner_rewards, env_dones, [{} for _ in range(self.num_envs)]
        final = infos["final_observation"][:, learners].reshape(self.num_envs, -1)
        if self.privileged:  # the finished games' state is gone; a final row is never valued (the game is over)
            compact = self.engine.compact
            state = empty_privileged_codes(self.num_envs) if compact else np.zeros((self.num_envs, PRIVILEGED_SIZE), final.dtype)
            final = np.concatenate([final, state], axis=1)
        scores = infos["scores"][:, learners].reshape(self.num_envs)
        winners = infos["winners"][:, learners].reshape(self.num_envs)
        elapsed = round(time.time() - self._episode_start, 6)
        seated = self._seated_opponents(games, opponents.size)
        env_infos = [
            {
                "terminal_observation": final[i],
                "score": int(scores[i]),
                "winner": bool(winners[i]),
                "seat": int(learners[i % n_learners]),
                "opponents": seated[i // n_learners],
                "episode": {"r": float(self._returns[i]), "l": self._decisions, "t": elapsed},
            }
            for i in range(self.num_envs)
        ]
        if self.rotate_seats:
            self._shift = (self._shift + 1) % self.num_players
        self._start_episode()
        return self._learner_rows(obs), learner_rewards, env_dones, env_infos

    def check_actions_pending(self) -> None:
        """IllegalActionError unless `step_async` stored actions that no `step_wait` has played yet: a
        second `step_wait` would let the opponents choose (and draw from their generators) before refusing."""
        if not self._actions_pending:
            raise IllegalActionError("step_wait() needs step_async(actions) first: each round's actions are played once")

    def _seated_opponents(self, games: int, seats: int) -> list[tuple[str, ...]]:
        """Each game's opponents by name, seat by seat: a mixture of agents says who it dealt where
        (`seated(rows)`), any other opponent is one agent in every seat."""
        seated = getattr(self.opponent, "seated", None)
        names = list(seated(games * seats)) if callable(seated) else [agent_name(self.opponent)] * (games * seats)
        return [tuple(names[g * seats : (g + 1) * seats]) for g in range(games)]

    @property
    def rows_per_game(self) -> int:
        """Rows that share one game (its learner seats, next to each other): a game's rows end together."""
        return len(self.learner_seats)

    def action_masks(self) -> np.ndarray:
        """(num_envs, 12) bool: the legal cards of each index's seat."""
        return self._learner_view(self._masks).astype(bool)
