"""Games into the batched engine and back: reference `GameState`s checked and turned into its arrays,
and snapshots of its arrays.

`StateLoader(config, num_envs, stats).load(states)` checks a batch of `rules.GameState`s against the
engine's config and returns their arrays, built apart from the engine's own: an `EngineSnapshot`
(the round and every array), or `FreshDeals` (only the deal) when every state is a game just dealt,
from which the engine starts new games as from its own deals. `VectorMiaui.load_states` puts
either in place; `VectorMiaui.snapshot` and `restore` copy an `EngineSnapshot` out and back.

Lockstep asks that every state be at one round, a round still to be played, and every state must
be a game of the engine's config (table size, variants, deck), its round an integer, and its cards
integer deck indices, each in exactly one place (R3): anything else is refused with
`InvalidConfigError`, naming the slots, before the engine changes. A snapshot names its engine's
config, and `restore` refuses one taken from an engine with other settings. The undealt deck goes where
the restock reads it next (R4), and the last reveal is rebuilt from each state's last
`RoundRecord`. A Python loop per state gathers its cards into flat lists and numpy places and sums
them for the whole batch, so a few hundred states load in a few milliseconds. Nothing here keeps a
reference to the states.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from miaui_env.core.errors import InvalidConfigError, is_integer
from miaui_env.games.miaui.cards import DEFAULT_DECK
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, NUM_ROUNDS, NUM_SPACES, GameConfig, GameState, SeagullTheft, new_hands
from miaui_env.games.miaui.vector.state import MAX_PILE, MAX_STACK, GameArrays, Reveal


def _is_card_index(card: object, deck_size: int) -> bool:
    """Whether `card` is an integer (not a bool) naming one of the deck's cards."""
    return isinstance(card, int | np.integer) and not isinstance(card, bool | np.bool_) and bool(0 <= card < deck_size)


class EngineSnapshot(NamedTuple):
    """Every game of an engine at one moment (`VectorMiaui.snapshot`): the round and copies of its arrays."""

    round: int
    game: GameArrays
    reveal: Reveal
    config: GameConfig  # the rules its games follow: `restore` refuses a snapshot of other rules

    @classmethod
    def copy_of(cls, round_number: int, game: GameArrays, reveal: Reveal, config: GameConfig) -> EngineSnapshot:
        """A snapshot of these arrays as they are now: copies, so the engine can play on."""
        return cls(round_number, GameArrays(*(a.copy() for a in game)), Reveal(*(a.copy() for a in reveal)), config)


class FreshDeals(NamedTuple):
    """Games just dealt (`rules.new_game`), as the engine starts its own: their deal alone."""

    placement: np.ndarray  # (B, 3 x rounds): the lagoon's three cards, then the undealt deck, top first (what restocking reads, R4)


class StateLoader:
    """Checks `rules.GameState`s against one engine's config and batch size and builds their arrays."""

    def __init__(self, config: GameConfig, num_envs: int, stats: np.ndarray):
        self.config, self.num_envs = config, num_envs
        self.stats = stats  # (cards + 2, stat) int32 card stats by deck index, then EMPTY and HIDDEN (RuleTables.stats)
        self.empty = len(config.deck)
        self.fresh_hands = new_hands(config)  # (n, 12): what every seat holds at round 1
        # A record's FishCard -> a deck index with its stats (equal cards have equal stats). Records name
        # the config's own card objects, so their ids find them first: hashing a FishCard runs Python code.
        self._card_index = {card: index for index, card in enumerate(config.deck)}
        self._card_index_by_id = {id(card): index for index, card in enumerate(config.deck)}

    def load(self, states: Sequence[GameState]) -> EngineSnapshot | FreshDeals:
        """The arrays of one state per slot, every state checked first (InvalidConfigError naming the
        slot otherwise): FreshDeals when all are games just dealt, else an EngineSnapshot."""
        round_number = self._checked_round(states)
        self._check_cards(states)
        placement = self._fresh_placement(states) if round_number == 1 else None
        if placement is not None:
            return FreshDeals(placement)
        game, reveal = self._state_arrays(states, round_number)
        return EngineSnapshot(round_number, game, reveal, self.config)

    def _checked_round(self, states: Sequence[GameState]) -> int:
        """The round every state is at, or InvalidConfigError naming the slots that do not fit."""
        if isinstance(states, str | bytes) or not isinstance(states, Sequence):
            raise InvalidConfigError(f"states must be a sequence of one rules.GameState for each of the {self.num_envs} games")
        if len(states) != self.num_envs:
            raise InvalidConfigError(f"states must give one GameState for each of the {self.num_envs} games, got {len(states)}")
        n, deck_size, last = self.config.num_players, len(self.config.deck), self.config.rounds
        # Configs already found equal to the engine's, by id (the states keep them alive through the
        # call): comparing two configs whose decks were parsed apart compares 37 cards, ~14 us.
        equal_configs = {id(self.config)}
        for slot, state in enumerate(states):
            if not isinstance(state, GameState):
                raise InvalidConfigError(f"states[{slot}] is a {type(state).__name__}, not a rules.GameState")
            if id(state.config) not in equal_configs:
                if state.config != self.config:
                    raise InvalidConfigError(
                        f"states[{slot}] is a game of {described(state.config)}; this engine plays {described(self.config)}"
                    )
                equal_configs.add(id(state.config))
            if not is_integer(state.round):
                raise InvalidConfigError(f"states[{slot}] has round={state.round!r}; a round is an integer from 1 to {last}")
            if state.round > last:
                raise InvalidConfigError(
                    f"states[{slot}] is a finished game (round {state.round}); only games with a round left to play load"
                )
            undealt = deck_size - 1 - NUM_SPACES * state.round  # R3, R4: the put-back, and three cards dealt a round
            if not (
                state.round >= 1
                and state.hands.shape == (n, NUM_DIVER_CARDS)
                and len(state.deck) == undealt
                and len(state.lagoon) == NUM_SPACES
                and len(state.piles) == n
                and len(state.history) == state.round - 1
            ):
                raise InvalidConfigError(
                    f"states[{slot}] is not a whole game state at round {state.round}: it must hold hands of shape {(n, NUM_DIVER_CARDS)} "
                    f"(got {state.hands.shape}), {max(undealt, 0)} undealt cards (got {len(state.deck)}), {NUM_SPACES} lagoon spaces "
                    f"(got {len(state.lagoon)}), {n} piles (got {len(state.piles)}) and {state.round - 1} round records "
                    f"(got {len(state.history)})"
                )
        rounds = [state.round for state in states]
        if len(set(rounds)) > 1:
            slots: dict[int, list[int]] = {}
            for slot, round_number in enumerate(rounds):
                slots.setdefault(round_number, []).append(slot)
            listing = "; ".join(f"round {round_number} in slots {_few(at)}" for round_number, at in sorted(slots.items()))
            raise InvalidConfigError(f"every state must be at the same round (the engine plays its games in lockstep); got {listing}")
        return rounds[0]

    def _check_cards(self, states: Sequence[GameState]) -> None:
        """InvalidConfigError naming the first slot whose cards are not each deck index exactly once
        across deck, put_back, lagoon, piles and box (R3), or not integers (a float is never truncated)."""
        deck_size, batch = len(self.config.deck), len(states)
        every_card: list[object] = []
        lengths = []
        for state in states:
            before = len(every_card)
            every_card.append(state.put_back)
            every_card += state.deck
            every_card += state.box
            for pile in state.piles:
                every_card += pile
            every_card += [card for space in state.lagoon for card, _ in space]
            lengths.append(len(every_card) - before)
        slot_of = np.repeat(np.arange(batch), lengths)
        # One by one, not as an array: numpy would read True as 1 and make floats of mixed integer types.
        at = next((i for i, card in enumerate(every_card) if not _is_card_index(card, deck_size)), None)
        if at is not None:
            raise InvalidConfigError(
                f"states[{slot_of[at]}] holds card {every_card[at]!r:.40}; a card is an integer index into config.deck, 0-{deck_size - 1}"
            )
        cards = np.array(every_card, dtype=np.int64)
        counts = np.bincount(slot_of * deck_size + cards, minlength=batch * deck_size).reshape(batch, deck_size)
        wrong = (counts != 1).any(axis=1)
        if wrong.any():
            slot = int(np.argmax(wrong))
            card = int(np.argmax(counts[slot])) if counts[slot].max() > 1 else int(np.argmin(counts[slot]))  # twice before missing
            raise InvalidConfigError(
                f"states[{slot}] holds card {card} ({self.config.deck[card]}) {counts[slot, card]} times; deck, put_back, "
                f"lagoon, piles and box together hold each card of config.deck exactly once (R3)"
            )

    def _fresh_placement(self, states: Sequence[GameState]) -> np.ndarray | None:
        """The placement (the lagoon's cards, then the undealt deck, top first: what restocking reads,
        R4) of states that are games just dealt (`rules.new_game`: full hands, one unpeeked card in
        each lagoon space, no pile, an empty box); None if any state is not, or names no card."""
        for state in states:
            if state.box or any(state.piles) or any(len(space) != 1 or space[0].peeker is not None for space in state.lagoon):
                return None
            if not np.array_equal(state.hands, self.fresh_hands):
                return None
        placement = np.array([[*(space[0].card for space in state.lagoon), *state.deck] for state in states], dtype=np.int64)
        fits = placement.shape == (self.num_envs, self.config.rounds * NUM_SPACES)
        if not fits or ((placement < 0) | (placement >= len(self.config.deck))).any():
            return None  # the general path names what is wrong
        return placement

    def _state_arrays(self, states: Sequence[GameState], round_number: int) -> tuple[GameArrays, Reveal]:
        """The engine's arrays for `states` (checked by `_checked_round`).

        A Python loop per state gathers each kind of card into one flat list, and numpy scatters
        and sums them for the whole batch: Python touches single cards only in the lagoon and the
        last reveal, a few a game."""
        batch, n, empty, stats = self.num_envs, self.config.num_players, self.empty, self.stats
        width, last = stats.shape[1], self.config.rounds
        left = last + 1 - round_number  # diver cards in each hand (R6)
        hands = np.stack([state.hands for state in states]).astype(np.int8, copy=False)

        lagoon_lens, lagoon_cards, peekers = [], [], []
        for state in states:
            for space in state.lagoon:
                lagoon_lens.append(len(space))
                for card, peeker in space:
                    lagoon_cards.append(card)
                    peekers.append(-1 if peeker is None else peeker)
        pile_lens = [len(pile) for state in states for pile in state.piles]
        pile_cards = np.fromiter(itertools.chain.from_iterable(pile for state in states for pile in state.piles), np.int64, sum(pile_lens))
        box_lens = [len(state.box) for state in states]
        box_cards = np.fromiter(itertools.chain.from_iterable(state.box for state in states), np.int64, sum(box_lens))
        deck_cards = np.fromiter(itertools.chain.from_iterable(state.deck for state in states), np.int64, sum(len(s.deck) for s in states))
        lagoon_cards_array, peekers_array = np.array(lagoon_cards, dtype=np.int64), np.array(peekers, dtype=np.int64)

        # What would not fit the arrays: refused here, naming the slot, before any write (cards: _check_cards).
        lagoon_len, pile_len = np.array(lagoon_lens).reshape(batch, NUM_SPACES), np.array(pile_lens).reshape(batch, n)
        lagoon_slot = np.repeat(np.arange(batch * NUM_SPACES) // NUM_SPACES, lagoon_len.ravel())
        problems = [
            (f"has a lagoon space holding more cards than the {round_number} dealt to it (R4)", (lagoon_len > round_number).any(axis=1)),
            (f"has a pile of more than {MAX_PILE} cards", (pile_len > MAX_PILE).any(axis=1)),
            (
                f"has a lagoon peeker that is no seat 0-{n - 1}",
                _slots_with(batch, lagoon_slot, (peekers_array < -1) | (peekers_array >= n)),
            ),
            (
                f"has a hand that does not hold {left} of the diver cards 1-{last}, as at round {round_number} (R6, MV1)",
                ((hands != 0) & (hands != 1)).any(axis=(1, 2))
                | (hands.sum(axis=2) != left).any(axis=1)
                | hands[:, :, last:].any(axis=(1, 2)),
            ),
        ]
        for problem, slots in problems:
            if slots.any():
                raise InvalidConfigError(f"states[{int(np.argmax(slots))}] {problem}")

        game = GameArrays(
            hands=hands,
            lagoon=np.full((batch * NUM_SPACES, MAX_STACK), empty, dtype=np.int16),
            lagoon_len=lagoon_len.astype(np.int64),
            peeker=np.full((batch * NUM_SPACES, MAX_STACK), -1, dtype=np.int8),
            piles=np.full((batch * n, MAX_PILE), empty, dtype=np.int16),
            pile_len=pile_len.astype(np.int64),
            pile_stats=_segment_sums(stats[pile_cards], pile_len.ravel()).reshape(batch, n, width),
            box_stats=_segment_sums(stats[box_cards], np.array(box_lens)),
            placement=np.full((batch, last * NUM_SPACES), empty, dtype=np.int16),
        )
        rows, slots_within = _segment_positions(lagoon_len.ravel())
        game.lagoon[rows, slots_within] = lagoon_cards_array
        game.peeker[rows, slots_within] = peekers_array
        rows, slots_within = _segment_positions(pile_len.ravel())
        game.piles[rows, slots_within] = pile_cards
        # R4: restocking after round r reads placement[3r:3r + 3]; the undealt deck, top first, goes there.
        game.placement[:, NUM_SPACES * round_number :] = deck_cards.reshape(batch, -1)
        game = game._replace(
            lagoon=game.lagoon.reshape(batch, NUM_SPACES, MAX_STACK),
            peeker=game.peeker.reshape(batch, NUM_SPACES, MAX_STACK),
            piles=game.piles.reshape(batch, n, MAX_PILE),
        )
        return game, self._last_reveal(states, round_number)

    def _last_reveal(self, states: Sequence[GameState], round_number: int) -> Reveal:
        """The Reveal arrays of each state's last round record (zeros before the first reveal)."""
        batch, n, stats = self.num_envs, self.config.num_players, self.stats
        width = stats.shape[1]
        reveal = Reveal(
            plays=np.zeros((batch, n), dtype=np.int64),
            caught_depth=np.zeros((batch * n, NUM_SPACES), dtype=np.int8),
            caught_stats=np.zeros((batch * n, width), dtype=np.int32),
            stolen_stats=np.zeros((batch * n, width), dtype=np.int32),
            thefts=np.zeros(batch * n, dtype=np.int32),
            triples=np.zeros(batch * n, dtype=np.int32),
        )
        if round_number > 1:
            index_of, by_id = self._card_index, self._card_index_by_id
            records = [state.history[-1] for state in states]
            reveal.plays[:] = [record.plays for record in records]
            catchers: list[int] = []  # rows g * n + seat of the flat arrays below
            depths: list[int] = []
            fish_lens: list[int] = []
            fish: list[int] = []  # deck indices of the fish caught, catcher by catcher
            thieved: list[int] = []
            stolen_from: list[int] = []
            stolen: list[int] = []
            tripled: list[int] = []
            for g, record in enumerate(records):
                row = g * n
                for depth, _, _, winner, _, caught in record.depths:  # DepthResult unpacked: cheaper than its attributes
                    if winner is not None:
                        catchers.append(row + winner)
                        depths.append(depth)
                        fish_lens.append(len(caught))
                        for card in caught:
                            index = by_id.get(id(card))
                            fish.append(index_of[card] if index is None else index)
                for event in record.events:  # R9: each Seagull's theft, each Jellyfish triple
                    if isinstance(event, SeagullTheft):
                        thieved.append(row + event.seat)
                        if event.stolen is not None:
                            stolen_from.append(row + event.seat)
                            stolen.append(index_of[event.stolen])
                    else:
                        tripled.append(row + event.seat)
            reveal.caught_depth[catchers, depths] = 1
            # A seat catches at most once a round (R7, R8), so each catcher's row is written once.
            reveal.caught_stats[catchers] = _segment_sums(stats[np.array(fish, dtype=np.int64)], np.array(fish_lens, dtype=np.int64))
            np.add.at(reveal.stolen_stats, np.array(stolen_from, dtype=np.int64), stats[np.array(stolen, dtype=np.int64)])
            reveal.thefts[:] = np.bincount(thieved, minlength=batch * n)
            reveal.triples[:] = np.bincount(tripled, minlength=batch * n)
        return Reveal(
            plays=reveal.plays,
            caught_depth=reveal.caught_depth.reshape(batch, n, NUM_SPACES),
            caught_stats=reveal.caught_stats.reshape(batch, n, width),
            stolen_stats=reveal.stolen_stats.reshape(batch, n, width),
            thefts=reveal.thefts.reshape(batch, n),
            triples=reveal.triples.reshape(batch, n),
        )


def described(config: GameConfig) -> str:
    """A game config in words, for an error message."""
    deck = "" if config.deck == DEFAULT_DECK else ", another deck"
    rounds = "" if config.rounds == NUM_ROUNDS else f", {config.rounds} rounds"
    return f"{config.num_players} players, open_baskets={config.open_baskets}, no_fighting={config.no_fighting}{rounds}{deck}"


def _few(slots: list[int], shown: int = 8) -> str:
    """Slot numbers for an error message: the first few, and how many in all."""
    return ", ".join(map(str, slots[:shown])) + (f" ... ({len(slots)} in all)" if len(slots) > shown else "")


def _slots_with(batch: int, slot_of: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """(batch,) bool: the slots that own at least one `bad` entry (`slot_of` names each entry's slot)."""
    flagged = np.zeros(batch, dtype=bool)
    flagged[slot_of[bad]] = True
    return flagged


def _segment_positions(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For consecutive segments of the given lengths: each element's segment, and its place in it."""
    segment = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    return segment, np.arange(segment.size) - starts[segment]


def _segment_sums(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The sums of consecutive segments of `rows` (int stats, exact), one per length, as int32."""
    totals = np.zeros((len(rows) + 1, rows.shape[1]), dtype=np.int64)
    np.cumsum(rows, axis=0, out=totals[1:])
    ends = np.cumsum(lengths)
    sums: np.ndarray = (totals[ends] - totals[ends - lengths]).astype(np.int32)
    return sums
