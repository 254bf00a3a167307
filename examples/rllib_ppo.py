"""RLlib: the env through RLlib's own PettingZoo wrappers, `PettingZooEnv` (the AEC env, one seat
acting at a time) or `ParallelPettingZooEnv` (every seat at once), trained by PPO on the new API
stack with one shared, action-masked module (`training.rllib_module.MaskedPPOTorchRLModule`:
RLlib's default PPO networks with log(mask) added to the logits). `python -m training.rllib_selfplay`
is the full trainer; this is the recipe in a page.

    python examples/rllib_ppo.py --api parallel --iterations 2 --seed 0
"""

from __future__ import annotations

import argparse
import warnings

from training.rllib_module import MaskedPPOTorchRLModule


def aec_env(config: dict) -> object:
    """The AEC env in RLlib's `PettingZooEnv` (imports inside: RLlib ships this function to its workers)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    import miaui_env

    return PettingZooEnv(miaui_env.env(**config))


def parallel_env(config: dict) -> object:
    """The Parallel env in RLlib's `ParallelPettingZooEnv`."""
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    import miaui_env

    return ParallelPettingZooEnv(miaui_env.parallel_env(**config))


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Train for --iterations; returns the env steps sampled and the last iteration's mean episode
    return, summed over the seats (the win reward shares 1 among the winners, so it is 1)."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", choices=["aec", "parallel"], default="parallel")
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("miaui", aec_env if args.api == "aec" else parallel_env)
    config = (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment("miaui", env_config={"num_players": 4})
        .env_runners(num_env_runners=0, rollout_fragment_length=44)
        .training(train_batch_size_per_learner=352, minibatch_size=176, num_epochs=2)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(module_class=MaskedPPOTorchRLModule)}))
        .debugging(seed=args.seed)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        algorithm = config.build_algo()
        for _ in range(args.iterations):
            result = algorithm.train()
        algorithm.stop()
    finally:
        ray.shutdown()
    runners = result["env_runners"]
    summary = {
        "steps": float(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0))),
        "episode_return": float(runners.get("episode_return_mean", float("nan"))),
    }
    print(f"RLlib PPO on {'PettingZooEnv' if args.api == 'aec' else 'ParallelPettingZooEnv'}: {summary}")
    return summary


if __name__ == "__main__":
    main()
