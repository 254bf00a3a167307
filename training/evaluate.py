"""The arena from the command line: play agents against each other fairly and report.

    python -m training.evaluate --candidate counter --field random            # gauntlet
    python -m training.evaluate --pool counter greedy random --players 5      # mixed tables
    python -m training.evaluate --candidate my_pkg.bots:make_bot --field greedy counter --games 20000

Agents are built-in names (random, greedy, counter), checkpoints (a run directory with model.zip,
a .zip file, or a shipped policy's name such as miaui-ppo-v0) or `module:callable`. Duplicate
deals and rotating seats make it fair (see training/arena.py). It prints a table and writes
`arena.json`, `arena.csv` and `arena.png` (win share and mean score with 95% intervals) to
`--out` (default results/arena/). Same arguments and seed, same games and numbers.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from dataclasses import asdict
from pathlib import Path

from training.agents import load_agent
from training.arena import ArenaConfig, ArenaResult, gauntlet_significance, play, summarize


def run(names: list[str], mode: str, config: ArenaConfig, out: Path | None, show_progress: bool = True) -> ArenaResult:
    """Load the agents, play, summarize, write the files; returns the result."""
    from tqdm import tqdm

    agents = [load_agent(name, seed=config.seed + i) for i, name in enumerate(names)]
    labels = [name if names.count(name) == 1 else f"{name}#{i}" for i, name in enumerate(names)]
    started = time.perf_counter()
    with tqdm(total=config.games, unit="game", desc="arena", disable=not show_progress) as bar:
        seats, scores, winners = play(agents, mode, config, progress=bar.update)
    results = summarize(labels, seats, scores, winners, config.players)
    significance = gauntlet_significance(seats, winners, config.players, labels[0]) if mode == "gauntlet" else None
    result = ArenaResult(config, mode, results, significance, len(scores) // config.players, round(time.perf_counter() - started, 2))
    if out is not None:
        write(result, out)
    return result


def table(result: ArenaResult) -> str:
    """The results as a text table, best win share first."""
    lines = [
        f"{'agent':<22}{'games':>7}{'win share':>18}{'mean score':>18}{'mean rank':>15}{'rating (mu +- sigma)':>24}",
    ]
    for r in sorted(result.agents, key=lambda r: -r.win_share):
        lines.append(
            f"{r.name:<22}{r.games:>7}{r.win_share:>10.3f} +- {r.win_share_ci:.3f}{r.mean_score:>10.2f} +- {r.mean_score_ci:5.2f}"
            f"{r.mean_rank:>8.2f} +- {r.mean_rank_ci:.2f}{r.rating_mu:>14.2f} +- {r.rating_sigma:.2f}"
        )
    if result.significance:
        lines.append(result.significance)
    return "\n".join(lines)


def write(result: ArenaResult, out: Path) -> None:
    """arena.json, arena.csv and arena.png under `out`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    (out / "arena.json").write_text(json.dumps(result.as_dict(), indent=2) + "\n")
    with (out / "arena.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(result.agents[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in result.agents)
    names = [r.name for r in result.agents]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 0.6 * len(names) + 2.2))
    left.barh(names, [r.win_share for r in result.agents], xerr=[r.win_share_ci for r in result.agents], color="#4c72b0")
    left.axvline(1 / result.config.players, color="grey", linestyle="--", label="fair share")
    left.set_xlabel("win share (95% CI)")
    left.legend(loc="lower right")
    right.barh(names, [r.mean_score for r in result.agents], xerr=[r.mean_score_ci for r in result.agents], color="#55a868")
    right.set_xlabel("mean score (95% CI)")
    right.set_yticklabels([])
    variants = [v for v, on in (("Open Baskets", result.config.open_baskets), ("No Fighting", result.config.no_fighting)) if on]
    figure.suptitle(
        f"Miaui arena, {result.mode}: {result.config.players} players, {result.duplicate_sets * result.config.players} games"
        + (f" ({', '.join(variants)})" if variants else "")
    )
    figure.tight_layout()
    figure.savefig(out / "arena.png", dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the arena."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--candidate", help="gauntlet: the agent under test")
    who.add_argument("--pool", nargs="+", help="mixed tables over these agents")
    parser.add_argument("--field", nargs="+", default=["random"], help="gauntlet: the fixed opponents (cycled over the seats)")
    parser.add_argument("--players", type=int, default=4, choices=range(3, 7))
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--open-baskets", action="store_true")
    parser.add_argument("--no-fighting", action="store_true")
    parser.add_argument("--view", default="table", choices=["table", "recall"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-games", type=int, default=4096, help="games played at once")
    parser.add_argument("--out", type=Path, default=Path("results/arena"))
    args = parser.parse_args(argv)

    names = [args.candidate, *args.field] if args.candidate else list(args.pool)
    mode = "gauntlet" if args.candidate else "pool"
    config = ArenaConfig(args.players, args.games, args.open_baskets, args.no_fighting, args.view, args.seed, args.batch_games)
    result = run(names, mode, config, args.out)
    print(table(result))
    print(f"{result.duplicate_sets} duplicate sets in {result.seconds:.1f} s; written to {args.out}/arena.json, arena.csv, arena.png")


if __name__ == "__main__":
    main()
