"""Self-play PPO for Miaui: `python -m training.selfplay` trains configs/default.yaml.

    python -m training.selfplay                                   # the default run
    python -m training.selfplay --config configs/smoke.yaml       # any config
    python -m training.selfplay --set ppo.learning_rate=1e-4 --set seed=3
    python -m training.selfplay --resume checkpoints/miaui-ppo    # continue a stopped or killed run

One sb3-contrib MaskablePPO policy plays every learner seat of every table in the config (table
sizes and variants at once, one network), on the batched engine. Before PPO the network is
kickstarted: it learns to play like a teacher heuristic, which then keeps guiding it
(training/kickstart.py); or it starts from a trained policy's weights (`init`). Opponent seats
are dealt each episode among the learner's own side and the baselines, the learner's side played
as `opponents.mode` says: the learner itself (`latest`),
its past snapshots alike (`mixture`) or by prioritized fictitious self-play (`league`)
(training/opponents.py). With `privileged_critic` the value network also reads the global state
(miaui_env/integrations/privileged.py). Every `evaluation.every` steps the learner plays arena gauntlets
against each baseline (duplicate deals) on each variant its tables play, and a checkpoint is
written; at the end an exploitability probe trains a best response against the final policy on the
variant it trains most on (`probe`, training/exploit.py). A run lives
in checkpoints/<run_name>/:

    model.zip          the policy (and optimizer), loadable by the arena and human play
    config.yaml        the resolved config
    metadata.json      observation layout version, tables, play mode, steps, every evaluation so far,
                       the league's win rates and draw weights, the probe's figures
    evaluations.csv    step, baseline, win share and its 95% CI, mean score, games, variant
    win_share.png      win share against each baseline over training steps
    replays/           the first game of every evaluation gauntlet, as a replay (miaui_env.apps.replay)
    pool/              the opponent snapshots
    league.json        a league's statistics: the learner's recent results against each snapshot
    exploit/           the probe's best response: exploit.json, exploit.csv, exploit.png
    tensorboard/       SB3's training curves and the evaluations (tensorboard --logdir ...)

A checkpoint's files are written as one set (`miaui_env.apps.files.write_together`: staged in .staged/,
marked complete, then moved in, metadata last), so a run killed at any moment leaves a checkpoint
whose model, steps and evaluations agree; --resume completes or drops a half-moved set, then
continues. Same config and seed, same run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.agents import Agent, Policy, agent_name
from miaui_env.agents.checkpoint import CheckpointError, read_metadata
from miaui_env.agents.loading import load_agent
from miaui_env.agents.policy import PolicyAgent
from miaui_env.apps.arena import ArenaConfig, SampleGames, play, summarize
from miaui_env.apps.cli import check_writable, run_command
from miaui_env.apps.files import atomic_write, finish_staged, replacing, write_rows, write_together
from miaui_env.apps.replay import record_replay, save_replay
from miaui_env.observe.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION
from training.config import ROOT, ConfigError, SelfPlayConfig, load_config, thaw, variant_name
from training.kickstart import TeacherGuidance, clone_teacher
from training.opponents import SNAPSHOT_PREFIX, League, OpponentMixture, SnapshotPool


class Run:
    """One training run: its directory, config, tables, learner, opponents and evaluations.

    Every random stream comes from the config's seed tree (`config.seeds`, see training/config.py):
    the tables' deals, the baselines, the opponents' deal, cloning, guidance, evaluations and PPO's
    own seed are each a named child of `SeedSequence(config.seed)`.
    """

    def __init__(self, config: SelfPlayConfig, directory: Path, resume: bool):
        from sb3_contrib import MaskablePPO

        from miaui_env.integrations.privileged import PrivilegedCriticPolicy
        from miaui_env.integrations.sb3 import MiauiSelfPlayVecEnv, MultiTableVecEnv

        self.config, self.directory = config, directory
        seeds = config.seeds
        self.tables = [
            MiauiSelfPlayVecEnv(
                num_games=table.num_games,
                num_players=table.num_players,
                learner_seats=table.learner_seats,
                open_baskets=table.open_baskets,
                no_fighting=table.no_fighting,
                view=config.view,
                reward=config.reward,
                seed=child,
                privileged=config.privileged_critic,
            )
            for table, child in zip(config.tables, seeds.sequence("tables").spawn(len(config.tables)), strict=True)
        ]
        self.venv = MultiTableVecEnv(self.tables)
        self.pool = SnapshotPool(directory / "pool", config.opponents.pool_size)
        self.league = League(config.opponents.pfsp_exponent) if config.opponents.mode == "league" else None
        self.mixtures: list[OpponentMixture] = []
        # Each table has baselines of its own: an agent with memory (the counter) follows one batch of games.
        self.baselines = [
            {name: load_agent(name, seed=seeds.integer("baselines", t, i)) for i, name in enumerate(config.opponents.baseline_names)}
            for t in range(len(self.tables))
        ]
        self.opponent_seeds = seeds.sequence("opponents")  # each refresh spawns one child per table
        for name in (*config.evaluation.baselines, config.kickstart.teacher):
            load_agent(name)  # a name nothing can load is refused now, not after the cloning
        arenas = [("evaluation", config.evaluation.players, config.evaluation.games_per_baseline)]
        arenas += [("probe", config.probe.players, config.probe.games)] if config.probe.steps > 0 else []
        for section, players, games in arenas:  # too many games for the arena: refused now, not after training
            try:
                ArenaConfig(players=players, games=games)
            except ValueError as error:
                raise ConfigError(f"config section '{section}': {error}") from None
        model_file = directory / "model.zip"
        if resume:
            finish_staged(directory)  # a checkpoint the killed run was putting in place is completed (or dropped) first
            self.metadata = json.loads((directory / "metadata.json").read_text())
            for row in self.metadata.get("evaluations", []):
                row.setdefault("variant", "base")  # written before evaluations named their variant: all on the base game
            trained_with = bool(self.metadata.get("privileged_critic", False))
            if trained_with != config.privileged_critic:
                raise ConfigError(
                    f"privileged_critic={config.privileged_critic} but {directory} was trained with privileged_critic={trained_with}: "
                    "the network's input differs, so a run keeps the critic it started with"
                )
            self.model = MaskablePPO.load(model_file, env=self.venv, device="cpu", tensorboard_log=str(directory / "tensorboard"))
            self.pool.discard_after(self.metadata["steps"])  # snapshots taken after the checkpoint belong to lost steps
            self.metadata["play"] = config.play  # how its policy plays may change on --resume --set play=...
            league_file = directory / "league.json"
            if self.league is not None and league_file.exists():
                try:
                    self.league.load_state_dict(json.loads(league_file.read_text()))
                except ValueError as error:  # json's errors are ValueErrors too
                    raise CheckpointError(f"{league_file} is damaged ({error}); delete it to start the league's statistics anew") from None
        else:
            kwargs = ppo_kwargs(config.ppo)
            policy: Any = "MlpPolicy"
            start = initial_weights(config)
            if start is not None:  # the init policy's own network: its class (critic) and shape, to take its weights
                policy, kwargs["policy_kwargs"] = start[0], start[1]
            elif config.privileged_critic:
                policy = PrivilegedCriticPolicy
                kwargs["policy_kwargs"] = {**kwargs.get("policy_kwargs", {}), "own_size": OBSERVATION_LAYOUT.size}
            try:
                self.model = MaskablePPO(
                    policy, self.venv, seed=seeds.integer("ppo"), device="cpu", verbose=0,
                    tensorboard_log=str(directory / "tensorboard"), **kwargs,
                )  # fmt: skip
            except (TypeError, ValueError, AssertionError, NotImplementedError) as error:
                # Values inside the section (policy_kwargs, schedules) are checked by SB3 and torch themselves.
                raise ConfigError(f"the ppo section was refused by MaskablePPO: {type(error).__name__}: {error}") from None
            if start is not None:
                self.model.policy.load_state_dict(start[2])
            self.metadata = {
                "observation_version": OBSERVATION_VERSION,
                "tables": [table.to_dict() for table in config.tables],
                "player_counts": sorted({table.num_players for table in config.tables}),
                "variants": sorted({(table.open_baskets, table.no_fighting) for table in config.tables}),
                "view": config.view,
                "privileged_critic": config.privileged_critic,
                "play": config.play,
                "init": config.init,
                "steps": 0,
                "evaluations": [],
            }
        # MaskablePPO seeds its env with its own seed; the games are dealt from the tables' stream.
        self.venv.seed(seeds.sequence("tables"))
        self.refresh_opponents()
        kickstart = config.kickstart
        self.guidance = TeacherGuidance(self.model, kickstart, seeds.sequence("guidance")) if kickstart.guidance_steps > 0 else None

    def refresh_opponents(self) -> None:
        """Deal opponent seats among the pool and the baselines, by weight, from the next episode."""
        opponents = self.config.opponents
        weights = opponents.weights
        self.members: list[Agent | Policy] = []
        if weights.get("pool", 0) > 0:
            # The learner as it is now, playing its mixed strategy: always in `latest` mode, and until
            # the first snapshot in the others.
            learner = PolicyAgent(self.model, "learner", deterministic=False)
            self.members = [learner] if opponents.mode == "latest" else [*self.pool.agents(self.model)] or [learner]
        if self.league is not None:
            self.league.forget(self.league_members())
        self.baseline_weights = {name: weight for name, weight in weights.items() if name != "pool" and weight > 0}
        shares = self.opponent_shares()
        spawned = zip(self.tables, self.baselines, self.opponent_seeds.spawn(len(self.tables)), strict=True)
        self.mixtures = []
        for table, baselines, seed in spawned:
            agents = [*self.members, *(baselines[name] for name in self.baseline_weights)]
            seats = max(table.num_players - len(table.learner_seats), 1)  # all-learner tables never ask
            mixture = OpponentMixture(agents, shares, np.random.default_rng(seed), seats_per_game=seats, draw=opponents.draw)
            table.set_opponent(mixture)
            self.mixtures.append(mixture)

    def opponent_shares(self) -> list[float]:
        """The draw weight of each pool member (alike, or by PFSP in a league), then of each baseline."""
        pool = self.config.opponents.weights.get("pool", 0)
        snapshots = self.league_members()
        if self.league is not None and snapshots:
            split = self.league.weights(snapshots)
        else:
            split = [1 / max(len(self.members), 1)] * len(self.members)
        return [pool * share for share in split] + list(self.baseline_weights.values())

    def league_members(self) -> list[str]:
        """The snapshots a league weighs now: the pool's members once snapshots are in it (none
        outside a league, nor while the learner itself stands in for the empty pool)."""
        names = [agent_name(agent) for agent in self.members]
        return names if self.league is not None and names and names[0].startswith(SNAPSHOT_PREFIX) else []

    def record_games(self, infos: list[dict[str, Any]]) -> None:
        """A league's statistics from the games that just ended; the new draw weights from the next episode."""
        if self.league is None:
            return
        results, members = [], set(self.league_members())
        for table, start in zip(self.tables, self.venv._bounds[:-1], strict=True):
            learners = len(table.learner_seats)
            for index in range(start, start + table.num_envs, learners):  # one row per game: its first learner seat
                info = infos[index]
                won = np.mean([infos[index + j]["winner"] for j in range(learners)])
                # A snapshot that left the pool may still finish this episode's games: it is not counted.
                results.append(([name for name in info["opponents"] if name in members], float(won), table.num_players))
        self.league.record(results)
        shares = self.opponent_shares()
        for mixture in self.mixtures:
            mixture.set_weights(shares)

    def write_league(self, path: Path) -> None:
        """The league's statistics, for --resume."""
        assert self.league is not None
        path.write_text(json.dumps(self.league.state_dict(), indent=2) + "\n")

    def league_summary(self) -> dict[str, Any]:
        """The league's win rates and draw weights, for the log and metadata."""
        names = self.league_members()
        if self.league is None or not names:
            return {}
        weights = self.league.weights(names)
        return {
            name: {"win_rate": round(self.league.win_rate(name), 4), "weight": round(w, 4)} for name, w in zip(names, weights, strict=True)
        }

    def evaluate(self, step: int) -> list[dict[str, Any]]:
        """Arena gauntlets of the learner against each baseline, on each variant the run's tables play
        (`config.variants`: a run trained only on No Fighting is measured on No Fighting; one that mixes
        the base game and Open Baskets, on both, each its own gauntlet); returns one row per baseline
        and variant. The variants of one baseline share its deals, and every evaluation of a run deals
        the same games (and seeds the baselines alike), so they compare."""
        evaluation, seeds = self.config.evaluation, self.config.seeds
        rows = []
        for i, name in enumerate(evaluation.baselines):
            for open_baskets, no_fighting in self.config.variants:
                variant = variant_name(open_baskets, no_fighting)
                arena = ArenaConfig(
                    players=evaluation.players, games=evaluation.games_per_baseline, open_baskets=open_baskets, no_fighting=no_fighting,
                    view=self.config.view, seed=seeds.integer("evaluation", i, 0), batch_games=4096,
                )  # fmt: skip
                baseline = load_agent(name, seed=seeds.integer("evaluation", i, 1))
                # Shown what it was trained to see, playing as it will once loaded (`play`)
                learner_agent = PolicyAgent(self.model, "learner", view=self.config.view, deterministic=self.config.play == "best")
                sample = SampleGames(1)
                seats, scores, winners = play([learner_agent, baseline], "gauntlet", arena, samples=sample)
                learner = summarize(["learner", name], seats, scores, winners, arena.players)[0]
                # The first game of each gauntlet, to watch (python -m miaui_env.apps.replay, or the browser app)
                table = {"num_players": arena.players, "open_baskets": arena.open_baskets, "no_fighting": arena.no_fighting}
                players = [("learner", name)[agent] for agent in seats[0]]
                replay = record_replay(table, sample.plays[0], seed=int(sample.seeds[0]), players=players)
                baseline_file = re.sub(r"[^\w.@+-]", "_", name) + variant_suffix(variant, "-")  # a spec may be a path or module:callable
                save_replay(replay, self.directory / "replays" / f"step-{step:09d}-{baseline_file}.json")
                rows.append(
                    {"step": step, "baseline": name, "win_share": round(learner.win_share, 4),
                     "win_share_ci": round(learner.win_share_ci, 4), "mean_score": round(learner.mean_score, 2), "games": learner.games,
                     "variant": variant}
                )  # fmt: skip
        return rows

    def checkpoint(self, step: int, rows: list[dict[str, Any]]) -> None:
        """Write model, config, evaluations, the chart and metadata as one (`write_together`): a run
        killed at any point resumes from a checkpoint whose model, steps and evaluations agree."""
        self.metadata["steps"] = step
        self.metadata["evaluations"] += rows
        evaluations, players = self.metadata["evaluations"], self.config.evaluation.players
        write_together(
            self.directory,
            {
                # The last observations belong to games that a resumed run will not continue: leave them out.
                "model.zip": lambda path: self.model.save(path, exclude=["_last_obs", "_last_original_obs", "_last_episode_starts"]),
                "config.yaml": lambda path: path.write_text(self.config.to_yaml()),
                "evaluations.csv": lambda path: write_rows(path, evaluations),
                "win_share.png": lambda path: plot_win_shares(evaluations, path, players),
                **({"league.json": self.write_league} if self.league else {}),
                "metadata.json": lambda path: path.write_text(json.dumps(self.metadata, indent=2) + "\n"),  # the manifest: last
            },
        )
        self.pool.trim()


# The run sets these MaskablePPO arguments itself; the rest of its signature is the `ppo` section's.
RUN_SETS = ("self", "policy", "env", "seed", "device", "verbose", "tensorboard_log", "_init_setup_model")
# The numeric arguments' bounds, refused here with their key rather than deep inside SB3 or torch.
PPO_BOUNDS: dict[str, tuple[type, Callable[[float], bool], str]] = {
    "learning_rate": (float, lambda v: v > 0, "a number > 0"),
    "n_steps": (int, lambda v: v >= 1, "an integer >= 1"),
    "batch_size": (int, lambda v: v >= 1, "an integer >= 1"),
    "n_epochs": (int, lambda v: v >= 1, "an integer >= 1"),
    "gamma": (float, lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "gae_lambda": (float, lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "clip_range": (float, lambda v: v > 0, "a number > 0"),
    "ent_coef": (float, lambda v: v >= 0, "a number >= 0"),
    "vf_coef": (float, lambda v: v >= 0, "a number >= 0"),
    "max_grad_norm": (float, lambda v: v > 0, "a number > 0"),
}


def check_ppo_section(section: Mapping[str, Any]) -> None:
    """Refuse a `ppo` key MaskablePPO does not take, or a numeric value out of its bounds (ConfigError)."""
    import inspect

    from sb3_contrib import MaskablePPO

    taken = [name for name in inspect.signature(MaskablePPO.__init__).parameters if name not in RUN_SETS]
    for key, value in section.items():
        if key not in taken:
            raise ConfigError(f"ppo.{key} is not a MaskablePPO argument (or is set by the run); arguments: {', '.join(taken)}")
        if key not in PPO_BOUNDS:
            continue
        kind, within, allowed = PPO_BOUNDS[key]
        numeric = not isinstance(value, bool) and isinstance(value, int if kind is int else int | float)
        if not numeric or not math.isfinite(value) or not within(value):
            raise ConfigError(f"ppo.{key}={value!r} is not allowed; it must be {allowed}")


def ppo_kwargs(section: Mapping[str, Any]) -> dict[str, Any]:
    """The `ppo` section as MaskablePPO's keyword arguments (plain dicts and lists), checked: YAML cannot
    hold a class, so `policy_kwargs.activation_fn` is written as a torch.nn class name (`ReLU`, `Tanh`)."""
    import torch

    check_ppo_section(section)
    kwargs: dict[str, Any] = thaw(section)
    policy_kwargs = kwargs.get("policy_kwargs") or {}
    if not isinstance(policy_kwargs, dict):
        raise ConfigError(f"ppo.policy_kwargs={policy_kwargs!r} is not allowed; it is a mapping of the policy's keyword arguments")
    activation = policy_kwargs.get("activation_fn")
    if isinstance(activation, str):
        if not isinstance(getattr(torch.nn, activation, None), type):
            raise ConfigError(f"ppo.policy_kwargs.activation_fn={activation!r} is not a torch.nn class (e.g. ReLU, Tanh)")
        policy_kwargs["activation_fn"] = getattr(torch.nn, activation)
    return kwargs


def plot_win_shares(history: list[dict[str, Any]], path: Path, players: int) -> None:
    """Win share against each baseline over training steps, with 95% intervals, as a PNG."""
    if not history:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    # Rows written before evaluations named their variant were all played on the base game.
    for baseline, variant in dict.fromkeys((row["baseline"], row.get("variant", "base")) for row in history):
        rows = [row for row in history if (row["baseline"], row.get("variant", "base")) == (baseline, variant)]
        steps = [row["step"] for row in rows]
        share = np.array([row["win_share"] for row in rows])
        ci = np.array([row["win_share_ci"] for row in rows])
        axes.plot(steps, share, marker="o", label=f"vs {players - 1} x {baseline}{variant_suffix(variant, ', ')}")
        axes.fill_between(steps, share - ci, share + ci, alpha=0.2)
    axes.axhline(1 / players, color="grey", linestyle="--", label="fair share")
    axes.set_xlabel("training steps")
    axes.set_ylabel("learner's win share")
    axes.set_ylim(0, 1)
    axes.legend()
    axes.set_title(f"Self-play PPO: arena evaluations, {players} players")
    figure.tight_layout()
    with replacing(path) as temporary:
        figure.savefig(temporary, dpi=110)
    plt.close(figure)


def variant_suffix(variant: str, separator: str) -> str:
    """What follows a baseline's name to name the variant of its gauntlet (file names, TensorBoard tags,
    legends, the summary): nothing for the base game, so a base-game run's names are as they were."""
    return "" if variant == "base" else f"{separator}{variant}"


def trained_weights(agent: Agent) -> tuple[type, dict[str, Any], dict[str, Any]] | None:
    """A trained SB3 policy's (policy class, policy_kwargs, network weights); None for any other agent."""
    from sb3_contrib import MaskablePPO

    if isinstance(agent, PolicyAgent) and isinstance(agent.policy, MaskablePPO):
        return type(agent.policy.policy), dict(agent.policy.policy_kwargs), agent.policy.policy.state_dict()
    return None


def initial_weights(config: SelfPlayConfig) -> tuple[type, dict[str, Any], dict[str, Any]] | None:
    """The weights `config.init` names (None without one); ConfigError unless it is a trained
    MaskablePPO policy that sees the run's view through the run's kind of critic."""
    from miaui_env.integrations.privileged import PrivilegedCriticPolicy

    if config.init is None:
        return None
    if config.kickstart.decisions > 0:  # checked here, not per --set: the two keys are often set one after the other
        raise ConfigError(f"config key 'init' is {config.init!r} and kickstart.decisions is {config.kickstart.decisions}: both "
                          "start the network; set kickstart.decisions=0 to start from init's weights, or init=null to clone")  # fmt: skip
    agent = load_agent(config.init, seed=0)
    weights = trained_weights(agent)
    if weights is None:
        raise ConfigError(f"config key 'init' is {config.init!r}, which is not a trained MaskablePPO policy; name a checkpoint "
                          "(e.g. miaui-ppo-v1, checkpoints/my-run, results/exploit/counter/best-response-4p)")  # fmt: skip
    privileged = issubclass(weights[0], PrivilegedCriticPolicy)
    if privileged != config.privileged_critic:
        raise ConfigError(f"config key 'init' is {config.init!r}, trained with privileged_critic={privileged}, but the run has "
                          f"privileged_critic={config.privileged_critic}: the inputs differ, so set it to {privileged}")  # fmt: skip
    view = getattr(agent, "view", "table")
    if view != config.view:
        raise ConfigError(f"config key 'init' is {config.init!r}, which sees the {view!r} view, but the run's view is "
                          f"{config.view!r}: set view={view} to start from it")  # fmt: skip
    return weights


def train(config: SelfPlayConfig, directory: Path, resume: bool = False, show_progress: bool = True) -> dict[str, Any]:
    """Train (or continue) a run; returns its metadata."""
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList
    from tqdm import tqdm

    directory.mkdir(parents=True, exist_ok=True)
    run = Run(config, directory, resume)
    total = config.total_timesteps
    start = int(run.model.num_timesteps)
    every_eval, every_snapshot = config.evaluation.every, config.opponents.snapshot_every
    atomic_write(directory / "config.yaml", config.to_yaml())
    started = time.perf_counter()
    kickstart = config.kickstart
    if not resume and kickstart.decisions > 0:
        desc = f"cloning {kickstart.teacher}"
        with tqdm(total=kickstart.decisions, unit="decision", desc=desc, disable=not show_progress) as cloning:
            try:
                run.metadata["kickstart"] = clone_teacher(run.model, kickstart, config.seeds.sequence("cloning"), cloning)
            except KeyboardInterrupt:
                raise SystemExit(
                    f"\ninterrupted while cloning {kickstart.teacher}, before the first checkpoint: start the run anew"
                ) from None
        run.metadata["kickstart"]["seconds"] = round(time.perf_counter() - started, 1)
        run.checkpoint(0, run.evaluate(0))  # the clone's strength, before any PPO
    bar = tqdm(total=total, initial=start, unit="step", desc="self-play", disable=not show_progress, smoothing=0.05)

    class SelfPlay(BaseCallback):
        """Snapshots into the pool, evaluations and checkpoints, progress."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = (start // every_eval + 1) * every_eval
            self.next_snapshot = (start // every_snapshot + 1) * every_snapshot

        def _on_step(self) -> bool:
            step = self.num_timesteps
            bar.total = max(bar.total, step)  # PPO finishes its last rollout past the total
            bar.update(step - bar.n)
            dones = self.locals.get("dones")
            if dones is not None and bool(np.any(dones)):
                run.record_games(self.locals["infos"])
            if step >= self.next_snapshot:
                self.next_snapshot += every_snapshot
                if config.opponents.mode != "latest":
                    run.pool.add(run.model, step)
                run.refresh_opponents()
            if step >= self.next_eval:
                self.next_eval += every_eval
                self.evaluate(step)
            return True

        def evaluate(self, step: int) -> None:
            rows = run.evaluate(step)
            for row in rows:
                against = row["baseline"] + variant_suffix(row["variant"], "_")
                self.logger.record(f"eval/win_share_vs_{against}", row["win_share"])
                self.logger.record(f"eval/mean_score_vs_{against}", row["mean_score"])
            league = run.league_summary()
            if league:
                self.logger.record("league/learner_win_rate_vs_pool", float(np.mean([v["win_rate"] for v in league.values()])))
                run.metadata["league"] = league
            self.logger.dump(step)
            run.checkpoint(step, rows)
            bar.set_postfix({row["baseline"] + variant_suffix(row["variant"], " "): f"{row['win_share']:.2f}" for row in rows})

    callback = SelfPlay()
    callbacks = CallbackList([callback, *([run.guidance] if run.guidance else [])])
    interrupted = False
    try:
        if total > start:
            run.model.learn(total - start, callback=callbacks, reset_num_timesteps=not resume, tb_log_name="ppo")
    except KeyboardInterrupt:
        interrupted = True
        print("\ninterrupted: checkpointing what was learned ...")
        callback.evaluate(int(run.model.num_timesteps))
    finally:
        bar.close()
    if run.metadata["steps"] < run.model.num_timesteps:
        callback.evaluate(int(run.model.num_timesteps))
    # A probe describes one policy, at one step, measured one way; an interrupted run is probed when it finishes.
    wanted = {"at_step": run.metadata["steps"], **config.probe.in_metadata(), "variant": variant_name(*probed_variant(config))}
    probed = {"variant": "base", **run.metadata.get("exploitability", {})}  # probes that named no variant played the base game
    if config.probe.steps == 0 or {key: probed.get(key) for key in wanted} != wanted:
        run.metadata.pop("exploitability", None)
    if config.probe.steps > 0 and "exploitability" not in run.metadata and not interrupted:
        atomic_write(directory / "metadata.json", json.dumps(run.metadata, indent=2) + "\n")  # the probe loads the policy as it plays
        run.metadata["exploitability"] = probe(config, directory, run.metadata["steps"], show_progress)
    run.metadata["seconds_this_session"] = round(time.perf_counter() - started, 1)
    atomic_write(directory / "metadata.json", json.dumps(run.metadata, indent=2) + "\n")
    return run.metadata


def probed_variant(config: SelfPlayConfig) -> tuple[bool, bool]:
    """The variant the probe trains its one best response on, as (open_baskets, no_fighting): the one the
    run trains most on (the most learner seats in play at once), the base game first among equals."""
    seats = dict.fromkeys(config.variants, 0)
    for table in config.tables:
        seats[table.variant] += table.num_games * len(table.learner_seats or range(table.num_players))
    return max(config.variants, key=seats.__getitem__)


def probe(config: SelfPlayConfig, directory: Path, step: int, show_progress: bool) -> dict[str, Any]:
    """How exploitable the run's final policy is: a best response trained against it for
    `probe.steps` (training/exploit.py) on the run's main variant (`probed_variant`), its files in
    the run's exploit/; returns the final figures."""
    from training.exploit import measure

    settings = config.probe
    open_baskets, no_fighting = probed_variant(config)
    # Relative where it can be (no machine's paths in the run's files), and never a bare name a built-in agent could shadow.
    run = os.path.join(".", os.path.relpath(directory)) if directory.resolve().is_relative_to(Path.cwd()) else str(directory)
    arguments = ["--target", run, "--players", str(settings.players), "--steps", str(settings.steps),
                 "--eval-games", str(settings.games), "--seed", str(config.seed), "--out", os.path.join(run, "exploit"),
                 *(["--open-baskets"] if open_baskets else []), *(["--no-fighting"] if no_fighting else [])]  # fmt: skip
    final = measure(arguments, show_progress)["tables"][0]["final"]
    return {
        "at_step": step, **settings.in_metadata(), "variant": variant_name(open_baskets, no_fighting), "win_share": final["win_share"],
        "win_share_ci": final["win_share_ci"], "gain": final["gain"], "gain_ci": final["gain_ci"],
    }  # fmt: skip


def summary(metadata: dict[str, Any], directory: Path) -> str:
    """What the run reached, for the terminal."""
    latest: dict[str, dict[str, Any]] = {}
    for row in metadata["evaluations"]:
        latest[row["baseline"] + variant_suffix(row.get("variant", "base"), ", ")] = row
    lines = [f"trained {metadata['steps']:,} steps; last arena evaluation:"]
    for name, row in latest.items():
        lines.append(f"  vs {name:<8} win share {row['win_share']:.3f} +- {row['win_share_ci']:.3f}, mean score {row['mean_score']:.1f}")
    probed = metadata.get("exploitability")
    if probed:
        lines.append(
            f"exploitability probe: a best response trained {probed['steps']:,} steps wins {probed['win_share']:.3f} "
            f"+- {probed['win_share_ci']:.3f} at {probed['players']} players{variant_suffix(probed.get('variant', 'base'), ', ')}, "
            f"gain over the fair share {probed['gain']:+.3f}"
        )
    probe_files = ", exploit/" if probed else ""
    lines.append(f"run written to {directory}/ (model.zip, metadata.json, evaluations.csv, win_share.png{probe_files}, tensorboard/)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and train."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a YAML config (default: configs/default.yaml)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR", help="continue the run in RUN_DIR")
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: checkpoints/<run_name>)")
    args = parser.parse_args(argv)
    if args.resume is not None and (args.config is not None or args.out is not None):
        parser.error("--resume continues a run with its own config.yaml and folder: --config and --out do not apply (--set does)")

    def selfplay() -> None:
        if args.resume is not None:
            finish_staged(args.resume)  # a checkpoint a killed run was putting in place is completed first
            if not (args.resume / "model.zip").exists() or not (args.resume / "metadata.json").exists():
                raise CheckpointError(f"{args.resume} holds no checkpoint (model.zip and metadata.json) to resume")
            metadata = read_metadata(args.resume / "metadata.json")  # readable, and built for this observation layout
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
        metadata = train(config, directory, resume=args.resume is not None)
        print(summary(metadata, directory))

    # A user error (a bad config value, an agent nothing can load, a damaged checkpoint) is one line.
    run_command(parser.prog, selfplay, interrupted="interrupted: the last checkpoint written stands (--resume continues from it)")


if __name__ == "__main__":
    main()
