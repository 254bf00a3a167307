"""The Miaui rules engine: pure game logic, no RL library (rulings R1-R11: docs/rules/miaui.md).

A game is a mutable `GameState` driven by two functions:

    state = new_game(GameConfig(num_players=4), rng)        # R3 setup, R4 round-1 restock
    records = play_round(state, [9, 9, 9, 7])               # the joint action: one diver card a seat

`play_round` takes every seat's card at once (the choices are simultaneous, R6), resolves the three
depths (R7/R8), lands the fish with their effects (R9), moves Kiti and restocks (R4/R5). When only
the forced last card is left (round 12) it plays that round too, so a game is 11 decisions a seat.
Each resolved round comes back as a frozen `RoundRecord`: who played what, who caught what at each
depth, which tie-break decided, and every Seagull theft and Jellyfish triple.

`state.clone()` is an independent copy to play on (a search plays thousands of them), and
`miaui_env.games.miaui.saved_state` writes a state, history included, as versioned JSON and reads it back.

Cards inside the state are indices into `config.deck`, so equal-looking cards stay distinct and the
batched engine can mirror the state as integer arrays. Records speak in `FishCard`s.

`GameConfig(rounds=..., deck=...)` with fewer than 12 rounds is a short game (MV1-MV3): hands of
cards 1..rounds and a deck of 3 x rounds + 1 fish, small enough for exact tools (the OpenSpiel
bridge, `python -m training.exact`). Everything else in the library plays the 12-round game.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from miaui_env.core.errors import DeckError, IllegalActionError, InvalidConfigError, is_integer
from miaui_env.games.miaui.cards import DEFAULT_DECK, MAX_FISH_VALUE, FishCard, FishKind

MIN_PLAYERS = 3
MAX_PLAYERS = 6
NUM_ROUNDS = 12
NUM_DIVER_CARDS = 12  # diver cards 1..12; the env's action a plays card a + 1
NUM_SPACES = 3
DECK_SIZE = NUM_ROUNDS * NUM_SPACES + 1  # R3: 36 dealt + 1 put back unseen
MIN_ROUNDS = 2  # a short game (MV1) keeps at least one free choice before the forced last card


def deck_size(rounds: int) -> int:
    """R3/MV2: the cards a game of `rounds` rounds is dealt from (3 a round, and 1 put back unseen)."""
    return rounds * NUM_SPACES + 1


class Depth(enum.IntEnum):
    """The three lagoon spaces, in the order they are resolved (R7)."""

    DEEPEST = 0  # bottom space: the highest card
    DEEP = 1  # middle space: the highest remaining card
    SHALLOW = 2  # top space: the lowest remaining card


_DEPTHS = tuple(Depth)  # iterating the tuple is much cheaper than iterating the enum


class Decision(enum.StrEnum):
    """How a depth was decided."""

    SOLE_BEST = "sole_best"  # one player held the best card
    KITI = "kiti"  # tied best cards; Kiti's priority chose (R1)
    NO_FIGHTING = "no_fighting"  # tied best cards in No Fighting: nobody catches, the tied are out (R8)
    NOBODY_LEFT = "nobody_left"  # No Fighting: no player was still in the round (R8)


@dataclass(frozen=True)
class GameConfig:
    """The settings of one game."""

    num_players: int = 4
    open_baskets: bool = False
    no_fighting: bool = False
    deck: tuple[FishCard, ...] = DEFAULT_DECK
    rounds: int = NUM_ROUNDS
    """Rounds, and diver cards in each hand (1..rounds): fewer than 12 is a short game (MV1), dealt
    from a deck of 3 x rounds + 1 cards (MV2). Played by these rules, the envs, the batched engine and
    the OpenSpiel bridge; saved states, replays and the arena hold the 12-round game only."""

    def __deepcopy__(self, memo: dict[int, object]) -> GameConfig:
        return self  # immutable, deck included: a deep copy (OpenSpiel clones states so) shares it

    def __post_init__(self) -> None:
        if not is_integer(self.num_players):
            raise InvalidConfigError(f"num_players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, got {self.num_players!r}")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise InvalidConfigError(
                f"num_players={self.num_players} is not allowed; Miaui is played by "
                f"{', '.join(map(str, range(MIN_PLAYERS, MAX_PLAYERS + 1)))} players"
            )
        for name in ("open_baskets", "no_fighting"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not is_integer(self.rounds) or not MIN_ROUNDS <= self.rounds <= NUM_ROUNDS:
            raise InvalidConfigError(f"rounds={self.rounds!r:.40} is not allowed; a game has {MIN_ROUNDS}-{NUM_ROUNDS} rounds (MV1)")
        object.__setattr__(self, "rounds", int(self.rounds))  # a numpy integer is kept as the int it is
        object.__setattr__(self, "num_players", int(self.num_players))  # (uint8 arithmetic would wrap R1's seat orders)
        size = deck_size(self.rounds)
        if isinstance(self.deck, str | bytes) or not isinstance(self.deck, Sequence):
            raise InvalidConfigError(f"deck must be a sequence of {size} FishCards, got {self.deck!r:.60}")
        object.__setattr__(self, "deck", tuple(self.deck))  # a list given is kept as the tuple a frozen config holds
        for card in self.deck:
            well_formed = isinstance(card, FishCard) and isinstance(card.kind, FishKind)
            if not well_formed or isinstance(card.value, bool) or not isinstance(card.value, int):
                raise InvalidConfigError(f"deck card {card!r:.60} is not a FishCard of a FishKind and an integer value (R2)")
            if not -MAX_FISH_VALUE <= card.value <= MAX_FISH_VALUE:
                raise InvalidConfigError(f"deck card {card} is worth {card.value}; a fish is worth -{MAX_FISH_VALUE} to {MAX_FISH_VALUE}")
        if len(self.deck) != size:
            short = "" if self.rounds == NUM_ROUNDS else f" for {self.rounds} rounds (MV2: 3 a round and 1 put back)"
            raise InvalidConfigError(f"a deck must hold {size} cards{short} (R3), got {len(self.deck)}")
        if sum(c.kind is not FishKind.SEAGULL for c in self.deck) <= NUM_SPACES:
            # Round 1 replaces Seagulls (R4): even after the put-back, 3 other fish must remain.
            raise InvalidConfigError(f"the deck needs at least {NUM_SPACES + 1} cards that are not Seagulls (R4)")


# Records are NamedTuples: immutable and typed like frozen dataclasses, and cheap enough to build
# several per round on the AEC hot path.
class SeagullTheft(NamedTuple):
    """R9: a Seagull landed; it and the pile's top card (if any) went to the box."""

    seat: int
    stolen: FishCard | None


class JellyfishTriple(NamedTuple):
    """R9: a pile reached three Jellyfish; all three went to the box."""

    seat: int
    cards: tuple[FishCard, FishCard, FishCard]


FishEvent = SeagullTheft | JellyfishTriple


class DepthResult(NamedTuple):
    """The resolution of one depth: the best card, who held it, and who caught what."""

    depth: Depth
    best_card: int | None  # the winning (or tied) diver card; None if nobody was left
    contenders: tuple[int, ...]  # seats still in the round that held best_card
    winner: int | None
    decision: Decision
    fish: tuple[FishCard, ...]  # what the winner caught, oldest first; empty if nobody caught


class RoundRecord(NamedTuple):
    """Everything that became public when a round was revealed and resolved."""

    round: int
    plays: tuple[int, ...]  # the diver card each seat played
    depths: tuple[DepthResult, DepthResult, DepthResult]
    events: tuple[FishEvent, ...]  # in the order they happened
    deep_priority: tuple[int, ...]  # R1 tie order this round (empty in No Fighting)
    shallow_priority: tuple[int, ...]


class LagoonCard(NamedTuple):
    """A fish in a lagoon space; `peeker` is the seat allowed to see it face-down (R5), else None."""

    card: int
    peeker: int | None = None


@dataclass
class GameState:
    """The full (omniscient) state of one game. Mutated only by `play_round`."""

    config: GameConfig
    round: int  # the round to be played next, 1-based; config.rounds + 1 once the game is over
    deck: list[int]  # undealt cards, top first
    put_back: int  # R3: the card returned to the box unseen
    lagoon: list[list[LagoonCard]]  # per Depth, oldest card first
    hands: np.ndarray  # (num_players, 12) int8: 1 where the diver card is still in hand (a short game: cards 1..rounds)
    piles: list[list[int]]  # per seat, bottom first (the last card is the visible top)
    played: list[list[int]]  # per seat, diver cards played so far in order
    box: list[int] = field(default_factory=list)  # cards sent to the box by Seagulls and Jellyfish
    history: list[RoundRecord] = field(default_factory=list)

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.config.num_players

    @property
    def is_over(self) -> bool:
        """True once the last round (12; a short game's `config.rounds`) has been resolved."""
        return self.round > self.config.rounds

    def clone(self) -> GameState:
        """A fully independent copy, cheap enough for a search's thousands a second."""
        # Only the containers are copied: the config, LagoonCards and RoundRecords are immutable,
        # so the copy shares them (no deepcopy, which would walk every record).
        return GameState(
            config=self.config,
            round=self.round,
            deck=self.deck.copy(),
            put_back=self.put_back,
            lagoon=[space.copy() for space in self.lagoon],
            hands=self.hands.copy(),
            piles=[pile.copy() for pile in self.piles],
            played=[cards.copy() for cards in self.played],
            box=self.box.copy(),
            history=self.history.copy(),
        )

    def __deepcopy__(self, memo: dict[int, object]) -> GameState:
        return self.clone()  # what `clone` shares is immutable; deepcopy would walk every record

    def card(self, index: int) -> FishCard:
        """The FishCard behind a deck index."""
        size = len(self.config.deck)
        if not is_integer(index) or not 0 <= index < size:
            raise InvalidConfigError(f"card index {index!r:.40} is no card of this deck; indices are 0-{size - 1}")
        return self.config.deck[index]

    def legal_cards(self, seat: int) -> list[int]:
        """The diver cards (1-12) `seat` may play now."""
        return [int(c) + 1 for c in np.flatnonzero(self.hands[check_seat(seat, self.num_players)])]


def check_seat(seat: object, num_players: int) -> int:
    """`seat` as a seat of a `num_players` table; InvalidConfigError naming the seats otherwise."""
    if not is_integer(seat) or not 0 <= seat < num_players:
        raise InvalidConfigError(f"seat={seat!r:.40} is not at a {num_players}-player table; seats are 0-{num_players - 1}")
    return int(seat)


def kiti_seat(round_number: int, num_players: int) -> int:
    """R1: Kiti sits between seat `a` (returned) and seat `a + 1` in round `round_number`."""
    _check_round(round_number, num_players)
    return (round_number - 1) % num_players


def _check_round(round_number: object, num_players: object) -> None:
    if not is_integer(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidConfigError(f"num_players={num_players!r:.40} is not allowed; Miaui is played by {MIN_PLAYERS}-{MAX_PLAYERS} players")
    if not is_integer(round_number) or not 1 <= round_number <= NUM_ROUNDS + 1:
        raise InvalidConfigError(f"round {round_number!r:.40} is no round; rounds are 1-{NUM_ROUNDS} ({NUM_ROUNDS + 1}: the game is over)")


@functools.cache
def deep_priority(round_number: int, num_players: int) -> tuple[int, ...]:
    """R1: deepest/deep ties go to the tied seat closest to Kiti counterclockwise: a, a-1, ..."""
    a = kiti_seat(round_number, num_players)
    return tuple((a - k) % num_players for k in range(num_players))


@functools.cache
def shallow_priority(round_number: int, num_players: int) -> tuple[int, ...]:
    """R1: shallow ties go to the tied seat closest to Kiti clockwise: a+1, a+2, ..."""
    a = kiti_seat(round_number, num_players)
    return tuple((a + 1 + k) % num_players for k in range(num_players))


# Every deal consumes exactly this many uniforms from the game's generator: 37 whose argsort is the
# shuffle, then one for each time round 1 puts a Seagull back. A reinserted Seagull can be drawn
# again, so 16 are kept: measured, a deal needs more than 6 about once in 25,000 and each further
# one about 5 times more rarely, so 16 run out about once in 10^11 deals. A fixed amount lets the
# batched engine draw many games' randomness at once and still deal exactly the same games.
SEAGULL_UNIFORMS = 16
DEAL_UNIFORMS = DECK_SIZE + SEAGULL_UNIFORMS


def deal(config: GameConfig, rng: np.random.Generator, deck_order: Sequence[int] | None = None) -> tuple[int, list[int]]:
    """R3/R4 setup: the card put back unseen, and the 36 others in the order they reach the lagoon.

    `deck_order` stacks the deck (deck indices, top first; the first is put back); without it the
    deck is shuffled. Either way DEAL_UNIFORMS numbers are drawn from `rng` (see `deal_from`).
    """
    if not isinstance(config, GameConfig):
        raise InvalidConfigError(f"config must be a rules.GameConfig (e.g. GameConfig(num_players=4)), got {config!r:.60}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidConfigError(f"rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed)), got {rng!r:.60}")
    if deck_order is not None:
        allowed = f"deck_order must be a permutation of the deck indices 0..{len(config.deck) - 1}"
        scalar = isinstance(deck_order, np.ndarray) and deck_order.ndim == 0
        if isinstance(deck_order, str | bytes) or not isinstance(deck_order, Sequence | np.ndarray) or scalar:
            raise DeckError(f"{allowed}, got {deck_order!r:.60}")
        if any(not is_integer(i) for i in deck_order):
            raise DeckError(f"{allowed}; got a value that is not an integer in {list(deck_order)!r:.80}")
        deck_order = [int(i) for i in deck_order]
        if sorted(deck_order) != list(range(len(config.deck))):
            raise DeckError(f"{allowed}, got {deck_order!r:.80}")
    return deal_from(config, rng.random(DEAL_UNIFORMS), deck_order)


def deal_from(config: GameConfig, uniforms: np.ndarray, deck_order: Sequence[int] | None = None) -> tuple[int, list[int]]:
    """`deal` from its DEAL_UNIFORMS numbers: the shuffle is their argsort, the rest reinsert Seagulls."""
    size = len(config.deck)  # DECK_SIZE, but for a short game's (MV2); it draws as many uniforms all the same
    order = list(deck_order) if deck_order is not None else np.argsort(uniforms[:size], kind="stable").tolist()
    return order[0], first_round_order(config, order[1:], uniforms[size:])


def first_round_order(config: GameConfig, deck: list[int], uniforms: np.ndarray) -> list[int]:
    """R4 round 1: draw three cards; a Seagull is replaced by the next card, then inserted at a
    uniform position of what remains (the rest keeps its order, so stacked decks stay predictable).
    Returns the deck in lagoon order: round 1's three cards first. Should the uniforms run out
    (see SEAGULL_UNIFORMS), a further Seagull goes to the bottom.
    """
    deck, first_round, put_backs = list(deck), [], iter(uniforms)
    for _ in range(NUM_SPACES):
        card = deck.pop(0)
        while config.deck[card].kind is FishKind.SEAGULL:
            replacement = deck.pop(0)
            position = min(int(next(put_backs, 1.0) * (len(deck) + 1)), len(deck))
            deck.insert(position, card)
            card = replacement
        first_round.append(card)
    return first_round + deck


def new_game(config: GameConfig, rng: np.random.Generator, deck_order: Sequence[int] | None = None) -> GameState:
    """Set up a game (R3) with round 1's lagoon stocked (R4); see `deal` for the arguments."""
    put_back, placement = deal(config, rng, deck_order)
    n = config.num_players
    return GameState(
        config=config,
        round=1,
        deck=placement[NUM_SPACES:],
        put_back=put_back,
        lagoon=[[LagoonCard(card)] for card in placement[:NUM_SPACES]],
        hands=new_hands(config),
        piles=[[] for _ in range(n)],
        played=[[] for _ in range(n)],
    )


def new_hands(config: GameConfig) -> np.ndarray:
    """(num_players, 12) int8: every seat holds diver cards 1-12 (R6); a short game's 1..rounds (MV1)."""
    hands = np.zeros((config.num_players, NUM_DIVER_CARDS), dtype=np.int8)
    hands[:, : config.rounds] = 1
    return hands


def _restock(state: GameState, lantern_peekers: dict[Depth, int]) -> None:
    """R4/R5, rounds 2 to the last: one card to each space, bottom first, face-down after a Lantern."""
    for depth in _DEPTHS:
        state.lagoon[depth].append(LagoonCard(state.deck.pop(0), lantern_peekers.get(depth)))


def illegal_action(who: str, action: object, hand: np.ndarray) -> IllegalActionError:
    """The error for an action (a card index 0-11) that `who` may not play from `hand`: one message
    format for every API, naming the legal actions and their diver cards."""
    in_range = not isinstance(action, bool | np.timedelta64) and isinstance(action, int | np.integer) and 0 <= action < NUM_DIVER_CARDS
    reason = f"(diver card {action + 1}) is not in hand" if in_range else f"is not a card in hand (actions are 0-{NUM_DIVER_CARDS - 1})"  # type: ignore[operator]
    legal = [int(a) for a in np.flatnonzero(hand)]
    return IllegalActionError(f"{who}: action {action!r} {reason}; legal actions: {legal} (diver cards {[a + 1 for a in legal]})")


def check_action(hand: np.ndarray, action: object, who: str) -> int:
    """The card index (0-11) `action` names if that card is in `hand`; else `illegal_action`'s error."""
    if isinstance(action, np.ndarray) and action.shape == () and not isinstance(action, np.ma.MaskedArray) and action.dtype.kind != "m":
        action = action.item()  # (numpy.ma.masked stays itself, to be named as such: its item is a made-up 0.0; a time span's is an int)
    # numpy's timedelta64 is a numpy integer to isinstance: a time span is no card all the same.
    if isinstance(action, bool | np.timedelta64):
        raise illegal_action(who, action, hand)
    if isinstance(action, int | np.integer) and 0 <= action < NUM_DIVER_CARDS and hand[action]:
        return int(action)
    raise illegal_action(who, action, hand)


def check_plays(state: GameState, plays: Sequence[int]) -> tuple[int, ...]:
    """Validate a joint action (one diver card 1-12 a seat) and return it as ints; changes nothing."""
    n = state.num_players
    if state.is_over:
        raise IllegalActionError("the game is over; no card can be played")
    if isinstance(plays, str | bytes | Mapping) or not isinstance(plays, Sequence | np.ndarray):
        raise IllegalActionError(f"plays must be a sequence of one diver card (1-12) per seat, got {plays!r:.60}")
    if len(plays) != n:
        raise IllegalActionError(f"expected one diver card for each of the {n} seats, got {len(plays)}")
    # Diver card c is action c - 1 (anything else is passed on as it is, to be named in the error).
    cards = [
        card.item() if isinstance(card, np.ndarray) and card.shape == () and card.dtype.kind != "m" else card for card in plays
    ]  # a numpy scalar array is its number
    for seat, card in enumerate(cards):  # a diver card by its number, as the caller gave it (anything else: check_action's words)
        if isinstance(card, int | np.integer) and not isinstance(card, bool | np.timedelta64):
            if not 1 <= card <= state.config.rounds:  # 1-12; a short game's hands hold 1..rounds (MV1)
                raise IllegalActionError(f"seat {seat}'s card is {card}; diver cards are 1-{state.config.rounds}")
            if not state.hands[seat][card - 1]:
                in_hand = [int(c) + 1 for c in np.flatnonzero(state.hands[seat])]
                raise IllegalActionError(
                    f"seat {seat} plays diver card {card}, which it played in an earlier round; its cards still in hand: {in_hand}"
                )
    return tuple(
        check_action(
            state.hands[seat], card - 1 if isinstance(card, int | np.integer) and not isinstance(card, bool) else card, f"seat {seat}"
        )
        + 1
        for seat, card in enumerate(cards)
    )


def forced_plays(state: GameState) -> tuple[int, ...]:
    """R6: the last card of each hand, which the last round (12, or a short game's) forces."""
    return tuple(int(np.flatnonzero(hand)[0]) + 1 for hand in state.hands)


def play_round(state: GameState, plays: Sequence[int]) -> tuple[RoundRecord, ...]:
    """Reveal and resolve one round, then the forced last round if it is next.

    `plays[seat]` is the diver card (1-12) that seat plays. Raises IllegalActionError, leaving the
    state untouched, if any card is not in its seat's hand. Returns the records of the rounds played.
    """
    return play_checked_round(state, check_plays(state, plays))


def play_checked_round(state: GameState, cards: tuple[int, ...]) -> tuple[RoundRecord, ...]:
    """`play_round` for a joint action `check_plays` accepted (the envs check each agent's card as it
    comes, so the reveal does not check them all again)."""
    records = [_resolve_round(state, cards)]
    if state.round == state.config.rounds:
        records.append(_resolve_round(state, forced_plays(state)))
    return tuple(records)


def _resolve_round(state: GameState, plays: tuple[int, ...]) -> RoundRecord:
    config, n, r = state.config, state.num_players, state.round
    last = config.rounds
    deck = config.deck
    for seat, card in enumerate(plays):
        state.hands[seat, card - 1] = 0
        state.played[seat].append(card)

    deep_order = () if config.no_fighting else deep_priority(r, n)
    shallow_order = () if config.no_fighting else shallow_priority(r, n)
    still_in = list(range(n))
    events: list[FishEvent] = []
    lantern_peekers: dict[Depth, int] = {}
    results = []
    for depth in _DEPTHS:
        if not still_in:
            results.append(DepthResult(depth, None, (), None, Decision.NOBODY_LEFT, ()))
            continue
        shallow = depth == Depth.SHALLOW
        pick = min if shallow else max
        best = pick(plays[s] for s in still_in)
        contenders = tuple(s for s in still_in if plays[s] == best)
        if len(contenders) == 1:
            winner, decision = contenders[0], Decision.SOLE_BEST
        elif config.no_fighting:
            winner, decision = None, Decision.NO_FIGHTING
        else:
            priority = shallow_order if shallow else deep_order
            winner, decision = next(s for s in priority if s in contenders), Decision.KITI

        caught: tuple[int, ...] = ()
        if winner is None:
            still_in = [s for s in still_in if s not in contenders]
        else:
            still_in.remove(winner)
            caught = tuple(lc.card for lc in state.lagoon[depth])
            state.lagoon[depth].clear()
            for card in caught:
                _land(state, winner, card, events)
                if deck[card].kind is FishKind.LANTERN and r < last:  # R5: not in the last round
                    lantern_peekers[depth] = winner  # R5: next card in this space is face-down
        results.append(DepthResult(depth, best, contenders, winner, decision, tuple(deck[c] for c in caught)))

    record = RoundRecord(r, plays, (results[0], results[1], results[2]), tuple(events), deep_order, shallow_order)
    state.history.append(record)
    state.round += 1
    if state.round <= last:
        _restock(state, lantern_peekers)
    return record


def _land(state: GameState, seat: int, card: int, events: list[FishEvent]) -> None:
    """R9: put a caught card on a pile and apply its effect at once."""
    deck = state.config.deck
    pile, kind = state.piles[seat], deck[card].kind
    if kind is FishKind.SEAGULL:
        state.box.append(card)
        stolen = pile.pop() if pile else None
        if stolen is not None:
            state.box.append(stolen)
        events.append(SeagullTheft(seat, None if stolen is None else deck[stolen]))
        return
    pile.append(card)
    if kind is FishKind.JELLYFISH:
        jellies = [c for c in pile if deck[c].kind is FishKind.JELLYFISH]
        if len(jellies) == 3:
            pile[:] = [c for c in pile if c not in jellies]
            state.box.extend(jellies)
            j0, j1, j2 = (deck[c] for c in jellies)
            events.append(JellyfishTriple(seat, (j0, j1, j2)))


def score(state: GameState, seat: int) -> int:
    """R10: the sum of the values in the seat's fish pile."""
    deck = checked_state(state, "score").config.deck
    return sum(deck[c].value for c in state.piles[check_seat(seat, state.num_players)])


def scores(state: GameState) -> tuple[int, ...]:
    """R10: every seat's score."""
    return tuple(score(state, seat) for seat in range(checked_state(state, "scores").num_players))


def checked_state(state: object, caller: str) -> GameState:
    """`state` if it is a game state; else InvalidConfigError naming the caller and what it was given."""
    if not isinstance(state, GameState):
        raise InvalidConfigError(f"{caller} takes a rules.GameState (e.g. new_game(GameConfig(), rng)), got {state!r:.60}")
    return state


def winners(state: GameState) -> tuple[int, ...]:
    """R10: every seat with the highest score (tied winners share the victory)."""
    totals = scores(state)
    best = max(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)
