"""Self-play tables of any game as one Gymnasium VectorEnv for RLlib's env runners, opponents and all.

RLlib's `SingleAgentEnvRunner` builds its env with `gymnasium.make_vec(...,
vectorization_mode="vector_entry_point")` when the config says `gym_env_vectorize_mode=
"vector_entry_point"`: the registered creator is called once per env runner with
`num_envs=num_envs_per_env_runner`, and gets back a whole VectorEnv (training/rllib_selfplay.py
registers `make_vector_env`). Ours is `SelfPlayVectorEnv`: every learner seat of every game of the
run's tables is one row, exactly as the SB3 trainer's tables, which it is built from by the same
game hooks (`training.games.TrainingGame.tables`): Miaui's `MiauiSelfPlayVecEnv` on the batched
engine (its games in lockstep), the octopus game's `OctopusSelfPlayVecEnv` (a game a row), or a
plug-in game's `AECSelfPlayVecEnv`. The other seats are played inside the env by the agents the
game's `seat` hook deals (training/opponents.py's mixtures for Miaui, as the SB3 trainer deals them).

Rows are `{"observation", "action_mask"}` as training/rllib_module.py reads them, plus
`"privileged"` (the global state, miaui_env.games.miaui.privileged) with Miaui's privileged critic.
Gymnasium 1.x's next-step autoreset, which RLlib's runner expects, row by row: the step that ends a
row's game returns its final observation with `terminated` (or `truncated`, at the octopus game's
session cap, O12), and the row's next step ignores its action and returns the new game's first
observation (the table has already dealt it: that row is held, not played). Miaui's rows all end
together, so a whole table is held; a game-per-row table holds its ended rows alone
(`step_async(..., hold=...)`). A final observation's mask is every action, as the Gymnasium env's
is: nothing is played from it.

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
from miaui_env.core.policy import PolicyAgent, RLlibModulePolicy
from miaui_env.core.seeding import seed_child, seed_generator, seed_int
from miaui_env.core.vec import MultiTableVecEnv, index_array
from miaui_env.games.miaui.privileged import PRIVILEGED_SIZE
from training.config import RLlibConfig, rllib_schema
from training.games import WeightSetter, training_game
from training.opponents import GameResult, finished_games

LEARNER = "learner"
"""The name of the pool member that is the env runner's own module, as it is now (the `latest` mode)."""
OPPONENTS, BASELINES = 1, 2  # the children of an env's seed tree (child 0 dealt the tables once)
RESULTS_KEPT = 1000
"""Steps' worth of finished games an env keeps for the league until the driver takes them (a run without a league never does)."""


class ModulePolicy(RLlibModulePolicy):
    """An RLlib module in memory (a snapshot, or the env runner's own) with the masked `predict`
    and `action_probabilities` of an exported one."""

    def __init__(self, module: Any, seed: int = 0):
        self.module = module
        self.rng = seed_generator(seed)


def observation_space(rows: gymnasium.spaces.Box, width: int, actions: int) -> gymnasium.spaces.Dict:
    """One row's space, split from a table's `rows`: the seat's observation (its first `width`
    entries), its legal actions (`actions` of them), and the global state after it, where the rows
    carry one (a privileged critic's)."""
    spaces: dict[str, gymnasium.Space[Any]] = {
        "observation": gymnasium.spaces.Box(rows.low[:width], rows.high[:width], (width,), np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (actions,), np.int8),
    }
    if rows.shape[0] > width:
        spaces["privileged"] = gymnasium.spaces.Box(rows.low[width:], rows.high[width:], (rows.shape[0] - width,), np.float32)
    return gymnasium.spaces.Dict(spaces)


class SelfPlayVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """Learner seats of the run's tables as one Gymnasium VectorEnv (next-step autoreset, row by row); see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012  # Gymnasium's own spelling

    def __init__(self, config: RLlibConfig):
        self.config, self.game = config, training_game(config.game)
        self.tables = self.game.tables(config, "float32")
        self.games = MultiTableVecEnv(self.tables)
        self.privileged, self.view = config.privileged_critic, config.view
        self.seed = config.seeds.integer("tables")  # the root of the opponents' and baselines' streams
        self.num_envs = self.games.num_envs
        space = self.games.observation_space
        assert isinstance(space, gymnasium.spaces.Box) and isinstance(self.games.action_space, gymnasium.spaces.Discrete)
        self.width = int(space.shape[0]) - (PRIVILEGED_SIZE if self.privileged else 0)  # the global state follows the seat's own
        self.num_actions = int(self.games.action_space.n)
        self.single_observation_space = observation_space(space, self.width, self.num_actions)
        self.single_action_space = gymnasium.spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._spans = list(zip(self.games.bounds[:-1], self.games.bounds[1:], strict=True))
        self._held = np.zeros(self.num_envs, dtype=bool)  # rows whose next step returns their new game's first observation
        self._rows_now = np.zeros((self.num_envs, *space.shape), dtype=np.float32)  # each table's rows as it last returned them
        self._masks_now = np.zeros((self.num_envs, self.num_actions), dtype=np.int8)
        self._all_actions = np.ones(self.num_actions, dtype=np.int8)
        self.results: list[list[GameResult]] = []  # per step that ended games: each game's (opponents, win share, seats)
        self.setters: list[WeightSetter] = []
        self._refreshes = 0
        self._baselines: dict[tuple[int, str], Agent | Policy] = {}
        self._runner = 0

    # -- Gymnasium ----------------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New games in every row (dealt from `seed`'s tree when given, as the SB3 tables deal them)."""
        if seed is not None:
            self.games.seed(seed if isinstance(seed, int) else seed[0])
        self._held[:] = False
        self._rows_now[:] = self.games.reset()
        self._masks_now[:] = self.games.action_masks()
        return self._rows(self._rows_now, self._masks_now), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision of every row not held; a row whose game ended returns its final row (terminated
        or truncated), and at its next step, its action ignored, its new game's first row."""
        given = index_array(actions, self.num_envs, "action", self.num_actions)
        held = self._held
        # Every table's share is checked before any table keeps its own: a refused step changes nothing.
        # A held row's action (chosen from its final row) is no move: its table's first legal one stands in.
        playing = []
        for table, (start, stop) in zip(self.tables, self._spans, strict=True):
            table_held = held[start:stop]
            if not table_held.all():  # a table whose games all ended last step plays nothing
                share = np.where(table_held, self._masks_now[start:stop].argmax(axis=1), given[start:stop])
                playing.append((table, share, table_held, start, stop))
        for table, share, _, _, _ in playing:
            table.check_actions(share)
        self._held = np.zeros(self.num_envs, dtype=bool)
        rows, masks = self._rows_now.copy(), self._masks_now.copy()
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated, truncated = np.zeros(self.num_envs, dtype=bool), np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for table, share, table_held, _, _ in playing:
            if table_held.any():
                table.step_async(share, trusted=True, hold=table_held)  # type: ignore[call-arg]  # a table of a game a row
            else:
                table.step_async(share, trusted=True)
        for table, _, _, start, stop in playing:
            observations, table_rewards, ended, infos[start:stop] = table.step_wait()
            rows[start:stop], masks[start:stop], rewards[start:stop] = np.asarray(observations), table.action_masks(), table_rewards
            self._rows_now[start:stop], self._masks_now[start:stop] = rows[start:stop], masks[start:stop]
            for row in np.flatnonzero(ended) + start:
                info = infos[row]
                rows[row], masks[row] = info["terminal_observation"], self._all_actions
                truncated[row] = bool(info.get("TimeLimit.truncated", False))
                terminated[row] = not truncated[row]
                self._held[row] = True
        if self._held.any():
            self.results = [*self.results[-RESULTS_KEPT:], finished_games(self.tables, self.games.bounds[:-1], infos)]
        return self._rows(rows, masks), rewards, terminated, truncated, {}

    def _rows(self, rows: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        batch: dict[str, np.ndarray] = {
            "observation": np.ascontiguousarray(rows[:, : self.width], dtype=np.float32),
            "action_mask": masks.astype(np.int8),
        }
        if self.privileged:
            batch["privileged"] = np.ascontiguousarray(rows[:, self.width :], dtype=np.float32)
        return batch

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
        self.setters = []
        for t, table in enumerate(self.tables):
            agents = [*members, *(self._baseline(t, name) for name in baselines)]
            self.setters.append(self.game.seat(table, agents, list(shares), seed_child(stream, 1, t), draw))

    def _baseline(self, table: int, name: str) -> Agent | Policy:
        """The table's own copy of a baseline, loaded once (an agent with memory follows one batch of games)."""
        if (table, name) not in self._baselines:
            self._baselines[table, name] = self.game.load_agent(
                name, seed=seed_int(seed_child(self.seed, BASELINES, self._runner, len(self._baselines)))
            )
        return self._baselines[table, name]

    def set_shares(self, shares: Sequence[float]) -> None:
        """New draw weights for the seated agents, from the next games on."""
        for setter in self.setters:
            setter(list(shares))

    @property
    def games_per_episode(self) -> int:
        """Games in play at once (a game's learner seats share it): how many finished games make one episode's worth."""
        return sum(table.num_envs // table.rows_per_game for table in self.tables)

    def take_results(self) -> list[list[GameResult]]:
        """The games finished since the last call, a list for each step that ended some (Miaui's: every game
        of an episode), each game's (opponent names, the learner's win share, seats)."""
        results, self.results = self.results, []
        return results


def make_vector_env(env_config: dict[str, Any]) -> SelfPlayVectorEnv:
    """The creator RLlib calls on every env runner (`vector_entry_point`): the run's config
    (`env_config["run"]`, as training/rllib_selfplay.py's `env_config` writes it) read back in its
    game's schema, its threads set for torch and the engine."""
    import torch

    run = env_config["run"]
    config = rllib_schema(run["game"])[0].from_dict(run)
    torch.set_num_threads(config.threads)
    # RLlib resets each runner's env with a seed of its own (its seed plus the runner's index).
    env = SelfPlayVectorEnv(config)
    if env_config.get("num_envs", env.num_envs) != env.num_envs:
        raise InvalidConfigError(f"num_envs_per_env_runner={env_config['num_envs']} but the tables hold {env.num_envs} learner seats")
    return env
