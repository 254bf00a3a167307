"""The one observation decoder (`miaui_env.games.miaui.display.decode`) every display of a seat's view draws
from: checked against the rules' own game (never against itself), and refused input."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SEAT_VIEW_TABLES, random_game_states, stacked_game

from miaui_env.core.errors import InvalidConfigError
from miaui_env.games.miaui import rules
from miaui_env.games.miaui.cards import FISH_KINDS, FishCard, FishKind
from miaui_env.games.miaui.display import text
from miaui_env.games.miaui.display.decode import FishTally, LastReveal, ObservationShapeError, decode_observation
from miaui_env.games.miaui.display.page import seat_table
from miaui_env.games.miaui.display.picture import seat_picture
from miaui_env.games.miaui.display.text import describe_observation, fish_in_words
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import HIDDEN_FEATURE, LAGOON_SLOTS, OBSERVATION_LAYOUT, PILE_SLOTS, VALUE_SCALE
from miaui_env.games.miaui.rules import GameConfig, GameState, SeagullTheft, play_round


def tally(cards: list[FishCard], face_down: int = 0) -> FishTally:
    counts = Counter(card.kind for card in cards)
    return FishTally(tuple(counts[kind] for kind in FISH_KINDS), sum(card.value for card in cards), face_down)


def expected_last_reveal(state: GameState, seat: int) -> LastReveal | None:
    """What the rules' record of the last round says about `seat`."""
    if not state.history:
        return None
    record = state.history[-1]
    catches = [result for result in record.depths if result.winner == seat]
    thefts = [event for event in record.events if event.seat == seat and isinstance(event, SeagullTheft)]
    return LastReveal(
        card=record.plays[seat],
        caught_at=catches[0].depth if catches else None,
        caught=tally(list(catches[0].fish) if catches else []),
        thefts=len(thefts),
        stolen=tally([event.stolen for event in thefts if event.stolen is not None]),
        triples=sum(event.seat == seat and not isinstance(event, SeagullTheft) for event in record.events),
    )


def check_against_the_game(state: GameState, encoder: Encoder, view: str, seat: int) -> None:
    n, config = state.num_players, state.config
    table = decode_observation(encoder.observe(seat), n)
    assert (table.num_players, table.open_baskets, table.no_fighting) == (n, config.open_baskets, config.no_fighting)
    assert table.round == (None if state.is_over else state.round)
    row_of = lambda s: (s - seat) % n  # noqa: E731
    if config.no_fighting:
        assert table.kiti is None
    else:  # the observation keeps Kiti's columns at the end (round 13's place), as the text shows them
        assert table.kiti is not None and table.kiti.row == row_of(rules.kiti_seat(state.round, n))
        assert table.kiti.deep_order == tuple(row_of(s) for s in rules.deep_priority(state.round, n))
        assert table.kiti.shallow_order == tuple(row_of(s) for s in rules.shallow_priority(state.round, n))
    for space, decoded in zip(state.lagoon, table.lagoon, strict=True):
        seen = [None if lc.peeker not in (None, seat) else state.card(lc.card) for lc in space]
        assert decoded.cards == tuple(seen[:LAGOON_SLOTS])
        rest = seen[LAGOON_SLOTS:]
        assert decoded.more == tally([card for card in rest if card is not None], rest.count(None))
    assert table.hand == tuple(state.legal_cards(seat))
    full = config.open_baskets or view == "recall"  # whole piles and every card played (R11)
    for s in range(n):
        row = table.seats[row_of(s)]
        pile = [state.card(c) for c in reversed(state.piles[s])]
        shown_whole = s == seat or full
        assert row.height == len(pile)
        assert row.pile == tuple(pile[: PILE_SLOTS if shown_whole else 1])
        assert row.tally == (tally(pile) if shown_whole and pile else None)
        assert row.score in ((rules.score(state, s),) if shown_whole or not pile else (None,))
        played = tuple(card for card in range(1, 13) if card not in state.legal_cards(s))
        assert row.played == (played if shown_whole else ())
        assert row.last == expected_last_reveal(state, s)


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting", "view"), SEAT_VIEW_TABLES)
def test_the_decoded_table_is_the_game_as_the_seat_may_see_it(n, open_baskets, no_fighting, view):
    rng = np.random.default_rng(10 * n + open_baskets + 2 * no_fighting)
    peeks = 0
    for state, encoder in random_game_states(GameConfig(n, open_baskets, no_fighting), view, rng, games=6):
        for seat in range(n):
            check_against_the_game(state, encoder, view, seat)
            # R5: the last reveal's Lantern catchers are the seats that peeked each space's first card
            for depth, row in decode_observation(encoder.observe(seat), n).lantern_peekers().items():
                assert state.lagoon[depth][0].peeker == (seat + row) % n
                peeks += 1
    assert peeks  # the check met a face-down card


def test_a_lantern_catch_names_the_peeker_until_the_game_ends():
    game = stacked_game([["lantern:7", "tigerfish:6", "kittenfish:2"], ["emperor_tuna:15", "tigerfish:9", "kittenfish:4"]], num_players=3)
    play_round(game, [12, 5, 1])  # player_0 catches the Lantern at the bottom and peeks at what restocks it
    encoder = Encoder(game.config, "table")
    encoder.refresh(game)
    for seat in range(3):
        table = decode_observation(encoder.observe(seat), 3)
        assert table.lantern_peekers() == {0: (0 - seat) % 3}
        assert table.lagoon[0].cards == ((FishCard(FishKind.EMPEROR_TUNA, 15),) if seat == 0 else (None,))
    while not game.is_over:
        play_round(game, [game.legal_cards(s)[0] for s in range(3)])
    encoder.refresh(game)
    assert decode_observation(encoder.observe(0), 3).lantern_peekers() == {}


def test_the_words_say_who_peeked_a_face_down_card_and_that_only_the_peeker_sees_it():
    # R5: player_0 catches the Lantern at the bottom; the emperor tuna restocks it face-down, seen by player_0 only.
    game = stacked_game([["lantern:7", "tigerfish:6", "kittenfish:2"], ["emperor_tuna:15", "tigerfish:9", "kittenfish:4"]], num_players=3)
    play_round(game, [12, 5, 1])
    encoder = Encoder(game.config, "table")
    encoder.refresh(game)
    bottoms = [
        next(line for line in text.describe_observation(encoder.observe(seat), seat, 3).splitlines() if "lagoon bottom" in line)
        for seat in range(3)
    ]
    assert bottoms[0] == "  lagoon bottom: emperor_tuna:15 (face-down: only you see it, from your Lantern)"
    assert bottoms[1] == bottoms[2] == "  lagoon bottom: a face-down card (player_0 peeked it)"


def test_a_stacks_further_cards_are_counted_face_down_ones_too():
    # The rules never leave a face-down card below a space's first (a Lantern's space is empty when
    # it restocks), but the layout can hold one: its flag is counted, its face is not.
    observation = np.zeros(OBSERVATION_LAYOUT.size, dtype=np.float32)
    OBSERVATION_LAYOUT.view(observation, "round")[3] = 1.0
    rest = OBSERVATION_LAYOUT.view(observation, "lagoon_rest")[1]
    rest[FISH_KINDS.index(FishKind.TIGERFISH)] = 2.0
    rest[len(FISH_KINDS)] = 13 / VALUE_SCALE
    rest[HIDDEN_FEATURE] = 1.0
    table = decode_observation(observation, 4)
    assert table.round == 4 and table.lagoon[1].more == FishTally((0, 2, 0, 0, 0, 0), 13, 1) and table.lagoon[1].more.cards == 3
    assert "then 2 tigerfish and 1 face-down (worth 13 face-up)" in describe_observation(observation, 0, 4)


def test_fish_are_told_in_words():
    assert fish_in_words(None) == "a face-down card"
    assert fish_in_words(FishCard(FishKind.LANTERN, 7)) == "lantern:7"
    assert fish_in_words(tally([FishCard(FishKind.SEAGULL, 0)])) == "seagull:0"
    assert fish_in_words(tally([])) == "nothing"
    assert fish_in_words(tally([], face_down=1)) == "a face-down card"
    assert fish_in_words(tally([], face_down=2)) == "2 face-down cards"
    mixed = tally([FishCard(FishKind.KITTENFISH, 2), FishCard(FishKind.TIGERFISH, 6), FishCard(FishKind.TIGERFISH, 7)], face_down=1)
    assert fish_in_words(mixed) == "1 kittenfish, 2 tigerfish and 1 face-down (worth 15 face-up)"
    assert fish_in_words(tally([FishCard(FishKind.JELLYFISH, -10)] * 2)) == "2 jellyfish (worth -20)"


def test_every_display_refuses_what_is_not_one_seats_observation_and_names_itself():
    good = np.zeros(OBSERVATION_LAYOUT.size, dtype=np.float32)
    for reader, read in (
        ("describe_observation", lambda obs, n: describe_observation(obs, 0, n)),
        ("seat_picture", seat_picture),
        ("seat_table", lambda obs, n: seat_table(obs, 0, n)),
    ):
        for observation, n in ((good[:10], 4), (np.stack([good, good]), 4), (good, 7), (good, 2)):
            with pytest.raises(ObservationShapeError, match=f"{reader} takes one observation .* and 3-6 players; got"):
                read(observation, n)
    assert issubclass(ObservationShapeError, InvalidConfigError) and issubclass(ObservationShapeError, ValueError)
    with pytest.raises(InvalidConfigError, match="seat_table takes the seat whose observation it is, 0-3; got seat 4"):
        seat_table(good, 4, 4)


def test_describe_view_the_0_1_name_of_describe_observation_is_gone():
    assert callable(describe_observation) and not hasattr(text, "describe_view")
