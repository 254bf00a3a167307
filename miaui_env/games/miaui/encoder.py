"""A game written into the canvas after each reveal: card features and the `Encoder`.

The canvas (`observation.CANVAS`) is the whole game in one flat float32 vector, absolute seats,
hidden information included. `Encoder.refresh` rewrites it after every reveal (only what a reveal
can change: the round, the hands, the lagoon, the catchers' piles, the box, the last reveal), and a
seat's observation is a gather from it through the seat's static index map
(`observation.observation_index`), where R11 is decided; a face-down lagoon card is added for its
peeker alone (R5). A card is integer stats (one-hot kind, printed value, hidden flag) whose sums are
exact, turned into features by `features`: both engines go through it, so they agree bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from miaui_env.core.errors import InvalidConfigError, is_integer
from miaui_env.games.miaui.cards import FISH_KINDS, FishCard
from miaui_env.games.miaui.observation import (
    CANVAS,
    CARD_DIM,
    COUNT_SCALE,
    FACE_DOWN_PIECES,
    HEIGHT_SCALE,
    HIDDEN_FEATURE,
    LAGOON_SLOTS,
    LAST_ROUND_LAYOUT,
    OBSERVATION_LAYOUT,
    PILE_SLOTS,
    VALUE_SCALE,
    check_view,
    face_down_peeks,
    face_down_public,
    observation_index,
    shown_entries,
    state_index,
)
from miaui_env.games.miaui.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ROUNDS,
    NUM_SPACES,
    GameConfig,
    GameState,
    SeagullTheft,
    deep_priority,
    kiti_seat,
    new_hands,
    shallow_priority,
)


def card_stats(card: FishCard) -> np.ndarray:
    """A card as integer stats: one-hot kind, printed value, hidden flag (0). Sums of stats are exact."""
    stats = np.zeros(CARD_DIM, dtype=np.int64)
    stats[FISH_KINDS.index(card.kind)] = 1
    stats[len(FISH_KINDS)] = card.value
    return stats


def stats_table(config: GameConfig) -> np.ndarray:
    """Card stats by deck index, then two extra rows: EMPTY (zeros) and HIDDEN (the flag)."""
    table = np.zeros((len(config.deck) + 2, CARD_DIM), dtype=np.int64)
    for i, card in enumerate(config.deck):
        table[i] = card_stats(card)
    table[len(config.deck) + 1, HIDDEN_FEATURE] = 1
    return table


STATS_DIVISOR = np.ones(CARD_DIM)  # features = stats / STATS_DIVISOR: only the value is scaled
STATS_DIVISOR[len(FISH_KINDS)] = VALUE_SCALE


def features(stats: np.ndarray) -> np.ndarray:
    """Card features from (sums of) card stats. Both engines go through here, so they agree exactly."""
    return (np.asarray(stats) / STATS_DIVISOR).astype(np.float32)


def card_features(card: FishCard) -> np.ndarray:
    """The CARD_DIM features of a face-up card."""
    return features(card_stats(card))


ROUND_COLUMNS = ("kiti", "deep_priority", "shallow_priority")  # the seat-row pieces that move with the round (R1)


def round_columns(config: GameConfig) -> np.ndarray:
    """Per round (index 1-13) and seat: the ROUND_COLUMNS pieces of the seat's row, in that order."""
    n = config.num_players
    columns = np.zeros((NUM_ROUNDS + 2, MAX_PLAYERS, 3), dtype=np.float32)
    if config.no_fighting:
        return columns
    for r in range(1, NUM_ROUNDS + 2):
        columns[r, kiti_seat(r, n), 0] = 1.0
        for rank, seat in enumerate(deep_priority(r, n)):
            columns[r, seat, 1] = 1.0 - rank / n
        for rank, seat in enumerate(shallow_priority(r, n)):
            columns[r, seat, 2] = 1.0 - rank / n
    return columns


def pile_summary(stats: np.ndarray, height: np.ndarray | int) -> np.ndarray:
    """A pile_summary from the pile's summed card stats: height, kind counts and value sum, each scaled."""
    summary = np.empty((*np.shape(stats)[:-1], CARD_DIM), dtype=np.float64)
    summary[..., 0] = np.asarray(height) / HEIGHT_SCALE
    summary[..., 1:] = np.asarray(stats)[..., : CARD_DIM - 1] / COUNT_SCALE
    summary[..., CARD_DIM - 1] /= VALUE_SCALE
    return summary.astype(np.float32)


class Encoder:
    """Builds the observations (and the global state) of one game after each reveal."""

    def __init__(self, config: GameConfig, view: str = "table"):
        if not isinstance(config, GameConfig):
            raise InvalidConfigError(f"an Encoder takes a rules.GameConfig, got {config!r:.60}")
        check_view(view)
        self.config, self.view = config, view
        n = config.num_players
        self.stats = stats_table(config)
        self.features = features(self.stats)
        self.empty, self.hidden = len(config.deck), len(config.deck) + 1
        self._stats_of = {card: card_stats(card) for card in config.deck}
        self._feature_of = {card: card_features(card) for card in config.deck}
        self._peek_delta = self.features[: len(config.deck)] - self.features[self.hidden]

        self.canvas = np.zeros(CANVAS.size, dtype=np.float32)
        self._bind_views()
        self._canvas("num_players")[n - MIN_PLAYERS] = 1.0
        self._canvas("variant")[:] = (config.open_baskets, config.no_fighting)
        self._canvas("present")[:n] = 1.0
        self._round_columns = round_columns(config)
        self._dealt_hands = new_hands(config)

        self.obs_index = np.stack([observation_index(n, seat, view, config.open_baskets) for seat in range(n)])
        # R5, per FACE_DOWN_PIECES: who sees a face-down card's face, as the declared tables say
        self._face_down_public = tuple(face_down_public(name) for name in FACE_DOWN_PIECES)
        self._peeks_in = face_down_peeks(shown_entries(n, view, config.open_baskets))
        self.state_index = state_index(n)
        self._peeked: dict[int, list[tuple[int, int]]] = {}
        self._records_seen = self._box_seen = -1

    def _canvas(self, name: str) -> np.ndarray:
        """Piece `name` of the canvas, a view to write through."""
        return CANVAS.view(self.canvas, name)

    def _bind_views(self) -> None:
        """Views into the canvas, bound once: refresh() writes through them in place."""
        n = self.config.num_players
        self._round, self._hands, self._seats = self._canvas("round"), self._canvas("hand")[:n], self._canvas("seats")
        self._lagoon, self._lagoon_rest = self._canvas("lagoon"), self._canvas("lagoon_rest")
        self._round_column_views = [self._canvas(name)[:, 0] for name in ROUND_COLUMNS]
        self._played, self._last_round = self._canvas("played")[:n], self._canvas("last_round")[:n]
        self._reveal = {name: self._canvas(name)[:n] for name in LAST_ROUND_LAYOUT.names()}
        self._pile, self._pile_summary = self._canvas("pile"), self._canvas("pile_summary")

    # A copy (pickle, copy.deepcopy: SuperSuit's vector envs copy the env) would copy each view as
    # an array of its own, cut off from the canvas the observations are read from; the views are
    # left out and bound again onto the copied canvas.
    _VIEWS = (
        "_round",
        "_hands",
        "_seats",
        "_lagoon",
        "_lagoon_rest",
        "_round_column_views",
        "_played",
        "_last_round",
        "_reveal",
        "_pile",
        "_pile_summary",
    )

    def __getstate__(self) -> dict[str, Any]:
        """The encoder without its views into the canvas (they are bound again on unpickling)."""
        return {key: value for key, value in self.__dict__.items() if key not in self._VIEWS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore, then bind the views onto this copy's own canvas."""
        self.__dict__.update(state)
        self._bind_views()

    # -- per reveal ---------------------------------------------------------------------------
    def refresh(self, state: GameState, new_game: bool = False) -> None:
        """Write the game into the canvas; call after new_game and after every play_round, or with
        `new_game` at the first refresh of a game that has already played rounds."""
        if not isinstance(state, GameState) or state.config.num_players != self.config.num_players:
            shown = f"a {state.config.num_players}-player game" if isinstance(state, GameState) else repr(state)[:60]
            raise InvalidConfigError(f"this Encoder refreshes {self.config.num_players}-player rules.GameStates, got {shown}")
        if new_game or not state.history:
            self._records_seen = self._box_seen = -1  # a new game: every pile and the box are rewritten
        feats = self.features
        self._round.fill(0.0)
        if state.round <= state.config.rounds:
            self._round[state.round - 1] = 1.0
        for k, column in enumerate(self._round_column_views):
            column[:] = self._round_columns[state.round, :, k]
        self._hands[:] = state.hands
        np.subtract(self._dealt_hands, state.hands, out=self._played, casting="unsafe")  # (a short game's hands hold 1..rounds)
        self._refresh_lagoon(state)

        # Piles and the box change only through catches, so only catchers' piles are rewritten.
        if self._records_seen < 0:
            changed = list(range(state.num_players))
        else:
            changed = list({d.winner for r in state.history[self._records_seen :] for d in r.depths if d.winner is not None})
        self._records_seen = len(state.history)
        if changed:
            # One gather for every changed pile: its top cards, and all its cards for the summary.
            tops = [[*state.piles[seat][: -PILE_SLOTS - 1 : -1], *[self.empty] * PILE_SLOTS][:PILE_SLOTS] for seat in changed]
            longest = max(len(state.piles[seat]) for seat in changed)
            every_card = [[*state.piles[seat], *[self.empty] * (longest - len(state.piles[seat]))] for seat in changed]
            self._pile[changed] = feats[tops]
            heights = [len(state.piles[seat]) for seat in changed]
            self._pile_summary[changed] = pile_summary(self.stats[every_card].sum(axis=1), np.array(heights))
            if len(state.box) != self._box_seen:
                self._canvas("box")[:] = features(self.stats[state.box].sum(axis=0))
                self._box_seen = len(state.box)
        self._write_last_round(state)

    def _refresh_lagoon(self, state: GameState) -> None:
        ids = np.full((NUM_SPACES, LAGOON_SLOTS), self.empty)
        rest = np.zeros((NUM_SPACES, CARD_DIM), dtype=np.int64)
        self._peeked = {}
        for depth, space in enumerate(state.lagoon):
            for slot, lc in enumerate(space):
                hidden_from_others = lc.peeker is not None and not self._face_down_public[slot >= LAGOON_SLOTS]
                shown = self.hidden if hidden_from_others else lc.card
                if lc.peeker is not None and hidden_from_others and self._peeks_in[slot >= LAGOON_SLOTS]:  # its peeker sees it (R5)
                    self._peeked.setdefault(lc.peeker, []).append((self._peek_offset(depth, slot), lc.card))
                if slot < LAGOON_SLOTS:
                    ids[depth, slot] = shown
                else:
                    rest[depth] += self.stats[shown]
        self._lagoon[:] = self.features[ids]
        if self.config.no_fighting:  # elsewhere a space holds one card and the rest stays zero
            self._lagoon_rest[:] = features(rest)

    def _write_last_round(self, state: GameState) -> None:
        self._last_round.fill(0.0)
        if not state.history:
            return
        record, n, reveal = state.history[-1], state.num_players, self._reveal
        reveal["card_played"][np.arange(n), np.asarray(record.plays) - 1] = 1.0
        for result in record.depths:
            if result.winner is not None:
                reveal["caught_at"][result.winner, result.depth] = 1.0
                reveal["caught"][result.winner] = self._summed_features(result.fish)
        stolen: dict[int, list[FishCard]] = {}
        for event in record.events:
            if isinstance(event, SeagullTheft):
                reveal["thefts"][event.seat] += 1.0
                if event.stolen is not None:
                    stolen.setdefault(event.seat, []).append(event.stolen)
            else:
                reveal["triples"][event.seat] += 1.0
        for seat, cards in stolen.items():
            reveal["stolen"][seat] = self._summed_features(cards)

    def _summed_features(self, cards: Sequence[FishCard]) -> np.ndarray:
        """The feature sum of `cards`. A seat catches once a round and a theft takes one card, so
        this is mostly one card's features, looked up; a No Fighting stack or several Seagulls add
        their stats up first."""
        if len(cards) == 1:
            return self._feature_of[cards[0]]
        return features(np.sum([self._stats_of[card] for card in cards], axis=0))

    @staticmethod
    def _peek_offset(depth: int, slot: int) -> int:
        """Where a lagoon card's features start in an observation: its slot, or its space's rest sum."""
        if slot < LAGOON_SLOTS:
            return OBSERVATION_LAYOUT.offset("lagoon") + (depth * LAGOON_SLOTS + slot) * CARD_DIM
        return OBSERVATION_LAYOUT.offset("lagoon_rest") + depth * CARD_DIM

    def observe(self, seat: int) -> np.ndarray:
        """The observation vector of `seat` (a new array); InvalidConfigError for a seat not at the table."""
        n = self.config.num_players
        if not is_integer(seat) or not 0 <= seat < n:
            raise InvalidConfigError(f"seat={seat!r:.40} is not at this {n}-player table; seats are 0-{n - 1}")
        obs: np.ndarray = self.canvas.take(self.obs_index[seat])
        for start, card in self._peeked.get(seat, ()):
            obs[start : start + CARD_DIM] += self._peek_delta[card]  # the peeker sees the card itself
        return obs

    def state_vector(self, state: GameState) -> np.ndarray:
        """The omniscient global state (absolute seats, player_0 first), for centralized critics."""
        ids = np.full((NUM_SPACES, LAGOON_SLOTS), self.empty)
        rest = np.zeros((NUM_SPACES, CARD_DIM), dtype=np.int64)
        for depth, space in enumerate(state.lagoon):
            for slot, lc in enumerate(space):
                if slot < LAGOON_SLOTS:
                    ids[depth, slot] = lc.card
                else:
                    rest[depth] += self.stats[lc.card]
        self._canvas("lagoon_true")[:] = self.features[ids]
        self._canvas("lagoon_rest_true")[:] = features(rest)
        self._canvas("deck")[:] = features(self.stats[state.deck].sum(axis=0))
        self._canvas("put_back")[:] = self.features[state.put_back]
        return self.canvas.take(self.state_index)
