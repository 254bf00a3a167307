"""OpenSpiel's own algorithms on Miaui: outcome-sampling MCCFR and independent DQN learners.

`import miaui_env.integrations.openspiel` registers `python_miaui` (and `python_octopus`) with
OpenSpiel; from there it is OpenSpiel's code, unchanged:

- **MCCFR** (outcome sampling, Lanctot et al. 2009) needs a sequential game, so the simultaneous
  rounds are turned into turns with `pyspiel.convert_to_turn_based`; it keys its regrets on the
  information-state strings (perfect recall: every round's lagoon as the seat saw it, every reveal).
- **DQN** learners (OpenSpiel's PyTorch DQN, one per seat) play through `rl_environment`, reading
  the observation tensor: the same 620 numbers the AEC env gives a seat.

Each is then played against uniform-random seats in sampled games. At this budget it is a check
that the pieces fit, not a strong player: full Miaui is far too large for tabular CFR. A short game
(rulings MV1-MV3) is not: examples/openspiel_short_game.py runs CFR and NFSP on one, measured by
their exact NashConv.

    python examples/openspiel_algorithms.py --iterations 200 --episodes 200 --seed 0
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import outcome_sampling_mccfr
from open_spiel.python.pytorch import dqn

import miaui_env.integrations.openspiel  # noqa: F401  (registers python_miaui with OpenSpiel)


def win_share_against_random(game, act, seat: int, games: int, rng: np.random.Generator) -> float:
    """`seat`'s mean return when `act(state)` plays it and the other seats play uniformly at random."""
    total = 0.0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=chances)))
            elif state.current_player() == seat:
                state.apply_action(act(state))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        total += state.returns()[seat]
    return total / games


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run MCCFR and DQN for the given budgets on 3-player Miaui; returns what each learnt and played."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=200, help="MCCFR iterations (one sampled game per seat each)")
    parser.add_argument("--episodes", type=int, default=200, help="DQN training games")
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    np.random.seed(args.seed)  # OpenSpiel's MCCFR samples with numpy's global generator
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("python_miaui", {"players": 3}))

    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(args.iterations):
        solver.iteration()
    average = solver.average_policy()

    def mccfr_act(state) -> int:
        probabilities = average.action_probabilities(state)
        actions = list(probabilities)
        return int(rng.choice(actions, p=np.array([probabilities[a] for a in actions]) / sum(probabilities.values())))

    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION, seed=args.seed)
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    learners = [
        dqn.DQN(seat, size, actions, hidden_layers_sizes=[128], min_buffer_size_to_learn=200, seed=args.seed + seat)
        for seat in range(game.num_players())
    ]
    for _ in range(args.episodes):
        time_step = env.reset()
        while not time_step.last():  # the seat to play picks its card with its own learner
            to_play = learners[time_step.observations["current_player"]]
            time_step = env.step([to_play.step(time_step).action])
        for learner in learners:  # the game's end: every learner sees its final reward
            learner.step(time_step)
    losses = [learner.loss for learner in learners if learner.loss is not None]

    def dqn_act(state) -> int:
        observation = state.observation_tensor(0)
        time_step = rl_environment.TimeStep(
            observations={"info_state": [observation] * 3, "legal_actions": [state.legal_actions()] * 3, "current_player": 0},
            rewards=None,
            discounts=None,
            step_type=rl_environment.StepType.MID,
        )
        return int(learners[0].step(time_step, is_evaluation=True).action)

    summary = {
        "mccfr_infostates": float(len(solver._infostates)),
        "mccfr_vs_random": win_share_against_random(game, mccfr_act, 0, args.eval_games, rng),
        "dqn_loss": float(losses[-1]) if losses else float("nan"),
        "dqn_vs_random": win_share_against_random(game, dqn_act, 0, args.eval_games, rng),
    }
    print(
        f"MCCFR, {args.iterations} iterations: {summary['mccfr_infostates']:.0f} information states, "
        f"win share {summary['mccfr_vs_random']:.2f} as player_0 against 2 random seats (fair share 0.33)"
    )
    print(f"DQN, {args.episodes} games a seat: last loss {summary['dqn_loss']:.4f}, win share {summary['dqn_vs_random']:.2f}")
    return summary


if __name__ == "__main__":
    main()
