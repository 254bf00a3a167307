"""A study of self-play recipes at a fixed budget: each variant a run of the default config with some
keys changed, side by side in one table and one chart.

    python -m training.study --variant base --variant "lr-1e-3: ppo.learning_rate=0.001" \\
        --variant "epochs-8: ppo.n_epochs=8 ppo.batch_size=4096" --steps 5000000 --seeds 0 1
    python -m training.study --collect --out results/study     # the table and chart of the runs already there

A variant is `NAME` or `NAME: KEY=VALUE KEY=VALUE ...` (the keys of `python -m training.selfplay
--set`), laid over `--config` (default: configs/default.yaml) and over what every study run
shares: `total_timesteps` = `--steps`, an evaluation every `--every` steps of `--games` games against
each of `--baselines` at 4 players, no in-run exploiters and no probe (they cost time and measure
exploitability, which the study leaves to `training.exploit`). Each run is the self-play command
itself, in `OUT/<variant>-seed<seed>/`, so any row can be trained again or resumed alone:

    python -m training.selfplay --out OUT/<variant>-seed<seed> --set seed=<seed> <the shared keys> <the variant's keys>

A run already finished in its folder is not trained again. Written to `--out` (default
results/study/): study.csv (each run's evaluations on the base game), study.md (a row per
variant: the last evaluation against each baseline, the seeds' mean, the run's wall time in
minutes), study.png (win share against the last baseline over steps, a line per run).
"""

from __future__ import annotations

import argparse
import csv
import json
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from miaui_env.core.cli import check_writable, distinct, half_width, non_negative_int, positive_int, run_command
from miaui_env.core.files import atomic_write, write_rows
from training.config import ConfigError, load_config
from training.gauntlet import Curve, plot_curves


@dataclass(frozen=True)
class Variant:
    """A recipe to try: a name, and the config keys it changes."""

    name: str
    overrides: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Variant:
        """`NAME` or `NAME: KEY=VALUE ...`; ConfigError for a name that cannot be a folder or a key without `=`."""
        name, _, keys = text.partition(":")
        name = name.strip()
        if not name or not all(c.isalnum() or c in "-_." for c in name):
            raise ConfigError(f"--variant {text!r}: a variant is NAME or 'NAME: KEY=VALUE ...', its name letters, digits, '-', '_', '.'")
        overrides = tuple(shlex.split(keys))
        bad = [override for override in overrides if "=" not in override]
        if bad:
            raise ConfigError(f"--variant {text!r}: {bad[0]!r} is not KEY=VALUE")
        return cls(name, overrides)


def shared_overrides(steps: int, every: int, games: int, baselines: list[str]) -> list[str]:
    """What every run of a study sets: its budget, its evaluations, and no exploiters or probe."""
    evaluation = [f"evaluation.every={every}", f"evaluation.games_per_baseline={games}", "evaluation.num_players=4"]
    return [f"total_timesteps={steps}", "exploiters.every=0", "probe.steps=0", *evaluation, f"evaluation.baselines=[{','.join(baselines)}]"]


def run_folder(out: Path, variant: Variant, seed: int) -> Path:
    """Where a variant's run with `seed` lives."""
    return out / f"{variant.name}-seed{seed}"


def train_variant(config_path: str | None, variant: Variant, seed: int, shared: list[str], out: Path) -> None:
    """Train one run of the study (skipped if its folder holds a finished run)."""
    from training.selfplay import train

    folder = run_folder(out, variant, seed)
    overrides = [*shared, f"seed={seed}", f"run_name={folder.name}", *variant.overrides]
    config = load_config(config_path, overrides)
    metadata = folder / "metadata.json"
    if metadata.exists() and json.loads(metadata.read_text()).get("steps", 0) >= config.total_timesteps:
        print(f"{folder.name}: finished already")
        return
    print(f"{folder.name}: python -m training.selfplay --out {folder} {' '.join('--set ' + shlex.quote(o) for o in overrides)}")
    started = time.perf_counter()
    train(config, folder, resume=metadata.exists())
    (folder / "wall_seconds.txt").write_text(f"{time.perf_counter() - started:.0f}\n")


def collect(out: Path, variants: list[Variant] | None = None) -> list[dict[str, object]]:
    """Every run's evaluations under `out` (the runs of `variants`, or every run there), one row per evaluation."""
    rows = []
    for folder in sorted(path for path in out.glob("*-seed*") if (path / "evaluations.csv").exists()):
        name, _, seed = folder.name.rpartition("-seed")
        if variants is not None and name not in {variant.name for variant in variants}:
            continue
        wall = (folder / "wall_seconds.txt").read_text().strip() if (folder / "wall_seconds.txt").exists() else ""
        with (folder / "evaluations.csv").open() as file:
            for row in csv.DictReader(file):
                if row.get("variant", "base") != "base":  # a run that also plays a variant is compared on the base game
                    continue
                rows.append(
                    {
                        "variant": name,
                        "seed": int(seed),
                        "step": int(row["step"]),
                        "baseline": row["baseline"],
                        "win_share": float(row["win_share"]),
                        "win_share_ci": float(row["win_share_ci"]),
                        "games": int(row["games"]),
                        "wall_seconds": wall,
                    }
                )
    return rows


def table(rows: list[dict[str, object]]) -> str:
    """A row per variant: its runs' last evaluation against each baseline (the seeds' mean, with each seed's figure), and wall time."""
    baselines = list(dict.fromkeys(str(row["baseline"]) for row in rows))
    lines = [
        "| variant | seeds | steps | " + " | ".join(f"vs {b}" for b in baselines) + " | minutes |",
        "|---" * (len(baselines) + 4) + "|",
    ]
    for variant in dict.fromkeys(str(row["variant"]) for row in rows):
        mine = [row for row in rows if row["variant"] == variant]
        seeds = sorted({int(row["seed"]) for row in mine})  # type: ignore[call-overload]
        last = {seed: max(int(row["step"]) for row in mine if row["seed"] == seed) for seed in seeds}  # type: ignore[call-overload]
        cells = []
        for baseline in baselines:
            final = [row for row in mine if row["baseline"] == baseline and row["step"] == last[int(row["seed"])]]  # type: ignore[call-overload]
            shares = [float(row["win_share"]) for row in final]  # type: ignore[arg-type]
            each = ", ".join(f"{float(row['win_share']):.3f} ± {half_width(float(row['win_share_ci']))}" for row in final)  # type: ignore[arg-type]
            cells.append(f"{np.mean(shares):.3f} ({each})" if len(shares) > 1 else each)
        walls = [float(str(row["wall_seconds"])) / 60 for row in mine if row["wall_seconds"]]
        minutes = f"{np.mean(walls):.0f}" if walls else "n/a"
        steps = f"{min(last.values()):,}"
        lines.append(f"| {variant} | {', '.join(map(str, seeds))} | {steps} | " + " | ".join(cells) + f" | {minutes} |")
    return "\n".join(lines) + "\n"


def chart(rows: list[dict[str, object]], path: Path) -> None:
    """Win share against the first baseline over steps, a line per run, as a PNG."""
    baseline = str(rows[0]["baseline"])
    curves = []
    for variant, seed in dict.fromkeys((row["variant"], row["seed"]) for row in rows):
        mine = sorted(
            (row for row in rows if (row["variant"], row["seed"], row["baseline"]) == (variant, seed, baseline)),
            key=lambda row: int(row["step"]),  # type: ignore[call-overload]
        )
        curves.append(
            Curve(
                f"{variant} (seed {seed})",
                [int(row["step"]) for row in mine],  # type: ignore[call-overload]
                np.array([row["win_share"] for row in mine]),
                np.array([row["win_share_ci"] for row in mine]),
            )
        )
    plot_curves(
        path,
        curves,
        reference=(0.25, "fair share"),
        title=f"Self-play recipes: win share against 3 x {baseline}, 4 players",
        xlabel="training steps",
        ylabel="learner's win share",
        steps_in_millions=True,
    )


def write_study(rows: list[dict[str, object]], out: Path) -> str:
    """study.csv, study.md and study.png under `out`; the table."""
    if not rows:
        raise ConfigError(f"no study runs with evaluations under {out}")
    text = table(rows)
    write_rows(out / "study.csv", rows)
    atomic_write(out / "study.md", text)
    baselines = list(dict.fromkeys(str(row["baseline"]) for row in rows))
    chart([row for row in rows if row["baseline"] == baselines[-1]], out / "study.png")
    return text


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, train the study's runs and write its table and chart."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", default=[], help="NAME or 'NAME: KEY=VALUE ...' (repeatable)")
    parser.add_argument("--config", default=None, help="the config the variants change (default: configs/default.yaml)")
    parser.add_argument("--steps", type=positive_int, default=5_000_000, help="learner steps of every run")
    parser.add_argument("--seeds", type=non_negative_int, nargs="+", default=[0])
    parser.add_argument("--every", type=positive_int, default=1_000_000, help="steps between evaluations")
    parser.add_argument("--games", type=positive_int, default=1000, help="games per evaluation and baseline")
    parser.add_argument("--baselines", nargs="+", default=["random", "counter"], help="the last one is the chart's")
    parser.add_argument("--collect", action="store_true", help="train nothing: the table and chart of the runs under --out")
    parser.add_argument("--out", type=Path, default=Path("results/study"))
    args = parser.parse_args(argv)
    distinct(parser, "--seeds", args.seeds)
    distinct(parser, "--baselines", args.baselines)

    def study() -> None:
        from training.ppo import ppo_kwargs
        from training.selfplay import check_run

        variants = [Variant.parse(text) for text in args.variant]
        distinct(parser, "--variant names", [variant.name for variant in variants])
        if not variants and not args.collect:
            raise ConfigError("name at least one --variant (or --collect the runs already under --out)")
        check_writable(args.out)
        shared = shared_overrides(args.steps, args.every, args.games, args.baselines)
        for variant in variants if not args.collect else []:  # every variant checked, as a run checks it, before the first trains
            config = load_config(args.config, [*shared, *variant.overrides])
            check_run(config)
            ppo_kwargs(config.ppo)
        for variant in variants if not args.collect else []:
            for seed in args.seeds:
                train_variant(args.config, variant, seed, shared, args.out)
        print(write_study(collect(args.out, variants or None), args.out))
        print(f"written to {args.out}/study.md, study.csv, study.png")

    run_command(parser.prog, study, interrupted="interrupted: the runs finished so far stand (run the same command to go on)")


if __name__ == "__main__":
    main()
