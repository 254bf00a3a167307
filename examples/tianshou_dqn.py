"""Tianshou 2: a DQN seat against three masked-random seats, Tianshou's own multi-agent recipe
(its tic-tac-toe example) with the env changed: `PettingZooEnv(miaui_env.env())`.

Tianshou's `PettingZooEnv` reads the mask from `observation["action_mask"]`; its `Batch` stacks
the env's infos step after step, which works because every info holds the same keys and one
value each, from reset to the game's end.

    python examples/tianshou_dqn.py --steps 20000 --seed 0
"""

from __future__ import annotations

import argparse
import logging

import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

import miaui_env


def make_env() -> PettingZooEnv:
    """The AEC env, wrapped as Tianshou wraps any PettingZoo env."""
    return PettingZooEnv(miaui_env.env(num_players=4))


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Collect --steps env steps, updating the DQN seat as we go; returns the steps, the games and the seat's last loss."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    # Tianshou's episode statistics note, every collect, that a multi-agent return has one entry per seat
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)

    env = make_env()
    observation_shape = env.observation_space["observation"].shape
    net = Net(state_shape=observation_shape, action_shape=env.action_space.n, hidden_sizes=[128, 128])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.99,
        n_step_return_horizon=1,
        target_update_freq=100,
    )
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(3)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)

    train_envs = DummyVectorEnv([make_env for _ in range(4)])
    train_envs.seed(args.seed)
    collector = Collector(algorithm, train_envs, VectorReplayBuffer(20_000, len(train_envs)), exploration_noise=True)
    collector.reset()
    games, collected, loss = 0, 0, float("nan")
    while collected < args.steps:
        stats = collector.collect(n_step=256)
        collected += stats.n_collected_steps
        games += stats.n_collected_episodes
        with policy_within_training_step(algorithm.policy), torch_train_mode(algorithm):
            update = algorithm.update(sample_size=64, buffer=collector.buffer)
        loss = update.get_loss_stats_dict()["player_0/loss"]  # the random seats learn nothing and report no loss
    summary = {"steps": float(collected), "games": float(games), "loss": float(loss)}
    print(f"Tianshou DQN seat: {collected} agent steps, {games} games, last loss {loss:.4f}")
    return summary


if __name__ == "__main__":
    main()
