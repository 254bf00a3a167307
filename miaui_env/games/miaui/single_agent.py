"""One seat of Miaui against fixed opponents, as a Gymnasium env (`miaui_env/Miaui-v0`).

    env = gymnasium.make("miaui_env/Miaui-v0", num_players=4, opponents=None)

The agent plays one seat (`seat=None` draws it anew each reset from the env's generator, so every
position at the table is learned); the other seats are played by `opponents`: None (uniformly
random legal cards), one agent or batched callable for every opponent seat (asked once a round
for all of them, one row a seat, so an agent with memory follows each seat), or a list with one
per opponent seat in clockwise order from the agent's left. Observations are the env's 620-float vector
(`miaui_env.env` documents it) as a Box; `action_masks()` gives the legal cards, which is what
sb3-contrib's MaskablePPO looks for, and every info holds them too as `info["action_mask"]`
(int8, Gymnasium's Taxi convention). Once the game is over the mask allows every card: the next
step of a vector env with next-step autoreset is a reset that ignores its action, and a mask with
no legal card would leave nothing to choose. Rewards, views, variants and errors are the env's: an action
that is not a card in hand raises IllegalActionError and changes nothing. An opponent that plays
from the recall view (its `view` attribute says so, as a policy trained on it does) is shown it,
whatever `view` the agent sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import gymnasium
import numpy as np
from gymnasium.error import ResetNeeded

from miaui_env.core.agents import Agent, AgentError, Policy, RandomAgent, check_agent, checked_actions, reset_agent
from miaui_env.core.errors import InvalidConfigError, is_integer
from miaui_env.core.render import RENDER_MODES
from miaui_env.games.miaui import GYMNASIUM_ID
from miaui_env.games.miaui.agents import as_seen, views_at_table
from miaui_env.games.miaui.compact import compact_observations
from miaui_env.games.miaui.display.picture import seat_picture
from miaui_env.games.miaui.env import MiauiParallelEnv, observation_box
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS
from miaui_env.games.miaui.spec import TableKwargs, TableSpec

ENV_ID = GYMNASIUM_ID


class MiauiSingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One seat against fixed opponents; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        *,
        opponents: Agent | Policy | Sequence[Agent | Policy] | None = None,
        seat: int | None = None,
        render_mode: str | None = None,
        **settings: Unpack[TableKwargs],
    ):
        table = TableSpec.of(**settings)
        num_players, self.view = table.num_players, table.view
        if seat is not None and (not is_integer(seat) or not 0 <= seat < num_players):
            raise InvalidConfigError(f"seat={seat!r} is not allowed; use None (a random seat each game) or an int 0-{num_players - 1}")
        self._opponents = _opponent_list(RandomAgent() if opponents is None else opponents, num_players - 1)
        # An opponent trained on the recall view is shown it; everyone else sees `view`.
        self._views, self._dealt = views_at_table(self._opponents, self.view)
        positions: dict[int, list[int]] = {}  # each distinct agent -> the opponent positions it plays
        for k, opponent in enumerate(self._opponents):
            positions.setdefault(id(opponent), []).append(k)
        self._seats_of_agent = list(positions.values())
        # The table plays in floats (what the opponents read); the agent's own view is coded last.
        self.compact = table.observation_dtype == "uint8"
        self._game = MiauiParallelEnv(render_mode=render_mode, **table.replace(view=self._dealt, observation_dtype="float32").as_kwargs())
        self.fixed_seat = None if seat is None else int(seat)
        self.seat = self.fixed_seat or 0
        self.num_players, self.render_mode = num_players, render_mode
        self.observation_space = observation_box(self.compact)
        self.action_space = gymnasium.spaces.Discrete(NUM_DIVER_CARDS)
        self._obs: dict[str, dict[str, np.ndarray]] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game (deck from this env's generator, or `options={"deck": [...]}`); the agent's seat."""
        seed, _ = self._game.check_reset(seed, options)  # refused arguments change nothing: no seat drawn, no reseeding
        super().reset(seed=seed)  # a numpy integer seed, checked, as the Python int Gymnasium takes
        game_seed = int(self.np_random.integers(2**31))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(self.num_players))
        for opponent in self._opponents:
            # Agents own their generators (the protocol); reseeding them from this env's makes the
            # whole game, the opponents' choices included, follow reset(seed=...).
            if isinstance(getattr(opponent, "rng", None), np.random.Generator):
                opponent.rng = np.random.default_rng(self.np_random.integers(2**31))  # type: ignore[union-attr]
            reset_agent(opponent)
        self._obs, _ = self._game.reset(seed=game_seed, options=options)
        return self._own_observation(), {"seat": self.seat, "action_mask": self.action_masks().astype(np.int8)}

    def _own_observation(self) -> np.ndarray:
        seen = as_seen(self._obs[f"player_{self.seat}"]["observation"], self.view, self._dealt)
        return compact_observations(seen) if self.compact else seen

    def action_masks(self) -> np.ndarray:
        """Legal cards of the agent's seat (bool, 12). Once the game is over, every card: what comes
        next is a reset, and a vector env's next-step autoreset steps a finished env with an action
        it ignores, which a mask with no legal card would make impossible to choose."""
        if not self._obs:
            raise ResetNeeded("call reset() before action_masks(): no game has been dealt yet")
        if self._game.is_over:
            return np.ones(NUM_DIVER_CARDS, dtype=bool)
        return self._obs[f"player_{self.seat}"]["action_mask"].astype(bool)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the agent's card; the opponents choose theirs from their own observations."""
        if self._game.is_over:  # (before any reset, `is_over` raises ResetNeeded)
            raise ResetNeeded("the game is over: call reset() to deal a new one")
        me = f"player_{self.seat}"
        self._game.check_action(me, action)  # refuse a bad card before the opponents move
        actions = {me: action}
        # Each agent is asked once, for all the seats it plays, one row a seat in a fixed order (the
        # agent protocol): an agent with memory (the counter) then follows each seat by its row.
        for positions in self._seats_of_agent:
            opponent, view = self._opponents[positions[0]], self._views[positions[0]]
            agents = [f"player_{(self.seat + k + 1) % self.num_players}" for k in positions]
            shown = as_seen(np.stack([self._obs[agent]["observation"] for agent in agents]), view, self._dealt)
            masks = np.stack([self._obs[agent]["action_mask"] for agent in agents])
            for agent, card in zip(agents, checked_actions(opponent, shown, masks), strict=True):
                actions[agent] = int(card)
        self._obs, rewards, terminations, _, infos = self._game.step(actions)
        info = dict(infos[me])
        info.update(seat=self.seat, action_mask=self.action_masks().astype(np.int8))  # Gymnasium's Taxi convention
        return self._own_observation(), float(rewards[me]), bool(terminations[me]), False, info

    def render(self) -> Any:  # gymnasium 1.2 and 1.4 type this differently: text, a picture, or None printed
        """The table as text (`ansi`, `human`: a spectator's view, see `miaui_env.env`), or the agent's
        own seat as a picture (`rgb_array`: drawn from its observation, what the agent may see)."""
        if self.render_mode == "rgb_array":
            if not self._obs:
                raise ResetNeeded("call reset() before render(): no game has been dealt yet")
            return seat_picture(self._obs[f"player_{self.seat}"]["observation"], self.num_players)
        return self._game.render()


def _opponent_list(opponents: object, seats: int) -> list[Agent | Policy]:
    """One agent (or batched policy) per opponent seat, clockwise from the agent's left; AgentError otherwise."""
    if isinstance(opponents, Sequence) and not isinstance(opponents, str | bytes):
        if len(opponents) != seats:
            raise AgentError(f"opponents must give one agent for each of the {seats} other seats, got {len(opponents)}")
        return [check_agent(opponent, "opponent") for opponent in opponents]
    return [check_agent(opponents, "opponents")] * seats
