"""CleanRL-style single-file PPO with invalid-action masking, on one seat of Miaui.

CleanRL's `ppo.py` (Huang et al. 2022, "The 37 implementation details of PPO") with the one change
masked games need (Huang & Ontañón 2022, "A closer look at invalid action masking"): the logits of
illegal cards are set to -1e8 before sampling and in the update. The masks come from
`info["action_mask"]`, which the env gives at every step, also right after a game ends (Gymnasium's
next-step autoreset then steps a finished env with an action it ignores, and its mask allows every
card).

    python examples/cleanrl_ppo_masks.py --total-timesteps 50000 --seed 1
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import miaui_env.envs  # noqa: F401  (registers miaui_env/Miaui-v0 with Gymnasium)


class Agent(nn.Module):
    """Separate actor and critic MLPs, orthogonally initialised as in CleanRL."""

    def __init__(self, observations: int, actions: int):
        super().__init__()

        def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
            linear = nn.Linear(inputs, outputs)
            nn.init.orthogonal_(linear.weight, std)
            nn.init.constant_(linear.bias, 0.0)
            return linear

        self.critic = nn.Sequential(layer(observations, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, 1, 1.0))
        self.actor = nn.Sequential(layer(observations, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, actions, 0.01))

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """A card (sampled unless given), its log-probability, the entropy and the value."""
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        distribution = Categorical(logits=logits)
        action = distribution.sample() if action is None else action
        return action, distribution.log_prob(action), distribution.entropy(), self.critic(x).squeeze(-1)


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train; returns the steps taken, the games finished, their mean return and the last minibatch's loss."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--total-timesteps", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-steps", type=int, default=64)
    args = parser.parse_args(argv)
    if args.total_timesteps < args.num_envs * args.num_steps:
        rollout = args.num_envs * args.num_steps
        parser.error(f"--total-timesteps {args.total_timesteps} is less than one rollout: --num-envs x --num-steps = {rollout}")
    gamma, lam, clip, epochs, minibatches, lr = 0.99, 0.95, 0.2, 4, 4, 2.5e-4
    torch.manual_seed(args.seed)

    envs = gym.vector.SyncVectorEnv([lambda: gym.make("miaui_env/Miaui-v0", num_players=4) for _ in range(args.num_envs)])
    agent = Agent(int(np.prod(envs.single_observation_space.shape)), int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
    shape = (args.num_steps, args.num_envs)
    obs_buffer = torch.zeros(shape + envs.single_observation_space.shape)
    mask_buffer = torch.zeros((*shape, int(envs.single_action_space.n)), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(5))

    observation, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.tensor(observation), torch.tensor(info["action_mask"], dtype=torch.bool)
    next_done, global_step, finished = torch.zeros(args.num_envs), 0, []
    episode_return = np.zeros(args.num_envs)
    for _ in range(args.total_timesteps // (args.num_envs * args.num_steps)):
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs_buffer[step], mask_buffer[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            observation, reward, terminated, truncated, info = envs.step(action.numpy())
            done = np.logical_or(terminated, truncated)
            rewards[step] = torch.tensor(reward, dtype=torch.float32)
            episode_return += reward
            finished.extend(episode_return[done])
            episode_return[done] = 0.0
            next_obs, next_done = torch.tensor(observation), torch.tensor(done, dtype=torch.float32)
            next_mask = torch.tensor(info["action_mask"], dtype=torch.bool)
        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.critic(next_obs).squeeze(-1)
            advantages, last = torch.zeros(shape), torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + gamma * following * nonterminal - values[t]
                advantages[t] = last = delta + gamma * lam * nonterminal * last
            returns = advantages + values
        flat = lambda tensor: tensor.reshape(-1, *tensor.shape[2:])  # noqa: E731
        b_obs, b_masks, b_actions, b_logprobs = flat(obs_buffer), flat(mask_buffer), flat(actions), flat(logprobs)
        b_advantages, b_returns = flat(advantages), flat(returns)
        batch = b_obs.shape[0]
        for _ in range(epochs):
            order = torch.randperm(batch)
            for start in range(0, batch, batch // minibatches):
                index = order[start : start + batch // minibatches]
                _, logprob, entropy, value = agent.act(b_obs[index], b_masks[index], b_actions[index].long())
                ratio = (logprob - b_logprobs[index]).exp()
                advantage = b_advantages[index]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(-advantage * ratio, -advantage * ratio.clamp(1 - clip, 1 + clip)).mean()
                loss = policy_loss + 0.5 * ((value - b_returns[index]) ** 2).mean() - 0.01 * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
    envs.close()
    summary = {
        "steps": float(global_step),
        "games": float(len(finished)),
        "mean_return": float(np.mean(finished[-200:])),
        "loss": float(loss.item()),
    }
    print(f"PPO with masks: {global_step} steps, {len(finished)} games, mean win share of the last 200: {summary['mean_return']:.2f}")
    return summary


if __name__ == "__main__":
    main()
