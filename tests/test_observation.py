"""What a seat sees (R5, R11) in the reference encoder (`encoder.Encoder`): information-leak
properties on perturbed `GameState`s, visibility scenarios, the declared tables and the layout.
The same properties run on what users get (the envs, the batched engine, the SB3 and Gymnasium
envs, pictures, the web app, replays) in tests/test_leaks.py."""

from __future__ import annotations

import copy
import importlib
import itertools
from pathlib import Path

import numpy as np
import pytest
from helpers import play, stacked_game
from hypothesis import event, given, settings
from hypothesis import strategies as st

import miaui_env
from miaui_env.core.layout import Layout, Piece, Sight, UndeclaredVisibilityError
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import (
    CARD_DIM,
    FACE_DOWN_VISIBILITY,
    LAST_ROUND_LAYOUT,
    OBSERVATION_LAYOUT,
    OPPONENT_ROW_VISIBILITY,
    SEAT_LAYOUT,
    STATE_LAYOUT,
    VISIBILITY,
    check_declared,
    face_down_public,
    layout_tables,
    observation_index,
    opponent_row_mask,
)
from miaui_env.games.miaui.rules import GameConfig, GameState, LagoonCard, new_game, play_round

pytestmark = pytest.mark.oracle

VIEW = OBSERVATION_LAYOUT.view
HIDDEN_FLAG = CARD_DIM - 1


def random_game(config: GameConfig, seed: int, rounds: int) -> GameState:
    """A game after `rounds` rounds of random legal play."""
    rng = np.random.default_rng(seed)
    state = new_game(config, rng)
    for _ in range(rounds):
        if state.is_over:
            break
        play_round(state, [int(rng.choice(state.legal_cards(s))) for s in range(config.num_players)])
    return state


def observations(state: GameState, view: str) -> list[np.ndarray]:
    """Every seat's observation, from a fresh encoder (nothing cached from another state)."""
    encoder = Encoder(state.config, view)
    encoder.refresh(state)
    return [encoder.observe(seat) for seat in range(state.num_players)]


configs = st.builds(
    GameConfig,
    num_players=st.integers(3, 6),
    open_baskets=st.booleans(),
    no_fighting=st.booleans(),
)
games = st.tuples(configs, st.integers(0, 2**32 - 1), st.integers(0, 10)).map(lambda t: random_game(*t))
table_only = st.tuples(
    st.builds(GameConfig, num_players=st.integers(3, 6), no_fighting=st.booleans()), st.integers(0, 2**32 - 1), st.integers(1, 10)
).map(lambda t: random_game(*t))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rounds=st.integers(0, 10),
    choices=st.data(),
    n=st.integers(3, 6),
    view=st.sampled_from(["table", "recall"]),
)
def test_pending_choices_are_invisible_until_the_reveal(seed, rounds, choices, n, view):
    envs = [miaui_env.raw_env(num_players=n, view=view) for _ in range(2)]
    rng = np.random.default_rng(seed)
    for e in envs:
        e.reset(seed=seed)
    for _ in range(rounds * n):
        action = int(rng.choice(np.flatnonzero(envs[0].observe(envs[0].agent_selection)["action_mask"])))
        for e in envs:
            e.step(action)
    before = [envs[0].observe(a)["observation"] for a in envs[0].agents]
    # Every seat but the last chooses, differently in the two games; nobody's observation moves.
    for _ in range(n - 1):
        for e in envs:
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            e.step(int(choices.draw(st.sampled_from(legal.tolist()))))
        for e in envs:
            for agent, seen in zip(e.agents, before, strict=True):
                np.testing.assert_array_equal(e.observe(agent)["observation"], seen)


@settings(max_examples=80, deadline=None)
@given(state=games, data=st.data())
def test_deck_order_and_put_back_card_are_invisible(state, data):
    view = data.draw(st.sampled_from(["table", "recall"]))
    seen = observations(state, view)
    changed = copy.deepcopy(state)
    data.draw(st.randoms(use_true_random=False)).shuffle(changed.deck)
    if changed.deck:
        i = data.draw(st.integers(0, len(changed.deck) - 1))
        changed.put_back, changed.deck[i] = changed.deck[i], changed.put_back
    for a, b in zip(seen, observations(changed, view), strict=True):
        np.testing.assert_array_equal(a, b)
    if state.deck and state.config.deck[state.put_back] != state.config.deck[changed.put_back]:
        # The global state does show these: the comparison above can tell a difference.
        e1, e2 = Encoder(state.config), Encoder(changed.config)
        e1.refresh(state), e2.refresh(changed)
        assert not np.array_equal(e1.state_vector(state), e2.state_vector(changed))


@settings(max_examples=80, deadline=None)
@given(state=games, data=st.data())
def test_face_down_card_is_seen_by_its_peeker_only(state, data):
    if state.is_over or not state.deck:
        event("game over: nothing face-down to test")
        return
    n = state.num_players
    depth = data.draw(st.integers(0, 2))
    peeker = data.draw(st.integers(0, n - 1))
    state.lagoon[depth][0] = LagoonCard(state.lagoon[depth][0].card, peeker)
    changed = copy.deepcopy(state)
    i = data.draw(st.integers(0, len(changed.deck) - 1))
    changed.lagoon[depth][0], changed.deck[i] = LagoonCard(changed.deck[i], peeker), changed.lagoon[depth][0].card
    view = data.draw(st.sampled_from(["table", "recall"]))
    before, after = observations(state, view), observations(changed, view)
    for seat in range(n):
        if seat != peeker:
            np.testing.assert_array_equal(before[seat], after[seat])
            assert VIEW(before[seat], "lagoon")[depth, 0, HIDDEN_FLAG] == 1.0
    if state.config.deck[state.lagoon[depth][0].card] != state.config.deck[changed.lagoon[depth][0].card]:
        assert not np.array_equal(before[peeker], after[peeker])


@settings(max_examples=80, deadline=None)
@given(state=table_only, data=st.data())
def test_opponent_fish_below_the_top_are_invisible_in_the_table_view(state, data):
    deep_piles = [o for o in range(state.num_players) if len(state.piles[o]) >= 2]
    if not deep_piles or not state.deck:
        event("no pile of two cards yet")
        return
    owner = data.draw(st.sampled_from(deep_piles))
    below = data.draw(st.integers(0, len(state.piles[owner]) - 2))
    i = data.draw(st.integers(0, len(state.deck) - 1))
    changed = copy.deepcopy(state)
    changed.piles[owner][below], changed.deck[i] = changed.deck[i], changed.piles[owner][below]
    table_before, table_after = observations(state, "table"), observations(changed, "table")
    for seat in range(state.num_players):
        if seat != owner:
            np.testing.assert_array_equal(table_before[seat], table_after[seat])
    if state.config.deck[state.piles[owner][below]] != state.config.deck[changed.piles[owner][below]]:
        # The owner herself, and everyone in the recall view, do see the change.
        assert not np.array_equal(table_before[owner], table_after[owner])
        other = (owner + 1) % state.num_players
        assert not np.array_equal(observations(state, "recall")[other], observations(changed, "recall")[other])


@settings(max_examples=80, deadline=None)
@given(state=table_only, data=st.data())
def test_opponent_hands_and_old_discards_are_invisible_in_the_table_view(state, data):
    if len(state.history) < 2 or state.is_over:
        event("fewer than two rounds played")
        return
    owner = data.draw(st.integers(0, state.num_players - 1))
    # Swap a card played before the last reveal with one still in hand: only the owner may notice.
    old = data.draw(st.sampled_from(state.played[owner][:-1]))
    kept = data.draw(st.sampled_from(state.legal_cards(owner)))
    changed = copy.deepcopy(state)
    changed.hands[owner, old - 1], changed.hands[owner, kept - 1] = 1, 0
    before, after = observations(state, "table"), observations(changed, "table")
    for seat in range(state.num_players):
        if seat != owner:
            np.testing.assert_array_equal(before[seat], after[seat])
    assert not np.array_equal(before[owner], after[owner])
    other = (owner + 1) % state.num_players
    assert not np.array_equal(observations(state, "recall")[other], observations(changed, "recall")[other])


def test_lantern_peeker_sees_the_face_down_card_and_others_do_not():
    state = stacked_game([("emperor_tuna:14", "tigerfish:8", "lantern:5"), ("kittenfish:2", "tigerfish:6", "seagull:0")])
    play(state, (12, 11, 6, 1))  # player_3 catches the Lantern; round 2's top card is face-down
    obs = observations(state, "table")
    seagull_kind = 5
    for seat in range(4):
        top = VIEW(obs[seat], "lagoon")[2, 0]
        if seat == 3:
            assert top[seagull_kind] == 1.0 and top[HIDDEN_FLAG] == 0.0
        else:
            assert top.tolist() == [0.0] * (CARD_DIM - 1) + [1.0]
    play(state, (10, 2, 11, 5))  # player_1 catches it: now public, the theft too
    obs = observations(state, "table")
    for seat in range(4):
        catcher = (1 - seat) % 4
        assert VIEW(obs[seat], "caught_at")[catcher, 2] == 1.0  # caught at the top
        assert VIEW(obs[seat], "caught")[catcher, seagull_kind] == 1.0  # and it was a Seagull


def test_open_baskets_shows_whole_piles_and_played_cards():
    rounds = [("emperor_tuna:14", "tigerfish:8", "kittenfish:2"), ("emperor_tuna:15", "tigerfish:9", "kittenfish:3")]
    plays = [(12, 11, 6, 1), (11, 10, 5, 2)]
    seen = {}
    for open_baskets in (False, True):
        state = stacked_game(rounds, open_baskets=open_baskets)
        play(state, *plays)
        seen[open_baskets] = observations(state, "table")[1]  # player_1 looks at player_0 (3 seats left)
    table, open_view = seen[False], seen[True]
    tuna = 2
    # player_0 holds tuna 15 on tuna 14. Both views show the top; only Open Baskets the one below.
    for obs in (table, open_view):
        assert VIEW(obs, "pile")[3, 0, tuna] == 1.0
        assert VIEW(obs, "pile_summary")[3, 0] == pytest.approx(2 / 12)
    assert VIEW(table, "pile")[3, 1].sum() == 0.0 and VIEW(open_view, "pile")[3, 1, tuna] == 1.0
    assert not VIEW(table, "pile_summary")[3, 1:].any()
    # Open Baskets: two tunas (count / 4) worth 29 (value sum / 60).
    assert VIEW(open_view, "pile_summary")[3].tolist() == pytest.approx([2 / 12, 0, 0, 2 / 4, 0, 0, 0, 29 / 60])
    assert VIEW(table, "played")[3].sum() == 0.0
    assert np.flatnonzero(VIEW(open_view, "played")[3]).tolist() == [10, 11]  # cards 11 and 12


def test_observation_is_seat_relative():
    state = new_game(GameConfig(num_players=4), np.random.default_rng(0))
    play_round(state, [5, 6, 7, 8])
    obs = observations(state, "table")[2]
    # Entry k is the k-th seat to player_2's left: player_2, player_3, player_0, player_1.
    assert np.argmax(VIEW(obs, "card_played")[:4], axis=1).tolist() == [6, 7, 4, 5]
    # Round 2: Kiti sits between player_1 and player_2, i.e. between relative seats 3 and 0.
    assert np.flatnonzero(VIEW(obs, "kiti")).tolist() == [3]
    # Deep priority in round 2 is 1, 0, 3, 2: player_2 is last (1/4), player_1 first (1).
    assert VIEW(obs, "deep_priority")[:4].ravel().tolist() == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert VIEW(obs, "present").ravel().tolist() == [1, 1, 1, 1, 0, 0]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_absent_seats_are_zero(n):
    state = random_game(GameConfig(num_players=n, open_baskets=True), seed=n, rounds=6)
    for obs in observations(state, "recall"):
        for piece in (
            "kiti",
            "deep_priority",
            "shallow_priority",
            "present",
            "pile",
            "pile_summary",
            "played",
            "last_round",
        ):
            assert not VIEW(obs, piece)[n:].any(), piece


def test_observation_length_is_the_same_for_every_table():
    sizes = {miaui_env.raw_env(num_players=n).observation_space("player_0")["observation"].shape for n in range(3, 7)}
    assert sizes == {(OBSERVATION_LAYOUT.size,)}


def test_nested_pieces_are_viewed_and_located_by_name():
    obs = np.arange(OBSERVATION_LAYOUT.size, dtype=np.float32)
    seats = VIEW(obs, "seats")
    # A seat row's last reveal is a layout of its own; its pieces are found through both nestings.
    last_round = SEAT_LAYOUT.view(seats, "last_round")
    for piece in LAST_ROUND_LAYOUT.pieces:
        np.testing.assert_array_equal(VIEW(obs, piece.name), LAST_ROUND_LAYOUT.view(last_round, piece.name))
        assert VIEW(obs, piece.name).shape == (seats.shape[0], *piece.shape)
        assert OBSERVATION_LAYOUT.offset(piece.name) == VIEW(obs, piece.name)[0].ravel()[0]  # seat row 0
        assert SEAT_LAYOUT.offset(piece.name) == SEAT_LAYOUT.offset("last_round") + LAST_ROUND_LAYOUT.offset(piece.name)
    spans = [SEAT_LAYOUT.span(piece.name) for piece in LAST_ROUND_LAYOUT.pieces]
    assert spans[0].start == SEAT_LAYOUT.offset("last_round") and spans[-1].stop == SEAT_LAYOUT.span("last_round").stop
    assert all(a.stop == b.start for a, b in itertools.pairwise(spans))  # end to end, nothing between
    VIEW(obs, "thefts")[:] = -1.0  # a view, not a copy
    assert (SEAT_LAYOUT.view(seats, "last_round")[:, LAST_ROUND_LAYOUT.offset("thefts")] == -1.0).all()
    with pytest.raises(KeyError, match="no piece 'nothing'"):
        VIEW(obs, "nothing")


def test_piece_names_are_unique_across_the_nesting():
    row = Layout([Piece("a", (2,), ""), Piece("b", (1,), "")])
    with pytest.raises(ValueError, match=r"unique.*\['b'\]"):
        Layout([Piece("b", (1,), ""), Piece("rows", (3, 3), "")], rows={"rows": row})
    with pytest.raises(ValueError, match="last axis is 3 long"):
        Layout([Piece("rows", (3, 4), "")], rows={"rows": row})


def test_every_piece_has_a_declared_visibility_and_nothing_else_is_declared():
    assert set(VISIBILITY) == {piece.name for piece in OBSERVATION_LAYOUT.pieces}
    assert set(OPPONENT_ROW_VISIBILITY) == set(SEAT_LAYOUT.leaves())
    assert VISIBILITY["seats"] is Sight.SEAT_ROWS and OBSERVATION_LAYOUT.rows["seats"] is SEAT_LAYOUT
    check_declared()


def test_a_piece_without_a_declared_visibility_is_refused_not_shown():
    secret = Piece("secret", (3,), "a piece nobody declared")
    with_secret = Layout([*OBSERVATION_LAYOUT.pieces, secret], rows=OBSERVATION_LAYOUT.rows)
    with pytest.raises(UndeclaredVisibilityError, match=r"'secret'.*VISIBILITY"):
        observation_index(4, 0, "table", False, layout=with_secret)
    # In a seat row, and nested in the last reveal, too: deny by default, in both views.
    last_round = Layout([*LAST_ROUND_LAYOUT.pieces, secret])
    seat_pieces = [Piece("last_round", (last_round.size,), "") if p.name == "last_round" else p for p in SEAT_LAYOUT.pieces]
    seat_row = Layout(seat_pieces, rows={"last_round": last_round})
    observed = [Piece("seats", (6, seat_row.size), "") if p.name == "seats" else p for p in OBSERVATION_LAYOUT.pieces]
    with_secret_row = Layout(observed, rows={"seats": seat_row})
    for view in ("table", "recall"):
        with pytest.raises(UndeclaredVisibilityError, match=r"'secret'.*OPPONENT_ROW_VISIBILITY"):
            observation_index(4, 1, view, True, layout=with_secret_row)
    with pytest.raises(UndeclaredVisibilityError, match="'secret'"):
        opponent_row_mask(True, seat_row)
    # A declared piece removed from the table is refused the same way.
    undeclared_box = {name: sight for name, sight in VISIBILITY.items() if name != "box"}
    with pytest.raises(UndeclaredVisibilityError, match="'box'"):
        observation_index(4, 0, "recall", False, visibility=undeclared_box)


def test_face_down_cards_are_their_peeker_s_own_and_a_bad_declaration_is_refused():
    """R5: a face-down lagoon card is seen by its peeker only; an undeclared piece or a sight
    other than OWN or PUBLIC is refused, not guessed."""
    assert FACE_DOWN_VISIBILITY == {"lagoon": Sight.OWN, "lagoon_rest": Sight.OWN}
    assert not face_down_public("lagoon") and not face_down_public("lagoon_rest")
    assert face_down_public("lagoon", {"lagoon": Sight.PUBLIC})
    with pytest.raises(UndeclaredVisibilityError, match=r"'lagoon_rest'.*FACE_DOWN_VISIBILITY"):
        face_down_public("lagoon_rest", {"lagoon": Sight.OWN})
    with pytest.raises(ValueError, match=r"FACE_DOWN_VISIBILITY\['lagoon'\] is Sight.RECALL"):
        face_down_public("lagoon", {"lagoon": Sight.RECALL})


def test_opponent_rows_show_what_the_table_declares():
    table, full = opponent_row_mask(False), opponent_row_mask(True)
    assert full.all()  # Open Baskets or recall: every entry of an opponent's row
    hidden = {name for name in SEAT_LAYOUT.leaves() if not SEAT_LAYOUT.view(table, name).all()}
    assert hidden == {"pile_summary", "pile", "played"}
    assert SEAT_LAYOUT.view(table, "pile_summary").tolist() == [True] + [False] * (CARD_DIM - 1)  # the height
    assert SEAT_LAYOUT.view(table, "pile")[:, 0].tolist() == [True, False, False]  # the top card
    assert not SEAT_LAYOUT.view(table, "played").any()


def test_the_env_card_documents_the_current_layout():
    env_module = importlib.import_module("miaui_env.games.miaui.env")
    assert layout_tables() in env_module.__doc__
    assert STATE_LAYOUT.index_table() in env_module.__doc__
    card_page = (Path(__file__).parent.parent / "docs" / "envs" / "miaui.md").read_text()
    assert "<!-- generate: docstring miaui_env.games.miaui.env -->" in card_page  # the docs site shows the docstring itself
    assert f"({OBSERVATION_LAYOUT.size},)" in env_module.__doc__ and f"({STATE_LAYOUT.size},)" in env_module.__doc__


@pytest.mark.parametrize("n", [3, 4, 5, 6])
@pytest.mark.parametrize("open_baskets", [False, True])
@pytest.mark.parametrize("no_fighting", [False, True])
def test_table_view_of_the_recall_view_is_the_table_view(n, open_baskets, no_fighting):
    from miaui_env.games.miaui.observation import table_view
    from miaui_env.games.miaui.vector import VectorMiaui

    games = {
        view: VectorMiaui(64, num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, seed=3)
        for view in ("table", "recall")
    }
    seen = {view: engine.reset(seed=3)[0] for view, engine in games.items()}
    rng = np.random.default_rng(n)
    knew_more = False
    for _ in range(11):
        assert np.array_equal(table_view(seen["recall"]), seen["table"])
        knew_more |= not np.array_equal(seen["recall"], seen["table"])
        masks = games["table"].action_masks()
        actions = np.argmax(rng.random(masks.shape) * masks, axis=-1)
        seen = {view: engine.step(actions)[0] for view, engine in games.items()}
    assert knew_more  # the recall view did show more
