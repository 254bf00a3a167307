"""Card counting as network inputs: the odds a careful Miaui player weighs, computed in torch.

    ppo: {policy_kwargs: {card_odds: true}}        # a run's config (PrivilegedCriticPolicy or CompactInputPolicy)
    MaskablePPO("MlpPolicy", venv, policy_kwargs={"features_extractor_class": CardOddsFeatures})   # float32 rows

A policy network that reads the flat observation must learn, from one-hot cards, what each
opponent may still hold and how likely each of its own cards is to win each lagoon space: a
product over opponents of sums over their remaining cards. `CardOdds` computes those quantities
from the observation alone and puts them beside it, so the network starts from them (the octopus
game's odds features, `miaui_env.games.octopus.odds`, do the same there). They are inputs, not targets: no loss
asks the policy to play as any heuristic plays.

The maths is `miaui_env.games.miaui.agents.heuristics`' (its docstring): each space's value to the observer
(Seagulls, Jellyfish triples and face-down cards counted as the counter counts them), and each
card's chance to catch each space, every opponent's card drawn uniformly and independently from
the cards she has not revealed, Kiti's priorities breaking ties (R6-R8; no catch on a tie in No
Fighting). In the recall view and Open Baskets every card played is in sight, so the counts are
exact, and the catch chances are the counter's; from the table view only the last reveal is in
sight, and the chances count only that (as the greedy player's do, less the cards just shown). A short
game (fewer rounds) deals each hand the cards 1 to its rounds, and the counts know it; a face-down
card and a Jellyfish triple are priced by the whole game's deck, as the counter prices them.

| feature | size | meaning |
|---|---|---|
| `space_value` | 3 | what catching the bottom, middle and top space adds to your score / 15 |
| `catch_chance` | 12 x 3 | each diver card's chance to catch each space |
| `expected_catch` | 12 | each card's expected catch (chance times value, summed) / 15 |
| `cards_left` | 5 | cards each opponent (left of you, clockwise) still holds / 12: as many as you (R6) |

`tests/test_card_odds.py` checks every feature against the counter's compiled kernels.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from miaui_env.core.layout import VECTOR_BOUND, check_vector_space
from miaui_env.games.miaui.agents.heuristics import TYPICAL_JELLYFISH, UNKNOWN_FISH_VALUE
from miaui_env.games.miaui.cards import FISH_KINDS, FishKind
from miaui_env.games.miaui.compact import CompactError
from miaui_env.games.miaui.observation import (
    CARD_DIM,
    COUNT_SCALE,
    HEIGHT_SCALE,
    HIDDEN_FEATURE,
    LAGOON_SLOTS,
    OBSERVATION_LAYOUT,
    PILE_SLOTS,
    SEAT_LAYOUT,
    VALUE_SCALE,
)
from miaui_env.games.miaui.rules import MAX_PLAYERS, NUM_DIVER_CARDS, NUM_SPACES

ODDS_PIECES = (
    ("space_value", NUM_SPACES),
    ("catch_chance", NUM_DIVER_CARDS * NUM_SPACES),
    ("expected_catch", NUM_DIVER_CARDS),
    ("cards_left", MAX_PLAYERS - 1),
)
ODDS_SIZE = sum(size for _, size in ODDS_PIECES)

_VALUE = len(FISH_KINDS)  # a card's value feature follows its one-hot kind
_SEAGULL, _JELLYFISH = FISH_KINDS.index(FishKind.SEAGULL), FISH_KINDS.index(FishKind.JELLYFISH)
_SEAT_SIZE = SEAT_LAYOUT.size
_PLAYED, _CARD_PLAYED = SEAT_LAYOUT.offset("played"), SEAT_LAYOUT.offset("card_played")


def _piece(rows: torch.Tensor, name: str, *shape: int) -> torch.Tensor:
    """The observation piece `name` of every row, shaped (batch, *shape)."""
    return rows[:, OBSERVATION_LAYOUT.span(name)].reshape(rows.shape[0], *shape)


def space_values(rows: torch.Tensor) -> torch.Tensor:
    """(batch, 3): what catching each lagoon space adds to the observer's score, in points.

    The cards of a space land on the observer's pile one by one, oldest first: a Seagull takes the
    pile's top fish to the box (R7), a third Jellyfish goes there with the two held (R8), a
    face-down card she has not peeked is worth the deck's average."""
    seats = _piece(rows, "seats", MAX_PLAYERS, _SEAT_SIZE)
    own = seats[:, 0]
    summary_at, pile_at = SEAT_LAYOUT.offsets["pile_summary"], SEAT_LAYOUT.offsets["pile"]
    pile_tops = own[:, pile_at : pile_at + PILE_SLOTS * CARD_DIM].reshape(-1, PILE_SLOTS, CARD_DIM)[..., _VALUE] * VALUE_SCALE
    start_height = torch.round(own[:, summary_at] * HEIGHT_SCALE)
    start_jellies = torch.round(own[:, summary_at + 1 + _JELLYFISH] * COUNT_SCALE)
    lagoon = _piece(rows, "lagoon", NUM_SPACES, LAGOON_SLOTS, CARD_DIM)
    rest = _piece(rows, "lagoon_rest", NUM_SPACES, CARD_DIM)
    zero = torch.zeros_like(start_height)
    values = []
    for depth in range(NUM_SPACES):
        tops, height, jellies, gain = pile_tops, start_height, start_jellies, zero
        for slot in range(LAGOON_SLOTS):
            card = lagoon[:, depth, slot]
            present = (card != 0).any(dim=-1)
            hidden = card[:, HIDDEN_FEATURE] > 0
            kind = card[:, :_VALUE].argmax(dim=-1)  # the first of equal maxima, as the kernel's scan
            face_up = present & ~hidden
            value = torch.where(hidden, torch.full_like(gain, UNKNOWN_FISH_VALUE), card[:, _VALUE] * VALUE_SCALE)
            seagull = face_up & (kind == _SEAGULL)
            steals = seagull & (height > 0)
            gain = gain - torch.where(steals, tops[:, 0], zero)
            tops = torch.where(steals[:, None], torch.cat([tops[:, 1:], zero[:, None]], dim=1), tops)
            height = height - steals.to(height.dtype)
            lands = present & ~seagull
            jelly = lands & face_up & (kind == _JELLYFISH)
            third = jelly & (jellies == 2)
            gain = gain + torch.where(third, torch.full_like(gain, -2 * TYPICAL_JELLYFISH), torch.where(lands, value, zero))
            jellies = torch.where(third, zero, jellies + jelly.to(jellies.dtype))
            tops = torch.where(lands[:, None], torch.cat([value[:, None], tops[:, :-1]], dim=1), tops)
            height = height + lands.to(height.dtype)
        values.append(gain + rest[:, depth, _VALUE] * VALUE_SCALE + rest[:, depth, HIDDEN_FEATURE] * UNKNOWN_FISH_VALUE)
    return torch.stack(values, dim=1)


def cards_held(rows: torch.Tensor) -> torch.Tensor:
    """(batch, 6, 12) float: 1 for each card each seat (relative; row 0 the observer) may still hold:
    dealt (every hand is the cards 1 to the game's rounds, which the observer's own hand and cards
    played show) and not seen played (in its row, or in the last reveal)."""
    seats = _piece(rows, "seats", MAX_PLAYERS, _SEAT_SIZE)
    played = seats[..., _PLAYED : _PLAYED + NUM_DIVER_CARDS]
    last = seats[..., _CARD_PLAYED : _CARD_PLAYED + NUM_DIVER_CARDS]
    own_cards = (_piece(rows, "hand", NUM_DIVER_CARDS) > 0) | (played[:, 0] > 0)
    cards = torch.arange(1, NUM_DIVER_CARDS + 1, device=rows.device)
    rounds = (own_cards * cards).amax(dim=-1)  # a short game deals 1..rounds (12 in the whole game)
    dealt = cards <= rounds[:, None]
    return (dealt[:, None, :] & (played <= 0) & (last <= 0)).to(rows.dtype)


def catch_chances(rows: torch.Tensor, held: torch.Tensor) -> torch.Tensor:
    """(batch, 12 cards, 3 spaces): the chance that playing each card catches each space, each
    present opponent playing uniformly one of the cards `held` marks (R6: the two highest cards
    take the deeper spaces, the lowest the top one; Kiti's priorities settle ties)."""
    seats = _piece(rows, "seats", MAX_PLAYERS, _SEAT_SIZE)
    present = seats[..., SEAT_LAYOUT.offsets["present"]] > 0
    deep, shallow = seats[..., SEAT_LAYOUT.offsets["deep_priority"]], seats[..., SEAT_LAYOUT.offsets["shallow_priority"]]
    no_fighting = _piece(rows, "variant", 2)[:, 1] > 0
    batch = rows.shape[0]
    all_below = rows.new_ones(batch, NUM_DIVER_CARDS)  # P(every opponent below me)
    one_above = rows.new_zeros(batch, NUM_DIVER_CARDS)  # P(exactly one opponent above me)
    all_above = rows.new_ones(batch, NUM_DIVER_CARDS)  # P(every opponent above me)
    for seat in range(1, MAX_PLAYERS):
        wins_high_tie = (~no_fighting & (deep[:, 0] > deep[:, seat])).to(rows.dtype)[:, None]
        wins_low_tie = (~no_fighting & (shallow[:, 0] > shallow[:, seat])).to(rows.dtype)[:, None]
        equal = held[:, seat] / held[:, seat].sum(dim=-1, keepdim=True).clamp(min=1.0)
        below = torch.cumsum(equal, dim=-1) - equal  # P(her card < mine), mine running 1..12
        above = 1.0 - below - equal
        beaten = below + equal * wins_high_tie
        beats_me = above + equal * wins_low_tie
        here = present[:, seat, None]
        one_above = torch.where(here, one_above * beaten + all_below * (1.0 - beaten), one_above)
        all_below = torch.where(here, all_below * beaten, all_below)
        all_above = torch.where(here, all_above * beats_me, all_above)
    return torch.stack([all_below, one_above, all_above], dim=-1)


class CardOdds(nn.Module):
    """The observation with `ODDS_SIZE` card-counting features after it (the module docstring)."""

    out_extra = ODDS_SIZE

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """(..., n >= OBSERVATION_LAYOUT.size) -> (..., n + ODDS_SIZE): the rows, then their odds."""
        rows = observations.reshape(-1, observations.shape[-1])[:, : OBSERVATION_LAYOUT.size]
        values = space_values(rows)
        held = cards_held(rows)
        chances = catch_chances(rows, held)
        expected = (chances * values[:, None, :]).sum(dim=-1)
        present = _piece(rows, "seats", MAX_PLAYERS, _SEAT_SIZE)[:, 1:, SEAT_LAYOUT.offsets["present"]]
        # Every seat plays one card a round (R6): an opponent holds as many cards as the observer, in any view.
        left = _piece(rows, "hand", NUM_DIVER_CARDS).sum(dim=-1, keepdim=True) * present / NUM_DIVER_CARDS
        odds = torch.cat([values / VALUE_SCALE, chances.flatten(1), expected / VALUE_SCALE, left], dim=1)
        return torch.cat([observations, odds.reshape(*observations.shape[:-1], ODDS_SIZE)], dim=-1)


class CardOddsFeatures(BaseFeaturesExtractor):
    """Features extractor: Miaui's observation followed by its `ODDS_SIZE` odds, for a MaskablePPO
    policy (`policy_kwargs.features_extractor_class`; `CompactInputPolicy(card_odds=True)` sets it).

    It reads the float layout. Rows stored as uint8 codes must reach it expanded, as the library's
    policies expand them (`CompactInputPolicy`, `PrivilegedCriticPolicy`); codes read as numbers
    would be other inputs entirely, so rows out of the layout's bounds are refused."""

    def __init__(self, observation_space: gymnasium.spaces.Box):
        check_vector_space(observation_space, OBSERVATION_LAYOUT, "CardOddsFeatures", "Miaui observations", "Miaui")
        super().__init__(observation_space, OBSERVATION_LAYOUT.size + ODDS_SIZE)
        self.odds = CardOdds()

    def forward(self, observations: Any) -> Any:
        """The rows, then their odds; CompactError for rows that are codes, not the float layout."""
        rows = observations.float()
        if rows.numel() and rows.abs().amax() > VECTOR_BOUND:
            raise CompactError(
                f"CardOddsFeatures got rows out of the observation's bounds (|x| <= {VECTOR_BOUND:g}): uint8 codes? "
                "Train on them with CompactInputPolicy (card_odds=True), which expands them first"
            )
        return self.odds(rows)


__all__ = ["ODDS_PIECES", "ODDS_SIZE", "CardOdds", "CardOddsFeatures", "cards_held", "catch_chances", "space_values"]
