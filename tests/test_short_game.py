"""Short Miaui games (rulings MV1-MV3, docs/rules/miaui.md): hands of cards 1..rounds, a deck of
3 x rounds + 1, the game over after its last round; refused where a surface plays the full game only."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import card, play, stacked_game

from miaui_env.core.errors import DeckError, IllegalActionError, InvalidConfigError
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishCard, FishKind, parse_deck, parse_deck_order
from miaui_env.games.miaui.rules import GameConfig, deep_priority, new_game, play_round, scores, shallow_priority
from miaui_env.games.miaui.saved_state import state_to_dict

pytestmark = pytest.mark.oracle  # rules scenarios (MV1-MV3), as tests/test_rules.py's

SHORT_DECK = parse_deck("emperor_tuna:10*4 tigerfish:6*2 jellyfish:-10*2 lantern:3 seagull:0")  # ten cards: 3 rounds


def short_game(order: list[str], rounds: int = 3, num_players: int = 3, **variants: bool):
    """A short game dealt in `order` (the put-back card first, then each round's bottom, middle, top)."""
    config = GameConfig(num_players, deck=SHORT_DECK, rounds=rounds, **variants)
    return new_game(config, np.random.default_rng(0), parse_deck_order(order, SHORT_DECK))


T, G, J, L = "emperor_tuna:10", "tigerfish:6", "jellyfish:-10", "lantern:3"
ORDER = [
    "seagull:0",  # put back unseen (R3)
    *("emperor_tuna:10", "tigerfish:6", "jellyfish:-10"),  # round 1: bottom, middle, top
    *("lantern:3", "emperor_tuna:10", "tigerfish:6"),  # round 2
    *("emperor_tuna:10", "jellyfish:-10", "emperor_tuna:10"),  # round 3
]


def test_mv1_every_hand_holds_cards_1_to_rounds_and_a_higher_card_is_refused():
    state = short_game(ORDER)
    assert [state.legal_cards(seat) for seat in range(3)] == [[1, 2, 3]] * 3
    assert state.hands[:, 3:].sum() == 0
    before = state.clone()
    with pytest.raises(IllegalActionError, match="seat 1's card is 4; diver cards are 1-3"):
        play_round(state, [3, 4, 1])
    assert state.round == before.round and (state.hands == before.hands).all() and state.history == []


@pytest.mark.parametrize(
    "round_one, round_two, piles",
    [
        # 3 players: everyone catches every round (R7); round 2's Lantern turns round 3's bottom card
        # face-down for seat 2 (R5); the last round's cards are forced (R6)
        ((3, 2, 1), (2, 1, 3), [[T, T, T], [G, G, T], [J, L, J]]),
        # ties: round 1's deep priority is 0, 2, 1 (the 3s: seat 0); round 3's is 2, 1, 0 (the 2s: seat 2)
        ((3, 3, 1), (1, 2, 3), [[T, G, J], [G, T, T], [J, L, T]]),
    ],
)  # fmt: skip
def test_mv1_a_short_game_is_its_rounds_and_then_over(round_one, round_two, piles):
    state = short_game(ORDER)
    (first,) = play(state, round_one)
    assert not state.is_over and state.round == 2
    assert first.deep_priority == deep_priority(1, 3) and first.shallow_priority == shallow_priority(1, 3)
    records = play(state, round_two)
    assert [r.round for r in records] == [2, 3] and state.is_over  # round 3, the last, was forced (R6)
    assert records[-1].plays == tuple(6 - a - b for a, b in zip(round_one, round_two, strict=True))
    assert records[-1].deep_priority == deep_priority(3, 3)  # R1: Kiti moved on as in the full game
    assert [[str(state.card(c)) for c in pile] for pile in state.piles] == piles
    assert state.deck == [] and all(space == [] for space in state.lagoon)  # MV2: 3 a round, the deck ends empty
    assert scores(state) == tuple(sum(card(c).value for c in pile) for pile in piles)
    with pytest.raises(IllegalActionError, match="the game is over"):
        play_round(state, [1, 1, 1])


def test_mv1_no_fighting_and_four_players_play_short_games_too():
    state = short_game(ORDER, no_fighting=True)
    (first,) = play(state, (3, 3, 1))  # the tied 3s catch nothing; the deep space goes to nobody left but seat 2
    assert first.depths[0].winner is None and first.depths[1].winner == 2
    four = short_game(ORDER, num_players=4)
    records = play(four, (3, 2, 1, 1), (1, 3, 2, 3))
    assert four.is_over and len(records) == 3 and sum(len(p) for p in four.played) == 12


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"rounds": 3}, "a deck must hold 10 cards for 3 rounds"),  # R2's 37 cards are a 12-round deck (MV2)
        ({"rounds": 1, "deck": SHORT_DECK[:4]}, "rounds=1 is not allowed; a game has 2-12 rounds"),
        ({"rounds": 13}, "rounds=13 is not allowed"),
        ({"rounds": True}, "rounds=True is not allowed"),
        ({"rounds": 2.0}, "rounds=2.0 is not allowed"),
        ({"rounds": 3, "deck": parse_deck("seagull:0*7 emperor_tuna:10*3")}, "at least 4 cards that are not Seagulls"),
    ],
)
def test_mv2_a_short_game_needs_its_own_deck(settings, message):
    with pytest.raises(InvalidConfigError, match=message):
        GameConfig(3, **settings)


def test_mv2_a_short_game_is_shuffled_from_its_deck_only():
    config = GameConfig(3, deck=SHORT_DECK, rounds=3)
    dealt = Counter()
    for seed in range(200):
        state = new_game(config, np.random.default_rng(seed))
        cards = [state.put_back, *state.deck, *(lc.card for space in state.lagoon for lc in space)]
        assert sorted(cards) == list(range(10))
        assert all(config.deck[lc.card].kind.value != "seagull" for space in state.lagoon for lc in space)  # R4
        dealt[state.put_back] += 1
    assert len(dealt) == 10  # every card is put back in some deal


def test_a_deck_given_as_a_list_is_held_as_a_tuple_and_no_fish_is_worth_more_than_a_thousand():
    config = GameConfig(3, deck=list(SHORT_DECK), rounds=3)
    assert config.deck == SHORT_DECK and hash(config) == hash(GameConfig(3, deck=SHORT_DECK, rounds=3))
    with pytest.raises(DeckError, match="a fish card's value is an int from -1000 to 1000, got 1001"):
        GameConfig(3, deck=(card("emperor_tuna:10"),) * 9 + (FishCard(FishKind.EMPEROR_TUNA, 1001),), rounds=3)


def test_mv3_the_full_game_is_unchanged_and_a_saved_state_holds_only_the_full_game():
    assert GameConfig().rounds == 12 and len(DEFAULT_DECK) == 37
    full = stacked_game([("emperor_tuna:14", "tigerfish:8", "kittenfish:2")])
    assert full.hands.sum() == 4 * 12 and "rounds" not in state_to_dict(full)["config"]  # the 0.2 format, unchanged
    with pytest.raises(InvalidConfigError, match="a short game of 3 rounds"):
        state_to_dict(short_game(ORDER))


@pytest.mark.parametrize(
    "text, message",
    [
        ("emperor_tuna:10*0", "a count is a whole number from 1 to 1000"),
        ("emperor_tuna:10*x", "a count is a whole number"),
        ("whale:3", "unknown kind 'whale'"),
        ("", "names at least one card"),
        ("seagull:0*1001", "a count is a whole number from 1 to 1000"),
        ("emperor_tuna:10*³", "a count is a whole number from 1 to 1000"),  # a digit to str.isdigit, not to int
        ("kittenfish:٣", "has a value that is not an integer"),  # int() would read the Arabic-Indic 3
        ("emperor_tuna:99999999999999999999", "a fish is worth -1000 to 1000"),  # its sums would overflow a score
    ],
)
def test_a_deck_list_is_read_or_refused_by_name(text, message):
    with pytest.raises(DeckError, match=message):
        parse_deck(text)
    assert parse_deck("emperor_tuna:10*2, jellyfish:-10") == (card("emperor_tuna:10"),) * 2 + (card("jellyfish:-10"),)
