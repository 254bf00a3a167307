"""Self-play for Stable-Baselines3 on any registered game: learner seats of many AEC games as one `VecEnv`.

    from sb3_contrib import MaskablePPO
    from miaui_env.core.selfplay import AECSelfPlayVecEnv

    venv = AECSelfPlayVecEnv("sealed_bids", 64, num_players=3, seed=0)
    MaskablePPO("MlpPolicy", venv).learn(100_000)

It drives the game's own PettingZoo AEC env (the protocol in `miaui_env.core.registry`'s docstring), so a
game that gives only its env and agents trains with self-play (`training.games.AnyGame`). Miaui and
the octopus game have faster VecEnvs of their own on their engines (`MiauiSelfPlayVecEnv`,
`OctopusSelfPlayVecEnv`); this one follows the octopus VecEnv's design, one game per row:

- row `g * L + j` is learner seat `learner_seats[j]` of a game of its own, and every other seat of that
  game is played by an opponent: a random legal action by default, or the agents `set_opponents`
  deals (one agent a game, or one a seat), drawn from the next new game on;
- `step(actions)` plays every row's action, then the opponents' decisions, batched by agent across
  the games that wait on it, until each game is again at its learner seat's decision or the
  learner's part in it has ended; an ended game is dealt anew (autoreset);
- a row's reward is what the env gave the learner's agent over the steps since its last decision
  (the env's `rewards`, the learner's own only), so each row is its seat's own decision process;
  `info["TimeLimit.truncated"]` where the env truncated the learner, with the final observation in
  `info["terminal_observation"]`.

Seeding: a seed (int or `SeedSequence`) roots a seed tree, as for the other VecEnvs; row i's games
are reset with seeds drawn from a generator seeded by `slot_seeds(seed, num_envs)[i]`, the default
opponent from child 1. Same seed, same actions: the same games.
Algorithms: PPO (Schulman et al. 2017) with invalid action masking (Huang & Ontanon 2022).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from miaui_env.core.agents import Agent, Policy, RandomAgent, agent_name, check_agent, checked_actions, reset_agent
from miaui_env.core.errors import IllegalActionError, InvalidConfigError, is_integer
from miaui_env.core.registry import Game, get_game
from miaui_env.core.seeding import Seed, seed_generator, seed_tree
from miaui_env.core.vec import OneEnvVecEnv, checked_seats, index_array, opponent_seed, slot_seeds

DRAWS = ("game", "seat")  # a mix deals all of a game's opponent seats to one agent, or each seat its own


class OpponentSeating:
    """Who plays the opponent seats of each new game: `agents` drawn by `weights` (normalised) from
    `rng`, one for the whole game (`draw="game"`) or one per seat (`draw="seat"`); an agent that
    says its view must say one of `views`."""

    def __init__(
        self,
        agents: Sequence[Agent | Policy],
        weights: Sequence[float],
        rng: np.random.Generator,
        draw: str = "game",
        *,
        views: Sequence[str],
    ):
        if draw not in DRAWS:
            raise InvalidConfigError(f"draw={draw!r} is not allowed; allowed: {', '.join(DRAWS)}")
        if isinstance(agents, str | bytes) or not isinstance(agents, Sequence) or not agents:
            raise InvalidConfigError(f"opponents must be a non-empty list of agents, got {agents!r:.60}")
        self.agents = [check_agent(agent, "opponent") for agent in agents]
        for agent in self.agents:
            view = getattr(agent, "view", views[0])
            if not isinstance(view, str) or view not in views:
                raise InvalidConfigError(f"view={view!r} is not allowed; views are {', '.join(map(repr, views))}")
        self.rng, self.draw = rng, draw
        self.set_weights(weights)

    def set_weights(self, weights: Sequence[float]) -> None:
        """Draw by these weights from the next new game on (one per agent, each finite and >= 0, not all zero)."""
        try:
            given = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            given = np.array([np.nan])
        # numpy reads True as 1.0: a flag where a weight belongs is a slip, not a weight
        booleans = isinstance(weights, Sequence) and any(isinstance(weight, bool | np.bool_) for weight in weights)
        if booleans or given.shape != (len(self.agents),) or not np.isfinite(given).all() or (given < 0).any() or given.sum() <= 0:
            raise InvalidConfigError(
                f"weights={weights!r:.80} is not allowed; give one finite weight >= 0 per opponent "
                f"(the mix has {len(self.agents)}), not all zero"
            )
        self.weights = given / given.sum()

    def deal(self, num_players: int, learner_seat: int) -> list[Agent | Policy | None]:
        """The agent of every seat of a new game (None at the learner's seat)."""
        draws = 1 if self.draw == "game" else num_players
        picked = self.rng.choice(len(self.agents), size=draws, p=self.weights).tolist()
        return [None if seat == learner_seat else self.agents[picked[0 if draws == 1 else seat]] for seat in range(num_players)]


class GamePerRowVecEnv(OneEnvVecEnv):
    """What the self-play VecEnvs of a game per row share (this module's and `OctopusSelfPlayVecEnv`):
    seeding the next reset, the opponents each new game draws, and actions stored once for one step."""

    opponent_views: Sequence[str]
    """The views an opponent may say it plays from."""
    _default_opponent: RandomAgent
    _seating: OpponentSeating
    _next_seating: OpponentSeating | None
    _next_seeds: list[int] | None
    _actions: np.ndarray
    _actions_pending: bool
    _hold: np.ndarray
    """The rows the pending step does not play (`step_async`'s `hold`)."""
    _masks: np.ndarray
    _stopped: str | None
    """Why the games stopped between two moves (an opponent failed): only reset() goes on."""
    _rngs: list[np.random.Generator]
    """Each row's generator, carried on from game to game."""

    def _before_new_deals(self) -> None:
        """A reset's first step: each row's generator from the seed `seed()` or the constructor gave, if
        any since (else carried on, as between games: a second reset, PPO's after cloning played on the
        same tables, deals from the seed too, not from fresh entropy), and the opponents reset."""
        if self._next_seeds is not None or not self._rngs:  # seeded (or the first reset of an unseeded env)
            seeds = self._next_seeds if self._next_seeds is not None else [None] * self.num_envs
            self._rngs = [seed_generator(s) for s in seeds]
        self._next_seeds = None
        if not self._take_next_seating():  # a new seating's agents are reset as it is taken
            for agent in self._seating.agents:
                reset_agent(agent)

    def _opponent_actions(self, agent: Agent | Policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """`agent`'s checked actions for a batch of the seats it plays; if it fails, the games stop between two moves."""
        try:
            return checked_actions(agent, observations, masks)
        except BaseException as failed:
            self._stopped = f"{type(failed).__name__}: {failed}"
            raise

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """The rows' actions as int64 indices, each one its row's mask allows (IllegalActionError if not)."""
        raise NotImplementedError

    # -- seeding and opponents ------------------------------------------------------------------
    def seed(self, seed: Seed | None = None) -> list[int | None]:
        """Deal the next reset's games from `seed` (None: fresh entropy), as the constructor's `seed`
        would (the default random opponent too); returns each row's seed."""
        tree = seed_tree(seed)
        self._next_seeds = slot_seeds(tree, self.num_envs)
        self._default_opponent.rng = seed_generator(opponent_seed(tree))
        return list(self._next_seeds)

    @property
    def opponent(self) -> Agent | Policy:
        """The opponent of the games dealt now, when one agent plays them all (else the first of the mix)."""
        return self._seating.agents[0]

    @property
    def opponents(self) -> list[Agent | Policy]:
        """The agents the games dealt now draw their opponents from."""
        return list(self._seating.agents)

    def set_opponent(self, opponent: Agent | Policy) -> None:
        """Play the opponent seats of the games dealt from the next reset or autoreset on with `opponent`."""
        self._next_seating = self._seating_of([opponent], [1.0], np.random.default_rng(0))

    def set_opponents(
        self, agents: Sequence[Agent | Policy], weights: Sequence[float] | None = None, seed: Seed | None = None, draw: str = "game"
    ) -> None:
        """Deal the opponent seats of every game from the next reset or autoreset on among `agents`, by `weights` (None: alike)."""
        weights = [1.0] * len(agents) if weights is None and isinstance(agents, Sequence) else weights
        self._next_seating = self._seating_of(agents, weights if weights is not None else [], seed_generator(seed), draw)

    def set_opponent_weights(self, weights: Sequence[float]) -> None:
        """New draw weights for the mix `set_opponents` gave, from the next new game on."""
        (self._next_seating or self._seating).set_weights(weights)

    def _take_next_seating(self) -> bool:
        """Seat the mix `set_opponents` gave, its agents reset; whether there was one."""
        if self._next_seating is None:
            return False
        self._seating, self._next_seating = self._next_seating, None
        for agent in self._seating.agents:
            reset_agent(agent)
        return True

    def _seating_of(
        self, agents: Sequence[Agent | Policy], weights: Sequence[float], rng: np.random.Generator, draw: str = "game"
    ) -> OpponentSeating:
        return OpponentSeating(agents, weights, rng, draw, views=self.opponent_views)

    def step_async(self, actions: np.ndarray, *, trusted: bool = False, hold: np.ndarray | None = None) -> None:
        """Store every row's action, checked against its mask before anything is played. The rows
        `hold` marks (bool, one per row) are not played this step: their actions are ignored, and they
        keep their decision, with no reward and no end (a next-step autoreset's first observation,
        training/rllib_env.py, is such a row)."""
        if not isinstance(trusted, bool | np.bool_):
            raise IllegalActionError(f"trusted must be True or False, got {trusted!r:.60}")
        held = self._checked_hold(hold)
        if held.any():
            actions = np.where(held, self._masks.argmax(axis=1), index_array(actions, self.num_envs, "action", self._masks.shape[1]))
        self._actions = actions if trusted else self.check_actions(actions)
        self._hold, self._actions_pending = held, True

    def _checked_hold(self, hold: object) -> np.ndarray:
        """`hold` as one bool a row (None: no row held); IllegalActionError for any other shape or kind."""
        if hold is None:
            return np.zeros(self.num_envs, dtype=bool)
        held = np.asarray(hold)
        if held.shape != (self.num_envs,) or held.dtype != bool:
            raise IllegalActionError(f"hold is one bool a row ({self.num_envs} of them), got {hold!r:.80}")
        return held

    def _moving_rows(self) -> list[int]:
        """The rows whose decision this step plays (all but the held ones)."""
        return np.flatnonzero(~self._hold).tolist()

    def check_actions_pending(self) -> None:
        """IllegalActionError unless `step_async` stored actions since the last `step_wait`."""
        if not self._actions_pending:
            raise IllegalActionError("step_wait() needs step_async(actions) first: each decision is played once")

    @property
    def rows_per_game(self) -> int:
        """Rows that share one game: 1, every row plays a game of its own."""
        return 1

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) bool: each row's legal actions at its seat's decision."""
        return self._masks.astype(bool)


class AECSelfPlayVecEnv(GamePerRowVecEnv):
    """Learner seats of many games of any registered game as one SB3 VecEnv, one game per row; see the module docstring."""

    def __init__(
        self,
        game: str | Game,
        num_games: int,
        *,
        num_players: int | None = None,
        learner_seats: Sequence[int] | None = None,
        opponent: Agent | Policy | None = None,
        view: str | None = None,
        reward: str = "win",
        seed: Seed | None = None,
    ):
        self.game = game if isinstance(game, Game) else get_game(game)
        if not is_integer(num_games) or num_games < 1:
            raise InvalidConfigError(f"num_games={num_games!r} is not allowed; it must be an integer >= 1")
        self.num_players = self.game.default_players if num_players is None else num_players
        self.view, self.reward_mode = self.game.views[0] if view is None else view, reward
        self.settings = {"num_players": self.num_players, "view": self.view, "reward": reward}
        probe = self.game.env(**self.settings)  # the env checks the settings first
        self.num_players, agent = int(self.num_players), probe.possible_agents[0]
        observations, actions = probe.observation_space(agent)["observation"], probe.action_space(agent)
        if not isinstance(actions, gymnasium.spaces.Discrete):
            raise InvalidConfigError(f"{self.game.title}'s actions are {actions}; self-play trains games of Discrete actions")
        self.num_actions = int(actions.n)
        seats = checked_seats(learner_seats, self.num_players)
        if opponent is not None:
            check_agent(opponent, "opponent")
        self.learner_seats = np.array(seats)
        self.row_seats: list[int] = [int(seat) for seat in seats] * int(num_games)
        self._learners = [str(probe.possible_agents[seat]) for seat in self.row_seats]  # each row's agent name, looked up once
        self.num_games, rows = int(num_games), int(num_games) * len(seats)
        self.observation_version = self.game.observation_version
        self.opponent_views = (self.view,)  # the env deals every seat its view
        self._default_opponent = RandomAgent(None if seed is None else opponent_seed(seed), num_actions=self.num_actions)
        self._seating = self._seating_of([opponent if opponent is not None else self._default_opponent], [1.0], np.random.default_rng(0))
        self._next_seating: OpponentSeating | None = None
        self.render_mode = None
        space = gymnasium.spaces.Box(observations.low, observations.high, observations.shape, np.float32)
        super().__init__(rows, space, gymnasium.spaces.Discrete(self.num_actions))
        self._next_seeds: list[int] | None = None if seed is None else slot_seeds(seed, rows)
        self._rngs: list[np.random.Generator] = []
        self._envs: list[Any] = [self.game.env(**self.settings) for _ in range(rows)]
        self._seated: list[list[Agent | Policy | None]] = [[] for _ in range(rows)]
        self._obs = np.zeros((rows, *space.shape), dtype=np.float32)
        self._masks = np.zeros((rows, self.num_actions), dtype=np.int8)
        self._returns = np.zeros(rows)  # what each row's learner was given since its last decision
        self._episode_returns = np.zeros(rows)  # ... and since its game began
        self._actions = np.zeros(rows, dtype=np.int64)
        self._actions_pending, self._dealt = False, False
        self._stopped: str | None = None
        self._lengths = np.zeros(rows, dtype=np.int64)
        self._starts = np.zeros(rows)

    # -- the games ------------------------------------------------------------------------------
    def _learner(self, row: int) -> str:
        return self._learners[row]

    def _learner_done(self, row: int) -> bool:
        env, learner = self._envs[row], self._learner(row)
        return bool(env.terminations[learner] or env.truncations[learner])

    def _deal(self, row: int) -> None:
        self._lengths[row], self._starts[row], self._returns[row], self._episode_returns[row] = 0, time.time(), 0.0, 0.0
        self._seated[row] = self._seating.deal(self.num_players, self.row_seats[row])
        self._envs[row].reset(seed=int(self._rngs[row].integers(2**63)))

    def _step(self, row: int, action: int | None) -> None:
        env = self._envs[row]
        env.step(action)
        reward = env.rewards.get(self._learner(row), 0.0)
        self._returns[row] += reward
        self._episode_returns[row] += reward

    def _play_on(self, rows: list[int]) -> None:
        """Play the opponents of `rows`' games, batched by agent, until each waits on its learner or the learner is done."""
        waiting = rows
        while waiting:
            by_agent: dict[int, tuple[Agent | Policy, list[int]]] = {}
            still = []
            for r in waiting:
                env = self._envs[r]
                if self._learner_done(r) or env.agent_selection == self._learner(r):
                    continue
                acting = env.agent_selection
                if env.terminations[acting] or env.truncations[acting]:
                    self._step(r, None)  # an agent that is out steps None (PettingZoo's convention)
                    still.append(r)
                    continue
                agent = self._seated[r][env.possible_agents.index(acting)]
                by_agent.setdefault(id(agent), (agent, []))[1].append(r)
            for agent, mine in by_agent.values():
                seen = [self._envs[r].observe(self._envs[r].agent_selection) for r in mine]
                observations = np.stack([np.asarray(s["observation"], dtype=np.float32) for s in seen])
                masks = np.stack([np.asarray(s["action_mask"], dtype=np.int8) for s in seen])
                for r, action in zip(mine, self._opponent_actions(agent, observations, masks).tolist(), strict=True):
                    self._step(r, action)
                still += mine
            waiting = still

    def _start(self, rows: list[int]) -> None:
        """Deal `rows` new games and play each to its learner's first decision (a game that ends before one is dealt again)."""
        for r in rows:
            self._deal(r)
        self._play_on(rows)
        over = [r for r in rows if self._learner_done(r)]
        while over:
            for r in over:
                self._deal(r)
            self._play_on(over)
            over = [r for r in over if self._learner_done(r)]

    def _present(self, row: int) -> None:
        seen = self._envs[row].observe(self._learner(row))
        self._obs[row], self._masks[row] = seen["observation"], seen["action_mask"]

    # -- VecEnv ---------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """New games in every row, each played on to its learner seat's first decision."""
        self._before_new_deals()
        self._actions_pending, self._stopped, self._dealt = False, None, True
        rows = list(range(self.num_envs))
        self._start(rows)
        for r in rows:
            self._present(r)
        return self._obs.copy()

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """The rows' actions as int64 indices; IllegalActionError naming the row and seat of the first one its mask does not allow."""
        if not self._dealt:
            raise IllegalActionError("call reset() before step(): no game has been dealt yet")
        if self._stopped is not None:
            raise IllegalActionError(
                f"an opponent failed during the last step or reset ({self._stopped:.200}): call reset() to deal new games"
            )
        given = index_array(actions, self.num_envs, "action", self.num_actions)
        bad = (given < 0) | (given >= self.num_actions)
        if not bad.any():
            bad = self._masks[np.arange(self.num_envs), given] == 0
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            legal = np.flatnonzero(self._masks[row]).tolist()
            raise IllegalActionError(f"env index {row} (player_{self.row_seats[row]}): action {given[row]} is not legal; legal: {legal}")
        return given

    def step_wait(self) -> VecEnvStepReturn:
        """Play every row's decision, then the opponents' until each row decides again; reward and autoreset the rows whose game ended."""
        self.check_actions_pending()
        self._actions_pending = False
        rows, actions = self._moving_rows(), self._actions.tolist()
        for r in rows:
            self._step(r, actions[r])
        self._lengths[rows] += 1
        self._play_on(rows)
        rewards = np.where(self._hold, 0.0, self._returns).astype(np.float32)
        self._returns[rows] = 0.0
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = [r for r in rows if self._learner_done(r)]
        if ended:
            self._take_next_seating()
        for r in ended:
            infos[r] = self._finish(r, float(self._episode_returns[r]))
            dones[r] = True
        self._start(ended)
        for r in rows:
            self._present(r)
        return self._obs.copy(), rewards, dones, infos

    def _finish(self, row: int, episode_return: float) -> dict[str, Any]:
        env, learner = self._envs[row], self._learner(row)
        info = env.infos.get(learner, {})
        return {
            "terminal_observation": np.asarray(env.observe(learner)["observation"], dtype=np.float32),
            "TimeLimit.truncated": bool(env.truncations[learner] and not env.terminations[learner]),
            "seat": self.row_seats[row],
            "winner": bool(info.get("winner", False)),
            "opponents": tuple(agent_name(agent) for agent in self._seated[row] if agent is not None),
            "episode": {"r": episode_return, "l": int(self._lengths[row]), "t": round(float(time.time() - self._starts[row]), 6)},
        }


__all__ = ["DRAWS", "AECSelfPlayVecEnv", "GamePerRowVecEnv", "OpponentSeating"]
