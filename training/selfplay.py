"""Self-play PPO for Miaui and the octopus game: `python -m training.selfplay` trains configs/default.yaml.

    python -m training.selfplay                                   # the default run
    python -m training.selfplay --config configs/smoke.yaml       # any config
    python -m training.selfplay --config configs/octopus.yaml     # the octopus fishing game
    python -m training.selfplay --set ppo.learning_rate=1e-4 --set seed=3
    python -m training.selfplay --resume checkpoints/miaui-ppo    # continue a stopped or killed run

One sb3-contrib MaskablePPO policy plays every learner seat of every table in the config (table
sizes and variants at once, one network), on the batched engine. It starts from new weights (the
default: no teacher), from a clone of a teacher heuristic that then keeps guiding it
(`kickstart`, training/kickstart.py), or from a trained policy's weights (`init`,
training/ppo.py). Opponent seats are dealt each episode among the learner's own side and the
baselines (heuristics and playing styles to beat), the learner's side played as `opponents.mode`
says: the learner itself (`latest`), its past snapshots and exploiters alike (`mixture`) or by
prioritized fictitious self-play (`league`) (training/opponents.py). Every `exploiters.every`
steps a best response to the learner trains and joins them (training/exploiters.py). PPO's loss
may pull toward a magnet policy (`magnet`, training/magnet.py: Magnetic Mirror Descent). With
`privileged_critic` the value network also reads the global state
(miaui_env/games/miaui/privileged.py). The network learns on `device` (a GPU when torch sees
one), from the engine's rows as uint8 codes copied there and expanded there; the engine and torch
share `threads` CPU threads (training/hardware.py).

The config's `game` picks the game (training/games.py holds what differs: the tables, how
opponents are seated, the agents, the arena); the octopus game has no variants, privileged critic or
in-run exploiters, and its rows are float32 (each a game of its own).

`train` reads top to bottom: the run is set up (`Run`), the teacher cloned, then PPO collects
rollouts and updates, and at the exact learner step each is due (`Cadence`, an SB3 callback) a
snapshot joins the pool and the opponents are dealt anew, an exploiter trains and joins it, and
every `evaluation.every` steps the learner plays arena gauntlets against each baseline
(training/gauntlet.py: duplicate deals) on each variant its tables play and a checkpoint is
written; at the end an exploitability probe trains a best response against the final policy on
the variant it trains most on (`probe`, training/exploit.py). A run lives in checkpoints/<run_name>/:

    model.zip          the policy (and optimizer), loadable by the arena and human play
    config.yaml        the resolved config
    metadata.json      observation layout version, tables, play mode, the network by name (`policy`),
                       steps, every evaluation so far, the league's win rates and draw weights, the
                       probe's figures
    evaluations.csv    step, baseline, win share and its 95% CI, mean score, games, variant
    win_share.png      win share against each baseline over training steps
    replays/           the first game of every evaluation gauntlet, as a replay (miaui_env.apps.replay)
    pool/              the opponent snapshots
    league.json        a league's statistics: the learner's recent results against each snapshot
    exploit/           the probe's best response: exploit.json, exploit.csv, exploit.png
    exploitability.csv the exploiters' gains over the run (step, table size, gain and its 95% CI), and
    exploitability.png its chart
    exploiters/        the latest exploiters (best responses, with their exploit.json)
    magnet.pt          a moving-average magnet's weights
    tensorboard/       SB3's training curves and the evaluations (tensorboard --logdir ...)

A checkpoint's files are written as one set (training/checkpoint.py: staged in .staged/, marked
complete, then moved in, metadata last), so a run killed at any moment leaves a checkpoint whose
model, steps and evaluations agree; --resume completes or drops a half-moved set, then continues.
Same config and seed, same run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from miaui_env.core.agents import Agent, Policy, agent_name
from miaui_env.core.checkpoint import CheckpointError
from miaui_env.core.cli import check_writable, half_width, run_command
from miaui_env.core.files import atomic_write, write_rows
from miaui_env.core.policy import PolicyAgent, load_named_model
from miaui_env.core.policy_spec import policy_spec
from miaui_env.core.vec import MultiTableVecEnv
from training import exploit
from training.checkpoint import naming_a_full_disk, open_checkpoint, saved_game, write_checkpoint
from training.config import SelfPlayConfig, load_config, variant_name
from training.config_files import ROOT, ConfigError
from training.exploiters import Exploiters
from training.games import SelfPlayTable, WeightSetter, check_config, training_game
from training.gauntlet import Curve, check_arenas, plot_curves
from training.hardware import check_threads, torch_device, torch_threads
from training.kickstart import TeacherGuidance, clone_teacher
from training.magnet import Magnet, MagnetPPO
from training.opponents import LEAGUE_PREFIXES, Opponents, SnapshotPool, finished_games
from training.ppo import card_odds, initial_weights, new_learner, ppo_kwargs


def check_run(config: SelfPlayConfig) -> None:
    """Refuse now, not after the cloning or the training, what the run would fail on later: more
    threads than cores, a GPU torch does not see, what the game does not have, an agent name
    nothing can load, an arena (evaluations, the probe) with more games than it allows,
    exploiters it cannot seat."""
    check_threads(config.threads)
    torch_device(config.device)
    check_config(config)
    config.check_exploiters()
    game = training_game(config.game)
    for name in (*config.evaluation.baselines, *config.opponents.baseline_names):
        game.load_agent(name)
    if config.kickstart.decisions > 0 or config.kickstart.guidance_steps > 0:
        teacher = game.load_agent(config.kickstart.teacher)
        teacher_view = getattr(teacher, "view", None)  # random and cautious read what both views show
        if not game.rows_change_view and teacher_view not in (None, config.view):
            raise ConfigError(
                f"kickstart.teacher={config.kickstart.teacher!r} plays from the {teacher_view!r} view, but the run's "
                f"rows are the {config.view!r} view: set view={teacher_view} or choose another teacher"
            )
    check_arenas(config.evaluation, config.probe)


def self_play_tables(config: SelfPlayConfig, observation_dtype: str | None = None) -> list[SelfPlayTable]:
    """The config's tables as its game's self-play VecEnvs (training/games.py), table i dealt from
    child i of the `tables` stream; Miaui's rows uint8 codes (COMPACT) unless `observation_dtype`
    says float32 (runs started before compact rows), the octopus game's float32."""
    game = training_game(config.game)
    return game.tables(config, observation_dtype or game.row_dtype)


class Run:
    """One training run: its directory, config, tables, learner, opponents and evaluations.

    Every random stream comes from the config's seed tree (`config.seeds`, see training/config.py):
    the tables' deals, the baselines, the opponents' deal, cloning, guidance, evaluations and PPO's
    own seed are each a named child of `SeedSequence(config.seed)`.
    """

    def __init__(self, config: SelfPlayConfig, directory: Path, resume: bool):
        check_run(config)
        self.config, self.directory = config, directory
        self.game = training_game(config.game)
        self.unsaved_replays: list[Path] = []  # written by evaluate(), removed unless checkpoint() lands
        seeds = config.seeds
        # A resumed run's checkpoint must be of the config's game and its observation layout (ConfigError otherwise).
        saved = open_checkpoint(directory, ["model.zip"], "checkpoint", self.game.name, self.game.observation_version) if resume else {}
        # A run keeps the rows it started with: runs from before compact rows trained on float32.
        self.tables = self_play_tables(config, saved.get("observation_dtype", "float32") if resume else None)
        self.venv = MultiTableVecEnv(self.tables)
        self.opponents = Opponents(config.opponents, SnapshotPool(directory / "pool", config.opponents.pool_size))
        self.weight_setters: list[WeightSetter] = []  # each table's: new opponent draw weights
        self.members: list[Agent | Policy] = []  # the pool's members seated now, as agents
        # Each table has baselines of its own: an agent with memory (the counter) follows one batch of games.
        self.baselines = [
            {
                name: self.game.load_agent(name, seed=seeds.integer("baselines", t, i))
                for i, name in enumerate(config.opponents.baseline_names)
            }
            for t in range(len(self.tables))
        ]
        self.opponent_seeds = seeds.sequence("opponents")  # each refresh spawns one child per table
        self.exploiters = Exploiters(config, directory) if config.exploiters.every > 0 else None
        self.model, self.metadata = self.resume_from_checkpoint(saved) if resume else self.fresh_start()
        # MaskablePPO seeds its env with its own seed; the games are dealt from the tables' stream.
        self.venv.seed(seeds.sequence("tables"))
        self.refresh_opponents()
        kickstart = config.kickstart
        guide = kickstart.guidance_steps > 0
        self.guidance = TeacherGuidance(self.model, kickstart, seeds.sequence("guidance"), **self.teacher_parts()) if guide else None

    def fresh_start(self) -> tuple[MagnetPPO, dict[str, Any]]:
        """A new learner (from `init`'s weights, if named) and the metadata of a run at step 0."""
        config = self.config
        kwargs = ppo_kwargs(config.ppo)
        model = new_learner(
            self.venv,
            kwargs,
            config.seeds.integer("ppo"),
            start=initial_weights(config, self.game.load_agent),
            privileged_critic=config.privileged_critic,
            tensorboard_log=str(self.directory / "tensorboard"),
            device=config.device,
        )
        model.magnet = self.new_magnet(model)
        metadata = {
            "game": config.game,
            "observation_version": self.game.observation_version,
            "observation_dtype": self.game.row_dtype,
            "tables": [table.to_dict() for table in config.tables],
            "player_counts": sorted({table.num_players for table in config.tables}),
            "variants": sorted({table.variant for table in config.tables}),
            "view": config.view,
            "privileged_critic": config.privileged_critic,
            "policy": policy_spec(model.policy_class, model.policy_kwargs),  # the network by name (miaui_env/core/policy_spec.py)
            "play": config.play,
            "init": config.init,
            "steps": 0,
            "evaluations": [],
            **({"exploiters": []} if self.exploiters else {}),
        }
        return model, metadata

    def new_magnet(self, model: MaskablePPO) -> Magnet | None:
        """The config's magnet (training/magnet.py), starting at the learner's weights; None without one."""
        magnet = self.config.magnet
        return Magnet(magnet.policy, magnet.coef, magnet.rate, model.policy) if magnet.coef > 0 else None

    def resume_from_checkpoint(self, metadata: dict[str, Any]) -> tuple[MagnetPPO, dict[str, Any]]:
        """The learner, pool and league statistics of the run's last checkpoint, whose `metadata` is given."""
        config, directory = self.config, self.directory
        for row in metadata.get("evaluations", []):
            row.setdefault("variant", "base")  # written before evaluations named their variant: all on the base game
        trained_with = bool(metadata.get("privileged_critic", False))
        if trained_with != config.privileged_critic:
            raise ConfigError(
                f"privileged_critic={config.privileged_critic} but {directory} was trained with privileged_critic={trained_with}: "
                "the network's input differs, so a run keeps the critic it started with"
            )
        trained_odds = card_odds({"policy_kwargs": (metadata.get("policy") or {}).get("kwargs")})
        if trained_odds != card_odds(config.ppo):
            raise ConfigError(
                f"ppo.policy_kwargs.card_odds={card_odds(config.ppo)} but {directory} was trained with card_odds={trained_odds} "
                f"(a run from before card counting joined the default has none): the network's inputs differ, so resume with "
                f"--set ppo.policy_kwargs.card_odds={str(trained_odds).lower()}"
            )
        tensorboard = str(directory / "tensorboard")
        # A run may move between machines: map_location puts the weights on this run's device.
        model = load_named_model(
            MagnetPPO, directory / "model.zip", metadata, env=self.venv, device=torch_device(config.device), tensorboard_log=tensorboard
        )
        model.magnet = self.new_magnet(model)
        magnet_file = directory / "magnet.pt"
        if model.magnet is not None and magnet_file.exists():  # a run that had no magnet before starts one at its weights
            try:
                model.magnet.load_state_dict(torch.load(magnet_file, map_location="cpu", weights_only=True))
            except (RuntimeError, ValueError, EOFError, pickle.UnpicklingError) as error:
                raise CheckpointError(
                    f"{magnet_file} is damaged ({error}); delete it to start the magnet at the policy's weights"
                ) from None
        self.opponents.resume(directory, metadata["steps"])
        self.discard_replays_after(metadata["steps"])
        if self.exploiters is not None:
            self.exploiters.restore(metadata.setdefault("exploiters", []), metadata["steps"])
        metadata["play"] = config.play  # how its policy plays may change on --resume --set play=...
        metadata["policy"] = policy_spec(model.policy_class, model.policy_kwargs)  # a run saved before names were kept gets them
        return model, metadata

    @property
    def has_average_magnet(self) -> bool:
        """Whether the learner is pulled toward a moving average of itself, whose weights a checkpoint keeps."""
        return self.model.magnet is not None and self.model.magnet.average is not None

    def write_magnet(self, path: Path) -> None:
        """The moving-average magnet's weights, for --resume."""
        assert self.model.magnet is not None
        torch.save(self.model.magnet.state_dict(), path)

    def train_exploiter(self, step: int, bar: Any = None) -> None:
        """Train the next exploiter against the learner as it is at `step`, log its gain, and seat it in the pool."""
        assert self.exploiters is not None
        if bar is not None:
            bar.write(
                f"step {step:,}: an exploiter trains {self.config.exploiters.steps:,} steps against the learner at "
                f"{self.exploiters.next_size()} players (a few minutes) ..."
            )
        row = self.exploiters.train(self.model, step)
        self.model.logger.record(f"exploiters/gain_{row['players']}p", row["gain"])
        self.model.logger.dump(step)
        if bar is not None:
            bar.write(
                f"step {step:,}: an exploiter trained {row['exploiter_steps']:,} steps gains {row['gain']:+.3f} "
                f"+- {half_width(row['gain_ci'])} at {row['players']} players; it joins the pool"
            )
        self.refresh_opponents()

    def refresh_opponents(self) -> None:
        """Deal opponent seats among the pool and the baselines, by weight, from the next episode."""
        opponents = self.opponents
        self.members = []
        if opponents.pool_weight > 0:
            # The learner as it is now, playing its mixed strategy: always in `latest` mode, and until
            # the first snapshot in the others.
            learner = PolicyAgent(self.model, "learner", deterministic=False)
            self.members = [learner] if self.config.opponents.mode == "latest" else [*opponents.pool.agents(self.model)] or [learner]
            self.members += self.exploiters.members() if self.exploiters else []
        opponents.seat([agent_name(agent) for agent in self.members])
        shares = opponents.shares()
        spawned = zip(self.tables, self.baselines, self.opponent_seeds.spawn(len(self.tables)), strict=True)
        self.weight_setters = []
        for table, baselines, seed in spawned:
            agents = [*self.members, *(baselines[name] for name in opponents.baseline_weights)]
            self.weight_setters.append(self.game.seat(table, agents, shares, seed, self.config.opponents.draw))

    def opponent_kind_shares(self) -> dict[str, float]:
        """The draw weight of each kind of opponent now: the learner's side (the learner itself, its
        snapshots, its exploiters: a league shifts weight between them) and each baseline by name."""
        shares = self.opponents.shares()
        kinds: dict[str, float] = {}
        for member, share in zip(self.members, shares, strict=False):
            kind = next((prefix.rstrip("@") for prefix in LEAGUE_PREFIXES if agent_name(member).startswith(prefix)), "learner")
            kinds[kind] = kinds.get(kind, 0.0) + float(share)
        return kinds | {
            name: float(share) for name, share in zip(self.opponents.baseline_weights, shares[len(self.members) :], strict=True)
        }

    def record_games(self, infos: list[dict[str, Any]]) -> None:
        """A league's statistics from the games that just ended; the new draw weights from the next episode."""
        games_per_episode = sum(table.num_envs // table.rows_per_game for table in self.tables)  # octopus games end apart
        if self.opponents.record(finished_games(self.tables, self.venv.bounds[:-1], infos), games_per_episode):
            shares = self.opponents.shares()
            for set_weights in self.weight_setters:
                set_weights(shares)

    def teacher_parts(self) -> dict[str, Any]:
        """How the run's game loads a teacher and what the teacher reads of a row (training/kickstart.py)."""
        return {"load": self.game.load_agent, "teacher_rows": self.game.teacher_rows}

    def clone(self, show_progress: bool) -> None:
        """Kickstart a new run: its network learns to play like the teacher before PPO (training/kickstart.py)."""
        from tqdm import tqdm

        kickstart, started = self.config.kickstart, time.perf_counter()
        desc = f"cloning {kickstart.teacher}"
        with tqdm(total=kickstart.decisions, unit=" decisions", desc=desc, disable=not show_progress) as cloning:
            try:
                self.metadata["kickstart"] = clone_teacher(
                    self.model,
                    kickstart,
                    self.config.seeds.sequence("cloning"),
                    cloning,
                    chunk_steps=self.game.cloning_chunk,
                    **self.teacher_parts(),
                )
            except KeyboardInterrupt:
                raise SystemExit(
                    f"\ninterrupted while cloning {kickstart.teacher}, before the first checkpoint: start the run anew"
                ) from None
        self.metadata["kickstart"]["seconds"] = round(time.perf_counter() - started, 1)

    def evaluate(self, step: int) -> list[dict[str, Any]]:
        """Arena gauntlets of the learner against each baseline, on each variant the run's tables play
        (`config.variants`: a run trained only on No Fighting is measured on No Fighting; one that mixes
        the base game and Open Baskets, on both, each its own gauntlet); returns one row per baseline
        and variant. The variants of one baseline share its deals, and every evaluation of a run deals
        the same games (and seeds the baselines alike), so they compare. The first game of each
        gauntlet is saved to watch (python -m miaui_env.apps.replay, or the browser app)."""
        evaluation, seeds, rows = self.config.evaluation, self.config.seeds, []
        # Shown what it was trained to see, playing as it will once loaded (`play`)
        learner = PolicyAgent(self.model, "learner", view=self.config.view, deterministic=self.config.play == "best")
        for i, name in enumerate(evaluation.baselines):
            for variant, table in self.game.evaluation_tables(self.config):  # one per variant the run plays
                baseline_file = re.sub(r"[^\w.@+-]", "_", name) + variant_suffix(variant, "-")  # a spec may be a path or module:callable
                replay = self.directory / "replays" / f"step-{step:09d}-{baseline_file}.json"
                self.unsaved_replays.append(replay)
                try:
                    with naming_a_full_disk(replay):
                        result = self.game.gauntlet(learner, name, table, evaluation.games_per_baseline, seeds, (i,), replay=replay)
                except BaseException:
                    self.drop_unsaved_replays()
                    raise
                rows.append({"step": step, "baseline": name, **result.figures(), "variant": variant})
        return rows

    def evaluate_and_checkpoint(self, step: int, bar: Any = None) -> None:
        """Evaluate the learner at `step`, log it (TensorBoard, the progress bar) and checkpoint the run."""
        rows = self.evaluate(step)
        logger = self.model.logger
        for row in rows:
            against = row["baseline"] + variant_suffix(row["variant"], "_")
            logger.record(f"eval/win_share_vs_{against}", row["win_share"])
            logger.record(f"eval/mean_score_vs_{against}", row["mean_score"])
        league = self.opponents.summary()
        if league:
            logger.record("league/learner_win_rate_vs_pool", float(np.mean([v["win_rate"] for v in league.values()])))
            self.metadata["league"] = league
        logger.dump(step)
        self.checkpoint(step, rows)
        if bar is not None:
            bar.set_postfix({row["baseline"] + variant_suffix(row["variant"], " "): f"{row['win_share']:.2f}" for row in rows})

    def checkpoint(self, step: int, rows: list[dict[str, Any]]) -> None:
        """Write model, config, evaluations, the chart and metadata as one (`write_checkpoint`): a run
        killed at any point resumes from a checkpoint whose model, steps and evaluations agree."""
        self.metadata["steps"] = step
        self.metadata["evaluations"] += rows
        evaluations, players = self.metadata["evaluations"], self.config.evaluation.num_players
        parts = {
            # The last observations belong to games that a resumed run will not continue: leave them out.
            "model.zip": lambda path: self.model.save(path, exclude=["_last_obs", "_last_original_obs", "_last_episode_starts"]),
            "config.yaml": lambda path: path.write_text(self.config.to_yaml()),
            "evaluations.csv": lambda path: write_rows(path, evaluations),
            "win_share.png": lambda path: plot_win_shares(evaluations, path, players),
            **self.opponents.checkpoint_parts(),
            **({"magnet.pt": self.write_magnet} if self.has_average_magnet else {}),
            **(self.exploiters.checkpoint_parts() if self.exploiters else {}),
        }
        if self.exploiters:
            self.metadata["exploiters"] = self.exploiters.curve
        try:
            write_checkpoint(self.directory, parts, self.metadata)
        except BaseException:  # a full disk, Ctrl-C: the evaluation's replays go with the checkpoint that never landed
            self.drop_unsaved_replays()
            raise
        self.unsaved_replays.clear()
        self.opponents.pool.trim()
        if self.exploiters:
            self.exploiters.trim()

    def discard_replays_after(self, step: int) -> None:
        """Remove the evaluation replays of steps after the checkpoint resumed from (a run killed
        between an evaluation and its checkpoint leaves them; those steps are played again)."""
        for replay in (self.directory / "replays").glob("step-*.json"):
            taken = re.match(r"step-(\d+)-", replay.name)
            if taken and int(taken.group(1)) > step:
                replay.unlink()

    def drop_unsaved_replays(self) -> None:
        """Remove the replays of evaluations no checkpoint holds, so replays/ shows only checkpointed steps."""
        for replay in self.unsaved_replays:
            replay.unlink(missing_ok=True)
        self.unsaved_replays.clear()


class Cadence(BaseCallback):
    """What a run does at the exact learner step it is due, inside PPO's rollouts (an SB3 callback):
    the progress bar, the league's results of the games that ended, a snapshot into the pool and
    the opponents dealt anew every `opponents.snapshot_every` steps, an exploiter trained and seated
    every `exploiters.every` steps, and an evaluation and a checkpoint every `evaluation.every` steps."""

    def __init__(self, run: Run, bar: Any):
        super().__init__()
        self.run, self.bar = run, bar
        start = int(run.model.num_timesteps)
        self.every_evaluation, self.every_snapshot = run.config.evaluation.every, run.config.opponents.snapshot_every
        self.next_evaluation = (start // self.every_evaluation + 1) * self.every_evaluation
        self.next_snapshot = (start // self.every_snapshot + 1) * self.every_snapshot
        self.exploiters = run.exploiters
        self.next_exploiter = self.exploiters.next_due(start) if self.exploiters else 0

    def _on_step(self) -> bool:
        step = self.num_timesteps
        self.bar.total = max(self.bar.total, step)  # PPO finishes its last rollout past the total
        self.bar.update(step - self.bar.n)
        dones = self.locals.get("dones")
        if dones is not None and bool(np.any(dones)):
            self.run.record_games(self.locals["infos"])
        if step >= self.next_snapshot:
            self.next_snapshot += self.every_snapshot
            if self.run.config.opponents.mode != "latest":
                self.run.opponents.pool.add(self.run.model, step)
            self.run.refresh_opponents()
        # Before the checkpoint due at the same step; none at the end of the run, where the probe measures the final policy.
        if self.exploiters is not None and self.next_exploiter <= step < self.run.config.total_timesteps:
            self.run.train_exploiter(step, self.bar)
            self.next_exploiter = self.exploiters.next_due(step)
        if step >= self.next_evaluation:
            self.next_evaluation += self.every_evaluation
            self.run.evaluate_and_checkpoint(step, self.bar)
        return True

    def _on_rollout_end(self) -> None:
        """What SB3's aggregate curves hide, per table (training/diagnose.py draws them): how much of
        the return's variance the critic explains, the advantages' scale before PPO normalises them,
        and the mean return; and the share of opponent seats each kind of opponent was dealt."""
        buffer, logger = self.run.model.rollout_buffer, self.run.model.logger
        bounds = self.run.venv.bounds
        for label, start, stop in zip(table_labels(self.run.config), bounds[:-1], bounds[1:], strict=True):
            returns, values = buffer.returns[:, start:stop], buffer.values[:, start:stop]
            spread = float(np.var(returns))
            logger.record(f"tables/explained_variance_{label}", 1 - float(np.var(returns - values)) / spread if spread > 0 else np.nan)
            logger.record(f"tables/advantage_std_{label}", float(np.std(buffer.advantages[:, start:stop])))
            logger.record(f"tables/return_mean_{label}", float(np.mean(returns)))
        for kind, share in self.run.opponent_kind_shares().items():
            logger.record(f"opponents/share_{kind}", share)


def table_labels(config: SelfPlayConfig) -> list[str]:
    """A name per table of the config for its curves: its index, table size and learner seats (`t1_4p_3seats`)."""
    labels = []
    for i, table in enumerate(config.tables):
        seats = len(table.learner_seats) if table.learner_seats is not None else table.num_players
        labels.append(f"t{i}_{table.num_players}p_{seats}seat{'s' if seats > 1 else ''}")
    return labels


def train(config: SelfPlayConfig, directory: Path, resume: bool = False, show_progress: bool = True) -> dict[str, Any]:
    """Train (or continue) a run; returns its metadata. A Ctrl-C checkpoints what was learned, then
    raises KeyboardInterrupt to the caller, as any interrupted call does."""
    directory.mkdir(parents=True, exist_ok=True)
    with torch_threads(check_threads(config.threads)):
        run = Run(config, directory, resume)
        atomic_write(directory / "config.yaml", config.to_yaml())
        started = time.perf_counter()
        if not resume and config.kickstart.decisions > 0:
            run.clone(show_progress)
            run.checkpoint(0, run.evaluate(0))  # the clone's strength, before any PPO
        interrupted = learn(run, resume, show_progress)
        if run.metadata["steps"] < run.model.num_timesteps:  # PPO's last rollout ends between evaluations
            run.evaluate_and_checkpoint(int(run.model.num_timesteps))
        probe_final_policy(run, interrupted, show_progress)
    run.metadata["seconds_this_session"] = round(time.perf_counter() - started, 1)
    atomic_write(directory / "metadata.json", json.dumps(run.metadata, indent=2) + "\n")
    if interrupted:
        raise KeyboardInterrupt  # after the checkpoint stands, so `--resume` continues from it
    return run.metadata


def learn(run: Run, resume: bool, show_progress: bool) -> bool:
    """PPO up to `total_timesteps`: rollouts and updates, the cadence's snapshots, evaluations and
    checkpoints at their steps, the teacher's guidance after each update; on Ctrl-C, an evaluation
    and a checkpoint of what was learned. Returns whether it was interrupted."""
    from tqdm import tqdm

    total, start = run.config.total_timesteps, int(run.model.num_timesteps)
    bar = tqdm(total=total, initial=start, unit="step", desc="self-play", disable=not show_progress, smoothing=0.05)
    callbacks = CallbackList([Cadence(run, bar), *([run.guidance] if run.guidance else [])])
    try:
        if total > start:
            run.model.learn(total - start, callback=callbacks, reset_num_timesteps=not resume, tb_log_name="ppo")
    except KeyboardInterrupt:
        print("\ninterrupted: checkpointing what was learned ...")
        run.evaluate_and_checkpoint(int(run.model.num_timesteps), bar)
        return True
    finally:
        bar.close()
    return False


def probe_final_policy(run: Run, interrupted: bool, show_progress: bool) -> None:
    """The exploitability probe's figures in the metadata: kept if they describe the policy at its last
    checkpoint as the config asks to measure it, measured anew otherwise (`probe`); an interrupted
    run is probed when it finishes."""
    config, metadata = run.config, run.metadata
    wanted = {"at_step": metadata["steps"], **config.probe.in_metadata(), "variant": variant_name(*config.main_variant)}
    probed = {"variant": "base", **metadata.get("exploitability", {})}  # probes that named no variant played the base game
    if config.probe.steps == 0 or {key: probed.get(key) for key in wanted} != wanted:
        metadata.pop("exploitability", None)
    if config.probe.steps > 0 and "exploitability" not in metadata and not interrupted:
        atomic_write(run.directory / "metadata.json", json.dumps(metadata, indent=2) + "\n")  # the probe loads the policy as it plays
        metadata["exploitability"] = probe(config, run.directory, metadata["steps"], show_progress)


def plot_win_shares(history: list[dict[str, Any]], path: Path, players: int) -> None:
    """Win share against each baseline over training steps, with 95% intervals, as a PNG."""
    if not history:
        return
    curves = []
    # Rows written before evaluations named their variant were all played on the base game.
    for baseline, variant in dict.fromkeys((row["baseline"], row.get("variant", "base")) for row in history):
        rows = [row for row in history if (row["baseline"], row.get("variant", "base")) == (baseline, variant)]
        label = f"vs {players - 1} x {baseline}{variant_suffix(variant, ', ')}"
        values, band = np.array([row["win_share"] for row in rows]), np.array([row["win_share_ci"] for row in rows])
        curves.append(Curve(label, [row["step"] for row in rows], values, band))
    plot_curves(
        path,
        curves,
        reference=(1 / players, "fair share"),
        title=f"Self-play PPO: arena evaluations, {players} players",
        xlabel="training steps",
        ylabel="learner's win share",
        ylim=(0, 1),
        steps_in_millions=True,
    )


def variant_suffix(variant: str, separator: str) -> str:
    """What follows a baseline's name to name the variant of its gauntlet (file names, TensorBoard tags,
    legends, the summary): nothing for the base game, so a base-game run's names are as they were."""
    return "" if variant == "base" else f"{separator}{variant}"


def probe(config: SelfPlayConfig, directory: Path, step: int, show_progress: bool) -> dict[str, Any]:
    """How exploitable the run's final policy is: a best response trained against it for
    `probe.steps` (training/exploit.py) with the run's own `ppo` section, on the run's main variant
    (`config.main_variant`), its files in the run's exploit/; returns the final figures."""
    settings = config.probe
    # Relative where it can be (no machine's paths in the run's files), and never a bare name a built-in agent could shadow.
    target = os.path.join(".", os.path.relpath(directory)) if directory.resolve().is_relative_to(Path.cwd()) else str(directory)
    cloning = config.override(f"kickstart.decisions={exploit.CLONING_DECISIONS}").kickstart
    figures = exploit.probe_run(config, target, show_progress, ppo=config.ppo, device=config.device, kickstart=cloning)
    return {"at_step": step, **settings.in_metadata(), "variant": variant_name(*config.main_variant), **figures}


def summary(metadata: dict[str, Any], directory: Path) -> str:
    """What the run reached, for the terminal."""
    latest: dict[str, dict[str, Any]] = {}
    for row in metadata["evaluations"]:
        latest[row["baseline"] + variant_suffix(row.get("variant", "base"), ", ")] = row
    lines = [f"trained {metadata['steps']:,} steps; last arena evaluation:"]
    for name, row in latest.items():
        lines.append(
            f"  vs {name:<8} win share {row['win_share']:.3f} +- {half_width(row['win_share_ci'])}, mean score {row['mean_score']:.1f}"
        )
    probed = metadata.get("exploitability")
    if probed:
        lines.append(
            f"exploitability probe: a best response trained {probed['steps']:,} steps wins {probed['win_share']:.3f} "
            f"+- {half_width(probed['win_share_ci'])} at {probed['players']} players{variant_suffix(probed.get('variant', 'base'), ', ')}, "
            f"gain over the fair share {probed['gain']:+.3f}"
        )
    probe_files = ", exploit/" if probed else ""
    lines.append(f"run written to {directory}/ (model.zip, metadata.json, evaluations.csv, win_share.png{probe_files}, tensorboard/)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and train."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a YAML config (default: configs/default.yaml)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR", help="continue the run in RUN_DIR")
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: checkpoints/<run_name>)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for torch and the engine (--set threads=N)")
    parser.add_argument("--device", default=None, help="auto, cpu, cuda or cuda:<index> (--set device=...)")
    args = parser.parse_args(argv)
    if args.resume is not None and (args.config is not None or args.out is not None):
        parser.error("--resume continues a run with its own config.yaml and folder: --config and --out do not apply (--set does)")
    args.overrides += [f"{key}={value}" for key, value in (("threads", args.threads), ("device", args.device)) if value is not None]

    def selfplay() -> None:
        if args.resume is not None:
            saved = training_game(saved_game(args.resume))  # the config, read below, must name the same game (Run checks)
            metadata = open_checkpoint(args.resume, ["model.zip"], "checkpoint", saved.name, saved.observation_version)
            if not isinstance(metadata.get("steps"), int) or not isinstance(metadata.get("evaluations"), list):
                raise CheckpointError(f"{args.resume / 'metadata.json'} has no steps and evaluations: it is not a self-play checkpoint")
            config = load_config(args.resume / "config.yaml", args.overrides)
            directory = args.resume
        else:
            config = load_config(args.config, args.overrides)
            directory = args.out or ROOT / "checkpoints" / config.run_name
            if (directory / "model.zip").exists():
                raise CheckpointError(f"{directory} already holds a run: --resume it, or choose another --set run_name=... or --out")
            check_writable(directory)
        metadata = train(config, directory, resume=args.resume is not None)  # a Ctrl-C: one line and status 130 (run_command)
        print(summary(metadata, directory))

    # A user error (a bad config value, an agent nothing can load, a damaged checkpoint) is one line.
    run_command(parser.prog, selfplay, interrupted="interrupted: the last checkpoint written stands (--resume continues from it)")


if __name__ == "__main__":
    main()
