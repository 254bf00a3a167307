"""A policy whose every action reads its own odds: the octopus game's action-aligned policy head.

    ppo:                                   # in a run's config (configs/octopus-v2.yaml)
      policy: OctopusActionOddsPolicy
      policy_kwargs: {features_extractor_class: OctopusOddsFeatures}

`OctopusOddsFeatures` (`miaui_env.games.octopus.odds`) puts beside the observation what each decision
is worth in expectation: the flip's edge over stopping and each of the nine thefts' expected swing
(O3, O5). A flat MLP has to learn, separately for each of the nine theft outputs, that a larger
number in *its* input column means a better theft; a theft is one decision in ten, so that comes
slowly (runs from new weights mostly chose thefts unlike the heuristics', which weigh those
numbers). Here the logit of an action adds a learned weight times that action's own odds, one
weight shared by the nine thefts:

    logit(flip)    = MLP(x)_flip + w_edge . (flip_edge, octopus_edge, rival_octopus_edge)
    logit(theft a) = MLP(x)_a    + w_theft . (theft_ev_a, rival_theft_ev_a)
    logit(stop), logit(no theft) = MLP(x)_a

The head reads the odds with a gain of `ODDS_GAIN` (100: points times 10, where the features hold
points / 10). Adam moves a weight by about the learning rate each step, whatever its gradient, so
what one step can change in a logit is the learning rate times the feature: at points / 10 and a
learning rate of 3e-4 the weights stayed far below 1 for millions of steps, a quarter point's edge
worth hundredths of a logit. The weights start at 0 (the policy starts as the flat one), and the
MLP keeps every other input: what the weights say is a preference the policy learns, never a
target. This is the action-side counterpart of sharing weights across permuted inputs (a
pointer-style head, as in Vinyals et al. 2015's pointer networks, scoring each choice from its own
features).
"""

from __future__ import annotations

from typing import Any, cast

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT
from miaui_env.games.octopus.odds import ODDS_NAMES, OctopusOddsFeatures
from miaui_env.games.octopus.rules import NUM_ACTIONS, InvalidConfigError

FLIP_ACTION, FIRST_THEFT = 1, 3
ODDS_GAIN = 100.0  # the head's odds in points * 10 (the features hold points / 10): see the module docstring
EDGE_NAMES = ("flip_edge", "octopus_edge", "rival_octopus_edge")  # what the flip reads
THEFT_NAMES = ("theft_ev", "rival_theft_ev")  # per theft action a, `{name}_{a}`
_THEFTS = range(FIRST_THEFT, NUM_ACTIONS)


def _columns(names: list[str]) -> list[int]:
    """The columns of `OctopusOddsFeatures`' output (the observation, then the odds) that hold `names`."""
    return [OBSERVATION_LAYOUT.size + ODDS_NAMES.index(name) for name in names]


EDGE_COLUMNS = _columns(list(EDGE_NAMES))
THEFT_COLUMNS = [_columns([f"{name}_{a}" for a in _THEFTS]) for name in THEFT_NAMES]  # (2, 9)


class CarryActionOdds(nn.Module):
    """SB3's MLP extractor, whose actor latent carries the actions' odds after it (for `ActionOddsHead`)."""

    columns: torch.Tensor

    def __init__(self, inner: MlpExtractor):
        super().__init__()
        self.inner = inner
        self.latent_dim_pi, self.latent_dim_vf = inner.latent_dim_pi, inner.latent_dim_vf
        self.register_buffer("columns", torch.tensor(EDGE_COLUMNS + [c for columns in THEFT_COLUMNS for c in columns]), persistent=False)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(the actor's latent and the actions' odds, the critic's latent)."""
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The actor's latent, then the 3 + 2 * 9 odds the head reads."""
        latent: torch.Tensor = self.inner.forward_actor(features)
        return torch.cat([latent, features[:, self.columns]], dim=-1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The critic's latent, as SB3's."""
        latent: torch.Tensor = self.inner.forward_critic(features)
        return latent


class ActionOddsHead(nn.Module):
    """The action logits: SB3's linear head on the latent, plus each action's odds times shared weights."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.linear = linear
        self.edge_weights = nn.Parameter(torch.zeros(len(EDGE_NAMES)))
        self.theft_weights = nn.Parameter(torch.zeros(len(THEFT_NAMES)))

    def forward(self, latent_and_odds: torch.Tensor) -> torch.Tensor:
        """Logits (batch, 12) from `CarryActionOdds.forward_actor`'s output."""
        latent_size = self.linear.in_features
        latent, odds = latent_and_odds[:, :latent_size], latent_and_odds[:, latent_size:] * ODDS_GAIN
        edges, thefts = odds[:, : len(EDGE_NAMES)], odds[:, len(EDGE_NAMES) :].reshape(-1, len(THEFT_NAMES), len(_THEFTS))
        bonus = torch.zeros(latent.shape[0], NUM_ACTIONS, dtype=latent.dtype, device=latent.device)
        bonus[:, FLIP_ACTION] = edges @ self.edge_weights
        bonus[:, FIRST_THEFT:] = torch.einsum("bnt,n->bt", thefts, self.theft_weights)
        logits: torch.Tensor = self.linear(latent) + bonus
        return logits


class OctopusActionOddsPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy on `OctopusOddsFeatures`, whose actions read their own odds (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any):
        extractor = kwargs.get("features_extractor_class")
        if extractor is not OctopusOddsFeatures:
            raise InvalidConfigError(
                f"OctopusActionOddsPolicy reads the odds OctopusOddsFeatures computes; its features_extractor_class "
                f"is {getattr(extractor, '__name__', extractor)!r}: set features_extractor_class: OctopusOddsFeatures"
            )
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Schedule) -> None:
        """SB3's networks, then the actor's latent carrying the odds and the head reading them; the optimizer
        is made again so that it holds the head's weights."""
        super()._build(lr_schedule)
        self.mlp_extractor = CarryActionOdds(self.mlp_extractor)  # type: ignore[assignment]  # an MlpExtractor, odds carried
        self.action_net = ActionOddsHead(cast(nn.Linear, self.action_net))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]


__all__ = ["ActionOddsHead", "CarryActionOdds", "OctopusActionOddsPolicy"]
