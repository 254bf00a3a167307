"""Baseline agents for the octopus fishing game, behind the agent protocol every game's agents follow (`miaui_env.core.agents`).

Every agent acts on a batch: `act(observations (B, 306), masks (B, 12)) -> actions (B,)`, action
indices the masks allow (0 stop, 1 flip, 2 no theft, `3 + 3 * (offset - 1) + (k - 1)`: steal k from
the seat `offset` places clockwise, `miaui_env.games.octopus.rules`). Each is seeded at construction and
`reset()` clears what it remembers (none of these remembers anything: what they need is in the
observation). `octopus_agents()` is the name table an arena or a CLI loads them from.

- `random`: the library's `RandomAgent` (`miaui_env.core.agents`), a uniformly random legal action (it works on any mask).
- `cautious` (`CautiousAgent`): a threshold player, table view. It flips until the row holds `cards`
  cards (default 3), then stops (O3). After an octopus it steals one card (k = 1, the die succeeds
  on 5 of 6 faces) from the opponent with the largest collection (collection sizes are in sight,
  O4; ties go to the nearest seat clockwise); `steal=False` makes it never steal.
- `risk-aware` (`RiskAwareAgent`): plays from the recall view (`view = "recall"`), where every card
  not in the deck has been seen (O4: the discard pile, the row and every collection are public to
  a perfect memory). The maths below.
- `theft-aware` (`TheftAwareAgent`): risk-aware, except that an octopus on the next flip is worth
  the theft it allows (below).
- `rival-aware` (`RivalAwareAgent`): theft-aware, except that a theft weighs only the leading
  opponent's points fully (below). It beats theft-aware at 3 players, and is the teacher
  `configs/octopus.yaml` clones.

## The risk-aware player's maths
Let `own_best[s]` be the highest value of species s in its own collection (0 if none) and `gain(C)`
the change in its session score (O7: only the highest card of each species counts) if the cards C
joined its collection: `gain(C) = sum over species s of C of max(0, max value of s in C - own_best[s])`.

**Flip or stop (O3).** The unseen cards are the 66 (O1) minus everything seen: `unseen[s, v] =
copies(v) - seen[s, v]` (copies 2, 2, 1, 1 for values 1-4) and `unseen_octopuses = 6 - octopuses in
the discard pile`; they are exactly the deck, `D` cards, each equally likely to come next. With the
row R (distinct species, in flip order):

- stop now: `G_stop = gain(R)`;
- flip once more, then stop:
  - an octopus, probability `P_oct = unseen_octopuses / D`: the row is discarded, gain 0 (the theft
    it allows is not counted: a cautious estimate);
  - a species s already in the row, probability `unseen[s, :].sum() / D` (together `P_bust`): the
    cards of R before s are kept, gain `gain(R before s)`;
  - a new species s of value v, probability `unseen[s, v] / D`: gain `gain(R + (s, v))`.
  `E_flip` is the sum of these gains weighted by their probabilities.

It flips while the expected gain of one more flip, `E_flip - G_stop`, is positive, and stops once
it is zero or negative. (One flip ahead: each later decision is taken again with what it then sees.)

**Thefts (O5).** The die has faces -1, 1, 1, 2, 3, 3, so `P(roll >= k)` is 5/6, 3/6, 2/6 for
k = 1, 2, 3, and `P(-1) = 1/6`. A theft is valued as the expected change of (its own session score
minus the target's): for a target t holding collection T and k cards,

    EV(t, k) = P(roll >= k) * E_S[ gain(S) + loss_t(S) ]  -  1/6 * E_c[ loss_own(c) + gain_t(c) ]

where S is a uniformly random k-subset of T, `loss_t(S) = score(T) - score(T - S)` what the target
loses, c a uniformly random card of its own collection (the -1 face gives one to the target; no
penalty if its collection is empty), `loss_own(c)` what it loses by it and `gain_t(c)` what the
target gains. It makes the theft with the highest EV, or no theft when no EV is positive. The
expectation over S is exact (every k-subset) up to `MAX_SUBSETS` subsets, else the mean over that
many subsets drawn by its own generator. Opponents' collections are read card by card from the
recall view; the table view would show it zeros, so it asks for the recall view (shown the
table view anyway, it counts no swing from cards it cannot see, and so makes no theft).

These players decide a batch in numba kernels (`miaui_env.games.octopus.agent_kernels`), which
compute the very floats of the first, plain numpy version of this maths (kept as the reference in
tests/octopus_reference_agents.py) and draw the same random subsets: the same decisions, so the
figures below stand (`benchmarks/octopus_agents_speed.py` times both).

**The theft-aware flip.** An octopus discards the row and leaves every collection as it is (O3),
so the thefts it would allow are the ones above, computed on the collections of now (`theft_mask`
gives their legality: an opponent holding k cards or more). The theft-aware player flips while

    E_flip - G_stop + P_oct * max(0, best theft EV)  >  0,

and steals as the risk-aware player does. Risk-aware counts an octopus as 0, so the theft-aware
player flips a little longer, most where an opponent holds high cards its own collection lacks.

**The rival-aware theft.** Only one player wins (O9), so points taken from an opponent who trails
matter less than points taken from the one ahead. The rival-aware player values a theft from
target t as above with the target's terms weighted by `w_t`:

    EV(t, k) = P(roll >= k) * E_S[ gain(S) + w_t * loss_t(S) ]  -  1/6 * E_c[ loss_own(c) + w_t * gain_t(c) ]

where `w_t` is 1 for the leading opponents (the highest total plus session score, O7; every one
tied for it) and `rival_weight` (default `RIVAL_WEIGHT` = 0) for the others. It flips as the
theft-aware player does, with these EVs. At 2 players the one opponent always leads, so it plays
as theft-aware; `rival_weight=1` is theft-aware at every size.

Measured (the octopus arena, duplicate sets, seed 20261126, never tuned on; win share with its
95% CI over duplicate sets; 2 shared CPU cores, about 3-4 minutes a run):

    python -m miaui_env.apps.arena --game octopus --pool random cautious risk-aware --players N --games 3000 --seed 20261126
    python -m miaui_env.apps.arena --game octopus --candidate risk-aware --field cautious --players 2 --games 2000 --seed 20261126

| table | risk-aware | cautious | random |
|---|---|---|---|
| pool, 2 players (each pair meets) | 0.822 +- 0.019 | 0.634 +- 0.026 | 0.044 +- 0.009 |
| pool, 3 players | 0.669 +- 0.017 | 0.323 +- 0.017 | 0.009 +- 0.003 |
| pool, 4 players (one agent seated twice, rotating) | 0.533 +- 0.017 | 0.247 +- 0.014 | 0.009 +- 0.003 |
| gauntlet, 2 players, against cautious | 0.669 +- 0.023 (z = 14.4) | 0.331 +- 0.023 | |

The theft-aware player against n - 1 risk-aware players (`--candidate theft-aware --field
risk-aware --players N --games 3000 --seed 20261126`; fair shares 1/2, 1/3, 1/4): 0.530 +- 0.018
at 2 players (z = 3.2), 0.373 +- 0.018 at 3 (z = 4.5), 0.271 +- 0.017 at 4 (z = 2.4). The
rival-aware player, the same way: 0.378 +- 0.018 at 3 players (z = 4.9), 0.285 +- 0.017 at 4
(z = 4.0); against n - 1 theft-aware players 0.352 +- 0.015 at 3 (z = 2.4), 0.258 +- 0.014 at 4
(z = 1.1). At 2 players it plays the theft-aware player's games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np

from miaui_env.core.agents import Agent, AgentError, RandomAgent
from miaui_env.core.checkpoint import CheckpointSpaceError
from miaui_env.core.errors import is_integer
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.loading import load_game_agent, shipped_policy_names
from miaui_env.core.policy import PolicyAgent
from miaui_env.core.seeding import Seed, seed_children, seed_generator, seed_int
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, SCORE_SCALE, SIZE_SCALE
from miaui_env.games.octopus.rules import (
    DIE_FACES,
    FISH_VALUES,
    MAX_PLAYERS,
    MAX_STEAL,
    NUM_ACTIONS,
    NUM_SPECIES,
    TARGET,
    InvalidConfigError,
)

STOP_ACTION, FLIP_ACTION, NO_THEFT_ACTION = 0, 1, 2
RIVAL_WEIGHT = 0.0  # the rival-aware player: a trailing opponent's score counts this much against its own
MAX_SUBSETS = 256  # a theft's expectation is exact up to this many k-subsets of the target's cards
ROW_SCALE = float(NUM_SPECIES)  # row_length / row_order are stored / 10
VALUE_SCALE = float(max(FISH_VALUES))  # the row's values are stored / 4


def theft_action(offset: int, k: int) -> int:
    """The action index of stealing `k` cards from the seat `offset` places clockwise (rules' table)."""
    _check_whole(offset, 1, MAX_PLAYERS - 1, "theft_action's offset (seats clockwise to the target)")
    _check_whole(k, 1, MAX_STEAL, "theft_action's k (cards asked for, O5)")
    return 3 + MAX_STEAL * (offset - 1) + (k - 1)


def success_probability(k: int) -> float:
    """O5: P(roll >= k) with the die -1, 1, 1, 2, 3, 3 (5/6, 1/2, 1/3 for k = 1, 2, 3)."""
    _check_whole(k, 1, MAX_STEAL, "success_probability's k (cards asked for, O5)")
    return sum(face >= k for face in DIE_FACES) / len(DIE_FACES)


def _check_whole(value: object, low: int, high: int, what: str) -> None:
    if not is_integer(value) or not low <= value <= high:
        raise InvalidConfigError(f"{what} is {value!r:.40}; it is an integer from {low} to {high}")


BACKFIRE_PROBABILITY = DIE_FACES.count(-1) / len(DIE_FACES)  # O5: the -1 face, 1/6


def checked_batch(observations: object, masks: object, who: str) -> tuple[np.ndarray, np.ndarray]:
    """`observations` (B, 306) finite within the observation space's bounds and `masks` (B, 12), each
    row with a legal action, as arrays; AgentError naming the agent and what is wrong otherwise."""
    obs = np.asarray(observations) if isinstance(observations, np.ndarray | list | tuple) else None
    mask = np.asarray(masks) if isinstance(masks, np.ndarray | list | tuple) else None
    size = OBSERVATION_LAYOUT.size
    if obs is None or obs.ndim != 2 or obs.shape[1] != size or obs.dtype.kind not in "fiu":
        got = f"shape {obs.shape}, dtype {obs.dtype}" if obs is not None else type(observations).__name__
        raise AgentError(f"agent {who!r}: observations are a (batch, {size}) array of floats; got {got}")
    if mask is None or mask.shape != (len(obs), NUM_ACTIONS) or mask.dtype.kind not in "biuf":
        got = f"shape {mask.shape}, dtype {mask.dtype}" if mask is not None else type(masks).__name__
        raise AgentError(f"agent {who!r}: masks are a ({len(obs)}, {NUM_ACTIONS}) array, one row per observation; got {got}")
    if not np.all(np.abs(obs) <= VECTOR_BOUND):  # NaN fails this too
        raise AgentError(f"agent {who!r}: observations hold values that are not finite numbers within +-{VECTOR_BOUND}")
    if not ((mask == 0) | (mask == 1)).all():  # a mask is flags: 2 or 0.5 is a value read as something else
        raise AgentError(f"agent {who!r}: masks hold 0 and 1 only; got the values {sorted(set(np.unique(mask).tolist()))!r:.60}")
    legal = mask > 0
    flip_or_stop = legal[:, STOP_ACTION] & legal[:, FLIP_ACTION] & ~legal[:, NO_THEFT_ACTION:].any(axis=1)
    theft = legal[:, NO_THEFT_ACTION] & ~legal[:, [STOP_ACTION, FLIP_ACTION]].any(axis=1)
    odd = ~(flip_or_stop | theft)
    if odd.any():
        row = int(np.flatnonzero(odd)[0])
        raise AgentError(
            f"agent {who!r}: mask row {row} allows {np.flatnonzero(legal[row]).tolist()}, no decision of the game's "
            f"(stop and flip [0, 1], or no theft 2 with thefts 3-11); a seat to act always has a legal action"
        )
    return obs, mask


def checked_row(observation: object, who: str) -> np.ndarray:
    """`observation` if it is one octopus row (an array of shape (306,) of numbers); AgentError naming `who` otherwise.
    Cheap (no pass over the values): the helpers below run it on every decision."""
    size = OBSERVATION_LAYOUT.size
    if not isinstance(observation, np.ndarray) or observation.shape != (size,) or observation.dtype.kind not in "fiu":
        got = f"shape {observation.shape}, dtype {observation.dtype}" if isinstance(observation, np.ndarray) else type(observation).__name__
        raise AgentError(f"{who}: an observation is one octopus row, an array of shape ({size},) of numbers; got {got}")
    return observation


class CautiousAgent:
    """Flips until the row holds `cards` cards, then stops; steals 1 card from the largest collection."""

    name = "cautious"

    def __init__(self, seed: Seed | None = None, cards: int = 3, steal: bool = True):
        if not is_integer(cards) or cards < 1:
            raise InvalidConfigError(f"cards={cards!r} is not allowed; the cautious player stops at a row of 1 or more cards")
        if not isinstance(steal, bool | np.bool_):
            raise InvalidConfigError(f"steal={steal!r:.60} is not allowed; it is True (steal after an octopus) or False")
        self.rng = seed_generator(seed)  # unused: it plays deterministically, but keeps the protocol's seeding
        self.cards, self.steal = int(cards), bool(steal)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Stop at the threshold (O3); k = 1 from the largest collection after an octopus (O5)."""
        observations, masks = checked_batch(observations, masks, self.name)
        row_length = np.rint(OBSERVATION_LAYOUT.view(observations, "row_length")[:, 0] * ROW_SCALE)
        sizes = OBSERVATION_LAYOUT.view(observations, "collection_size")[:, :, 0]  # (B, 4), seat-relative
        actions = np.zeros(len(masks), dtype=np.int64)
        for i, mask in enumerate(masks):
            if mask[STOP_ACTION] or mask[FLIP_ACTION]:
                actions[i] = FLIP_ACTION if row_length[i] < self.cards and mask[FLIP_ACTION] else STOP_ACTION
                continue
            actions[i] = NO_THEFT_ACTION
            if self.steal:
                offsets = [o for o in range(1, MAX_PLAYERS) if mask[theft_action(o, 1)]]
                if offsets:  # np.argmax keeps the first (nearest clockwise) of equal sizes
                    actions[i] = theft_action(offsets[int(np.argmax([sizes[i, o] for o in offsets]))], 1)
        return actions

    def reset(self) -> None:
        """Nothing is remembered."""


def _kernels() -> ModuleType:
    """The compiled kernels (`miaui_env.games.octopus.agent_kernels`), imported on first use: importing the
    agents loads no numba."""
    from miaui_env.games.octopus import agent_kernels

    return agent_kernels


def _kernel_rows(observations: np.ndarray) -> np.ndarray:
    """Observation rows as the kernels read them: float32 and float64 as they are (the kernels do numpy's
    arithmetic in that dtype), anything else as float64 (integers are exact there, as in numpy's sums)."""
    if observations.dtype.kind == "f" and observations.dtype.itemsize in (4, 8):
        return np.ascontiguousarray(observations, dtype=f"f{observations.dtype.itemsize}")  # native byte order
    return np.ascontiguousarray(observations, dtype=np.float64)


def _scales(rows: np.ndarray) -> np.ndarray:
    """The constants the kernels multiply raw observation entries by, in their dtype (`agent_kernels`' *_AT)."""
    return np.array([VALUE_SCALE, ROW_SCALE, SIZE_SCALE, 1.0], dtype=rows.dtype)


_DICE = np.array([*(success_probability(k) for k in range(1, MAX_STEAL + 1)), BACKFIRE_PROBABILITY])  # the kernels' `dice`
_FLIP_MASK = np.array([[True, True] + [False] * (NUM_ACTIONS - 2)])  # a flip-or-stop decision, for one-row helpers


def flip_odds(observation: np.ndarray) -> tuple[float, float, float, float]:
    """For one recall-view observation: (P_bust, P_octopus, E_flip, G_stop) of the next flip (module docstring)."""
    checked_row(observation, "flip_odds")
    rows = _kernel_rows(observation[None])
    kernels = _kernels()
    odds = kernels.plan(rows, _FLIP_MASK, np.zeros(1, dtype=bool), _scales(rows), False, MAX_SUBSETS)[0][0]
    return float(odds[0]), float(odds[1]), float(odds[2]), float(odds[3])


class RiskAwareAgent:
    """Flips while one more flip's expected score gain is positive; thefts by the die's odds (recall view).

    `act` decides a whole batch in compiled kernels (`miaui_env.games.octopus.agent_kernels`); `flip_edge`,
    `theft_values` and `choose_theft` give the same numbers for one observation."""

    name = "risk-aware"
    view = "recall"
    theft_aware = False  # whether a flip's octopus is worth the theft it allows (`TheftAwareAgent`)

    def __init__(self, seed: Seed | None = None):
        self.rng = seed_generator(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Flip while `flip_edge` is positive; the theft of highest expected value, or none (module docstring)."""
        observations, masks = checked_batch(observations, masks, self.name)
        legal = masks != 0
        theft_rows = ~(legal[:, STOP_ACTION] | legal[:, FLIP_ACTION])
        actions: np.ndarray = self._decide(observations, legal, theft_rows)[0]
        return actions

    def _decide(self, observations: np.ndarray, legal: np.ndarray, theft_rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """(actions (B,), flip edges (B,), theft values (B, 9) and whether each was valued (B, 9)) of the rows
        `observations` with legal actions `legal` (B, 12), a theft where `theft_rows`, else flip or stop. The
        sampled k-subsets draw from `self.rng` in the order one row at a time would: row, target, k."""
        kernels = _kernels()
        rows = _kernel_rows(observations)
        odds, thefts, need, draws = kernels.plan(rows, legal, theft_rows, _scales(rows), self.theft_aware, MAX_SUBSETS)
        cards = draws.ravel()
        sampled = np.flatnonzero(cards)
        draw_index = np.full(cards.size, -1, dtype=np.int64)
        draw_index[sampled] = np.arange(sampled.size)
        picks = np.zeros((0, MAX_STEAL), dtype=np.int64)
        if sampled.size:
            cards, ks = cards[sampled], sampled % MAX_STEAL + 1
            uniforms = self.rng.random(MAX_SUBSETS * int(cards.sum()))  # one rng.random((MAX_SUBSETS, m)) per theft, in order
            picks, tied = kernels.pick_subsets(uniforms, cards, ks, MAX_SUBSETS)
            if tied.any():  # equal uniforms where a subset ends: numpy's argsort chooses, as it did
                starts = np.concatenate([[0], np.cumsum(MAX_SUBSETS * cards)])
                for d in np.unique(np.flatnonzero(tied) // MAX_SUBSETS):
                    m, k, rows_of_d = int(cards[d]), int(ks[d]), slice(d * MAX_SUBSETS, (d + 1) * MAX_SUBSETS)
                    order = np.argsort(uniforms[starts[d] : starts[d + 1]].reshape(MAX_SUBSETS, m), axis=1)[:, :k]
                    picks[rows_of_d, :k] = np.where(tied[rows_of_d, None], order, picks[rows_of_d, :k])
        weights = self._target_weight_rows(observations)
        actions, edges, values, _ = kernels.decide(
            rows,
            legal,
            theft_rows,
            odds,
            need,
            thefts,
            weights,
            draw_index.reshape(draws.shape),
            picks,
            self.theft_aware,
            _DICE,
            MAX_SUBSETS,
        )
        return actions, edges, values, thefts & need[:, None]

    def flip_edge(self, observation: np.ndarray) -> float:
        """`E_flip - G_stop` (`flip_odds`): what one more flip gains in expectation over stopping now. The
        theft-aware players add `P_oct * max(0, best theft EV)`, the theft weighed on the collections of now,
        which an octopus leaves as they are (O3: it discards only the row; `theft_mask` gives its legality),
        where the plain edge is not positive and an octopus is left (elsewhere the theft's value, never
        negative, cannot change the decision)."""
        checked_row(observation, "flip_odds")
        return float(self._decide(observation[None], _FLIP_MASK, np.zeros(1, dtype=bool))[1][0])

    def theft_values(self, observation: np.ndarray, mask: np.ndarray) -> dict[int, float]:
        """EV of every legal theft action (module docstring), by action index."""
        checked_row(observation, f"{self.name} theft_values")
        if np.shape(mask) != (NUM_ACTIONS,):
            raise AgentError(f"{self.name} theft_values: a mask is one row of {NUM_ACTIONS} actions; got shape {np.shape(mask)}")
        legal = (np.asarray(mask) != 0).reshape(1, NUM_ACTIONS)
        _, _, values, valued = self._decide(observation[None], legal, np.ones(1, dtype=bool))
        return {NO_THEFT_ACTION + 1 + int(a): float(values[0, a]) for a in np.flatnonzero(valued[0])}

    def target_weights(self, observation: np.ndarray) -> np.ndarray:
        """(4,) by clockwise offset: how much an opponent's score counts against its own (every one fully)."""
        return np.ones(MAX_PLAYERS)

    def _target_weight_rows(self, observations: np.ndarray) -> np.ndarray:
        """(B, 4): `target_weights` of every row of a batch (a subclass's own, asked row by row)."""
        if type(self).target_weights is RiskAwareAgent.target_weights:
            return np.ones((len(observations), MAX_PLAYERS))
        return np.array([self.target_weights(row) for row in observations], dtype=np.float64).reshape(len(observations), MAX_PLAYERS)

    def choose_theft(self, observation: np.ndarray, mask: np.ndarray) -> tuple[int, float]:
        """The theft action of highest EV and its EV, or (no theft, 0.0) when none is positive."""
        values = self.theft_values(observation, mask)
        best = max(values, key=lambda a: values[a], default=NO_THEFT_ACTION)
        if best == NO_THEFT_ACTION or values[best] <= 0:
            return NO_THEFT_ACTION, 0.0
        return best, values[best]

    def reset(self) -> None:
        """Nothing is remembered: the recall view holds every card seen."""


class TheftAwareAgent(RiskAwareAgent):
    """Risk-aware, but a flip's octopus is worth the best theft it allows (module docstring)."""

    name = "theft-aware"
    theft_aware = True


class RivalAwareAgent(TheftAwareAgent):
    """Theft-aware, but only the leading opponent's score counts fully against its own (module docstring)."""

    name = "rival-aware"

    def __init__(self, seed: Seed | None = None, rival_weight: float = RIVAL_WEIGHT):
        number = isinstance(rival_weight, int | float | np.integer | np.floating) and not isinstance(rival_weight, bool)
        if not number or not 0 <= rival_weight <= 1:
            raise InvalidConfigError(
                f"rival_weight={rival_weight!r:.60} is not allowed; it is a number from 0 (only the leader's score "
                f"counts) to 1 (every opponent's counts fully: theft-aware)"
            )
        super().__init__(seed)
        self.rival_weight = float(rival_weight)

    def target_weights(self, observation: np.ndarray) -> np.ndarray:
        """1 for the leading opponents (highest total plus session score, O7), `rival_weight` for the others."""
        return np.where(leading_opponents(observation), 1.0, self.rival_weight)

    def _target_weight_rows(self, observations: np.ndarray) -> np.ndarray:
        """(B, 4): `target_weights` of every row, at once (a subclass's own `target_weights`, row by row)."""
        if type(self).target_weights is not RivalAwareAgent.target_weights:
            return super()._target_weight_rows(observations)
        return np.where(_leaders(observations), 1.0, self.rival_weight)


def leading_opponents(observation: np.ndarray) -> np.ndarray:
    """(4,) by clockwise offset: True for the opponents at the table with the highest total plus session
    score (O7; the session score is 0 where the view hides it); offset 0, the seat itself, is False."""
    checked_row(observation, "leading_opponents")
    leaders: np.ndarray = _leaders(observation[None])[0]
    return leaders


def _leaders(observations: np.ndarray) -> np.ndarray:
    """(B, 4): `leading_opponents` of every row of a batch."""
    present = OBSERVATION_LAYOUT.view(observations, "present")[..., 0] > 0.5
    points = np.rint(OBSERVATION_LAYOUT.view(observations, "total")[..., 0] * TARGET) + np.rint(
        OBSERVATION_LAYOUT.view(observations, "session_score")[..., 0] * SCORE_SCALE
    )
    present[:, 0] = False
    leaders: np.ndarray = present & (points == np.where(present, points, -np.inf).max(axis=1, keepdims=True))
    return leaders


def theft_mask(observation: np.ndarray) -> np.ndarray:
    """The mask an octopus would give the seat now (O5): no theft, and k from each opponent holding k cards or more."""
    checked_row(observation, "theft_mask")
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[NO_THEFT_ACTION] = 1
    sizes = np.rint(OBSERVATION_LAYOUT.view(observation, "collection_size")[:, 0] * SIZE_SCALE)
    present = OBSERVATION_LAYOUT.view(observation, "present")[:, 0] > 0.5
    for offset in range(1, MAX_PLAYERS):
        for k in range(1, MAX_STEAL + 1):
            mask[theft_action(offset, k)] = int(present[offset] and sizes[offset] >= k)
    return mask


def octopus_agents() -> dict[str, Callable[[int | None], Agent]]:
    """The octopus baselines by name: random, cautious (stops at 3 cards), risk-aware, theft-aware, rival-aware."""
    return {
        RandomAgent.name: RandomAgent,
        CautiousAgent.name: CautiousAgent,
        RiskAwareAgent.name: RiskAwareAgent,
        TheftAwareAgent.name: TheftAwareAgent,
        RivalAwareAgent.name: RivalAwareAgent,
    }


def load_octopus_agent(spec: str, seed: int | None = None) -> Agent | PolicyAgent:
    """The octopus agent `spec` names: a built-in (`octopus_agents()`), a shipped octopus policy
    (octopus-ppo-v1), or an octopus self-play run (its folder, or a model .zip), a trained policy
    optionally followed by `@best` or `@sample` (how it plays); seeded by `seed`. AgentSpecError
    for a name nothing loads, CheckpointError for a checkpoint that is not an octopus policy."""
    loaded: Agent | PolicyAgent = load_game_agent("octopus", spec, seed, octopus_agents(), OBSERVATION_VERSION, check=check_policy_shape)
    return loaded


def check_policy_shape(model: Any, source: Path) -> None:
    """Refuse (CheckpointSpaceError) a model that does not read the octopus rows or choose its 12 actions."""
    space, actions = getattr(model, "observation_space", None), getattr(model, "action_space", None)
    if getattr(space, "shape", None) != (OBSERVATION_LAYOUT.size,) or not (
        isinstance(actions, gymnasium.spaces.Discrete) and actions.n == NUM_ACTIONS
    ):
        raise CheckpointSpaceError(
            f"{source} reads observations {space} and plays {actions}, but the octopus game gives "
            f"Box({OBSERVATION_LAYOUT.size},) observations and Discrete({NUM_ACTIONS}) actions"
        )


def shipped_octopus_policies() -> list[str]:
    """The names of the octopus policies shipped with the package (their metadata names the game)."""
    return shipped_policy_names("octopus")


def load_octopus_agents(names: Sequence[str], seed: int | None = None) -> list[Agent | PolicyAgent]:
    """Octopus agents by spec (`load_octopus_agent`), each seeded from its own child of `seed` (`miaui_env.core.seeding`)."""
    if isinstance(names, str | bytes) or not isinstance(names, Sequence):
        raise InvalidConfigError(f"octopus agents are given as a list of names (e.g. ['random']); got {names!r:.60}")
    not_strings = [name for name in names if not isinstance(name, str)]
    if not_strings:
        raise InvalidConfigError(
            f"octopus agent specs are strings (a built-in name, a shipped policy or a run's folder); got {not_strings!r:.60}"
        )
    seeds = [None] * len(names) if seed is None else [seed_int(child) for child in seed_children(seed, len(names))]
    return [load_octopus_agent(name, agent_seed) for name, agent_seed in zip(names, seeds, strict=True)]


__all__ = [
    "CautiousAgent",
    "RiskAwareAgent",
    "RivalAwareAgent",
    "TheftAwareAgent",
    "flip_odds",
    "leading_opponents",
    "load_octopus_agent",
    "load_octopus_agents",
    "octopus_agents",
    "shipped_octopus_policies",
    "success_probability",
    "theft_action",
]
