"""What one seat knows of a game, and whole game states sampled from it (R11 with perfect recall).

A seat that remembers every observation it was dealt knows more than any one observation shows:
each reveal tells it what every seat played and caught (R11's last reveal), so it knows every hand
and every fish pile exactly. What it cannot know is where the cards it never saw lie: the undealt
deck, the card put back at setup (R3) and face-down cards that someone else peeked (R5).

`SeatKnowledge` builds that knowledge from the seat's observation vectors alone, one per decision
(either view: the table view's reveals are all it needs). It replays the game on a skeleton
`GameState` in which every card the seat saw is itself and the unseen cards stand, in no
particular order, in the hidden places. `sample(rng)` deals the unseen cards anew among the hidden
places, each deal with the probability the game's own dealing gives it (OpenSpiel's
`ResampleFromInfostate`):

- The put-back card x is weighted by 1 / K(K-1)(K-2), where K counts the non-Seagulls among the
  36 other cards: round 1 drew its three cards from those, skipping Seagulls (R4). With the
  default deck a non-Seagull is 31/28 times as likely to have been put back as a Seagull, and the
  chance that the put-back is a Seagull stays 6/37 after round 1 (uniform placement would say 6/34).
- Given the put-back, the rest of the deal is a uniform shuffle (a Seagull put back in round 1 goes
  to a uniform place), so every other unseen card is equally likely in every other hidden place.

This is the posterior over the deal. It does not read the opponents' choices as evidence of what
they peeked (doing so would need a model of their play); determinized search makes the same cut.
The 1-in-10^11 deals that run out of round 1's Seagull uniforms (`rules.SEAGULL_UNIFORMS`) are
ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from miaui_env.core.errors import IllegalActionError
from miaui_env.core.layout import Layout
from miaui_env.games.miaui.cards import DEFAULT_DECK, FISH_KINDS, FishCard, FishKind
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import CARD_DIM, HIDDEN_FEATURE, LAGOON_SLOTS, OBSERVATION_LAYOUT, VALUE_SCALE, VIEWS
from miaui_env.games.miaui.rules import (
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    NUM_SPACES,
    GameConfig,
    GameState,
    LagoonCard,
    kiti_seat,
    play_round,
)

_VIEW = OBSERVATION_LAYOUT.view
_VALUE = len(FISH_KINDS)
_MATCH_TOLERANCE = 1e-5  # observations are float32; the skeleton's own encoding matches them to rounding


class KnowledgeError(ValueError):
    """Observations that do not make one game seen from one seat (a round skipped, a card that cannot be there)."""


class SampledWorld(NamedTuple):
    """A full game consistent with a seat's knowledge, and the deal it came from."""

    state: GameState  # the game now, at the round the seat is about to play
    deal: list[int]  # deck indices: the put-back card, then the 36 others in the order they reach the lagoon (R3/R4)


def observed_round(observation: np.ndarray) -> int:
    """The round an observation is about to play (1-12), 0 for a finished game's observation."""
    one_hot = _VIEW(observation, "round")
    return int(np.argmax(one_hot)) + 1 if one_hot.any() else 0


def _card_of(features: np.ndarray) -> FishCard | None:
    """The one card whose features these are; None for a face-down card the seat did not peek."""
    if features[HIDDEN_FEATURE] > 0.5:
        return None
    kind = FISH_KINDS[int(np.argmax(features[:_VALUE]))]
    return FishCard(kind, round(float(features[_VALUE]) * VALUE_SCALE))


def _features_of(card: FishCard | None) -> np.ndarray:
    """A card's features as a seat sees it (a face-down card it did not peek: only the hidden flag)."""
    features = np.zeros(CARD_DIM)
    if card is None:
        features[HIDDEN_FEATURE] = 1.0
    else:
        features[FISH_KINDS.index(card.kind)] = 1.0
        features[_VALUE] = card.value / VALUE_SCALE
    return features


def _piece_at(index: int, layout: Layout = OBSERVATION_LAYOUT) -> str:
    """The piece holding entry `index` of a `layout` vector, with its row in a seat's ("seats[1].pile")."""
    for piece in layout.pieces:
        start = layout.offsets[piece.name]
        if start <= index < start + piece.size:
            if piece.name not in layout.rows:
                return piece.name
            row, inner = divmod(index - start, layout.rows[piece.name].size)
            return f"{piece.name}[{row}].{_piece_at(inner, layout.rows[piece.name])}"
    raise IndexError(f"entry {index} is past the layout's {layout.size}")


def put_back_weights(cards: Sequence[FishCard], deck: Sequence[FishCard]) -> np.ndarray:
    """Relative chance that each of `cards` is the card put back, given round 1's lagoon (R3/R4):
    1 / K(K-1)(K-2), K the number of non-Seagulls left among the other 36 cards of `deck`."""
    non_seagulls = sum(card.kind is not FishKind.SEAGULL for card in deck)
    k = non_seagulls - np.array([card.kind is not FishKind.SEAGULL for card in cards], dtype=np.float64)
    return 1.0 / (k * (k - 1) * (k - 2))


class SeatKnowledge:
    """One seat's perfect-recall knowledge of one game, from its own observations; see the module docstring.

    Feed it the seat's observation at every decision of the game, in order (`observe`), then draw
    worlds (`sample`). `deck` is the game's deck list (observations show cards, not the list).
    """

    def __init__(self, deck: Sequence[FishCard] = DEFAULT_DECK):
        self.deck = tuple(deck)
        self.state: GameState | None = None  # the skeleton: seen cards are themselves, unseen ones stand anywhere hidden
        self.seat = 0  # the absolute seat observed (R1's seat order, found from Kiti's place)
        self.deal: list[int] = []  # the skeleton's deal: put-back, then the lagoon order
        self._seen = np.zeros(len(self.deck), dtype=bool)  # deck indices whose card the seat has seen
        self._put_back_weight = put_back_weights(self.deck, self.deck)
        self._encoders: dict[str, Encoder] = {}  # per view this game's observations may still be in

    @property
    def round(self) -> int:
        """The round the seat is about to play (0 before its first observation)."""
        return 0 if self.state is None else self.state.round

    def can_follow(self, round_number: int) -> bool:
        """Whether an observation of `round_number` can be taken in: a new game, this decision again or the next."""
        return round_number == 1 or (self.state is not None and round_number in (self.state.round, self.state.round + 1))

    def observe(self, observation: np.ndarray) -> None:
        """Take in the seat's observation at its next decision: round 1 starts a new game.

        KnowledgeError, the knowledge left as it was, for an observation this seat cannot have next:
        one that differs anywhere from what the seat knows (its own hand after its plays, the public
        record, the round, its seat), such as another game's or another seat's.
        """
        observation = np.asarray(observation, dtype=np.float64)
        if observation.shape != (OBSERVATION_LAYOUT.size,):
            raise KnowledgeError(f"an observation has shape {observation.shape}; one seat's observation is ({OBSERVATION_LAYOUT.size},)")
        round_number = observed_round(observation)
        if self.state is not None and round_number not in (1, self.state.round, self.state.round + 1):
            raise KnowledgeError(
                f"an observation of round {round_number} after round {self.round}: a seat's knowledge is built from "
                "every decision of a game, from round 1, in order"
            )
        if self.state is None and round_number != 1:
            raise KnowledgeError(
                f"an observation of round {round_number} with nothing observed before: a seat's knowledge is built from "
                "every decision of a game, from round 1, in order"
            )
        kept = self._snapshot()
        try:
            if round_number == 1:
                self._start(observation)
            elif round_number == self.round + 1:
                self._advance(observation)
            self._check_matches(observation)  # the same decision shown again must match too
        except KnowledgeError:
            self._restore(kept)
            raise

    def _snapshot(self) -> tuple[GameState | None, int, list[int], np.ndarray, dict[str, Encoder]]:
        """Everything observe() may change, to put back when it refuses an observation."""
        state = None if self.state is None else self.state.clone()
        return state, self.seat, list(self.deal), self._seen.copy(), dict(self._encoders)

    def _restore(self, kept: tuple[GameState | None, int, list[int], np.ndarray, dict[str, Encoder]]) -> None:
        self.state, self.seat, self.deal, self._seen, self._encoders = kept

    def _check_matches(self, observation: np.ndarray) -> None:
        """Refuse an observation that is not the skeleton seen from this seat, in a view it can be in."""
        state = self.state
        assert state is not None
        matching, mismatches = {}, {}
        for view, encoder in self._encoders.items():
            encoder.refresh(state, new_game=True)
            differs = np.abs(encoder.observe(self.seat) - observation) > _MATCH_TOLERANCE
            if differs.any():
                mismatches[view] = _piece_at(int(np.argmax(differs)))
            else:
                matching[view] = encoder
        if matching:
            self._encoders = matching  # a game's observations stay in the views they have matched so far
            return
        shown = "; ".join(f"as the {view} view it differs first in {piece!r}" for view, piece in mismatches.items())
        raise KnowledgeError(
            f"a round-{observed_round(observation)} observation that this seat (seat {self.seat}) cannot see after what it "
            f"saw before ({shown}): another game's, another seat's, or altered"
        )

    # -- building the skeleton ----------------------------------------------------------------------
    def _start(self, observation: np.ndarray) -> None:
        head = _VIEW(observation, "num_players")
        n = MIN_PLAYERS + int(np.argmax(head))
        open_baskets, no_fighting = (bool(flag > 0.5) for flag in _VIEW(observation, "variant"))
        config = GameConfig(n, open_baskets, no_fighting, self.deck)
        self._encoders = {view: Encoder(config, view) for view in VIEWS}
        self.seat = self._seat_from_kiti(observation, n, 1, no_fighting)
        self._seen[:] = False
        lagoon = _VIEW(observation, "lagoon")
        first = [self._take_unseen(_card_of(lagoon[depth, 0])) for depth in range(NUM_SPACES)]
        rest = [i for i in range(len(self.deck)) if i not in first]
        self.deal = [rest[0], *first, *rest[1:]]
        self.state = GameState(
            config=config,
            round=1,
            deck=self.deal[1 + NUM_SPACES :],
            put_back=self.deal[0],
            lagoon=[[LagoonCard(card)] for card in first],
            hands=np.ones((n, NUM_DIVER_CARDS), dtype=np.int8),
            piles=[[] for _ in range(n)],
            played=[[] for _ in range(n)],
        )

    @staticmethod
    def _seat_from_kiti(observation: np.ndarray, n: int, round_number: int, no_fighting: bool) -> int:
        """The observer's absolute seat: Kiti sits after seat (r-1) mod n (R1), and the observer's
        rows are seat-relative. Without Kiti (No Fighting) seats are interchangeable: call it 0."""
        if no_fighting:
            return 0
        kiti = _VIEW(observation, "kiti")[:n, 0]
        return (kiti_seat(round_number, n) - int(np.argmax(kiti))) % n

    def _advance(self, observation: np.ndarray) -> None:
        """Replay the round just revealed on the skeleton, then read the lagoon's new cards."""
        state = self.state
        assert state is not None
        n = state.num_players
        absolute = [(self.seat + rel) % n for rel in range(n)]  # seat row k is the k-th seat to the left (R1)
        plays = [0] * n
        card_played, caught_at, caught = (_VIEW(observation, name)[:n] for name in ("card_played", "caught_at", "caught"))
        for rel, seat in enumerate(absolute):
            plays[seat] = int(np.argmax(card_played[rel])) + 1
        # A face-down card is turned face-up when caught (R5): learn it before it lands (R9).
        for depth, space in enumerate(state.lagoon):
            catchers = [rel for rel in range(n) if caught_at[rel, depth] > 0.5]
            hidden = [slot for slot, lc in enumerate(space) if self._hidden(lc)]
            if catchers and hidden:
                known = sum((_features_of(self.deck[lc.card]) for lc in space if not self._hidden(lc)), np.zeros(CARD_DIM))
                self._reveal(space[hidden[0]].card, _card_of(caught[catchers[0]] - known), "a face-down card caught")
        try:
            play_round(state, plays)
        except IllegalActionError as error:
            raise KnowledgeError(f"the reveal does not follow from the rounds before it: {error}") from None
        lagoon, lagoon_rest = _VIEW(observation, "lagoon"), _VIEW(observation, "lagoon_rest")
        for depth, space in enumerate(state.lagoon):
            arrival = space[-1]  # R4: one new card a round, beside any left in No Fighting
            if self._hidden(arrival):
                continue
            slot = len(space) - 1
            if slot < LAGOON_SLOTS:
                features = lagoon[depth, slot]
            else:  # past the shown slots a space is summed: take the older cards away
                older = space[LAGOON_SLOTS:slot]
                features = lagoon_rest[depth] - sum((self._seen_features(lc) for lc in older), np.zeros(CARD_DIM))
            self._reveal(arrival.card, _card_of(features), f"the new card of lagoon space {depth}")
        if observed_round(observation) != state.round:
            raise KnowledgeError(f"the skeleton reached round {state.round}, the observation shows round {observed_round(observation)}")

    def _hidden(self, card: LagoonCard) -> bool:
        """A face-down card someone else peeked (R5): hidden from this seat."""
        return card.peeker is not None and card.peeker != self.seat

    def _seen_features(self, card: LagoonCard) -> np.ndarray:
        return _features_of(None if self._hidden(card) else self.deck[card.card])

    def _take_unseen(self, card: FishCard | None) -> int:
        """An unseen deck index holding `card`, marked seen."""
        for index in range(len(self.deck)):
            if not self._seen[index] and self.deck[index] == card:
                self._seen[index] = True
                return index
        raise KnowledgeError(f"the observation shows {card}, but every such card of the deck was seen already")

    def _reveal(self, stand_in: int, card: FishCard | None, where: str) -> None:
        """The card standing at `stand_in`'s place is `card`: swap an unseen copy of it into that place."""
        if card is None:
            raise KnowledgeError(f"{where} shows as face-down, but this seat should see it")
        if self.deck[stand_in] == card and not self._seen[stand_in]:
            self._seen[stand_in] = True
            return
        real = self._take_unseen(card)
        self._swap(stand_in, real)

    def _swap(self, a: int, b: int) -> None:
        """Exchange two unseen cards' hidden places in the skeleton (deal, deck, put-back, lagoon)."""
        state = self.state
        assert state is not None
        i, j = self.deal.index(a), self.deal.index(b)
        self.deal[i], self.deal[j] = b, a
        swapped = {a: b, b: a}
        state.put_back = self.deal[0]
        dealt = 1 + NUM_SPACES * min(state.round, NUM_ROUNDS)
        state.deck = self.deal[dealt:]
        for space in state.lagoon:  # in place: callers may be walking the lagoon
            for slot, lc in enumerate(space):
                if lc.card in swapped:
                    space[slot] = lc._replace(card=swapped[lc.card])

    # -- sampling -----------------------------------------------------------------------------------
    def hidden_places(self) -> list[int]:
        """Positions in `deal` whose card the seat has not seen: the put-back, hidden lagoon cards, the deck."""
        if self.state is None:
            raise KnowledgeError("nothing observed yet: feed the seat's round-1 observation first")
        return [position for position, card in enumerate(self.deal) if not self._seen[card]]

    def sample(self, rng: np.random.Generator) -> SampledWorld:
        """A whole game consistent with everything the seat observed, drawn from the deal's posterior."""
        state = self.state
        places = self.hidden_places()
        assert state is not None and places[0] == 0  # the put-back is never seen (R3)
        unseen = np.array([self.deal[p] for p in places])
        weights = self._put_back_weight[unseen]
        first = int(rng.choice(len(unseen), p=weights / weights.sum()))
        others = np.delete(unseen, first)
        shuffled = [int(unseen[first]), *rng.permutation(others).tolist()]
        deal = list(self.deal)
        for position, card in zip(places, shuffled, strict=True):
            deal[position] = card
        world = state.clone()
        world.put_back = deal[0]
        world.deck = deal[1 + NUM_SPACES * state.round :]
        moved = {self.deal[p]: deal[p] for p in places}
        world.lagoon = [[lc._replace(card=moved.get(lc.card, lc.card)) for lc in space] for space in state.lagoon]
        return SampledWorld(world, deal)
