"""A magnet for PPO: Magnetic Mirror Descent's pull toward a reference policy.

Magnetic Mirror Descent (MMD; Sokota et al. 2023, "A unified approach to reinforcement learning,
quantal response equilibria, and two-player zero-sum games") updates a policy by

    pi_{t+1} = argmax_pi  E_pi[A]  -  alpha * KL(pi || rho)  -  (1 / eta) * KL(pi || pi_t)

where `rho` is the magnet. The last term keeps each step near the policy that played the rollout:
PPO's clipped ratio plays that part here. The middle term is added to PPO's loss as it stands
(`MagnetPPO`), with `alpha` the config's `magnet.coef`: a reverse KL, taken exactly over the legal
cards of each state. Rudolph et al. 2025 ("Reevaluating policy gradient methods for
imperfect-information games") found PPO with such a regulariser as hard to exploit as the
game-theoretic methods, its tuned entropy weight between 0.05 and 0.2.

Two magnets (`magnet.policy`):

- `uniform`: every legal card alike. KL(pi || uniform) = log(#legal) - H(pi), so this magnet is
  PPO's entropy bonus with another name (and `ppo.ent_coef` adds to it).
- `average`: a moving average of the policy's own weights, moved `magnet.rate` of the way to the
  policy after every PPO update (MMD's magnet moved toward the current iterate, as Sokota et al. do
  to reach a Nash equilibrium rather than a quantal response one). It damps the cycling of
  self-play without pulling the policy toward uniform play. Its weights are saved with the run
  (magnet.pt) so that a resumed run is pulled toward the same magnet.
"""

from __future__ import annotations

import copy
import typing
from typing import TYPE_CHECKING, Any

import torch
from sb3_contrib import MaskablePPO

from miaui_env.games.miaui.compact_torch import ExpandsCodes

if TYPE_CHECKING:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

MAGNETS = ("uniform", "average")


class Magnet:
    """The reference policy `rho` of MMD: uniform over the legal cards, or a moving average of a policy's weights."""

    def __init__(self, kind: str, coef: float, rate: float, policy: MaskableActorCriticPolicy):
        if kind not in MAGNETS:
            raise ValueError(f"magnet policy {kind!r} is not allowed; allowed: {', '.join(MAGNETS)}")
        self.kind, self.coef, self.rate = kind, coef, rate
        self.average: MaskableActorCriticPolicy | None = None
        if kind == "average":
            self.average = copy.deepcopy(policy)
            self.average.set_training_mode(False)
            self.average.requires_grad_(False)

    def log_probs(self, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """log rho(a | s) of every card; only the legal cards' values are ever used."""
        legal = masks.bool()
        if self.average is None:
            return -torch.log(legal.sum(-1, keepdim=True).float()).expand(legal.shape)
        with torch.no_grad():
            distribution = self.average.get_distribution(observations, action_masks=masks.cpu().numpy())
            return torch.log_softmax(logits(distribution), dim=-1)

    def follow(self, policy: MaskableActorCriticPolicy) -> None:
        """Move an `average` magnet `rate` of the way to the policy's weights (after each PPO update)."""
        if self.average is None:
            return
        with torch.no_grad():
            for ours, theirs in zip(self.average.state_dict().values(), policy.state_dict().values(), strict=True):
                if ours.is_floating_point():
                    ours.lerp_(theirs, self.rate)

    def state_dict(self) -> dict[str, Any] | None:
        """What a checkpoint keeps: an `average` magnet's weights (None for `uniform`)."""
        return None if self.average is None else self.average.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Carry on from a checkpoint's magnet."""
        if self.average is not None:
            self.average.load_state_dict(state)


def logits(distribution: Any) -> torch.Tensor:
    """A masked categorical distribution's logits (the illegal cards' at a large negative number)."""
    return typing.cast(torch.distributions.Categorical, distribution.distribution).logits


def reverse_kl(logits: torch.Tensor, magnet_log_probs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """KL(pi || rho) of each row over its legal cards, `logits` pi's (masked) and differentiable."""
    legal = masks.bool()
    log_pi = torch.log_softmax(logits, dim=-1)
    terms = torch.where(legal, log_pi.exp() * (log_pi - magnet_log_probs), torch.zeros_like(log_pi))
    return terms.sum(-1)


class MagnetPPO(MaskablePPO):
    """sb3-contrib's MaskablePPO with MMD's magnet term `coef * KL(pi || rho)` in its loss (module docstring).

    Its checkpoints are MaskablePPO's: `MaskablePPO.load` reads them, and the magnet is saved beside
    them (magnet.pt). Without a magnet (`magnet=None`, or `coef` 0) it trains exactly as MaskablePPO.
    """

    magnet: Magnet | None = None

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "magnet"]

    def train(self) -> None:
        """One PPO update on the rollout, the magnet's term in its loss; then the magnet follows the policy."""
        magnet = self.magnet
        if magnet is None or magnet.coef == 0:
            super().train()
            return
        policy, ent_coef = self.policy, self.ent_coef
        divergences: list[float] = []
        entropies: list[float] = []

        def evaluate_actions(observations: Any, actions: torch.Tensor, action_masks: Any = None) -> tuple[Any, Any, torch.Tensor]:
            # MaskableActorCriticPolicy.evaluate_actions, keeping the distribution for the magnet's term
            observations = policy.floats(observations) if isinstance(policy, ExpandsCodes) else observations
            features = policy.extract_features(observations)
            if policy.share_features_extractor:
                latent_pi, latent_vf = policy.mlp_extractor(features)
            else:
                latent_pi = policy.mlp_extractor.forward_actor(features[0])
                latent_vf = policy.mlp_extractor.forward_critic(features[1])
            distribution = policy._get_action_dist_from_latent(latent_pi)
            distribution.apply_masking(action_masks)
            masks = torch.as_tensor(action_masks, device=latent_pi.device)
            entropy = typing.cast(torch.Tensor, distribution.entropy())
            divergence = reverse_kl(logits(distribution), magnet.log_probs(observations, masks), masks)
            divergences.append(divergence.mean().item())
            entropies.append(entropy.mean().item())
            # PPO's loss has `- ent_coef * mean(entropy)`: with ent_coef set to 1 for the update, the
            # "entropy" handed back carries both terms.
            return policy.value_net(latent_vf), distribution.log_prob(actions), ent_coef * entropy - magnet.coef * divergence

        policy.evaluate_actions = evaluate_actions  # type: ignore[method-assign,assignment]
        self.ent_coef = 1.0
        try:
            super().train()
        finally:
            del policy.evaluate_actions
            self.ent_coef = ent_coef
        magnet.follow(policy)
        self.logger.record("magnet/kl", sum(divergences) / max(len(divergences), 1))
        self.logger.record("magnet/entropy", sum(entropies) / max(len(entropies), 1))
