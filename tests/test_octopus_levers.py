"""Two levers of octopus self-play: the action-aligned policy head (`OctopusActionOddsPolicy`, each action's
logit reading its own odds) and potential-based reward shaping (`reward_shaping`), from a config to the
network and the tables; a trained run of each loads and plays as an octopus agent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from miaui_env.games.octopus import rules
from miaui_env.games.octopus.action_odds import OctopusActionOddsPolicy
from miaui_env.games.octopus.agents import load_octopus_agent
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, observe
from miaui_env.games.octopus.odds import ODDS_NAMES, OctopusOddsFeatures
from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv
from training.config import ConfigError, load_config
from training.games import training_game

ROOT = Path(__file__).parent.parent
SMALL = [
    "total_timesteps=1200",
    "tables=[{num_players: 3, num_games: 4}]",
    "ppo.n_steps=16",
    "ppo.batch_size=64",
    "ppo.n_epochs=1",
    "ppo.policy_kwargs.net_arch=[16]",
    "evaluation.every=1200",
    "evaluation.games_per_baseline=30",
    "evaluation.baselines=[random]",
    "opponents.snapshot_every=600",
    "probe.steps=0",
    "device=cpu",
]


def octopus_config(*overrides: str):
    return load_config(ROOT / "configs" / "octopus-v2.yaml", [*SMALL, *overrides])


def new_policy() -> OctopusActionOddsPolicy:
    venv = OctopusSelfPlayVecEnv(2, num_players=3, seed=0, view="recall")
    kwargs = {"features_extractor_class": OctopusOddsFeatures, "net_arch": [16]}
    policy: OctopusActionOddsPolicy = MaskablePPO(
        OctopusActionOddsPolicy, venv, n_steps=16, batch_size=32, policy_kwargs=kwargs, seed=0
    ).policy
    return policy


def decision_rows(count: int) -> torch.Tensor:
    """Recall-view observations of real decisions, thefts among them (3 players)."""
    rows, rng = [], np.random.default_rng(1)
    state = rules.new_game(3, seed=4)
    while len(rows) < count and not state.is_over:
        mask = rules.action_mask(state)
        rows.append(observe(state, state.active, "recall"))
        flips = bool(mask[1]) and rng.random() < 0.85
        rules.step(state, rules.decision_of(state, 1 if flips else int(rng.choice(np.flatnonzero(mask)))))
    return torch.as_tensor(np.array(rows))


def test_each_action_reads_its_own_odds_and_the_rest_reads_none():
    policy = new_policy()
    rows = decision_rows(400)
    features = policy.extract_features(rows)
    odds = {name: features[:, OBSERVATION_LAYOUT.size + i] for i, name in enumerate(ODDS_NAMES)}
    assert any((odds[f"theft_ev_{a}"] != 0).any() for a in range(3, 12))  # thefts are valued in these rows
    head = policy.action_net
    with torch.no_grad():
        plain = policy.action_net(policy.mlp_extractor.forward_actor(features))  # the weights start at 0: SB3's linear head
        np.testing.assert_allclose(plain, head.linear(policy.mlp_extractor.inner.forward_actor(features)), rtol=0, atol=1e-6)
        head.edge_weights.copy_(torch.tensor([1.0, 10.0, 100.0]))
        head.theft_weights.copy_(torch.tensor([2.0, -3.0]))
        weighted = policy.action_net(policy.mlp_extractor.forward_actor(features))
    bonus = weighted - plain
    # The module docstring's head: the flip reads (flip_edge, octopus_edge, rival_octopus_edge), theft a (theft_ev_a,
    # rival_theft_ev_a), each with a gain of 100 (the features hold points / 10; the head, points * 10).
    gain = 100.0
    expected_flip = gain * (odds["flip_edge"] + 10.0 * odds["octopus_edge"] + 100.0 * odds["rival_octopus_edge"])
    np.testing.assert_allclose(bonus[:, 1], expected_flip, rtol=1e-5, atol=1e-3)
    for action in range(3, 12):  # one weight each for theft_ev and rival_theft_ev, shared by the nine thefts
        expected = gain * (2.0 * odds[f"theft_ev_{action}"] - 3.0 * odds[f"rival_theft_ev_{action}"])
        np.testing.assert_allclose(bonus[:, action], expected, rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(bonus[:, [0, 2]], 0.0)  # stop and no theft read no odds


def test_the_head_s_weights_learn_with_the_rest():
    policy = new_policy()
    named = dict(policy.named_parameters())
    held = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert id(named["action_net.edge_weights"]) in held and id(named["action_net.theft_weights"]) in held
    assert all(id(parameter) in held for parameter in named.values())


def test_the_action_odds_policy_needs_the_odds_extractor():
    venv = OctopusSelfPlayVecEnv(2, num_players=3, seed=0, view="recall")
    with pytest.raises(ValueError, match="reads the odds OctopusOddsFeatures computes"):
        MaskablePPO(OctopusActionOddsPolicy, venv, n_steps=16, batch_size=32, policy_kwargs={"net_arch": [16]})


def test_the_config_s_reward_shaping_reaches_every_table_discounted_by_ppo_s_gamma():
    config = octopus_config("reward_shaping=0.5", "ppo.gamma=0.97")
    tables = training_game("octopus").tables(config, "float32")
    assert [(table.shaping, table.discount) for table in tables] == [(0.5, 0.97)]
    unshaped = training_game("octopus").tables(octopus_config("reward_shaping=0"), "float32")
    assert [table.shaping for table in unshaped] == [0.0]


@pytest.mark.parametrize(
    ("config", "overrides", "match"),
    [
        ("octopus-v2.yaml", ["reward_shaping=-1"], "'reward_shaping' is -1; allowed: a number >= 0"),
        ("default.yaml", ["reward_shaping=1.0"], "unknown key 'reward_shaping'"),
    ],
)
def test_bad_or_foreign_reward_shaping_is_refused(config, overrides, match):
    with pytest.raises(ConfigError, match=match):
        load_config(ROOT / "configs" / config, overrides)


@pytest.mark.parametrize(
    ("config", "overrides", "match"),
    [
        ("octopus-v2.yaml", ["ppo.policy=Nope"], "ppo.policy='Nope' is not allowed; allowed: .*OctopusActionOddsPolicy"),
        ("default.yaml", ["ppo.policy=OctopusActionOddsPolicy"], "privileged_critic sets the network's class"),
        ("default.yaml", ["ppo.policy=OctopusActionOddsPolicy", "privileged_critic=false"], "reads no uint8 rows"),
    ],
)
def test_a_policy_class_the_run_cannot_use_is_refused_before_training(tmp_path, config, overrides, match):
    from training.selfplay import Run

    with pytest.raises(ConfigError, match=match):
        Run(load_config(ROOT / "configs" / config, ["device=cpu", *overrides]), tmp_path, resume=False)
    assert not (tmp_path / "model.zip").exists()


@pytest.mark.slow  # trains
def test_a_shaped_run_of_the_action_odds_policy_trains_loads_and_plays(tmp_path):
    from training.selfplay import train

    # The probe at the end trains a best response from the policy's own network, of the same class as ppo.policy.
    config = octopus_config("ppo.policy=OctopusActionOddsPolicy", "reward_shaping=1.0", "probe.steps=600", "probe.games=30")
    metadata = train(config, tmp_path, show_progress=False)
    assert metadata["policy"]["class"] == "OctopusActionOddsPolicy" and metadata["steps"] >= 1200
    assert metadata["exploitability"]["steps"] >= 600
    agent = load_octopus_agent(str(tmp_path), seed=0)
    trained = MaskablePPO.load(tmp_path / "model.zip", device="cpu").policy
    assert isinstance(trained, OctopusActionOddsPolicy)
    assert trained.action_net.theft_weights.abs().sum() > 0 or trained.action_net.edge_weights.abs().sum() > 0  # they learned
    rows = decision_rows(50).numpy()
    masks = np.ones((len(rows), rules.NUM_ACTIONS), dtype=np.int8)
    masks[:, 2:] = 0  # flip or stop
    assert set(agent.act(rows, masks).tolist()) <= {0, 1}
