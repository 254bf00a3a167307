"""The octopus fishing game's rules engine: pure game logic, no RL library (rulings O1-O12 of
docs/rules/octopus.md).

A game is a mutable `OctopusState`, owned and changed only by this module's `step`:

    state = new_game(3, seed=7)                   # O2 setup; the first flip is already made (O3)
    while not state.is_over:
        choices = legal_decisions(state)          # (STOP, FLIP) or (NO_THEFT, Theft(target, k), ...)
        events = step(state, choices[0])          # what happened until the next decision

The engine plays every forced move itself (O10): the first flip of a turn, the stop when the deck is
empty, busts, the octopus's discard, die rolls, the end of a session, its scoring, the next session
and the end of the game. It stops only where a seat decides: **stop or flip again** (O3) or **the
theft** after an octopus (O5). An octopus when no opponent holds a card leaves no choice (only "no
theft" is legal), so the engine passes over it too and records `TheftSkipped`.

Cards are compact integer ids (`NUM_CARDS` = 66, O1), the same in the state, the events and later
observations:

| ids    | card                                                              |
|--------|-------------------------------------------------------------------|
| 0..59  | fish: species `id // 6`, value `FISH_VALUES[id % 6]` = 1,1,2,2,3,4 |
| 60..65 | the six octopuses                                                 |

The ten species (O1: they differ only by name) are, by index, anchovy, bream, cod, dory, eel,
flounder, grouper, herring, ide, jack: initials A-J, so a one-letter-and-value label ("C4", the
cod worth 4) names a card's species and value; `card_name` writes "cod:4", "octopus".

Every event is appended to `state.events` (a frozen NamedTuple each: `SessionStart`, `Flipped`,
`Kept`, `Busted`, `Octopus`, `TheftSkipped`, `NoTheft`, `Rolled`, `CardsMoved`, `SessionScored`,
`GameEnded`), enough for a renderer, a replay or an observation's recall view (O4) to rebuild what
everyone saw; `step` returns the events it appended.

Randomness (O11): every shuffle, theft draw and die roll comes from the state's one
`numpy.random.Generator`, always as uniforms from `rng.random`, a fixed count per draw (so a
batched engine can draw the same numbers): a shuffle is the stable argsort of 66 uniforms; a die
roll is `DIE_FACES[int(6 * u)]`; a theft draw of k of a collection's m cards is the first k of the
stable argsort of m uniforms. A stacked deck (`deck=`) or stacked die rolls (`dice=`) are used
first, for tests, and draw nothing; once used up, the generator takes over. Same seed (or
generator state), same stacked cards and dice, same decisions: the same game, event for event.

Where the rulings leave a choice, this engine:
- stores the draw pile bottom first (`state.deck[-1]` is the next card); stacked decks are given
  top first, as everywhere else in the project;
- appends cards to a collection in the order they arrive (kept cards in row order, stolen cards
  in their old collection's order);
- lists a theft's choices (O5) as `NO_THEFT`, then `Theft(target, k)` by target clockwise from the
  thief, k ascending;
- numbers decisions for envs as a fixed space of `NUM_ACTIONS` = 12 (`action_of`, `decision_of`,
  `action_mask`), theft targets counted clockwise from the thief;
- O12: `max_sessions` (default None, no cap) ends the game after that many scored sessions even if
  no total reached 77: `state.truncated` is True, the `GameEnded` event says so, and `winners` still
  names the leaders (an env reports it as a truncation, not a termination).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from miaui_env.core import errors as core_errors
from miaui_env.core.errors import is_integer

MIN_PLAYERS = 2
MAX_PLAYERS = 4
TARGET = 77  # O9: a game ends after a session in which a total reaches this
NUM_SPECIES = 10
FISH_VALUES = (1, 1, 2, 2, 3, 4)  # O1: the six cards of each species
CARDS_PER_SPECIES = len(FISH_VALUES)
NUM_FISH = NUM_SPECIES * CARDS_PER_SPECIES  # 60
NUM_OCTOPUSES = 6
NUM_CARDS = NUM_FISH + NUM_OCTOPUSES  # 66
OCTOPUS_IDS = tuple(range(NUM_FISH, NUM_CARDS))
DIE_FACES = (-1, 1, 1, 2, 3, 3)  # O1: each face equally likely
MAX_STEAL = 3  # O5: k in {1, 2, 3}
SPECIES_NAMES = ("anchovy", "bream", "cod", "dory", "eel", "flounder", "grouper", "herring", "ide", "jack")

# Per card id: its species (-1 for an octopus) and value (0 for an octopus); tuples for the engine's
# hot path, read-only arrays for observations.
CARD_SPECIES: tuple[int, ...] = tuple(c // CARDS_PER_SPECIES for c in range(NUM_FISH)) + (-1,) * NUM_OCTOPUSES
CARD_VALUES: tuple[int, ...] = tuple(FISH_VALUES[c % CARDS_PER_SPECIES] for c in range(NUM_FISH)) + (0,) * NUM_OCTOPUSES
SPECIES_OF = np.array(CARD_SPECIES, dtype=np.int8)
VALUE_OF = np.array(CARD_VALUES, dtype=np.int8)
SPECIES_OF.flags.writeable = False
VALUE_OF.flags.writeable = False


class OctopusError(ValueError):
    """Base class of this engine's errors."""


class InvalidConfigError(OctopusError, core_errors.InvalidConfigError):
    """Game settings, a seed, a stacked deck or stacked dice outside what the rules allow (also
    the library's `InvalidConfigError`, so one except clause catches either game's)."""


class IllegalDecisionError(OctopusError):
    """A decision that the seat to act may not make now (O10); the state is left unchanged."""


# ---- cards -------------------------------------------------------------------------------------


def is_octopus(card: int) -> bool:
    """True for the six octopus ids (60..65)."""
    return card >= NUM_FISH


def fish(species: str | int, value: int, copy: int = 0) -> int:
    """The id of a fish card: `fish("cod", 4)`; values 1 and 2 have two copies (`copy` 0 or 1)."""
    index = SPECIES_NAMES.index(species) if isinstance(species, str) and species in SPECIES_NAMES else species
    slots = [i for i, v in enumerate(FISH_VALUES) if is_integer(value) and v == value]  # (1.0 is no card value)
    if not (is_integer(index) and 0 <= index < NUM_SPECIES and is_integer(copy) and 0 <= copy < len(slots)):
        raise InvalidConfigError(f"no fish {species!r} of value {value} (copy {copy}); values are {FISH_VALUES}")
    return int(index) * CARDS_PER_SPECIES + slots[copy]


@dataclass(frozen=True)
class Variant:
    """Which cards are in play and the target (O1, O9; the small variants of docs/rules/octopus.md, OV1-OV3).

    The full game is `Variant()`: 10 species of six fish (values 1, 1, 2, 2, 3, 4), 6 octopuses, 77
    points. A small variant keeps the first `species` species, of each the fish of `values` (a part of
    1, 1, 2, 2, 3, 4), the first `octopuses` octopuses, and ends at `target`. Its cards keep their ids
    (a species' first card of value 2 is id 6 * species + 2 in every variant), so observations,
    actions and every other layout are the full game's, with the absent cards never seen.
    """

    species: int = NUM_SPECIES
    values: tuple[int, ...] = FISH_VALUES
    octopuses: int = NUM_OCTOPUSES
    target: int = TARGET
    cards: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The card ids in play, ascending."""

    def __post_init__(self) -> None:
        for name, low, high in (("species", 1, NUM_SPECIES), ("octopuses", 0, NUM_OCTOPUSES), ("target", 1, 10**6)):
            value = getattr(self, name)
            if not is_integer(value) or not low <= value <= high:
                raise InvalidConfigError(f"a variant's {name}={value!r:.40} is not allowed; it is an integer from {low} to {high}")
        values = self.values
        if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not all(is_integer(v) for v in values):
            raise InvalidConfigError(f"a variant's values={values!r:.60} are not allowed; give fish values, a part of {FISH_VALUES}")
        values = tuple(sorted(int(v) for v in values))
        slots: list[int] = []
        for value in values:
            free = [i for i, v in enumerate(FISH_VALUES) if v == value and i not in slots]
            if not free:
                raise InvalidConfigError(f"a variant's values={values!r} are not a part of a species' six fish {FISH_VALUES}")
            slots.append(free[0])
        if not values:
            raise InvalidConfigError(f"a variant's values=() leave no fish; give a part of {FISH_VALUES}")
        object.__setattr__(self, "species", int(self.species))
        object.__setattr__(self, "octopuses", int(self.octopuses))
        object.__setattr__(self, "target", int(self.target))
        object.__setattr__(self, "values", values)
        fish_ids = sorted(s * CARDS_PER_SPECIES + slot for s in range(self.species) for slot in slots)
        object.__setattr__(self, "cards", (*fish_ids, *OCTOPUS_IDS[: self.octopuses]))
        if len(self.cards) < 2:  # one card ends every game at its deal: nobody ever decides
            raise InvalidConfigError(
                f"a variant of {self.species} species of values {values} and {self.octopuses} octopuses holds one card; "
                "a game needs at least two, or it ends at its deal"
            )

    @property
    def is_full_game(self) -> bool:
        """Whether this is the published game (every card, 77 points)."""
        return self == FULL_GAME


FULL_GAME = Variant()


def checked_cards(cards: object, where: str) -> list[int]:
    """`cards` as card ids 0-65 (InvalidConfigError naming `where` and the first value that is no card)."""
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence | np.ndarray) or _is_scalar_array(cards):
        raise InvalidConfigError(f"{where} takes a list of card ids 0-{NUM_CARDS - 1}; got {cards!r:.60}")
    for card in cards:
        if not is_integer(card) or not 0 <= card < NUM_CARDS:
            raise InvalidConfigError(f"{where}: {card!r:.40} is no card; card ids are the integers 0-{NUM_CARDS - 1}")
    return [int(card) for card in cards]


def _is_scalar_array(value: object) -> bool:
    """A 0-d numpy array: no sequence, though numpy lets it pass for one."""
    return isinstance(value, np.ndarray) and value.ndim == 0


def card_name(card: int) -> str:
    """`cod:4` for a fish, `octopus` for an octopus."""
    if not is_integer(card) or not 0 <= card < NUM_CARDS:
        raise InvalidConfigError(f"card {card!r:.60} is no card; cards are the ids 0..{NUM_CARDS - 1}")
    if is_octopus(card):
        return "octopus"
    return f"{SPECIES_NAMES[CARD_SPECIES[card]]}:{CARD_VALUES[card]}"


def session_score(cards: Sequence[int]) -> int:
    """O7: the sum, over species, of the highest value among `cards` of that species (at most 40)."""
    return scored_cards(checked_cards(cards, "session_score"))


def scored_cards(cards: Sequence[int]) -> int:
    """`session_score` of cards known to be card ids (the engine's own collections): no check, as it runs every session."""
    best = [0] * NUM_SPECIES
    for c in cards:
        s = CARD_SPECIES[c]
        if s >= 0 and CARD_VALUES[c] > best[s]:
            best[s] = CARD_VALUES[c]
    return sum(best)


def stacked_deck(top: Sequence[int], variant: Variant | None = None) -> tuple[int, ...]:
    """A whole deck order, top first: the cards of `top`, then every other card of the variant (the
    full game by default) by ascending id; InvalidConfigError for a `top` that is not distinct cards of it."""
    variant = FULL_GAME if variant is None else variant
    cards = checked_cards(top, "stacked_deck's top")
    if len(set(cards)) != len(cards):
        raise InvalidConfigError(f"stacked_deck's top names a card twice: {list(top)!r:.80}; each card id 0-{NUM_CARDS - 1} at most once")
    absent = [c for c in cards if c not in variant.cards]
    if absent:
        raise InvalidConfigError(
            f"stacked_deck's top names cards {absent} that the variant does not play; its cards: {list(variant.cards)}"
        )
    top, named = cards, set(cards)
    return (*top, *(c for c in variant.cards if c not in named))


# ---- decisions ----------------------------------------------------------------------------------


class Move(enum.StrEnum):
    """The decisions without arguments."""

    STOP = "stop"  # O3: keep the row
    FLIP = "flip"  # O3: flip the next card
    NO_THEFT = "no_theft"  # O5: no theft, no roll


STOP, FLIP, NO_THEFT = Move.STOP, Move.FLIP, Move.NO_THEFT


class Theft(NamedTuple):
    """O5: try to steal `k` cards from seat `target`'s collection."""

    target: int
    k: int


Decision = Move | Theft


class Phase(enum.StrEnum):
    """What the state waits for."""

    FLIP_OR_STOP = "flip_or_stop"
    THEFT = "theft"
    OVER = "over"


# The members as plain module names: looking a member up on its enum class costs more than the
# rest of `is_over`, and the hot paths below ask on every step.
_FLIP_OR_STOP, _THEFT, _OVER = Phase.FLIP_OR_STOP, Phase.THEFT, Phase.OVER


# ---- events -------------------------------------------------------------------------------------


class SessionStart(NamedTuple):
    """O2/O8: a session began with a freshly shuffled (or stacked) deck; `first` takes its first turn."""

    session: int  # 1-based
    first: int


class Flipped(NamedTuple):
    """O3: `seat` flipped `card` onto the row (`forced`: the first flip of a turn)."""

    seat: int
    card: int
    forced: bool


class Kept(NamedTuple):
    """O3: `seat` stopped and took the row into her collection (`forced`: the deck was empty)."""

    seat: int
    cards: tuple[int, ...]
    forced: bool


class Busted(NamedTuple):
    """O3: a species came twice: `discarded` (the pair and what lay between) went to the discard
    pile, `kept` (the cards before the earlier one) into the seat's collection."""

    seat: int
    discarded: tuple[int, ...]
    kept: tuple[int, ...]


class Octopus(NamedTuple):
    """O3: an octopus ended the turn; it and the row (`discarded`, octopus last) were discarded."""

    seat: int
    discarded: tuple[int, ...]


class TheftSkipped(NamedTuple):
    """O5: after an octopus no opponent held a card, so there was nothing to decide."""

    seat: int


class NoTheft(NamedTuple):
    """O5: the seat chose no theft (no roll)."""

    seat: int


class Rolled(NamedTuple):
    """O5: `seat` announced `k` cards from `target` and rolled `face`."""

    seat: int
    target: int
    k: int
    face: int


class CardsMoved(NamedTuple):
    """O5: the die moved `cards` (shown to everyone) from `source`'s collection to `dest`'s."""

    source: int
    dest: int
    cards: tuple[int, ...]


class SessionScored(NamedTuple):
    """O6/O7: the session ended; each seat's session score and running total."""

    session: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]


class GameEnded(NamedTuple):
    """O9 (or O12's cap, `truncated`): the game is over; `winners` share the victory."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    truncated: bool


Event = SessionStart | Flipped | Kept | Busted | Octopus | TheftSkipped | NoTheft | Rolled | CardsMoved | SessionScored | GameEnded


# ---- state --------------------------------------------------------------------------------------


@dataclass
class OctopusState:
    """The full (omniscient) state of one game. Mutated only by `new_game` and `step`; read it freely.

    At every moment the variant's cards (all 66 in the full game) are split between `deck`, `row`,
    `discard` and `collections`.
    """

    num_players: int
    rng: np.random.Generator
    max_sessions: int | None = None  # O12: a cap on sessions, None for none
    variant: Variant = FULL_GAME  # the cards in play and the target (OV1-OV3)
    session: int = 0  # the session being played, 1-based
    active: int = 0  # the seat whose turn it is (who decides, unless the game is over)
    phase: Phase = Phase.FLIP_OR_STOP
    deck: list[int] = field(default_factory=list)  # the draw pile, bottom first: deck[-1] is next
    row: list[int] = field(default_factory=list)  # the face-up row, in flip order
    discard: list[int] = field(default_factory=list)  # in the order cards were discarded
    collections: list[list[int]] = field(default_factory=list)  # per seat, in arrival order
    totals: list[int] = field(default_factory=list)  # per seat, running totals (O7)
    session_scores: list[tuple[int, ...]] = field(default_factory=list)  # per scored session
    truncated: bool = False  # O12: ended by the session cap
    turns: int = 0  # turns begun so far, all sessions
    events: list[Event] = field(default_factory=list)
    stacked_decks: list[tuple[int, ...]] = field(default_factory=list)  # decks for the next sessions, top first
    stacked_dice: list[int] = field(default_factory=list)  # die faces still to roll before the generator's

    @property
    def is_over(self) -> bool:
        """True once the game has ended (O9 or O12)."""
        return self.phase is _OVER

    def clone(self) -> OctopusState:
        """An independent copy (its generator too: the copy draws what the original would)."""
        rng = np.random.Generator(type(self.rng.bit_generator)())
        rng.bit_generator.state = self.rng.bit_generator.state
        return replace(
            self,
            rng=rng,
            deck=self.deck.copy(),
            row=self.row.copy(),
            discard=self.discard.copy(),
            collections=[c.copy() for c in self.collections],
            totals=self.totals.copy(),
            session_scores=self.session_scores.copy(),
            events=self.events.copy(),
            stacked_decks=self.stacked_decks.copy(),
            stacked_dice=self.stacked_dice.copy(),
        )


# ---- setup --------------------------------------------------------------------------------------


def _check_deck(order: object, variant: Variant) -> tuple[int, ...]:
    in_play = f"0..{NUM_CARDS - 1}" if variant.is_full_game else f"of the variant {list(variant.cards)}"
    allowed = f"a stacked deck is a permutation of the card ids {in_play}, top first"
    if isinstance(order, str | bytes) or not isinstance(order, Sequence | np.ndarray) or _is_scalar_array(order):
        raise InvalidConfigError(f"{allowed}; got {order!r:.60}")
    if not all(is_integer(c) for c in order):
        raise InvalidConfigError(f"{allowed}; got a value that is not an integer in {list(order)!r:.80}")
    cards = tuple(int(c) for c in order)
    if sorted(cards) != list(variant.cards):
        raise InvalidConfigError(f"{allowed}; got {list(cards)!r:.80}")
    return cards


def new_game(
    num_players: int,
    rng: np.random.Generator | int | None = None,
    *,
    seed: int | None = None,
    deck: Sequence[int] | Sequence[Sequence[int]] | None = None,
    dice: Sequence[int] | None = None,
    max_sessions: int | None = None,
    variant: Variant = FULL_GAME,
) -> OctopusState:
    """A new game (O1/O2), played on to its first decision (O10).

    `rng`: the game's one generator (O11), or an int seed for one (`seed=` says the same);
    `deck`: a stacked deck order (card ids, top first) for the first session, or a sequence of
    orders for the first sessions; later sessions are shuffled. `dice`: stacked die faces, rolled
    first. `max_sessions`: O12's cap (see the module docstring). `variant`: the cards in play and the
    target (`Variant`; the full game by default).
    """
    if not isinstance(variant, Variant):
        raise InvalidConfigError(f"variant must be an octopus rules.Variant (Variant() is the full game), got {variant!r:.60}")
    if not is_integer(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidConfigError(f"num_players={num_players!r} is not allowed; the octopus game is played by 2, 3 or 4 players (O1)")
    if seed is not None:
        if rng is not None:
            raise InvalidConfigError("give rng or seed, not both")
        rng = seed
    if not isinstance(rng, np.random.Generator):
        if rng is not None and (not is_integer(rng) or rng < 0):
            raise InvalidConfigError(f"rng must be a numpy.random.Generator or a seed (an integer >= 0), got {rng!r:.60}")
        rng = np.random.default_rng(rng)
    if max_sessions is not None and (not is_integer(max_sessions) or max_sessions < 1):
        raise InvalidConfigError(f"max_sessions={max_sessions!r} is not allowed; it is None (no cap) or an integer >= 1 (O12)")
    decks: list[tuple[int, ...]] = []
    if deck is not None:
        if isinstance(deck, str | bytes) or not isinstance(deck, Sequence | np.ndarray) or _is_scalar_array(deck):
            raise InvalidConfigError(
                f"a stacked deck is a permutation of the card ids 0..65 (top first) or a list of them; got {deck!r:.60}"
            )
        if len(deck) == 0:
            raise InvalidConfigError("deck=[] is not allowed; give a stacked deck order (66 card ids), a list of them, or None")
        is_one = len(deck) > 0 and not isinstance(deck[0], Sequence | np.ndarray)
        decks = [_check_deck(deck, variant)] if is_one else [_check_deck(d, variant) for d in deck]
    faces: list[int] = []
    if dice is not None:
        if isinstance(dice, str | bytes) or not isinstance(dice, Sequence | np.ndarray) or _is_scalar_array(dice):
            raise InvalidConfigError(f"stacked dice are a list of die faces among {sorted(set(DIE_FACES))} (O1), got {dice!r:.60}")
        for face in dice:
            if not is_integer(face) or face not in DIE_FACES:
                raise InvalidConfigError(f"stacked die faces are among {sorted(set(DIE_FACES))} (O1), got {face!r}")
            faces.append(int(face))
    n = int(num_players)
    state = OctopusState(
        num_players=n,
        rng=rng,
        max_sessions=None if max_sessions is None else int(max_sessions),
        variant=variant,
        collections=[[] for _ in range(n)],
        totals=[0] * n,
        stacked_decks=decks,
        stacked_dice=faces,
    )
    _start_session(state, first=0)  # O1: player_0 takes the first turn
    return state


def _shuffled_deck(state: OctopusState) -> list[int]:
    """O2: the draw pile for a new session, bottom first."""
    stacked = bool(state.stacked_decks)
    if stacked:
        order = list(state.stacked_decks.pop(0))
    else:  # the full game: the argsort of 66 uniforms is the order of the ids themselves
        cards = state.variant.cards
        order = [cards[i] for i in np.argsort(state.rng.random(len(cards)), kind="stable").tolist()]
    order.reverse()
    return order


def _roll(state: OctopusState) -> int:
    if state.stacked_dice:
        return state.stacked_dice.pop(0)
    return DIE_FACES[int(state.rng.random() * len(DIE_FACES))]


def _draw(state: OctopusState, cards: list[int], k: int) -> list[int]:
    """O5: k of `cards` drawn uniformly at random, removed from it, in their order there."""
    picked = sorted(np.argsort(state.rng.random(len(cards)), kind="stable")[:k].tolist())
    chosen = [cards[i] for i in picked]
    for i in reversed(picked):
        del cards[i]
    return chosen


def _start_session(state: OctopusState, first: int) -> None:
    """O2: every card back into a shuffled deck; totals carry over. Then the first turn."""
    state.session += 1
    state.deck = _shuffled_deck(state)
    state.row = []
    state.discard = []
    for c in state.collections:
        c.clear()
    state.events.append(SessionStart(state.session, first))
    _start_turn(state, first)


def _start_turn(state: OctopusState, seat: int) -> None:
    state.active = seat
    state.turns += 1
    _flip(state, forced=True)  # O3: the first flip is forced


def _flip(state: OctopusState, forced: bool) -> None:
    """O3: flip the top card and resolve it; leaves the state at a decision or at the next one."""
    seat = state.active
    card = state.deck.pop()
    state.events.append(Flipped(seat, card, forced))
    if card >= NUM_FISH:  # an octopus
        discarded = (*state.row, card)
        state.discard.extend(discarded)
        state.row = []
        state.events.append(Octopus(seat, discarded))
        if any(state.collections[t] for t in range(state.num_players) if t != seat):
            state.phase = _THEFT
            return
        state.events.append(TheftSkipped(seat))  # only "no theft" is legal: nothing to decide (O10)
        _end_turn(state)
        return
    species = CARD_SPECIES[card]
    row = state.row
    for i, earlier in enumerate(row):
        if CARD_SPECIES[earlier] == species:  # a bust
            kept = row[:i]
            discarded = (*row[i:], card)
            state.discard.extend(discarded)
            state.collections[seat].extend(kept)
            state.row = []
            state.events.append(Busted(seat, discarded, tuple(kept)))
            _end_turn(state)
            return
    row.append(card)
    if not state.deck:  # O3: the deck is empty, she must stop
        _keep(state, forced=True)
        return
    state.phase = _FLIP_OR_STOP


def _keep(state: OctopusState, forced: bool) -> None:
    seat = state.active
    state.collections[seat].extend(state.row)
    state.events.append(Kept(seat, tuple(state.row), forced))
    state.row = []
    _end_turn(state)


def _end_turn(state: OctopusState) -> None:
    """The turn is resolved: the next turn, or O6's end of the session."""
    nxt = (state.active + 1) % state.num_players
    if state.deck:
        _start_turn(state, nxt)
        return
    scores = tuple(scored_cards(c) for c in state.collections)  # O7
    for seat, s in enumerate(scores):
        state.totals[seat] += s
    state.session_scores.append(scores)
    state.events.append(SessionScored(state.session, scores, tuple(state.totals)))
    reached = max(state.totals) >= state.variant.target
    if reached or (state.max_sessions is not None and state.session >= state.max_sessions):
        state.truncated = not reached
        state.phase = _OVER
        state.events.append(GameEnded(winners(state), tuple(state.totals), state.truncated))
        return
    _start_session(state, first=nxt)  # O8: the seat order simply continues


# ---- decisions ----------------------------------------------------------------------------------


def legal_decisions(state: OctopusState) -> tuple[Decision, ...]:
    """The decisions the active seat may make now (O10); empty once the game is over."""
    if state.phase is _FLIP_OR_STOP:
        return (STOP, FLIP)
    if state.phase is _THEFT:
        n, seat = state.num_players, state.active
        thefts: list[Decision] = [NO_THEFT]
        for offset in range(1, n):
            target = (seat + offset) % n
            size = len(state.collections[target])
            thefts.extend(Theft(target, k) for k in range(1, min(MAX_STEAL, size) + 1))
        return tuple(thefts)
    return ()


def _normalise(decision: object) -> Decision | None:
    if isinstance(decision, Move):
        return decision
    if type(decision) is Theft and type(decision.target) is int and type(decision.k) is int:
        return decision  # already what the general case below builds (envs pass these every theft)
    if isinstance(decision, str):
        try:
            return Move(decision)
        except ValueError:
            return None
    if not isinstance(decision, tuple) or len(decision) != 2:
        return None
    if all(is_integer(x) for x in decision):
        return Theft(int(decision[0]), int(decision[1]))
    return None


def step(state: OctopusState, decision: Decision) -> tuple[Event, ...]:
    """Make the active seat's decision and play on to the next decision (or the end); returns the
    events appended. An illegal decision raises IllegalDecisionError and changes nothing."""
    legal = legal_decisions(state)
    chosen = _normalise(decision)
    if chosen is None or chosen not in legal:
        where = "the game is over" if state.is_over else f"player_{state.active} is to decide ({state.phase.value})"
        allowed = ", ".join(map(_describe, legal)) or "none"
        raise IllegalDecisionError(f"decision {decision!r:.60} is not allowed: {where}; legal decisions: {allowed}")
    start = len(state.events)
    if chosen is FLIP:
        _flip(state, forced=False)
    elif chosen is STOP:
        _keep(state, forced=False)
    elif chosen is NO_THEFT:
        state.events.append(NoTheft(state.active))
        _end_turn(state)
    else:
        assert isinstance(chosen, Theft)
        _theft(state, chosen)
        _end_turn(state)
    return tuple(state.events[start:])


def _describe(decision: Decision) -> str:
    return decision.value if isinstance(decision, Move) else f"Theft(target={decision.target}, k={decision.k})"


def _theft(state: OctopusState, theft: Theft) -> None:
    """O5: roll; success moves k random cards of the target to the thief, -1 one of the thief's to the target."""
    seat, target, k = state.active, theft.target, theft.k
    face = _roll(state)
    state.events.append(Rolled(seat, target, k, face))
    if face >= k:
        moved = _draw(state, state.collections[target], k)
        state.collections[seat].extend(moved)
        state.events.append(CardsMoved(target, seat, tuple(moved)))
    elif face == -1 and state.collections[seat]:
        moved = _draw(state, state.collections[seat], 1)
        state.collections[target].extend(moved)
        state.events.append(CardsMoved(seat, target, tuple(moved)))


# ---- integer actions (for envs and networks) ----------------------------------------------------
#
# A fixed action space of NUM_ACTIONS for every player count: 0 stop, 1 flip, 2 no theft, then
# 3 + 3 * (offset - 1) + (k - 1) for a theft of k cards from the seat `offset` places clockwise of
# the thief (offset 1..3). Targets are relative to the seat that acts, so one network can play any
# seat; offsets beyond n - 1 are never legal.

NUM_ACTIONS = 3 + (MAX_PLAYERS - 1) * MAX_STEAL  # 12


def action_of(state: OctopusState, decision: Decision) -> int:
    """The action index of `decision` for the seat to act (see the table above); IllegalDecisionError
    for what names no action (a theft from the seat itself or from no seat, k outside 1-3)."""
    chosen = _normalise(decision)
    if isinstance(chosen, Move):
        return (STOP, FLIP, NO_THEFT).index(chosen)
    if chosen is None or not 0 <= chosen.target < state.num_players or chosen.target == state.active or not 1 <= chosen.k <= MAX_STEAL:
        raise IllegalDecisionError(f"decision {decision!r:.60} names no action for player_{state.active}")
    decision = chosen
    offset = (decision.target - state.active) % state.num_players
    return 3 + MAX_STEAL * (offset - 1) + (decision.k - 1)


def decision_of(state: OctopusState, action: int) -> Decision:
    """The decision an action index names for the seat to act (legal or not: `step` checks)."""
    if not is_integer(action) or not 0 <= action < NUM_ACTIONS:
        raise IllegalDecisionError(f"action {action!r:.60} is not an action; actions are 0-{NUM_ACTIONS - 1}")
    if action < 3:
        return (STOP, FLIP, NO_THEFT)[action]
    offset, k = divmod(int(action) - 3, MAX_STEAL)
    return Theft((state.active + offset + 1) % state.num_players, k + 1)


def action_mask(state: OctopusState) -> np.ndarray:
    """(NUM_ACTIONS,) int8: 1 for the legal actions of the seat to act; all zero once the game is over."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    n, seat = state.num_players, state.active
    # The index `action_of` gives, without its checks (a legal decision names an action): this runs
    # after every octopus that leaves something to steal.
    mask[
        [
            _MOVE_ACTIONS[d] if isinstance(d, Move) else 3 + MAX_STEAL * ((d.target - seat) % n - 1) + (d.k - 1)
            for d in legal_decisions(state)
        ]
    ] = 1
    return mask


_MOVE_ACTIONS = {STOP: 0, FLIP: 1, NO_THEFT: 2}  # as `action_of` numbers them


# ---- outcome ------------------------------------------------------------------------------------


def winners(state: OctopusState) -> tuple[int, ...]:
    """O9: the seats with the highest total (ties share the victory); after O12's cap, the leaders."""
    best = max(state.totals)
    return tuple(seat for seat, total in enumerate(state.totals) if total == best)
