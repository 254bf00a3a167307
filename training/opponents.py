"""Opponents for self-play: frozen snapshots of the learner, and a weighted mix with the baselines.

Against one fixed opponent PPO learns to beat that opponent and can forget the rest (strategy
cycling). So each episode every opponent seat is dealt to an agent drawn by weight: snapshots of
the learner taken during training (the pool) and the baseline agents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from miaui_env.agents import Agent, Policy, as_policy, reset_agent
from miaui_env.agents.policy import PolicyAgent
from miaui_env.files import replacing


class OpponentMixture:
    """Deals the opponents of each game to one of its agents by weight, anew after every reset, so
    a batch of games meets a mix of opponents every episode.

    The rows it is asked about come game by game, `seats_per_game` at a time (as the self-play
    VecEnv asks); all the opponent seats of one game go to the same agent, so the learner meets
    whole tables of one kind, as the arena measures it (one against n-1 copies).
    """

    name = "mixture"

    def __init__(self, agents: list[Agent | Policy], weights: list[float], rng: np.random.Generator, seats_per_game: int = 1):
        total = float(sum(weights))
        if not agents or total <= 0:
            raise ValueError("an opponent mixture needs at least one agent with a positive weight")
        self.agents, self.weights, self.rng = agents, np.asarray(weights) / total, rng
        self.seats_per_game = seats_per_game
        self._assignment: np.ndarray | None = None

    def reset(self) -> None:
        """New games: redraw who sits where, and reset every agent."""
        self._assignment = None
        for agent in self.agents:
            reset_agent(agent)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each row's card from the agent dealt that row."""
        rows = observations.shape[0]
        if self._assignment is None or self._assignment.size != rows:
            games = -(-rows // self.seats_per_game)
            per_game = self.rng.choice(len(self.agents), size=games, p=self.weights)
            self._assignment = np.repeat(per_game, self.seats_per_game)[:rows]
        actions = np.zeros(rows, dtype=np.int64)
        for index, agent in enumerate(self.agents):
            mine = self._assignment == index
            if mine.any():
                actions[mine] = as_policy(agent)(observations[mine], masks[mine])
        return actions


class SnapshotPool:
    """The latest `size` snapshots of the learner, kept as policy weights in `directory`.

    Older snapshots are deleted only once a checkpoint has been written (`trim`), and a resumed run
    first discards the ones taken after its checkpoint (`discard_after`), so the pool a run resumes
    with is the pool it had at that checkpoint.
    """

    def __init__(self, directory: Path, size: int):
        self.directory, self.size = directory, size
        directory.mkdir(parents=True, exist_ok=True)

    def _all(self) -> list[Path]:
        return sorted(self.directory.glob("step_*.pt"))

    @staticmethod
    def step_of(path: Path) -> int:
        """The training step a snapshot file was taken at."""
        return int(path.stem.removeprefix("step_"))

    def files(self) -> list[Path]:
        """The pool's snapshot files (the latest `size`), oldest first."""
        return self._all()[-self.size :]

    def add(self, model: Any, step: int) -> None:
        """Snapshot the learner's policy (written atomically)."""
        with replacing(self.directory / f"step_{step:010d}.pt") as temporary:
            torch.save(model.policy.state_dict(), temporary)

    def trim(self) -> None:
        """Delete the snapshots that have left the pool (call once a checkpoint holds the run)."""
        for old in self._all()[: -self.size]:
            old.unlink()

    def discard_after(self, step: int) -> None:
        """Delete the snapshots taken after `step` (a resumed run's checkpoint)."""
        for path in self._all():
            if self.step_of(path) > step:
                path.unlink()

    def agents(self, model: Any) -> list[PolicyAgent]:
        """The snapshots as agents sampling their cards (for variety), in policies shaped like `model`'s."""
        agents = []
        for path in self.files():
            policy = type(model.policy)(model.observation_space, model.action_space, lambda _: 0.0, **model.policy_kwargs)
            policy.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
            policy.set_training_mode(False)
            agents.append(PolicyAgent(policy, f"snapshot@{self.step_of(path)}", deterministic=False))
        return agents
