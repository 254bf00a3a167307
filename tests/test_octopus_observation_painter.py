"""The octopus env's fast observations (`observation.Painter`, painting one canvas in place as the
game goes) are bit for bit the pure `observe(state, seat, view)` and `canvas(state)`: after a stop,
a bust, an octopus, every kind of theft (a steal, a die of -1, a failed roll, no theft), a new
session and the game's end (O3, O5, O6-O9), in both views (O4), and through random games."""

from __future__ import annotations

import numpy as np
import pytest

from miaui_env.games.octopus import env as env_module
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.env import raw_env
from miaui_env.games.octopus.observation import VIEWS, Painter, canvas, observe
from miaui_env.games.octopus.rules import stacked_deck

pytestmark = pytest.mark.oracle  # the env's fast canvas checked against the reference encoder

STOP, FLIP, NO_THEFT = 0, 1, 2
STEAL_1, STEAL_2 = 3, 4  # k = 1 or 2 from the next seat clockwise

# Two players, player_0 first. Each comment is the step's outcome on this deck and these dice.
TOP = [0, 6, 18, 12, 13, 24, 60, 30, 61, 62, 36, 63]  # fish `species * 6 + slot`, octopuses 60-65
DICE = [3, -1, 1]
SCRIPT = [
    FLIP,  # p0: anchovy, bream
    STOP,  # p0 keeps both (Kept); p1 flips a dory
    FLIP,  # p1: cod
    FLIP,  # p1: a second cod, a bust (Busted): the cods are discarded, the dory kept; p0 flips an eel
    FLIP,  # p0: an octopus (Octopus): eel and octopus discarded; p1 holds a card, so p0 may steal
    STEAL_1,  # p0 rolls 3: p1's dory moves to p0 (Rolled, CardsMoved); p1 flips a flounder
    STOP,  # p1 keeps it; p0 flips an octopus at once
    STEAL_1,  # p0 rolls -1: one of p0's cards moves to p1; p1 flips an octopus
    NO_THEFT,  # p1 does not steal (NoTheft); p0 flips a grouper
    STOP,  # p0 keeps it; p1 flips an octopus
    STEAL_2,  # p1 rolls 1 < 2: nothing moves (Rolled alone)
]
EXPECTED = {
    rules.Kept,
    rules.Busted,
    rules.Octopus,
    rules.Rolled,
    rules.CardsMoved,
    rules.NoTheft,
    rules.SessionStart,
    rules.SessionScored,
    rules.GameEnded,
}


def _then_to_the_end(state: rules.OctopusState) -> int:
    """After the script: flip once, then stop; never steal (short turns, so many of each event)."""
    if state.phase is rules.Phase.THEFT:
        return NO_THEFT
    return FLIP if len(state.row) < 2 else STOP


def _assert_painted_as_fresh(game: raw_env, painter: Painter, view: str) -> None:
    state = game._dealt()
    assert painter.canvas(state).tobytes() == canvas(state).tobytes()
    for seat in range(game.num_players):
        painted = game.observe(f"player_{seat}")["observation"]
        assert painted.dtype == np.float32
        assert painted.tobytes() == observe(state, seat, view).tobytes(), f"seat {seat} after {state.events[-3:]}"


@pytest.mark.parametrize("view", VIEWS)
def test_every_kind_of_event_leaves_the_painted_canvas_equal_to_a_fresh_one(view):
    game = raw_env(num_players=2, view=view)
    game.reset(seed=5, options={"deck": stacked_deck(TOP), "dice": DICE})
    painter = Painter()  # kept across steps, as the env keeps its own
    _assert_painted_as_fresh(game, painter, view)
    for step in range(10_000):
        state = game._dealt()
        if state.is_over:
            break
        game.step(SCRIPT[step] if step < len(SCRIPT) else _then_to_the_end(state))
        _assert_painted_as_fresh(game, painter, view)
    seen = {type(event) for event in game._dealt().events}
    assert seen >= EXPECTED  # every kind was painted in place (SessionStart: painted afresh)
    moved = [e for e in game._dealt().events if isinstance(e, rules.CardsMoved)]
    assert {(e.source, e.dest) for e in moved[:2]} == {(1, 0), (0, 1)}  # a steal and a die of -1 (O5)


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_paint_what_a_fresh_encoder_shows_in_both_views(n, view):
    game = raw_env(num_players=n, view=view)
    painter = Painter()
    for seed in range(2):
        game.reset(seed=seed)
        rng = np.random.default_rng(seed)
        _assert_painted_as_fresh(game, painter, view)
        while not game._dealt().is_over:
            legal = np.flatnonzero(game.observe(game.agent_selection)["action_mask"])
            game.step(int(rng.choice(legal)))
            _assert_painted_as_fresh(game, painter, view)


def test_a_painter_handed_another_state_paints_that_one():
    painter = Painter()
    first, second = rules.new_game(3, seed=1), rules.new_game(3, seed=2)
    for state in (first, second, first):
        rules.step(state, rules.FLIP)
        assert painter.canvas(state).tobytes() == canvas(state).tobytes()


def test_the_envs_shortcut_for_actions_0_to_2_names_what_the_engine_names():
    state = rules.new_game(2, seed=0)
    assert [rules.decision_of(state, a) for a in range(3)] == list(env_module._MOVES)
