"""The octopus game's AEC env (`miaui_env.games.octopus.env`, O1-O12): PettingZoo conformance for 2, 3
and 4 players, scenarios on stacked decks and dice (turns, theft masks, rewards, the O12
truncation), what a seat is shown (O4: the deck's order never, opponents' collections card by card
only in the recall view, every piece declared), and bad input."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from helpers import aec_decisions, pettingzoos_own_warnings_only
from hypothesis import given, settings
from hypothesis import strategies as st

from miaui_env import DeckError, IllegalActionError, InvalidConfigError
from miaui_env.core.layout import Layout, Piece, UndeclaredVisibilityError, check_declared
from miaui_env.core.seeding import SeedError
from miaui_env.games.miaui.env import ResetOptionError, ResetOptionWarning, UnknownAgentError
from miaui_env.games.octopus import env as env_module
from miaui_env.games.octopus import observation as obs_module
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.env import DiceError, env, raw_env
from miaui_env.games.octopus.observation import (
    OBSERVATION_LAYOUT,
    OPPONENT_ROW_VISIBILITY,
    SEAT_LAYOUT,
    STATE_LAYOUT,
    VISIBILITY,
    Painter,
    canvas,
    layout_tables,
    observation_index,
    observe,
    state_vector,
)
from miaui_env.games.octopus.rules import fish, stacked_deck

pytestmark = pytest.mark.oracle  # the octopus env's proof: API conformance, what each seat may see (O4), rewards

state_test_module = importlib.import_module("pettingzoo.test.state_test")  # the package re-exports the function under the module's name
OCTOPUSES = rules.OCTOPUS_IDS
STOP, FLIP, NO_THEFT = 0, 1, 2


def theft_action(offset: int, k: int) -> int:
    """The action index of a theft of k cards from the seat `offset` places clockwise (rules.action_of)."""
    return 3 + 3 * (offset - 1) + (k - 1)


@pytest.fixture(autouse=True)
def _no_warnings_but_pettingzoos_own():
    # state_test samples without the mask, and a finished game's state is all zeros
    with pettingzoos_own_warnings_only("State numpy array is all zeros", "[Ii]llegal move made"):
        yield


def play_random(game, seed: int) -> int:
    """One random legal game through the AEC loop; returns the agent-steps taken."""
    rng = np.random.default_rng(seed)
    steps = 0
    for _agent, observation in aec_decisions(game):
        legal = np.flatnonzero(observation["action_mask"])
        assert legal.size, "the agent to act has no legal action"
        game.step(int(rng.choice(legal)))
        steps += 1
    return steps


# ---- conformance --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_state_checks_pass(n):
    # PettingZoo's state_test also wants a Parallel env, which a game of sequential turns has not:
    # its AEC halves run here. They sample actions without the mask, so illegal ones end the game.
    game = env(num_players=n, illegal_action="terminate")
    state_test_module.test_state_space(game)
    state_test_module.test_state(game, num_cycles=30)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_state_is_the_whole_game_and_inside_its_space(n):
    game = raw_env(num_players=n)
    game.reset(seed=n)
    for _ in range(40):
        state = game.state()
        assert game.state_space.contains(state)
        assert np.array_equal(state, state_vector(game.game))
        deck = STATE_LAYOUT.view(state, "deck")  # the deck's order, which no observation has (O4)
        assert np.count_nonzero(deck) == len(game.game.deck)
        next_card = game.game.deck[-1]
        assert deck[next_card] == pytest.approx(1 / 66)
        game.step(int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[-1]))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_end_and_the_fast_canvas_is_the_reference_one(n):
    # The env paints incrementally (Painter); the reference is `canvas(state)` from scratch.
    game = raw_env(num_players=n, view="recall")
    for seed in range(3):
        game.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            state = game._dealt()
            for seat in range(n):
                assert np.array_equal(game.observe(f"player_{seat}")["observation"], observe(state, seat, "recall"))
            legal = np.flatnonzero(game.observe(game.agent_selection)["action_mask"])
            game.step(int(rng.choice(legal)))
        assert all(game.terminations.values()) or all(game.truncations.values())
    painter = Painter()
    state = rules.new_game(n, seed=9)
    while not state.is_over:
        assert np.array_equal(painter.canvas(state), canvas(state))
        choices = rules.legal_decisions(state)
        rules.step(state, choices[len(state.events) % len(choices)])


def test_registry_and_package_exports():
    import pettingzoo

    import miaui_env.envs  # registers

    made = pettingzoo.make("aec", "miaui_env/octopus-v0", num_players=4)
    assert made.unwrapped.metadata["name"] == "octopus_v0" and made.unwrapped.possible_agents == [f"player_{i}" for i in range(4)]
    assert miaui_env.octopus_env is env


def test_the_env_card_holds_the_generated_layout_tables():
    doc = env_module.__doc__
    assert layout_tables() in doc and STATE_LAYOUT.index_table() in doc
    assert f"({OBSERVATION_LAYOUT.size},)" in doc and f"({STATE_LAYOUT.size},)" in doc


# ---- scenarios on stacked decks and dice ---------------------------------------------------------


def stacked(top: Sequence[int], n: int = 3, dice: Sequence[int] = (), **kwargs) -> raw_env:
    """A raw env reset on a deck whose first cards are `top` (top first), and stacked dice."""
    game = raw_env(num_players=n, **kwargs)
    game.reset(seed=0, options={"deck": list(stacked_deck(top)), "dice": list(dice)})
    return game


def masks(game: raw_env) -> dict[str, list[int]]:
    """Each agent's legal actions."""
    return {a: np.flatnonzero(game.observe(a)["action_mask"]).tolist() for a in game.possible_agents}


def test_turns_pass_clockwise_and_only_the_deciding_seat_acts():
    cod1, eel2, jack4 = fish("cod", 1), fish("eel", 2), fish("jack", 4)
    game = stacked([cod1, eel2, jack4, fish("ide", 3)])  # O3: every first flip is forced
    assert game.agent_selection == "player_0" and game.game.row == [cod1]
    assert masks(game) == {"player_0": [STOP, FLIP], "player_1": [], "player_2": []}
    game.step(STOP)
    assert game.agent_selection == "player_1" and game.game.row == [eel2] and game.game.collections[0] == [cod1]
    game.step(FLIP)
    assert game.agent_selection == "player_1" and game.game.row == [eel2, jack4]  # a new species: she decides again
    game.step(STOP)
    assert game.agent_selection == "player_2"
    view = OBSERVATION_LAYOUT.view(game.observe("player_2")["observation"], "decision")
    assert view.tolist() == [1.0, 0.0, 0.0]  # asked to flip or stop
    assert OBSERVATION_LAYOUT.view(game.observe("player_0")["observation"], "decision").tolist() == [0.0, 0.0, 1.0]


def test_a_bust_keeps_the_cards_before_the_pair_and_passes_the_turn():
    cod1, eel2, cod4 = fish("cod", 1), fish("eel", 2), fish("cod", 4)
    game = stacked([fish("ide", 1), cod1, eel2, cod4], n=2)
    game.step(FLIP)
    game.step(FLIP)
    game.step(FLIP)  # cod again: a bust (O3)
    assert game.game.collections[0] == [fish("ide", 1)] and sorted(game.game.discard) == sorted([cod1, eel2, cod4])
    assert game.agent_selection == "player_1"


def theft_table() -> raw_env:
    """player_1 keeps 2 cards, player_2 keeps 1, then player_0 flips an octopus: a theft decision."""
    deck = [fish("ide", 1), fish("cod", 1), fish("eel", 2), fish("jack", 4), OCTOPUSES[0]]
    # player_0: ide (forced), stop | player_1: cod, flip eel, stop | player_2: jack, stop | player_0: octopus
    game = stacked([deck[0], deck[1], deck[2], deck[3], deck[4]], dice=[3, -1])
    for action in (STOP, FLIP, STOP, STOP):
        game.step(action)
    return game


def test_theft_masks_offer_each_opponent_up_to_its_collection_size():
    game = theft_table()
    assert game.agent_selection == "player_0" and game.game.phase is rules.Phase.THEFT
    # O5: player_1 (offset 1) holds 2 cards, player_2 (offset 2) holds 1; no seat at offset 3
    assert masks(game)["player_0"] == [NO_THEFT, theft_action(1, 1), theft_action(1, 2), theft_action(2, 1)]
    decision = OBSERVATION_LAYOUT.view(game.observe("player_0")["observation"], "decision")
    assert decision.tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(IllegalActionError, match=r"action 5 \(steal 3 from \+1\) is not legal now; legal actions: \[2, 3, 4, 6\]"):
        game.step(theft_action(1, 3))


def test_a_theft_is_a_public_fact_of_every_observation():
    game = theft_table()
    game.step(theft_action(1, 2))  # the stacked die rolls 3 >= 2: two cards move (O5)
    assert sorted(game.game.collections[0]) == sorted([fish("ide", 1), fish("cod", 1), fish("eel", 2)])
    for seat, agent in enumerate(game.possible_agents):
        vector = game.observe(agent)["observation"]
        assert OBSERVATION_LAYOUT.view(vector, "last_roll").tolist() == [0, 0, 0, 1]  # face 3
        assert OBSERVATION_LAYOUT.view(vector, "theft_k").tolist() == [0, 1, 0]
        assert OBSERVATION_LAYOUT.view(vector, "theft_moved").sum() == 2
        thief = OBSERVATION_LAYOUT.view(vector, "thief")[:, 0]
        assert thief[(0 - seat) % 3] == 1 and thief.sum() == 1  # seat-relative: the thief is player_0


def test_the_die_minus_one_gives_the_target_a_card_of_the_thief():
    game = theft_table()
    game._game.stacked_dice[:] = [-1]
    game.step(theft_action(2, 1))
    assert len(game.game.collections[2]) == 2 and game.game.collections[0] == []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rewards_per_mode(n):
    # The first legal action always (stop, or no theft): the same game for every reward mode (O11).
    totals = {}
    for reward in ("win", "score", "margin"):
        replay = raw_env(num_players=n, reward=reward)
        replay.reset(seed=4)
        seen = {}
        for agent in replay.agent_iter():
            observation, rew, terminated, truncated, info = replay.last()
            if terminated or truncated:
                seen[agent] = (rew, info["winner"], info["total"])
                assert terminated and not truncated
                replay.step(None)
            else:
                assert rew == 0.0
                replay.step(int(np.flatnonzero(observation["action_mask"])[0]))
        state = replay._dealt()
        totals[reward] = state.totals
        assert max(state.totals) >= rules.TARGET and not state.truncated  # O9: a termination
        win = set(rules.winners(state))
        expected = {
            "win": [1 / len(win) if s in win else 0.0 for s in range(n)],
            "score": [float(t) for t in state.totals],
            "margin": [float(t - max(o for j, o in enumerate(state.totals) if j != s)) for s, t in enumerate(state.totals)],
        }[reward]
        assert replay.agents == []
        assert [seen[f"player_{s}"][0] for s in range(n)] == pytest.approx(expected)
        assert [seen[f"player_{s}"][1] for s in range(n)] == [s in win for s in range(n)]
        assert [seen[f"player_{s}"][2] for s in range(n)] == state.totals
    assert totals["win"] == totals["score"] == totals["margin"]  # same seed, same decisions: the same game (O11)


def test_the_session_cap_is_a_truncation_not_a_termination():
    game = raw_env(num_players=3, max_sessions=1)
    game.reset(seed=2)
    ended = {}
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, _ = game.last()
        if terminated or truncated:
            ended[agent] = (terminated, truncated, reward)
            game.step(None)
        else:
            game.step(int(np.flatnonzero(observation["action_mask"])[0]))
    state = game._dealt()
    assert state.session == 1 and state.truncated and max(state.totals) < rules.TARGET  # O12
    assert all(not terminated and truncated for terminated, truncated, _ in ended.values())
    assert sum(reward for _, _, reward in ended.values()) == pytest.approx(1.0)  # the leaders share the win
    with pytest.raises(ResetNeeded):
        game.step(0)


def test_stacked_dice_and_decks_for_later_sessions_are_used_in_order():
    first, second = list(stacked_deck([fish("cod", 4)])), list(stacked_deck([fish("jack", 4)]))
    game = raw_env(num_players=2, max_sessions=2)
    game.reset(seed=0, options={"deck": [first, second]})
    assert game.game.row == [fish("cod", 4)]
    while game.game.session == 1:
        game.step(int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[0]))  # stop, or no theft
    assert game.game.row == [fish("jack", 4)]


# ---- what a seat is shown (O4) ------------------------------------------------------------------


def observations(game: raw_env) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(o["observation"], o["action_mask"]) for o in map(game.observe, game.possible_agents)]


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 4),
    view=st.sampled_from(["table", "recall"]),
    data=st.data(),
)
def test_the_deck_order_never_changes_any_observation(n, view, data):
    # Two decks that agree on every card flipped so far: every seat sees the same thing (O4), step
    # by step, until a card where they differ is flipped.
    order = data.draw(st.permutations(range(rules.NUM_CARDS)), label="deck")
    agree = data.draw(st.integers(1, rules.NUM_CARDS - 2), label="cards that agree")
    tail = data.draw(st.permutations(order[agree:]), label="the other deck's unflipped cards")
    other = [*order[:agree], *tail]
    dice = data.draw(st.lists(st.sampled_from(rules.DIE_FACES), max_size=6), label="dice")
    games = []
    for deck in (order, other):
        game = raw_env(num_players=n, view=view, max_sessions=1)
        game.reset(seed=1, options={"deck": list(deck), "dice": dice})
        games.append(game)
    rng = np.random.default_rng(agree)
    while not games[0].is_over and rules.NUM_CARDS - len(games[0].game.deck) <= agree:
        seen = [observations(g) for g in games]
        for (obs_a, mask_a), (obs_b, mask_b) in zip(*seen, strict=True):
            assert np.array_equal(obs_a, obs_b) and np.array_equal(mask_a, mask_b)
        assert games[0].agent_selection == games[1].agent_selection
        legal = np.flatnonzero(games[0].observe(games[0].agent_selection)["action_mask"])
        action = int(rng.choice(legal))
        for g in games:
            g.step(action)


@pytest.mark.parametrize("view", ["table", "recall"])
def test_where_any_card_lies_in_the_deck_is_invisible(view):
    # Every card in turn, next in the deck or at its bottom, after the first (forced) flip: a leak
    # keyed on one card's place, which random permutations rarely hit, shows here.
    for card in range(rules.NUM_CARDS):
        top = 0 if card else 1
        rest = [c for c in range(rules.NUM_CARDS) if c not in (top, card)]
        seen = []
        for deck in ([top, card, *rest], [top, *rest, card]):
            game = raw_env(num_players=3, view=view)
            game.reset(seed=0, options={"deck": deck})
            seen.append(observations(game))
        for (obs_a, mask_a), (obs_b, mask_b) in zip(*seen, strict=True):
            assert np.array_equal(obs_a, obs_b) and np.array_equal(mask_a, mask_b), card


def test_a_different_next_card_does_show_once_flipped():
    # The guard of the property above: the comparison does see a flipped card.
    decks = [stacked_deck([fish("cod", 1), fish("eel", 2)]), stacked_deck([fish("cod", 1), fish("jack", 3)])]
    seen = []
    for deck in decks:
        game = raw_env(num_players=2)
        game.reset(seed=0, options={"deck": list(deck)})
        before = observations(game)
        game.step(FLIP)
        seen.append((before, observations(game)))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(seen[0][0], seen[1][0], strict=True))
    assert not any(np.array_equal(a[0], b[0]) for a, b in zip(seen[0][1], seen[1][1], strict=True))


@settings(max_examples=20, deadline=None)
@given(
    kept=st.lists(  # two fish that differ in species or value (the two copies of a card look alike)
        st.sampled_from(range(rules.NUM_FISH)), min_size=2, max_size=2, unique_by=lambda c: (rules.CARD_SPECIES[c], rules.CARD_VALUES[c])
    ),
    n=st.integers(2, 4),
)
def test_an_opponents_collection_shows_card_by_card_only_in_the_recall_view(kept, n):
    # player_0 keeps one card, a or b; then player_1 decides. Its table view is the same either way
    # (only the collection's size is in sight); its recall view and player_0's own view tell them apart.
    a, b = kept
    filler = next(c for c in range(rules.NUM_FISH) if rules.CARD_SPECIES[c] not in (rules.CARD_SPECIES[a], rules.CARD_SPECIES[b]))
    views = {}
    for view in ("table", "recall"):
        for card in (a, b):
            game = raw_env(num_players=n, view=view)
            game.reset(seed=0, options={"deck": list(stacked_deck([card, filler]))})
            game.step(STOP)
            assert game.agent_selection == "player_1"
            views[view, card] = observations(game)
    (table_a, table_b), (recall_a, recall_b) = (views["table", a], views["table", b]), (views["recall", a], views["recall", b])
    for seat in range(1, n):
        assert np.array_equal(table_a[seat][0], table_b[seat][0])
        assert not np.array_equal(recall_a[seat][0], recall_b[seat][0])
        rel = (0 - seat) % n  # player_0's row in this seat's observation
        assert SEAT_LAYOUT.view(OBSERVATION_LAYOUT.view(table_a[seat][0], "seats"), "collection")[rel].sum() == 0
        assert OBSERVATION_LAYOUT.view(table_a[seat][0], "collection_size")[rel] > 0
    assert not np.array_equal(table_a[0][0], table_b[0][0])  # the owner sees her own collection


def test_the_discard_pile_card_by_card_is_recall_only():
    game = {view: stacked([fish("cod", 1), fish("eel", 2), fish("cod", 4)], n=2, view=view) for view in ("table", "recall")}
    for g in game.values():
        g.step(FLIP)
        g.step(FLIP)  # a bust: three cards to the discard pile
    for agent in ("player_0", "player_1"):
        table, recall = (game[v].observe(agent)["observation"] for v in ("table", "recall"))
        assert OBSERVATION_LAYOUT.view(table, "discard").sum() == 0 and OBSERVATION_LAYOUT.view(recall, "discard").sum() == 3
        assert OBSERVATION_LAYOUT.view(table, "discard_size")[0] == OBSERVATION_LAYOUT.view(recall, "discard_size")[0] > 0


def test_every_piece_is_declared_and_an_undeclared_one_is_refused():
    check_declared(OBSERVATION_LAYOUT, VISIBILITY, OPPONENT_ROW_VISIBILITY)
    assert set(VISIBILITY) == {p.name for p in OBSERVATION_LAYOUT.pieces}
    assert set(OPPONENT_ROW_VISIBILITY) == set(SEAT_LAYOUT.leaves())
    for name in ("discard", "seats"):
        table = {k: v for k, v in VISIBILITY.items() if k != name}
        with pytest.raises(UndeclaredVisibilityError, match=repr(name)):
            observation_index(3, 0, "table", visibility=table)
    rows = {k: v for k, v in OPPONENT_ROW_VISIBILITY.items() if k != "collection"}
    with pytest.raises(UndeclaredVisibilityError, match="'collection'"):
        observation_index(3, 0, "recall", opponent_rows=rows)
    extra = Layout([*OBSERVATION_LAYOUT.pieces, Piece("deck_order", (66,), "")], rows=OBSERVATION_LAYOUT.rows)
    with pytest.raises(UndeclaredVisibilityError, match="'deck_order'"):
        observation_index(3, 0, "table", layout=extra)


def test_the_encoder_loads_no_rl_library_and_reads_no_deck_order():
    # observation.py's canvas reads the deck only as its size: a state whose deck is reversed paints the same.
    state = rules.new_game(3, seed=5)
    other = state.clone()
    other.deck.reverse()
    assert np.array_equal(canvas(state), canvas(other))
    assert not np.array_equal(state_vector(state), state_vector(other))  # state() does show it
    assert "pettingzoo" not in obs_module.__dict__ and "gymnasium" not in obs_module.__dict__


# ---- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players=5 is not allowed; the octopus game is played by 2, 3 or 4 players"),
        ({"num_players": True}, "num_players=True is not allowed"),
        ({"view": "full"}, "view='full' is not allowed; views are 'table', 'recall'"),
        ({"reward": "points"}, "reward='points' is not allowed; rewards are 'win', 'score', 'margin'"),
        ({"max_sessions": 0}, r"max_sessions=0 is not allowed; it is None \(no cap\) or an integer >= 1"),
        ({"render_mode": "video"}, "render_mode='video' is not allowed"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(InvalidConfigError, match=message):
        raw_env(**kwargs)
    with pytest.raises(InvalidConfigError, match="illegal_action='end' is not allowed"):
        env(illegal_action="end")


@pytest.mark.parametrize(
    ("seed", "options", "error", "message"),
    [
        (-1, None, SeedError, "seed=-1 is not allowed"),
        ("1", None, SeedError, "seed='1' is not allowed"),
        (0, [("deck", [])], ResetOptionError, "reset options must be a dict"),
        (0, {"deck": [0, 1, 2]}, DeckError, "a stacked deck is a permutation of the card ids 0..65"),
        (0, {"deck": "cod"}, DeckError, "a stacked deck is a permutation"),
        (0, {"dice": [4]}, DiceError, r"stacked die faces are among \[-1, 1, 2, 3\]"),
        (0, {"dice": 3}, DiceError, "stacked dice are a list of die faces"),
    ],
)
def test_bad_resets_are_refused_and_change_nothing(seed, options, error, message):
    game = env(num_players=2)
    with pytest.raises(error, match=message):
        game.reset(seed=seed, options=options)
    with pytest.raises((AttributeError, ResetNeeded)):  # still not reset
        game.agent_selection  # noqa: B018
    game.reset(seed=0)
    before = game.unwrapped.state()
    with pytest.raises(error):
        game.reset(seed=seed, options=options)
    assert np.array_equal(game.unwrapped.state(), before)


def test_an_unknown_reset_option_is_ignored_with_a_warning():
    game = raw_env()
    with pytest.warns(ResetOptionWarning, match="reset option.s. dek ignored; options are deck, dice"):
        game.reset(seed=0, options={"dek": []})


@pytest.mark.parametrize("action", [12, -1, "1", 1.0, True, None])
def test_a_non_action_is_refused_naming_the_legal_ones(action):
    game = env(num_players=3)
    game.reset(seed=0)
    before = game.unwrapped.state()
    with pytest.raises(
        IllegalActionError, match=r"player_0: action .* is not an action \(actions are 0-11\); legal actions: \[0, 1\] \(stop, flip\)"
    ):
        game.step(action)
    assert np.array_equal(game.unwrapped.state(), before)
    terminate = env(num_players=3, illegal_action="terminate")
    terminate.reset(seed=0)
    if action is not None:
        with pytest.raises(IllegalActionError, match="is not an action; actions are the ints 0-11"):
            terminate.step(action)


def test_an_illegal_action_ends_the_game_when_asked_to():
    game = env(num_players=3, illegal_action="terminate", illegal_reward=-2.5)
    game.reset(seed=0)
    game.step(NO_THEFT)  # legal only after an octopus
    assert all(game.terminations.values())
    assert game.rewards == {"player_0": -2.5, "player_1": 0, "player_2": 0}


def test_unknown_agents_and_calls_before_reset_are_refused():
    game = raw_env(num_players=2)
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before observe\(\)"):
        game.observe("player_0")
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before state\(\)"):
        game.state()
    game.reset(seed=0)
    with pytest.raises(UnknownAgentError, match=r"agent 'player_2' is not at this table; agents are \['player_0', 'player_1'\]"):
        game.observe("player_2")
    with pytest.raises(UnknownAgentError):
        game.action_space("nobody")
    with pytest.raises(rules.InvalidConfigError, match="seat=3 is not at this table"):
        observe(game.game, 3)


def test_the_masks_are_never_all_zero_for_the_agent_to_act():
    for n in (2, 3, 4):
        game = env(num_players=n)
        game.reset(seed=n)
        assert play_random(game, n) > 0


@pytest.mark.parametrize("mode", ["ansi", "rgb_array", "human"])
def test_rendering_is_a_spectators_view(mode, capsys):
    game = stacked([fish("cod", 4), fish("eel", 2)], n=2, render_mode=mode)
    game.step(STOP)
    out = game.render()
    if mode == "ansi":
        assert "player_0: total   0, session  4,  1 cards: C4" in out and "row: E2" in out
    elif mode == "rgb_array":
        assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
    else:
        assert out is None and "row: E2" in capsys.readouterr().out


# ---- OV1-OV3: a small variant through the env ----------------------------------------------------
SMALL = rules.Variant(species=2, values=(1, 2), octopuses=1, target=2)


def test_the_env_plays_a_small_variant_and_shows_only_its_cards():
    game_env = env(num_players=2, variant=SMALL, max_sessions=3, view="recall")
    seen_cards: set[int] = set()
    for seed in range(20):
        game_env.reset(seed=seed)
        for _agent in game_env.agent_iter():
            observation, _, terminated, truncated, _ = game_env.last()
            deck_size = obs_module.OBSERVATION_LAYOUT.view(observation["observation"], "deck_size")[0] * obs_module.SIZE_SCALE
            assert round(deck_size) <= len(SMALL.cards)  # the variant's five cards at most
            legal = np.flatnonzero(observation["action_mask"])
            game_env.step(None if terminated or truncated else int(legal[-1]))
        state = game_env.unwrapped.game
        seen_cards |= {e.card for e in state.events if isinstance(e, rules.Flipped)}
        assert state.is_over and (state.truncated or max(state.totals) >= SMALL.target)
    assert seen_cards == set(SMALL.cards)


def test_a_variant_env_takes_decks_of_its_cards_only():
    game_env = env(num_players=2, variant=SMALL)
    game_env.reset(seed=0, options={"deck": stacked_deck([60], SMALL)})
    assert game_env.unwrapped.game.events[1] == rules.Flipped(0, 60, True)
    with pytest.raises(DeckError, match=r"of the variant \[0, 2, 6, 8, 60\]"):
        game_env.reset(options={"deck": list(range(rules.NUM_CARDS))})
    with pytest.raises(InvalidConfigError, match=r"variant='small' is not allowed; it is an octopus rules\.Variant"):
        env(variant="small")


def test_a_replay_of_a_variant_game_is_refused_rather_than_played_back_as_the_full_game():
    from miaui_env.games.octopus.replay import OctopusReplayError, record

    state = rules.new_game(2, seed=0, variant=SMALL, max_sessions=1)
    while not state.is_over:
        rules.step(state, rules.legal_decisions(state)[0])
    with pytest.raises(OctopusReplayError, match="a replay records the full game; this one is a small variant"):
        record(state, [], seed=0)
