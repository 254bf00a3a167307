"""The RLlib trainer's opponents: the SB3 trainer's pool, league and mixture (training/opponents.py),
kept by the driver and seated on every env runner.

The driver holds what a checkpoint keeps: the snapshot pool (`ModuleSnapshotPool`: the module's
weights in the run's pool/, the same files, trimming and --resume rules as `SnapshotPool`'s) and a
league's statistics (`League`). Every env runner's vector env (training/rllib_env.py) seats them
at each table by the game's `seat` hook; the driver ships it the snapshots' weights themselves through
`foreach_env_runner`, so a cluster needs no shared filesystem. The learner as it is now (the
`latest` mode, or a pool with no snapshot yet) is each runner's own module, whose weights RLlib
syncs after every update.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from miaui_env.core.files import replacing
from training.config import OpponentsConfig
from training.opponents import SNAPSHOT_PREFIX, GameResult, Opponents, SnapshotPool
from training.rllib_env import LEARNER


class ModuleSnapshotPool(SnapshotPool):
    """`SnapshotPool` of an RLlib module's weights (inference-only state, as torch tensors)."""

    def add(self, model: Any, step: int) -> None:
        """Snapshot the module's weights (written atomically)."""
        state = {key: torch.as_tensor(np.asarray(value)) for key, value in model.get_state(inference_only=True).items()}
        with replacing(self.directory / f"step_{step:010d}.pt") as temporary:
            torch.save(state, temporary)

    def states(self) -> list[tuple[str, dict[str, Any]]]:
        """The pool's snapshots as (name, weights), oldest first."""
        return [
            (f"{SNAPSHOT_PREFIX}{self.step_of(path)}", torch.load(path, map_location="cpu", weights_only=True)) for path in self.files()
        ]


class RLlibOpponents(Opponents):
    """The trainers' `Opponents`, their snapshots an RLlib module's, seated on every env runner; see the module docstring."""

    pool: ModuleSnapshotPool

    def __init__(self, settings: OpponentsConfig, directory: Path):
        super().__init__(settings, ModuleSnapshotPool(directory / "pool", settings.pool_size))

    def refresh(self, algo: Any) -> None:
        """Seat the pool (its snapshots, or the learner itself) and the baselines on every env runner, from the next games on."""
        snapshots = self.pool.states() if self.pool_weight > 0 and self.settings.mode != "latest" else []
        with_learner = self.pool_weight > 0 and not snapshots
        self.seat([name for name, _ in snapshots] + ([LEARNER] if with_learner else []))
        shares, baselines, draw = self.shares(), list(self.baseline_weights), self.settings.draw

        def seat(runner: Any) -> None:
            if runner.env is not None:
                runner.env.unwrapped.set_opponents(runner.module, snapshots, with_learner, baselines, shares, draw, runner.worker_index)

        algo.env_runner_group.foreach_env_runner(seat)

    def collect(self, algo: Any) -> None:
        """A league's statistics from the games every env runner finished since the last call, as the SB3
        trainer counts them (old results fading per episode's worth of games); the new draw weights to every runner."""
        if self.league is None:
            return

        def take(runner: Any) -> tuple[int | None, list[list[GameResult]]]:
            env = runner.env.unwrapped if runner.env is not None else None
            return (env.games_per_episode, env.take_results()) if env is not None else (None, [])

        for games_per_episode, finished in algo.env_runner_group.foreach_env_runner(take):
            for games in finished:  # a game-per-row game's end apart: each fades the league by its share of an episode
                self.record(games, games_per_episode)
        shares = self.shares()

        def reweigh(runner: Any) -> None:
            if runner.env is not None:
                runner.env.unwrapped.set_shares(shares)

        algo.env_runner_group.foreach_env_runner(reweigh)
