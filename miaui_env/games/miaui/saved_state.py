"""Game states as versioned JSON: a whole `rules.GameState`, history included, saved and read back.

    save_state(state, "game.json")     # written beside, then renamed over it: never half a file
    state = load_state("game.json")    # the same game, to play on with rules.play_round
    data = state_to_dict(state)        # the JSON-ready dict; state_from_dict(data) reads it back

A state round-trips exactly: every field of the loaded state equals the saved one, and play goes on
from it as from the original. Format version 1 (`STATE_FORMAT_VERSION`), one JSON object:

    version    1
    config     num_players (3-6), open_baskets, no_fighting, deck (its 37 cards as "kind:value", R2)
    round      the round to be played next, 1-12; 13 once the game is over
    deck       the undealt cards, top first                        | cards are indices into
    put_back   the card put back unseen (R3)                       | config.deck; these five
    lagoon     per space (bottom first), its cards oldest first,   | together hold each index
               each {"card", "peeker"}: the seat that saw it       | exactly once
               face-down (R5), or null                             |
    piles      per seat, its fish pile, bottom first               |
    box        the cards Seagulls and Jellyfish sent to the box    |
    hands      per seat, 12 flags: 1 for a diver card still in hand
    played     per seat, the diver cards played so far, in order
    history    one record per round played (`rules.RoundRecord`): round, plays, depths (depth
               "deepest" / "deep" / "shallow", best_card, contenders, winner, decision, fish as
               "kind:value"), events ({"type": "seagull_theft", "seat", "stolen": a card or null} or
               {"type": "jellyfish_triple", "seat", "cards"}, R9), deep_priority, shallow_priority (R1)

Reading checks the version first, then every key, type and range, that the cards are a permutation
of the deck, that the deck, lagoon, hands, played cards and history fit the round (R4: three cards
dealt a round; R6: one diver card played a round), and that the history's plays and tie orders agree
with `played` and R1. Then `check_reachable` refuses any state the rules cannot reach: no Seagull or
three Jellyfish in a pile (R9), no pile longer than the rounds allow (R7), no peek in round 1 (R5),
and the history replayed from round 1 (each space dealt the fish its records caught there, then what
it holds now) must give the same records, piles, box and peekers. Anything else is refused with
`StateFormatError`, naming the key, the value found and what is allowed; so is JSON nested too deep or
holding an integer too long for Python to read, and a path that names no file.

Pure logic like `rules`: it imports the cards and the rules, nothing above them.
"""

from __future__ import annotations

import json
import os
from typing import Any, NoReturn

import numpy as np

from miaui_env.core.errors import DeckError, InvalidConfigError
from miaui_env.core.files import file_path, read_bounded
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishCard, FishKind
from miaui_env.games.miaui.rules import (
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    NUM_SPACES,
    Decision,
    Depth,
    DepthResult,
    FishEvent,
    GameConfig,
    GameState,
    JellyfishTriple,
    LagoonCard,
    RoundRecord,
    SeagullTheft,
    deep_priority,
    play_round,
    shallow_priority,
)

STATE_FORMAT_VERSION = 1  # bump whenever the format below changes; reading refuses any other

_KEYS = ("version", "config", "round", "deck", "put_back", "lagoon", "hands", "piles", "played", "box", "history")
_CONFIG_KEYS = ("num_players", "open_baskets", "no_fighting", "deck")
_LAGOON_CARD_KEYS = ("card", "peeker")
_RECORD_KEYS = ("round", "plays", "depths", "events", "deep_priority", "shallow_priority")
_DEPTH_KEYS = ("depth", "best_card", "contenders", "winner", "decision", "fish")
_SEAGULL_THEFT, _JELLYFISH_TRIPLE = "seagull_theft", "jellyfish_triple"
_EVENT_KEYS = {_SEAGULL_THEFT: ("type", "seat", "stolen"), _JELLYFISH_TRIPLE: ("type", "seat", "cards")}
_DEPTH_NAMES = tuple(depth.name.lower() for depth in Depth)  # "deepest", "deep", "shallow"
_DECISIONS = tuple(decision.value for decision in Decision)
_SHOWN_LENGTH = 80  # a value named in an error is cut to this many characters


class StateFormatError(ValueError):
    """A saved state this library cannot read: another format version, or malformed."""


# -- writing -------------------------------------------------------------------------------------
def state_to_dict(state: GameState) -> dict[str, Any]:
    """The whole state as a JSON-ready dict (format `STATE_FORMAT_VERSION`); `state_from_dict` reads it back."""
    config = state.config
    if config.rounds != NUM_ROUNDS:
        raise InvalidConfigError(
            f"a saved state holds the full {NUM_ROUNDS}-round game; this one is a short game of {config.rounds} rounds (MV1), "
            "which the rules and OpenSpiel play but no file format holds"
        )
    return {
        "version": STATE_FORMAT_VERSION,
        "config": {
            "num_players": int(config.num_players),
            "open_baskets": config.open_baskets,
            "no_fighting": config.no_fighting,
            "deck": [str(card) for card in config.deck],
        },
        "round": int(state.round),
        "deck": [int(card) for card in state.deck],
        "put_back": int(state.put_back),
        "lagoon": [[{"card": int(lc.card), "peeker": _optional_int(lc.peeker)} for lc in space] for space in state.lagoon],
        "hands": [[int(flag) for flag in hand] for hand in state.hands],
        "piles": [[int(card) for card in pile] for pile in state.piles],
        "played": [[int(card) for card in cards] for cards in state.played],
        "box": [int(card) for card in state.box],
        "history": [record_to_dict(record) for record in state.history],
    }


def _optional_int(value: int | None) -> int | None:
    return None if value is None else int(value)


def record_to_dict(record: RoundRecord) -> dict[str, Any]:
    """A round's public record as JSON-able data (what saved states and replays hold)."""
    return {
        "round": int(record.round),
        "plays": [int(card) for card in record.plays],
        "depths": [
            {
                "depth": _DEPTH_NAMES[result.depth],
                "best_card": _optional_int(result.best_card),
                "contenders": [int(seat) for seat in result.contenders],
                "winner": _optional_int(result.winner),
                "decision": Decision(result.decision).value,
                "fish": [str(card) for card in result.fish],
            }
            for result in record.depths
        ],
        "events": [_event_to_dict(event) for event in record.events],
        "deep_priority": [int(seat) for seat in record.deep_priority],
        "shallow_priority": [int(seat) for seat in record.shallow_priority],
    }


def _event_to_dict(event: FishEvent) -> dict[str, Any]:
    if isinstance(event, SeagullTheft):
        return {"type": _SEAGULL_THEFT, "seat": int(event.seat), "stolen": None if event.stolen is None else str(event.stolen)}
    return {"type": _JELLYFISH_TRIPLE, "seat": int(event.seat), "cards": [str(card) for card in event.cards]}


def save_state(state: GameState, path: str | os.PathLike[str]) -> None:
    """Write the state to `path` as JSON, atomically: a reader sees the old file or the whole new one."""
    path = file_path(path, StateFormatError, "path")
    if not isinstance(state, GameState):
        raise StateFormatError(f"save_state saves a rules.GameState, got {type(state).__name__}")
    text = json.dumps(state_to_dict(state)) + "\n"
    if path.exists() and not path.is_file():  # the rename below would put a file in place of it
        raise StateFormatError(
            f"cannot save a state to {path}: it exists and is not a regular file (a folder, a device, a pipe or a socket)"
        )
    # Written beside its target, then renamed over it in one step (as miaui_env.core.files does, which
    # sits above the rules and so cannot be imported here).
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)
    except OSError as failed:
        raise StateFormatError(f"cannot save a state to {path}: {failed.strerror or failed}") from None
    finally:
        temporary.unlink(missing_ok=True)


MAX_STATE_BYTES = 1 << 20  # a saved state is a few kilobytes: a file past 1 MiB is no saved state


# -- reading -------------------------------------------------------------------------------------
def load_state(path: str | os.PathLike[str]) -> GameState:
    """Read a state that `save_state` wrote; StateFormatError, naming the file, if it is not one."""
    path = file_path(path, StateFormatError, "path")
    text = read_bounded(path, MAX_STATE_BYTES, StateFormatError, "a saved state")
    try:
        data = json.loads(text)
    except RecursionError:
        raise StateFormatError(f"{path} nests JSON too deeply to read; a saved state is one JSON object a few levels deep") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, and integers past Python's digit limit
        raise StateFormatError(f"{path} is not valid JSON ({str(error)[:_SHOWN_LENGTH]}); a saved state is one JSON object") from None
    try:
        return state_from_dict(data)
    except StateFormatError as error:
        raise StateFormatError(f"{path}: {error}") from None


def state_from_dict(data: Any) -> GameState:
    """The GameState a `state_to_dict` dict describes, every part checked (StateFormatError otherwise)."""
    if not isinstance(data, dict):
        _fail("the saved state", data, "it must be a JSON object (what state_to_dict writes)")
    if "version" not in data:
        raise StateFormatError(f"the saved state has no 'version' key; this library reads state format version {STATE_FORMAT_VERSION}")
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version != STATE_FORMAT_VERSION:
        raise StateFormatError(
            f"the saved state has format version {_shown(version)}; this library reads version {STATE_FORMAT_VERSION} only"
        )
    _object(data, "the saved state", _KEYS)
    config = _config(data["config"])
    round_number = _int(data["round"], "round", 1, NUM_ROUNDS + 1, " (the round to play next; 13 once the game is over)")
    if round_number == NUM_ROUNDS:
        _fail("round", round_number, "round 12 is played with round 11, its cards forced (R6): a saved state is at 1-11, or 13 once over")
    state = _Reader(config, round_number).state(data)
    check_reachable(state)
    return state


def check_reachable(state: GameState) -> None:
    """Refuse (StateFormatError) a state the rules cannot reach: its piles, box, lagoon and records must be
    what replaying its own history from round 1 with `rules.play_round` gives (R4-R9)."""
    deck = state.config.deck
    for seat, pile in enumerate(state.piles):
        kinds = [deck[card].kind for card in pile]
        if FishKind.SEAGULL in kinds:
            _fail(f"piles[{seat}]", _names(deck, pile), "a pile never holds a Seagull: it goes to the box as it lands (R9)")
        if kinds.count(FishKind.JELLYFISH) >= 3:
            _fail(f"piles[{seat}]", _names(deck, pile), "a pile never holds three Jellyfish: they go to the box together (R9)")
        if not state.config.no_fighting and len(pile) > len(state.history):
            _fail(
                f"piles[{seat}]",
                _names(deck, pile),
                f"a seat catches one fish a round at most (R7), so after {len(state.history)} rounds a pile holds as many at most",
            )
    for depth, space in enumerate(state.lagoon):
        for slot, lagoon_card in enumerate(space):
            if lagoon_card.peeker is not None and state.round == 1:
                _fail(
                    f"lagoon[{depth}][{slot}].peeker", lagoon_card.peeker, "it must be null in round 1: no Lantern has been caught yet (R5)"
                )
    replayed = _replayed(state)
    _compare(state, replayed)


def _first_difference(given: Any, expected: Any, where: str) -> tuple[str, Any, Any] | None:
    """The first place where two JSON-like values differ: its path and both values there; None if equal."""
    if isinstance(given, dict) and isinstance(expected, dict):
        for key in given:
            found = _first_difference(given[key], expected.get(key), f"{where}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(given, list) and isinstance(expected, list) and len(given) == len(expected):
        for i, (item, expected_item) in enumerate(zip(given, expected, strict=True)):
            found = _first_difference(item, expected_item, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    return None if given == expected else (where, given, expected)


def _names(deck: tuple[FishCard, ...], cards: list[int]) -> list[str]:
    return [str(deck[card]) for card in cards]


def _replayed(state: GameState) -> GameState:
    """The state that replaying `state.history` from round 1 gives, dealing each space the fish its records
    caught there and then what it holds now (the only deal that fits them, R4)."""
    deck, rounds_dealt = state.config.deck, min(state.round, NUM_ROUNDS)
    caught_pool: dict[FishCard, list[int]] = {}  # fish a record names -> the pile and box cards that can be it
    for card in [card for pile in state.piles for card in pile] + state.box:
        caught_pool.setdefault(deck[card], []).append(card)
    uncaught: list[str] = []  # fish the records name that no pile or box holds
    dealt: list[list[int]] = []  # per depth, the card dealt to it each round
    for depth in range(NUM_SPACES):
        cards = []
        for record in state.history:
            for i, fish in enumerate(record.depths[depth].fish):
                if caught_pool.get(fish):
                    cards.append(caught_pool[fish].pop())
                else:
                    uncaught.append(f"history[{record.round - 1}].depths[{depth}].fish[{i}] ({fish})")
        cards += [lagoon_card.card for lagoon_card in state.lagoon[depth]]
        dealt.append(cards)
    left_over = [card for cards in caught_pool.values() for card in cards]
    if left_over:
        names = ", ".join(f"{card} ({deck[card]})" for card in sorted(left_over))
        raise StateFormatError(
            f"piles and box hold cards {names}, which no history record caught; a card gets there only by a catch (R7, R9)"
        )
    if uncaught:
        raise StateFormatError(f"{', '.join(uncaught)} lie in no pile and not in the box; every fish caught stays in one or the other (R9)")
    for depth, cards in enumerate(dealt):
        if len(cards) != rounds_dealt:
            raise StateFormatError(
                f"the records catch and lagoon[{depth}] holds {len(cards)} cards of that space at round {state.round}; "
                f"one is dealt to it each round, so it must be {rounds_dealt} (R4)"
            )
    first_round = [cards[0] for cards in dealt]
    for depth, card in enumerate(first_round):
        if deck[card].kind is FishKind.SEAGULL:
            raise StateFormatError(f"round 1 dealt a Seagull ({deck[card]}) to lagoon[{depth}]; round 1 replaces Seagulls (R4)")
    later = [dealt[depth][r] for r in range(1, rounds_dealt) for depth in range(NUM_SPACES)]
    n = state.num_players
    replay = GameState(
        config=state.config,
        round=1,
        deck=later + list(state.deck),
        put_back=state.put_back,
        lagoon=[[LagoonCard(card)] for card in first_round],
        hands=np.ones((n, NUM_DIVER_CARDS), dtype=np.int8),
        piles=[[] for _ in range(n)],
        played=[[] for _ in range(n)],
    )
    for record in state.history:
        if replay.round == record.round:  # round 12 is played with round 11 (R6)
            play_round(replay, record.plays)
    return replay


def _compare(state: GameState, replayed: GameState) -> None:
    """Refuse `state` where it differs from its replay, naming the first part that differs."""
    deck = state.config.deck
    for i, (record, replayed_record) in enumerate(zip(state.history, replayed.history, strict=True)):
        difference = _first_difference(record_to_dict(record), record_to_dict(replayed_record), f"history[{i}]")
        if difference is not None:
            where, given, expected = difference
            _fail(
                where,
                given,
                f"replaying the plays gives {_shown(expected)} (R1, R7-R9: the best card wins each depth, fish land with their effects)",
            )
    for seat, (pile, replayed_pile) in enumerate(zip(state.piles, replayed.piles, strict=True)):
        if _names(deck, pile) != _names(deck, replayed_pile):
            _fail(f"piles[{seat}]", _names(deck, pile), f"replaying the history gives {_shown(_names(deck, replayed_pile))} (R7-R9)")
    if _names(deck, state.box) != _names(deck, replayed.box):
        _fail("box", _names(deck, state.box), f"replaying the history gives {_shown(_names(deck, replayed.box))}: only R9's events fill it")
    for depth, (space, replayed_space) in enumerate(zip(state.lagoon, replayed.lagoon, strict=True)):
        peekers = [lagoon_card.peeker for lagoon_card in space]
        replayed_peekers = [lagoon_card.peeker for lagoon_card in replayed_space]
        if peekers != replayed_peekers:
            _fail(
                f"lagoon[{depth}] peekers",
                peekers,
                f"replaying the history gives {_shown(replayed_peekers)}: only a Lantern catcher peeks at the next card there (R5)",
            )


class _Reader:
    """Reads the parts of one saved state that depend on its config and round."""

    def __init__(self, config: GameConfig, round_number: int):
        self.config, self.round, self.n = config, round_number, config.num_players
        self.rounds_played = round_number - 1
        self.cards = {card: card for card in config.deck}  # parsed cards -> the deck's own instances
        self.places: dict[int, str] = {}  # card index -> where it was read, to catch a card in two places

    def state(self, data: dict[str, Any]) -> GameState:
        """The whole state: cards first (the permutation), then hands, plays and history against them."""
        dealt = NUM_SPACES * min(self.round, NUM_ROUNDS)
        deck = self.card_list(data["deck"], "deck", "undealt cards, top first")
        if len(deck) != len(self.config.deck) - 1 - dealt:
            raise StateFormatError(
                f"deck holds {len(deck)} cards at round {self.round}; it must hold {len(self.config.deck) - 1 - dealt} "
                f"(the deck less the card put back, R3, and {NUM_SPACES} cards dealt each round up to this one, R4)"
            )
        put_back = self.card(data["put_back"], "put_back")
        lagoon = self.lagoon(data["lagoon"])
        piles = [self.card_list(pile, f"piles[{seat}]", "cards, bottom first") for seat, pile in self.per_seat(data["piles"], "piles")]
        box = self.card_list(data["box"], "box", "cards sent to the box")
        missing = sorted(set(range(len(self.config.deck))) - set(self.places))
        if missing:
            names = ", ".join(f"{index} ({self.config.deck[index]})" for index in missing)
            raise StateFormatError(
                f"cards {names} are nowhere; deck, put_back, lagoon, piles and box together hold each of the "
                f"{len(self.config.deck)} cards of config.deck exactly once"
            )
        played = [self.played(cards, f"played[{seat}]") for seat, cards in self.per_seat(data["played"], "played")]
        hands = self.hands(data["hands"], played)
        history = self.history(data["history"], played)
        return GameState(
            config=self.config,
            round=self.round,
            deck=deck,
            put_back=put_back,
            lagoon=lagoon,
            hands=hands,
            piles=piles,
            played=played,
            box=box,
            history=history,
        )

    # -- cards ---------------------------------------------------------------------------------
    def card(self, value: Any, where: str) -> int:
        """A deck index, recorded as being at `where`; a second place for it is refused."""
        index = _int(value, where, 0, len(self.config.deck) - 1, " (an index into config.deck)")
        if index in self.places:
            raise StateFormatError(
                f"{where} is card {index} ({self.config.deck[index]}), which {self.places[index]} already holds; "
                "deck, put_back, lagoon, piles and box together hold each card exactly once"
            )
        self.places[index] = where
        return index

    def card_list(self, value: Any, where: str, what: str) -> list[int]:
        """A list of deck indices (see `card`)."""
        return [self.card(item, f"{where}[{i}]") for i, item in enumerate(_list(value, where, what))]

    def fish(self, value: Any, where: str) -> FishCard:
        """A card named in a record, written kind:value: one of config.deck's cards."""
        allowed = 'it must be a card of config.deck written kind:value (e.g. "tigerfish:7")'
        if not isinstance(value, str):
            _fail(where, value, allowed)
        try:
            card = FishCard.parse(value)
        except DeckError as error:
            raise StateFormatError(f"{where}: {error}") from None
        if card not in self.cards:
            _fail(where, value, f"{allowed}; config.deck has no such card")
        return self.cards[card]

    def lagoon(self, value: Any) -> list[list[LagoonCard]]:
        """The three spaces, each its cards oldest first, as many as the round allows (R4, R7, R8)."""
        spaces = _list(value, "lagoon", "spaces, bottom first", length=NUM_SPACES)
        lagoon = []
        for depth, raw_space in enumerate(spaces):
            where = f"lagoon[{depth}]"
            space = _list(raw_space, where, "cards, oldest first")
            fewest, most, why = self.space_sizes()
            if not fewest <= len(space) <= most:
                raise StateFormatError(f"{where} holds {len(space)} cards at round {self.round}; {why}")
            cards = []
            for slot, raw in enumerate(space):
                item = _object(raw, f"{where}[{slot}]", _LAGOON_CARD_KEYS)
                card = self.card(item["card"], f"{where}[{slot}].card")
                peeker = self.optional_seat(item["peeker"], f"{where}[{slot}].peeker", "face-up; a seat: who saw it face-down, R5")
                cards.append(LagoonCard(card, peeker))
            lagoon.append(cards)
        return lagoon

    def space_sizes(self) -> tuple[int, int, str]:
        """How many cards a space may hold now: the fewest, the most, and why."""
        if not self.config.no_fighting:
            if self.round > NUM_ROUNDS:
                return 0, 0, "it must hold none once the game is over (R7: every space is caught each round)"
            return 1, 1, "it must hold exactly 1 (R4 deals one a round and R7 catches every space)"
        if self.round > NUM_ROUNDS:
            return 0, NUM_ROUNDS, f"it may hold at most {NUM_ROUNDS} (one dealt a round, R4, R8)"
        return 1, self.round, f"it must hold from 1 (this round's card, R4) to {self.round} (one dealt a round, R8)"

    # -- seats, hands and plays ----------------------------------------------------------------
    def seat(self, value: Any, where: str, also: str = "") -> int:
        """A seat 0..n-1 (`also`: what else is allowed, for the error to say)."""
        return _int(value, where, 0, self.n - 1, f" (a seat of this {self.n}-player game){also}")

    def optional_seat(self, value: Any, where: str, null_means: str) -> int | None:
        """A seat, or None for a JSON null (`null_means` says what null stands for)."""
        return None if value is None else self.seat(value, where, f", or null ({null_means})")

    def seats(self, value: Any, where: str) -> tuple[int, ...]:
        """A list of seats."""
        return tuple(self.seat(item, f"{where}[{i}]") for i, item in enumerate(_list(value, where, "seats")))

    def per_seat(self, value: Any, where: str) -> list[tuple[int, Any]]:
        """A list with one entry per seat, numbered."""
        return list(enumerate(_list(value, where, f"entries, one per seat (config.num_players is {self.n})", length=self.n)))

    def played(self, value: Any, where: str) -> list[int]:
        """A seat's diver cards played so far: one a round (R6), each at most once."""
        cards = _list(value, where, "diver cards (1-12), in the order played")
        if len(cards) != self.rounds_played:
            raise StateFormatError(
                f"{where} lists {len(cards)} diver cards at round {self.round}; it must list {self.rounds_played} (one a round played, R6)"
            )
        played = [_int(card, f"{where}[{i}]", 1, NUM_DIVER_CARDS, " (a diver card)") for i, card in enumerate(cards)]
        for i, card in enumerate(played):
            if card in played[:i]:
                raise StateFormatError(f"{where}[{i}] is diver card {card} again; each diver card is played at most once (R6)")
        return played

    def hands(self, value: Any, played: list[list[int]]) -> np.ndarray:
        """Every seat's 12 flags, 1 exactly for the diver cards that seat has not played."""
        hands = np.zeros((self.n, NUM_DIVER_CARDS), dtype=np.int8)
        for seat, raw in self.per_seat(value, "hands"):
            row = _list(raw, f"hands[{seat}]", "flags (0 or 1), one per diver card 1-12", length=NUM_DIVER_CARDS)
            for action, flag in enumerate(row):
                where = f"hands[{seat}][{action}]"
                if isinstance(flag, bool) or not isinstance(flag, int) or flag not in (0, 1):
                    _fail(where, flag, f"it must be 0 or 1 (1: diver card {action + 1} is in hand)")
                if flag == (action + 1 in played[seat]):
                    listed = "lists" if flag else "does not list"
                    _fail(where, flag, f"played[{seat}] {listed} diver card {action + 1}; a card is in hand exactly when it is not played")
                hands[seat, action] = flag
        return hands

    # -- history -------------------------------------------------------------------------------
    def history(self, value: Any, played: list[list[int]]) -> list[RoundRecord]:
        """One record per round played, in order, agreeing with `played` and R1."""
        records = _list(value, "history", "round records, oldest first")
        if len(records) != self.rounds_played:
            raise StateFormatError(
                f"history holds {len(records)} round records at round {self.round}; "
                f"it must hold {self.rounds_played} (one per round played)"
            )
        return [self.record(raw, f"history[{i}]", i + 1, [cards[i] for cards in played]) for i, raw in enumerate(records)]

    def record(self, value: Any, where: str, round_number: int, plays: list[int]) -> RoundRecord:
        """One round's record (rules.RoundRecord)."""
        raw = _object(value, where, _RECORD_KEYS)
        if _int(raw["round"], f"{where}.round", 1, NUM_ROUNDS) != round_number:
            _fail(f"{where}.round", raw["round"], f"record {where} is round {round_number}'s (one record per round, in order)")
        raw_plays = _list(raw["plays"], f"{where}.plays", "diver cards, one per seat", length=self.n)
        record_plays = tuple(_int(card, f"{where}.plays[{s}]", 1, NUM_DIVER_CARDS, " (a diver card)") for s, card in enumerate(raw_plays))
        if list(record_plays) != plays:
            _fail(f"{where}.plays", raw["plays"], f"played says the seats played {plays} in round {round_number}")
        depths = _list(raw["depths"], f"{where}.depths", f"depth results ({', '.join(_DEPTH_NAMES)})", length=NUM_SPACES)
        d0, d1, d2 = (self.depth(item, f"{where}.depths[{i}]", Depth(i)) for i, item in enumerate(depths))
        events = tuple(self.event(item, f"{where}.events[{i}]") for i, item in enumerate(_list(raw["events"], f"{where}.events", "events")))
        priorities = []
        for key, order in (("deep_priority", deep_priority), ("shallow_priority", shallow_priority)):
            # R1's tie orders follow from the round; No Fighting has no Kiti and records none (R8).
            expected = () if self.config.no_fighting else order(round_number, self.n)
            given = self.seats(raw[key], f"{where}.{key}")
            if given != expected:
                why = (
                    "No Fighting has no Kiti (R8)"
                    if self.config.no_fighting
                    else f"R1's order in round {round_number} of a {self.n}-player game"
                )
                _fail(f"{where}.{key}", raw[key], f"it must be {list(expected)}: {why}")
            priorities.append(given)
        return RoundRecord(round_number, record_plays, (d0, d1, d2), events, priorities[0], priorities[1])

    def depth(self, value: Any, where: str, depth: Depth) -> DepthResult:
        """One depth's result, listed in resolution order (R7)."""
        raw = _object(value, where, _DEPTH_KEYS)
        if raw["depth"] != _DEPTH_NAMES[depth]:
            order = ", ".join(_DEPTH_NAMES)
            _fail(f"{where}.depth", raw["depth"], f'the depths are listed {order}, so this one is "{_DEPTH_NAMES[depth]}"')
        best = raw["best_card"]
        best_card = None if best is None else _int(best, f"{where}.best_card", 1, NUM_DIVER_CARDS, " (a diver card), or null")
        winner = self.optional_seat(raw["winner"], f"{where}.winner", "nobody caught")
        if raw["decision"] not in _DECISIONS:
            _fail(f"{where}.decision", raw["decision"], f"it must be one of {', '.join(map(json.dumps, _DECISIONS))}")
        fish = tuple(self.fish(card, f"{where}.fish[{i}]") for i, card in enumerate(_list(raw["fish"], f"{where}.fish", "cards caught")))
        contenders = self.seats(raw["contenders"], f"{where}.contenders")
        return DepthResult(depth, best_card, contenders, winner, Decision(raw["decision"]), fish)

    def event(self, value: Any, where: str) -> FishEvent:
        """A Seagull theft or a Jellyfish triple (R9)."""
        types = ", ".join(map(json.dumps, _EVENT_KEYS))
        if not isinstance(value, dict) or "type" not in value:
            _fail(where, value, f"it must be an object whose key 'type' is one of {types}")
        kind = value["type"]
        if kind not in _EVENT_KEYS:
            _fail(f"{where}.type", kind, f"it must be one of {types}")
        raw = _object(value, where, _EVENT_KEYS[kind])
        seat = self.seat(raw["seat"], f"{where}.seat")
        if kind == _SEAGULL_THEFT:
            stolen = raw["stolen"]
            return SeagullTheft(seat, None if stolen is None else self.fish(stolen, f"{where}.stolen"))
        c0, c1, c2 = (
            self.fish(card, f"{where}.cards[{i}]")
            for i, card in enumerate(_list(raw["cards"], f"{where}.cards", "the Jellyfish sent to the box", length=3))
        )
        return JellyfishTriple(seat, (c0, c1, c2))


# -- checks shared by every part -----------------------------------------------------------------
def _config(value: Any) -> GameConfig:
    """The game's settings and deck, checked as GameConfig checks them."""
    raw = _object(value, "config", _CONFIG_KEYS)
    names = _list(raw["deck"], "config.deck", 'cards written kind:value (e.g. "tigerfish:7")')
    cards = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            _fail(f"config.deck[{i}]", name, 'it must be a card written kind:value (e.g. "tigerfish:7")')
        try:
            cards.append(FishCard.parse(name))
        except DeckError as error:
            raise StateFormatError(f"config.deck[{i}]: {error}") from None
    # The default deck is read back as DEFAULT_DECK itself: its cards are then the very objects other
    # configs and records hold, which compare by identity (the batched engine checks 37 of them a state).
    deck = DEFAULT_DECK if tuple(cards) == DEFAULT_DECK else tuple(cards)
    try:
        return GameConfig(raw["num_players"], raw["open_baskets"], raw["no_fighting"], deck)
    except InvalidConfigError as error:
        raise StateFormatError(f"config: {error}") from None


def _shown(value: Any) -> str:
    """A value as JSON writes it (null, true, "text"), cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."


def _fail(where: str, value: Any, allowed: str) -> NoReturn:
    raise StateFormatError(f"{where} is {_shown(value)}; {allowed}")


def _object(value: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """`value` as a JSON object holding exactly `keys`."""
    if not isinstance(value, dict):
        _fail(where, value, f"it must be an object with keys {', '.join(keys)}")
    missing = [key for key in keys if key not in value]
    if missing:
        raise StateFormatError(f"{where} has no key {missing[0]!r}; its keys are {', '.join(keys)}")
    unknown = [key for key in value if key not in keys]
    if unknown:
        raise StateFormatError(f"{where} has unknown key {unknown[0]!r}; its keys are {', '.join(keys)}")
    return value


def _list(value: Any, where: str, what: str, length: int | None = None) -> list[Any]:
    """`value` as a JSON list (of `length` items, if given)."""
    if not isinstance(value, list):
        _fail(where, value, f"it must be a list of {what}")
    if length is not None and len(value) != length:
        raise StateFormatError(f"{where} holds {len(value)} items; it must hold {length}: {what}")
    return value


def _int(value: Any, where: str, low: int, high: int, what: str = "") -> int:
    """`value` as an integer from `low` to `high` (JSON true and false are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(where, value, f"it must be an integer from {low} to {high}{what}")
    return value
