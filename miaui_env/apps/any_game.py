"""The arena, terminal play and replays of any registered game, played through its PettingZoo AEC env alone.

A game that gives only its env and its agents (`miaui_env.core.registry`: `PARTS`, and the env protocol in
that module's docstring) gets these as its `gauntlet`, `arena`, `play` and `replay` parts
(`GENERIC_PARTS`); every function here takes the game's registry entry first. Miaui and the octopus
game have their own, which deal from stacked decks and dice and play on batched engines.

    python -m miaui_env.apps.arena --game NAME --candidate match-the-prize --field random
    python -m miaui_env.apps.play --game NAME
    python -m miaui_env.apps.replay results/replays/NAME-<time>.json

Arena. Games come in duplicate sets, as in Miaui's arena: set k's games all start from
`reset(seed=s_k)` (s_k: slot seed k of `seeding.seed_ints(seed, sets)`), the lineup rotated one seat
a game, so every agent of the lineup plays every seat of that deal. The deal is shared as far as
the env draws its luck from the seed before the first decision (a deck shuffled at reset); luck it
draws later, after decisions that differ, differs too. Games are played in lockstep batches, so each
agent acts on a batch. Modes, statistics (win share, mean score and rank with 95% intervals over
sets, Plackett-Luce ratings, the gauntlet's test against the fair share) and files (arena.json,
arena.csv, arena.png under `--out`; `--replays N` the first N games as replays) are every
arena's (`miaui_env.core.arena`). Every seat is dealt one view (`--view`; by default the one the agents say they play from,
else the game's first), and an agent that plays from another is refused: the env deals one view
to every seat. An agent out before the game ends steps None (PettingZoo's convention), and its last
info holds its result (`Table`).

Replays hold the seed and every decision, and are checked when read: the decisions are played
again through the env, each must be legal, and the scores and winners must come out as written.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core import arena  # the statistics, table and files every game's arena shares
from miaui_env.core.agents import Agent, AgentError, Policy, agent_name, as_agent, checked_actions
from miaui_env.core.arena import ArenaResult
from miaui_env.core.cli import (
    add_game_argument,
    check_output_file,
    check_writable,
    non_negative_int,
    positive_int,
    read_answer,
    run_command,
)
from miaui_env.core.errors import InvalidConfigError, is_integer
from miaui_env.core.registry import Game, GameWords, get_game
from miaui_env.core.replays import ReplayError, read_replay_file, write_replay_file
from miaui_env.core.seeding import check_seed, seed_ints

REPLAY_VERSION = 1
MAX_REPLAY_DECISIONS = 1_000_000  # a replay longer than this is not a game's


class GameProtocolError(ValueError):
    """A game's env that does not keep the protocol the generic apps play by (miaui_env.core.registry)."""


class AnyGameReplayError(ReplayError):
    """A file that is not a replay of the game it names, or not one its env plays back."""


# -- playing games through the env ------------------------------------------------------------------


@dataclass(frozen=True)
class AnyArenaConfig:
    """Everything that decides a generic arena run; the same config gives the same games and numbers."""

    game: str
    """The registered game's name."""
    num_players: int
    games: int = 1000
    """Games to play, rounded up to whole duplicate sets of `num_players` games."""
    view: str | None = None
    """The view every seat is dealt; None: the one the agents say they play from, else the game's first (`table_view`)."""
    seed: int = 0
    batch_games: int = 256
    """Games played in lockstep, so each agent acts on a batch."""

    def __post_init__(self) -> None:
        game = get_game(self.game)
        if not is_integer(self.num_players) or self.num_players not in game.players:
            raise InvalidConfigError(
                f"num_players={self.num_players!r} is not allowed; {game.title} is played by {game.min_players}-{game.max_players} players"
            )
        if self.view is not None and self.view not in game.views:
            raise InvalidConfigError(f"view={self.view!r} is not allowed; {game.title}'s views are {', '.join(game.views)}")
        if check_seed(self.seed) is None:
            raise InvalidConfigError("AnyArenaConfig seed=None is not allowed; the arena's games are dealt from a seed (an integer >= 0)")
        for name in ("games", "batch_games"):
            value = getattr(self, name)
            if not is_integer(value) or value < 1:
                raise InvalidConfigError(f"AnyArenaConfig {name}={value!r} is not allowed; it must be an integer >= 1")
        arena.check_result_size(self.games, self.num_players, "AnyArenaConfig")

    @property
    def scheduled_games(self) -> int:
        """`games` rounded up to whole duplicate sets."""
        return math.ceil(self.games / self.num_players) * self.num_players


@dataclass
class PlayedGames:
    """What a schedule's games came to: (games, num_players) agent index per seat, final scores and
    winners; each game's seed, and its decisions in order for the first `kept` games."""

    seats: np.ndarray
    scores: np.ndarray
    winners: np.ndarray
    seeds: np.ndarray
    decisions: list[list[int]]
    view: str
    """The view every seat was dealt."""


class Table:
    """One game through its AEC env: who decides next (an agent that is out steps None on the way,
    PettingZoo's convention, its last info kept), and the result once the game is over."""

    def __init__(self, game: Game, env: Any):
        self.game, self.env = game, env
        self.left: dict[str, dict[str, Any]] = {}  # the last info of every agent that stepped out

    def to_decide(self) -> str | None:
        """The agent to decide now; None once the game is over."""
        env = self.env
        while env.agents:
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                return str(agent)
            if all(env.terminations[other] or env.truncations[other] for other in env.agents):
                return None  # every agent's result is in the infos
            self.left[agent] = dict(env.infos[agent])
            env.step(None)
            if agent in env.agents and env.agent_selection == agent:
                raise GameProtocolError(f"{self.game.title}'s env kept {agent}, which is out, after its step None")
        return None

    def results(self) -> tuple[list[float], list[bool]]:
        """Every seat's final score and whether it won (GameProtocolError if the infos do not say)."""
        infos = {**self.left, **{agent: self.env.infos[agent] for agent in self.env.agents}}
        return final_results(infos, self.env.possible_agents, self.game)


def final_results(infos: Any, agents: Sequence[str], game: Game) -> tuple[list[float], list[bool]]:
    """Every seat's final score and whether it won, from the agents' last infos."""
    try:
        last = [infos[agent] for agent in agents]
        scores, won = [float(info["score"]) for info in last], [bool(info["winner"]) for info in last]
    except (KeyError, TypeError, ValueError) as missing:
        raise GameProtocolError(
            f"{game.title}'s env ended a game without a number 'score' and a bool 'winner' in every agent's info ({missing!r:.60}); "
            "the generic apps read the result there (the protocol: miaui_env.core.registry)"
        ) from None
    if not any(won):
        raise GameProtocolError(f"{game.title}'s env ended a game with no winner in its infos")
    return scores, won


def table_view(game: Game, agents: Sequence[Agent | Policy], view: str | None) -> str:
    """The view a table deals every seat: `view`, else the one the agents say they play from, else the
    game's first; InvalidConfigError naming an agent that plays from another (the env deals one view)."""
    said = {str(agent.view) for agent in agents if hasattr(agent, "view")}
    chosen = view if view is not None else (said.pop() if len(said) == 1 else game.views[0])
    if chosen not in game.views:
        raise InvalidConfigError(f"view={chosen!r} is not allowed; {game.title}'s views are {', '.join(game.views)}")
    for agent in agents:
        own = getattr(agent, "view", chosen)
        if own != chosen:
            raise InvalidConfigError(f"agent {agent_name(agent)!r} plays from the {own!r} view; this table deals {chosen!r}")
    return chosen


def play_games(
    game: Game,
    agents: Sequence[Agent | Policy],
    seats: np.ndarray,
    seeds: np.ndarray,
    view: str | None = None,
    batch_games: int = 256,
    keep: int = 0,
    progress: Callable[[int], object] | None = None,
) -> PlayedGames:
    """Play game g with agent `seats[g, s]` in seat s, dealt by `reset(seed=seeds[g])`, `batch_games`
    at a time, every seat shown `view` (None: `table_view`'s choice)."""
    entrants = [as_agent(agent) for agent in agents]
    view = table_view(game, entrants, view)
    total, n = seats.shape
    scores, winners = np.zeros((total, n)), np.zeros((total, n), dtype=bool)
    decisions: list[list[int]] = [[] for _ in range(min(keep, total))]
    for start in range(0, total, batch_games):
        tables = {}
        for g in range(start, min(start + batch_games, total)):
            tables[g] = Table(game, game.env(num_players=n, view=view))
            tables[g].env.reset(seed=int(seeds[g]))
        for agent in entrants:
            agent.reset()
        while tables:
            waiting: dict[int, list[tuple[int, str]]] = {}
            for g, game_table in list(tables.items()):
                deciding = game_table.to_decide()
                if deciding is None:
                    scores[g], winners[g] = game_table.results()
                    del tables[g]
                    if progress is not None:
                        progress(1)
                    continue
                waiting.setdefault(int(seats[g, game_table.env.possible_agents.index(deciding)]), []).append((g, deciding))
            for a, mine in waiting.items():
                seen = [tables[g].env.observe(deciding) for g, deciding in mine]
                observations = np.stack([np.asarray(s["observation"], dtype=np.float32) for s in seen])
                masks = np.stack([np.asarray(s["action_mask"], dtype=np.int8) for s in seen])
                for (g, _), action in zip(mine, checked_actions(entrants[a], observations, masks).tolist(), strict=True):
                    tables[g].env.step(action)
                    if g < len(decisions):
                        decisions[g].append(action)
    return PlayedGames(seats, scores, winners, seeds, decisions, view)


def schedule(mode: str, num_agents: int, config: AnyArenaConfig) -> tuple[np.ndarray, np.ndarray]:
    """(games, num_players) agent index per seat and each game's seed: sets in order, the lineup rotated one seat a game."""
    if mode not in arena.MODES:
        raise InvalidConfigError(f"mode={mode!r} is not allowed; modes are {', '.join(arena.MODES)}")
    least = 2 if mode == "gauntlet" else 1
    if num_agents < least:
        raise AgentError(f"a {mode} needs at least {least} agent(s), got {num_agents}")
    n = config.num_players
    sets = config.scheduled_games // n
    base = arena.lineups(mode, num_agents, n, sets)
    seats = np.concatenate([np.roll(base, r, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)
    return seats, np.repeat(seed_ints(config.seed, sets), n)


def load_agents(game: Game, names: Sequence[str], seed: int) -> list[Agent]:
    """The game's agents `names`, each its own stream of `seed`."""
    return [game.load_agent(name, seed=seed * 1_000 + i) for i, name in enumerate(names)]


def run(
    game: Game, names: list[str], mode: str, config: AnyArenaConfig, out: Path | None, show_progress: bool = True, replays: int = 0
) -> ArenaResult[AnyArenaConfig]:
    """Load the agents, play, summarize, write the files (and the first `replays` games under `out`/replays/); the result."""
    from tqdm import tqdm

    agents = load_agents(game, names, config.seed)
    labels = [name if names.count(name) == 1 else f"{name}#{i}" for i, name in enumerate(names)]
    seats, seeds = schedule(mode, len(agents), config)
    started = time.perf_counter()
    with tqdm(total=len(seats), unit=" games", desc=f"{game.name} arena", disable=not show_progress) as bar:
        played = play_games(game, agents, seats, seeds, config.view, config.batch_games, replays if out else 0, bar.update)
    for g, decisions in enumerate(played.decisions):
        players = [labels[a] for a in seats[g]]
        replay = record(game, config.num_players, played.view, int(seeds[g]), players, decisions)
        save_replay(replay, out / "replays" / f"game-{g:04d}.json")  # type: ignore[operator]  # kept only with `out`
    results = arena.summarize(labels, seats, played.scores, played.winners, config.num_players)
    significance = arena.gauntlet_significance(seats, played.winners, config.num_players, labels[0]) if mode == "gauntlet" else None
    seconds = round(time.perf_counter() - started, 2)
    dealt = dataclasses.replace(config, view=played.view)  # the view every seat was dealt, as arena.json records it
    result = ArenaResult(dealt, mode, results, significance, len(seats) // config.num_players, seconds, game=game.name)
    if out is not None:
        title = f"{game.title} arena, {mode}: {config.num_players} players, {len(seats)} games"
        arena.write_results(result.as_dict(), result.agents, config.num_players, out, title)
    return result


def gauntlet(game: Game, names: list[str], num_players: int, games: int, seed: int, show_progress: bool) -> ArenaResult[AnyArenaConfig]:
    """One gauntlet: names[0] against copies of names[1] (the card's and the registry's `gauntlet` part)."""
    return run(game, names, "gauntlet", AnyArenaConfig(game.name, num_players, games, seed=seed), None, show_progress)


def arena_main(game: Game, argv: list[str] | None = None) -> None:
    """The game's arena command: `python -m miaui_env.apps.arena --game NAME ...`."""
    prog = f"miaui-arena --game {game.name}"
    parser = argparse.ArgumentParser(
        allow_abbrev=False, prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_game_argument(parser)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--candidate", help="gauntlet: the agent under test")
    who.add_argument("--pool", nargs="+", help="mixed tables over these agents")
    parser.add_argument("--field", nargs="+", default=[game.baselines[0]], help="gauntlet: the fixed opponents (cycled over the seats)")
    parser.add_argument("--players", "--num-players", dest="num_players", type=int, default=game.default_players, choices=game.players)
    parser.add_argument("--games", type=positive_int, default=1000)
    parser.add_argument(
        "--view", default=None, choices=game.views, help="the view every seat is dealt (default: the agents' own, else the first)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--batch-games", type=positive_int, default=256, help="games played in lockstep")
    parser.add_argument("--replays", type=non_negative_int, default=0, help="save the first N games as replays in --out/replays/")
    parser.add_argument("--out", type=Path, default=Path(f"results/{game.name}-arena"))
    args = parser.parse_args(argv)
    names = [args.candidate, *args.field] if args.candidate is not None else list(args.pool)
    mode = "gauntlet" if args.candidate is not None else "pool"

    def play_arena() -> None:
        config = AnyArenaConfig(game.name, args.num_players, args.games, args.view, args.seed, args.batch_games)
        check_writable(args.out)
        result = run(game, names, mode, config, args.out, replays=args.replays)
        print(arena.table(result))
        print(f"{result.duplicate_sets} duplicate sets in {result.seconds:.1f} s; written to {args.out}/arena.json, arena.csv, arena.png")
        if args.replays:
            print(f"the first {min(args.replays, result.duplicate_sets * args.num_players)} games as replays in {args.out}/replays/")

    run_command(prog, play_arena, interrupted="interrupted: nothing written")


# -- replays ----------------------------------------------------------------------------------------


def record(game: Game, num_players: int, view: str, seed: int, players: Sequence[str], decisions: Sequence[int]) -> dict[str, Any]:
    """A replay of a finished game: its table, seed, players and decisions, and the result they come to (checked by playing them)."""
    replay = {
        "game": game.name,
        "version": REPLAY_VERSION,
        "num_players": int(num_players),
        "view": view,
        "seed": int(seed),
        "players": [str(p) for p in players],
        "decisions": [int(d) for d in decisions],
    }
    replay["scores"], replay["winners"] = play_back(game, replay).results()
    return replay


def play_back(game: Game, replay: dict[str, Any], each: Callable[[Any, str, int], object] | None = None) -> Table:
    """The game after the replay's decisions (`each(env, agent, action)` before every one); AnyGameReplayError
    where one is illegal or the game and the decisions do not end together."""
    try:
        played = Table(game, game.env(num_players=replay["num_players"], view=replay["view"], render_mode="ansi"))
        played.env.reset(seed=replay["seed"])
    except ValueError as refused:
        raise AnyGameReplayError(f"its table cannot be dealt: {refused}") from None
    env, decisions = played.env, iter(enumerate(replay["decisions"]))
    while (agent := played.to_decide()) is not None:
        index, action = next(decisions, (None, None))
        if action is None:
            raise AnyGameReplayError(f"its {len(replay['decisions'])} decisions end before the game does ({agent} to act)")
        mask = np.asarray(env.observe(agent)["action_mask"])
        if not (is_integer(action) and 0 <= action < len(mask) and mask[action]):
            raise AnyGameReplayError(f"decision {index} ({agent}: action {action}) is not legal there")
        if each is not None:
            each(env, agent, int(action))
        env.step(int(action))
    if next(decisions, None) is not None:
        raise AnyGameReplayError(f"the game ends before its {len(replay['decisions'])} decisions do")
    return played


def _checked(game: Game, data: Any) -> dict[str, Any]:
    """A replay's JSON object, its fields checked against `game` and its decisions played back."""
    fields = ("game", "version", "num_players", "view", "seed", "players", "decisions", "scores", "winners")
    if not isinstance(data, dict) or set(data) != set(fields):
        raise AnyGameReplayError(f"not a {game.title} replay: a replay is a JSON object of exactly {', '.join(fields)}")
    if data["game"] != game.name or not is_integer(data["version"]) or data["version"] != REPLAY_VERSION:
        raise AnyGameReplayError(
            f"a replay of game {data['game']!r:.40}, version {data['version']!r:.20}; this is {game.name!r}, version {REPLAY_VERSION}"
        )
    n = data["num_players"]
    if not is_integer(n) or n not in game.players or data["view"] not in game.views:
        raise AnyGameReplayError(f"num_players={n!r:.20}, view={data['view']!r:.20}: not a table of {game.title}")
    if not is_integer(data["seed"]) or data["seed"] < 0:  # a replay without a seed would be checked against a fresh deal
        raise AnyGameReplayError(f"seed={data['seed']!r:.40}: a replay's seed is an integer >= 0")
    players, decisions = data["players"], data["decisions"]
    if not isinstance(players, list) or len(players) != n or not all(isinstance(p, str) for p in players):
        raise AnyGameReplayError(f"players must be {n} names")
    if not isinstance(decisions, list) or len(decisions) > MAX_REPLAY_DECISIONS or not all(is_integer(d) for d in decisions):
        raise AnyGameReplayError(f"decisions must be a list of at most {MAX_REPLAY_DECISIONS:,} action indices")
    scores, winners = play_back(game, data).results()
    if scores != data["scores"]:
        raise AnyGameReplayError(f"its decisions come to scores {scores}, not the {data['scores']!r:.60} it says")
    if winners != data["winners"]:
        raise AnyGameReplayError(f"its decisions come to winners {winners}, not the {data['winners']!r:.60} it says")
    return data


def replay_to_json(replay: dict[str, Any]) -> str:
    """A replay as its file's text."""
    return json.dumps(replay, indent=1) + "\n"


def replay_from_json(game: Game, text: str) -> dict[str, Any]:
    """A replay of `game` from its file's text, checked (its decisions played back); AnyGameReplayError if it is not one."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as bad:
        raise AnyGameReplayError(f"not JSON: {bad}") from None
    return _checked(game, data)


def save_replay(replay: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write the replay to `path` (folders made as needed), only if it reads back; returns the path."""
    _checked(get_game(replay.get("game", "")), replay)
    return write_replay_file(replay_to_json(replay), path, AnyGameReplayError)


def load_replay(game: Game, path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a replay of `game`; AnyGameReplayError naming the file if it is not one."""
    return read_replay_file(path, AnyGameReplayError, lambda text: replay_from_json(game, text))


def words_of(game: Game) -> GameWords | None:
    """The game's `words` part, None if it gives none (actions are then shown as numbers)."""
    return game.part("words") if "words" in game.parts else None


def history(game: Game, replay: dict[str, Any]) -> list[str]:
    """The replay in words: who sat where, every decision, the table after each change, the result."""
    words = words_of(game)
    lines = [f"{game.title}, {replay['num_players']} players, seed {replay['seed']}"]
    lines += [f"  player_{s}: {name}" for s, name in enumerate(replay["players"])]
    shown = [""]

    def tell(env: Any, agent: str, action: int) -> None:
        text = env.render()
        if text != shown[0]:
            lines.append(text)
            shown[0] = text
        lines.append(f"  {agent}: {words.action(action) if words else f'action {action}'}")

    lines.append(play_back(game, replay, tell).env.render())
    best = [f"player_{s}" for s, won in enumerate(replay["winners"]) if won]
    lines.append("Final scores: " + ", ".join(f"player_{s} {score:g}" for s, score in enumerate(replay["scores"])))
    lines.append(f"Won by {' and '.join(best)}")
    return lines


def replay_main(game: Game, argv: list[str] | None = None) -> None:
    """The game's replay command: print a replay's history."""
    prog = "python -m miaui_env.apps.replay"
    parser = argparse.ArgumentParser(allow_abbrev=False, prog=prog, description=f"Print a replay of {game.title}.")
    parser.add_argument("replay", type=Path, help="a replay file (JSON)")
    args = parser.parse_args(argv)
    run_command(prog, lambda: print("\n".join(history(game, load_replay(game, args.replay)))))


# -- terminal play ----------------------------------------------------------------------------------


def ask_action(words: GameWords | None, mask: np.ndarray, read: Callable[[str], str]) -> int | None:
    """The human's action, asked again until it is legal; None to quit (q or closed input)."""
    legal = np.flatnonzero(mask).tolist()
    for action in legal:
        print(f"  {action}: {words.action(action) if words else f'action {action}'}")
    while True:
        answer = read_answer(read, f"Your choice ({', '.join(map(str, legal))}), or q to quit: ")
        if answer is None:
            return None
        if answer.isascii() and answer.isdigit() and len(answer) <= 6 and int(answer) in legal:
            return int(answer)
        print(f"  {answer[:20]!r} is not a choice: type one of {', '.join(map(str, legal))}.")


def play(game: Game, args: argparse.Namespace, read: Callable[[str], str] = input) -> int:
    """One game in the terminal against the chosen agents (`python -m miaui_env.apps.play --game NAME`); the exit status."""
    words = game.part("words")  # GamePartError: terminal play needs the game in words
    if args.replay is not None:
        check_output_file(args.replay)  # before the game, not after it
    n, me = args.players, args.seat
    for spec in dict.fromkeys(args.opponents):  # every spec checked before any seat is filled
        game.load_agent(spec, seed=0)
    others = [(me + offset) % n for offset in range(1, n)]
    agents = {
        seat: game.load_agent(args.opponents[i % len(args.opponents)], seed=args.seed * 10 + seat + 1) for i, seat in enumerate(others)
    }
    view = table_view(game, list(agents.values()), args.view)  # the env deals every seat one view
    for seat in others:
        print(f"player_{seat}: {agent_name(agents[seat])}")
    print(f"You are player_{me} at a table of {n}.")
    print("\n".join(words.introduction(n, me)))
    played = Table(game, game.env(num_players=n, view=view))
    env = played.env
    env.reset(seed=args.seed)
    decisions: list[int] = []
    while (agent := played.to_decide()) is not None:
        seat, seen = env.possible_agents.index(agent), env.observe(agent)
        if seat == me:
            print("\n" + "\n".join(words.seat_view(env, agent)))
            action = ask_action(words, np.asarray(seen["action_mask"]), read)
            if action is None:
                print("Game abandoned.")
                return 0
        else:
            observation, mask = np.asarray(seen["observation"], np.float32)[None], np.asarray(seen["action_mask"], np.int8)[None]
            action = int(checked_actions(agents[seat], observation, mask)[0])
        decisions.append(action)
        env.step(action)
    scores, won = played.results()
    print("\n" + "\n".join(words.seat_view(env, env.possible_agents[me])))
    print("Final scores:")
    for seat, score in enumerate(scores):
        print(f"  player_{seat} ({'you' if seat == me else agent_name(agents[seat])}): {score:g}{'  winner' if won[seat] else ''}")
    print("You win!" if won[me] else "Better luck next time.")
    if args.replay is not None:
        players = ["you" if seat == me else agent_name(agents[seat]) for seat in range(n)]
        path = save_replay(record(game, n, view, args.seed, players, decisions), args.replay)
        print(f"The game is saved as a replay: {path} (python -m miaui_env.apps.replay {path})")
    return 0


__all__ = [
    "AnyArenaConfig",
    "AnyGameReplayError",
    "GameProtocolError",
    "PlayedGames",
    "arena_main",
    "final_results",
    "gauntlet",
    "history",
    "load_replay",
    "play",
    "play_back",
    "play_games",
    "record",
    "replay_from_json",
    "replay_main",
    "replay_to_json",
    "run",
    "save_replay",
    "schedule",
]
