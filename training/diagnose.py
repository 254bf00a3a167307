"""Why a self-play run stalls, or keeps learning: its training curves side by side, and how far its policy still moves.

    python -m training.diagnose checkpoints/miaui-ppo                 # writes checkpoints/miaui-ppo/diagnosis/
    python -m training.diagnose /tmp/run --states 2048 --seed 1 --out results/diagnosis/run

A flat evaluation curve has a few usual causes, and each leaves a trace in curves that SB3's
console does not put side by side. This command reads a run's TensorBoard logs (every session of
a resumed run) and its opponent pool, and draws them on one page (`diagnosis.png`):

- **update size**: PPO's `approx_kl` and `clip_fraction` per update, beside the learning rate. Both
  near 0 means each update barely moves the policy (too few gradient steps per rollout, or too small a step);
- **the critic**: explained variance and value loss, overall and per table (`tables/*`, logged by the
  trainer at the end of each rollout), and the advantages' spread before PPO normalises them;
- **exploration**: the policy's entropy, and the magnet's KL where the run has a magnet;
- **policy change**: the mean KL between consecutive pool snapshots (one every
  `opponents.snapshot_every` steps) on one fixed set of states, and the share of those states where
  the most likely card changed. States come from `--states` seats' decisions of games at the
  game's default table (Miaui: 4 players; the octopus game: 3) in its env, every seat the run's final
  policy, sampling, dealt from `--seed`;
- **where the games come from**: the draw weight of each kind of opponent (`opponents/share_*`);
- **strength**: the run's own evaluations against each baseline.

Also written: `curves.csv` (step, curve, value: every scalar read) and `policy_change.csv`
(from_step, to_step, mean KL, the share of states whose best card changed). Miaui runs only: the
policy-change panel needs Miaui's engine (an octopus run gets every other panel).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core.cli import check_writable, positive_int, run_command
from miaui_env.core.files import replacing, write_rows
from miaui_env.core.registry import game_of, get_game

# The panels of diagnosis.png: a title, the y axis, and the curves (TensorBoard tags; a tag ending
# in "*" takes every tag with that prefix, one line each).
PANELS = (
    ("Update size", "per update", ("train/approx_kl", "train/clip_fraction")),
    ("Learning rate", "", ("train/learning_rate",)),
    ("Critic: explained variance", "1 - Var(return - value) / Var(return)", ("train/explained_variance", "tables/explained_variance_*")),
    ("Critic: value loss", "", ("train/value_loss",)),
    ("Advantages before normalising", "standard deviation", ("tables/advantage_std_*",)),
    ("Entropy and the magnet", "nats", ("train/entropy", "magnet/entropy", "magnet/kl")),
    ("Policy change between snapshots", "on fixed states", ("policy/kl_to_previous_snapshot", "policy/best_card_changed")),
    ("Opponents dealt", "draw weight", ("opponents/share_*",)),
    ("Evaluations", "win share", ("eval/win_share_vs_*",)),
)


def read_curves(run: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the run's TensorBoard logs, by tag, as (step, value) in step order (sessions of a resumed run joined)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    curves: dict[str, dict[int, float]] = defaultdict(dict)
    sessions = sorted((run / "tensorboard").glob("*"), key=lambda folder: folder.stat().st_mtime)
    if not sessions:
        raise FileNotFoundError(f"{run} has no tensorboard/ logs: is it a self-play run's folder?")
    for session in sessions:
        events = EventAccumulator(str(session), size_guidance={"scalars": 0})
        events.Reload()
        for tag in events.Tags()["scalars"]:
            for event in events.Scalars(tag):
                curves[tag][int(event.step)] = float(event.value)  # a later session's value for a step replays it
    entropy_loss = curves.pop("train/entropy_loss", {})
    if (
        "magnet/entropy" not in curves
    ):  # SB3 logs minus the entropy; with a magnet, minus the magnet's whole term (its own curve has the entropy)
        curves["train/entropy"] = {step: -value for step, value in entropy_loss.items()}
    return {tag: sorted(points.items()) for tag, points in curves.items()}


def fixed_states(model: Any, game_name: str, view: str, states: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`states` decisions (observation rows and masks) of the game's default table, every seat played
    by `model` sampling from its policy, in the game's own env; the same for one seed."""
    from miaui_env.core.policy import action_probabilities

    game = get_game(game_name)
    env = game.env(num_players=game.default_players, view=view)
    rng = np.random.default_rng(seed)
    seen: list[np.ndarray] = []
    legal: list[np.ndarray] = []
    for episode in itertools.count():
        if len(seen) >= states:
            break
        env.reset(seed=seed + episode)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            row, mask = np.asarray(observation["observation"]), np.asarray(observation["action_mask"], dtype=bool)
            seen.append(row)
            legal.append(mask)
            chances = action_probabilities(model, row[None], mask[None])[0] * mask
            env.step(int(rng.choice(len(chances), p=chances / chances.sum())))
    return np.stack(seen)[:states], np.stack(legal)[:states]


def policy_change(run: Path, states: int, seed: int) -> list[dict[str, float]]:
    """For each pair of consecutive pool snapshots: the mean KL(newer || older) over the legal cards
    on the fixed states, and the share of states whose most likely card differs."""
    import torch
    from sb3_contrib import MaskablePPO

    from miaui_env.core.policy import action_probabilities, load_named_model

    snapshots = sorted((run / "pool").glob("step_*.pt"))
    if len(snapshots) < 2:
        return []
    model = load_named_model(MaskablePPO, run / "model.zip", _metadata(run), device="cpu")
    view = str(_metadata(run).get("view", "table"))
    observations, masks = fixed_states(model, game_of(_metadata(run)), view, states, seed)
    chances = []
    for path in snapshots:
        model.policy.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        chances.append(np.clip(action_probabilities(model.policy, observations, masks) * masks, 1e-12, None))
    rows = []
    pairs = zip(snapshots[:-1], snapshots[1:], chances[:-1], chances[1:], strict=True)
    for older_path, newer_path, older, newer in pairs:
        kl = np.sum(np.where(masks, newer * np.log(newer / older), 0.0), axis=1)
        rows.append(
            {
                "from_step": int(older_path.stem.removeprefix("step_")),
                "to_step": int(newer_path.stem.removeprefix("step_")),
                "kl": round(float(kl.mean()), 6),
                "best_card_changed": round(float(np.mean(newer.argmax(axis=1) != older.argmax(axis=1))), 4),
            }
        )
    return rows


def _metadata(run: Path) -> dict[str, Any]:
    path = run / "metadata.json"
    return json.loads(path.read_text()) if path.exists() else {}


def expand(tags: tuple[str, ...], curves: dict[str, list[tuple[int, float]]]) -> list[str]:
    """The panel's tags, a trailing "*" taking every logged tag with that prefix."""
    found = []
    for tag in tags:
        found += sorted(name for name in curves if name.startswith(tag[:-1])) if tag.endswith("*") else [tag] if tag in curves else []
    return found


def draw(curves: dict[str, list[tuple[int, float]]], path: Path, title: str) -> None:
    """The panels as one PNG (written whole)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = 3
    rows = math.ceil(len(PANELS) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(6 * columns, 3.6 * rows))
    for axis, (panel, ylabel, tags) in zip(axes.flat, PANELS, strict=False):
        names = expand(tags, curves)
        for name in names:
            steps, values = zip(*curves[name], strict=True)
            axis.plot(steps, values, marker="." if len(steps) < 40 else None, label=name.split("/", 1)[1])
        if not names:
            axis.text(0.5, 0.5, "not logged by this run", ha="center", va="center", transform=axis.transAxes, color="grey")
            axis.set_xticks([])
            axis.set_yticks([])
        axis.set_title(panel)
        axis.set_ylabel(ylabel)
        axis.xaxis.set_major_formatter(lambda steps, _: f"{steps / 1e6:g}M")
        if names:
            axis.legend(fontsize=7)
    for axis in list(axes.flat)[len(PANELS) :]:
        axis.set_visible(False)
    figure.suptitle(title)
    figure.tight_layout()
    with replacing(path) as temporary:
        figure.savefig(temporary, dpi=90, format="png")
    plt.close(figure)


def diagnose(run: Path, out: Path, states: int = 4096, seed: int = 0) -> dict[str, Any]:
    """Read the run, write diagnosis.png, curves.csv and policy_change.csv under `out`; what was found."""
    if not (run / "model.zip").exists():
        raise FileNotFoundError(f"{run} has no model.zip: name a self-play run's folder (checkpoints/<run_name>)")
    curves = read_curves(run)
    changes = policy_change(run, states, seed)
    curves["policy/kl_to_previous_snapshot"] = [(int(row["to_step"]), row["kl"]) for row in changes]
    curves["policy/best_card_changed"] = [(int(row["to_step"]), row["best_card_changed"]) for row in changes]
    curves = {tag: points for tag, points in curves.items() if points}
    check_writable(out)
    draw(curves, out / "diagnosis.png", f"{run.name}: why it learns or stalls")
    write_rows(
        out / "curves.csv", [{"step": step, "curve": tag, "value": value} for tag, points in curves.items() for step, value in points]
    )
    if changes:
        write_rows(out / "policy_change.csv", changes)
    return {"curves": len(curves), "policy_change": changes}


def summary(found: dict[str, Any], out: Path) -> str:
    """What the command prints: the policy change between each pair of snapshots, and where the files are."""
    lines = [
        f"{row['from_step']:>10,} -> {row['to_step']:>10,}: KL {row['kl']:.4f}, best card changed on {row['best_card_changed']:.1%}"
        for row in found["policy_change"]
    ]
    return "\n".join([*lines, f"{found['curves']} curves; written to {out}/diagnosis.png, curves.csv, policy_change.csv"])


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and diagnose the run."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a self-play run's folder (checkpoints/<run_name>)")
    parser.add_argument("--states", type=positive_int, default=4096, help="fixed states the snapshots are compared on")
    parser.add_argument("--seed", type=positive_int, default=1, help="deals the fixed states' games")
    parser.add_argument("--out", type=Path, default=None, help="default: RUN/diagnosis/")
    args = parser.parse_args(argv)

    def run() -> None:
        out = args.out or args.run / "diagnosis"
        print(summary(diagnose(args.run, out, args.states, args.seed), out))

    run_command(parser.prog, run)


if __name__ == "__main__":
    main()
