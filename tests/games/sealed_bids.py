"""Sealed bids: a third game that lives in the tests only, the proof that a game is a plug-in.

Rules. 2-4 players each hold three bid cards, 1, 2 and 3. Three prizes, worth 1, 2 and 3, are
shuffled into a face-down pile. Each of the three rounds the top prize is turned face up and every
player, in seat order, lays one bid card face down; then all are turned over. The highest bid wins
the prize, unless another player laid the same card: then nobody does and the prize is discarded.
Bids are spent. After the third round the highest total of prizes wins; tied players share the win.

This file is all there is of the game: its rules, its PettingZoo AEC env (on the library's AEC
base, `miaui_env.core.aec`), its agents, its words for terminal play and replays, and its registry entry.
`tests/conftest.py` registers every game of `tests/games/` before the tests are collected, so every
test parametrised over the registry plays it, and the library's generic arena, terminal play,
replays and self-play trainer (`miaui_env.games`: a game without its own parts) play it too.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.conversions import aec_to_parallel

from miaui_env.core.aec import AECTurns, RefusingTerminateIllegalWrapper, checked_options, order_enforced
from miaui_env.core.errors import IllegalActionError, InvalidConfigError, final_rewards, is_integer
from miaui_env.core.loading import load_game_agent
from miaui_env.core.seeding import check_seed
from miaui_env.games import Game
from miaui_env.games.miaui.agents import RandomAgent

CARDS = 3  # bid cards 1-3, prizes 1-3, rounds 1-3
MIN_PLAYERS, MAX_PLAYERS = 2, 4
VIEWS, REWARDS, RENDER_MODES = ("table",), ("win", "score", "margin"), ("ansi", "human")
# round, prize shown, prizes to come, own hand, then per seat (self first): bids revealed, score / 6
SEAT_WIDTH = CARDS + 1
METADATA = {"name": "sealed_bids_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": True}
OBSERVATION_SIZE = 4 * CARDS + MAX_PLAYERS * SEAT_WIDTH


class raw_env(AECTurns, AECEnv):  # noqa: N801 (PettingZoo's naming)
    """Sealed bids as a PettingZoo AEC env: seats bid in turn, and a round's bids are shown when all are laid."""

    metadata = METADATA

    def __init__(self, *, num_players: int = 3, view: str = "table", reward: str = "win", render_mode: str | None = None, **unknown: Any):
        super().__init__()
        if unknown:
            raise InvalidConfigError(
                f"unknown table setting(s) {', '.join(sorted(unknown))}; settings: num_players, view, reward, render_mode"
            )
        if not is_integer(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise InvalidConfigError(f"num_players={num_players!r} is not allowed; sealed bids is played by 2-4 players")
        for name, value, allowed in (
            ("view", view, VIEWS),
            ("reward", reward, REWARDS),
            ("render_mode", render_mode, (None, *RENDER_MODES)),
        ):
            if value not in allowed or not isinstance(value, str | None):
                raise InvalidConfigError(f"{name}={value!r} is not allowed; allowed: {', '.join(map(repr, allowed))}")
        self.num_players, self.view, self.reward_mode, self.render_mode = int(num_players), view, reward, render_mode
        self._seat_agents(self.num_players, lambda seat: f"player_{seat}")
        box = gymnasium.spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        space = gymnasium.spaces.Dict({"observation": box, "action_mask": gymnasium.spaces.Box(0, 1, (CARDS,), np.int8)})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {agent: gymnasium.spaces.Discrete(CARDS) for agent in self.possible_agents}
        self.np_random, self.np_random_seed = np.random.default_rng(), None
        self._prizes: list[int] | None = None

    def _dealt(self, call: str = "using the env") -> list[int]:
        if self._prizes is None:
            raise gymnasium.error.ResetNeeded(f"call reset() before {call}: no game has been dealt yet")
        return self._prizes

    def check_reset(self, seed: Any = None, options: Any = None) -> None:
        """The seed and options checked; changes nothing."""
        check_seed(seed)
        checked_options(options, ())

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Shuffle the prizes and give every seat its three bids."""
        self.check_reset(seed, options)
        self._reseed(seed)
        self._prizes = [int(p) for p in self.np_random.permutation(CARDS) + 1]
        self.round, self.active = 0, 0
        self.hands = [set(range(1, CARDS + 1)) for _ in range(self.num_players)]
        self.pending: list[int] = []  # this round's face-down bids, seat order
        self.revealed = np.zeros((self.num_players, CARDS), dtype=np.float32)  # bids shown so far
        self.scores = [0] * self.num_players
        self._seat_everyone()
        self.agent_selection = self.possible_agents[0]
        self._render_as_it_goes()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What `agent` sees: the prize, the prizes to come, its hand, every seat's shown bids and score."""
        self._dealt("observe()")
        return self._observe(self.seat(agent))

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        prizes, seen = self._dealt(), np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        if self.round < CARDS:
            seen[self.round] = 1
            seen[CARDS + prizes[self.round] - 1] = 1
            seen[[2 * CARDS + p - 1 for p in prizes[self.round + 1 :]]] = 1
        seen[[3 * CARDS + c - 1 for c in self.hands[seat]]] = 1
        for offset in range(self.num_players):
            other, at = (seat + offset) % self.num_players, 4 * CARDS + offset * SEAT_WIDTH
            seen[at : at + CARDS], seen[at + CARDS] = self.revealed[other], self.scores[other] / 6
        mask = np.zeros(CARDS, dtype=np.int8)  # the bids in hand, as a simultaneous game shows every seat (Miaui's too)
        if self.round < CARDS:
            mask[[c - 1 for c in self.hands[seat]]] = 1
        return {"observation": seen, "action_mask": mask}

    def step(self, action: Any) -> None:
        """Lay bid card `action + 1` face down; the last bid of a round turns them all over."""
        agent = self._agent_to_step(action)
        if agent is None:
            return
        card = action + 1 if is_integer(action) and not isinstance(action, bool) else None
        if card not in self.hands[self.active]:
            raise IllegalActionError(
                f"{agent}: action {action!r} is not a bid in hand; bids {sorted(c - 1 for c in self.hands[self.active])}"
            )
        self.hands[self.active].remove(card)
        self.pending.append(card)
        self._cumulative_rewards[agent] = 0.0
        self.active = (self.active + 1) % self.num_players
        if len(self.pending) == self.num_players:
            self._reveal()
        self.agent_selection = self.possible_agents[self.active]
        self._render_as_it_goes()

    def _reveal(self) -> None:
        top = max(self.pending)
        if self.pending.count(top) == 1:
            self.scores[self.pending.index(top)] += self._dealt()[self.round]
        for seat, card in enumerate(self.pending):
            self.revealed[seat, card - 1] = 1
        self.pending, self.round = [], self.round + 1
        if self.round == CARDS:
            best = max(self.scores)
            self.infos = {a: {"score": self.scores[s], "winner": self.scores[s] == best} for s, a in enumerate(self.agents)}
            self.rewards = dict(zip(self.agents, final_rewards(np.array(self.scores), self.reward_mode).tolist(), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()

    def _table_text(self) -> str:
        prizes = self._dealt("render()")
        shown = f"prize {prizes[self.round]}" if self.round < CARDS else "game over"
        seats = [
            f"player_{s}: {self.scores[s]} ({', '.join(str(c + 1) for c in np.flatnonzero(self.revealed[s])) or '-'})"
            for s in range(self.num_players)
        ]
        return f"round {min(self.round + 1, CARDS)} of {CARDS}, {shown}, {len(self.pending)} bid(s) face down | " + "; ".join(seats)


class _TerminateIllegal(RefusingTerminateIllegalWrapper):
    num_actions = CARDS
    what_an_action_is = "a bid (0-2 for cards 1-3)"


def env(*, illegal_action: str = "raise", illegal_reward: float = -1.0, **kwargs: Any) -> Any:
    """The AEC env, order enforced (`illegal_action="terminate"` as PettingZoo's classic games)."""
    return order_enforced(lambda: raw_env(**kwargs), illegal_action, illegal_reward, _TerminateIllegal)


def parallel_env(**kwargs: Any) -> Any:
    """The Parallel env: a round's bids laid at once (PettingZoo's conversion of the AEC env)."""
    return aec_to_parallel(env(**kwargs))


class MatchThePrize:
    """Bids the card of the prize's rank: 3 on the 3-prize, 1 on the 1-prize."""

    name = "match-the-prize"

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The matching bid where it is still in hand, else the highest bid held."""
        prize = np.argmax(observations[:, CARDS : 2 * CARDS], axis=1)
        held = np.asarray(masks, dtype=bool)
        fallback = CARDS - 1 - np.argmax(held[:, ::-1], axis=1)
        return np.where(held[np.arange(len(held)), prize], prize, fallback)

    def reset(self) -> None:
        """Nothing is remembered."""


AGENTS = {"random": lambda seed: RandomAgent(seed, num_actions=CARDS), "match-the-prize": lambda seed: MatchThePrize()}
OBSERVATION_VERSION = 1


def agent_names() -> list[str]:
    """The built-in agents' names."""
    return list(AGENTS)


def shipped_policies() -> list[str]:
    """No trained policy is shipped for it."""
    return []


def load_agent(spec: Any, seed: int | None = None) -> Any:
    """A built-in agent by name, or a policy trained on the game (a self-play run's folder)."""
    return load_game_agent(GAME.name, spec, seed, AGENTS, OBSERVATION_VERSION)


class Words:
    """Sealed bids in words, for terminal play and replays."""

    def introduction(self, num_players: int, seat: int) -> list[str]:
        """The rules, in short."""
        return ["Each round bid 1-3 for the prize shown; the highest bid wins it, unless it is tied: then nobody does."]

    def seat_view(self, env: Any, agent: str) -> list[str]:
        """What `agent` may see now."""
        game = env.unwrapped
        return [game._table_text(), f"your bids: {sorted(game.hands[game.seat(agent)])}"]

    def action(self, action: int) -> str:
        """A bid in words."""
        return f"bid {action + 1}"


WORDS = Words()

GAME = Game(
    name="sealed_bids",
    title="sealed bids",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=3,
    variants=(),
    views=VIEWS,
    baselines=("random", "match-the-prize"),
    card_players=(2, 3),
    play_opponents=("match-the-prize",),
    parts={
        "env": f"{__name__}:env",
        "parallel_env": f"{__name__}:parallel_env",
        "load_agent": f"{__name__}:load_agent",
        "agent_names": f"{__name__}:agent_names",
        "shipped_policies": f"{__name__}:shipped_policies",
        "observation_version": f"{__name__}:OBSERVATION_VERSION",
        "words": f"{__name__}:WORDS",
    },
)
