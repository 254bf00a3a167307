"""The browser app's octopus games (rulings O1-O12, docs/rules/octopus.md), without the web framework:
what a page may ask for, a person's game against octopus agents, and what their page shows;
`OctopusWeb` gathers them as the registry's `web` part (`miaui_env.core.web.GameWeb`), served at
`/octopus` and `/api/octopus/...` by the app's routes, written once for every game.

The engine plays every forced move (O10); the server plays the agents' decisions on until the
person must decide. The page shows what the person's observation holds in the view they chose
(O4), decoded from `miaui_env.games.octopus.observation.observe` piece by piece: never the deck's
order or a die roll to come. Requests are checked here and refused with `WebError` naming the
value and what is allowed; a refused request changes nothing.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.core.agents import Agent
from miaui_env.core.web import (
    HUMAN,
    AgentChoice,
    AgentsGame,
    GameWeb,
    WebError,
    checked_decision,
    checked_int,
    checked_object,
    checked_seat,
    checked_seed,
    decision_request,
    missing_agents,
    no_agents_game,
    offered_agents,
    save_web_replay,
    seated_opponents,
)
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.agents import load_octopus_agents, octopus_agents, shipped_octopus_policies
from miaui_env.games.octopus.env import play_decision
from miaui_env.games.octopus.observation import (
    DECISIONS,
    FACES,
    OBSERVATION_LAYOUT,
    SCORE_SCALE,
    SEAT_LAYOUT,
    SESSION_SCALE,
    SIZE_SCALE,
    VALUES,
    VIEWS,
    check_view,
    observe,
)
from miaui_env.games.octopus.play import steal_odds
from miaui_env.games.octopus.replay import (
    GAME,
    MAX_SEED,
    OctopusReplay,
    describe_event,
    record,
    replay_from_json,
    replay_states,
    replay_to_json,
    save_replay,
)
from miaui_env.games.octopus.rules import MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS, NUM_OCTOPUSES, TARGET, OctopusState

DEFAULT_OPPONENT = "risk-aware"
NEW_GAME_FIELDS = ("num_players", "seat", "opponents", "view", "seed")

_OCTOPUS_ABOUT = {
    "random": "a random legal decision",
    "cautious": "flips until its row holds 3 cards; after an octopus steals 1 from the largest collection",
    "risk-aware": "flips while one more flip's expected gain is positive; steals when it pays (plays from the recall view)",
    "theft-aware": "risk-aware, counting the theft an octopus would allow as part of a flip's gain (plays from the recall view)",
    "rival-aware": "theft-aware, weighing a theft by what it takes from the leading opponent (plays from the recall view)",
}


def octopus_menu() -> tuple[AgentChoice, ...]:
    """The octopus opponents a page may choose: the baselines and, where torch and sb3-contrib are
    installed, every shipped octopus policy (most likely decision, or drawn from its mixed strategy).
    A request can only name these: never a path."""
    builtin = [AgentChoice(name, _OCTOPUS_ABOUT.get(name, name)) for name in octopus_agents()]
    return offered_agents(builtin, octopus_policy_choices)


def octopus_policy_choices() -> list[AgentChoice]:
    """Every shipped octopus policy's two opponents (most likely decision, mixed strategy), installed or not."""
    choices = []
    for policy in shipped_octopus_policies():
        choices += [
            AgentChoice(policy, f"the shipped octopus policy {policy}: its most likely decision", True),
            AgentChoice(f"{policy}@sample", f"the shipped octopus policy {policy}: a decision drawn from its mixed strategy", True),
        ]
    return choices


@dataclass(frozen=True)
class OctopusChoice:
    """An octopus table from the page: its size, the agents by seat (None: the person's seat), the
    person's view (O4), and the deal's seed (None: a fresh one)."""

    num_players: int
    agents: tuple[str | None, ...]
    view: str = "table"
    seed: int | None = None

    @classmethod
    def parse(cls, body: Any, menu: Sequence[AgentChoice]) -> OctopusChoice:
        """The table a request body asks for: `opponents` lists one agent for each other seat,
        clockwise from the person's left (default: risk-aware everywhere)."""
        body = checked_object(body, NEW_GAME_FIELDS, "a new octopus game")
        n = checked_int(body.get("num_players", 2), "num_players", MIN_PLAYERS, MAX_PLAYERS)
        agents = seated_opponents(body, n, [DEFAULT_OPPONENT] * (n - 1), menu, "octopus agent")
        view = body.get("view", "table")
        if view not in VIEWS:
            raise WebError(f"view={view!r:.40} is not allowed: {' or '.join(VIEWS)} (O4)")
        seed = body.get("seed")
        return cls(n, agents, view, checked_seed(seed, MAX_SEED))


# -- what the person's seat sees ------------------------------------------------------------------
def _cards(counts: np.ndarray) -> list[str]:
    """Card names ("cod:4") from a (species, value) count block, species in order, values ascending."""
    whole = np.rint(counts).astype(int)
    species, values = np.nonzero(whole)
    return [f"{rules.SPECIES_NAMES[s]}:{VALUES[v]}" for s, v in zip(species, values, strict=True) for _ in range(whole[s, v])]


def _scaled(value: Any, scale: float) -> int:
    return round(float(np.asarray(value).item()) * scale)


def octopus_table(observation: np.ndarray, seat: int, num_players: int, view: str) -> dict[str, Any]:
    """The table as `seat` sees it, read from its observation (OBSERVATION_LAYOUT) alone: the row in
    flip order, the deck and discard sizes, the session's last theft, and every seat (absolute seat
    numbers) with its total and collection size; collections card by card for its own seat and,
    in the recall view, everyone's and the discard pile's (O4). Hidden pieces are null, not empty."""
    recall = check_view(view) == "recall"

    def piece(name: str) -> np.ndarray:
        return OBSERVATION_LAYOUT.view(observation, name)

    row_values, row_order = piece("row"), piece("row_order")
    in_row = sorted((_scaled(row_order[s], rules.NUM_SPECIES), s) for s in range(rules.NUM_SPECIES) if row_values[s] > 0)
    row = [f"{rules.SPECIES_NAMES[s]}:{_scaled(row_values[s], max(VALUES))}" for _, s in in_row]
    rows = piece("seats")
    seats: list[dict[str, Any]] = [{} for _ in range(num_players)]
    theft: dict[str, Any] | None = None
    roll = piece("last_roll")
    if roll.any():
        theft = {"roll": FACES[int(np.argmax(roll))], "k": int(np.argmax(piece("theft_k"))) + 1, "moved": _cards(piece("theft_moved"))}
    for rel in range(num_players):
        absolute = (seat + rel) % num_players

        def field(name: str, rel: int = rel) -> np.ndarray:
            return SEAT_LAYOUT.view(rows[rel], name)

        shown = rel == 0 or recall
        seats[absolute] = {
            "seat": absolute,
            "to_act": bool(field("to_act")[0]),
            "total": _scaled(field("total"), TARGET),
            "collection_size": _scaled(field("collection_size"), SIZE_SCALE),
            "session_score": _scaled(field("session_score"), SCORE_SCALE) if shown else None,
            "collection": _cards(field("collection")) if shown else None,
        }
        if theft is not None and field("thief")[0]:
            theft["thief"] = absolute
        if theft is not None and field("theft_target")[0]:
            theft["target"] = absolute
    return {
        "session": _scaled(piece("session"), SESSION_SCALE),
        "row": row,
        "deck_size": _scaled(piece("deck_size"), SIZE_SCALE),
        "discard_size": _scaled(piece("discard_size"), SIZE_SCALE),
        "discard": _cards(piece("discard")) if recall else None,
        "discard_octopuses": _scaled(piece("discard_octopuses"), NUM_OCTOPUSES) if recall else None,
        "asked": DECISIONS[int(np.argmax(piece("decision")))],
        "last_theft": theft,
        "seats": seats,
    }


def _odds(k: int) -> str:
    chance = steal_odds(k)
    return f"{chance.numerator}/{chance.denominator}"


def legal_actions(state: OctopusState) -> list[dict[str, Any]]:
    """The seat to act's legal actions (O3, O5) as {action, label, key}: s stop, f flip, n no theft,
    and the digits 1-9 for the thefts in order; empty once the game is over."""
    actions = []
    thefts = 0
    for decision in rules.legal_decisions(state):
        action = rules.action_of(state, decision)
        if isinstance(decision, rules.Theft):
            thefts += 1
            label = f"steal {decision.k} from player_{decision.target}"
            actions.append({"action": action, "label": label, "key": str(thefts), "odds": _odds(decision.k)})
        else:
            label = {rules.STOP: "stop", rules.FLIP: "flip", rules.NO_THEFT: "no theft"}[decision]
            actions.append({"action": action, "label": label, "key": label[0]})
    return actions


# -- a person's game ----------------------------------------------------------------------------
class OctopusHumanGame:
    """One person's octopus game against agents on the rules engine: the agents decide on their own
    observations (each in its own view), the engine plays forced moves (O10), and the game waits at
    each of the person's decisions."""

    def __init__(self, state: OctopusState, agents: Mapping[int, Agent], view: str = "table", seed: int = 0):
        n = state.num_players
        if len(agents) != n - 1 or not all(0 <= s < n for s in agents):
            raise ValueError(f"an OctopusHumanGame has agents in all seats but one; got seats {sorted(agents)} at a table of {n}")
        self.id = secrets.token_urlsafe(12)
        self.state, self.agents, self.view, self.seed = state, dict(agents), check_view(view), seed
        self.seat = next(s for s in range(n) if s not in agents)
        self.players = tuple(HUMAN if s == self.seat else self.agents[s].name for s in range(n))
        self.agent_views = {s: check_view(getattr(agent, "view", "table")) for s, agent in self.agents.items()}
        self.actions: list[int] = []
        self.replay: OctopusReplay | None = None
        self.replay_path: Path | None = None
        self.replay_error: str | None = None
        self.lock = threading.Lock()  # one decision at a time: a double click is refused as a stale step
        self._play_agents()

    @property
    def over(self) -> bool:
        """Whether the game has ended (O9, O12)."""
        return self.state.is_over

    def _play_agents(self) -> None:
        """The agents' decisions, until the person must decide or the game ends."""
        state = self.state
        while not state.is_over and state.active != self.seat:
            self.actions.append(play_decision(self.agents[state.active], state, self.agent_views[state.active]))

    def decide(self, body: Any, replays: Path | None = None) -> None:
        """The person's decision as a request body gives it, `{"action": an action index, "step": optional}` (`play`)."""
        action, step = decision_request(body, f"an action index 0-{NUM_ACTIONS - 1}")
        self.play(action, step, replays)

    def play(self, action: Any, step: Any = None, replays: Path | None = None) -> None:
        """The person's decision (an action index, O10) and the agents' after it; WebError, nothing
        changed, if it is not a legal one (409 if the game is over or past `step`, the number of
        decisions made when the page asked). The finished game is saved in the folder `replays`
        (if given; the app gives its replays folder's `octopus/`, which the octopus shelf lists)."""
        with self.lock:
            if self.over:
                raise WebError("this octopus game is over: deal a new one", 409)
            legal = {choice["action"]: choice["label"] for choice in legal_actions(self.state)}
            action = checked_decision(action, step, len(self.actions), legal, NUM_ACTIONS)
            self.actions.append(action)
            rules.step(self.state, rules.decision_of(self.state, action))
            self._play_agents()
            if self.over:
                players = list(self.players)
                self.replay = record(self.state, self.actions, seed=self.seed, view=self.view, players=players)
                self.replay_path, self.replay_error = save_web_replay(save_replay, self.replay, replays, self.id)

    def page(self) -> dict[str, Any]:
        """What the person's page shows: their seat's table from its observation, their legal
        actions, the game so far in words, and at the end the final totals and winners (O9)."""
        with self.lock:
            state, n = self.state, self.state.num_players
            final = states_final(state) if self.over else None
            mine = not self.over and state.active == self.seat
            return {
                "id": self.id,
                "game": GAME,
                "seat": self.seat,
                "num_players": n,
                "players": list(self.players),
                "view": self.view,
                "step": len(self.actions),
                "table": octopus_table(observe(state, self.seat, self.view), self.seat, n, self.view),
                "legal": legal_actions(state) if mine else [],
                "log": [line for line in (describe_event(event, self.seat) for event in state.events) if line is not None],
                "session_scores": [list(scores) for scores in state.session_scores],  # scored aloud (O7)
                "over": self.over,
                "final": final,
                "replay": None if self.replay_path is None else str(self.replay_path),
                "replay_error": self.replay_error,
            }


def start_octopus_game(choice: OctopusChoice) -> OctopusHumanGame:
    """The person's octopus game for a parsed choice, dealt (a fresh seed when none was chosen) and
    played on to the person's first decision."""
    seed = choice.seed if choice.seed is not None else secrets.randbelow(MAX_SEED + 1)
    seats = [s for s, name in enumerate(choice.agents) if name is not None]
    loaded = load_octopus_agents([name for name in choice.agents if name is not None], seed)
    state = rules.new_game(choice.num_players, seed=seed)
    return OctopusHumanGame(state, dict(zip(seats, loaded, strict=True)), choice.view, seed)


# -- watching a replay ------------------------------------------------------------------------------
def octopus_frames(replay: OctopusReplay, seat: Any = None) -> dict[str, Any]:
    """A replay as the page steps through it: the table after the deal and after every decision, as
    `seat` sees it in the recall view (every card once shown, which is everything that moved: O4;
    None: the replay's human seat, else player_0), each with the events since the frame before."""
    n = replay.num_players
    chosen = checked_seat(seat, n)
    if chosen is None:
        chosen = replay.players.index(HUMAN) if HUMAN in replay.players else 0
    frames, seen = [], 0
    states = replay_states(replay)  # checked: an edited replay is refused here
    for step, state in enumerate(states):
        lines = [line for line in (describe_event(event, chosen) for event in state.events[seen:]) if line is not None]
        seen = len(state.events)
        frames.append({"step": step, "table": octopus_table(observe(state, chosen, "recall"), chosen, n, "recall"), "log": lines})
    final = states_final(states[-1])
    return {"seat": chosen, "num_players": n, "players": list(replay.players), "view": "recall", "frames": frames, "final": final}


def states_final(state: OctopusState) -> dict[str, Any]:
    """The end of a game: totals, winners, every session's scores, and whether the cap ended it (O7, O9, O12)."""
    return {
        "totals": list(state.totals),
        "winners": list(rules.winners(state)),
        "session_scores": [list(scores) for scores in state.session_scores],
        "truncated": state.truncated,
    }


class OctopusWeb:
    """The octopus game in the browser app: the registry's `web` part (`miaui_env.core.web.GameWeb`)."""

    page = "octopus.html"
    static_folder: Path | None = None
    replays_folder = GAME  # a folder of its own under the replays folder: its shelf lists it
    plays_agents_alone = False

    def menu(self) -> tuple[AgentChoice, ...]:
        """The octopus opponents offered (`octopus_menu`)."""
        return octopus_menu()

    def missing_opponents(self, menu: Sequence[AgentChoice]) -> list[str]:
        """The shipped octopus policies' opponents the training extra would bring."""
        return missing_agents(menu, octopus_policy_choices())

    def new_game(self, body: Any, menu: Sequence[AgentChoice]) -> OctopusChoice:
        """A person's octopus table (`OctopusChoice.parse`)."""
        return OctopusChoice.parse(body, menu)

    def start(self, choice: OctopusChoice) -> OctopusHumanGame:
        """The person's octopus game (`start_octopus_game`)."""
        return start_octopus_game(choice)

    def agents_game(self, body: Any, menu: Sequence[AgentChoice]) -> AgentsGame:
        """None here: the octopus page watches replays, not fresh games of agents."""
        raise no_agents_game("the octopus game", GAME)

    def replay_from_json(self, text: str) -> OctopusReplay:
        """An octopus replay (`miaui_env.games.octopus.replay`)."""
        return replay_from_json(text)

    def replay_to_json(self, replay: OctopusReplay) -> str:
        """An octopus replay's file text."""
        return replay_to_json(replay)

    def frames(self, replay: OctopusReplay, seat: Any) -> dict[str, Any]:
        """The table after the deal and after every decision (`octopus_frames`; None: the person's seat, else player_0)."""
        return octopus_frames(replay, seat)


def game_web() -> GameWeb:
    """The octopus game's page in the browser app (the registry's `web` part)."""
    return OctopusWeb()
