"""Decisions/s of the octopus heuristics (risk-aware, theft-aware, rival-aware: `miaui_env.games.octopus.agents`,
compiled kernels) next to the straightforward numpy version they replaced (tests/octopus_reference_agents.py,
the reference tests/test_octopus_agents_fast.py holds them to), in the same run, on the same decisions.

1. The agents alone: every decision of recorded games (recall view, 2, 3 and 4 players in turn, seats
   played by the heuristics and the random player, so collections grow large enough for sampled theft
   expectations too), decided in batches of `--batch` rows, cycling through them for `--seconds`: each
   agent, then its reference seeded alike. Decisions/s, the ratio, and whether both chose the same
   actions on every batch both decided (they must: the same actions, drawing the same random numbers).
2. The octopus self-play VecEnv (`--selfplay-games` games, 3 players, recall view, random learner
   actions) with each heuristic as every opponent, compiled then reference: learner decisions/s and the
   ratio (the engine, the observations and the learner's rows cost the same in both).
Usage: python benchmarks/octopus_agents_speed.py [--seconds 3] [--games 30] [--batch 32] [--selfplay-games 32]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core.agents import RandomAgent
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.agents import RiskAwareAgent, RivalAwareAgent, TheftAwareAgent
from miaui_env.games.octopus.observation import observe
from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv

TESTS = Path(__file__).resolve().parent.parent / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
from octopus_reference_agents import REFERENCE_AGENTS  # noqa: E402  (the reference lives with the tests)

AGENTS: dict[str, Callable[[int], Any]] = {
    RiskAwareAgent.name: RiskAwareAgent,
    TheftAwareAgent.name: TheftAwareAgent,
    RivalAwareAgent.name: RivalAwareAgent,
}


def record(games: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every decision (recall-view observation, mask) of `games` games of 2, 3 and 4 players in turn."""
    picker = np.random.default_rng(seed)
    players: list[Any] = [RandomAgent(seed), *(make(seed) for make in AGENTS.values())]
    rows, masks = [], []
    for game in range(games):
        state = rules.new_game(2 + game % 3, seed=seed + game)
        seated = [players[int(i)] for i in picker.integers(0, len(players), state.num_players)]
        while not state.is_over:
            row, mask = observe(state, state.active, "recall"), rules.action_mask(state)
            rows.append(row)
            masks.append(mask)
            action = int(seated[state.active].act(row[None], mask[None])[0])
            rules.step(state, rules.decision_of(state, action))
    return np.array(rows), np.array(masks)


def agent_speed(agent: Any, rows: np.ndarray, masks: np.ndarray, batch: int, seconds: float) -> tuple[float, list[np.ndarray]]:
    """Decisions/s of `agent` deciding `rows` in batches of `batch`, in order and again, for `seconds`; its actions per batch."""
    starts = range(0, len(rows), batch)
    chosen: list[np.ndarray] = []
    decisions, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        for start in starts:
            chosen.append(agent.act(rows[start : start + batch], masks[start : start + batch]))
            decisions += len(chosen[-1])
            if time.perf_counter() - began >= seconds:
                break
    return decisions / (time.perf_counter() - began), chosen


def compare(name: str, rows: np.ndarray, masks: np.ndarray, batch: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    """The compiled agent `name` and its reference on the same decisions: speeds, ratio, same actions."""
    AGENTS[name](seed).act(rows[:batch], masks[:batch])  # the kernels' first call (loading or compiling them)
    speed, chosen = agent_speed(AGENTS[name](seed), rows, masks, batch, seconds)
    reference_speed, reference_chosen = agent_speed(REFERENCE_AGENTS[name](seed), rows, masks, batch, seconds)
    same = all(np.array_equal(a, b) for a, b in zip(chosen, reference_chosen, strict=False))
    return {"speed": speed, "reference": reference_speed, "ratio": speed / reference_speed, "same": same}


def selfplay_speed(agent: Any, games: int, seconds: float) -> float:
    """Learner decisions/s of the self-play VecEnv at 3 players, recall view, `agent` at every opponent seat,
    random legal learner actions (as benchmarks/octopus_selfplay_speed.py plays them)."""
    venv = OctopusSelfPlayVecEnv(games, num_players=3, seed=0, opponent=agent, view="recall")
    rng = np.random.default_rng(0)
    venv.reset()
    speed = 0.0
    for wall in (min(0.5, seconds), seconds):  # the first stretch is past the first games' start-up
        steps, began = 0, time.perf_counter()
        while time.perf_counter() - began < wall:
            masks = venv.action_masks()
            venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
            steps += 1
        speed = steps * venv.num_envs / (time.perf_counter() - began)
    return speed


def main() -> None:
    """Measure and print both tables."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per measurement")
    parser.add_argument("--games", type=int, default=30, help="games recorded for the agents alone")
    parser.add_argument("--batch", type=int, default=32, help="rows per act() call (the VecEnv's are its waiting games)")
    parser.add_argument("--selfplay-games", type=int, default=32, help="games of the self-play VecEnv (0: skip it)")
    args = parser.parse_args()

    rows, masks = record(args.games)
    print(f"the agents alone: {len(rows):,} decisions of {args.games} recorded games (2-4 players, recall view), batches of {args.batch}")
    for name in AGENTS:
        found = compare(name, rows, masks, args.batch, args.seconds)
        print(
            f"  {name:12s} compiled {found['speed']:9,.0f} decisions/s   reference {found['reference']:7,.0f}/s   "
            f"ratio {found['ratio']:6.1f}x   same actions: {'yes' if found['same'] else 'NO'}"
        )
    if args.selfplay_games:
        games = args.selfplay_games
        print(f"the self-play VecEnv: {games} games, 3 players, recall view, random learner actions, the heuristic at every opponent seat")
        for name in AGENTS:
            speed = selfplay_speed(AGENTS[name](0), games, args.seconds)
            reference = selfplay_speed(REFERENCE_AGENTS[name](0), games, args.seconds)
            print(
                f"  {name:12s} compiled {speed:9,.0f} learner decisions/s   reference {reference:7,.0f}/s   ratio {speed / reference:6.1f}x"
            )


if __name__ == "__main__":
    main()
