"""Exact exploitability on small variants (training/exact.py): the agents as OpenSpiel policies,
NashConv against OpenSpiel's own uniform policy, MCCFR's row, the command's files and refusals; the
octopus variant itself in OpenSpiel (OV1) and short Miaui games (MV1-MV3) made turn-based."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import types

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as spiel_policy
from open_spiel.python.algorithms import exploitability

from miaui_env.games import get_game
from miaui_env.games.miaui.cards import parse_deck
from miaui_env.games.miaui.rules import GameConfig
from miaui_env.games.octopus import observation as octopus_observation
from miaui_env.games.octopus import rules as octopus
from miaui_env.integrations.openspiel import OpenSpielError
from training.exact import MIAUI_SHORT_GAMES, ExactConfig, ExactConfigError, agent_policy, mccfr_row, measure, run, spiel_game, variant_name

TINY = octopus.Variant(species=1, values=(1, 2), octopuses=1, target=1)  # three cards: a tree of a few hundred nodes


def walk(state, visit):
    """Every decision node under `state`, depth first."""
    if state.is_terminal():
        return
    if state.is_chance_node():
        for action, _ in state.chance_outcomes():
            walk(state.child(action), visit)
        return
    visit(state)
    for action in state.legal_actions():
        walk(state.child(action), visit)


def test_a_variant_in_openspiel_deals_exactly_its_cards_and_round_trips():
    game = pyspiel.load_game("python_octopus", {"species": 2, "values": 12, "octopuses": 1, "target": 1, "max_sessions": 1})
    first = game.new_initial_state()
    assert sorted(action for action, _ in first.chance_outcomes()) == [0, 2, 6, 8, 60]
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
    text = pyspiel.serialize_game_and_state(game, first)
    assert "values=12" in text and pyspiel.deserialize_game_and_state(text)[1].chance_outcomes() == first.chance_outcomes()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"values": 15}, r"values=\(1, 5\) are not a part"),
        ({"values": 0}, "values=0 is not allowed"),
        ({"species": 11}, "species=11 is not allowed"),
        ({"octopuses": 7}, "octopuses=7 is not allowed"),
    ],
)
def test_openspiel_refuses_a_variant_outside_the_game(params, message):
    with pytest.raises(OpenSpielError, match=message):
        pyspiel.load_game("python_octopus", params)


def test_random_s_nash_conv_is_openspiel_s_own_for_the_uniform_policy():
    game = spiel_game(ExactConfig(TINY, mccfr_seconds=0))
    ours = measure(game, "random", agent_policy(game, "random"))
    theirs = exploitability.nash_conv(game, spiel_policy.UniformRandomPolicy(game))
    assert ours.nash_conv == pytest.approx(theirs) and sum(ours.gains) == pytest.approx(theirs)
    assert sum(ours.values) == pytest.approx(1.0)  # win shares of one game: ties shared
    assert min(ours.gains) >= -1e-9  # a best response does at least as well as the policy


@pytest.mark.parametrize("spec", ["cautious", "risk-aware", "rival-aware"])
def test_an_agent_s_policy_is_its_own_action_with_probability_one_everywhere(spec):
    game = spiel_game(ExactConfig(TINY, mccfr_seconds=0))
    as_policy, agent = agent_policy(game, spec), get_game("octopus").load_agent(spec, seed=0)
    checked = []

    def visit(state):
        probabilities = as_policy.action_probabilities(state)
        seen = octopus_observation.observe(state.state, state.current_player(), getattr(agent, "view", "table"))
        action = int(np.asarray(agent.act(seen[None], octopus.action_mask(state.state)[None])).reshape(-1)[0])
        assert probabilities == {action: 1.0} and action in state.legal_actions()
        checked.append(action)

    walk(game.new_initial_state(), visit)
    assert len(checked) >= 10  # every decision of the three-card game


def test_mccfr_comes_closer_to_equilibrium_than_the_uniform_policy():
    game = spiel_game(ExactConfig(TINY, mccfr_seconds=0))
    row, iterations = mccfr_row(game, seconds=3.0, seed=0)
    uniform = exploitability.nash_conv(game, spiel_policy.UniformRandomPolicy(game))
    assert iterations > 50 and 0 <= row.nash_conv < uniform / 2


def test_the_command_writes_its_table_and_refuses_bad_values(tmp_path):
    rows = run(ExactConfig(TINY, agents=("random", "cautious"), mccfr_seconds=1.0), tmp_path)
    record = json.loads((tmp_path / "exact.json").read_text())
    assert [row["name"] for row in record["rows"]][:2] == ["random", "cautious"] and len(rows) == 3
    assert "| cautious |" in (tmp_path / "exact.md").read_text()
    refusals = (
        (["--values", "1x"], "--values '1x'"),
        (["--agents", "random", "random"], "more than once"),
        (["--species", "11"], "species=11 is not allowed; it is an integer from 1 to 10"),
        (["--mccfr-seconds", "-1"], "--mccfr-seconds -1.0: from 0 to 86400"),
        (["--yardstick-set", "kickstart.decisions=3"], "only ppo.KEY=VALUE settings apply"),
        (["--yardstick-set", "ppo.ent_coef=abc"], "ppo.ent_coef='abc' is not allowed"),
    )
    for args, message in refusals:
        done = subprocess.run([sys.executable, "-m", "training.exact", *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_the_yardstick_s_trained_best_response_never_beats_the_exact_one():
    # The exact best response is the most any player can win against the agent: the trained one is
    # measured exactly too, so in every seat its gain is at most the exact gain.
    rows = run(ExactConfig(TINY, agents=("random", "cautious"), mccfr_seconds=0, yardstick_steps=4096), None)
    for row in rows:
        assert row.trained_gains is not None and len(row.trained_gains) == 2
        assert all(trained <= exact + 1e-9 for trained, exact in zip(row.trained_gains, row.gains, strict=True))
        assert row.found is not None and row.found <= 1.0 + 1e-9


@pytest.mark.slow
def test_self_play_is_measured_as_it_plays_and_beside_mccfr_at_the_same_cpu_time():
    rows = run(ExactConfig(TINY, agents=(), mccfr_seconds=0, selfplay_steps=16_384), None)
    chances, best, mccfr = rows
    # one rollout at the least: 64 steps of each of 512 rows (256 two-player games, both seats learning)
    assert chances.name.startswith("self-play PPO (32,768 steps") and "action chances" in chances.name and "most likely" in best.name
    assert mccfr.name.startswith("MCCFR (") and chances.seconds == best.seconds > 0
    uniform = exploitability.nash_conv(spiel_game(ExactConfig(TINY)), spiel_policy.UniformRandomPolicy(spiel_game(ExactConfig(TINY))))
    assert chances.nash_conv < uniform  # it learnt something in one rollout of 256 games
    assert mccfr.nash_conv < chances.nash_conv  # and MCCFR, in the same CPU time, comes closer to an equilibrium


def test_mccfr_by_iterations_is_repeatable_and_by_seed_only():
    game = spiel_game(ExactConfig(TINY, mccfr_seconds=0))
    first, again, other = (mccfr_row(game, 0, seed, iterations=200)[0] for seed in (0, 0, 1))
    assert first.nash_conv == again.nash_conv and first.gains == again.gains
    assert other.nash_conv != first.nash_conv


@pytest.mark.parametrize("field", ["mccfr_iterations", "yardstick_steps", "selfplay_steps", "tabular_episodes"])
@pytest.mark.parametrize("value", [-1, 2.5, True, "300"])
def test_a_training_budget_that_is_no_whole_count_is_refused_by_name(field, value):
    with pytest.raises(ExactConfigError, match=f"{field}={value!r}"):
        ExactConfig(TINY, **{field: value})


def test_a_mixed_strategy_is_refused_before_any_work():
    done = subprocess.run(
        [sys.executable, "-m", "training.exact", "--agents", "random", "octopus-ppo-v1@sample", "--mccfr-seconds", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "octopus-ppo-v1@sample plays a mixed strategy" in done.stderr
    assert "NashConv" not in done.stdout  # refused before random's row was measured


# ---- a short Miaui game (MV1-MV3) ----------------------------------------------------------------

TWO_ROUNDS = GameConfig(3, deck=parse_deck("emperor_tuna:10*4 jellyfish:-10*3"), rounds=2)  # one decision a seat


def _simultaneous_twin(game, turn_based_state):
    """The simultaneous game's state after the turn-based state's history (joint actions gathered)."""
    state, joint = game.new_initial_state(), []
    for action in turn_based_state.history():
        if state.is_chance_node():
            state.apply_action(action)
        else:
            joint.append(action)
            if len(joint) == game.num_players():
                state.apply_actions(joint)
                joint = []
    return state, joint


def test_a_miaui_agent_reads_its_seat_s_observation_and_its_policy_is_a_function_of_the_information_state():
    config = ExactConfig(dataclasses.replace(TWO_ROUNDS, rounds=3, deck=parse_deck("emperor_tuna:10*6 jellyfish:-10*4")), players=3)
    turn_based = spiel_game(config)
    simultaneous = pyspiel.load_game("python_miaui", {"players": 3, "rounds": 3, "deck": "emperor_tuna:10*6 jellyfish:-10*4"})
    greedy = agent_policy(turn_based, "greedy", MIAUI_SHORT_GAMES)
    seen: dict[str, dict[int, float]] = {}
    ties = []

    def check(state):
        seat = state.current_player()
        twin, _ = _simultaneous_twin(simultaneous, state)
        assert state.observation_tensor(seat)[-620:] == twin.observation_tensor(seat)
        probabilities = greedy.action_probabilities(state)
        assert set(probabilities) <= set(state.legal_actions()) and sum(probabilities.values()) == pytest.approx(1.0)
        key = state.information_state_string(seat)
        assert seen.setdefault(key, probabilities) == probabilities  # the same for every state of an information set
        ties.append(len(probabilities) > 1)

    rng = np.random.default_rng(0)
    for _ in range(30):  # random paths through the tree
        state = turn_based.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=chances)))
            else:
                check(state)
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert any(ties) and not all(ties)  # greedy's equal-scoring cards are a uniform mixture (it breaks ties at random)


def test_an_output_folder_that_cannot_be_written_is_refused_before_any_work(tmp_path, monkeypatch):
    import training.exact as exact

    measured = []
    monkeypatch.setattr(exact, "measure", lambda *args: measured.append(args))
    (tmp_path / "a-file").write_text("")
    with pytest.raises(OSError, match="it is a file"):
        run(ExactConfig(TWO_ROUNDS, players=3, agents=("random",), mccfr_seconds=0), tmp_path / "a-file")
    assert measured == []  # refused before the first row was measured


@pytest.mark.parametrize(("variant", "players", "agents"), [(TINY, 2, ("random", "risk-aware")), (TWO_ROUNDS, 3, ("high", "random"))])
def test_a_tabular_best_response_finds_the_whole_exact_gain_on_a_tiny_game(variant, players, agents):
    """One value per observation and action, learned in the yardstick's env and view and measured
    exactly: on a game this small it finds every seat's exact gain, so the env, the view and the
    measure agree with the exact best response (a shortfall elsewhere is the learner's)."""
    rows = run(ExactConfig(variant, players=players, agents=agents, mccfr_seconds=0, tabular_episodes=4000), None)
    for row in rows:
        assert row.tabular_gains is not None and row.tabular_found == pytest.approx(1.0)
        assert row.tabular_gains == pytest.approx(row.gains)


def test_on_a_short_miaui_game_the_yardstick_never_beats_the_exact_best_response_and_self_play_is_measured():
    # The batched engine plays short games (MV1-MV3), so both learners train on the game measured.
    rows = run(ExactConfig(TWO_ROUNDS, players=3, agents=("high",), mccfr_seconds=0, yardstick_steps=8192, selfplay_steps=8192), None)
    high, chances, best, mccfr = rows
    assert high.trained_gains is not None and len(high.trained_gains) == 3
    assert all(trained <= exact + 1e-9 for trained, exact in zip(high.trained_gains, high.gains, strict=True))
    assert sum(high.trained_gains) > 0  # `high` always plays its highest card: one episode's lesson is worth something
    # one rollout at the least: 22 steps (configs/default.yaml) of each of 512 games' learner seats
    assert chances.name.startswith("self-play PPO (11,264 steps") and "most likely" in best.name and mccfr.name.startswith("MCCFR (")
    uniform = exploitability.nash_conv(
        spiel_game(ExactConfig(TWO_ROUNDS, players=3)), spiel_policy.UniformRandomPolicy(spiel_game(ExactConfig(TWO_ROUNDS, players=3)))
    )
    assert 0 <= chances.nash_conv <= 3 and chances.nash_conv != pytest.approx(uniform)  # a trained network, not the uniform one


def test_the_miaui_command_writes_its_table_and_refuses_what_it_cannot_measure(tmp_path):
    rows = run(ExactConfig(TWO_ROUNDS, players=3, agents=("random", "high", "counter"), mccfr_iterations=100), tmp_path)
    uniform = exploitability.nash_conv(
        spiel_game(ExactConfig(TWO_ROUNDS, players=3)), spiel_policy.UniformRandomPolicy(spiel_game(ExactConfig(TWO_ROUNDS, players=3)))
    )
    assert rows[0].nash_conv == pytest.approx(uniform) and rows[-1].name.startswith("MCCFR (100 iterations")
    assert rows[-1].nash_conv < uniform  # MCCFR's average strategy is closer to an equilibrium than the uniform one
    assert "Miaui, 2 rounds (standard), deck emperor_tuna:10*4, jellyfish:-10*3, 3 players" in (tmp_path / "exact.md").read_text()
    refusals = (
        (["--agents", "search"], "search has no exact figures here: its beliefs deal the 12-round game"),
        (["--agents", "noisy-counter"], "noisy-counter has no exact figures here"),
        (["--rounds", "13"], "rounds=13 is not allowed; a game has 2-12 rounds"),
        (["--rounds", "2"], "a deck must hold 7 cards for 2 rounds (MV2: 3 a round and 1 put back) (R3), got 10"),
        (["--deck", "whale:1*10"], "unknown kind 'whale'"),
        (["--players", "7"], "invalid choice: 7"),
        (["--species", "3"], "--species: the octopus game's options, not --game miaui's"),
        (["--game", "octopus", "--rounds", "3", "--no-fighting"], "--rounds --no-fighting: Miaui's options, not --game octopus's"),
        (["--rounds", "5", "--deck", "emperor_tuna:10*8 jellyfish:-10*8"], "can go 2.2e+10 ways; the exact tools take up to 2,000,000"),
    )
    for args, message in refusals:
        done = subprocess.run(
            [sys.executable, "-m", "training.exact", "--game", "miaui", *args], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_each_short_game_has_a_folder_of_its_own_and_its_tree_is_counted():
    other_deck = dataclasses.replace(TWO_ROUNDS, deck=parse_deck("tigerfish:5*4 lantern:3*3"))
    no_fighting = dataclasses.replace(TWO_ROUNDS, no_fighting=True)
    names = {variant_name(ExactConfig(game, players=3)) for game in (TWO_ROUNDS, other_deck, no_fighting)}
    assert len(names) == 3 and "miaui-2r-emperor_tuna10x4-jellyfish-10x3-3p" in names
    # 7!/(4!3!) = 35 deck orders, and each of 3 seats picks one of 2 cards in round 1
    assert MIAUI_SHORT_GAMES.tree_leaves(TWO_ROUNDS) == 35 * 2**3


@pytest.mark.slow
def test_the_yardstick_s_view_tells_apart_every_state_where_the_exact_best_response_acts_differently():
    # On the five-card game, against risk-aware, the yardstick's learner finds 40% of the exact gain
    # however long it trains (docs/guides/openspiel.md). Its observation is not why: in the recall view
    # it sees, no observation stands for two information states where the exact best response differs.
    from open_spiel.python.algorithms import best_response

    game = spiel_game(ExactConfig(octopus.Variant(species=2, values=(1, 2), octopuses=1, target=1)))
    target = agent_policy(game, "risk-aware")
    for seat in range(2):
        exact = best_response.BestResponsePolicy(game, seat, target)
        actions_by_view: dict[bytes, set[int]] = {}

        def visit(state, seat=seat, exact=exact, actions_by_view=actions_by_view):
            if state.is_terminal():
                return
            if state.is_chance_node():
                for action, _ in state.chance_outcomes():
                    visit(state.child(action))
                return
            if state.current_player() == seat:
                seen = octopus_observation.observe(state.state, seat, "recall").tobytes()
                actions_by_view.setdefault(seen, set()).add(exact.best_response_action(state.information_state_string(seat)))
                children = state.legal_actions()
            else:
                children = [a for a, p in target.action_probabilities(state).items() if p > 0]
            for action in children:
                visit(state.child(action))

        visit(game.new_initial_state())
        assert len(actions_by_view) > 50 and all(len(actions) == 1 for actions in actions_by_view.values())


def test_a_miaui_agent_reads_its_own_view_of_a_state_loaded_in_another():
    # The yardstick's learner reads the recall view; the game it is measured on is loaded in the
    # table view (its target's). `seen` replays the state's moves in the agent's view.
    three_rounds = GameConfig(3, deck=parse_deck("emperor_tuna:10*6 jellyfish:-10*4"), rounds=3)
    table, recall = (spiel_game(ExactConfig(three_rounds, players=3), view) for view in ("table", "recall"))
    viewers = {view: types.SimpleNamespace(view=view) for view in ("table", "recall")}
    rng = np.random.default_rng(0)
    differed = 0
    for _ in range(20):
        state, twin = table.new_initial_state(), recall.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                action = int(rng.choice(outcomes, p=chances))
            else:
                seen = {}
                for view, own in (("recall", twin), ("table", state)):
                    seen[view], mask = MIAUI_SHORT_GAMES.seen(state, viewers[view])
                    expected = np.asarray(own.observation_tensor(own.current_player()), dtype=np.float32)[-seen[view].size :]
                    np.testing.assert_array_equal(seen[view], expected)
                    np.testing.assert_array_equal(np.flatnonzero(mask), state.legal_actions())
                differed += not np.array_equal(seen["table"], seen["recall"])
                action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            twin.apply_action(action)
    assert differed > 0  # the two views differ on these states: the test tells them apart


def test_the_counter_s_answer_at_a_state_depends_on_that_state_s_game_alone():
    # The counter remembers the reveals it has seen; measured exactly, it is shown only the game that
    # led to the state it is asked about, whatever it was asked before (the tree walks ask in any order).
    three_rounds = GameConfig(3, deck=parse_deck("emperor_tuna:10*6 jellyfish:-10*4"), rounds=3)
    game = spiel_game(ExactConfig(three_rounds, players=3))
    profile = agent_policy(game, "counter", MIAUI_SHORT_GAMES)
    rng = np.random.default_rng(1)

    def random_decision() -> object:  # a decision of round 1 or 2, reached by random play
        state, decisions = game.new_initial_state(), int(rng.integers(0, 6))
        while state.is_chance_node() or decisions > 0:
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=chances)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                decisions -= 1
        return state

    asked = [random_decision() for _ in range(60)]
    alone = [agent_policy(game, "counter", MIAUI_SHORT_GAMES).action_probabilities(state) for state in asked]  # a new counter each
    assert [profile.action_probabilities(state) for state in asked] == alone  # one counter asked them all, one after another
