"""What both games' PettingZoo envs share (Miaui's `miaui_env.games.miaui.env`, the octopus game's
`miaui_env.games.octopus.env`): the errors, agent names as seats, reset options, the generator, rendering,
the AEC bookkeeping of rewards and turns, and the wrappers `env()` puts around a raw env.

It loads PettingZoo and Gymnasium but not the batched engine (no numba), so the octopus env, which
has no compiled path, does not pay for Miaui's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import gymnasium
import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper

from miaui_env.core.errors import IllegalActionError, InvalidConfigError, finite_real
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.render import check_render_mode, require_pillow

ILLEGAL_ACTIONS = ("raise", "terminate")  # env(illegal_action=...): refuse an illegal action, or end the game

_Game = TypeVar("_Game")  # a game's state: Miaui's PlayedGame, the octopus game's OctopusState


class UnknownAgentError(ValueError):
    """An agent name that is not at this table."""


class NotResetError(ResetNeeded, AssertionError, AttributeError):
    """A call that needs a game before the first reset(): Gymnasium's ResetNeeded, and still what
    PettingZoo's order enforcing raises there (an AssertionError; an AttributeError for `last`), so
    code that catches those keeps working."""


class ResetOptionError(ValueError):
    """A reset `options` that is not a dict."""


class ResetOptionWarning(UserWarning):
    """A reset option this env does not know, ignored (PettingZoo's convention)."""


def dealt_game(game: _Game | None, call: str) -> _Game:
    """`game`, the game an env is playing; ResetNeeded naming `call` if none has been dealt yet."""
    if game is None:
        raise ResetNeeded(f"call reset() before {call}: no game has been dealt yet")
    return game


def checked_options(options: Any, known: Sequence[str]) -> Mapping[str, Any] | None:
    """Reset's `options` if a dict (unknown keys ignored with a ResetOptionWarning); ResetOptionError if not a dict."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        example = ", ".join(f"'{name}': [...]" for name in known)
        raise ResetOptionError(f"reset options must be a dict (e.g. {{{example}}}), got {options!r:.60}")
    unknown = sorted(map(str, set(options) - set(known)))
    if unknown:
        # PettingZoo's API test passes options an env does not know and expects them ignored, so a
        # typo ("dek") is a warning naming the options, not an error. It points two frames above the
        # env's check_reset, which calls this.
        ignored = f"reset option(s) {', '.join(unknown)} ignored; options are {', '.join(known)}"
        warnings.warn(ignored, ResetOptionWarning, stacklevel=4)
    return options


class SeatedEnv:
    """Agent names as seats, spaces by agent, the generator and rendering, for either game's envs."""

    possible_agents: list[str]
    seat_of: dict[str, int]
    observation_spaces: dict[str, gymnasium.spaces.Space[Any]]
    action_spaces: dict[str, gymnasium.spaces.Space[Any]]
    state_space: gymnasium.spaces.Box
    render_mode: str | None
    np_random: np.random.Generator
    np_random_seed: int | None

    def _seat_agents(self, num_players: int, name: Callable[[int], str]) -> None:
        """Name the seats' agents (`name(seat)`) and look seats up by name."""
        self.possible_agents = [name(s) for s in range(num_players)]
        self.seat_of = {agent: s for s, agent in enumerate(self.possible_agents)}

    def _set_render_mode(self, render_mode: str | None) -> None:
        """Keep `render_mode`: InvalidConfigError unless None or a known mode, MissingExtraError for `rgb_array` without Pillow."""
        check_render_mode(render_mode)
        if render_mode == "rgb_array":
            require_pillow()  # the extra is named now, not at the first render()
        self.render_mode = render_mode

    def _set_spaces(self, observation: gymnasium.spaces.Box, num_actions: int, state_size: int) -> None:
        """The seated agents' spaces (the `observation` beside its action mask; Discrete(`num_actions`)) and the state's."""
        mask = gymnasium.spaces.Box(0, 1, (num_actions,), np.int8)
        space = gymnasium.spaces.Dict({"observation": observation, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(num_actions) for a in self.possible_agents}
        self.state_space = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (state_size,), np.float32)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of `agent` (the same for every agent)."""
        return self.observation_spaces[self.possible_agents[self.seat(agent)]]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The action space of `agent`: Discrete(12)."""
        return self.action_spaces[self.possible_agents[self.seat(agent)]]

    def seat(self, agent: Any) -> int:
        """The seat of `agent`; UnknownAgentError naming the table's agents if it is not one of them."""
        if not isinstance(agent, str) or agent not in self.seat_of:
            raise UnknownAgentError(f"agent {agent!r} is not at this table; agents are {self.possible_agents}")
        return self.seat_of[agent]

    def _reseed(self, seed: int | None) -> None:
        """A new generator from `seed`; without one the env's generator goes on (Gymnasium's convention)."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)

    def _table_text(self) -> str:
        """The table as text, a spectator's view (ResetNeeded before the first reset)."""
        raise NotImplementedError

    def _table_picture(self) -> np.ndarray:
        """The table as an (H, W, 3) uint8 picture, a spectator's view (ResetNeeded before the first reset)."""
        raise NotImplementedError

    def _render_as_it_goes(self) -> None:
        """In `human` mode the table is printed as the game goes (PettingZoo's convention: a human
        watches without calling render)."""
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The table as text (`ansi`), printed (`human`) or as a picture (`rgb_array`); a spectator's view."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self._table_picture()
        text = self._table_text()
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class AECTurns(SeatedEnv):
    """The AEC bookkeeping both games' `raw_env` keep: every agent's reward, termination,
    truncation and info, `last()`, and the checks before a step."""

    agents: list[str]
    agent_selection: str
    rewards: dict[str, float]
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]
    _was_dead_step: Callable[[Any], None]  # PettingZoo's AECEnv's, after this class in the env's bases

    def _dealt(self, call: str = "using the env") -> object:
        """The game being played; ResetNeeded before the first reset."""
        raise NotImplementedError

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        """What `seat` sees now and its legal actions."""
        raise NotImplementedError

    def _seat_everyone(self) -> None:
        """Every agent back at the table: no rewards, nothing ended, empty infos (PettingZoo's classic games')."""
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's iterator over the agents to act; ResetNeeded before the first reset."""
        self._dealt("agent_iter()")
        return super().agent_iter(max_iter)  # type: ignore[misc]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The acting agent's observation, reward, termination, truncation and info (PettingZoo's `last`)."""
        self._dealt("last()")
        if not self.agents:
            raise ResetNeeded("the game is over and every agent has stepped out: call reset() to deal a new one")
        agent = self.agent_selection  # AECEnv.last, with the agent's seat looked up once
        observation = self._observe(self.seat_of[agent]) if observe else None
        return observation, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent], self.infos[agent]

    def _agent_to_step(self, action: Any) -> str | None:
        """The agent whose action `action` is; None once a dead agent's step has removed it
        (ResetNeeded before the first reset and after every agent has stepped out)."""
        self._dealt("step()")
        if not self.agents:
            raise ResetNeeded("the game is over: call reset() to deal a new one")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return None
        return agent


class _CheckedOrderEnforcingWrapper(OrderEnforcingWrapper):  # type: ignore[misc]  # PettingZoo's classes are Any to mypy
    """PettingZoo's order enforcing, except that a refused reset leaves the env not reset: the
    wrapper marks itself reset before passing the call on, so the arguments are checked first."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Check the arguments (nothing changes if they are refused), then reset."""
        if isinstance(options, Mapping) and isinstance(options.get("deck"), Iterator):
            options = {**options, "deck": list(options["deck"])}  # checked here and read again by the env
        self.unwrapped.check_reset(seed, options)
        super().reset(seed=seed, options=options)

    # PettingZoo's wrappers reach the env's attributes through two __getattr__ calls per access, about
    # eight accesses an agent step in the usual loop (agent_iter, last, step). The ones that loop reads
    # go straight to the env here, with the same order checks (and the same errors) as upstream.
    @property
    def agents(self) -> list[str]:
        """The agents still playing (AttributeError before reset, as upstream)."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        """The agent to act (AttributeError before reset, as upstream)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent: str = self.env.agent_selection
        return agent

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The acting agent's observation, reward, termination, truncation and info."""
        self._check_reset("last()")
        last: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return last

    def observe(self, agent: str) -> Any:
        """What `agent` sees now (NotResetError before the first reset)."""
        self._check_reset("observe()")
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        """The global state (NotResetError before the first reset)."""
        self._check_reset("state()")
        state: np.ndarray = self.env.state()
        return state

    def render(self) -> Any:
        """The table as the render mode draws it (NotResetError before the first reset)."""
        self._check_reset("render()")
        return self.env.render()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's iterator over the agents to act (NotResetError before the first reset)."""
        self._check_reset("agent_iter()")
        return super().agent_iter(max_iter)

    def _check_reset(self, call: str) -> None:
        if not self._has_reset:
            raise NotResetError(f"call reset() before {call}: no game has been dealt yet")

    def step(self, action: Any) -> None:
        """Pass the action on; ResetNeeded before the first reset, and for an action once every agent
        has left the finished game (a `None` then gets upstream's warning, as PettingZoo's loops expect)."""
        self._check_reset("step()")
        if self.env.agents:
            self._has_updated = True
            self.env.step(action)
        elif action is not None:
            raise ResetNeeded(f"action {action!r:.40} after the game ended and every agent left it: call reset() to deal a new game")
        else:
            super().step(action)


class RefusingTerminateIllegalWrapper(TerminateIllegalWrapper):  # type: ignore[misc]  # PettingZoo's classes are Any to mypy
    """PettingZoo's TerminateIllegalWrapper, except that a value that is no action index at all (not
    an int below `num_actions`) is still an IllegalActionError, not an IndexError from inside the
    wrapper. Each game names what an action is (`what_an_action_is`) and reads a 0-d array as its
    raise mode does (`as_action`)."""

    num_actions = 12
    what_an_action_is = "an action"

    @staticmethod
    def as_action(action: Any) -> Any:
        """`action` as the env's own action check reads it (a 0-d array as its item, or as it is)."""
        return action

    def step(self, action: Any) -> None:
        """End the game with the illegal reward for an illegal action; refuse a non-action."""
        agent = self.agent_selection
        action = self.as_action(action)
        acting = not (self.terminations.get(agent) or self.truncations.get(agent))
        is_index = isinstance(action, int | np.integer) and not isinstance(action, bool | np.timedelta64)
        if acting and (not is_index or not 0 <= action < self.num_actions):  # None too: only an agent that is out steps None
            raise IllegalActionError(
                f"{agent}: action {action!r} is not {self.what_an_action_is}; actions are the ints 0-{self.num_actions - 1}"
            )
        super().step(action)


def order_enforced(
    make_raw_env: Callable[[], Any], illegal_action: Any, illegal_reward: Any, terminating: type[RefusingTerminateIllegalWrapper]
) -> OrderEnforcingWrapper:
    """What either game's `env()` returns: `make_raw_env()` in the checked order enforcing, and in
    `terminating` first for `illegal_action="terminate"` (InvalidConfigError for a bad
    `illegal_action` or `illegal_reward`, before the env is made)."""
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTIONS:
        raise InvalidConfigError(
            f"illegal_action={illegal_action!r:.60} is not allowed; use one of {', '.join(map(repr, ILLEGAL_ACTIONS))}"
        )
    reward = finite_real(illegal_reward)  # any finite real, numpy scalars included
    if reward is None:
        raise InvalidConfigError(f"illegal_reward={illegal_reward!r:.60} is not allowed; it must be a finite real number (int or float)")
    game = make_raw_env()
    if illegal_action == "terminate":
        return _CheckedOrderEnforcingWrapper(terminating(game, reward))
    return _CheckedOrderEnforcingWrapper(game)
