"""Exact exploitability on a small variant: NashConv and each seat's best-response gain, computed by
OpenSpiel's exact best responses over the whole game tree, for agents and for an MCCFR solution.

    python -m training.exact --species 2 --values 12 --octopuses 1            # the five-card octopus variant
    python -m training.exact --species 3 --values 12 --octopuses 0 --agents random cautious --mccfr-iterations 10000
    python -m training.exact --species 2 --values 12 --octopuses 1 --yardstick-steps 300000   # and the yardstick's share

The game is the octopus game's small variant (`miaui_env.octopus.rules.Variant`, rulings OV1-OV3)
loaded in OpenSpiel (`python_octopus` with `species`, `values`, `octopuses`, `target`) and played
for one session (`max_sessions=1`: the tree is finite). Every seat plays the same policy; a seat's
best-response gain is what a player who knows that policy (and nothing of the deck's order) wins
above it in that seat, as a win share: the exact counterpart of the yardstick
(`python -m training.exact` is exact, `python -m training.exploit` is a trained lower bound). NashConv is the
sum of the seats' gains; 0 is a Nash equilibrium (Johanson et al. 2011; Lanctot et al. 2017).

Agents are any octopus agent spec (`load_octopus_agent`), shown the view they play from. The
built-in heuristics are deterministic: one legal action a state, probability 1; `random` is the
uniform policy over the legal actions; a trained policy plays its most likely action (`@sample`, a
mixed strategy, is refused). The MCCFR row is OpenSpiel's external-sampling Monte Carlo CFR
(Lanctot et al. 2009) run for `--mccfr-seconds` of CPU time, or `--mccfr-iterations` (seeded and
repeatable), on the same game, its average policy measured the same way. With `--yardstick-steps`,
each agent also meets the yardstick's best response (`trained_gains`), measured exactly: the share
of the exact gain it finds is how tight `training.exploit`'s lower bound is. Written to `--out`
(default results/exact/<variant>/): exact.json and exact.md (the table).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.agents import RandomAgent
from miaui_env.agents.loading import AgentSpecError
from miaui_env.apps.cli import check_writable, distinct, non_negative_int, positive_int, run_command
from miaui_env.apps.files import atomic_write
from miaui_env.games import get_game
from miaui_env.octopus import observation as octopus_observation
from miaui_env.octopus import rules as octopus

AGENTS = ("random", "cautious", "risk-aware", "theft-aware", "rival-aware")


@dataclass(frozen=True)
class ExactConfig:
    """One measurement: the variant, the table, the agents and the MCCFR budget."""

    variant: octopus.Variant
    """The small variant (its target matters little: the game is one session)."""
    players: int = 2
    """Seats at the table."""
    agents: tuple[str, ...] = AGENTS
    """Octopus agent specs, each measured playing every seat."""
    mccfr_seconds: float = 60.0
    """CPU seconds of external-sampling MCCFR (0: no MCCFR row), unless `mccfr_iterations` is given."""
    mccfr_iterations: int = 0
    """Iterations of MCCFR instead of a time budget (a seeded, repeatable row; 0: the time budget)."""
    seed: int = 0
    """MCCFR's sampling seed, and the trained best responses' seed."""
    yardstick_steps: int = 0
    """PPO steps of a trained best response to each agent, with the yardstick's settings (0: none)."""


def spiel_game(config: ExactConfig) -> Any:
    """The variant as an OpenSpiel game, one session long, rewarded by wins."""
    import pyspiel

    import miaui_env.integrations.openspiel  # noqa: F401  (registers python_octopus)

    v = config.variant
    digits = int("".join(map(str, v.values)))
    params = {"players": config.players, "species": v.species, "values": digits, "octopuses": v.octopuses, "target": v.target}
    return pyspiel.load_game("python_octopus", {**params, "max_sessions": 1, "reward": "win"})


def agent_policy(game: Any, spec: str | Any) -> Any:
    """The octopus agent `spec` (a spec, or an agent) as an OpenSpiel policy: its action at each
    decision, with probability 1 (the uniform policy over the legal actions for the random agent)."""
    from open_spiel.python import policy

    agent = get_game("octopus").load_agent(spec, seed=0) if isinstance(spec, str) else spec
    if getattr(agent, "deterministic", True) is False:
        name = getattr(agent, "name", spec)
        raise AgentSpecError(f"{name} plays a mixed strategy: measure it as it plays its most likely action (@best)")

    class AgentPolicy(policy.Policy):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
            legal = state.legal_actions()
            if isinstance(agent, RandomAgent):
                return dict.fromkeys(legal, 1.0 / len(legal))
            seat = state.current_player()
            seen = octopus_observation.observe(state.state, seat, getattr(agent, "view", "table"))
            mask = octopus.action_mask(state.state)
            action = int(np.asarray(agent.act(seen[None, :], mask[None, :])).reshape(-1)[0])
            return {action: 1.0}

    return AgentPolicy(game, list(range(game.num_players())))


@dataclass(frozen=True)
class Row:
    """One policy's exact figures."""

    name: str
    nash_conv: float
    gains: tuple[float, ...]
    """Each seat's best-response gain in win share."""
    values: tuple[float, ...]
    """Each seat's win share when every seat plays the policy."""
    seconds: float
    trained_gains: tuple[float, ...] | None = None
    """Each seat's exact gain of the yardstick's trained best response (None: not trained)."""

    @property
    def found(self) -> float | None:
        """The share of the exact best response's gain that the trained one finds (mean over seats)."""
        if self.trained_gains is None or sum(self.gains) <= 0:
            return None
        return sum(self.trained_gains) / sum(self.gains)


def trained_gains(game: Any, config: ExactConfig, spec: str, profile: Any, values: Sequence[float]) -> tuple[float, ...]:
    """The yardstick's best response to `spec`, trained as `training.exploit` trains one (configs/yardstick.yaml's
    PPO from new weights, the recall view, every seat of its own games against the agent in the others),
    then measured exactly: in each seat, its win share against the agent less the agent's own there."""
    from open_spiel.python.algorithms import expected_game_score

    from miaui_env.agents.policy import PolicyAgent
    from miaui_env.integrations.octopus_selfplay import OctopusSelfPlayVecEnv
    from training.exploit import VIEW, default_ppo
    from training.hardware import torch_threads
    from training.ppo import new_learner, ppo_kwargs

    target = get_game("octopus").load_agent(spec, seed=config.seed)
    venv = OctopusSelfPlayVecEnv(
        256, num_players=config.players, opponent=target, view=VIEW, reward="win", max_sessions=1, variant=config.variant, seed=config.seed
    )
    model = new_learner(venv, ppo_kwargs(default_ppo()), config.seed)
    with torch_threads(1):  # as the yardstick trains (training/hardware.py)
        model.learn(config.yardstick_steps)
    learner = agent_policy(game, PolicyAgent(model, "best response", view=VIEW))
    gains = []
    for seat in range(config.players):
        seated = [learner if s == seat else profile for s in range(config.players)]
        gains.append(float(expected_game_score.policy_value(game.new_initial_state(), seated)[seat]) - values[seat])
    return tuple(gains)


def measure(game: Any, name: str, profile: Any) -> Row:
    """NashConv and the seats' gains of `profile` (every seat), by exact best responses."""
    from open_spiel.python.algorithms import expected_game_score, exploitability

    start = time.process_time()
    result = exploitability.nash_conv(game, profile, return_only_nash_conv=False)
    gains = tuple(float(g) for g in result.player_improvements)
    values = expected_game_score.policy_value(game.new_initial_state(), [profile] * game.num_players())
    return Row(name, float(result.nash_conv), gains, tuple(float(v) for v in values), time.process_time() - start)


def mccfr_row(game: Any, seconds: float, seed: int, iterations: int = 0) -> tuple[Row, int]:
    """External-sampling MCCFR for `iterations` (or, with 0, `seconds` of CPU time), its average policy
    measured; and the iterations it ran."""
    from open_spiel.python.algorithms import external_sampling_mccfr

    np.random.seed(seed)  # OpenSpiel's MCCFR samples with numpy's global generator
    solver = external_sampling_mccfr.ExternalSamplingSolver(game, external_sampling_mccfr.AverageType.SIMPLE)
    start, done = time.process_time(), 0
    while (done < iterations) if iterations else (time.process_time() - start < seconds):
        solver.iteration()
        done += 1
    spent = time.process_time() - start
    row = measure(game, f"MCCFR ({done:,} iterations, {spent:.0f} s)", solver.average_policy())
    return row, done


def run(config: ExactConfig, out: Path | None) -> list[Row]:
    """Every agent's row, then MCCFR's; each printed as it is done, the table written to `out`."""
    game = spiel_game(config)
    rows = []
    profiles = [agent_policy(game, spec) for spec in config.agents]  # every spec loaded (or refused) before any work
    for spec, profile in zip(config.agents, profiles, strict=True):
        row = measure(game, spec, profile)
        if config.yardstick_steps > 0:
            row = dataclasses.replace(row, trained_gains=trained_gains(game, config, spec, profile, row.values))
        rows.append(row)
        print(_line(rows[-1]), flush=True)
    if config.mccfr_seconds > 0 or config.mccfr_iterations > 0:
        row, _ = mccfr_row(game, config.mccfr_seconds, config.seed, config.mccfr_iterations)
        rows.append(row)
        print(_line(row), flush=True)
    if out is not None:
        check_writable(out)
        record = {"variant": str(config.variant), "players": config.players, "seed": config.seed, "rows": [vars(r) for r in rows]}
        atomic_write(out / "exact.json", json.dumps(record, indent=2, default=list) + "\n")
        atomic_write(out / "exact.md", table(config, rows))
    return rows


def _line(row: Row) -> str:
    gains = " ".join(f"{g:+.3f}" for g in row.gains)
    trained = "" if row.trained_gains is None else "  yardstick " + " ".join(f"{g:+.3f}" for g in row.trained_gains)
    found = "" if row.found is None else f" ({row.found:.0%} of the exact gain)"
    return f"{row.name:40s} NashConv {row.nash_conv:.4f}  gains by seat {gains}{trained}{found}  ({row.seconds:.0f} s)"


def table(config: ExactConfig, rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    seats = " | ".join(f"seat {s} gain" for s in range(config.players))
    yardstick = config.yardstick_steps > 0
    extra = f" | yardstick's gain ({config.yardstick_steps:,} steps) | share found" if yardstick else ""
    lines = [f"{config.variant}, {config.players} players, one session", "", f"| policy | NashConv | {seats}{extra} | seconds |"]
    lines.append("|---" * (3 + config.players + 2 * yardstick) + "|")
    for row in rows:
        gains = " | ".join(f"{g:+.4f}" for g in row.gains)
        if yardstick:
            trained = "n/a" if row.trained_gains is None else f"{sum(row.trained_gains) / len(row.trained_gains):+.4f}"
            found = "n/a" if row.found is None else f"{row.found:.0%}"
            gains += f" | {trained} | {found}"
        lines.append(f"| {row.name} | {row.nash_conv:.4f} | {gains} | {row.seconds:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """The command line: one variant, its agents and MCCFR."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--species", type=positive_int, default=2, help="species in play (1-10)")
    parser.add_argument("--values", default="12", help="each species' fish values, as digits: a part of 112234 (default 12)")
    parser.add_argument("--octopuses", type=non_negative_int, default=1, help="octopuses in play (0-6)")
    parser.add_argument("--target", type=positive_int, default=1, help="the target (the game is one session long)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--agents", nargs="*", default=list(AGENTS), help="octopus agent specs (default: the five heuristics)")
    parser.add_argument("--mccfr-seconds", type=float, default=60.0, help="CPU seconds of MCCFR (0: none)")
    parser.add_argument("--mccfr-iterations", type=non_negative_int, default=0, help="iterations of MCCFR instead (repeatable)")
    parser.add_argument(
        "--yardstick-steps", type=non_negative_int, default=0, help="train the yardstick's best response to each agent this long (0: none)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for exact.json and exact.md (default results/exact/<variant>)")
    args = parser.parse_args(argv)
    distinct(parser, "--agents", args.agents)
    if not args.values.isdigit():
        parser.error(f"--values {args.values!r}: fish values as digits, a part of 112234 (e.g. 12)")
    if not 0 <= args.mccfr_seconds <= 86_400:
        parser.error(f"--mccfr-seconds {args.mccfr_seconds}: from 0 to 86400")

    def exact() -> None:
        variant = octopus.Variant(args.species, tuple(int(v) for v in args.values), args.octopuses, args.target)
        name = f"octopus-{variant.species}x{''.join(map(str, variant.values))}-{variant.octopuses}oct-{args.players}p"
        config = ExactConfig(
            variant,
            players=args.players,
            agents=tuple(args.agents),
            mccfr_seconds=args.mccfr_seconds,
            mccfr_iterations=args.mccfr_iterations,
            seed=args.seed,
            yardstick_steps=args.yardstick_steps,
        )
        run(config, args.out or Path("results") / "exact" / name)

    run_command(parser.prog, exact)


if __name__ == "__main__":
    main()
