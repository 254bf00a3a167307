"""TorchRL: the Parallel env through TorchRL's own `PettingZooWrapper`, played by a shared masked
policy network (TorchRL's multi-agent recipe: one MLP for the group, a `MaskedCategorical` over
each agent's legal cards).

The wrapper groups the four seats as `player` (tensors stacked by seat) and passes each seat's
`action_mask` on; nothing but the env constructor is Miaui's.

    python examples/torchrl_rollout.py --steps 4000 --seed 0
"""

from __future__ import annotations

import argparse
import warnings

import torch
from tensordict.nn import TensorDictModule
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

import miaui_env


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Roll the policy out for about --steps agent steps, in whole games of 44 (11 rounds of 4 seats).

    Returns the steps, the games and whether every card played was legal."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=4_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested using version")  # it works with 1.27 too

    env = PettingZooWrapper(env=miaui_env.parallel_env(num_players=4), use_mask=True, categorical_actions=True, seed=args.seed)
    group = next(iter(env.group_map))  # every seat in one group: "player"
    # The env's Dict observation arrives as (group, "observation", "observation"), its mask as (group, "action_mask")
    observation_size = env.observation_spec[group, "observation", "observation"].shape[-1]
    logits = TensorDictModule(
        MLP(in_features=observation_size, out_features=12, num_cells=[128, 128]),
        in_keys=[(group, "observation", "observation")],
        out_keys=[(group, "logits")],
    )
    policy = ProbabilisticActor(
        logits,
        in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
        out_keys=[(group, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    steps, games, legal = 0, 0, True
    for _ in range(max(1, args.steps // (4 * 11))):  # a game: 11 rounds of 4 seats
        rollout = env.rollout(11, policy=policy, break_when_any_done=True)
        actions, masks = rollout[group, "action"], rollout[group, "action_mask"]
        legal &= bool(masks.gather(-1, actions.unsqueeze(-1)).all())
        steps += actions.numel()
        games += int(rollout["next", group, "done"].any(dim=-2).sum())
    print(f"TorchRL rollout: {steps} agent steps, {games} games, every card legal: {legal}")
    return {"steps": float(steps), "games": float(games), "legal": float(legal)}


if __name__ == "__main__":
    main()
