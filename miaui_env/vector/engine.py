"""The batched engine: many games of Miaui as arrays, every seat's card taken at once.

    engine = VectorMiaui(num_envs=4096, num_players=4, seed=0)
    obs, masks = engine.reset()                         # (B, n, 620) float32, (B, n, 12) int8
    obs, masks, rewards, dones, infos = engine.step(actions)   # actions: (B, n) card indices 0-11

It plays B games with the rules of `miaui_env.game.rules` and returns observations in exactly the env's
encoding (`miaui_env.observe.observation`), for every variant, view and reward mode of the env. Its state
is a few named structures of arrays (`vector.state`), written in place. The branchy per-game work
runs in numba kernels handed those structures whole: the rules in `vector.rule_kernels` (the deal
with round 1's Seagull replacement, a round's resolution, the action check), the observation in
`vector.encode_kernels` (each game's pieces in a small per-thread scratch, their assembly into
every seat's row, the peeks, one game at a time so that the observation is all they write to memory).

**Observation dtype.** `observation_dtype="uint8"` writes every entry as its exact uint8 code
(`miaui_env.observe.compact`: a quarter of the bytes; `compact.expand_observations` gives the float32
observation back bit for bit); agents and the SB3 VecEnv's opponents still read floats.

**Threads.** `threads=k` runs the kernels on k of numba's threads, each game on one of them, so
the results are the same as on one thread, bit for bit; the deals' random numbers (one generator
per slot) and the bookkeeping stay on the calling thread. The default is one thread.

**Lockstep.** Every game lasts 11 decisions (round 12's card is forced), so the B games of a batch
move in lockstep: one round number for all, and all end together. The step that ends them returns
`dones` all True, rewards, and in `infos` the final observations, masks, scores and winners (SB3's
`terminal_observation` convention); the games have already been replaced by new ones, whose first
observations are what the step returns.

With `autoreset=False` the games are not replaced: that step returns their final observations
(also as `final_observation`), and the next `step` raises `ResetNeeded` until `reset` or
`load_states` starts new ones (the envs, which deal each game themselves, run one game this way).

**Seeding.** Each slot owns a generator and deals with it game after game exactly as `rules.deal`
does. A batch seeded s gives slot i child i of `SeedSequence(s)` (`slot_generators`), so no two
slots, and no two seeds, share a game; `reset(seeds=[s_0, ...])` gives slot i what the env deals
after `reset(seed=s_i)` (equal seeds: duplicate deals). `reset(decks=...)` stacks the next deal per
slot as the env's `options={"deck": ...}` does. `tests/test_vector.py` plays every configuration
through the engine and, beside it, through `rules.play_round` and `observation.Encoder` on game
states of its own, and requires identical observations, masks, rewards, round records, scores
and winners at every step.

**Loading states.** `load_states(states)` puts one reference `rules.GameState` in each slot (a
search loads sampled worlds for its playouts; `saved_state.load_state` reads one from a file) and
returns the observations and masks that `observation.Encoder` shows for those states; `step` plays
on from there, and the games end, and new ones are dealt, as usual. Lockstep asks that every state
be at one round, a round still to be played, and every state must be a game of the engine's config
(table size, variants, deck): anything else is refused with `InvalidConfigError`, naming the
slots, before anything changes. The undealt deck goes where the restock reads it next (R4), and the
last reveal is rebuilt from each state's last `RoundRecord`. A Python loop per state gathers its
cards into flat lists and numpy places and sums them for the whole batch, so a few hundred states
load in a few milliseconds. The engine keeps no reference to the states. `snapshot()` copies every
game's arrays and `restore(snapshot)` puts them back, far cheaper than loading again.

**Buffers.** The observation array returned is one of the engine's two buffers, overwritten by a
later step (`final_observation` by the step that ends the next episode): copy it to keep it. Masks,
rewards and the other infos are fresh arrays.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Unpack

import numba
import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding

from miaui_env.game.cards import DEFAULT_DECK, FISH_KINDS, DeckError, FishCard, FishKind, parse_deck_order
from miaui_env.game.rules import (
    DEAL_UNIFORMS,
    DECK_SIZE,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    NUM_SPACES,
    Decision,
    GameConfig,
    GameState,
    IllegalActionError,
    InvalidConfigError,
    SeagullTheft,
    deep_priority,
    final_rewards,
    illegal_action,
    shallow_priority,
)
from miaui_env.game.seeding import SeedError, check_seed, seed_children
from miaui_env.observe.compact import COMPACT_DTYPE, COMPACT_SCALE, COMPACT_ZERO, empty_compact
from miaui_env.observe.observation import (
    FACE_DOWN_PIECES,
    OBSERVATION_LAYOUT,
    ROUND_COLUMNS,
    SEAT_DIM,
    SEAT_LAYOUT,
    face_down_peeks,
    face_down_public,
    features,
    round_columns,
    shown_entries,
    stats_table,
)
from miaui_env.spec import TableKwargs, TableSpec
from miaui_env.vector import encode_kernels, rule_kernels
from miaui_env.vector.state import ASSEMBLED_PIECES, EncodeTables, GameArrays, ObservationPieces, Reveal, RoundArrays, RuleTables

DECISIONS: tuple[Decision, ...] = tuple(Decision)  # RoundArrays.decisions holds indices into this
_KIND_OF = {kind: i for i, kind in enumerate(FISH_KINDS)}
_SEAGULL, _JELLYFISH, _LANTERN = _KIND_OF[FishKind.SEAGULL], _KIND_OF[FishKind.JELLYFISH], _KIND_OF[FishKind.LANTERN]
_MAX_STACK = NUM_ROUNDS  # a No Fighting space gains one card a round
_MAX_PILE = NUM_ROUNDS * NUM_SPACES
_DEALS_AHEAD = 4  # deals' worth of uniforms drawn per slot at once (one generator call, not four)


class EngineSnapshot(NamedTuple):
    """Every game of an engine at one moment (`VectorMiaui.snapshot`): the round and copies of its arrays."""

    round: int
    game: GameArrays
    reveal: Reveal


class VectorMiaui:
    """B games of Miaui stepped together; see the module docstring."""

    def __init__(
        self, num_envs: int, *, seed: int | None = None, threads: int = 1, autoreset: bool = True, **settings: Unpack[TableKwargs]
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise InvalidConfigError(f"num_envs must be a positive int, got {num_envs!r}")
        if not isinstance(autoreset, bool | np.bool_):
            raise InvalidConfigError(f"autoreset must be True or False, got {autoreset!r}")
        self.autoreset = bool(autoreset)
        self._threads = check_threads(threads)
        self.table_spec = TableSpec.of(**settings)
        seed = check_seed(seed)
        check_fits_in_memory(int(num_envs), self.table_spec.num_players)
        self.config: GameConfig = self.table_spec.game
        self.num_envs, self.num_players, self.view = int(num_envs), self.table_spec.num_players, self.table_spec.view
        batch, n = self.num_envs, self.num_players
        open_baskets, no_fighting, view = self.table_spec.open_baskets, self.table_spec.no_fighting, self.table_spec.view

        stats = stats_table(self.config).astype(np.int32)  # by deck index, then EMPTY, HIDDEN
        empty = len(self.config.deck)
        kinds = stats[:, : len(FISH_KINDS)]
        kind = np.where(kinds.any(axis=1), kinds.argmax(axis=1), -1)
        rounds = range(NUM_ROUNDS + 1)
        # R1 as ranks: ranks[0 deep / 1 shallow, round, seat] is the seat's place in the tie order.
        ranks = np.array(
            [[[0] * n] + [np.argsort(priority(r, n)).tolist() for r in rounds[1:]] for priority in (deep_priority, shallow_priority)]
        )
        self._rules = RuleTables(stats, kind, ranks, _SEAGULL, _JELLYFISH, _LANTERN, empty, no_fighting)
        self.compact = self.table_spec.observation_dtype == "uint8"
        shown = shown_entries(n, view, open_baskets)  # what the declared tables show (R5, R11)
        self._tables = _encode_tables(self.config, n, stats, shown, self.compact)

        self._rngs = slot_generators(seed, batch)
        self._uniforms = np.zeros((batch, _DEALS_AHEAD, DEAL_UNIFORMS))
        self._deals_left = 0
        # A record's FishCard -> a deck index with its stats (equal cards have equal stats). Records name
        # the config's own card objects, so their ids find them first: hashing a FishCard runs Python code.
        self._card_index = {card: index for index, card in enumerate(self.config.deck)}
        self._card_index_by_id = {id(card): index for index, card in enumerate(self.config.deck)}

        self.round = 1
        self._game = GameArrays(
            hands=np.ones((batch, n, NUM_DIVER_CARDS), dtype=np.int8),
            lagoon=np.full((batch, NUM_SPACES, _MAX_STACK), empty, dtype=np.int16),
            lagoon_len=np.zeros((batch, NUM_SPACES), dtype=np.int64),
            peeker=np.full((batch, NUM_SPACES, _MAX_STACK), -1, dtype=np.int8),
            piles=np.full((batch, n, _MAX_PILE), empty, dtype=np.int16),
            pile_len=np.zeros((batch, n), dtype=np.int64),
            pile_stats=np.zeros((batch, n, stats.shape[1]), dtype=np.int32),
            box_stats=np.zeros((batch, stats.shape[1]), dtype=np.int32),
            placement=np.zeros((batch, NUM_ROUNDS * NUM_SPACES), dtype=np.int16),
        )
        self._reveal = Reveal(
            plays=np.zeros((batch, n), dtype=np.int64),
            caught_depth=np.zeros((batch, n, NUM_SPACES), dtype=np.int8),
            caught_stats=np.zeros((batch, n, stats.shape[1]), dtype=np.int32),
            stolen_stats=np.zeros((batch, n, stats.shape[1]), dtype=np.int32),
            thefts=np.zeros((batch, n), dtype=np.int32),
            triples=np.zeros((batch, n), dtype=np.int32),
        )

        # Two observation buffers: at an episode's end the filled one becomes `final_observation` and
        # the new games are written into the other, so no 40 MB copy is made. Pieces no step writes
        # (table size, variant, absent seats' rows) are set here once, in both. In uint8 every
        # entry is its code (`miaui_env.observe.compact`): an empty one is its zero, not 0.
        shape = (batch, n, OBSERVATION_LAYOUT.size)
        self._buffers = [empty_compact(shape) if self.compact else np.zeros(shape, dtype=np.float32) for _ in range(2)]
        for buffer in self._buffers:  # flags: scale 1, zero 0 in either dtype; shown as the tables declare (R11)
            OBSERVATION_LAYOUT.view(buffer, "num_players")[:, :, n - MIN_PLAYERS] = _whole_piece_shown(shown, "num_players")
            OBSERVATION_LAYOUT.view(buffer, "variant")[:] = np.multiply((open_baskets, no_fighting), _whole_piece_shown(shown, "variant"))
        self._obs = self._buffers[0]
        # One game's observation pieces per thread, in the observation's dtype, written and assembled by
        # encode_kernels.encode while still in that core's cache.
        lagoon_size, rest_size = (OBSERVATION_LAYOUT.view(self._obs[0, 0], name).size for name in ("lagoon", "lagoon_rest"))
        shapes = ((n, SEAT_DIM), (n, SEAT_DIM), (lagoon_size,), (rest_size,))
        self._scratch = ObservationPieces(*(_thread_scratch(self._threads, shape, self._obs.dtype) for shape in shapes))
        self._pending_decks: list[list[int] | None] = [None] * batch
        self._unstacked = np.full((batch, DECK_SIZE), -1, dtype=np.int8)  # what the deal kernel reads when no deck is stacked
        self._unstacked.flags.writeable = False
        self._new_games()
        self._encode()

    # -- public API ---------------------------------------------------------------------------
    @property
    def threads(self) -> int:
        """numba threads the kernels run on (fixed at construction: each has its scratch)."""
        return self._threads

    @property
    def observation_dim(self) -> int:
        """Length of one observation vector."""
        return OBSERVATION_LAYOUT.size

    @property
    def nbytes(self) -> int:
        """Bytes held in the engine's arrays: its state, tables and buffers."""
        structures = (self._rules, self._tables, self._game, self._reveal, self._scratch)
        arrays = [a for s in structures for a in s if isinstance(a, np.ndarray)] + [*self._buffers, self._uniforms, self._unstacked]
        return sum(a.nbytes for a in arrays)

    def reset(
        self,
        seed: int | None = None,
        decks: Sequence[Sequence[str | FishCard] | None] | None = None,
        seeds: Sequence[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Deal new games in every slot: `seed` reseeds slot i with child i of the seed's tree
        (`slot_generators`), `seeds` gives each slot its own (slot i deals what the env deals after
        `reset(seed=seeds[i])`; equal seeds deal equal games: duplicate deals), `decks` stacks them.
        Every argument is checked before anything changes (SeedError, DeckError, InvalidConfigError)."""
        start = check_seed(seed)
        if start is not None and seeds is not None:
            raise SeedError("give seed (one seed for the batch) or seeds (one per slot), not both")
        rngs: list[np.random.Generator] | None = None
        if seeds is not None:
            if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence | np.ndarray) or len(seeds) != self.num_envs:
                raise SeedError(f"seeds must give one seed for each of the {self.num_envs} games, got {seeds!r:.60}")
            rngs = [seeding.np_random(check_seed(s, f"seeds[{i}]"))[0] for i, s in enumerate(seeds)]
        elif start is not None:
            rngs = slot_generators(start, self.num_envs)
        pending = self._checked_decks(decks) if decks is not None else self._pending_decks
        # Everything is checked: from here on the call changes the engine.
        self._pending_decks = pending
        if rngs is not None:
            self._rngs = rngs
            self._deals_left = 0
        self._new_games()
        self._encode()
        return self._obs, self.action_masks()

    def set_decks(self, decks: Sequence[Sequence[str | FishCard] | None]) -> None:
        """Stack the next deal of each slot (None: shuffle as usual); checked before anything changes."""
        self._pending_decks = self._checked_decks(decks)

    def _checked_decks(self, decks: Sequence[Sequence[str | FishCard] | None]) -> list[list[int] | None]:
        """Each slot's stacked deck order (None: shuffled), or DeckError naming the slot."""
        if isinstance(decks, str | bytes) or not isinstance(decks, Sequence | np.ndarray) or len(decks) != self.num_envs:
            raise DeckError(f"decks must give one deck (or None) for each of the {self.num_envs} games, got {decks!r:.60}")
        orders: list[list[int] | None] = []
        for slot, deck in enumerate(decks):
            try:
                orders.append(None if deck is None else parse_deck_order(deck, self.config.deck))
            except DeckError as error:
                raise DeckError(f"decks[{slot}]: {error}") from None
        return orders

    def load_states(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        """Put one `rules.GameState` in each slot and return every seat's observation and mask as the
        reference Encoder shows them; `step` plays on from there. The states must be games of this
        engine's config, all at one round still to be played (lockstep); anything else is refused with
        InvalidConfigError before anything changes."""
        round_number = self._checked_states(states)
        placement = self._fresh_placement(states) if round_number == 1 else None
        if placement is not None:  # games just dealt: a new game of the engine's own, with their cards to come
            self._game.placement[:] = placement
            self._start_games()
        else:
            game, reveal = self._state_arrays(states, round_number)
            # Everything is checked and built: from here on the call changes the engine.
            for target, source in (*zip(self._game, game, strict=True), *zip(self._reveal, reveal, strict=True)):
                np.copyto(target, source)
            self.round = round_number
        self._encode()
        return self._obs, self.action_masks()

    def _fresh_placement(self, states: Sequence[GameState]) -> np.ndarray | None:
        """The placement (the lagoon's cards, then the undealt deck, top first: what restocking reads,
        R4) of states that are games just dealt (`rules.new_game`: full hands, one unpeeked card in
        each lagoon space, no pile, an empty box); None if any state is not, or names no card."""
        for state in states:
            if state.box or any(state.piles) or any(len(space) != 1 or space[0].peeker is not None for space in state.lagoon):
                return None
            if not (state.hands == 1).all():
                return None
        placement = np.array([[*(space[0].card for space in state.lagoon), *state.deck] for state in states], dtype=np.int64)
        if placement.shape != self._game.placement.shape or ((placement < 0) | (placement >= len(self.config.deck))).any():
            return None  # the general path names what is wrong
        return placement

    def snapshot(self) -> EngineSnapshot:
        """A copy of every game's state as it is now, to `restore` later (a search's playouts start
        from one position again and again)."""
        return EngineSnapshot(self.round, GameArrays(*(a.copy() for a in self._game)), Reveal(*(a.copy() for a in self._reveal)))

    def restore(self, snapshot: EngineSnapshot, observe: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
        """Put every game back as `snapshot` took it (copied in place; the snapshot can be restored
        again) and return the observations and masks; generators and stacked decks carry on.
        `observe=False` skips writing the observations (the next `step` writes them) and returns None:
        a search that steps at once saves an encoding of every game."""
        if not isinstance(snapshot, EngineSnapshot) or snapshot.game.hands.shape != self._game.hands.shape:
            raise InvalidConfigError(f"restore takes a snapshot of this engine (engine.snapshot()), got {snapshot!r:.60}")
        for target, source in (*zip(self._game, snapshot.game, strict=True), *zip(self._reveal, snapshot.reveal, strict=True)):
            np.copyto(target, source)
        self.round = snapshot.round
        if not observe:
            return None
        self._encode()
        return self._obs, self.action_masks()

    def _checked_states(self, states: Sequence[GameState]) -> int:
        """The round every state is at, or InvalidConfigError naming the slots that do not fit."""
        if isinstance(states, str | bytes) or not isinstance(states, Sequence):
            raise InvalidConfigError(f"states must be a sequence of one rules.GameState for each of the {self.num_envs} games")
        if len(states) != self.num_envs:
            raise InvalidConfigError(f"states must give one GameState for each of the {self.num_envs} games, got {len(states)}")
        n, deck_size = self.num_players, len(self.config.deck)
        # Configs already found equal to the engine's, by id (the states keep them alive through the
        # call): comparing two configs whose decks were parsed apart compares 37 cards, ~14 us.
        equal_configs = {id(self.config)}
        for slot, state in enumerate(states):
            if not isinstance(state, GameState):
                raise InvalidConfigError(f"states[{slot}] is a {type(state).__name__}, not a rules.GameState")
            if id(state.config) not in equal_configs:
                if state.config != self.config:
                    raise InvalidConfigError(
                        f"states[{slot}] is a game of {_described(state.config)}; this engine plays {_described(self.config)}"
                    )
                equal_configs.add(id(state.config))
            if state.round > NUM_ROUNDS:
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

    def _state_arrays(self, states: Sequence[GameState], round_number: int) -> tuple[GameArrays, Reveal]:
        """The engine's arrays for `states` (checked by `_checked_states`), built apart from the engine's own.

        A Python loop per state gathers each kind of card into one flat list, and numpy scatters
        and sums them for the whole batch: Python touches single cards only in the lagoon and the
        last reveal, a few a game."""
        batch, n, empty, stats = self.num_envs, self.num_players, self._rules.empty, self._rules.stats
        width, deck_size = stats.shape[1], len(self.config.deck)
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

        # What would not fit the arrays, or is no card: refused here, naming the slot, before any write.
        lagoon_len, pile_len = np.array(lagoon_lens).reshape(batch, NUM_SPACES), np.array(pile_lens).reshape(batch, n)
        lagoon_slot = np.repeat(np.arange(batch * NUM_SPACES) // NUM_SPACES, lagoon_len.ravel())
        pile_slot = np.repeat(np.arange(batch * n) // n, pile_len.ravel())
        cards = np.concatenate([lagoon_cards_array, pile_cards, box_cards, deck_cards])
        box_slot, deck_slot = np.repeat(np.arange(batch), box_lens), np.repeat(np.arange(batch), len(deck_cards) // batch)
        card_slot = np.concatenate([lagoon_slot, pile_slot, box_slot, deck_slot])
        problems = [
            (f"has a lagoon space holding more cards than the {round_number} dealt to it (R4)", (lagoon_len > round_number).any(axis=1)),
            (f"has a pile of more than {_MAX_PILE} cards", (pile_len > _MAX_PILE).any(axis=1)),
            ("has a card index outside config.deck", _slots_with(batch, card_slot, (cards < 0) | (cards >= deck_size))),
            (
                f"has a lagoon peeker that is no seat 0-{n - 1}",
                _slots_with(batch, lagoon_slot, (peekers_array < -1) | (peekers_array >= n)),
            ),
            (
                f"has a hand that does not hold the {NUM_DIVER_CARDS + 1 - round_number} diver cards left at round {round_number} (R6)",
                ((hands != 0) & (hands != 1)).any(axis=(1, 2)) | (hands.sum(axis=2) != NUM_DIVER_CARDS + 1 - round_number).any(axis=1),
            ),
        ]
        for problem, slots in problems:
            if slots.any():
                raise InvalidConfigError(f"states[{int(np.argmax(slots))}] {problem}")

        game = GameArrays(
            hands=hands,
            lagoon=np.full((batch * NUM_SPACES, _MAX_STACK), empty, dtype=np.int16),
            lagoon_len=lagoon_len.astype(np.int64),
            peeker=np.full((batch * NUM_SPACES, _MAX_STACK), -1, dtype=np.int8),
            piles=np.full((batch * n, _MAX_PILE), empty, dtype=np.int16),
            pile_len=pile_len.astype(np.int64),
            pile_stats=_segment_sums(stats[pile_cards], pile_len.ravel()).reshape(batch, n, width),
            box_stats=_segment_sums(stats[box_cards], np.array(box_lens)),
            placement=np.full((batch, NUM_ROUNDS * NUM_SPACES), empty, dtype=np.int16),
        )
        rows, slots_within = _segment_positions(lagoon_len.ravel())
        game.lagoon[rows, slots_within] = lagoon_cards_array
        game.peeker[rows, slots_within] = peekers_array
        rows, slots_within = _segment_positions(pile_len.ravel())
        game.piles[rows, slots_within] = pile_cards
        # R4: restocking after round r reads placement[3r:3r + 3]; the undealt deck, top first, goes there.
        game.placement[:, NUM_SPACES * round_number :] = deck_cards.reshape(batch, -1)
        game = game._replace(
            lagoon=game.lagoon.reshape(batch, NUM_SPACES, _MAX_STACK),
            peeker=game.peeker.reshape(batch, NUM_SPACES, _MAX_STACK),
            piles=game.piles.reshape(batch, n, _MAX_PILE),
        )
        return game, self._last_reveal(states, round_number)

    def _last_reveal(self, states: Sequence[GameState], round_number: int) -> Reveal:
        """The Reveal arrays of each state's last round record (zeros before the first reveal)."""
        batch, n, stats = self.num_envs, self.num_players, self._rules.stats
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

    def action_masks(self) -> np.ndarray:
        """(B, n, 12) int8: 1 for each diver card still in hand."""
        return self._game.hands.copy()

    def step(self, actions: np.ndarray, *, trusted: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one round of every game from `actions` (B, n); see the module docstring. `trusted`:
        the caller has checked that every action is a card in its seat's hand (the envs check each
        as it comes), and `actions` is an int64 array of that shape; nothing is checked again."""
        if self.round > NUM_ROUNDS:
            raise ResetNeeded("the games are over and autoreset is off: call reset() or load_states() to start new ones")
        plays = (actions if trusted else self._checked(actions)) + 1
        records = [self._resolve(plays)]
        if self.round == NUM_ROUNDS:  # R6: the last card is forced
            records.append(self._resolve(self._game.hands.argmax(axis=2) + 1))
        self._encode()
        masks = self.action_masks()
        done = self.round > NUM_ROUNDS
        rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        infos: dict[str, Any] = {"rounds": records}
        if done:
            scores = self.scores()
            winners = scores == scores.max(axis=1, keepdims=True)
            rewards[:] = final_rewards(scores, self.table_spec.reward)
            infos.update(final_observation=self._obs, final_action_mask=masks, scores=scores, winners=winners)
            if self.autoreset:
                self._obs = self._buffers[self._obs is self._buffers[0]]
                self._new_games()
                self._encode()
                masks = self.action_masks()
        return self._obs, masks, rewards, np.full(self.num_envs, done), infos

    # -- rules --------------------------------------------------------------------------------
    def _checked(self, actions: np.ndarray) -> np.ndarray:
        """The actions as int64 card indices, or IllegalActionError naming the game and seat."""
        try:
            a = np.asarray(actions)
        except ValueError:  # a ragged nesting of lists
            raise IllegalActionError(f"actions must be an array of shape (num_envs, num_players), got {actions!r:.60}") from None
        shape = (self.num_envs, self.num_players)
        if a.shape != shape:
            raise IllegalActionError(f"actions must have shape (num_envs, num_players) = {shape}, got {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):
            raise IllegalActionError(f"actions must be integer card indices 0-11, got dtype {a.dtype}")
        if not a.dtype.isnative:  # (numba compiles for native byte order only)
            a = a.astype(a.dtype.newbyteorder("="))
        hands = self._game.hands
        first = rule_kernels.first_illegal_action(hands, a)
        if first >= 0:
            g, s = divmod(first, self.num_players)
            raise illegal_action(f"game {g}, player_{s}", int(a[g, s]), hands[g, s])
        return a.astype(np.int64, copy=False)

    def _new_games(self) -> None:
        """Deal a new game in every slot (R3/R4) and clear everything else."""
        self._deal()
        self._start_games()

    def _start_games(self) -> None:
        """Start every slot's game from its placement: full hands, the first three cards in the lagoon, nothing else."""
        self.round = 1
        game = self._game
        game.hands.fill(1)
        game.lagoon.fill(self._rules.empty)
        game.lagoon[:, :, 0] = game.placement[:, :NUM_SPACES]
        game.lagoon_len.fill(1)
        game.peeker.fill(-1)
        game.pile_len.fill(0)
        game.pile_stats.fill(0)
        game.box_stats.fill(0)
        for array in self._reveal:  # no reveal yet
            array.fill(0)

    def _deal(self) -> None:
        """R3/R4 for every slot, consuming exactly the uniforms `rules.deal` would (so a slot deals
        what `rules.new_game` deals with the slot's generator): `rule_kernels.deal_games` shuffles each game, or
        takes its stacked deck (`reset(decks=...)`, `set_decks`), and replaces round 1's Seagulls."""
        if self._deals_left == 0:
            for rng, slot_uniforms in zip(self._rngs, self._uniforms, strict=True):  # in place: no 4096 arrays to stack
                rng.random(out=slot_uniforms)
            self._deals_left = _DEALS_AHEAD
        uniforms = self._uniforms[:, _DEALS_AHEAD - self._deals_left]
        self._deals_left -= 1
        stacked = self._unstacked  # the deal kernel's stacked decks: a row of -1 shuffles (a fresh array when any is stacked)
        if any(order is not None for order in self._pending_decks):
            stacked = self._unstacked.copy()
            for slot, order in enumerate(self._pending_decks):
                if order is not None:
                    stacked[slot] = order
        self._over_games(rule_kernels.deal_games, rule_kernels.deal, uniforms, stacked, self._game.placement, self._rules.kind, _SEAGULL)
        self._pending_decks = [None] * self.num_envs

    def _resolve(self, plays: np.ndarray) -> RoundArrays:
        """R7/R8 for every game, then restock (R4/R5); the work is `rule_kernels.resolve_round`."""
        shape = (self.num_envs, NUM_SPACES)
        record = RoundArrays(self.round, plays, np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape, np.int64))
        self._over_games(rule_kernels.resolve_games, rule_kernels.resolve_round, self._rules, self._game, self._reveal, record)
        self.round += 1
        return record

    # -- observations -------------------------------------------------------------------------
    def _encode(self) -> None:
        """Write every seat's observation into the buffer, exactly as `observation.Encoder` does
        (`encode_kernels.encode`: each game's pieces, their assembly into every seat's row, the peeks, R5)."""
        self._over_games(
            encode_kernels.encode_games,
            encode_kernels.encode,
            self._tables,
            self.round,
            self._game,
            self._reveal,
            self._obs,
            self._scratch,
        )

    def _over_games(self, per_games: Callable[..., None], chunked: Callable[..., None], *args: Any) -> None:
        """A kernel over every game. One thread: the per-game function itself, on the calling thread
        (no parallel launch, no switch of numba's thread count); more: `chunked`, the games cut into
        `threads` chunks on numba's threads. Each game's work is the same function either way."""
        if self._threads == 1:
            per_games(*args, 0, self.num_envs)
        else:
            with self._kernel_threads():
                chunked(*args, self._threads)

    @contextlib.contextmanager
    def _kernel_threads(self) -> Iterator[None]:
        """numba's thread count set to the engine's for its kernels, and the caller's put back after."""
        previous = numba.get_num_threads()
        numba.set_num_threads(self._threads)
        try:
            yield
        finally:
            numba.set_num_threads(previous)

    # -- inspection ---------------------------------------------------------------------------
    def scores(self) -> np.ndarray:
        """(B, n) current scores (R10): the value sum of every pile."""
        return self._game.pile_stats[:, :, len(FISH_KINDS)].copy()


def slot_generators(seed: int | None, count: int) -> list[np.random.Generator]:
    """The deal generators of `count` slots seeded `seed`: slot i's is child i of the seed's
    SeedSequence (`seeding.seed_children`), so slots, and batches of different seeds, share no
    stream; a fresh tree for None."""
    root = np.random.SeedSequence() if seed is None else seed
    return [np.random.Generator(np.random.PCG64(child)) for child in seed_children(root, count)]


def check_threads(threads: object) -> int:
    """A thread count for the engine's kernels: 1 up to the threads numba has (its cores by default)."""
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at import, from the cores
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer) or not 1 <= threads <= most:
        raise InvalidConfigError(f"threads={threads!r} is not allowed; it must be an integer from 1 to {most} (numba's threads here)")
    return int(threads)


def _whole_piece_shown(shown: np.ndarray, name: str) -> bool:
    """Whether the declared tables show observation piece `name` (`shown`: observation.shown_entries);
    the kernels show or hide a piece of the table's head whole."""
    entries = OBSERVATION_LAYOUT.view(shown, name)
    if entries.all() != entries.any():
        raise ValueError(f"the visibility tables show part of piece {name!r}; the compiled encoder shows a piece whole or not at all")
    return bool(entries.all())


def _encode_tables(config: GameConfig, n: int, stats: np.ndarray, visible: np.ndarray, compact: bool) -> EncodeTables:
    """The encode kernels' tables: the reference encoder's own features and round columns (for
    uint8 observations their codes, as `compact.compact_observations` computes them), and what
    each seat is shown (`visible`: observation.shown_entries), compiled from observation's declared
    visibility tables (R5, R11)."""
    seats = OBSERVATION_LAYOUT.offset("seats")
    summary = SEAT_LAYOUT.span("pile_summary")
    card_span, summary_span = (
        OBSERVATION_LAYOUT.span("box"),
        slice(seats + summary.start, seats + summary.stop),
    )  # the box: a card's features
    seat_row = slice(seats, seats + SEAT_DIM)
    round_places = [seats + SEAT_LAYOUT.offset(name) for name in ROUND_COLUMNS]

    def entries(values: np.ndarray, places: slice | list[int]) -> np.ndarray:
        """Float32 entries in the observation's dtype; `places`: where they sit in the layout (the last axis)."""
        floats = np.ascontiguousarray(values, dtype=np.float32)
        if not compact:
            return floats
        codes = np.rint(floats.astype(np.float64) * COMPACT_SCALE[places]) + COMPACT_ZERO[places]
        return np.ascontiguousarray(codes, dtype=COMPACT_DTYPE)

    card_features = features(stats)
    hidden = len(config.deck) + 1
    own_row, shown = OBSERVATION_LAYOUT.view(visible, "seats")[:2]  # the observer's row, then an opponent's
    if not own_row.all():
        raise ValueError("the visibility tables hide part of the observer's own seat row; the compiled encoder shows it whole")
    row_zero = entries(np.zeros(SEAT_DIM), seat_row)
    return EncodeTables(
        features=entries(card_features, card_span),
        stats=stats,
        # What a peeker adds to a face-down card (R5): its features less HIDDEN's, or in codes its stats less HIDDEN's.
        peek_delta=(stats - stats[hidden]).astype(np.int16) if compact else card_features - card_features[hidden],
        round_columns=entries(round_columns(config)[:, :n], round_places),
        shown=np.array([_whole_piece_shown(visible, name) for name in ASSEMBLED_PIECES]),
        face_down_public=np.array([face_down_public(name) for name in FACE_DOWN_PIECES]),
        peeks=np.array(face_down_peeks(visible)),
        opponent_mask=shown.astype(np.float32),
        row_zero=row_zero,
        keep=shown.astype(COMPACT_DTYPE),
        hidden_zero=np.where(shown != 0, 0, row_zero).astype(COMPACT_DTYPE),
        card_zero=COMPACT_ZERO[card_span].copy(),
        summary_zero=COMPACT_ZERO[summary_span].copy(),
        empty=len(config.deck),
        hidden=hidden,
    )


def _thread_scratch(threads: int, shape: tuple[int, ...], dtype: np.typing.DTypeLike) -> np.ndarray:
    """A zeroed C-contiguous array of `threads` slots of `shape`, each padded so that no two share a
    cache line: one more row where the piece has rows, else 64 more bytes (the kernels know the
    sizes they use). With two threads writing one line (false sharing), the uint8 encode ran 1.8x
    slower than on one thread."""
    itemsize = np.dtype(dtype).itemsize
    padded = (shape[0] + 1, *shape[1:]) if len(shape) > 1 else (shape[0] + 64 // itemsize,)
    return np.zeros((threads, *padded), dtype=dtype)


def _described(config: GameConfig) -> str:
    """A game config in words, for an error message."""
    deck = "" if config.deck == DEFAULT_DECK else ", another deck"
    return f"{config.num_players} players, open_baskets={config.open_baskets}, no_fighting={config.no_fighting}{deck}"


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


def bytes_per_game(num_players: int) -> int:
    """About what one game slot holds: two observation buffers of every seat's vector, plus its state."""
    return 2 * num_players * OBSERVATION_LAYOUT.size * 4 + 6 * 1024


def check_fits_in_memory(num_envs: int, num_players: int) -> None:
    """InvalidConfigError, saying how much it would take, if `num_envs` games would not fit in this machine's memory."""
    needed = num_envs * bytes_per_game(num_players)
    try:
        available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no such figure on this platform: nothing to compare with
        return
    if needed > available:
        raise InvalidConfigError(
            f"num_envs={num_envs} would take about {needed / 2**30:,.1f} GiB ({bytes_per_game(num_players) / 1024:.0f} KiB a game), "
            f"more than this machine's {available / 2**30:,.1f} GiB of memory"
        )
