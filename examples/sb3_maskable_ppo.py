"""Stable-Baselines3: one seat of Miaui through `make_vec_env`, trained with sb3-contrib's MaskablePPO.

SB3's own recipe, with the env id changed: `make_vec_env` builds the registered Gymnasium env
(`miaui_env/Miaui-v0`, opponents random by default) and asks for `render_mode="rgb_array"`;
MaskablePPO reads each env's `action_masks()`.

    python examples/sb3_maskable_ppo.py --steps 20000 --seed 0
"""

from __future__ import annotations

import argparse

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import miaui_env.envs  # noqa: F401  (registers miaui_env/Miaui-v0 with Gymnasium)


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train for --steps, then play 20 games greedily.

    Returns the steps trained, the last update's loss and the mean return of those 20 games."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    envs = make_vec_env("miaui_env/Miaui-v0", n_envs=4, seed=args.seed, env_kwargs={"num_players": 4})
    model = MaskablePPO("MlpPolicy", envs, n_steps=256, batch_size=256, seed=args.seed, verbose=0)
    model.learn(args.steps)
    loss = model.logger.name_to_value["train/loss"]  # the last update's, still there: SB3 logs before each update

    returns, episode_return, observations = [], np.zeros(envs.num_envs), envs.reset()
    while len(returns) < 20:
        actions, _ = model.predict(observations, action_masks=np.stack(envs.env_method("action_masks")), deterministic=True)
        observations, rewards, dones, _ = envs.step(actions)
        episode_return += rewards
        returns.extend(episode_return[dones])
        episode_return[dones] = 0.0
    summary = {"steps": float(model.num_timesteps), "loss": float(loss), "mean_return": float(np.mean(returns))}
    print(f"MaskablePPO after {model.num_timesteps} steps: mean win share {summary['mean_return']:.2f} against 3 random seats")
    return summary


if __name__ == "__main__":
    main()
