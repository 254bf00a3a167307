"""The card-counting odds a policy may read (miaui_env.games.miaui.card_odds), checked against the
counter heuristic's compiled kernels on states of real games, and a policy that reads them."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from helpers import aec_decisions

import miaui_env
from miaui_env.games.miaui.agents.heuristics import CountingAgent, GreedyAgent, depth_values, winning_chances
from miaui_env.games.miaui.card_odds import ODDS_SIZE, CardOdds, cards_held, catch_chances, space_values
from miaui_env.games.miaui.compact import expand_observations
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT, SEAT_LAYOUT, VALUE_SCALE
from miaui_env.games.miaui.privileged import PrivilegedCriticPolicy
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

TABLES = [
    {"num_players": 3, "view": "recall"},
    {"num_players": 4, "view": "table"},
    {"num_players": 5, "view": "recall", "no_fighting": True},
    {"num_players": 6, "view": "table", "open_baskets": True},
    {"num_players": 4, "view": "recall", "open_baskets": True, "no_fighting": True},
]


def observed_states(table: dict, games: int = 6, seed: int = 0) -> np.ndarray:
    """Every observation of `games` games at `table`, each seat playing a random legal card."""
    rng = np.random.default_rng(seed)
    env = miaui_env.env(**table)
    rows = []
    for game in range(games):
        env.reset(seed=seed + game)
        for _agent, observation in aec_decisions(env):
            rows.append(observation["observation"])
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.asarray(rows, dtype=np.float32)


@pytest.fixture(scope="module", params=TABLES, ids=lambda table: "-".join(f"{k}={v}" for k, v in table.items()))
def states(request) -> np.ndarray:
    return observed_states(request.param)


def test_space_values_are_the_counter_s(states):
    np.testing.assert_allclose(space_values(torch.from_numpy(states)).numpy(), depth_values(states), atol=1e-5)


def test_the_cards_each_opponent_holds_are_those_the_counter_counts_from_one_observation(states):
    held = cards_held(torch.from_numpy(states)).numpy().astype(bool)
    # A counter fresh at each state remembers exactly what that one observation shows played.
    counted = np.stack([CountingAgent().opponent_cards(row[None])[0] for row in states])
    assert np.array_equal(held[:, 1:], counted[:, 1:])


def test_catch_chances_are_the_counter_s_for_the_same_cards(states):
    held = np.stack([CountingAgent().opponent_cards(row[None])[0] for row in states])
    chances = catch_chances(torch.from_numpy(states), torch.from_numpy(held.astype(np.float32))).numpy()
    np.testing.assert_allclose(chances, winning_chances(states, held), atol=1e-5)


def test_the_expected_catch_is_the_greedy_score_with_counted_cards(states):
    odds = CardOdds()(torch.from_numpy(states)).numpy()
    assert odds.shape == (len(states), OBSERVATION_LAYOUT.size + ODDS_SIZE)
    assert np.array_equal(odds[:, : OBSERVATION_LAYOUT.size], states)  # the observation itself goes through unchanged
    expected = odds[:, OBSERVATION_LAYOUT.size + 3 + 36 : OBSERVATION_LAYOUT.size + 3 + 36 + 12] * VALUE_SCALE

    class CountsOneObservation(GreedyAgent):  # greedy's scores, with each state's own counted cards
        def opponent_cards(self, observations: np.ndarray) -> np.ndarray:
            return np.stack([CountingAgent().opponent_cards(row[None])[0] for row in observations])

    masks = states[:, OBSERVATION_LAYOUT.span("hand")]
    scores = CountsOneObservation().card_scores(states, masks)
    legal = masks > 0
    np.testing.assert_allclose(expected[legal], scores[legal], atol=1e-4)


def test_in_round_one_the_twelve_s_chance_of_the_deepest_space_follows_kiti_s_ties():
    """R6: the highest card catches the deepest space; a tie with another 12 goes to whoever Kiti
    ranks first (R8). In round 1 each opponent holds all twelve cards."""
    rows = observed_states({"num_players": 4, "view": "recall"}, games=1)[:1]
    seats = rows[0, OBSERVATION_LAYOUT.span("seats")].reshape(6, SEAT_LAYOUT.size)
    deep = seats[:, SEAT_LAYOUT.offset("deep_priority")]
    wins_tie = [deep[0] > deep[seat] for seat in (1, 2, 3)]
    expected = np.prod([11 / 12 + (1 / 12 if won else 0.0) for won in wins_tie])
    chances = catch_chances(torch.from_numpy(rows), cards_held(torch.from_numpy(rows)))
    assert chances[0, 11, 0].item() == pytest.approx(expected, abs=1e-6)
    left = CardOdds()(torch.from_numpy(rows))[0, -5:].numpy()
    assert np.array_equal(left, [1, 1, 1, 0, 0])  # every card still held by the three opponents; two empty seats


def test_a_policy_that_reads_the_odds_saves_loads_and_plays_as_trained(tmp_path):
    from sb3_contrib import MaskablePPO

    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=0, privileged=True)
    kwargs = {"card_odds": True, "seat_width": 4, "net_arch": {"pi": [16], "vf": [16]}}
    model = MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs=kwargs, n_steps=11, batch_size=44, seed=0, device="cpu")
    model.learn(44)
    front = model.policy.mlp_extractor.policy_net
    assert isinstance(front[0], CardOdds) and front[2].in_features == OBSERVATION_LAYOUT.size + ODDS_SIZE + 8
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert loaded.policy.card_odds is True
    rows, masks = venv.reset(), venv.action_masks()
    with torch.no_grad():
        ours = model.policy.get_distribution(model.policy.obs_to_tensor(rows)[0], action_masks=masks).distribution.probs
        theirs = loaded.policy.get_distribution(loaded.policy.obs_to_tensor(rows)[0], action_masks=masks).distribution.probs
    assert torch.equal(ours, theirs)


@pytest.mark.parametrize("card_odds", [1, "yes", None])
def test_card_odds_that_is_not_a_flag_is_refused(card_odds):
    from sb3_contrib import MaskablePPO

    venv = MiauiSelfPlayVecEnv(2, num_players=3, privileged=True, seed=0)
    with pytest.raises(ValueError, match=f"card_odds={card_odds!r} must be true or false"):
        MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs={"card_odds": card_odds}, device="cpu")


def test_in_a_short_game_no_opponent_holds_a_card_above_its_rounds():
    """A game of N rounds deals every hand the cards 1 to N: the counts never give an opponent a
    card that was never dealt, and a card above N has no chance to catch anything."""
    rows = observed_states({"num_players": 4, "view": "recall", "rounds": 4, "deck": "emperor_tuna:10*7 jellyfish:-10*6"}, games=3)
    held = cards_held(torch.from_numpy(rows)).numpy()
    assert held[:, 1:4, :4].any() and not held[:, :, 4:].any()
    round_one = rows[:, OBSERVATION_LAYOUT.span("round")][:, 0] > 0
    assert np.array_equal(held[round_one][:, 1:4, :4], np.ones((round_one.sum(), 3, 4)))  # round 1: every dealt card still held


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_a_policy_with_card_odds_reads_float_rows_and_codes_alike(dtype):
    """CompactInputPolicy(card_odds=True) reads the odds of the float layout, whether its rows come as
    float32 or as uint8 codes (which it expands before its features extractor)."""
    from sb3_contrib import MaskablePPO

    from miaui_env.games.miaui.card_odds import CardOddsFeatures
    from miaui_env.games.miaui.compact_torch import CompactInputPolicy

    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=0, observation_dtype=dtype)
    kwargs = {"card_odds": True, "net_arch": [16]}
    model = MaskablePPO(CompactInputPolicy, venv, policy_kwargs=kwargs, n_steps=11, batch_size=44, seed=0, device="cpu")
    model.learn(44)
    assert isinstance(model.policy.features_extractor, CardOddsFeatures) and model.policy.card_odds is True
    rows = venv.reset()
    floats = expand_observations(rows) if dtype == "uint8" else rows
    with torch.no_grad():
        features = model.policy.extract_features(model.policy.floats(torch.as_tensor(rows)), model.policy.features_extractor)
    assert features.shape == (4, OBSERVATION_LAYOUT.size + ODDS_SIZE)
    assert np.array_equal(features.numpy(), CardOdds()(torch.from_numpy(floats)).numpy())
    if dtype == "uint8":  # codes read as numbers are refused, not taken for the layout
        with pytest.raises(ValueError, match="out of the observation's bounds"):
            model.policy.features_extractor(torch.as_tensor(rows).float())


def test_a_compact_policy_with_card_odds_saves_and_loads(tmp_path):
    from sb3_contrib import MaskablePPO

    from miaui_env.games.miaui.compact_torch import CompactInputPolicy

    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=0, observation_dtype="uint8")
    model = MaskablePPO(CompactInputPolicy, venv, policy_kwargs={"card_odds": True, "net_arch": [16]}, n_steps=11, seed=0, device="cpu")
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert loaded.policy.card_odds is True
    rows = venv.reset()
    with torch.no_grad():
        ours = model.policy.get_distribution(torch.as_tensor(rows), action_masks=venv.action_masks()).distribution.probs
        theirs = loaded.policy.get_distribution(torch.as_tensor(rows), action_masks=venv.action_masks()).distribution.probs
    assert torch.equal(ours, theirs)
    with pytest.raises(ValueError, match="card_odds=1 must be true or false"):
        MaskablePPO(CompactInputPolicy, venv, policy_kwargs={"card_odds": 1}, device="cpu")


def test_the_features_extractor_refuses_another_game_s_rows():
    import gymnasium

    from miaui_env.games.miaui.card_odds import CardOddsFeatures

    with pytest.raises(ValueError, match=r"CardOddsFeatures reads Miaui observations of shape \(620,\)"):
        CardOddsFeatures(gymnasium.spaces.Box(0, 1, (100,)))


def test_each_opponent_holds_as_many_cards_as_the_observer_in_every_view(states):
    """R6: every seat plays one card a round, so each opponent at the table holds as many cards as the
    observer's hand, whatever the view shows of the cards played; an empty seat holds none."""
    odds = CardOdds()(torch.from_numpy(states)).numpy()
    left = odds[:, -5:] * NUM_DIVER_CARDS
    own = states[:, OBSERVATION_LAYOUT.span("hand")].sum(axis=1)
    seats = states[:, OBSERVATION_LAYOUT.span("seats")].reshape(len(states), 6, SEAT_LAYOUT.size)
    present = seats[:, 1:, SEAT_LAYOUT.offset("present")] > 0
    np.testing.assert_allclose(left, np.where(present, own[:, None], 0.0), atol=1e-5)


def test_a_run_with_card_odds_loads_as_an_agent_and_keeps_its_inputs(tmp_path):
    """A privileged-critic run that reads the odds: the library's loader builds that network from its
    metadata; --resume and init refuse a config whose card_odds differs from the network's."""
    from miaui_env.games.miaui.agents.loading import load_agent
    from miaui_env.games.miaui.privileged import PrivilegedCriticPolicy
    from training.config import ConfigError, load_config
    from training.ppo import initial_weights
    from training.selfplay import train

    smoke = ["privileged_critic=true", "ppo.policy_kwargs.card_odds=true", "kickstart.decisions=0", "device=cpu"]
    smoke += ["total_timesteps=1500", "evaluation.every=1500", "evaluation.games_per_baseline=20", "opponents.snapshot_every=1500"]
    run = tmp_path / "run"
    train(load_config("smoke", smoke), run, show_progress=False)
    assert json.loads((run / "metadata.json").read_text())["policy"]["kwargs"]["card_odds"] is True
    agent = load_agent(str(run))
    network = agent.policy.policy
    assert isinstance(network, PrivilegedCriticPolicy) and isinstance(network.mlp_extractor.policy_net[0], CardOdds)
    rows = observed_states({"num_players": 4, "view": "recall"}, games=1)[:8]
    masks = rows[:, OBSERVATION_LAYOUT.span("hand")]
    assert all(masks[i, card] > 0 for i, card in enumerate(agent.act(rows, masks)))
    with pytest.raises(ConfigError, match="trained with card_odds=True"):
        train(load_config(run / "config.yaml", ["ppo.policy_kwargs.card_odds=false"]), run, resume=True, show_progress=False)
    with pytest.raises(ConfigError, match=r"trained with card_odds=True, but the run has ppo\.policy_kwargs\.card_odds=False"):
        initial_weights(load_config("smoke", [*smoke, "ppo.policy_kwargs.card_odds=false", f"init={run}", "view=recall"]))


def test_card_odds_beside_another_features_extractor_is_refused():
    from sb3_contrib import MaskablePPO

    from miaui_env.games.miaui.compact_torch import CompactInputPolicy, ExpandCompactObservations

    venv = MiauiSelfPlayVecEnv(2, num_players=3, seed=0, observation_dtype="uint8")
    kwargs = {"card_odds": True, "features_extractor_class": ExpandCompactObservations}
    with pytest.raises(ValueError, match="card_odds is a features extractor of its own"):
        MaskablePPO(CompactInputPolicy, venv, policy_kwargs=kwargs, device="cpu")
