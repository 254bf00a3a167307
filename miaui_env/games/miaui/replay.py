"""Replays: a whole game as versioned JSON that plays back bit for bit through the env.

A replay holds the game's table (`config`, a `GameConfig`: players and variants; the file's
`settings`), the deal (`seed`, the seed `reset` took, or `deck`, the 37 cards as dealt, put-back
card first: either one deals the game), who sat where (`players`), every round's diver cards by
seat (`plays`: the 11 chosen rounds; the engine plays round 12's forced card, R6), and what the
game made of them: every round's public record (`records`, as `saved_state` writes them), the
final `scores` and the `winners`. `replay_states` plays it back
through the rules and refuses (`ReplayError`) a replay whose cards are not legal or whose records
are not what the cards make: an edited card shows up as the first round that differs. The arena
saves sample games (`--replays N`), human play saves its game, and

    python -m miaui_env.apps.replay GAME.json [--gif OUT.gif [--seat K]]

prints the hand history and draws the game as an animated GIF, frame by frame (the spectator's
picture, or with `--seat K` seat K's view from its observations; `--seat` without `--gif` is refused; Pillow, the `render` extra).
The command (`miaui_env.apps.replay`) shows another game's replay in that game's words: the file's
`game` field picks its registry `replay` part.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core.errors import DeckError, IllegalActionError, InvalidConfigError, is_integer
from miaui_env.core.render import seat_name
from miaui_env.core.replays import ReplayError, read_replay_file, replay_parser, write_replay_file
from miaui_env.core.seeding import SeedError, check_seed, seed_generator
from miaui_env.games.miaui.cards import DEFAULT_DECK, parse_deck_order
from miaui_env.games.miaui.display.text import describe_round
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.rules import NUM_ROUNDS, GameConfig, GameState, new_game, play_round, scores, winners
from miaui_env.games.miaui.saved_state import record_to_dict
from miaui_env.games.miaui.spec import TableSpec

REPLAY_VERSION = 1
_KEYS = ("version", "settings", "players", "seed", "deck", "plays", "records", "scores", "winners")
_SETTINGS = ("num_players", "open_baskets", "no_fighting")  # the file's "settings": the GameConfig fields it records


@dataclass(frozen=True)
class Replay:
    """One game; see the module docstring. Build one with `record_replay`, read one with `load_replay`."""

    config: GameConfig
    players: tuple[str, ...]
    seed: int | None
    deck: tuple[str, ...] | None
    plays: tuple[tuple[int, ...], ...]
    records: tuple[dict[str, Any], ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


def dealt_deck(state: GameState) -> tuple[str, ...]:
    """The deck of a game not yet played as `reset(options={"deck": ...})` takes it: the put-back
    card, round 1's three cards (Seagulls already moved on, R4), then the rest, top first."""
    if state.history:
        raise InvalidConfigError(f"dealt_deck needs a game before its first round; this one is at round {state.round}")
    cards = [state.put_back] + [space[0].card for space in state.lagoon] + state.deck
    return tuple(str(state.card(card)) for card in cards)


def record_replay(config: GameConfig | TableSpec, plays: Any, *, seed: int | None = None, deck: Any = None, players: Any = None) -> Replay:
    """The replay of a game at the table `config` (its players and variants: a GameConfig or a
    TableSpec) dealt by `seed` or `deck` whose rounds were `plays` (11 rounds of a diver card 1-12
    per seat): played through the rules here, so its records are the game's."""
    config = _game_config(config)
    plays = _plays(plays)
    names = _player_names(players, config.num_players) if players is not None else tuple(seat_name(s) for s in range(config.num_players))
    states = _play_back(config, seed, None if deck is None else tuple(deck), plays)
    final = states[-1]
    return Replay(
        config,
        names,
        seed,
        None if deck is None else tuple(map(str, deck)),
        plays,
        tuple(record_to_dict(record) for record in final.history),
        tuple(int(total) for total in scores(final)),
        tuple(sorted(winners(final))),
    )


def _plays(plays: Any) -> tuple[tuple[int, ...], ...]:
    """The rounds' diver cards as ints; ReplayError for anything that is not a list of rounds of int cards."""
    if isinstance(plays, str | bytes | Mapping) or not isinstance(plays, list | tuple | np.ndarray):
        raise ReplayError(f"plays are a list of rounds, each a list of one diver card (1-12) per seat; got {plays!r:.60}")
    rounds = []
    for cards in plays:
        if isinstance(cards, str | bytes | Mapping) or not isinstance(cards, list | tuple | np.ndarray):
            raise ReplayError(f"a round's plays are a list of one diver card (1-12) per seat; got {cards!r:.60}")
        rounds.append(tuple(_card(card) for card in cards))
    return tuple(rounds)


def _player_names(players: Any, num_players: int) -> tuple[str, ...]:
    """One name (a string) per seat; ReplayError otherwise, since a replay with other names cannot be read back."""
    if isinstance(players, str) or not isinstance(players, list | tuple) or not all(isinstance(name, str) for name in players):
        raise ReplayError(f"players are a list of one name (a string) per seat; got {players!r:.80}")
    if len(players) != num_players:
        raise ReplayError(f"players names {len(players)} seats at a table of {num_players}; name every seat")
    return tuple(players)


def _ints(values: Any, field: str) -> tuple[int, ...]:
    """A list of JSON integers (not booleans, floats or strings); ReplayError naming `field` otherwise."""
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ReplayError(f"{field} are a list of integers; got {values!r:.80}")
    return tuple(values)


def _game_config(table: object) -> GameConfig:  # anything: what is not a table is refused by name
    """The GameConfig a replay records."""
    if isinstance(table, TableSpec):
        table = table.game
    if not isinstance(table, GameConfig):
        raise InvalidConfigError(f"record_replay takes the table as a GameConfig or a TableSpec; got {type(table).__name__}")
    if table.deck != DEFAULT_DECK or table.rounds != NUM_ROUNDS:
        raise InvalidConfigError("a replay file records 12-round games of R2's deck; this table plays a short game (MV1-MV3)")
    return table


def _settings_of(config: GameConfig) -> dict[str, Any]:
    """The file's `settings`: the table's players and variants."""
    return {key: getattr(config, key) for key in _SETTINGS}


def replay_states(replay: Replay) -> list[GameState]:
    """The game after its deal and after each chosen round (the last one includes the forced round
    12), played back through the rules; ReplayError if the replay is not the game it says."""
    if not isinstance(replay, Replay):
        raise ReplayError(f"a Miaui replay is a Replay (load_replay, record_replay), got {type(replay).__name__}")
    states = _play_back(replay.config, replay.seed, replay.deck, replay.plays)
    played = [record_to_dict(record) for record in states[-1].history]
    for index, (mine, theirs) in enumerate(zip(played, replay.records, strict=False)):
        if not isinstance(theirs, dict):
            raise ReplayError(f"round {index + 1}'s record is {theirs!r:.40}, not a round's record (a mapping of what the round did)")
        if mine != theirs:
            raise ReplayError(f"round {index + 1}'s record is not what its cards make: the replay was edited or is another game's")
    if len(played) != len(replay.records):
        raise ReplayError(f"the replay holds {len(replay.records)} round records; its cards make {len(played)}")
    final = states[-1]
    if tuple(scores(final)) != replay.scores or tuple(sorted(winners(final))) != replay.winners:
        raise ReplayError(f"the replay's scores {list(replay.scores)} and winners are not the game's: {scores(final)}")
    return states


def _play_back(config: GameConfig, seed: int | None, deck: tuple[str, ...] | None, plays: tuple[tuple[int, ...], ...]) -> list[GameState]:
    if seed is None and deck is None:
        raise ReplayError("a replay needs the deal: a seed or a deck")
    try:
        order = None if deck is None else parse_deck_order(list(deck), config.deck)
        # reset(seed=s) deals from seed s's generator (Gymnasium's np_random(s)); a stacked deck as
        # dealt needs none (round 1 holds no Seagull to move, R4), so a deck alone deals with seed 0's.
        rng = seed_generator(0 if seed is None else check_seed(seed))
        state = new_game(config, rng, order)
    except (DeckError, SeedError) as bad:
        raise ReplayError(f"the replay's deal cannot be dealt: {bad}") from bad
    if len(plays) != NUM_ROUNDS - 1:
        raise ReplayError(f"a replay holds the {NUM_ROUNDS - 1} chosen rounds of a whole game; this one holds {len(plays)}")
    states = [state.clone()]
    for round_number, cards in enumerate(plays, start=1):
        try:
            play_round(state, list(cards))
        except (IllegalActionError, ValueError) as bad:
            raise ReplayError(f"round {round_number}: {bad}") from bad
        states.append(state.clone())
    return states


# -- files -----------------------------------------------------------------------------------
def replay_to_json(replay: Replay) -> str:
    """The replay as JSON text (keys in a fixed order, version first)."""
    body = {
        "version": REPLAY_VERSION,
        "settings": _settings_of(replay.config),
        "players": list(replay.players),
        "seed": replay.seed,
        "deck": None if replay.deck is None else list(replay.deck),
        "plays": [list(cards) for cards in replay.plays],
        "records": list(replay.records),
        "scores": list(replay.scores),
        "winners": list(replay.winners),
    }
    return json.dumps(body, indent=1) + "\n"


def replay_from_json(text: str) -> Replay:
    """A replay from JSON text, played back and checked; ReplayError naming what is wrong."""
    try:
        data = json.loads(text)
    except RecursionError as bad:
        raise ReplayError("a replay is JSON nested a few levels deep; this is nested too deep to read") from bad
    except (ValueError, TypeError) as bad:  # ValueError also covers integers past Python's 4300-digit limit
        raise ReplayError(f"a replay is JSON; this is not ({bad!s:.200})") from bad
    if not isinstance(data, dict):
        raise ReplayError(f"a replay is a JSON object with keys {', '.join(_KEYS)}; got {type(data).__name__}")
    version = data.get("version")
    if type(version) is not int or version != REPLAY_VERSION:  # a bool or a float equal to 1 is no version
        raise ReplayError(f"replay format version {data.get('version')!r}; this library reads version {REPLAY_VERSION}")
    missing, unknown = sorted(set(_KEYS) - set(data)), sorted(set(data) - set(_KEYS))
    if missing or unknown:
        raise ReplayError(f"a replay has the keys {', '.join(_KEYS)}; missing {missing or 'none'}, unknown {unknown or 'none'}")
    settings = data["settings"]
    if not isinstance(settings, dict) or set(settings) != set(_SETTINGS):
        raise ReplayError(f"settings must hold exactly {', '.join(_SETTINGS)}; got {settings!r:.80}")
    try:
        config = GameConfig(**settings)
    except (TypeError, ValueError) as bad:
        raise ReplayError(f"the replay's settings are not a table: {bad}") from bad
    if not isinstance(data["deck"], list | None) or not isinstance(data["records"], list):
        raise ReplayError(f"deck is a list of cards or null, and records a list; got {data['deck']!r:.60} and {data['records']!r:.60}")
    replay = Replay(
        config,
        _player_names(data["players"], config.num_players),
        data["seed"],
        None if data["deck"] is None else tuple(data["deck"]),
        _plays(data["plays"]),
        tuple(data["records"]),
        _ints(data["scores"], "scores"),
        _ints(data["winners"], "winners"),
    )
    replay_states(replay)
    return replay


def _card(value: Any) -> int:
    """A play as an int; a bool, a float (3.9 is no card) or anything else is a ReplayError."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or isinstance(value, np.timedelta64):
        raise ReplayError(f"a play is a diver card 1-12, got {value!r:.60}; cards are ints")
    return int(value)


def save_replay(replay: Replay, path: str | os.PathLike[str]) -> Path:
    """Write the replay to `path` (folders made as needed); returns the path."""
    if not isinstance(replay, Replay):
        raise ReplayError(f"save_replay takes a Replay (from record_replay or load_replay); got {type(replay).__name__}")
    _player_names(replay.players, replay.config.num_players)  # a file load_replay would refuse is never written
    return write_replay_file(replay_to_json(replay), path, ReplayError)


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read and check a replay file; ReplayError naming the file if it is not one."""
    return read_replay_file(path, ReplayError, replay_from_json)


# -- hand history and pictures -----------------------------------------------------------------
def hand_history(replay: Replay) -> str:
    """The game in words: the table, who sat where, every reveal, the final scores."""
    states = replay_states(replay)
    config = replay.config
    variants = [name for name, on in (("Open Baskets", config.open_baskets), ("No Fighting", config.no_fighting)) if on]
    lines = [f"Miaui, {config.num_players} players" + (f" ({', '.join(variants)})" if variants else "")]
    lines += [f"  {seat_name(s)}: {name}" for s, name in enumerate(replay.players)]
    for record in states[-1].history:
        lines += describe_round(record)
    lines.append("final scores: " + ", ".join(f"{seat_name(s)} {total}" for s, total in enumerate(replay.scores)))
    lines.append("winners: " + ", ".join(f"{seat_name(s)} ({replay.players[s]})" for s in replay.winners))
    return "\n".join(lines)


def frames(replay: Replay, seat: int | None = None) -> list[np.ndarray]:
    """The game as pictures, one after the deal and one after each reveal: the spectator's, or
    seat `seat`'s view drawn from its observation."""
    from miaui_env.games.miaui.display.picture import seat_picture, table_picture

    states = replay_states(replay)
    if seat is None:
        return [table_picture(state) for state in states]
    n = replay.config.num_players
    if not is_integer(seat) or not 0 <= seat < n:
        raise InvalidConfigError(f"seat {seat!r:.40} is not at a table of {n}; seats are 0-{n - 1}, or None for the spectator")
    encoder = Encoder(replay.config, "table")
    pictures = []
    for state in states:
        encoder.refresh(state)
        pictures.append(seat_picture(encoder.observe(int(seat)), replay.config.num_players))
    return pictures


def write_gif(replay: Replay, path: str | os.PathLike[str], seat: int | None = None, seconds_per_frame: float = 1.5) -> Path:
    """An animated GIF of the game (`frames`), written to `path`."""
    from PIL import Image

    # GIF frame delays are whole milliseconds, 1 to 65,535 of them.
    if isinstance(seconds_per_frame, bool) or not isinstance(seconds_per_frame, int | float) or not 0.001 <= seconds_per_frame <= 65.535:
        raise ReplayError(f"seconds_per_frame={seconds_per_frame!r:.40} is not allowed; a GIF frame shows 0.001 to 65.535 seconds")
    images = [Image.fromarray(frame) for frame in frames(replay, seat)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(seconds_per_frame * 1000), loop=0)
    return path


def miaui_main(argv: list[str] | None = None) -> None:
    """Print a Miaui replay's hand history; draw it as a GIF with --gif."""
    from miaui_env.core.cli import run_command

    parser = replay_parser(__doc__ or "", "a replay file (JSON)")
    parser.add_argument("--gif", type=Path, default=None, help="also draw the game as an animated GIF here")
    parser.add_argument("--seat", type=int, default=None, help="with --gif: draw this seat's view (0-based) instead of the spectator's")
    args = parser.parse_args(argv)
    if args.seat is not None and args.gif is None:
        parser.error("--seat picks the seat whose view the GIF draws; give --gif OUT.gif with it")

    def show() -> None:
        replay = load_replay(args.replay)
        print(hand_history(replay))
        if args.gif is not None:
            print(f"written to {write_gif(replay, args.gif, args.seat)}")

    run_command(parser.prog, show)
