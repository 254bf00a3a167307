"""Self-play for Stable-Baselines3 on the octopus game: learner seats of many games as one SB3 `VecEnv`.

    from sb3_contrib import MaskablePPO
    from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv

    venv = OctopusSelfPlayVecEnv(64, num_players=3, seed=0)
    MaskablePPO("MlpPolicy", venv).learn(100_000)

## Design: one row, one seat's decisions, one game of its own
Octopus turns are sequential (O3, O10): at any moment one seat of a game decides. SB3's `VecEnv` is
synchronous: every `step` hands every row an action and wants every row's next observation. Two
learner rows in one game can never both be at a decision, so a row that shares its game would have
to be handed made-up "wait" steps (extra transitions whose action does nothing, which bias GAE and
waste samples) or stall the batch. Instead **each row owns its game**: row `g * L + j` is learner seat
`learner_seats[j]` of game `g * L + j`, and every other seat of that game is played by `opponent`
(an `Agent` or batched policy `(observations, masks) -> actions`; default: random legal actions),
shown the view it says it plays from (its `view`, as the arena does) or else the rows' `view`.
`learner_seats` (all seats by default) says which positions the rows learn, so one network learns
to play every seat (first to act, second, ...).

`set_opponents(agents, weights)` seats a mix instead (snapshots of the policy and baselines, as
self-play's league deals them): every new game draws, by weight, one agent for all its opponent
seats (`draw="game"`, whole tables of one kind, as the arena measures) or one per seat
(`draw="seat"`). `set_opponent(agent)` is the mix of one. A new mix seats the games dealt from the
next reset or autoreset on; games are not in lockstep, so a game under way keeps the opponents it
was dealt until it ends, and `info["opponents"]` names the ones its row met.

`step(actions)`: every row's action is its seat's decision (checked against its mask first, as
`MiauiSelfPlayVecEnv` does). Then every game is played on, opponents' decisions batched across all
games that wait on an opponent, round after round, until each game is again at its learner seat's
decision or over; an ended game is dealt anew (autoreset) and played on to the learner's first
decision. `num_games * L` games in all.

## Why each row is a correct MDP from its seat's view
Between two decisions of the learner seat, everything that happens (the engine's forced moves,
O10, the die, O5, and the opponents' decisions, a fixed stochastic policy during an episode) is part
of the environment's transition. The observation is exactly `observe(state, seat, view)` at the
decision (O4, the same encoder as the AEC env), so the row's process is the seat's own
decision process, one step per decision, no step without a decision. The reward is 0 until the
game ends, then the env's final reward for that seat (`final_rewards`: `win`, `score`, `margin`),
delivered on the step whose action ended the game (or whose action was the seat's last before an
opponent ended it), with `done` True and the final observation in `info["terminal_observation"]`.
A game cut by O12's session cap is a truncation: `info["TimeLimit.truncated"]` is True so SB3
bootstraps from the terminal observation instead of treating it as the game's true end.
Seats never mix: a row only ever sees and is paid for its own seat.

## Reward shaping
`shaping=c` (0 by default: none) adds potential-based shaping (Ng, Harada & Russell 1999) to every
learner step: `c * (discount * phi(next) - phi(now))`, where `phi` of a row's seat is its points
less the best opponent's, over the target (77), points being the running total plus the session's
score so far (O7), taken at the seat's decision, and `phi = 0` once the game is over. Over an
episode the terms add up to `-c * phi(first decision)`, which no action changes, so with `discount`
equal to the learner's own (PPO's `gamma`) the best policy for the end-of-game reward is the best
policy still; what changes is when the learner hears of a point: a bust, a theft or a stop is paid
at the learner's next decision instead of at the game's end, sessions later. `info["episode"]["r"]`
stays the end-of-game reward. A game cut by O12's cap ends with `phi = 0` too.

## Seeding
A seed (int or `SeedSequence`) is the root of a seed tree, as for `MiauiSelfPlayVecEnv`: game `i`'s
generator is seeded by `slot_seeds(seed, num_envs)[i]` (tree child 0) and carries on game after
game; the default opponent is seeded from child 1. Same seed, same actions: the same games.
`seed(s)` (which MaskablePPO calls) deals the next `reset` as the constructor's seed would; a
`reset` without a new seed carries each row's generator on, as Miaui's VecEnv does. The draws
of a mix come from the generator `set_opponents` is given (seeded by its `seed`).
Algorithms: PPO (Schulman et al. 2017) with invalid action masking (Huang & Ontanon 2022), whose
mask `action_masks()` gives: a learner row always has at least one legal action.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from miaui_env.core.agents import Agent, Policy, RandomAgent, agent_name, check_agent
from miaui_env.core.errors import IllegalActionError, InvalidConfigError, final_rewards, finite_real, is_integer
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.seeding import Seed
from miaui_env.core.selfplay import DRAWS, GamePerRowVecEnv, OpponentSeating
from miaui_env.core.vec import checked_seats, index_array, opponent_seed, slot_seeds
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.env import DEFAULT_MAX_SESSIONS, _check_settings, check_action, decision_mask
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, VIEWS, Painter, observe_canvas
from miaui_env.games.octopus.rules import NUM_ACTIONS, OctopusState


class OctopusSelfPlayVecEnv(GamePerRowVecEnv):
    """Learner seats of many octopus games as one SB3 VecEnv, one game per row; see the module docstring."""

    def __init__(
        self,
        num_games: int,
        *,
        num_players: int = 3,
        learner_seats: Sequence[int] | None = None,
        opponent: Agent | Policy | None = None,
        view: str = "table",
        reward: str = "win",
        seed: Seed | None = None,
        max_sessions: int | None = DEFAULT_MAX_SESSIONS,
        variant: rules.Variant = rules.FULL_GAME,
        shaping: float = 0.0,
        discount: float = 1.0,
    ):
        if not is_integer(num_games) or num_games < 1:
            raise InvalidConfigError(f"num_games={num_games!r} is not allowed; it must be an integer >= 1")
        _check_settings(num_players, view, reward, max_sessions)
        seats = checked_seats(learner_seats, int(num_players))
        if opponent is not None:
            check_agent(opponent, "opponent")
        self.num_games, self.num_players = int(num_games), int(num_players)
        self.view, self.reward_mode = view, reward
        self.max_sessions = None if max_sessions is None else int(max_sessions)
        if not isinstance(variant, rules.Variant):
            raise InvalidConfigError(f"variant={variant!r:.60} is not allowed; it is an octopus rules.Variant (the full game by default)")
        self.variant = variant
        self.shaping, self.discount = _checked_number(shaping, "shaping", None), _checked_number(discount, "discount", 1.0)
        self.observation_version = OBSERVATION_VERSION
        self.learner_seats = np.array(seats)
        rows = self.num_games * len(seats)
        # The learner seat of each row, as Python ints: the hot loops compare them with `game.active` per row.
        self.row_seats: list[int] = [int(seat) for seat in seats] * self.num_games
        self.opponent_views = VIEWS
        self._default_opponent = RandomAgent(None if seed is None else opponent_seed(seed))
        self._seating = self._seating_of([opponent if opponent is not None else self._default_opponent], [1.0], np.random.default_rng(0))
        self._next_seating: OpponentSeating | None = None
        self.render_mode = None
        space = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (OBSERVATION_LAYOUT.size,), np.float32)
        super().__init__(rows, space, gymnasium.spaces.Discrete(NUM_ACTIONS))
        self._next_seeds: list[int] | None = None if seed is None else slot_seeds(seed, rows)
        self._rngs: list[np.random.Generator] = []
        self._games: list[OctopusState] = []
        self._seated: list[list[Agent | Policy | None]] = []  # each row's game: the agent of every seat
        self._painters = [Painter() for _ in range(rows)]
        self._obs = np.zeros((rows, OBSERVATION_LAYOUT.size), dtype=np.float32)
        self._masks = np.zeros((rows, NUM_ACTIONS), dtype=np.int8)
        self._potentials = np.zeros(rows)  # each row's phi at its seat's decision (module docstring: reward shaping)
        self._actions = np.zeros(rows, dtype=np.int64)
        self._actions_pending = False
        self._stopped: str | None = None  # why the games stopped between two moves (an opponent failed): reset() goes on
        self._lengths = np.zeros(rows, dtype=np.int64)  # learner decisions so far in each row's game
        self._starts = np.zeros(rows)
        self.opponent_decisions = 0  # opponents' decisions played so far (for the benchmark)

    # -- VecEnv ---------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """New games in every row (dealt from the seed given to `seed()` or the constructor, if any
        since), each played on to its learner seat's first decision."""
        self._before_new_deals()
        self._seated = [[] for _ in range(self.num_envs)]
        self._games = [self._new_game(row) for row in range(self.num_envs)]
        self._actions_pending, self._stopped = False, None
        self._start_games(list(range(self.num_envs)))
        for row in range(self.num_envs):
            self._present(row)
        return self._obs.copy()

    def _start_games(self, rows: list[int]) -> None:
        """Play the new games of `rows` to their learner seat's first decision. A game that ends before it
        (a small variant's few cards can) is dealt again: an episode holds at least one decision to learn from."""
        self._play_opponents(rows)
        over = [r for r in rows if self._games[r].is_over]
        while over:
            for r in over:
                self._games[r] = self._new_game(r)
            self._play_opponents(over)
            over = [r for r in over if self._games[r].is_over]

    def _new_game(self, row: int) -> OctopusState:
        self._lengths[row] = 0
        self._starts[row] = time.time()
        self._seated[row] = self._seating.deal(self.num_players, self.row_seats[row])
        return rules.new_game(self.num_players, self._rngs[row], max_sessions=self.max_sessions, variant=self.variant)

    def _present(self, row: int) -> None:
        """Row `row`'s observation and mask at its seat's decision (O4: exactly `observe(state, seat, view)`)."""
        game = self._games[row]
        self._obs[row] = observe_canvas(self._painters[row].canvas(game), self.num_players, self.row_seats[row], self.view)
        self._masks[row] = decision_mask(game)
        if self.shaping:
            self._potentials[row] = lead_potential(game, self.row_seats[row])

    def _play_opponents(self, rows: list[int]) -> None:
        """Play the opponents' decisions of the games of `rows`, batched across games, until each
        game waits on its learner seat or is over."""
        waiting = [r for r in rows if not self._games[r].is_over and self._games[r].active != self.row_seats[r]]
        width = OBSERVATION_LAYOUT.size
        while waiting:
            by_agent: dict[int, tuple[Agent | Policy, list[int]]] = {}  # by id: each agent and its waiting rows, one batch
            for r in waiting:
                agent = self._seated[r][self._games[r].active]
                assert agent is not None  # an opponent's seat: only the learner's seat holds None
                group = by_agent.get(id(agent))
                if group is None:
                    by_agent[id(agent)] = (agent, [r])
                else:
                    group[1].append(r)
            for agent, mine in by_agent.values():
                view = getattr(agent, "view", self.view)  # an agent that says its view (a trained policy's) is shown it
                seen = np.empty((len(mine), width), dtype=np.float32)
                masks = np.empty((len(mine), NUM_ACTIONS), dtype=np.int8)
                for i, r in enumerate(mine):
                    game = self._games[r]
                    seen[i] = observe_canvas(self._painters[r].canvas(game), self.num_players, game.active, view)
                    masks[i] = decision_mask(game)
                for r, action in zip(mine, self._opponent_actions(agent, seen, masks).tolist(), strict=True):
                    game = self._games[r]
                    rules.step(game, rules.decision_of(game, action))
            self.opponent_decisions += len(waiting)
            waiting = [r for r in waiting if not self._games[r].is_over and self._games[r].active != self.row_seats[r]]

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """The rows' actions as int64 indices; IllegalActionError naming the row, game and seat of the
        first one its mask does not allow (the same message as the AEC env's)."""
        if not self._games:
            raise IllegalActionError("call reset() before step(): no game has been dealt yet")
        if self._stopped is not None:
            raise IllegalActionError(
                f"an opponent failed during the last step or reset ({self._stopped:.200}), leaving games "
                "between two moves: call reset() to deal new ones"
            )
        given = index_array(actions, self.num_envs, "action", NUM_ACTIONS)
        bad = (given < 0) | (given >= NUM_ACTIONS)
        if not bad.any():
            bad = self._masks[np.arange(self.num_envs), given] == 0
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            check_action(self._masks[row], int(given[row]), f"env index {row} (game {row}, player_{self.row_seats[row]})")
        return given

    def step_wait(self) -> VecEnvStepReturn:
        """Play every row's decision, then the opponents' until each row decides again; reward and
        autoreset the rows whose game ended."""
        self.check_actions_pending()
        self._actions_pending = False
        rows, actions = self._moving_rows(), self._actions.tolist()
        for r in rows:
            game = self._games[r]
            rules.step(game, rules.decision_of(game, actions[r]))
        self._lengths[rows] += 1
        self._play_opponents(rows)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = [r for r in rows if self._games[r].is_over]
        if ended:
            # The ended rows' next games meet the new opponents; resetting agents that rows still
            # playing share is safe because octopus agents are stateless (the recall view shows what they would remember).
            self._take_next_seating()
        for r in ended:
            infos[r] = self._finish(r)
            rewards[r] = infos[r]["episode"]["r"]
            dones[r] = True
            self._games[r] = self._new_game(r)
        self._start_games(ended)
        before = self._potentials[rows] if self.shaping else None  # each row's phi at the decision just played
        for r in rows:
            self._present(r)
        if before is not None:
            after = np.where(dones[rows], 0.0, self._potentials[rows])  # an ended game's next decision is a new game's
            rewards[rows] += self.shaping * (self.discount * after - before)
        return self._obs.copy(), rewards, dones, infos

    def _finish(self, row: int) -> dict[str, Any]:
        """The info of a row whose game just ended: its reward, final observation and result."""
        game, seat = self._games[row], self.row_seats[row]
        reward = float(final_rewards(np.array(game.totals), self.reward_mode)[seat])
        final = observe_canvas(self._painters[row].canvas(game), self.num_players, seat, self.view)
        return {
            "terminal_observation": final,
            "TimeLimit.truncated": game.truncated,  # O12's cap: SB3 bootstraps from the final observation
            "seat": seat,
            "total": game.totals[seat],
            "totals": tuple(game.totals),
            "winner": seat in rules.winners(game),
            "opponents": tuple(agent_name(agent) for agent in self._seated[row] if agent is not None),
            "episode": {"r": reward, "l": int(self._lengths[row]), "t": round(float(time.time() - self._starts[row]), 6)},
        }

    @property
    def games(self) -> list[OctopusState]:
        """Each row's game as it is now (the live states: for tests and tools, never for agents)."""
        return list(self._games)


def lead_potential(game: OctopusState, seat: int) -> float:
    """`seat`'s points less the best opponent's, over the target (O7, O9): the shaping potential phi."""
    points = [total + rules.session_score(cards) for total, cards in zip(game.totals, game.collections, strict=True)]
    best_other = max(p for other, p in enumerate(points) if other != seat)
    return (points[seat] - best_other) / rules.TARGET


def _checked_number(value: object, name: str, high: float | None) -> float:
    """`value` as a float from 0 to `high` (None: no bound); InvalidConfigError naming `name` otherwise."""
    number = finite_real(value)
    if number is None or number < 0 or (high is not None and number > high):
        allowed = "a number >= 0" if high is None else f"a number from 0 to {high:g}"
        raise InvalidConfigError(f"{name}={value!r:.60} is not allowed; it is {allowed}")
    return number


__all__ = ["DRAWS", "OctopusSelfPlayVecEnv", "OpponentSeating", "lead_potential"]
