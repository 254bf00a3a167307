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

From the command line (`python -m miaui_env.apps.arena`, or `miaui-arena`: Miaui is its default game):

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
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from miaui_env.core import arena as stats
from miaui_env.core.agents import Agent, AgentError, Policy, as_agent, checked_actions
from miaui_env.core.arena import MODES, ArenaResult, check_result_size, table
from miaui_env.core.cli import add_game_argument, check_writable, non_negative_int, positive_int, run_command
from miaui_env.core.errors import InvalidConfigError, is_integer
from miaui_env.core.seeding import check_seed, seed_ints
from miaui_env.games.miaui.agents import as_seen, views_at_table
from miaui_env.games.miaui.agents.loading import load_agents
from miaui_env.games.miaui.replay import record_replay, save_replay
from miaui_env.games.miaui.rules import NUM_ROUNDS
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.miaui.vector import VectorMiaui


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
        check_result_size(self.games, self.num_players, "ArenaConfig")

    @classmethod
    def at_table(cls, table: TableSpec, *, games: int = 10_000, seed: int = 0, batch_games: int = 4096) -> ArenaConfig:
        """A run on `table`'s game and view. The arena pays by wins, scores and places whatever the
        table's reward, and shows agents float32 observations whatever its observation dtype."""
        if not isinstance(table, TableSpec):
            raise InvalidConfigError(f"ArenaConfig.at_table takes a miaui_env.games.miaui.spec.TableSpec, got {table!r:.60}")
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
    base = stats.lineups(mode, len(entrants), n, sets)
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
    results = stats.summarize(labels, seats, scores, winners, config.num_players)
    significance = stats.gauntlet_significance(seats, winners, config.num_players, labels[0]) if mode == "gauntlet" else None
    result = ArenaResult(config, mode, results, significance, len(scores) // config.num_players, round(time.perf_counter() - started, 2))
    if out is not None:
        write(result, out)
    return result


def write(result: ArenaResult[ArenaConfig], out: Path) -> None:
    """arena.json, arena.csv and arena.png under `out`."""
    variants = [v for v, on in (("Open Baskets", result.config.open_baskets), ("No Fighting", result.config.no_fighting)) if on]
    title = f"Miaui arena, {result.mode}: {result.config.num_players} players, {result.duplicate_sets * result.config.num_players} games"
    title += f" ({', '.join(variants)})" if variants else ""
    stats.write_results(result.as_dict(), result.agents, result.config.num_players, out, title)


def gauntlet(names: list[str], num_players: int, games: int, seed: int, show_progress: bool) -> ArenaResult[ArenaConfig]:
    """One Miaui gauntlet: names[0] against copies of names[1] (the card's and the registry's `gauntlet` part)."""
    return run(names, "gauntlet", ArenaConfig(num_players=num_players, games=games, seed=seed), None, show_progress)


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
