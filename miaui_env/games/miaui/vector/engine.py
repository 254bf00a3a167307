"""The batched engine: many games of Miaui as arrays, every seat's card taken at once.

    engine = VectorMiaui(num_envs=4096, num_players=4, seed=0)
    obs, masks = engine.reset()                         # (B, n, 620) float32, (B, n, 12) int8
    obs, masks, rewards, dones, infos = engine.step(actions)   # actions: (B, n) card indices 0-11

It plays B games with the rules of `miaui_env.games.miaui.rules` and returns observations in exactly the env's
encoding (`miaui_env.games.miaui.observation`), for every variant, view and reward mode of the env. Its state
is a few named structures of arrays (`vector.state`), written in place. The branchy per-game work
runs in numba kernels handed those structures whole: the rules in `vector.rule_kernels` (the deal
with round 1's Seagull replacement, a round's resolution, the action check), the observation in
`vector.encode_kernels` (each game's pieces in a small per-thread scratch, their assembly into
every seat's row, the peeks, one game at a time so that the observation is all they write to memory).

**Observation dtype.** `observation_dtype="uint8"` writes every entry as its exact uint8 code
(`miaui_env.games.miaui.compact`: a quarter of the bytes; `compact.expand_observations` gives the float32
observation back bit for bit); agents and the SB3 VecEnv's opponents still read floats.

**Threads.** `threads=k` runs the kernels on k of numba's threads, each game on one of them, so
the results are the same as on one thread, bit for bit; the deals' random numbers (one generator
per slot) and the bookkeeping stay on the calling thread. The default is one thread.

**Lockstep.** Every game lasts 11 decisions (round 12's card is forced; a short game of k rounds,
MV1, lasts k - 1), so the B games of a batch move in lockstep: one round number for all, and all
end together. The step that ends them returns
`dones` all True, rewards, and in `infos` the final observations, masks, scores and winners (SB3's
`terminal_observation` convention); the games have already been replaced by new ones, whose first
observations are what the step returns.

With `autoreset=False` the games are not replaced: that step returns their final observations
(also as `final_observation`), and the next `step` raises `ResetNeeded` until `reset` or
`load_states` starts new ones (the envs, which deal each game themselves, run one game this way).

**Seeding.** Each slot owns a generator and deals with it game after game exactly as `rules.deal`
does. A batch seeded s gives slot i the stream of child i of s's seed tree
(`seeding.seed_generators`), so no two slots, and no two seeds, share a game;
`reset(seeds=[s_0, ...])` gives slot i the stream of s_i itself (`seeding.seed_generator`), what the
env deals after `reset(seed=s_i)` (equal seeds: duplicate deals). `reset(decks=...)` stacks the next deal per
slot as the env's `options={"deck": ...}` does. `tests/test_vector.py` plays every configuration
through the engine and, beside it, through `rules.play_round` and `encoder.Encoder` on game
states of its own, and requires identical observations, masks, rewards, round records, scores
and winners at every step.

**Loading states.** `load_states(states)` puts one reference `rules.GameState` in each slot (a
search loads sampled worlds for its playouts; `saved_state.load_state` reads one from a file) and
returns the observations and masks that `encoder.Encoder` shows for those states; `step` plays
on from there, and the games end, and new ones are dealt, as usual. Every state must be a game of
the engine's config at one round still to be played (lockstep): `vector.loading` checks them,
naming the slots of any that do not fit, and builds their arrays before anything changes.
`snapshot()` copies every game's arrays and `restore(snapshot)` puts them back, far cheaper than
loading again.

**Reading the state.** `observations`, `game_arrays` and `card_stats` are read-only views of the
current observations, of every game's arrays (`vector.state.GameArrays`: what no seat may see
included, for a privileged critic) and of the card table that names their cards.

**Buffers.** The observation array returned is one of the engine's two buffers, overwritten by a
later step (`final_observation` by the step that ends the next episode): copy it to keep it. Masks,
rewards and the other infos are fresh arrays.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Unpack

import numba
import numpy as np
from gymnasium.error import ResetNeeded

from miaui_env.core.errors import DeckError, IllegalActionError, InvalidConfigError, final_rewards, is_integer
from miaui_env.core.seeding import SeedError, check_seed, seed_generator, seed_generators
from miaui_env.games.miaui.cards import FISH_KINDS, FishCard, FishKind, parse_deck_order
from miaui_env.games.miaui.compact import COMPACT_DTYPE, COMPACT_SCALE, COMPACT_ZERO, empty_compact
from miaui_env.games.miaui.encoder import ROUND_COLUMNS, features, round_columns, stats_table
from miaui_env.games.miaui.observation import (
    FACE_DOWN_PIECES,
    OBSERVATION_LAYOUT,
    SEAT_DIM,
    SEAT_LAYOUT,
    face_down_peeks,
    face_down_public,
    shown_entries,
)
from miaui_env.games.miaui.rules import (
    DEAL_UNIFORMS,
    MIN_PLAYERS,
    NUM_ROUNDS,
    NUM_SPACES,
    Decision,
    GameConfig,
    GameState,
    deep_priority,
    illegal_action,
    shallow_priority,
)
from miaui_env.games.miaui.spec import TableKwargs, TableSpec
from miaui_env.games.miaui.vector import encode_kernels, rule_kernels
from miaui_env.games.miaui.vector.loading import EngineSnapshot, FreshDeals, StateLoader, described
from miaui_env.games.miaui.vector.state import (
    ASSEMBLED_PIECES,
    MAX_PILE,
    MAX_STACK,
    EncodeTables,
    GameArrays,
    ObservationPieces,
    Reveal,
    RoundArrays,
    RuleTables,
)

DECISIONS: tuple[Decision, ...] = tuple(Decision)  # RoundArrays.decisions holds indices into this
_KIND_OF = {kind: i for i, kind in enumerate(FISH_KINDS)}
_SEAGULL, _JELLYFISH, _LANTERN = _KIND_OF[FishKind.SEAGULL], _KIND_OF[FishKind.JELLYFISH], _KIND_OF[FishKind.LANTERN]
_DEALS_AHEAD = 4  # deals' worth of uniforms drawn per slot at once (one generator call, not four)


class VectorMiaui:
    """B games of Miaui stepped together; see the module docstring."""

    def __init__(
        self, num_envs: int, *, seed: int | None = None, threads: int = 1, autoreset: bool = True, **settings: Unpack[TableKwargs]
    ):
        if not is_integer(num_envs) or num_envs < 1:
            raise InvalidConfigError(f"num_envs must be a positive int, got {num_envs!r}")
        if not isinstance(autoreset, bool | np.bool_):
            raise InvalidConfigError(f"autoreset must be True or False, got {autoreset!r}")
        self.autoreset = bool(autoreset)
        self._threads = check_threads(threads)
        self._entry_points: dict[Callable[..., None], tuple[Callable[..., None], tuple[Any, ...]]] = {}
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
        self._rules = RuleTables(stats, kind, ranks, _SEAGULL, _JELLYFISH, _LANTERN, empty, no_fighting, self.config.rounds)
        self.compact = self.table_spec.observation_dtype == "uint8"
        shown = shown_entries(n, view, open_baskets)  # what the declared tables show (R5, R11)
        self._tables = _encode_tables(self.config, n, stats, shown, self.compact)

        self._rngs = seed_generators(seed, batch)
        self._uniforms = np.zeros((batch, _DEALS_AHEAD, DEAL_UNIFORMS))
        self._deals_left = 0
        self._loader = StateLoader(self.config, batch, stats)

        self.round = 1
        self._game = GameArrays(
            hands=np.repeat(self._loader.fresh_hands[None], batch, axis=0),
            lagoon=np.full((batch, NUM_SPACES, MAX_STACK), empty, dtype=np.int16),
            lagoon_len=np.zeros((batch, NUM_SPACES), dtype=np.int64),
            peeker=np.full((batch, NUM_SPACES, MAX_STACK), -1, dtype=np.int8),
            piles=np.full((batch, n, MAX_PILE), empty, dtype=np.int16),
            pile_len=np.zeros((batch, n), dtype=np.int64),
            pile_stats=np.zeros((batch, n, stats.shape[1]), dtype=np.int32),
            box_stats=np.zeros((batch, stats.shape[1]), dtype=np.int32),
            placement=np.zeros((batch, self.config.rounds * NUM_SPACES), dtype=np.int16),
        )
        self._reveal = Reveal(
            plays=np.zeros((batch, n), dtype=np.int64),
            caught_depth=np.zeros((batch, n, NUM_SPACES), dtype=np.int8),
            caught_stats=np.zeros((batch, n, stats.shape[1]), dtype=np.int32),
            stolen_stats=np.zeros((batch, n, stats.shape[1]), dtype=np.int32),
            thefts=np.zeros((batch, n), dtype=np.int32),
            triples=np.zeros((batch, n), dtype=np.int32),
        )
        # The arrays above are written in place and never replaced, so read-only views of them made
        # once show every later state.
        self._game_view = GameArrays(*map(_read_only, self._game))
        self._card_stats_view = _read_only(self._rules.stats)

        # Two observation buffers: at an episode's end the filled one becomes `final_observation` and
        # the new games are written into the other, so no 40 MB copy is made. Pieces no step writes
        # (table size, variant, absent seats' rows) are set here once, in both. In uint8 every
        # entry is its code (`miaui_env.games.miaui.compact`): an empty one is its zero, not 0.
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
        self._unstacked = np.full((batch, len(self.config.deck)), -1, dtype=np.int8)  # what the deal kernel reads when no deck is stacked
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
    def observations(self) -> np.ndarray:
        """(B, n, observation_dim) every seat's observation of the current games, as the last `reset`,
        `step`, `load_states` or `restore` returned them; a read-only view, overwritten by later steps."""
        return _read_only(self._obs)

    @property
    def game_arrays(self) -> GameArrays:
        """Every game's state as the kernels keep it (`vector.state.GameArrays`): read-only views that
        follow the games (copy them to keep them, or take a `snapshot`). It holds what no seat may
        see (the deal, the face-down cards): for privileged critics and tests, never for a policy."""
        return self._game_view

    @property
    def card_stats(self) -> np.ndarray:
        """(cards + 2, stat) int32, read-only: each card's stats by deck index, then EMPTY and HIDDEN
        (`encoder.stats_table`); `game_arrays` names cards by these rows."""
        return self._card_stats_view

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
        (`seeding.seed_generators`), `seeds` gives each slot its own (slot i deals what the env deals after
        `reset(seed=seeds[i])`; equal seeds deal equal games: duplicate deals), `decks` stacks them.
        Every argument is checked before anything changes (SeedError, DeckError, InvalidConfigError)."""
        start = check_seed(seed)
        if start is not None and seeds is not None:
            raise SeedError("give seed (one seed for the batch) or seeds (one per slot), not both")
        rngs: list[np.random.Generator] | None = None
        if seeds is not None:
            if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence | np.ndarray) or len(seeds) != self.num_envs:
                raise SeedError(f"seeds must give one seed for each of the {self.num_envs} games, got {seeds!r:.60}")
            rngs = [seed_generator(check_seed(s, f"seeds[{i}]")) for i, s in enumerate(seeds)]
        elif start is not None:
            rngs = seed_generators(start, self.num_envs)
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
        InvalidConfigError before anything changes (`vector.loading`)."""
        loaded = self._loader.load(states)
        # Everything is checked and built: from here on the call changes the engine.
        if isinstance(loaded, FreshDeals):  # games just dealt: new games of the engine's own, with their cards to come
            self._game.placement[:] = loaded.placement
            self._start_games()
        else:
            self._put(loaded)
        self._encode()
        return self._obs, self.action_masks()

    def start_dealt(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        """`load_states` for games `rules.new_game` has just dealt with this engine's config (the
        envs' reset), unchecked: the rules made them, so the placement (lagoon, then deck) is read
        straight off them. Anything else must go through `load_states`."""
        placement = self._game.placement
        for slot, state in enumerate(states):
            placement[slot, :NUM_SPACES] = [space[0].card for space in state.lagoon]
            placement[slot, NUM_SPACES:] = state.deck
        self._start_games()
        self._encode()
        return self._obs, self.action_masks()

    def snapshot(self) -> EngineSnapshot:
        """A copy of every game's state as it is now, to `restore` later (a search's playouts start
        from one position again and again)."""
        return EngineSnapshot.copy_of(self.round, self._game, self._reveal, self.config)

    def restore(self, snapshot: EngineSnapshot, observe: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
        """Put every game back as `snapshot` took it (copied in place; the snapshot can be restored
        again) and return the observations and masks; generators and stacked decks carry on.
        `observe=False` skips writing the observations (the next `step` writes them) and returns None:
        a search that steps at once saves an encoding of every game. A snapshot of an engine of other
        settings is refused (InvalidConfigError), the engine unchanged."""
        if not isinstance(snapshot, EngineSnapshot) or snapshot.game.hands.shape != self._game.hands.shape:
            raise InvalidConfigError(f"restore takes a snapshot of this engine (engine.snapshot()), got {snapshot!r:.60}")
        if not isinstance(observe, bool | np.bool_):
            raise InvalidConfigError(f"observe must be True or False, got {observe!r:.60}")
        if snapshot.config is not self.config and snapshot.config != self.config:
            # Its arrays would fit, but its games follow other rules (R8's No Fighting, R11's Open Baskets, another deck).
            raise InvalidConfigError(
                f"restore takes a snapshot of an engine with this one's settings; the snapshot's games are of "
                f"{described(snapshot.config)}, this engine plays {described(self.config)}"
            )
        self._put(snapshot)
        if not observe:
            return None
        self._encode()
        return self._obs, self.action_masks()

    def _put(self, snapshot: EngineSnapshot) -> None:
        """Copy a snapshot's arrays into the engine's own (in place: the kernels and views keep them) and take its round."""
        for target, source in (*zip(self._game, snapshot.game, strict=True), *zip(self._reveal, snapshot.reveal, strict=True)):
            np.copyto(target, source)
        self.round = snapshot.round

    def action_masks(self) -> np.ndarray:
        """(B, n, 12) int8: 1 for each diver card still in hand."""
        return self._game.hands.copy()

    def step(self, actions: np.ndarray, *, trusted: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one round of every game from `actions` (B, n); see the module docstring. `trusted`:
        the caller has checked that every action is a card in its seat's hand (the envs check each
        as it comes), and `actions` is an int64 array of that shape; nothing is checked again."""
        if not isinstance(trusted, bool | np.bool_):  # a truthy string would skip every check
            raise IllegalActionError(f"trusted must be True or False, got {trusted!r:.60}")
        if self.round > self.config.rounds:
            raise ResetNeeded("the games are over and autoreset is off: call reset() or load_states() to start new ones")
        # C order and int64 whatever the caller's layout: the kernels' compiled code is looked up once (`_entry_point`).
        plays = np.ascontiguousarray(actions if trusted else self._checked(actions), dtype=np.int64) + 1
        records = [self._resolve(plays)]
        if self.round == self.config.rounds:  # R6: the last card is forced
            records.append(self._resolve(self._game.hands.argmax(axis=2) + 1))
        self._encode()
        masks = self.action_masks()
        done = self.round > self.config.rounds
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
        if np.ma.is_masked(actions):  # its hidden data would be played
            raise IllegalActionError(
                f"actions hold masked entries (numpy.ma) at {np.argwhere(np.ma.getmaskarray(actions)).tolist()!r:.60}; give every card"
            )
        try:
            a = np.asarray(actions)
        except ValueError:  # a ragged nesting of lists
            raise IllegalActionError(f"actions must be an array of shape (num_envs, num_players), got {actions!r:.60}") from None
        shape = (self.num_envs, self.num_players)
        if a.shape != shape:
            raise IllegalActionError(f"actions must have shape (num_envs, num_players) = {shape}, got {a.shape}")
        if a.dtype.kind not in "iu":  # (timedelta64, kind "m", is a numpy integer to issubdtype)
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
        game.hands[:] = self._loader.fresh_hands
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
        """Write every seat's observation into the buffer, exactly as `encoder.Encoder` does
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
            values = (*args, 0, self.num_envs)
            compiled = self._entry_points.get(per_games)
            if compiled is None:
                compiled = self._entry_points[per_games] = _entry_point(per_games, values)
            entry_point, defaults = compiled
            entry_point(*values, *defaults)
        else:
            with self._kernel_threads():
                chunked(*args, self._threads)

    def __getstate__(self) -> dict[str, Any]:
        """The engine's state for a copy or a pickle, less its compiled entry points (looked up again on use)."""
        return {**self.__dict__, "_entry_points": {}}

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


def _entry_point(kernel: Callable[..., None], values: tuple[Any, ...]) -> tuple[Callable[..., None], tuple[Any, ...]]:
    """`kernel`'s compiled code for these values' types, and the defaults of the parameters after them
    (the compiled code takes every parameter).

    numba's dispatcher types every array of every structure on each call, 11 of a kernel call's 16 µs
    in a one-game engine, three calls a round. An engine's arguments keep their types, so each engine
    looks its kernels' code up once and calls it directly after that.
    """
    parameters = list(inspect.signature(kernel.py_func).parameters.values())[len(values) :]  # type: ignore[attr-defined]
    defaults = tuple(parameter.default for parameter in parameters)
    types = tuple(numba.typeof(value) for value in (*values, *defaults))  # type: ignore[no-untyped-call]
    return kernel.compile(types), defaults  # type: ignore[attr-defined]


def check_threads(threads: object) -> int:
    """A thread count for the engine's kernels: 1 up to the threads numba has (its cores by default)."""
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at import, from the cores
    if not is_integer(threads) or not 1 <= threads <= most:
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
        rounds=config.rounds,
    )


def _thread_scratch(threads: int, shape: tuple[int, ...], dtype: np.typing.DTypeLike) -> np.ndarray:
    """A zeroed C-contiguous array of `threads` slots of `shape`, each padded so that no two share a
    cache line: one more row where the piece has rows, else 64 more bytes (the kernels know the
    sizes they use). With two threads writing one line (false sharing), the uint8 encode ran 1.8x
    slower than on one thread."""
    itemsize = np.dtype(dtype).itemsize
    padded = (shape[0] + 1, *shape[1:]) if len(shape) > 1 else (shape[0] + 64 // itemsize,)
    return np.zeros((threads, *padded), dtype=dtype)


def bytes_per_game(num_players: int) -> int:
    """About what one game slot holds: two observation buffers of every seat's vector, plus its state."""
    return 2 * num_players * OBSERVATION_LAYOUT.size * 4 + 6 * 1024


CGROUP_ROOT = Path("/sys/fs/cgroup")  # cgroup v2: memory.max and memory.current of this process's group


def memory_available() -> tuple[int, str] | None:
    """The fewest bytes this process may still take, and what sets that bound: the machine's memory,
    the process's address-space limit (RLIMIT_AS) or its cgroup's memory.max; None where none is known.
    A container or `ulimit -v` can allow far less than the machine has, and then the physical
    figure alone lets a table through that dies allocating."""
    bounds: list[tuple[int, str]] = []
    with contextlib.suppress(ValueError, OSError, AttributeError):  # no such figure on this platform
        bounds.append((os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), "this machine's memory"))
    try:
        import resource
    except ImportError:  # not on Windows
        pass
    else:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            bounds.append((soft - _mapped_bytes(), "what is left under the process's address-space limit (RLIMIT_AS)"))
    with contextlib.suppress(ValueError, OSError):
        limit = (CGROUP_ROOT / "memory.max").read_text().strip()
        if limit != "max":
            used = (CGROUP_ROOT / "memory.current").read_text().strip() if (CGROUP_ROOT / "memory.current").exists() else "0"
            bounds.append((int(limit) - int(used), "what is left under the cgroup's memory.max"))
    return min(bounds) if bounds else None


def _mapped_bytes() -> int:
    """The address space this process already maps (what RLIMIT_AS counts), 0 where /proc does not say."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, IndexError, AttributeError):
        return 0


def check_fits_in_memory(num_envs: int, num_players: int) -> None:
    """InvalidConfigError, saying how much it would take, if `num_envs` games would not fit in the memory this process may use."""
    needed = num_envs * bytes_per_game(num_players)
    available = memory_available()
    if available is not None and needed > available[0]:
        room, bound = available
        raise InvalidConfigError(
            f"num_envs={num_envs} would take about {needed / 2**30:,.1f} GiB ({bytes_per_game(num_players) / 1024:.0f} KiB a game), "
            f"more than {bound}: {max(room, 0) / 2**30:,.1f} GiB"
        )


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of `array` that cannot be written through."""
    view = array.view()
    view.flags.writeable = False
    return view
