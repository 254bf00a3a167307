"""A fair multiplayer arena: duplicate deals, rotating seats, confidence intervals, ratings.

Fairness by construction. Games come in *duplicate sets*: one deal (one seed, so the same deck and
the same round-1 Seagull draws) is played n times, the lineup rotated one seat each time, so every
agent of the lineup plays every seat of that deal: luck of the deal and of Kiti's seat cancels.
The statistics treat each duplicate set as one observation (its games are not independent).

Modes:
- gauntlet: a candidate against a fixed field; the other n-1 seats cycle through the field.
- pool: mixed tables over a pool; with at least n agents every n-subset meets in turn, otherwise
  the pool cycles around the table, so every agent meets every other.

Per agent: win share (ties split), mean score and mean rank (ties share the average place), with
95% confidence intervals over duplicate sets, and an OpenSkill Plackett-Luce rating (mu, sigma and
the conservative ordinal mu - 3 sigma). An agent with several copies at one table is rated once
for that game, at its copies' mean place. The gauntlet adds a one-sided z-test of the candidate's
win share against the fair share 1/n.

Views. Every agent sees the table through the view it plays from: a policy trained on the recall
view (R11: what a perfect-memory player knows) says so and is shown it; the others
are shown `view`, the recall observations narrowed to what the table shows (exactly the table
view). The baselines see the same either way: the counter remembers every reveal itself.

From the command line (`python -m miaui_env.apps.arena`, or `miaui-arena`):

    python -m miaui_env.apps.arena --candidate counter --field random            # gauntlet
    python -m miaui_env.apps.arena --pool counter greedy random --players 5      # mixed tables
    python -m miaui_env.apps.arena --candidate my_pkg.bots:make_bot --field greedy counter --games 20000

Agents are any spec `load_agent` takes. It prints a table and writes `arena.json`, `arena.csv` and
`arena.png` (win share and mean score with 95% intervals) to `--out` (default results/arena/), and
with `--replays N` the first N games as replays in `--out`/replays/ (`miaui_env.apps.replay`).
`--players` and `--num-players` are one option, the table size.

Seeds. Duplicate set k is dealt with slot seed k of `seeding.seed_ints(seed, sets)` (32-bit words
of the seed's state), every game of the set alike; `run` seeds the agents from the children of the
same seed (`load_agents`). Same arguments and seed, same games and numbers.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from miaui_env.agents import Agent, AgentError, Policy, as_agent, as_seen, checked_actions, views_at_table
from miaui_env.agents.loading import load_agents
from miaui_env.apps.cli import add_game_argument, check_writable, game_chooser, half_width, non_negative_int, positive_int, run_command
from miaui_env.apps.files import atomic_write, replacing
from miaui_env.apps.replay import record_replay, save_replay
from miaui_env.game.rules import NUM_ROUNDS, InvalidConfigError, is_integer
from miaui_env.game.seeding import check_seed, seed_ints
from miaui_env.games import LEGACY_GAME, get_game
from miaui_env.spec import TableSpec
from miaui_env.vector import VectorMiaui

MODES = ("gauntlet", "pool")
RESULT_BYTES_PER_SEAT = 8 + 8 + 1 + 8  # per game and seat: agent index, score, winner flag, schedule
MAX_RESULT_BYTES = 4 * 2**30  # what one run may keep of its games' results


@dataclass(frozen=True)
class ArenaConfig:
    """Everything that decides an arena run; the same config gives the same games and numbers.

    The table is named by `TableSpec`'s fields (`table_spec`); `at_table` builds a config from one.
    """

    num_players: int = 4
    """Seats at every table, 3-6 (R1)."""
    games: int = 10_000
    """Games to play, rounded up to whole duplicate sets of `num_players` games."""
    open_baskets: bool = False
    """The Open Baskets variant (R11)."""
    no_fighting: bool = False
    """The No Fighting variant (R8)."""
    view: str = "table"
    """The view of the agents that do not say which view they play from."""
    seed: int = 0
    """The seed of the deals (and, in `run`, of the agents)."""
    batch_games: int = 4096
    """Games played at once by the batched engine."""

    def __post_init__(self) -> None:
        TableSpec(self.num_players, self.open_baskets, self.no_fighting, self.view)  # the table's settings, checked there
        check_seed(self.seed)
        for name in ("games", "batch_games"):
            value = getattr(self, name)
            if not is_integer(value) or value < 1:
                raise InvalidConfigError(f"ArenaConfig {name}={value!r} is not allowed; it must be an integer >= 1")
        needed = self.games * self.num_players * RESULT_BYTES_PER_SEAT
        if needed > MAX_RESULT_BYTES:
            raise InvalidConfigError(
                f"ArenaConfig games={self.games} would keep about {needed / 2**30:,.1f} GiB of results; "
                f"at most {MAX_RESULT_BYTES // (self.num_players * RESULT_BYTES_PER_SEAT):,} games a run"
            )

    @classmethod
    def at_table(cls, table: TableSpec, *, games: int = 10_000, seed: int = 0, batch_games: int = 4096) -> ArenaConfig:
        """A run on `table`'s game and view. The arena pays by wins, scores and places whatever the
        table's reward, and shows agents float32 observations whatever its observation dtype."""
        if not isinstance(table, TableSpec):
            raise InvalidConfigError(f"ArenaConfig.at_table takes a miaui_env.spec.TableSpec, got {table!r:.60}")
        if table.short:
            raise InvalidConfigError(
                f"the arena plays the 12-round game with R2's deck; this table is a short game (rounds={table.rounds}, MV1-MV3): "
                "measure short games exactly with python -m training.exact --game miaui"
            )
        return cls(table.num_players, games, table.open_baskets, table.no_fighting, table.view, seed, batch_games)

    @property
    def table_spec(self) -> TableSpec:
        """The table every game is played at (reward "win", float32 observations: what the arena deals)."""
        return TableSpec(self.num_players, self.open_baskets, self.no_fighting, self.view)


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


@dataclass
class SampleGames:
    """The first `count` games of a schedule as replays need them: each game's deal seed (the
    batched engine deals slot seed s as `env.reset(seed=s)` does) and its diver cards, round by round."""

    count: int
    seeds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    plays: np.ndarray = field(default_factory=lambda: np.zeros((0, NUM_ROUNDS - 1, 0), dtype=np.int64))

    def start(self, game_seeds: np.ndarray, num_players: int) -> None:
        """Make room for the sample of a schedule with these game seeds."""
        self.count = min(self.count, len(game_seeds))
        self.seeds = game_seeds[: self.count].astype(np.int64)
        self.plays = np.zeros((self.count, NUM_ROUNDS - 1, num_players), dtype=np.int64)

    def keep(self, first_game: int, decision: int, cards: np.ndarray) -> None:
        """The cards (diver cards 1-12) of a pass's games starting at `first_game`, where they are sampled."""
        wanted = self.count - first_game
        if wanted > 0:
            self.plays[first_game : first_game + min(wanted, len(cards)), decision] = cards[:wanted]


def scheduled_games(config: ArenaConfig) -> int:
    """The games a schedule plays: `config.games` rounded up to whole duplicate sets (one game per seat rotation)."""
    return math.ceil(config.games / config.num_players) * config.num_players


def play(
    agents: Sequence[Agent | Policy],
    mode: str,
    config: ArenaConfig,
    progress: Callable[[int], object] | None = None,
    samples: SampleGames | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play the schedule; returns seats' agent indices, scores and winners, each (games, num_players).

    Games are ordered by duplicate set, and within a set by rotation. `samples`, if given, is
    filled with the deal seeds and the cards of the first games (for replays).
    """
    if mode not in MODES:
        raise InvalidConfigError(f"mode={mode!r} is not allowed; modes are {', '.join(MODES)}")
    entrants = [as_agent(agent) for agent in agents]  # plain batched functions play too
    least = 2 if mode == "gauntlet" else 1
    if len(entrants) < least:
        raise AgentError(f"a {mode} needs at least {least} agent(s), got {len(entrants)}")
    n = config.num_players
    sets = scheduled_games(config) // n
    base = lineups(mode, len(entrants), n, sets)
    seats = np.concatenate([np.roll(base, r, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)
    set_seeds = seed_ints(config.seed, sets)  # one deal seed a duplicate set
    game_seeds = np.repeat(set_seeds, n)
    if samples is not None:
        samples.start(game_seeds, n)
    per_pass = max(1, config.batch_games // n) * n
    views, dealt = views_at_table(entrants, config.view)
    table = config.table_spec.replace(view=dealt).as_kwargs()
    engine = VectorMiaui(min(per_pass, sets * n), seed=config.seed, **table)
    scores = np.zeros((sets * n, n), dtype=np.int64)
    winners = np.zeros((sets * n, n), dtype=bool)
    for start in range(0, sets * n, per_pass):
        stop = min(start + per_pass, sets * n)
        if stop - start != engine.num_envs:
            engine = VectorMiaui(stop - start, **table)
        obs, masks = engine.reset(seeds=game_seeds[start:stop].tolist())
        lineup = seats[start:stop]
        sits = [lineup == a for a in range(len(entrants))]
        for agent in entrants:
            agent.reset()
        shown = start
        for decision in range(NUM_ROUNDS - 1):
            actions = np.zeros(lineup.shape, dtype=np.int64)
            for agent, view, where in zip(entrants, views, sits, strict=True):
                if where.any():
                    actions[where] = checked_actions(agent, as_seen(obs[where], view, dealt), masks[where])
            if samples is not None:
                samples.keep(start, decision, actions + 1)
            obs, masks, _, _, infos = engine.step(actions)
            if progress is not None:  # round by round, in whole games: a slow agent (a search) still shows its pace
                reached = start + (stop - start) * (decision + 1) // (NUM_ROUNDS - 1)
                progress(reached - shown)
                shown = reached
        scores[start:stop], winners[start:stop] = infos["scores"], infos["winners"]
    return seats, scores, winners


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


def run(
    names: list[str], mode: str, config: ArenaConfig, out: Path | None, show_progress: bool = True, replays: int = 0
) -> ArenaResult[ArenaConfig]:
    """Load the agents, play, summarize, write the files (and the first `replays` games as
    replays under `out`/replays/); returns the result."""
    from tqdm import tqdm

    agents = load_agents(names, config.seed)
    labels = [name if names.count(name) == 1 else f"{name}#{i}" for i, name in enumerate(names)]
    started = time.perf_counter()
    samples = SampleGames(replays) if replays and out is not None else None
    with tqdm(total=scheduled_games(config), unit=" games", desc="arena", disable=not show_progress) as bar:
        seats, scores, winners = play(agents, mode, config, progress=bar.update, samples=samples)
    if samples is not None and out is not None:
        for game in range(samples.count):
            players = [labels[agent] for agent in seats[game]]
            replay = record_replay(config.table_spec, samples.plays[game], seed=int(samples.seeds[game]), players=players)
            save_replay(replay, out / "replays" / f"game-{game:04d}.json")
    results = summarize(labels, seats, scores, winners, config.num_players)
    significance = gauntlet_significance(seats, winners, config.num_players, labels[0]) if mode == "gauntlet" else None
    result = ArenaResult(config, mode, results, significance, len(scores) // config.num_players, round(time.perf_counter() - started, 2))
    if out is not None:
        write(result, out)
    return result


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


def write(result: ArenaResult[ArenaConfig], out: Path) -> None:
    """arena.json, arena.csv and arena.png under `out`."""
    variants = [v for v, on in (("Open Baskets", result.config.open_baskets), ("No Fighting", result.config.no_fighting)) if on]
    title = f"Miaui arena, {result.mode}: {result.config.num_players} players, {result.duplicate_sets * result.config.num_players} games"
    title += f" ({', '.join(variants)})" if variants else ""
    write_results(result.as_dict(), result.agents, result.config.num_players, out, title)


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


def gauntlet(names: list[str], num_players: int, games: int, seed: int, show_progress: bool) -> ArenaResult[ArenaConfig]:
    """One Miaui gauntlet: names[0] against copies of names[1] (the card's and the registry's `gauntlet` part)."""
    return run(names, "gauntlet", ArenaConfig(num_players=num_players, games=games, seed=seed), None, show_progress)


def main(argv: list[str] | None = None) -> None:
    """Run the arena of the game `--game` names (default Miaui): that game's `arena` part (miaui_env.games)."""
    chosen, rest = game_chooser().parse_known_args(argv)
    get_game(chosen.game).part("arena")(rest)


def miaui_main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the Miaui arena."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_argument(parser)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--candidate", help="gauntlet: the agent under test")
    who.add_argument("--pool", nargs="+", help="mixed tables over these agents")
    parser.add_argument("--field", nargs="+", default=["random"], help="gauntlet: the fixed opponents (cycled over the seats)")
    parser.add_argument("--players", "--num-players", dest="num_players", type=int, default=4, choices=range(3, 7), help="table size")
    parser.add_argument("--games", type=positive_int, default=10_000)
    parser.add_argument("--open-baskets", action="store_true")
    parser.add_argument("--no-fighting", action="store_true")
    parser.add_argument("--view", default="table", choices=["table", "recall"])
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--batch-games", type=positive_int, default=4096, help="games played at once")
    parser.add_argument("--out", type=Path, default=Path("results/arena"))
    parser.add_argument("--replays", type=non_negative_int, default=0, help="save the first N games as replays under OUT/replays/")
    args = parser.parse_args(argv)

    names = [args.candidate, *args.field] if args.candidate is not None else list(args.pool)
    mode = "gauntlet" if args.candidate is not None else "pool"

    def arena() -> None:
        config = ArenaConfig(args.num_players, args.games, args.open_baskets, args.no_fighting, args.view, args.seed, args.batch_games)
        check_writable(args.out)  # before the games, not after them
        result = run(names, mode, config, args.out, replays=args.replays)
        print(table(result))
        print(f"{result.duplicate_sets} duplicate sets in {result.seconds:.1f} s; written to {args.out}/arena.json, arena.csv, arena.png")
        if args.replays:
            print(f"the first {min(args.replays, args.games)} games as replays: {args.out}/replays/ (python -m miaui_env.apps.replay FILE)")

    run_command(parser.prog, arena, interrupted="interrupted: nothing written")


if __name__ == "__main__":
    main()
