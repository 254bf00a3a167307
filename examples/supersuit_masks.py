"""SuperSuit: the Parallel env vectorised by SuperSuit for Stable-Baselines3 (PettingZoo's own SB3
tutorial recipe), with the action masks kept: SuperSuit passes Box observations through and drops
everything else, so `MaskInObservation` carries each seat's mask at the end of its observation and
`ActionMasksFromObservation` hands it to MaskablePPO. Every seat is one env index: parameter
sharing, all four seats learning one policy.

    python examples/supersuit_masks.py --steps 20000 --seed 0
"""

from __future__ import annotations

import argparse

import numpy as np
import supersuit as ss
from sb3_contrib import MaskablePPO

import miaui_env
from miaui_env.integrations.adapters import MaskInObservation, split_mask
from miaui_env.integrations.sb3 import ActionMasksFromObservation


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train the shared policy for --steps; returns the steps, the last update's loss and whether every card it then plays is legal."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env = MaskInObservation(miaui_env.parallel_env(num_players=4))
    venv = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0, base_class="stable_baselines3")
    venv = ActionMasksFromObservation(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, seed=args.seed, verbose=0)
    model.learn(args.steps)
    loss = model.logger.name_to_value["train/loss"]  # the last update's, still there: SB3 logs before each update

    observations, legal = venv.reset(), True
    for _ in range(50):
        actions, _ = model.predict(observations, action_masks=venv.action_masks(), deterministic=True)
        legal &= bool(split_mask(observations)[1][np.arange(len(actions)), actions].all())
        observations, *_ = venv.step(actions)
    print(f"MaskablePPO on SuperSuit's vector env: {model.num_timesteps} steps; every card legal afterwards: {legal}")
    return {"steps": float(model.num_timesteps), "loss": float(loss), "legal": float(legal)}


if __name__ == "__main__":
    main()
