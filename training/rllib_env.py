"""The batched engine as one Gymnasium VectorEnv for RLlib's env runners, opponents and all.

RLlib's `SingleAgentEnvRunner` builds its env with `gymnasium.make_vec(...,
vectorization_mode="vector_entry_point")` when the config says `gym_env_vectorize_mode=
"vector_entry_point"`: the registered creator is called once per env runner with
`num_envs=num_envs_per_env_runner`, and gets back a whole VectorEnv (training/rllib_selfplay.py
registers `make_vector_env`). Ours is `MiauiVectorEnv`: every learner seat of every game of the
run's tables is one row, exactly as the SB3 trainer's `MultiTableVecEnv` of `MiauiSelfPlayVecEnv`
tables (which it wraps, not copies), so one env runner steps hundreds of games in lockstep instead
of one PettingZoo game at a time. The other seats are played inside the env by an
`OpponentMixture` per table (training/opponents.py, as the SB3 trainer deals them).

Rows are `{"observation", "action_mask"}` as training/rllib_module.py reads them, plus
`"privileged"` (the global state, miaui_env.integrations.privileged) with a privileged critic.
Gymnasium 1.x's next-step autoreset, which RLlib's runner expects: the step that ends the games
returns their final observations with `terminated`, and the next step ignores its actions and
returns the new games' first observations (the engine has already dealt them: no engine step).
A final observation's mask is every card, as the Gymnasium env's is: nothing is played from it.

The driver talks to every runner's env through `foreach_env_runner` (no shared filesystem
needed): `set_opponents` seats the pool (module weights shipped as state dicts) and the
baselines, `set_shares` changes the draw weights, `take_results` hands over the finished games
for a league's statistics.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from miaui_env.core.agents import Agent, Policy
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.policy import PolicyAgent, RLlibModulePolicy
from miaui_env.core.seeding import seed_child, seed_generator, seed_int
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS
from miaui_env.integrations.privileged import PRIVILEGED_SIZE
from miaui_env.integrations.sb3 import MiauiSelfPlayVecEnv, MultiTableVecEnv
from training.opponents import GameResult, OpponentMixture, finished_games

LEARNER = "learner"
"""The name of the pool member that is the env runner's own module, as it is now (the `latest` mode)."""
TABLES, OPPONENTS, BASELINES = 0, 1, 2  # the children of an env's seed tree
EPISODES_KEPT = 1000
"""Episodes of results an env keeps for the league until the driver takes them (a run without a league never does)."""


class ModulePolicy(RLlibModulePolicy):
    """An RLlib module in memory (a snapshot, or the env runner's own) with the masked `predict`
    and `action_probabilities` of an exported one."""

    def __init__(self, module: Any, seed: int = 0):
        self.module = module
        self.rng = seed_generator(seed)


def observation_space(privileged: bool) -> gymnasium.spaces.Dict:
    """One row's space: the seat's observation and its legal cards (and the global state, for a privileged critic)."""
    spaces: dict[str, gymnasium.Space[Any]] = {
        "observation": gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (OBSERVATION_LAYOUT.size,), np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (NUM_DIVER_CARDS,), np.int8),
    }
    if privileged:
        spaces["privileged"] = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (PRIVILEGED_SIZE,), np.float32)
    return gymnasium.spaces.Dict(spaces)


class MiauiVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """Learner seats of the run's tables as one Gymnasium VectorEnv (next-step autoreset); see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012  # Gymnasium's own spelling

    def __init__(self, tables: Sequence[dict[str, Any]], *, view: str, reward: str, seed: int, threads: int = 1, privileged: bool = False):
        children = seed_child(seed, TABLES).spawn(len(tables))
        self.tables = [
            MiauiSelfPlayVecEnv(
                num_games=table["num_games"],
                learner_seats=table.get("learner_seats"),
                seed=child,
                threads=threads,
                privileged=privileged,
                num_players=table["num_players"],
                open_baskets=table.get("open_baskets", False),
                no_fighting=table.get("no_fighting", False),
                view=view,
                reward=reward,
            )
            for table, child in zip(tables, children, strict=True)
        ]
        self.games = MultiTableVecEnv(self.tables)
        self.privileged, self.view, self.seed = privileged, view, seed
        self.num_envs = self.games.num_envs
        self.single_observation_space = observation_space(privileged)
        self.single_action_space = gymnasium.spaces.Discrete(NUM_DIVER_CARDS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._first: dict[str, np.ndarray] | None = None  # the new games' first rows, due at the step after the end
        self._all_cards = np.ones((self.num_envs, NUM_DIVER_CARDS), dtype=np.int8)
        self._no_reward = np.zeros(self.num_envs, dtype=np.float32)
        self._not_done = np.zeros(self.num_envs, dtype=bool)
        self.results: list[list[GameResult]] = []  # per episode: each game's (opponents, win share, seats)
        self.mixtures: list[OpponentMixture] = []
        self._refreshes = 0
        self._baselines: dict[tuple[int, str], Agent | Policy] = {}
        self._runner = 0

    # -- Gymnasium ----------------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New games in every slot (dealt from `seed`'s tree when given, as the SB3 tables deal them)."""
        if seed is not None:
            self.games.seed(seed if isinstance(seed, int) else seed[0])
        self._first = None
        return self._rows(np.asarray(self.games.reset()), self.games.action_masks()), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One round of every game; at the end, the final rows (terminated), then the new games' first rows."""
        if self._first is not None:  # next-step autoreset: the actions chosen from final rows are no cards
            first, self._first = self._first, None
            return first, self._no_reward, self._not_done, self._not_done, {}
        self.games.step_async(np.asarray(actions))
        observations, rewards, dones, infos = self.games.step_wait()
        rows, masks = np.asarray(observations), self.games.action_masks()
        if not dones[0]:  # the engine plays its games in lockstep: they all end together
            return self._rows(rows, masks), rewards, dones, self._not_done, {}
        self._first = self._rows(rows, masks)
        self._record(infos)
        final = np.stack([info["terminal_observation"] for info in infos])
        return self._rows(final, self._all_cards), rewards, dones, self._not_done, {}

    def _rows(self, rows: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        own = OBSERVATION_LAYOUT.size
        batch: dict[str, np.ndarray] = {
            "observation": np.ascontiguousarray(rows[:, :own], dtype=np.float32),
            "action_mask": masks.astype(np.int8),
        }
        if self.privileged:
            batch["privileged"] = np.ascontiguousarray(rows[:, own:], dtype=np.float32)
        return batch

    def _record(self, infos: list[dict[str, Any]]) -> None:
        """Each finished game's opponents and the learner's win share in it, for a league (training.opponents.finished_games)."""
        self.results = [*self.results[-EPISODES_KEPT:], finished_games(self.tables, self.games.bounds[:-1], infos)]

    # -- opponents, set by the driver through foreach_env_runner ------------------------------
    def set_opponents(
        self,
        module: Any,
        snapshots: Sequence[tuple[str, dict[str, Any]]],
        with_learner: bool,
        baselines: Sequence[str],
        shares: Sequence[float],
        draw: str,
        runner: int = 0,
    ) -> None:
        """Seat, from the next games on, the pool members (snapshots as (name, module state), copies of
        the runner's `module` holding them; then, `with_learner`, that module itself: the learner as it
        is now), then the named baselines, drawn by `shares` (one per member, then one per baseline).
        `runner`, the env runner's index, gives each runner draws of its own."""
        self._refreshes += 1
        self._runner = runner
        stream = seed_child(self.seed, OPPONENTS, runner, self._refreshes)
        modules = []
        for name, state in snapshots:
            snapshot = copy.deepcopy(module)
            snapshot.set_state(state)
            modules.append((name, snapshot))
        if with_learner:
            modules.append((LEARNER, module))
        members: list[Agent | Policy] = [
            PolicyAgent(ModulePolicy(held), name, self.view, deterministic=False, seed=seed_int(seed_child(stream, 0, i)))
            for i, (name, held) in enumerate(modules)
        ]
        if len(members) + len(baselines) != len(shares):
            raise InvalidConfigError(f"{len(shares)} draw weights for {len(members)} pool members and {len(baselines)} baselines")
        self.mixtures = []
        for t, table in enumerate(self.tables):
            agents = [*members, *(self._baseline(t, name) for name in baselines)]
            seats = max(table.num_players - len(table.learner_seats), 1)  # all-learner tables never ask
            rng = np.random.default_rng(seed_child(stream, 1, t))
            mixture = OpponentMixture(agents, list(shares), rng, seats_per_game=seats, draw=draw)
            table.set_opponent(mixture)
            self.mixtures.append(mixture)

    def _baseline(self, table: int, name: str) -> Agent | Policy:
        """The table's own copy of a baseline, loaded once (an agent with memory follows one batch of games)."""
        if (table, name) not in self._baselines:
            self._baselines[table, name] = load_agent(
                name, seed=seed_int(seed_child(self.seed, BASELINES, self._runner, len(self._baselines)))
            )
        return self._baselines[table, name]

    def set_shares(self, shares: Sequence[float]) -> None:
        """New draw weights for the seated agents, from the next games on."""
        for mixture in self.mixtures:
            mixture.set_weights(list(shares))

    def take_results(self) -> list[list[GameResult]]:
        """The episodes finished since the last call, each its games' (opponent names, the learner's win share, seats)."""
        results, self.results = self.results, []
        return results


def make_vector_env(env_config: dict[str, Any]) -> MiauiVectorEnv:
    """The creator RLlib calls on every env runner (`vector_entry_point`): its tables, its threads set for torch and the engine."""
    import torch

    threads = env_config["threads"]
    torch.set_num_threads(threads)
    # RLlib resets each runner's env with a seed of its own (its seed plus the runner's index).
    env = MiauiVectorEnv(
        env_config["tables"],
        view=env_config["view"],
        reward=env_config["reward"],
        seed=env_config["seed"],
        threads=threads,
        privileged=env_config["privileged"],
    )
    if env_config.get("num_envs", env.num_envs) != env.num_envs:
        raise InvalidConfigError(f"num_envs_per_env_runner={env_config['num_envs']} but the tables hold {env.num_envs} learner seats")
    return env
