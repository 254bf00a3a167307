"""Rules scenarios with stacked decks, written from the rulebook and rulings.md (R1-R10)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SHARED_VICTORY_HIGH_SCORE, SHARED_VICTORY_PUT_BACK, SHARED_VICTORY_ROUNDS, card, play, stacked_deck, stacked_game

from miaui_env.core.errors import final_rewards
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishKind, parse_deck_order
from miaui_env.games.miaui.rules import (
    NUM_ROUNDS,
    Decision,
    Depth,
    GameConfig,
    JellyfishTriple,
    SeagullTheft,
    deep_priority,
    new_game,
    play_round,
    score,
    scores,
    shallow_priority,
    winners,
)

pytestmark = pytest.mark.oracle  # rules scenarios: the reference the engine is checked against

SOLE, KITI, NOFIGHT, NOBODY = Decision.SOLE_BEST, Decision.KITI, Decision.NO_FIGHTING, Decision.NOBODY_LEFT


# R1: Kiti sits between seat a = (r-1) mod n and a+1; deep ties a, a-1, ...; shallow ties a+1, a+2, ...
@pytest.mark.parametrize(
    ("n", "round_number", "deep", "shallow"),
    [
        (4, 1, (0, 3, 2, 1), (1, 2, 3, 0)),  # the example written in R1
        (3, 1, (0, 2, 1), (1, 2, 0)),
        (3, 2, (1, 0, 2), (2, 0, 1)),
        (3, 4, (0, 2, 1), (1, 2, 0)),  # Kiti has gone round once
        (4, 3, (2, 1, 0, 3), (3, 0, 1, 2)),
        (5, 5, (4, 3, 2, 1, 0), (0, 1, 2, 3, 4)),
        (5, 7, (1, 0, 4, 3, 2), (2, 3, 4, 0, 1)),
        (6, 1, (0, 5, 4, 3, 2, 1), (1, 2, 3, 4, 5, 0)),
        (6, 12, (5, 4, 3, 2, 1, 0), (0, 1, 2, 3, 4, 5)),
    ],
)
def test_kiti_priorities(n, round_number, deep, shallow):
    assert deep_priority(round_number, n) == deep
    assert shallow_priority(round_number, n) == shallow


def warm_up(n: int, rounds: int) -> list[list[int]]:
    """Rounds 1..rounds where every seat plays the round's number (so later plays are >= round)."""
    return [[r] * n for r in range(1, rounds + 1)]


# R7 with Kiti: (players, round, plays, (bottom, middle, top) catcher, how each depth was decided).
TIE_SCENARIOS = [
    (4, 1, (5, 5, 5, 5), (0, 3, 1), (KITI, KITI, KITI)),
    (4, 2, (9, 9, 9, 7), (1, 0, 3), (KITI, KITI, SOLE)),  # the rulebook's example: three 9s
    (3, 1, (4, 4, 4), (0, 2, 1), (KITI, KITI, SOLE)),  # with 3 players everyone catches
    (3, 3, (6, 6, 6), (2, 1, 0), (KITI, KITI, SOLE)),
    (5, 4, (8, 8, 5, 5, 5), (1, 0, 4), (KITI, SOLE, KITI)),
    (5, 6, (10, 7, 7, 12, 7), (3, 0, 1), (SOLE, SOLE, KITI)),
    (6, 1, (3, 3, 5, 4, 9, 3), (4, 2, 1), (SOLE, SOLE, KITI)),
    (6, 9, (11, 11, 11, 11, 10, 10), (2, 1, 4), (KITI, KITI, KITI)),
]


@pytest.mark.parametrize(("n", "round_number", "plays", "catchers", "decisions"), TIE_SCENARIOS)
def test_depths_and_kiti_ties(n, round_number, plays, catchers, decisions):
    state = new_game(GameConfig(num_players=n), np.random.default_rng(round_number))
    play(state, *warm_up(n, round_number - 1))
    lagoon_before = [space[0].card for space in state.lagoon]
    (record,) = play_round(state, plays)
    assert record.round == round_number
    assert tuple(d.winner for d in record.depths) == catchers
    assert tuple(d.decision for d in record.depths) == decisions
    for depth in Depth:
        assert record.depths[depth].fish == (state.card(lagoon_before[depth]),)


def test_the_forced_last_round_uses_round_12_priorities():
    n = 6
    state = new_game(GameConfig(num_players=n), np.random.default_rng(3))
    records = play(state, *warm_up(n, 11))
    assert state.is_over
    last = records[-1]
    assert last.round == NUM_ROUNDS and last.plays == (12,) * n  # R6: the last card is forced
    # Round 12: a = 11 mod 6 = 5; deep order 5,4,...; shallow order 0,1,...
    assert tuple(d.winner for d in last.depths) == (5, 4, 0)


def test_eleven_decisions_then_the_engine_plays_the_last_card():
    state = new_game(GameConfig(num_players=4), np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for round_number in range(1, NUM_ROUNDS):
        hands_before = state.hands.copy()
        plays = [int(rng.choice(state.legal_cards(s))) for s in range(4)]
        records = play_round(state, plays)
        assert len(records) == (2 if round_number == NUM_ROUNDS - 1 else 1)
        if round_number < NUM_ROUNDS - 1:
            assert (hands_before.sum(axis=1) - state.hands.sum(axis=1) == 1).all()
            assert (hands_before - state.hands)[range(4), np.asarray(plays) - 1].tolist() == [1] * 4
    assert state.is_over and state.hands.sum() == 0
    assert [len(p) for p in state.played] == [NUM_ROUNDS] * 4
    assert state.history[-1].plays == tuple(p[-1] for p in state.played)


def test_seagull_on_an_empty_pile_flies_away_hungry():
    state = stacked_game([("tigerfish:7", "emperor_tuna:15", "kittenfish:1"), ("seagull:0", "tigerfish:6", "kittenfish:2")])
    play(state, (12, 11, 2, 1))  # player_2 catches nothing in round 1
    (record,) = play(state, (10, 9, 12, 2))
    assert record.depths[Depth.DEEPEST].winner == 2
    assert record.events == (SeagullTheft(2, None),)
    assert state.piles[2] == [] and score(state, 2) == 0
    assert [str(state.card(c)) for c in state.box] == ["seagull:0"]


def test_seagull_steals_a_jellyfish_on_top():
    state = stacked_game(
        [
            ("tigerfish:7", "emperor_tuna:15", "kittenfish:4"),
            ("tigerfish:6", "emperor_tuna:14", "jellyfish:-15"),
            ("seagull:0", "kittenfish:2", "kittenfish:1"),
        ]
    )
    play(state, (1, 12, 11, 10), (2, 11, 9, 12))  # player_0 takes the top twice
    assert [str(state.card(c)) for c in state.piles[0]] == ["kittenfish:4", "jellyfish:-15"]
    (record,) = play(state, (12, 3, 4, 5))
    assert record.events == (SeagullTheft(0, card("jellyfish:-15")),)
    assert [str(state.card(c)) for c in state.piles[0]] == ["kittenfish:4"]
    assert score(state, 0) == 4
    assert sorted(str(state.card(c)) for c in state.box) == ["jellyfish:-15", "seagull:0"]


def test_three_jellyfish_go_to_the_box():
    state = stacked_game(
        [
            ("emperor_tuna:10", "emperor_tuna:11", "kittenfish:3"),
            ("emperor_tuna:12", "emperor_tuna:13", "jellyfish:-10"),
            ("tigerfish:6", "tigerfish:7", "jellyfish:-15"),
            ("tigerfish:8", "tigerfish:9", "jellyfish:-10"),
        ],
        num_players=3,
    )
    records = play(state, (1, 12, 11), (2, 11, 12), (3, 10, 9))
    assert all(not r.events for r in records)
    assert score(state, 0) == 3 - 10 - 15
    (record,) = play(state, (4, 9, 10))
    assert record.events == (JellyfishTriple(0, (card("jellyfish:-10"), card("jellyfish:-15"), card("jellyfish:-10"))),)
    assert [str(state.card(c)) for c in state.piles[0]] == ["kittenfish:3"]
    assert score(state, 0) == 3


@pytest.mark.parametrize("lantern_depth", list(Depth))
def test_lantern_makes_the_next_card_in_its_space_face_down(lantern_depth):
    round1 = ["emperor_tuna:14", "tigerfish:8", "kittenfish:2"]
    round1[lantern_depth] = "lantern:5"
    state = stacked_game([round1, ("kittenfish:4", "tigerfish:6", "emperor_tuna:11")])
    (record,) = play(state, (12, 11, 6, 1))  # catchers: bottom 0, middle 1, top 3
    lantern_catcher = record.depths[lantern_depth].winner
    for depth in Depth:
        expected_peeker = lantern_catcher if depth == lantern_depth else None
        assert state.lagoon[depth][0].peeker == expected_peeker


def test_face_down_card_is_revealed_when_caught_and_has_its_effect():
    state = stacked_game([("emperor_tuna:14", "tigerfish:8", "lantern:5"), ("kittenfish:2", "tigerfish:6", "seagull:0")])
    play(state, (12, 11, 6, 1))  # player_3 catches the Lantern at the top
    face_down = state.lagoon[Depth.SHALLOW][0]
    assert face_down.peeker == 3 and state.card(face_down.card) == card("seagull:0")
    (record,) = play(state, (10, 2, 11, 5))  # player_1 (lowest of those left) catches the face-down Seagull
    assert record.depths[Depth.SHALLOW].winner == 1
    assert record.depths[Depth.SHALLOW].fish == (card("seagull:0"),)
    assert record.events == (SeagullTheft(1, card("tigerfish:8")),)
    assert all(lc.peeker is None for space in state.lagoon for lc in space)  # a Seagull is no Lantern


def test_round_one_seagull_is_replaced_and_shuffled_back():
    positions = set()
    for seed in range(30):
        state = stacked_game([("seagull:0", "tigerfish:7", "emperor_tuna:15", "kittenfish:1")], seed=seed)
        assert [str(state.card(space[0].card)) for space in state.lagoon] == ["tigerfish:7", "emperor_tuna:15", "kittenfish:1"]
        kinds = Counter(state.card(c).kind for c in state.deck)
        assert kinds[FishKind.SEAGULL] == 6 and len(state.deck) == 33
        positions.add(next(i for i, c in enumerate(state.deck) if state.card(c).kind is FishKind.SEAGULL))
    assert len(positions) > 3  # "shuffled back": the Seagull goes somewhere random in the deck


@pytest.mark.parametrize(
    ("first_cards", "lagoon"),
    [
        (
            ("seagull:0", "seagull:0", "tigerfish:7", "emperor_tuna:15", "kittenfish:1"),
            ["tigerfish:7", "emperor_tuna:15", "kittenfish:1"],
        ),
        (("tigerfish:7", "seagull:0", "emperor_tuna:15", "kittenfish:1"), ["tigerfish:7", "emperor_tuna:15", "kittenfish:1"]),
        (
            ("tigerfish:7", "emperor_tuna:15", "seagull:0", "seagull:0", "kittenfish:1"),
            ["tigerfish:7", "emperor_tuna:15", "kittenfish:1"],
        ),
    ],
)
def test_round_one_never_shows_a_seagull(first_cards, lagoon):
    for seed in range(20):
        state = stacked_game([first_cards], seed=seed)
        assert [str(state.card(space[0].card)) for space in state.lagoon] == lagoon


def test_seagull_after_round_one_is_not_replaced():
    state = stacked_game([("tigerfish:7", "emperor_tuna:15", "kittenfish:1"), ("seagull:0", "tigerfish:6", "kittenfish:2")])
    play(state, (12, 11, 2, 1))
    assert state.card(state.lagoon[Depth.DEEPEST][0].card) == card("seagull:0")


# R8 No Fighting: (players, plays, catchers, decisions, tied seats at each depth).
NO_FIGHTING_SCENARIOS = [
    (4, (12, 12, 5, 3), (None, 2, 3), (NOFIGHT, SOLE, SOLE)),
    (4, (12, 7, 7, 3), (0, None, 3), (SOLE, NOFIGHT, SOLE)),
    (4, (12, 11, 3, 3), (0, 1, None), (SOLE, SOLE, NOFIGHT)),
    (3, (5, 5, 5), (None, None, None), (NOFIGHT, NOBODY, NOBODY)),
    (4, (9, 9, 4, 4), (None, None, None), (NOFIGHT, NOFIGHT, NOBODY)),
    (5, (8, 8, 6, 2, 2), (None, 2, None), (NOFIGHT, SOLE, NOFIGHT)),
]


@pytest.mark.parametrize(("n", "plays", "catchers", "decisions"), NO_FIGHTING_SCENARIOS)
def test_no_fighting_ties(n, plays, catchers, decisions):
    state = stacked_game(
        [("emperor_tuna:15", "tigerfish:9", "kittenfish:2"), ("tigerfish:6", "kittenfish:4", "tigerfish:8")],
        num_players=n,
        no_fighting=True,
    )
    (record,) = play(state, plays)
    assert tuple(d.winner for d in record.depths) == catchers
    assert tuple(d.decision for d in record.depths) == decisions
    assert record.deep_priority == () == record.shallow_priority  # no Kiti
    for depth, catcher in zip(Depth, catchers, strict=True):
        # R4/R8: an uncaught space keeps its fish and the next card lands beside it.
        assert len(state.lagoon[depth]) == (1 if catcher is not None else 2)


def test_no_fighting_winner_takes_the_whole_stack_oldest_first():
    state = stacked_game(
        [("emperor_tuna:15", "tigerfish:9", "kittenfish:2"), ("seagull:0", "tigerfish:6", "kittenfish:4")],
        num_players=4,
        no_fighting=True,
    )
    play(state, (12, 12, 5, 3))
    assert [str(state.card(lc.card)) for lc in state.lagoon[Depth.DEEPEST]] == ["emperor_tuna:15", "seagull:0"]
    (record,) = play(state, (11, 10, 1, 2))
    bottom = record.depths[Depth.DEEPEST]
    assert bottom.winner == 0 and bottom.fish == (card("emperor_tuna:15"), card("seagull:0"))
    # R8/R9: each card resolves as it lands, so the Seagull steals the Tuna that just landed.
    assert record.events == (SeagullTheft(0, card("emperor_tuna:15")),)
    assert state.piles[0] == []
    assert len(state.lagoon[Depth.DEEPEST]) == 1  # the stack is gone; only round 3's new card is there


def test_no_fighting_uncaught_face_down_card_stays_face_down():
    state = stacked_game(
        [
            ("emperor_tuna:14", "tigerfish:8", "lantern:5"),
            ("kittenfish:2", "tigerfish:6", "emperor_tuna:11"),
            ("tigerfish:7", "kittenfish:4", "kittenfish:5"),
        ],
        num_players=4,
        no_fighting=True,
    )
    play(state, (12, 11, 6, 1))  # player_3 catches the Lantern at the top
    (record,) = play(state, (10, 9, 3, 3))  # the top ties: nobody catches the face-down Tuna
    assert record.depths[Depth.SHALLOW].decision is NOFIGHT
    top = state.lagoon[Depth.SHALLOW]
    assert [(str(state.card(lc.card)), lc.peeker) for lc in top] == [("emperor_tuna:11", 3), ("kittenfish:5", None)]


def test_fish_left_in_the_lagoon_score_for_nobody():
    state = new_game(GameConfig(num_players=3, no_fighting=True), np.random.default_rng(0))
    play(state, *[[r] * 3 for r in range(1, 12)])  # every depth ties every round
    assert state.is_over
    assert all(pile == [] for pile in state.piles) and scores(state) == (0, 0, 0)
    assert sum(len(space) for space in state.lagoon) == 36
    assert winners(state) == (0, 1, 2)


def test_shared_victory():
    # Seats 0 and 1 split equal-valued pairs; seat 2 takes the third space (R10: ties share).
    state = stacked_game(SHARED_VICTORY_ROUNDS, put_back=SHARED_VICTORY_PUT_BACK, num_players=3)
    # Rounds 1-6: seats 0 and 1 play high (bottom, middle), seat 2 low (top); rounds 7-12 the reverse.
    play(state, *[(13 - r, 13 - r, r) for r in range(1, 12)])
    assert state.is_over
    assert scores(state)[0] == scores(state)[1] == SHARED_VICTORY_HIGH_SCORE == 2 + 4 + 6 + 7 + 8 + 9 + 12 + 13 + 1 + 3 + 5 - 10
    assert scores(state)[2] < scores(state)[0]
    assert winners(state) == (0, 1)


@pytest.mark.parametrize(
    ("totals", "reward", "expected"),
    [
        ((60, 60, 0), "win", (0.5, 0.5, 0.0)),  # R10: tied winners share the victory
        ((5, 5, 5, 5), "win", (0.25, 0.25, 0.25, 0.25)),
        ((-10, 3, 7), "win", (0.0, 0.0, 1.0)),
        ((60, 60, 0), "score", (60.0, 60.0, 0.0)),
        ((60, 60, 0), "margin", (0.0, 0.0, -60.0)),  # own score minus the best opponent's
        ((-10, 3, 7, 1), "margin", (-17.0, -4.0, 4.0, -6.0)),
    ],
)
def test_final_rewards_share_a_tied_victory(totals, reward, expected):
    assert final_rewards(totals, reward).tolist() == list(expected)
    batch = final_rewards([totals, totals[::-1]], reward)  # a batch of games, one row each
    assert batch.tolist() == [list(expected), list(expected[::-1])]


def test_stacked_deck_must_be_a_permutation():
    good = stacked_deck([])
    assert len(parse_deck_order(good)) == 37
    with pytest.raises(ValueError, match="missing"):
        parse_deck_order(good[:-1])
    with pytest.raises(ValueError, match="unexpected"):
        parse_deck_order([*good[:-1], "emperor_tuna:15"])
    with pytest.raises(ValueError, match="unknown kind"):
        parse_deck_order(["shark:3", *good[1:]])
    with pytest.raises(ValueError, match="kind:value"):
        parse_deck_order(["tuna15", *good[1:]])


def test_default_deck_is_r2():
    by_kind = {kind: sorted(c.value for c in DEFAULT_DECK if c.kind is kind) for kind in FishKind}
    assert by_kind == {
        FishKind.KITTENFISH: [1, 2, 2, 3, 4, 4, 5],
        FishKind.TIGERFISH: [6, 6, 7, 7, 8, 8, 9, 9],
        FishKind.EMPEROR_TUNA: [10, 11, 12, 12, 13, 13, 14, 15],
        FishKind.LANTERN: [1, 3, 5, 7],
        FishKind.JELLYFISH: [-15, -15, -10, -10],
        FishKind.SEAGULL: [0] * 6,
    }


def test_put_back_card_is_never_dealt():
    state = stacked_game([], put_back="emperor_tuna:15", num_players=4)
    assert state.card(state.put_back) == card("emperor_tuna:15")
    play(state, *warm_up(4, 11))
    dealt = [c for r in state.history for d in r.depths for c in d.fish]
    assert card("emperor_tuna:15") not in dealt
