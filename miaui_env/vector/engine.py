"""The batched engine: many games of Miaui as arrays, every seat's card taken at once.

    engine = VectorMiaui(num_envs=4096, num_players=4, seed=0)
    obs, masks = engine.reset()                         # (B, n, 620) float32, (B, n, 12) int8
    obs, masks, rewards, dones, infos = engine.step(actions)   # actions: (B, n) card indices 0-11

It plays B games with the rules of `miaui_env.rules` and returns observations in exactly the env's
encoding (`miaui_env.observation`), for every variant, view and reward mode of the env. Its state
is a few named structures of arrays (`vector.state`), written in place. The branchy per-game work
runs in numba kernels handed those structures whole: the rules in `vector.rule_kernels` (a round's
resolution, round 1's Seagull replacement), the observation in `vector.encode_kernels` (each game's
pieces, the peeks); numpy deals and copies the pieces into the observation buffer in bulk, which it
does faster than numba here.

**Lockstep.** Every game lasts 11 decisions (round 12's card is forced), so the B games of a batch
move in lockstep: one round number for all, and all end together. The step that ends them returns
`dones` all True, rewards, and in `infos` the final observations, masks, scores and winners (SB3's
`terminal_observation` convention); the games have already been replaced by new ones, whose first
observations are what the step returns.

**Seeding.** Slot i of a batch seeded s deals exactly what the reference env deals after
`reset(seed=s + i)` and then, game after game, plain `reset()`: each slot owns a generator, and
dealing is `rules.deal` itself. `reset(decks=...)` stacks the next deal per slot as the env's
`options={"deck": ...}` does. A test plays thousands of games through both and requires identical
observations, masks, rewards, scores and winners at every step.

**Buffers.** The observation array returned is one of the engine's two buffers, overwritten by a
later step (`final_observation` by the step that ends the next episode): copy it to keep it. Masks,
rewards and the other infos are fresh arrays.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
from gymnasium.utils import seeding

from miaui_env.cards import FISH_KINDS, DeckError, FishCard, FishKind, parse_deck_order
from miaui_env.observation import (
    LAGOON_SLOTS,
    OBSERVATION_LAYOUT,
    SEAT_DIM,
    features,
    opponent_row_mask,
    round_columns,
    stats_table,
)
from miaui_env.rules import (
    DEAL_UNIFORMS,
    DECK_SIZE,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    NUM_SPACES,
    Decision,
    GameConfig,
    IllegalActionError,
    InvalidConfigError,
    deep_priority,
    final_rewards,
    illegal_action,
    shallow_priority,
)
from miaui_env.seeding import SeedError, check_seed
from miaui_env.settings import Settings, SettingsKwargs
from miaui_env.vector import encode_kernels, rule_kernels
from miaui_env.vector.state import EncodeTables, GameArrays, ObservationPieces, Reveal, RoundArrays, RuleTables

DECISIONS: tuple[Decision, ...] = tuple(Decision)  # RoundArrays.decisions holds indices into this
_KIND_OF = {kind: i for i, kind in enumerate(FISH_KINDS)}
_SEAGULL, _JELLYFISH, _LANTERN = _KIND_OF[FishKind.SEAGULL], _KIND_OF[FishKind.JELLYFISH], _KIND_OF[FishKind.LANTERN]
_MAX_STACK = NUM_ROUNDS  # a No Fighting space gains one card a round
_MAX_PILE = NUM_ROUNDS * NUM_SPACES
_DEALS_AHEAD = 4  # deals' worth of uniforms drawn per slot at once (one generator call, not four)


class VectorMiaui:
    """B games of Miaui stepped together; see the module docstring."""

    def __init__(self, num_envs: int, *, seed: int | None = None, **settings: Unpack[SettingsKwargs]):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise InvalidConfigError(f"num_envs must be a positive int, got {num_envs!r}")
        self.settings = Settings.of(**settings)
        seed = check_seed(seed)
        check_fits_in_memory(int(num_envs), self.settings.num_players)
        self.config: GameConfig = self.settings.game
        self.num_envs, self.num_players, self.view = int(num_envs), self.settings.num_players, self.settings.view
        batch, n = self.num_envs, self.num_players
        open_baskets, no_fighting, view = self.settings.open_baskets, self.settings.no_fighting, self.settings.view

        stats = stats_table(self.config).astype(np.int32)  # by deck index, then EMPTY, HIDDEN
        card_features = features(stats)
        empty, hidden = len(self.config.deck), len(self.config.deck) + 1
        kinds = stats[:, : len(FISH_KINDS)]
        kind = np.where(kinds.any(axis=1), kinds.argmax(axis=1), -1)
        rounds = range(NUM_ROUNDS + 1)
        # R1 as ranks: ranks[0 deep / 1 shallow, round, seat] is the seat's place in the tie order.
        ranks = np.array(
            [[[0] * n] + [np.argsort(priority(r, n)).tolist() for r in rounds[1:]] for priority in (deep_priority, shallow_priority)]
        )
        self._rules = RuleTables(stats, kind, ranks, _SEAGULL, _JELLYFISH, _LANTERN, empty, no_fighting)
        self._tables = EncodeTables(
            features=card_features,
            stats=stats,
            peek_delta=card_features - card_features[hidden],
            round_columns=np.ascontiguousarray(round_columns(self.config)[:, :n]),
            opponent_mask=opponent_row_mask(view == "recall" or open_baskets).astype(np.float32),
            empty=empty,
            hidden=hidden,
            no_fighting=no_fighting,
        )

        self._rngs = [seeding.np_random(None if seed is None else seed + i)[0] for i in range(batch)]
        self._uniforms = np.zeros((batch, _DEALS_AHEAD, DEAL_UNIFORMS))
        self._deals_left = 0
        self._first_round_gull = kind == _SEAGULL
        self._games, self._seats = np.arange(batch)[:, None], np.arange(n)[None, :]

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
        # (table size, variant, absent seats' rows) are set here once, in both.
        self._buffers = [np.zeros((batch, n, OBSERVATION_LAYOUT.size), dtype=np.float32) for _ in range(2)]
        for buffer in self._buffers:
            OBSERVATION_LAYOUT.view(buffer, "num_players")[:, :, n - MIN_PLAYERS] = 1.0
            OBSERVATION_LAYOUT.view(buffer, "variant")[:] = (open_baskets, no_fighting)
        self._obs = self._buffers[0]
        self._round_one_hot = np.eye(NUM_ROUNDS + 1, NUM_ROUNDS, k=-1, dtype=np.float32)  # row r: round r; 0, 13: none
        # Per-game observation pieces, computed by encode_kernels.encode_pieces and copied into the buffer in bulk.
        self._pieces = ObservationPieces(
            rows=np.zeros((batch, n, SEAT_DIM), dtype=np.float32),
            public_rows=np.zeros((batch, n, SEAT_DIM), dtype=np.float32),
            lagoon=np.zeros((batch, OBSERVATION_LAYOUT.view(self._obs[0, 0], "lagoon").size), dtype=np.float32),
            lagoon_rest=np.zeros((batch, OBSERVATION_LAYOUT.view(self._obs[0, 0], "lagoon_rest").size), dtype=np.float32),
        )
        self._spans = {name: OBSERVATION_LAYOUT.span(name) for name in ("round", "hand", "lagoon", "lagoon_rest", "box", "seats")}
        self._pending_decks: list[list[int] | None] = [None] * batch
        self._new_games()
        self._encode()

    # -- public API ---------------------------------------------------------------------------
    @property
    def observation_dim(self) -> int:
        """Length of one observation vector."""
        return OBSERVATION_LAYOUT.size

    @property
    def nbytes(self) -> int:
        """Bytes held in the engine's arrays: its state, tables and buffers."""
        structures = (self._rules, self._tables, self._game, self._reveal, self._pieces)
        arrays = [a for s in structures for a in s if isinstance(a, np.ndarray)] + [*self._buffers, self._uniforms]
        return sum(a.nbytes for a in arrays)

    def reset(
        self,
        seed: int | None = None,
        decks: Sequence[Sequence[str | FishCard] | None] | None = None,
        seeds: Sequence[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Deal new games in every slot: `seed` reseeds slot i with seed + i, `seeds` gives each slot
        its own (equal seeds deal equal games: duplicate deals), `decks` stacks them. Every argument is
        checked before anything changes (SeedError, DeckError, InvalidConfigError)."""
        start = check_seed(seed)
        if start is not None and seeds is not None:
            raise SeedError("give seed (slot i gets seed + i) or seeds (one per slot), not both")
        slot_seeds: list[int | None] | None = None
        if seeds is not None:
            if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence | np.ndarray) or len(seeds) != self.num_envs:
                raise SeedError(f"seeds must give one seed for each of the {self.num_envs} games, got {seeds!r:.60}")
            slot_seeds = [check_seed(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
        elif start is not None:
            slot_seeds = [start + i for i in range(self.num_envs)]
        pending = self._checked_decks(decks) if decks is not None else self._pending_decks
        # Everything is checked: from here on the call changes the engine.
        self._pending_decks = pending
        if slot_seeds is not None:
            self._rngs = [seeding.np_random(s)[0] for s in slot_seeds]
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

    def action_masks(self) -> np.ndarray:
        """(B, n, 12) int8: 1 for each diver card still in hand."""
        return self._game.hands.copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one round of every game from `actions` (B, n); see the module docstring."""
        plays = self._checked(actions) + 1
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
            rewards[:] = final_rewards(scores, self.settings.reward)
            infos.update(final_observation=self._obs, final_action_mask=masks, scores=scores, winners=winners)
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
        hands = self._game.hands
        bad = (a < 0) | (a >= NUM_DIVER_CARDS)
        if not bad.any():
            bad = hands[self._games, self._seats, a] == 0
        if bad.any():
            g, s = (int(i) for i in np.argwhere(bad)[0])
            raise illegal_action(f"game {g}, player_{s}", int(a[g, s]), hands[g, s])
        return a.astype(np.int64)

    def _new_games(self) -> None:
        """Deal a new game in every slot (R3/R4) and clear everything else."""
        self._deal()
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
        """R3/R4 for every slot, consuming exactly the uniforms `rules.deal` would (so slot i deals
        what the reference env seeded s + i deals): one argsort shuffles all games, and only games
        that meet a Seagull in round 1 go through round 1's replacement (`rule_kernels.first_round_orders`)."""
        if self._deals_left == 0:
            self._uniforms = np.stack([rng.random((_DEALS_AHEAD, DEAL_UNIFORMS)) for rng in self._rngs])
            self._deals_left = _DEALS_AHEAD
        uniforms = self._uniforms[:, _DEALS_AHEAD - self._deals_left]
        self._deals_left -= 1
        order = np.argsort(uniforms[:, :DECK_SIZE], axis=1, kind="stable")
        for slot, stacked in enumerate(self._pending_decks):
            if stacked is not None:
                order[slot] = stacked
        self._pending_decks = [None] * self.num_envs
        placement = self._game.placement
        placement[:] = order[:, 1:]
        # A Seagull among the first three cards sets off R4's replacement; the others deal as they lie.
        replaced = np.flatnonzero(self._first_round_gull[order[:, 1 : 1 + NUM_SPACES]].any(axis=1))
        rule_kernels.first_round_orders(placement, uniforms[:, DECK_SIZE:], replaced, self._rules.kind, _SEAGULL)

    def _resolve(self, plays: np.ndarray) -> RoundArrays:
        """R7/R8 for every game, then restock (R4/R5); the work is `rule_kernels.resolve_round`."""
        shape = (self.num_envs, NUM_SPACES)
        record = RoundArrays(self.round, plays, np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape, np.int64))
        rule_kernels.resolve_round(self._rules, self._game, self._reveal, record)
        self.round += 1
        return record

    # -- observations -------------------------------------------------------------------------
    def _encode(self) -> None:
        """Write every seat's observation into the buffer, exactly as `observation.Encoder` does:
        `encode_kernels.encode_pieces` computes each game's pieces, numpy copies them into place in bulk."""
        batch, n, obs, spans, pieces = self.num_envs, self.num_players, self._obs, self._spans, self._pieces
        encode_kernels.encode_pieces(self._tables, self.round, self._game, self._reveal, pieces)
        obs[:, :, spans["round"]] = self._round_one_hot[self.round % (NUM_ROUNDS + 1)]
        obs[:, :, spans["hand"]] = self._game.hands
        if self.config.no_fighting:
            obs[:, :, spans["lagoon"]] = pieces.lagoon[:, None]
            obs[:, :, spans["lagoon_rest"]] = pieces.lagoon_rest[:, None]
        else:  # a space holds exactly one card: slots 1-2 stay zero
            slot0 = pieces.lagoon.reshape(batch, NUM_SPACES, LAGOON_SLOTS, -1)[:, :, 0]
            OBSERVATION_LAYOUT.view(obs, "lagoon")[:, :, :, 0] = slot0[:, None]
        if self.view == "recall":
            obs[:, :, spans["box"]] = features(self._game.box_stats)[:, None]
        # Seat rows, rotated so that each observer comes first; the others' rows as R11 shows them.
        seats, width = spans["seats"].start, SEAT_DIM
        for seat in range(n):
            obs[:, seat, seats : seats + width] = pieces.rows[:, seat]
            obs[:, seat, seats + width : seats + width * (n - seat)] = pieces.public_rows[:, seat + 1 :].reshape(batch, -1)
            obs[:, seat, seats + width * (n - seat) : seats + width * n] = pieces.public_rows[:, :seat].reshape(batch, -1)
        if self._game.peeker.max() >= 0:
            encode_kernels.add_peeks(obs, self._tables, self._game)

    # -- inspection ---------------------------------------------------------------------------
    def scores(self) -> np.ndarray:
        """(B, n) current scores (R10): the value sum of every pile."""
        return self._game.pile_stats[:, :, len(FISH_KINDS)].copy()


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
