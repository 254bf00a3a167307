"""Opponents for self-play: frozen snapshots of the learner, a league that picks among them, and a
weighted mix with the baselines.

Against one fixed opponent PPO learns to beat that opponent and can forget the rest (strategy
cycling). So each episode every opponent seat is dealt to an agent drawn by weight: snapshots of
the learner taken during training (the pool) and the baseline agents. How the pool's share is
split among the snapshots is the run's self-play mode (`opponents.mode`):

- `latest`: no snapshots, the pool's share goes to the learner itself as it is now, playing its
  mixed strategy (latest-vs-latest, the simplest self-play; it can cycle between strategies);
- `mixture`: every snapshot alike (fictitious self-play over the pool's window);
- `league`: prioritized fictitious self-play (PFSP, AlphaStar: Vinyals et al. 2019): snapshot `i`
  gets weight `(1 - x_i)^p`, where `x_i` is the learner's recent win rate against it (`League`),
  so the learner meets most the past selves it still loses to, and rarely the ones it has beaten.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from miaui_env.core.agents import Agent, Policy, agent_name, as_policy, reset_agent
from miaui_env.core.checkpoint import CheckpointError
from miaui_env.core.files import MAX_FILE_BYTES, read_bounded, replacing
from miaui_env.core.policy import PolicyAgent

if TYPE_CHECKING:
    from miaui_env.core.selfplay import AECSelfPlayVecEnv
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
    from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv
    from training.config import OpponentsConfig

GameResult = tuple[list[str], float, int]
"""A finished game as a league counts it: the opponents' names at the table, the learner's win share 0-1, the seats."""


class OpponentMixture:
    """Deals the opponents of each game to one of its agents by weight, anew after every reset, so
    a batch of games meets a mix of opponents every episode.

    The rows it is asked about come game by game, `seats_per_game` at a time (as the self-play
    VecEnv asks). With `draw="game"` all the opponent seats of one game go to the same agent, so
    the learner meets whole tables of one kind, as the arena measures it (one against n-1 copies);
    with `draw="seat"` every opponent seat is drawn on its own (mixed tables).
    """

    name = "mixture"

    def __init__(
        self, agents: list[Agent | Policy], weights: list[float], rng: np.random.Generator, seats_per_game: int = 1, draw: str = "game"
    ):
        if draw not in DRAWS:
            raise ValueError(f"draw={draw!r} is not allowed; allowed: {', '.join(DRAWS)}")
        if not agents:
            raise ValueError("an opponent mixture needs at least one agent with a positive weight")
        self.agents, self.rng = agents, rng
        self.set_weights(weights)
        self.seats_per_game = seats_per_game if draw == "game" else 1
        self._assignment: np.ndarray | None = None

    def set_weights(self, weights: Sequence[float]) -> None:
        """Draw by these weights from the next episode on (one per agent, not all zero)."""
        total = float(sum(weights))
        if len(weights) != len(self.agents) or total <= 0 or min(weights) < 0:
            raise ValueError(f"an opponent mixture needs one weight >= 0 per agent, not all zero; got {weights!r}")
        self.weights = np.asarray(weights, dtype=np.float64) / total

    def reset(self) -> None:
        """New games: redraw who sits where, and reset every agent."""
        self._assignment = None
        for agent in self.agents:
            reset_agent(agent)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each row's card from the agent dealt that row."""
        rows = observations.shape[0]
        if self._assignment is None or self._assignment.size != rows:
            games = -(-rows // self.seats_per_game)
            per_game = self.rng.choice(len(self.agents), size=games, p=self.weights)
            self._assignment = np.repeat(per_game, self.seats_per_game)[:rows]
        actions = np.zeros(rows, dtype=np.int64)
        for index, agent in enumerate(self.agents):
            mine = self._assignment == index
            if mine.any():
                actions[mine] = as_policy(agent)(observations[mine], masks[mine])
        return actions

    def seated(self, rows: int) -> list[str]:
        """The name of the agent playing each of this episode's `rows` opponent rows."""
        if self._assignment is None or self._assignment.size != rows:
            return [self.name] * rows
        names = [agent_name(agent) for agent in self.agents]
        return [names[index] for index in self._assignment]


DRAWS = ("game", "seat")


class League:
    """Prioritized fictitious self-play's bookkeeping (PFSP, AlphaStar): the learner's recent win
    rate against each snapshot (or exploiter: every pool member `LEAGUE_PREFIXES` names), and the
    draw weight it gives that snapshot.

    Every finished game the learner played against a snapshot counts for it (a mixed table counts
    for each snapshot seated there). Old results fade by `decay` per episode's worth of games, since
    the learner they measured has moved on: per `record` of a whole episode where games end in
    lockstep (Miaui), by `decay ** (games / games_per_episode)` where they end apart (octopus).

    PFSP is defined for two players; at an n-seat table the learner's win share w is read as a
    two-player win rate x = w / (w + (1 - w) / (n - 1)), its share against one copy's (with table
    sizes mixed, 1/(n-1) is the games' mean fair share f over 1 - f): even play
    (w = 1/n) is x = 1/2 at every table size. A snapshot with few games is assumed even (`prior`
    games at x = 1/2) until its own results speak. Weight: `(1 - x)^exponent` (AlphaStar's
    f_hard), plus a floor so that no snapshot is ever dropped for good.
    """

    def __init__(self, exponent: float, decay: float = 0.98, prior: float = 8.0, floor: float = 0.02):
        self.exponent, self.decay, self.prior, self.floor = exponent, decay, prior, floor
        self.wins: dict[str, float] = {}  # decayed sums over the games against each snapshot: the learner's win share,
        self.games: dict[str, float] = {}  # the games,
        self.fair: dict[str, float] = {}  # and the fair share 1/n of each game's table

    def record(self, results: list[GameResult], games_per_episode: int | None = None) -> None:
        """Games that just ended: (opponent names at the table, the learner's win share 0-1, seats);
        one whole episode's, or `len(results)` of an episode of `games_per_episode` games."""
        fade = self.decay if games_per_episode is None else self.decay ** (len(results) / games_per_episode)
        for table in (self.wins, self.games, self.fair):
            for name in table:
                table[name] *= fade
        for names, won, seats in results:
            for name in set(names):
                if name.startswith(LEAGUE_PREFIXES):
                    self.wins[name] = self.wins.get(name, 0.0) + won
                    self.games[name] = self.games.get(name, 0.0) + 1.0
                    self.fair[name] = self.fair.get(name, 0.0) + 1.0 / seats

    def win_rate(self, name: str) -> float:
        """The learner's recent win rate against `name` as a two-player rate (1/2: even; see the class docstring)."""
        games = self.games.get(name, 0.0)
        if games <= 0:
            return 0.5
        share, fair = self.wins[name] / games, self.fair[name] / games
        against_one = (1.0 - share) * fair / (1.0 - fair)  # one snapshot copy's share of the wins
        rate = share / (share + against_one) if share + against_one > 0 else 0.5
        return (games * rate + self.prior * 0.5) / (games + self.prior)

    def weights(self, names: list[str]) -> list[float]:
        """PFSP draw weights of these snapshots, summing to 1."""
        raw = np.array([(1.0 - self.win_rate(name)) ** self.exponent for name in names]) + self.floor
        return list(raw / raw.sum()) if len(raw) else []

    def forget(self, keep: list[str]) -> None:
        """Drop the statistics of snapshots that left the pool."""
        for table in (self.wins, self.games, self.fair):
            for name in [name for name in table if name not in keep]:
                del table[name]

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps (league.json)."""
        return {"wins": dict(self.wins), "games": dict(self.games), "fair": dict(self.fair)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Carry on from a checkpoint's statistics (ValueError for statistics no league could have written)."""
        tables = []
        for key in ("wins", "games", "fair"):
            table = state.get(key) if isinstance(state, dict) else None
            if not isinstance(table, dict) or not all(isinstance(v, int | float) and 0 <= v < math.inf for v in table.values()):
                raise ValueError(f"league statistics: {key!r} must map snapshot names to numbers >= 0, got {table!r}")
            tables.append({str(name): float(value) for name, value in table.items()})
        wins, games, fair = tables
        if set(wins) != set(games) or set(fair) != set(games) or any(wins[n] > games[n] or fair[n] > games[n] for n in games):
            raise ValueError("league statistics: wins, games and fair must name the same snapshots, wins and fair at most games")
        self.wins, self.games, self.fair = wins, games, fair


SNAPSHOT_PREFIX = "snapshot@"
EXPLOITER_PREFIX = "exploiter@"
LEAGUE_PREFIXES = (SNAPSHOT_PREFIX, EXPLOITER_PREFIX)
"""The names of the pool's members a league weighs: the learner's snapshots and the run's exploiters (training/exploiters.py)."""


class SnapshotPool:
    """The latest `size` snapshots of the learner, kept as policy weights in `directory`.

    Older snapshots are deleted only once a checkpoint has been written (`trim`), and a resumed run
    first discards the ones taken after its checkpoint (`discard_after`), so the pool a run resumes
    with is the pool it had at that checkpoint.
    """

    def __init__(self, directory: Path, size: int):
        self.directory, self.size = directory, size
        directory.mkdir(parents=True, exist_ok=True)

    def _all(self) -> list[Path]:
        return sorted(self.directory.glob("step_*.pt"))

    @staticmethod
    def step_of(path: Path) -> int:
        """The training step a snapshot file was taken at."""
        return int(path.stem.removeprefix("step_"))

    def files(self) -> list[Path]:
        """The pool's snapshot files (the latest `size`), oldest first."""
        return self._all()[-self.size :]

    def add(self, model: Any, step: int) -> None:
        """Snapshot the learner's policy (written atomically)."""
        with replacing(self.directory / f"step_{step:010d}.pt") as temporary:
            torch.save(model.policy.state_dict(), temporary)

    def fill(self, model: Any) -> None:
        """Fill every place in the pool with a snapshot of `model` (a benchmark's league meeting its pool's networks at once)."""
        for step in range(self.size):
            self.add(model, step)

    def trim(self) -> None:
        """Delete the snapshots that have left the pool (call once a checkpoint holds the run)."""
        for old in self._all()[: -self.size]:
            old.unlink()

    def discard_after(self, step: int) -> None:
        """Delete the snapshots taken after `step` (a resumed run's checkpoint)."""
        for path in self._all():
            if self.step_of(path) > step:
                path.unlink()

    def agents(self, model: Any) -> list[PolicyAgent]:
        """The snapshots as agents sampling their cards (for variety), in policies shaped like `model`'s."""
        agents = []
        for path in self.files():
            policy = type(model.policy)(model.observation_space, model.action_space, lambda _: 0.0, **model.policy_kwargs)
            policy.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
            policy.to(model.device).set_training_mode(False)  # opponents play on the learner's device
            agents.append(PolicyAgent(policy, f"{SNAPSHOT_PREFIX}{self.step_of(path)}", deterministic=False))
        return agents


class Opponents:
    """Who plays a trainer's opponent seats, as its `opponents` section says: the snapshot pool, the
    pool members seated now (by name), a league's statistics, and the draw weights of the members
    and the baselines. The one implementation of both trainers' opponents: the SB3 trainer
    (training/selfplay.py) and the RLlib trainer (training/rllib_opponents.py) each seat the agents
    these name in their own way.
    """

    def __init__(self, settings: OpponentsConfig, pool: SnapshotPool):
        self.settings, self.pool = settings, pool
        self.league = League(settings.pfsp_exponent) if settings.mode == "league" else None
        self.members: list[str] = []
        self.baseline_weights = {name: weight for name, weight in settings.weights.items() if name != "pool" and weight > 0}

    @property
    def pool_weight(self) -> float:
        """The share of the opponent seats the pool's members play (0: baselines only)."""
        return float(self.settings.weights.get("pool", 0))

    def seat(self, members: Sequence[str]) -> None:
        """The pool members (by name) seated from the next games on; a league forgets those that left."""
        self.members = list(members)
        if self.league is not None:
            self.league.forget(self.league_members())

    def shares(self) -> list[float]:
        """The draw weight of each pool member (alike, or by PFSP in a league), then of each baseline."""
        # In a league the learner standing in for an empty pool has no results: it weighs as even.
        alike = [1 / max(len(self.members), 1)] * len(self.members)
        split = self.league.weights(self.members) if self.league is not None else alike
        return [self.pool_weight * share for share in split] + list(self.baseline_weights.values())

    def league_members(self) -> list[str]:
        """The pool members a league weighs now: its snapshots and exploiters (none outside a league;
        the learner itself, standing in for an empty pool, is never weighed)."""
        return [name for name in self.members if name.startswith(LEAGUE_PREFIXES)] if self.league is not None else []

    def record(self, games: Iterable[GameResult], games_per_episode: int | None = None) -> bool:
        """Finished games into a league's statistics (`League.record`); whether the draw weights changed (a league's did)."""
        if self.league is None:
            return False
        members = set(self.league_members())
        # A snapshot that left the pool may still finish this episode's games: it is not counted.
        self.league.record([([name for name in names if name in members], won, seats) for names, won, seats in games], games_per_episode)
        return True

    def summary(self) -> dict[str, Any]:
        """The league's win rates and draw weights, for the log and metadata."""
        names = self.league_members()
        if self.league is None or not names:
            return {}
        weights = self.league.weights(names)
        return {
            name: {"win_rate": round(self.league.win_rate(name), 4), "weight": round(w, 4)} for name, w in zip(names, weights, strict=True)
        }

    def checkpoint_parts(self) -> dict[str, Callable[[Path], None]]:
        """What a checkpoint keeps beside the pool's files: a league's statistics (league.json)."""
        league = self.league
        if league is None:
            return {}
        return {"league.json": lambda path: path.write_text(json.dumps(league.state_dict(), indent=2) + "\n")}

    def resume(self, directory: Path, step: int) -> None:
        """The pool and the league's statistics as the checkpoint at `step` in `directory` left them."""
        self.pool.discard_after(step)  # snapshots taken after the checkpoint belong to lost steps
        league_file = directory / "league.json"
        if self.league is not None and league_file.exists():
            try:
                self.league.load_state_dict(json.loads(read_bounded(league_file, MAX_FILE_BYTES, CheckpointError, "a league's statistics")))
            except (ValueError, RecursionError) as error:  # json's errors are ValueErrors too
                raise CheckpointError(f"{league_file} is damaged ({error}); delete it to start the league's statistics anew") from None


def finished_games(
    tables: Sequence[MiauiSelfPlayVecEnv | OctopusSelfPlayVecEnv | AECSelfPlayVecEnv],
    starts: Sequence[int],
    infos: Sequence[dict[str, Any]],
) -> list[GameResult]:
    """Each game that just ended at `tables` (whose rows start at `starts` in `infos`): who the learner
    met, its win share (its seats' mean) and the seats, one result per game, as a league counts them."""
    games: list[GameResult] = []
    for table, start in zip(tables, starts, strict=True):
        learners = table.rows_per_game
        for index in range(start, start + table.num_envs, learners):  # one row per game: its first learner seat
            if "winner" not in infos[index]:  # a game still under way (games that are not in lockstep end apart)
                continue
            won = float(np.mean([infos[index + j]["winner"] for j in range(learners)]))
            games.append((list(infos[index]["opponents"]), won, table.num_players))
    return games
