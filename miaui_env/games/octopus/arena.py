"""The arena for the octopus fishing game: duplicate sets, rotating seats, CIs and ratings, as every game's.

Fairness by construction (O11's stacked decks and dice). Games come in *duplicate sets* of
`num_players` games. A set's seed draws one shuffled deck order per session (`max_sessions` of
them: a game never needs more, O12), one die-roll tape (`MAX_ROLLS_PER_SESSION` faces a session:
at most one theft per octopus, O5) and the seed of the engine's generator (the theft draws). Every
game of the set is played on those same decks and that same tape, the lineup rotated one seat each
game, so every agent of the lineup plays every seat (and the first turn, O1) on the same cards and
rolls: the luck of the deal and the die cancels. The statistics treat each set as one observation.

Modes, statistics and files are every arena's (`miaui_env.core.arena`: `lineups`, `summarize`,
`gauntlet_significance`, `table`): per agent the win share (ties split, O9), the mean final total
and the mean rank with 95% CIs over duplicate sets, and a Plackett-Luce rating.

Views. An agent that says `view = "recall"` (the risk-aware baseline) is shown the recall view,
the others the table view (`--view`), each cut from the same game (O4).

From the command line:

    python -m miaui_env.apps.arena --game octopus --pool random cautious risk-aware --players 3
    python -m miaui_env.apps.arena --game octopus --candidate risk-aware --field cautious --players 2

It prints the table and writes arena.json, arena.csv and arena.png to `--out` (default
results/octopus-arena/). Miaui-only options (--open-baskets, --no-fighting, --replays) are refused.

Measured at seed 20261126 (never tuned on), 3000 games a run, about 3-4 minutes each on 2 shared cores:

    python -m miaui_env.apps.arena --game octopus --pool random cautious risk-aware --players 2 --games 3000 --seed 20261126
    python -m miaui_env.apps.arena --game octopus --pool random cautious risk-aware --players 3 --games 3000 --seed 20261126
    python -m miaui_env.apps.arena --game octopus --pool random cautious risk-aware --players 4 --games 3000 --seed 20261126

The results table is in `miaui_env.games.octopus.agents`' docstring: risk-aware wins the most at 2, 3
and 4 players, with 95% CIs apart from the cautious player's and random's.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from miaui_env.core import arena as stats
from miaui_env.core.agents import Agent, AgentError, Policy, as_agent, checked_actions
from miaui_env.core.arena import MODES, ArenaResult, check_result_size, table
from miaui_env.core.cli import check_writable, non_negative_int, positive_int, run_command
from miaui_env.core.errors import is_integer
from miaui_env.core.seeding import check_seed, seed_ints
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.agents import load_octopus_agents
from miaui_env.games.octopus.observation import Painter, check_view, observe_canvas
from miaui_env.games.octopus.rules import DIE_FACES, MAX_PLAYERS, MIN_PLAYERS, NUM_CARDS, NUM_OCTOPUSES, InvalidConfigError

MAX_ROLLS_PER_SESSION = NUM_OCTOPUSES  # O5: a theft follows an octopus, so at most 6 rolls a session
DEFAULT_MAX_SESSIONS = 30  # O12: the env's cap; random play ends in 3 or 4 sessions
MAX_ARENA_SESSIONS = 1_000  # O12's cap at most this (every game draws a deck order per session up front)
MIAUI_ONLY_OPTIONS = ("--open-baskets", "--no-fighting", "--replays")


@dataclass(frozen=True)
class OctopusArenaConfig:
    """Everything that decides an octopus arena run; the same config gives the same games and numbers."""

    num_players: int = 3
    """Seats at every table, 2-4 (O1)."""
    games: int = 3000
    """Games to play, rounded up to whole duplicate sets of `num_players` games."""
    view: str = "table"
    """The view of the agents that do not say which view they play from (O4)."""
    seed: int = 0
    """The seed of the duplicate sets' decks and dice (and, in `run`, of the agents)."""
    batch_games: int = 512
    """Games played in lockstep, so each agent acts on a batch."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    """O12's cap: sessions a game may last (and deck orders drawn per set)."""

    def __post_init__(self) -> None:
        n = self.num_players
        if not is_integer(n) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise InvalidConfigError(f"num_players={n!r} is not allowed; the octopus game is played by 2, 3 or 4 players (O1)")
        check_view(self.view)
        check_seed(self.seed)
        for name in ("games", "batch_games", "max_sessions"):
            value = getattr(self, name)
            if not is_integer(value) or value < 1:
                raise InvalidConfigError(f"OctopusArenaConfig {name}={value!r} is not allowed; it must be an integer >= 1")
        if self.max_sessions > MAX_ARENA_SESSIONS:  # each game draws its sessions' decks before play
            raise InvalidConfigError(
                f"OctopusArenaConfig max_sessions={self.max_sessions} is not allowed; at most {MAX_ARENA_SESSIONS} "
                f"(random play ends in 3 or 4 sessions)"
            )
        check_result_size(self.games, n, "OctopusArenaConfig", InvalidConfigError)


@dataclass(frozen=True)
class Deal:
    """One duplicate set's luck: a deck order per session (top first), the die tape, the theft-draw seed."""

    decks: tuple[tuple[int, ...], ...]
    dice: tuple[int, ...]
    engine_seed: int


def deal(set_seed: int, max_sessions: int) -> Deal:
    """The decks, dice and engine seed every game of a duplicate set shares, drawn from `set_seed`."""
    rng = np.random.default_rng(set_seed)
    decks = tuple(tuple(np.argsort(rng.random(NUM_CARDS), kind="stable").tolist()) for _ in range(max_sessions))
    faces = (rng.random(max_sessions * MAX_ROLLS_PER_SESSION) * len(DIE_FACES)).astype(np.int64)
    return Deal(decks, tuple(DIE_FACES[f] for f in faces), int(rng.integers(2**32)))


def scheduled_games(config: OctopusArenaConfig) -> int:
    """`config.games` rounded up to whole duplicate sets."""
    return math.ceil(config.games / config.num_players) * config.num_players


def schedule(mode: str, num_agents: int, config: OctopusArenaConfig) -> tuple[np.ndarray, np.ndarray]:
    """(games, num_players) agent index per seat, and each game's duplicate-set seed: sets in
    order, and within a set the lineup rotated one seat per game."""
    if mode not in MODES:
        raise InvalidConfigError(f"mode={mode!r} is not allowed; modes are {', '.join(MODES)}")
    least = 2 if mode == "gauntlet" else 1
    if num_agents < least:
        raise AgentError(f"a {mode} needs at least {least} agent(s), got {num_agents}")
    n = config.num_players
    sets = scheduled_games(config) // n
    base = stats.lineups(mode, num_agents, n, sets)
    seats = np.concatenate([np.roll(base, r, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)
    return seats, np.repeat(seed_ints(config.seed, sets), n)


def new_games(set_seeds: Sequence[int] | np.ndarray, config: OctopusArenaConfig) -> list[rules.OctopusState]:
    """A fresh game per entry, stacked with its duplicate set's deal."""
    games = []
    for set_seed in set_seeds:
        luck = deal(int(set_seed), config.max_sessions)
        games.append(
            rules.new_game(config.num_players, seed=luck.engine_seed, deck=luck.decks, dice=luck.dice, max_sessions=config.max_sessions)
        )
    return games


def play(
    agents: Sequence[Agent | Policy],
    mode: str,
    config: OctopusArenaConfig,
    progress: Callable[[int], object] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play the schedule; returns seats' agent indices, final totals and winners, each (games, num_players)."""
    entrants = [as_agent(agent) for agent in agents]
    seats, set_seeds = schedule(mode, len(entrants), config)
    views = [check_view(getattr(agent, "view", config.view)) for agent in entrants]
    n, total = config.num_players, len(seats)
    scores = np.zeros((total, n), dtype=np.int64)
    winners = np.zeros((total, n), dtype=bool)
    for start in range(0, total, config.batch_games):
        stop = min(start + config.batch_games, total)
        games = new_games(set_seeds[start:stop], config)
        painters = [Painter() for _ in games]
        for agent in entrants:
            agent.reset()
        live = [g for g, state in enumerate(games) if not state.is_over]
        while live:
            acting = np.array([seats[start + g, games[g].active] for g in live])
            for a, (agent, view) in enumerate(zip(entrants, views, strict=True)):
                mine = [g for g, who in zip(live, acting, strict=True) if who == a]
                if not mine:
                    continue
                observations = np.stack([observe_canvas(painters[g].canvas(games[g]), n, games[g].active, view) for g in mine])
                masks = np.stack([rules.action_mask(games[g]) for g in mine])
                for g, action in zip(mine, checked_actions(agent, observations, masks), strict=True):
                    rules.step(games[g], rules.decision_of(games[g], int(action)))
            still = [g for g in live if not games[g].is_over]
            if progress is not None and len(still) < len(live):
                progress(len(live) - len(still))
            live = still
        for g, state in enumerate(games):
            scores[start + g] = state.totals
            winners[start + g, list(rules.winners(state))] = True
    return seats, scores, winners


def run(
    names: list[str], mode: str, config: OctopusArenaConfig, out: Path | None, show_progress: bool = True
) -> ArenaResult[OctopusArenaConfig]:
    """Load the octopus agents `names` (built-ins, shipped policies, runs), play, summarize, write the files; the result."""
    from tqdm import tqdm

    agents = load_octopus_agents(names, config.seed)
    labels = [name if names.count(name) == 1 else f"{name}#{i}" for i, name in enumerate(names)]
    started = time.perf_counter()
    with tqdm(total=scheduled_games(config), unit=" games", desc="octopus arena", disable=not show_progress) as bar:
        seats, scores, winners = play(agents, mode, config, progress=bar.update)
    results = stats.summarize(labels, seats, scores, winners, config.num_players)
    significance = stats.gauntlet_significance(seats, winners, config.num_players, labels[0]) if mode == "gauntlet" else None
    result = ArenaResult(
        config, mode, results, significance, len(scores) // config.num_players, round(time.perf_counter() - started, 2), game="octopus"
    )
    if out is not None:
        write(result, out)
    return result


def gauntlet(names: list[str], num_players: int, games: int, seed: int, show_progress: bool) -> ArenaResult[OctopusArenaConfig]:
    """One octopus gauntlet: names[0] against copies of names[1] (the card's and the registry's `gauntlet` part)."""
    return run(names, "gauntlet", OctopusArenaConfig(num_players=num_players, games=games, seed=seed), None, show_progress)


def result_table(result: ArenaResult[OctopusArenaConfig]) -> str:
    """The results as every arena prints them (`miaui_env.core.arena.table`)."""
    return table(result)


def write(result: ArenaResult[OctopusArenaConfig], out: Path) -> None:
    """arena.json, arena.csv and arena.png under `out`, as every arena writes them."""
    games = result.duplicate_sets * result.config.num_players
    title = f"Octopus arena, {result.mode}: {result.config.num_players} players, {games} games"
    stats.write_results(result.as_dict(), result.agents, result.config.num_players, out, title, score="mean final total")


def main(argv: list[str] | None = None) -> None:
    """Parse the octopus arena's command line (what follows `--game octopus`) and run it."""
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog="miaui-arena --game octopus", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--candidate", help="gauntlet: the agent under test")
    who.add_argument("--pool", nargs="+", help="mixed tables over these agents")
    parser.add_argument("--field", nargs="+", default=["random"], help="gauntlet: the fixed opponents (cycled over the seats)")
    parser.add_argument("--players", "--num-players", dest="num_players", type=int, default=3, choices=range(MIN_PLAYERS, MAX_PLAYERS + 1))
    parser.add_argument("--games", type=positive_int, default=3000)
    parser.add_argument("--view", default="table", choices=["table", "recall"])
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--batch-games", type=positive_int, default=512, help="games played in lockstep")
    parser.add_argument("--max-sessions", type=positive_int, default=DEFAULT_MAX_SESSIONS, help="O12's session cap")
    parser.add_argument("--out", type=Path, default=Path("results/octopus-arena"))
    for option in MIAUI_ONLY_OPTIONS:  # taken only to refuse them by name
        parser.add_argument(option, dest=option.strip("-").replace("-", "_"), nargs="?", const=True, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    given = [option for option in MIAUI_ONLY_OPTIONS if getattr(args, option.strip("-").replace("-", "_")) is not None]
    if given:
        parser.error(f"{', '.join(given)}: Miaui-only option(s); the octopus game (--game octopus) has no such setting")

    names = [args.candidate, *args.field] if args.candidate is not None else list(args.pool)
    mode = "gauntlet" if args.candidate is not None else "pool"

    def arena() -> None:
        config = OctopusArenaConfig(args.num_players, args.games, args.view, args.seed, args.batch_games, args.max_sessions)
        check_writable(args.out)
        result = run(names, mode, config, args.out)
        print(result_table(result))
        print(f"{result.duplicate_sets} duplicate sets in {result.seconds:.1f} s; written to {args.out}/arena.json, arena.csv, arena.png")

    run_command(parser.prog, arena, interrupted="interrupted: nothing written")


__all__ = [
    "OctopusArenaConfig",
    "deal",
    "gauntlet",
    "main",
    "play",
    "result_table",
    "run",
    "schedule",
    "scheduled_games",
    "write",
]
