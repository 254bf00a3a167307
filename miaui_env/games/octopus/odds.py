"""The octopus heuristics' odds as network inputs: an SB3 features extractor for the octopus game.

    policy_kwargs={"features_extractor_class": OctopusOddsFeatures}      # in Python
    ppo: {policy_kwargs: {features_extractor_class: OctopusOddsFeatures}}  # in a run's config

A policy network reads the octopus observation (`miaui_env.games.octopus.observation`) followed by
`ODDS_SIZE` numbers computed from it, in torch, batched, on the policy's device: what the
risk-aware, theft-aware and rival-aware baselines (`miaui_env.games.octopus.agents`, whose docstring
holds the maths) weigh before each decision, so that a network starts from the quantities a
strong player uses instead of having to learn card counting from the raw counts. They are a function of the observation alone:
the recall view shows every card seen (O4), so the odds are the exact ones; from the table view
(opponents' collections and the discard pile hidden) they are computed from what is in sight.

| feature | meaning (points / 10) |
|---|---|
| `p_bust`, `p_octopus` | the next flip's chance of a bust and of an octopus (O3) |
| `stop_gain` | the session score the row adds if it stops now (O7) |
| `flip_value` | the expected gain of one more flip, then stop (an octopus counted as 0) |
| `flip_edge` | `flip_value - stop_gain`: risk-aware flips while it is positive |
| `theft_ev` (9) | each theft's expected swing, by action index 3-11 (O5, 0 where not legal) |
| `best_theft` | the best legal theft's EV, or 0 (no theft) |
| `octopus_edge` | `flip_edge + p_octopus * best_theft`: the edge counting the theft an octopus allows |
| `rival_theft_ev` (9) | each theft's EV as the rival-aware player weighs it: a trailing opponent's points count `RIVAL_WEIGHT` times |
| `rival_best_theft`, `rival_octopus_edge` | `best_theft` and `octopus_edge` from those EVs |

The theft EVs are exact: the thief's gain and the target's loss are sums over species, and each
species' term depends only on whether the k cards drawn hold every (or any) card of that species
of value v or more, a hypergeometric probability. `RiskAwareAgent.theft_values` enumerates the
k-subsets instead (sampling above `MAX_SUBSETS`); `tests/test_octopus_odds.py` checks one against
the other.
"""

from __future__ import annotations

import math
from typing import Any, cast

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from miaui_env.core.layout import check_vector_space
from miaui_env.games.octopus.agents import RIVAL_WEIGHT
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, SCORE_SCALE, VALUES
from miaui_env.games.octopus.rules import (
    DIE_FACES,
    FISH_VALUES,
    MAX_PLAYERS,
    MAX_STEAL,
    NUM_CARDS,
    NUM_OCTOPUSES,
    NUM_SPECIES,
    TARGET,
    InvalidConfigError,
)

THEFTS = (MAX_PLAYERS - 1) * MAX_STEAL  # actions 3-11: offset 1-3, k 1-3
ODDS_NAMES = (
    "p_bust",
    "p_octopus",
    "stop_gain",
    "flip_value",
    "flip_edge",
    *(f"theft_ev_{a}" for a in range(3, 3 + THEFTS)),
    "best_theft",
    "octopus_edge",
    *(f"rival_theft_ev_{a}" for a in range(3, 3 + THEFTS)),
    "rival_best_theft",
    "rival_octopus_edge",
)
ODDS_SIZE = len(ODDS_NAMES)
POINTS_SCALE = 10.0  # odds in points are given / 10, near the observation's [0, 1]
_SUCCESS = [sum(face >= k for face in DIE_FACES) / len(DIE_FACES) for k in range(1, MAX_STEAL + 1)]  # O5: 5/6, 1/2, 1/3
_BACKFIRE = DIE_FACES.count(-1) / len(DIE_FACES)  # O5: the -1 face


def _binomials() -> torch.Tensor:
    """(67, 4): C(n, r) for a collection of n <= 66 cards and r <= 3 drawn; 0 where r > n."""
    return torch.tensor([[float(math.comb(n, r)) for r in range(MAX_STEAL + 1)] for n in range(NUM_CARDS + 1)], dtype=torch.float64)


class OddsTables(torch.nn.Module):
    """The constant tables the odds are computed with, as buffers that follow the policy to its device."""

    values: torch.Tensor
    copies: torch.Tensor
    binomials: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("values", torch.tensor(VALUES, dtype=torch.float32), persistent=False)
        self.register_buffer("copies", torch.tensor([FISH_VALUES.count(v) for v in VALUES], dtype=torch.float32), persistent=False)
        self.register_buffer("binomials", _binomials().to(torch.float32), persistent=False)

    def best(self, counts: torch.Tensor) -> torch.Tensor:
        """(..., 10): per species the highest value with a card in a (..., 10, 4) count block, 0 if none."""
        return torch.where(counts > 0.5, self.values, torch.zeros_like(self.values)).amax(dim=-1)

    def choose(self, n: torch.Tensor, r: torch.Tensor | int) -> torch.Tensor:
        """C(n, r) elementwise for whole n in 0-66 and r in 0-3; 0 where r < 0 or r > n."""
        r = torch.as_tensor(r, device=n.device).expand_as(n)
        inside = (r >= 0) & (r <= MAX_STEAL)
        table = self.binomials[n.clamp(0, NUM_CARDS).long(), r.clamp(0, MAX_STEAL).long()]
        return torch.where(inside, table, torch.zeros_like(table))


def _at_least(counts: torch.Tensor) -> torch.Tensor:
    """(..., 10, 4): per species and value v, the cards of that species of value v or more."""
    return counts.flip(-1).cumsum(-1).flip(-1)


def transfer(tables: OddsTables, taker_best: torch.Tensor, source: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(E[gain of the taker], E[loss of the source]) when k cards drawn uniformly from `source` (..., 10, 4)
    move to a player whose best value per species is `taker_best` (..., 10); both 0 if source holds < k."""
    size = source.sum(dim=(-2, -1))  # (...,)
    above = _at_least(source)  # a_v
    total = tables.choose(size, k).clamp(min=1.0)[..., None, None]
    some_drawn = 1.0 - tables.choose(size[..., None, None] - above, k) / total  # P(a card of value >= v is drawn)
    gain = (some_drawn * (tables.values > taker_best[..., None])).sum(dim=(-2, -1))
    all_drawn = tables.choose(size[..., None, None] - above, k - above) / total  # P(every card of value >= v is drawn)
    loss = (all_drawn * (above > 0.5)).sum(dim=(-2, -1))
    enough = size >= k
    return torch.where(enough, gain, torch.zeros_like(size)), torch.where(enough, loss, torch.zeros_like(size))


def leading_opponents(observations: torch.Tensor) -> torch.Tensor:
    """(B, 3) by clockwise offset 1-3: the opponents at the table with the highest total plus session
    score (O7; by total alone from the table view, which hides opponents' session scores), as
    `miaui_env.games.octopus.agents.leading_opponents` finds them."""
    _check_rows(observations)
    present = _view(observations, "present")[:, 1:, 0] > 0.5
    totals = torch.round(_view(observations, "total")[:, 1:, 0] * TARGET)
    points = totals + torch.round(_view(observations, "session_score")[:, 1:, 0] * SCORE_SCALE)
    points = torch.where(present, points, torch.full_like(points, -math.inf))
    return present & (points == points.amax(dim=-1, keepdim=True))


def _check_rows(observations: object) -> None:
    """InvalidConfigError unless `observations` is a (batch, 306) tensor of octopus rows."""
    shape = tuple(getattr(observations, "shape", ()))
    if not isinstance(observations, torch.Tensor) or len(shape) != 2 or shape[1] != OBSERVATION_LAYOUT.size:
        raise InvalidConfigError(
            f"the octopus odds read a (batch, {OBSERVATION_LAYOUT.size}) tensor of observations; "
            f"got {type(observations).__name__} of shape {shape}"
        )


def _view(observations: torch.Tensor, name: str) -> torch.Tensor:
    """Piece `name` of a batch of rows (the layout slices and reshapes tensors as it does arrays)."""
    return cast(torch.Tensor, OBSERVATION_LAYOUT.view(cast(Any, observations), name))


def octopus_odds(observations: torch.Tensor, tables: OddsTables) -> torch.Tensor:
    """(B, ODDS_SIZE): the odds of the module docstring for a batch of octopus observations (B, 306)."""
    _check_rows(observations)
    zero = observations.new_zeros(())
    row_values = torch.round(_view(observations, "row") * max(FISH_VALUES)).clamp(0, max(FISH_VALUES))  # (B, 10)
    row_order = torch.round(_view(observations, "row_order") * NUM_SPECIES)
    collections = torch.round(_view(observations, "collection")).clamp(min=0)  # (B, 4, 10, 4), seat 0 its own
    in_row = row_values > 0.5
    row_cards = torch.nn.functional.one_hot((row_values - 1).clamp(min=0).long(), len(VALUES)) * in_row[..., None]
    seen = torch.round(_view(observations, "discard")) + collections.sum(dim=1) + row_cards
    unseen = (tables.copies - seen).clamp(min=0)
    unseen_octopuses = NUM_OCTOPUSES - torch.round(_view(observations, "discard_octopuses")[:, 0] * NUM_OCTOPUSES)
    deck = unseen.sum(dim=(-2, -1)) + unseen_octopuses
    safe_deck = deck.clamp(min=1.0)

    own = collections[:, 0]
    own_best = tables.best(own)
    row_gain = torch.where(in_row, (row_values - own_best).clamp(min=0), zero)
    stop_gain = row_gain.sum(dim=-1)
    p_species = unseen.sum(dim=-1) / safe_deck[:, None]
    before = (row_order[:, None, :] < row_order[:, :, None]) & in_row[:, None, :]  # [b, s, t]: t flipped before s
    kept_gain = (before * row_gain[:, None, :]).sum(dim=-1)  # a bust on s keeps what came before (O3)
    bust_value = torch.where(in_row, p_species * kept_gain, zero).sum(dim=-1)
    new_gain = stop_gain[:, None, None] + (tables.values - own_best[..., None]).clamp(min=0)
    new_value = torch.where(in_row[..., None], zero, unseen / safe_deck[:, None, None] * new_gain).sum(dim=(-2, -1))
    has_deck = deck > 0.5
    p_bust = torch.where(has_deck, torch.where(in_row, p_species, zero).sum(dim=-1), zero)
    p_octopus = torch.where(has_deck, unseen_octopuses / safe_deck, zero)
    flip_value = torch.where(has_deck, bust_value + new_value, zero)
    stop_gain = torch.where(has_deck, stop_gain, zero)  # flip_odds' convention: nothing to weigh once the deck is out

    # Thefts (O5): the -1 face hands one random card of the thief's to the target.
    targets = collections[:, 1:]  # (B, 3, 10, 4) by clockwise offset
    target_best = tables.best(targets)
    given, lost = transfer(tables, target_best, own[:, None], 1)  # (B, 3) each; 0 when the thief holds nothing
    sizes = torch.round(_view(observations, "collection_size")[:, 1:, 0] * NUM_CARDS)  # in sight in both views (O4)
    present = _view(observations, "present")[:, 1:, 0] > 0.5
    steals = range(1, MAX_STEAL + 1)
    legal = torch.stack([present & (sizes >= k) for k in steals], dim=-1)  # (B, offset, k), as the action indices
    moves = [transfer(tables, own_best[:, None], targets, k) for k in steals]  # (what it gains, what the target loses)

    def theft_evs(weight: torch.Tensor | float) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 9) each theft's EV with the target's points weighted by `weight`, and the best (0 if none positive)."""
        backfire = lost + weight * given
        evs = [_SUCCESS[k - 1] * (gain + weight * loss) - _BACKFIRE * backfire for k, (gain, loss) in zip(steals, moves, strict=True)]
        ev = torch.where(legal, torch.stack(evs, dim=-1), zero).reshape(len(observations), THEFTS)
        return ev, ev.amax(dim=-1).clamp(min=0)  # illegal thefts are 0, as no theft is

    theft_ev, best_theft = theft_evs(1.0)
    rival_weight = torch.where(leading_opponents(observations), 1.0, RIVAL_WEIGHT)
    rival_theft_ev, rival_best_theft = theft_evs(rival_weight)

    flip_edge = flip_value - stop_gain
    points = torch.cat(
        [
            stop_gain[:, None],
            flip_value[:, None],
            flip_edge[:, None],
            theft_ev,
            best_theft[:, None],
            (flip_edge + p_octopus * best_theft)[:, None],
            rival_theft_ev,
            rival_best_theft[:, None],
            (flip_edge + p_octopus * rival_best_theft)[:, None],
        ],
        dim=-1,
    )
    return torch.cat([p_bust[:, None], p_octopus[:, None], points / POINTS_SCALE], dim=-1)


class OctopusOddsFeatures(BaseFeaturesExtractor):
    """Features extractor: the octopus observation followed by its `ODDS_SIZE` odds (module docstring)."""

    def __init__(self, observation_space: gymnasium.spaces.Box):
        check_vector_space(
            observation_space, OBSERVATION_LAYOUT, "OctopusOddsFeatures", "octopus observations", "the octopus game", InvalidConfigError
        )
        super().__init__(observation_space, OBSERVATION_LAYOUT.size + ODDS_SIZE)
        self.tables = OddsTables()

    def forward(self, observations: Any) -> Any:
        """The rows, then their odds."""
        observations = observations.float()
        return torch.cat([observations, octopus_odds(observations, self.tables)], dim=-1)


__all__ = ["ODDS_NAMES", "ODDS_SIZE", "OctopusOddsFeatures", "leading_opponents", "octopus_odds"]
