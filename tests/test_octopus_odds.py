"""The odds features (miaui_env/games/octopus/odds.py) against the risk-aware, theft-aware and
rival-aware players' own maths (miaui_env/games/octopus/agents.py), which is the reference: both read the
same observations."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.agents import MAX_SUBSETS, CautiousAgent, RiskAwareAgent, RivalAwareAgent, TheftAwareAgent, flip_odds
from miaui_env.games.octopus.agents import leading_opponents as agents_leading_opponents
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, observe
from miaui_env.games.octopus.odds import (
    ODDS_NAMES,
    ODDS_SIZE,
    POINTS_SCALE,
    OctopusOddsFeatures,
    leading_opponents,
    octopus_odds,
)

COLUMN = {name: i for i, name in enumerate(ODDS_NAMES)}


def played_decisions(seed: int, num_players: int, view: str = "recall") -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation (from `view`) and mask of one game of mixed baselines."""
    agents = [RiskAwareAgent(seed), CautiousAgent(seed, cards=4), RandomAgent(seed)]
    state = rules.new_game(num_players, seed=seed, max_sessions=2)
    rows, masks = [], []
    while not state.is_over:
        agent = agents[state.active % len(agents)]
        mask = rules.action_mask(state)
        rows.append(observe(state, state.active, view))
        masks.append(mask)
        action = int(agent.act(observe(state, state.active, getattr(agent, "view", "table"))[None], mask[None])[0])
        rules.step(state, rules.decision_of(state, action))
    return np.array(rows, dtype=np.float32), np.array(masks)


def odds_of(rows: np.ndarray) -> np.ndarray:
    """The features for a batch of rows, as float64 numpy."""
    extractor = OctopusOddsFeatures(gymnasium.spaces.Box(-1.0, 1.0, (OBSERVATION_LAYOUT.size,)))
    features = extractor(torch.as_tensor(rows)).numpy().astype(np.float64)
    assert np.array_equal(features[:, : OBSERVATION_LAYOUT.size], rows)  # the rows go through as they are
    return features[:, OBSERVATION_LAYOUT.size :]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), num_players=st.integers(2, 4))
def test_the_flip_odds_are_the_risk_aware_players(seed, num_players):
    rows, masks = played_decisions(seed, num_players)
    odds = odds_of(rows)
    flips = masks[:, 1] == 1
    assert flips.any()
    for row, feature in zip(rows[flips], odds[flips], strict=True):
        p_bust, p_octopus, flip_value, stop_gain = flip_odds(row)
        np.testing.assert_allclose(feature[[COLUMN["p_bust"], COLUMN["p_octopus"]]], [p_bust, p_octopus], atol=1e-5)
        np.testing.assert_allclose(
            feature[[COLUMN["stop_gain"], COLUMN["flip_value"], COLUMN["flip_edge"]]] * POINTS_SCALE,
            [stop_gain, flip_value, flip_value - stop_gain],
            atol=1e-4,
        )


# The risk-aware player weighs every target's points fully; the rival-aware one only the leader's.
THEFT_COLUMNS = {
    "risk-aware": (RiskAwareAgent, "theft_ev_", "best_theft"),
    "rival-aware": (RivalAwareAgent, "rival_theft_ev_", "rival_best_theft"),
}


@pytest.mark.parametrize("player", THEFT_COLUMNS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), num_players=st.integers(2, 4))
def test_the_theft_values_are_the_reference_players_exact_enumeration(player, seed, num_players):
    rows, masks = played_decisions(seed, num_players)
    odds = odds_of(rows)
    reference_class, ev_column, best_column = THEFT_COLUMNS[player]
    reference = reference_class(0)
    checked = 0
    for row, mask, feature in zip(rows, masks, odds, strict=True):
        legal = np.flatnonzero(mask[3:]) + 3
        if not mask[2]:
            continue
        sizes = np.rint(OBSERVATION_LAYOUT.view(row, "collection_size")[:, 0] * 66).astype(int)
        values = reference.theft_values(row, mask)
        for action in legal:
            offset, k = 1 + (action - 3) // 3, 1 + (action - 3) % 3
            if math.comb(sizes[offset], k) > MAX_SUBSETS:
                continue  # the reference samples subsets there: no exact value to compare with
            assert feature[COLUMN[f"{ev_column}{action}"]] * POINTS_SCALE == pytest.approx(values[action], abs=1e-4)
            checked += 1
        illegal = [a for a in range(3, 12) if a not in legal]
        assert np.all(feature[[COLUMN[f"{ev_column}{a}"] for a in illegal]] == 0)
        best = max([values[a] for a in legal], default=0.0)
        if all(math.comb(sizes[1 + (a - 3) // 3], 1 + (a - 3) % 3) <= MAX_SUBSETS for a in legal):
            assert feature[COLUMN[best_column]] * POINTS_SCALE == pytest.approx(max(best, 0.0), abs=1e-4)
    assume_some = checked > 0 or not (masks[:, 2] == 1).any()
    assert assume_some


def test_a_theft_ev_is_hand_computed_on_a_stacked_deck():
    # player_0 keeps two species-0 cards (values 4 and 1); player_1 flips an octopus and decides.
    s0_4, s0_1, s1_3 = rules.fish(0, 4), rules.fish(0, 1), rules.fish(1, 3)
    state = rules.new_game(2, seed=0, deck=rules.stacked_deck([s0_4, s1_3, s0_1]), max_sessions=1)
    rules.step(state, rules.decision_of(state, 1))  # player_0 flips s1_3 after s0_4
    rules.step(state, rules.decision_of(state, 0))  # and stops: {s0 value 4, s1 value 3}
    state = rules.new_game(2, seed=0, deck=rules.stacked_deck([s0_4, s1_3, rules.OCTOPUS_IDS[0]]), max_sessions=1)
    rules.step(state, rules.decision_of(state, 1))
    rules.step(state, rules.decision_of(state, 0))  # player_0: s0 4, s1 3 (score 7)
    assert state.active == 1 and state.phase is rules.Phase.THEFT
    row = observe(state, 1, "recall")
    odds = odds_of(row[None])[0]
    # k = 1 from a collection {4, 3} of two species, to an empty collection: either card gains its value
    # and costs the target that value: swing (4 + 4 + 3 + 3) / 2 = 7; no backfire (the thief has no card).
    assert odds[COLUMN["theft_ev_3"]] * POINTS_SCALE == pytest.approx(5 / 6 * 7)
    # k = 2 takes both: 14 points of swing, with the die's 1/2.
    assert odds[COLUMN["theft_ev_4"]] * POINTS_SCALE == pytest.approx(1 / 2 * 14)
    assert odds[COLUMN["theft_ev_5"]] == 0  # k = 3 > 2 cards: not legal
    assert odds[COLUMN["best_theft"]] * POINTS_SCALE == pytest.approx(7.0)


def test_the_rival_theft_evs_are_hand_computed_on_a_stacked_deck():
    # 3 players: player_0 keeps A4 (4 points, the leader), player_1 B3, player_2 A3; two octopuses with
    # their thefts declined, then player_2 flips the third. The -1 face gives a target A3: player_2 loses
    # 3, player_0 (holding A4) gains 0, player_1 gains 3. From player_0 (offset 1), k=1: player_2 gains 1,
    # player_0 loses 4: 5/6 * 5 - 3/6 = 22/6 either way. From player_1 (offset 2), k=1: 5/6 * 6 - 6/6 =
    # 24/6 in full; a trailing target's points count 0 times: 5/6 * 3 - 3/6 = 12/6.
    top = [rules.fish("anchovy", 4), rules.fish("bream", 3), rules.fish("anchovy", 3), *rules.OCTOPUS_IDS[:3]]
    state = rules.new_game(3, seed=0, deck=rules.stacked_deck(top), max_sessions=1)
    for decision in (rules.STOP, rules.STOP, rules.STOP, rules.NO_THEFT, rules.NO_THEFT):
        rules.step(state, decision)
    assert state.active == 2 and state.phase is rules.Phase.THEFT
    row = observe(state, 2, "recall")
    odds = odds_of(row[None])[0] * POINTS_SCALE
    assert leading_opponents(torch.as_tensor(row[None])).tolist() == [[True, False, False]]
    assert odds[COLUMN["theft_ev_3"]] == pytest.approx(22 / 6, abs=1e-5) and odds[COLUMN["rival_theft_ev_3"]] == pytest.approx(
        22 / 6, abs=1e-5
    )
    assert odds[COLUMN["theft_ev_6"]] == pytest.approx(24 / 6, abs=1e-5) and odds[COLUMN["rival_theft_ev_6"]] == pytest.approx(
        12 / 6, abs=1e-5
    )
    assert odds[COLUMN["best_theft"]] == pytest.approx(24 / 6, abs=1e-5) and odds[COLUMN["rival_best_theft"]] == pytest.approx(
        22 / 6, abs=1e-5
    )


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), num_players=st.integers(2, 4), view=st.sampled_from(["recall", "table"]))
def test_the_leaders_are_the_rival_aware_players(seed, num_players, view):
    # Ties, absent seats (fewer than 4 players) and the table view (opponents' session scores hidden).
    rows, _ = played_decisions(seed, num_players, view)
    expected = np.array([agents_leading_opponents(row)[1:] for row in rows])
    np.testing.assert_array_equal(leading_opponents(torch.as_tensor(rows)).numpy(), expected)


@pytest.mark.parametrize(("player", "prefix"), [(TheftAwareAgent, ""), (RivalAwareAgent, "rival_")])
def test_the_octopus_edge_is_the_players_flip_edge(player, prefix):
    # The agents return early with the plain edge when it is positive; compare where the theft term counts,
    # on rows whose every theft EV is exact (no sampled subsets).
    rows, masks = played_decisions(5, 3)
    odds = odds_of(rows)
    reference, compared = player(0), 0
    for row, mask, feature in zip(rows, masks, odds, strict=True):
        sizes = np.rint(OBSERVATION_LAYOUT.view(row, "collection_size")[1:, 0] * 66).astype(int)
        if not mask[1] or feature[COLUMN["flip_edge"]] > 0 or any(math.comb(n, 3) > MAX_SUBSETS for n in sizes):
            continue
        assert feature[COLUMN[f"{prefix}octopus_edge"]] * POINTS_SCALE == pytest.approx(reference.flip_edge(row), abs=1e-4)
        compared += 1
    assert compared > 0


@pytest.mark.parametrize("prefix", ["", "rival_"])
def test_the_octopus_edge_adds_the_best_theft_at_the_octopus_odds(prefix):
    rows, masks = played_decisions(5, 3)
    odds = odds_of(rows)
    flips = masks[:, 1] == 1
    best = odds[flips, COLUMN[f"{prefix}best_theft"]]
    expected = odds[flips, COLUMN["flip_edge"]] + odds[flips, COLUMN["p_octopus"]] * best
    np.testing.assert_allclose(odds[flips, COLUMN[f"{prefix}octopus_edge"]], expected, atol=1e-6)
    assert (best > 0).any()


def test_the_features_are_the_same_function_of_a_row_in_a_batch_or_alone():
    rows, _ = played_decisions(11, 4)
    batch = odds_of(rows)
    alone = np.array([odds_of(row[None])[0] for row in rows[:20]])
    np.testing.assert_allclose(batch[:20], alone, atol=1e-6)
    assert batch.shape == (len(rows), ODDS_SIZE) and np.isfinite(batch).all()


def test_the_extractor_refuses_another_games_observations():
    with pytest.raises(rules.InvalidConfigError, match=r"shape \(306,\)"):
        OctopusOddsFeatures(gymnasium.spaces.Box(-1.0, 1.0, (100,)))


def test_odds_keep_the_batch_device_and_dtype():
    rows, _ = played_decisions(2, 2)
    extractor = OctopusOddsFeatures(gymnasium.spaces.Box(-1.0, 1.0, (OBSERVATION_LAYOUT.size,)))
    out = octopus_odds(torch.as_tensor(rows), extractor.tables)
    assert out.dtype == torch.float32 and out.shape == (len(rows), ODDS_SIZE)
