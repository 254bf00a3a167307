"""Arena statistics every game's arena shares: duplicate-set lineups, per-agent results with 95%
intervals and ratings, the gauntlet's significance test, the text table and the result files.

A game's arena plays its schedule (each duplicate set one deal, the lineup rotated a seat a game)
and hands the seats, scores and winners to `summarize` and `gauntlet_significance`; `write_results`
writes arena.json, arena.csv and arena.png. Miaui's arena is `miaui_env.games.miaui.arena`, the octopus
game's `miaui_env.games.octopus.arena`, any other game's `miaui_env.apps.any_game`.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from miaui_env.core.cli import half_width
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.files import atomic_write, replacing
from miaui_env.core.registry import LEGACY_GAME

MODES = ("gauntlet", "pool")
RESULT_BYTES_PER_SEAT = 8 + 8 + 1 + 8  # per game and seat: agent index, score, winner flag, schedule
MAX_RESULT_BYTES = 4 * 2**30  # what one run may keep of its games' results


def check_result_size(games: int, num_players: int, config: str, error: type[ValueError] = InvalidConfigError) -> None:
    """`error` (naming `config`) unless `games` games at `num_players` keep at most MAX_RESULT_BYTES of results."""
    needed = games * num_players * RESULT_BYTES_PER_SEAT
    if needed > MAX_RESULT_BYTES:
        raise error(
            f"{config} games={games} would keep about {needed / 2**30:,.1f} GiB of results; "
            f"at most {MAX_RESULT_BYTES // (num_players * RESULT_BYTES_PER_SEAT):,} games a run"
        )


@dataclass
class AgentResult:
    """One agent's numbers over an arena run."""

    name: str
    games: int
    win_share: float
    win_share_ci: float  # half-width of the 95% confidence interval
    mean_score: float
    mean_score_ci: float
    mean_rank: float
    mean_rank_ci: float
    rating_mu: float
    rating_sigma: float
    rating_ordinal: float


_GameConfig = TypeVar("_GameConfig")  # a game's arena config: ArenaConfig, or the octopus game's OctopusArenaConfig


@dataclass
class ArenaResult(Generic[_GameConfig]):
    """What an arena run reports, Miaui's or another game's (`game`, with that game's arena config)."""

    config: _GameConfig
    mode: str
    agents: list[AgentResult]
    significance: str | None = None
    duplicate_sets: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    game: str = LEGACY_GAME

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary; another game's names the game first (Miaui's arena.json stays as it was before games had names)."""
        fields = asdict(self)
        game = fields.pop("game")
        return fields if game == LEGACY_GAME else {"game": game, **fields}


def lineups(mode: str, num_agents: int, num_players: int, sets: int) -> np.ndarray:
    """(sets, num_players) agent index per seat for each duplicate set, before rotation."""
    if mode == "gauntlet":  # agent 0 is the candidate, agents 1.. the field
        field_size = num_agents - 1
        return np.array([[0] + [1 + (s + j) % field_size for j in range(num_players - 1)] for s in range(sets)])
    if num_agents >= num_players:
        tables = list(itertools.combinations(range(num_agents), num_players))
        return np.array([tables[s % len(tables)] for s in range(sets)])
    return np.array([[(s + j) % num_agents for j in range(num_players)] for s in range(sets)])


# Student's t at 97.5% for 1-29 degrees of freedom (a 95% interval from few duplicate sets); from
# 30 on the normal 1.96 is within 2% of it.
_T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
          2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045)  # fmt: skip


def _mean_ci(per_set: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width over duplicate sets (NaN where the agent did not play).

    The half-width is NaN where the sets cannot support one: fewer than two, or fewer than
    MIN_SETS_FOR_Z that all came out the same (zero spread says nothing about the next few sets).
    """
    values = per_set[~np.isnan(per_set)]
    mean = float(values.mean()) if values.size else float("nan")
    spread = float(values.std(ddof=1)) if values.size > 1 else 0.0
    if values.size < 2 or (spread == 0 and values.size < MIN_SETS_FOR_Z):
        return mean, float("nan")
    critical = _T_975[values.size - 2] if values.size - 1 < MIN_SETS_FOR_Z else 1.96
    return mean, critical * spread / math.sqrt(values.size)


def summarize(
    agent_names: Sequence[str], seats: np.ndarray, scores: np.ndarray, winners: np.ndarray, num_players: int
) -> list[AgentResult]:
    """Per-agent statistics (see the module docstring) from played games."""
    from openskill.models import PlackettLuce

    games = scores.shape[0]
    sets = games // num_players
    share = np.where(winners, 1.0 / winners.sum(axis=1, keepdims=True), 0.0)
    higher = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    equal = (scores[:, None, :] == scores[:, :, None]).sum(axis=2)
    rank = 1.0 + higher + (equal - 1) / 2.0  # ties share the average place

    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in agent_names]
    for game in range(games):
        present = np.unique(seats[game])
        if present.size < 2:
            continue
        places = [float(rank[game][seats[game] == a].mean()) for a in present]
        updated = model.rate([[ratings[a]] for a in present], ranks=places)
        for a, team in zip(present, updated, strict=True):
            ratings[a] = team[0]

    results = []
    for a, name in enumerate(agent_names):
        sits = seats == a
        per_game_count = sits.sum(axis=1)
        counted = per_game_count.reshape(sets, num_players).sum(axis=1).astype(float)
        stats = []
        for table in (share, scores.astype(float), rank):
            totals = np.where(sits, table, 0.0).sum(axis=1).reshape(sets, num_players).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                stats.append(_mean_ci(totals / counted))
        (win, win_ci), (score, score_ci), (place, place_ci) = stats
        results.append(
            AgentResult(
                name,
                int(per_game_count.sum()),
                win,
                win_ci,
                score,
                score_ci,
                place,
                place_ci,
                ratings[a].mu,
                ratings[a].sigma,
                ratings[a].ordinal(),
            )
        )
    return results


MIN_SETS_FOR_Z = 30  # below this many duplicate sets the normal approximation is not trusted


def gauntlet_significance(seats: np.ndarray, winners: np.ndarray, num_players: int, candidate: str) -> str:
    """One-sided test over duplicate sets: is the candidate's win share above the fair 1/n?

    A z-test where there are enough sets and they vary; otherwise an exact sign test (how many sets
    fell above fair share against how many below), which claims nothing the few sets cannot carry.
    """
    share = np.where(winners, 1.0 / winners.sum(axis=1, keepdims=True), 0.0)
    per_set = np.where(seats == 0, share, 0.0).sum(axis=1).reshape(-1, num_players).mean(axis=1)
    # Shares are fractions of small whole numbers: rounding drops the float noise that would make sets
    # exactly at fair share (an agent against copies of itself) look like a tiny, "certain" gain.
    per_set = np.round(per_set, 12)
    fair, mean, sets = 1.0 / num_players, float(per_set.mean()), per_set.size
    spread = float(per_set.std(ddof=1)) / math.sqrt(sets) if sets > 1 else 0.0
    if sets >= MIN_SETS_FOR_Z and spread > 0:
        z = (mean - fair) / spread
        p = 0.5 * math.erfc(z / math.sqrt(2))
        test = f"z = {z:.2f}, one-sided p = {p:.2g}"
    else:
        above, below = int((per_set > fair).sum()), int((per_set < fair).sum())
        decided = above + below  # sets exactly at fair share say nothing either way
        p = sum(math.comb(decided, k) for k in range(above, decided + 1)) / 2**decided if decided else 1.0
        test = f"sign test, {above} of {decided} sets above fair share: one-sided p = {p:.2g}"
    verdict = "above" if p < 0.01 and mean > fair else "not significantly above"
    return (
        f"{candidate}: win share {mean:.3f} vs fair share {fair:.3f} over {sets} duplicate sets: "
        f"{test} ({verdict} fair share at the 1% level)"
    )


def table(result: ArenaResult[Any]) -> str:
    """The results as a text table, best win share first."""
    lines = [
        f"{'agent':<22}{'games':>7}{'win share':>18}{'mean score':>18}{'mean rank':>15}{'rating (mu +- sigma)':>24}",
    ]
    for r in sorted(result.agents, key=lambda r: -r.win_share):
        win_share = f"{r.win_share:>10.3f} +- {half_width(r.win_share_ci):>5}"
        score = f"{r.mean_score:>10.2f} +- {half_width(r.mean_score_ci, 2):>5}"
        rank = f"{r.mean_rank:>8.2f} +- {half_width(r.mean_rank_ci, 2):>4}"
        lines.append(f"{r.name:<22}{r.games:>7}{win_share}{score}{rank}{r.rating_mu:>14.2f} +- {r.rating_sigma:.2f}")
    if result.significance:
        lines.append(result.significance)
    return "\n".join(lines)


def write_results(
    as_dict: dict[str, Any], agents: Sequence[AgentResult], num_players: int, out: Path, title: str, score: str = "mean score"
) -> None:
    """Any game's arena results under `out`: `as_dict` as arena.json, one row per agent in arena.csv,
    and arena.png (win shares against the fair share, and `score`, each with its 95% interval)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "arena.json", json.dumps(as_dict, indent=2) + "\n")
    with replacing(out / "arena.csv") as temporary, temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(agents[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in agents)
    names = [r.name for r in agents]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 0.6 * len(names) + 2.2))
    left.barh(names, [r.win_share for r in agents], xerr=[r.win_share_ci for r in agents], color="#4c72b0")
    left.axvline(1 / num_players, color="grey", linestyle="--", label="fair share")
    left.set_xlabel("win share (95% CI)")
    left.legend(loc="lower right")
    right.barh(names, [r.mean_score for r in agents], xerr=[r.mean_score_ci for r in agents], color="#55a868")
    right.set_xlabel(f"{score} (95% CI)")
    right.set_yticklabels([])
    figure.suptitle(title)
    figure.tight_layout()
    with replacing(out / "arena.png") as temporary:
        figure.savefig(temporary, dpi=110)
    plt.close(figure)
