"""Kickstarting: a teacher agent's play cloned into the PPO network, then kept as a guide.

PPO from scratch spends most of its budget rediscovering what a good heuristic already knows
(which card wins which depth, when an extreme card is worth spending) and then plateaus below it.
So a run may first teach its policy to play like a teacher (by default `counter`), in the games
training will play (the config's tables and opponent mixture), and only then start PPO.

Cloning (`clone_teacher`, before PPO):

- The policy head learns the teacher's card by cross-entropy, DAgger-style: the cards actually
  played in the collected games come partly from the student itself (sampled, so the student
  visits the states its own mistakes lead to) and are labelled by the teacher all the same. The
  teacher's share of the cards falls from 1 to `teacher_share_end` over the phase.
- The value head learns each decision's return (the reward at the end of its game), so that PPO's
  first advantages are not noise.

Learning is streamed, one chunk of play at a time (a Miaui episode of the tables, 64 steps of the
octopus game's), collected, then trained on `epochs` times in minibatches, so memory stays that
of one chunk.

Guidance (`TeacherGuidance`, during PPO): after every PPO update, a few minibatches of the same
cross-entropy toward the teacher's cards for states of the rollout it learned from. Where PPO's
advantages say little (against random players the learner wins most games whatever it does,
so their signal is faint) this keeps the teacher's precision; where they are strong (a way to beat
the counter itself) PPO outweighs it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm

from miaui_env.core.agents import Agent, as_policy, reset_agent
from miaui_env.core.seeding import seed_children, seed_int
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.compact import COMPACT_DTYPE, expand_observations
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import NUM_ROUNDS
from training.config import KickstartConfig


def clone_teacher(
    model: Any,
    settings: KickstartConfig,
    seed: int | np.random.SeedSequence,
    progress: Any = None,
    *,
    load: Callable[..., Agent] = load_agent,
    chunk_steps: int = NUM_ROUNDS - 1,
    teacher_rows: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[str, Any]:
    """Train `model`'s policy to play like `settings.teacher` on `model`'s env; returns measures.

    `settings` is the config's `kickstart` section; `seed` (the run's `cloning` stream) seeds the
    teacher, which cards the teacher plays and the minibatches. `progress` (a tqdm bar) is advanced
    per decision, its total set to the decisions cloning plays (whole chunks), and a line marks the end.
    The game's own parts (Miaui's by default): `load` loads the teacher, `chunk_steps` steps are
    collected and learned at a time (a Miaui episode), and `teacher_rows` turns the env's rows into
    what the teacher reads (default `own_part`).
    """
    venv, policy = model.get_env(), model.policy
    teacher_seed, mix_seed, order_seed = seed_children(seed, 3)
    teacher = load(settings.teacher, seed=seed_int(teacher_seed))
    readable = teacher_rows or own_part
    rng = np.random.default_rng(mix_seed)
    generator = torch.Generator().manual_seed(seed_int(order_seed))
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate)
    total, batch_size, share_end = settings.decisions, settings.batch_size, settings.teacher_share_end
    decisions_per_chunk = venv.num_envs * chunk_steps
    chunks = max(1, -(-total // decisions_per_chunk))
    if progress is not None:  # whole chunks: `decisions` rounded up, so the bar ends at its total, not past it
        progress.total = chunks * decisions_per_chunk
        progress.refresh()
    policy.set_training_mode(True)
    observations = venv.reset()
    measures: dict[str, Any] = {"teacher": settings.teacher, "decisions": 0}
    for chunk in range(chunks):
        teacher_share = 1.0 - (1.0 - share_end) * chunk / max(chunks - 1, 1)
        reset_agent(teacher)
        seen, legal, labels, rewards, ends = [], [], [], [], []
        for _ in range(chunk_steps):
            masks = venv.action_masks()
            taught = np.asarray(as_policy(teacher)(readable(observations), masks))  # what the teacher reads of each row
            with torch.no_grad():
                sampled, _ = policy.predict(observations, action_masks=masks, deterministic=False)
            played = np.where(rng.random(venv.num_envs) < teacher_share, taught, sampled)
            seen.append(observations)
            legal.append(masks)
            labels.append(taught)
            observations, reward, done, _ = venv.step(played)
            rewards.append(reward)
            ends.append(done)
        returns, known = game_returns(np.array(rewards), np.array(ends))
        batch = np.concatenate(seen), np.concatenate(legal), np.concatenate(labels)
        for _ in range(settings.epochs):
            losses = _fit(policy, optimizer, *batch, returns.reshape(-1), batch_size, generator, known.reshape(-1))
        measures.update(losses, decisions=measures["decisions"] + decisions_per_chunk)
        if progress is not None:
            progress.update(decisions_per_chunk)
            progress.set_postfix(accuracy=f"{losses['accuracy']:.3f}", value_loss=f"{losses['value_loss']:.3f}")
    policy.set_training_mode(False)
    if progress is not None and not progress.disable:
        progress.write(f"cloning {settings.teacher} done: {measures['decisions']} decisions, accuracy {measures['accuracy']:.3f}")
    # PPO starts from fresh games: the ones cloned on are left, and the env is reset by learn().
    model._last_obs = None
    return measures


def game_returns(rewards: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each decision's return (gamma = 1: the rewards to the end of its game) over (steps, rows) of
    play, and whether it is known: a game still under way when the chunk ends has no return yet.
    A Miaui chunk is one whole episode, so every return is known and equals its game's reward."""
    returns, known = np.zeros_like(rewards, dtype=np.float64), np.zeros(rewards.shape, dtype=bool)
    running, ended = np.zeros(rewards.shape[1]), np.zeros(rewards.shape[1], dtype=bool)
    for step in range(len(rewards) - 1, -1, -1):
        running = np.where(ends[step], 0.0, running) + rewards[step]
        ended |= ends[step]
        returns[step], known[step] = running, ended
    return returns, known


def _fit(
    policy: Any,
    optimizer: torch.optim.Optimizer,
    observations: np.ndarray,
    masks: np.ndarray,
    labels: np.ndarray,
    returns: np.ndarray | None,
    batch_size: int,
    generator: torch.Generator,
    known: np.ndarray | None = None,
) -> dict[str, float]:
    """One pass over the decisions in shuffled minibatches (the value head learns `returns` unless
    None, on the decisions whose return is `known`: all when None); the measures of the last
    minibatch, taken after its step."""
    # Copied to the policy's device once (a compact run's rows as their uint8 codes); the minibatches
    # are drawn by the seeded generator on the CPU, so the order is the same on every device.
    device = policy.device
    obs_t, masks_t = torch.as_tensor(observations, device=device), torch.as_tensor(masks, device=device)
    labels_t = torch.as_tensor(labels, device=device)
    returns_t = None if returns is None else torch.as_tensor(returns, dtype=torch.float32, device=device)
    known_t = torch.ones(len(labels_t), dtype=torch.bool, device=device) if known is None else torch.as_tensor(known, device=device)
    order = torch.randperm(len(labels_t), generator=generator)
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size].to(device)
        values, log_prob, _ = policy.evaluate_actions(obs_t[rows], labels_t[rows], action_masks=masks_t[rows])
        policy_loss = -log_prob.mean()
        value_loss, kept = torch.zeros((), device=device), known_t[rows]
        if returns_t is not None and bool(kept.any()):
            value_loss = torch.nn.functional.mse_loss(values.flatten()[kept], returns_t[rows][kept])
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        optimizer.step()
    with torch.no_grad():
        best = policy.get_distribution(obs_t[rows], action_masks=masks_t[rows].cpu().numpy()).distribution.probs.argmax(-1)
    return {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "accuracy": float((best == labels_t[rows]).float().mean())}


def own_part(rows: np.ndarray) -> np.ndarray:
    """The seat's float32 observation at the front of a row (a privileged critic's rows carry the state
    after it; a compact run's rows are uint8 codes), as a teacher reads it."""
    own = rows[..., : OBSERVATION_LAYOUT.size]
    return expand_observations(own) if own.dtype == COMPACT_DTYPE else own


class TeacherGuidance(BaseCallback):
    """An SB3 callback: cross-entropy steps toward the teacher's cards on each PPO rollout (see the
    module docstring), logged to TensorBoard under kickstart/."""

    def __init__(
        self,
        model: Any,
        settings: KickstartConfig,
        seed: int | np.random.SeedSequence,
        *,
        load: Callable[..., Agent] = load_agent,
        teacher_rows: Callable[[np.ndarray], np.ndarray] | None = None,
    ):
        super().__init__()
        self.policy = model.policy
        teacher_seed, sample_seed = seed_children(seed, 2)  # `seed`: the run's `guidance` stream
        self.teacher = load(settings.teacher, seed=seed_int(teacher_seed))  # the game's loader (Miaui's by default)
        self.readable = teacher_rows or own_part  # what the teacher reads of a row
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=settings.guidance_learning_rate)
        self.steps, self.batch_size = settings.guidance_steps, settings.batch_size
        self.generator = torch.Generator().manual_seed(seed_int(sample_seed))
        self._lesson: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self._lesson = self.label(cast(OnPolicyAlgorithm, self.model).rollout_buffer)

    def _on_rollout_start(self) -> None:
        # After PPO's update on the last rollout, not before it: PPO's ratios must compare with the
        # policy that played the rollout.
        if self._lesson is not None:
            measures = self.teach(*self._lesson)
            self.logger.record("kickstart/guidance_loss", measures["policy_loss"])
            self.logger.record("kickstart/guidance_accuracy", measures["accuracy"])
            self._lesson = None

    def label(self, buffer: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A sample of the rollout's states with their masks and the teacher's cards, labelled in
        play order so that a teacher with memory follows its games."""
        steps, envs = buffer.observations.shape[:2]
        observations = buffer.observations.reshape(steps, envs, -1)
        masks = buffer.action_masks.reshape(steps, envs, -1)
        labels = np.empty((steps, envs), dtype=np.int64)
        reset_agent(self.teacher)
        for step in range(steps):
            labels[step] = as_policy(self.teacher)(self.readable(observations[step]), masks[step])
        rows = torch.randperm(steps * envs, generator=self.generator)[: self.steps * self.batch_size].numpy()
        return observations.reshape(steps * envs, -1)[rows], masks.reshape(steps * envs, -1)[rows], labels.reshape(-1)[rows]

    def teach(self, observations: np.ndarray, masks: np.ndarray, labels: np.ndarray) -> dict[str, float]:
        """The guidance steps on labelled states; the last step's measures."""
        self.policy.set_training_mode(True)
        measures = _fit(self.policy, self.optimizer, observations, masks, labels, None, self.batch_size, self.generator)
        self.policy.set_training_mode(False)
        return measures
