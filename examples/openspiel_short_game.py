"""OpenSpiel's CFR and NFSP on a short Miaui game, each measured by its exact NashConv.

A short game (rulings MV1-MV3) deals hands of diver cards 1..rounds from a deck of 3 x rounds + 1
fish; at 2 or 3 rounds its whole tree fits OpenSpiel's exact tools. The rounds are turned into turns
(`pyspiel.convert_to_turn_based`: no seat sees another's card before the reveal), then:

- **CFR** (Zinkevich et al. 2007, OpenSpiel's `cfr.CFRSolver`): full-width counterfactual regret
  minimisation over every information state; its average policy converges to an equilibrium.
- **NFSP** (Heinrich & Silver 2016, OpenSpiel's PyTorch `nfsp.NFSP`, one learner a seat): a DQN best
  response and a supervised average policy, trained from sampled games on the information-state
  tensor (every round's 620-number table-view observation, as the AEC env shows it).

Each average policy is measured by its exact NashConv (`exploitability.nash_conv`: the sum of what
each seat's exact best response gains, in win share; 0 is an equilibrium), beside the uniform
policy's. `python -m training.exact --game miaui` gives the same figures for the project's agents.

    python examples/openspiel_short_game.py                            # 2 rounds: seconds
    python examples/openspiel_short_game.py --rounds 3 --deck "emperor_tuna:10*6 jellyfish:-10*4" --cfr-iterations 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
import torch
from open_spiel.python import policy, rl_environment
from open_spiel.python.algorithms import cfr, exploitability
from open_spiel.python.pytorch import nfsp

import miaui_env.integrations.openspiel  # noqa: F401  (registers python_miaui with OpenSpiel)


class AveragePolicies(policy.Policy):  # type: ignore[misc]
    """The NFSP learners' average policies, one a seat, as one OpenSpiel policy."""

    def __init__(self, game, learners):
        super().__init__(game, list(range(game.num_players())))
        self.learners = learners

    def action_probabilities(self, state, player_id=None):
        """The seat's average-policy network, over its legal actions."""
        seat, legal = state.current_player(), state.legal_actions()
        observations = {"info_state": [None] * self.game.num_players(), "legal_actions": [None] * self.game.num_players()}
        observations["info_state"][seat], observations["legal_actions"][seat] = state.information_state_tensor(seat), legal
        observations["current_player"] = seat
        step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None, step_type=None)
        with self.learners[seat].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
            probabilities = self.learners[seat].step(step, is_evaluation=True).probs
        return {action: float(probabilities[action]) for action in legal}


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run CFR and NFSP on the short game; returns each one's NashConv (and the uniform policy's)."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=3, choices=(3, 4, 5, 6))
    parser.add_argument("--rounds", type=int, default=2, help="rounds, and diver cards 1..rounds a hand (MV1)")
    parser.add_argument("--deck", default="emperor_tuna:10*4 jellyfish:-10*3", help="3 x rounds + 1 fish, kind:value[*count] (MV2)")
    parser.add_argument("--cfr-iterations", type=int, default=20, help="CFR iterations (at least 1)")
    parser.add_argument("--nfsp-episodes", type=int, default=3000, help="NFSP training games (at least 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for option, value in (("--cfr-iterations", args.cfr_iterations), ("--nfsp-episodes", args.nfsp_episodes)):
        if value < 1:
            parser.error(f"{option} {value}: at least 1")
    np.random.seed(args.seed)  # OpenSpiel's NFSP samples its modes and reservoir with numpy's global generator
    torch.manual_seed(args.seed)
    params = {"players": args.players, "rounds": args.rounds, "deck": args.deck}
    try:
        game = pyspiel.convert_to_turn_based(pyspiel.load_game("python_miaui", params))
    except ValueError as error:  # the bridge names the bad rounds or deck (MV1-MV2)
        parser.error(f"--players {args.players} --rounds {args.rounds} --deck {args.deck!r}: {error}")

    start = time.process_time()
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    print(f"uniform policy: NashConv {uniform:.4f} ({time.process_time() - start:.0f} s)", flush=True)

    start = time.process_time()
    solver = cfr.CFRSolver(game)
    for _ in range(args.cfr_iterations):
        solver.evaluate_and_update_policy()
    cfr_nash_conv = exploitability.nash_conv(game, solver.average_policy())
    print(f"CFR, {args.cfr_iterations} iterations: NashConv {cfr_nash_conv:.4f} ({time.process_time() - start:.0f} s)", flush=True)

    start = time.process_time()
    env = rl_environment.Environment(game, seed=args.seed)
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    learners = [
        nfsp.NFSP(
            seat,
            size,
            actions,
            [64],
            reservoir_buffer_capacity=20_000,
            anticipatory_param=0.1,
            batch_size=64,
            min_buffer_size_to_learn=200,
            learn_every=32,
            replay_buffer_capacity=20_000,
            epsilon_decay_duration=args.nfsp_episodes,
            seed=args.seed + 10 * seat,
        )
        for seat in range(game.num_players())
    ]
    for _ in range(args.nfsp_episodes):
        time_step = env.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            time_step = env.step([learners[seat].step(time_step).action])
        for learner in learners:
            learner.step(time_step)
    nfsp_nash_conv = exploitability.nash_conv(game, AveragePolicies(game, learners))
    print(f"NFSP, {args.nfsp_episodes} games: NashConv {nfsp_nash_conv:.4f} ({time.process_time() - start:.0f} s)", flush=True)
    return {"uniform": uniform, "cfr": cfr_nash_conv, "nfsp": nfsp_nash_conv}


if __name__ == "__main__":
    main()
