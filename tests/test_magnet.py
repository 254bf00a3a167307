"""The magnet (training/magnet.py): the reverse KL it adds is exact, with its sign and weight checked
against PPO's own entropy bonus, it changes nothing when off, and an average magnet follows the policy."""

from __future__ import annotations

import math

import pytest
import torch
from sb3_contrib import MaskablePPO

from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from training.magnet import Magnet, MagnetPPO, reverse_kl

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

SMALL = {"n_steps": 11, "batch_size": 64, "n_epochs": 2, "learning_rate": 1e-3, "policy_kwargs": {"net_arch": [32, 32]}}


def learner(algorithm: type[MaskablePPO], **kwargs: object) -> MaskablePPO:
    venv = MiauiSelfPlayVecEnv(8, num_players=4, learner_seats=[0], opponent=RandomAgent(1), view="recall", seed=3)
    return algorithm("MlpPolicy", venv, seed=7, device="cpu", verbose=0, **{**SMALL, **kwargs})


def trained(algorithm: type[MaskablePPO], steps: int, magnet: tuple[str, float, float] | None = None, **kwargs: object) -> MaskablePPO:
    """A learner built, given its magnet, and trained at once: building one seeds the global generators its play draws from."""
    model = learner(algorithm, **kwargs)
    if magnet is not None:
        model.magnet = Magnet(*magnet, model.policy)
    model.learn(steps)
    return model


def weights(model: MaskablePPO) -> list[torch.Tensor]:
    return [parameter.detach().clone() for parameter in model.policy.parameters()]


def test_reverse_kl_is_the_kl_over_the_legal_cards():
    logits = torch.tensor([[1.0, 2.0, -1e8, 0.5], [0.0, 0.0, 0.0, 0.0]])
    masks = torch.tensor([[1, 1, 0, 1], [1, 1, 1, 1]])
    magnet = torch.log(torch.tensor([[0.2, 0.5, 0.0, 0.3], [0.1, 0.2, 0.3, 0.4]]).clamp_min(1e-30))
    pi = torch.softmax(logits, dim=-1)
    expected = [
        sum(float(pi[0, a]) * math.log(float(pi[0, a]) / [0.2, 0.5, 0.3][i]) for i, a in enumerate([0, 1, 3])),
        sum(0.25 * math.log(0.25 / q) for q in (0.1, 0.2, 0.3, 0.4)),
    ]
    assert reverse_kl(logits, magnet, masks).tolist() == pytest.approx(expected, rel=1e-5)
    assert reverse_kl(logits, torch.log_softmax(logits, -1), masks).tolist() == pytest.approx([0, 0], abs=1e-6)


def test_a_uniform_magnet_is_log_legal_cards_minus_the_entropy():
    model = learner(MaskablePPO)
    magnet = Magnet("uniform", 1.0, 0.0, model.policy)
    masks = torch.tensor([[1, 0, 1, 1] + [0] * 8, [1] * 12])
    logits = torch.randn(2, 12).masked_fill(masks == 0, -1e8)
    pi = torch.softmax(logits, dim=-1)
    entropy = -(pi * torch.log(pi.clamp_min(1e-30))).sum(-1)
    kl = reverse_kl(logits, magnet.log_probs(torch.zeros(2, 1), masks), masks)
    assert kl.tolist() == pytest.approx((torch.log(masks.sum(-1).float()) - entropy).tolist(), rel=1e-5)


def test_without_a_magnet_magnet_ppo_trains_exactly_as_maskable_ppo():
    plain, magnetless = trained(MaskablePPO, 300), trained(MagnetPPO, 300)
    assert all(torch.equal(a, b) for a, b in zip(weights(plain), weights(magnetless), strict=True))


def test_a_uniform_magnet_pulls_as_hard_as_the_same_entropy_weight():
    # KL(pi || uniform) = log(#legal) - H(pi): coef * KL in the loss has the gradient of -coef * H,
    # PPO's own entropy bonus at ent_coef = coef. Same seed, same rollouts, same updates.
    bonus = trained(MaskablePPO, 300, ent_coef=0.3)
    magnetic = trained(MagnetPPO, 300, ("uniform", 0.3, 0.0), ent_coef=0.0)
    assert magnetic.ent_coef == 0.0  # restored after every update
    for a, b in zip(weights(bonus), weights(magnetic), strict=True):
        assert torch.allclose(a, b, atol=2e-5)
    unpulled = trained(MaskablePPO, 300, ent_coef=0.0)
    assert not all(torch.allclose(a, b, atol=2e-5) for a, b in zip(weights(unpulled), weights(magnetic), strict=True))


def test_an_average_magnet_moves_its_rate_of_the_way_to_the_policy():
    model = learner(MagnetPPO)
    magnet = Magnet("average", 0.1, 0.25, model.policy)
    before = [p.detach().clone() for p in magnet.average.parameters()]
    with torch.no_grad():
        for parameter in model.policy.parameters():
            parameter.add_(1.0)
    magnet.follow(model.policy)
    for old, new, target in zip(before, magnet.average.parameters(), model.policy.parameters(), strict=True):
        assert torch.allclose(new, old + 0.25 * (target - old))
    assert not any(p.requires_grad for p in magnet.average.parameters())


def test_an_average_magnet_s_pull_keeps_the_policy_near_it():
    start = weights(learner(MagnetPPO))
    far = trained(MagnetPPO, 600, learning_rate=3e-3)
    near = trained(MagnetPPO, 600, ("average", 5.0, 0.0), learning_rate=3e-3)  # rate 0: the magnet stays at the start
    distance = [sum(float((w - s).norm()) for w, s in zip(weights(model), start, strict=True)) for model in (far, near)]
    assert distance[1] < distance[0]


def test_a_magnet_ppo_checkpoint_loads_as_maskable_ppo(tmp_path):
    model = trained(MagnetPPO, 100, ("average", 0.1, 0.1))
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert not hasattr(loaded, "magnet") or loaded.magnet is None
    assert all(torch.equal(a, b) for a, b in zip(weights(model), weights(loaded), strict=True))


def test_an_unknown_magnet_is_refused():
    with pytest.raises(ValueError, match="'nearest' is not allowed; allowed: uniform, average"):
        Magnet("nearest", 0.1, 0.1, learner(MaskablePPO).policy)


def test_a_resumed_run_is_pulled_toward_the_magnet_it_saved(tmp_path):
    from miaui_env.core.checkpoint import CheckpointError
    from training.config import load_config
    from training.selfplay import Run, train

    config = load_config("configs/smoke.yaml", ["kickstart.decisions=0", "magnet.coef=0.1", "magnet.rate=0.5", "total_timesteps=2000"])
    train(config, tmp_path, show_progress=False)
    saved = torch.load(tmp_path / "magnet.pt", weights_only=True)
    resumed = Run(config, tmp_path, resume=True).model
    assert resumed.magnet is not None and resumed.magnet.average is not None
    assert all(torch.equal(saved[key], value) for key, value in resumed.magnet.average.state_dict().items())
    assert not all(torch.equal(saved[key], value) for key, value in resumed.policy.state_dict().items())  # the magnet lags the policy
    (tmp_path / "magnet.pt").write_bytes(b"not a tensor file")
    with pytest.raises(CheckpointError, match=r"magnet\.pt is damaged"):
        Run(config, tmp_path, resume=True)
