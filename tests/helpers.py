"""Stacked decks and scripted games for rules scenarios, random games and the AEC loop, a recording
agent, commands run as a user runs them, and the warnings PettingZoo's own tests give."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from miaui_env.games.miaui.cards import DEFAULT_DECK, FishCard, FishKind, parse_deck_order
from miaui_env.games.miaui.rules import GameConfig, GameState, RoundRecord, new_game, play_round

# Cards that pad a stacked deck after the rounds a scenario names: no Seagulls first, so that a
# scenario never meets a round-1 replacement it did not ask for.
_PAD_ORDER = sorted(DEFAULT_DECK, key=lambda c: (c.kind is FishKind.SEAGULL, c.kind.value, c.value))


def stacked_deck(rounds: Sequence[Sequence[str]], put_back: str | None = None) -> list[str]:
    """A full 37-card order: `put_back`, then each round's (bottom, middle, top), then the rest."""
    named = ([put_back] if put_back else []) + [card for spaces in rounds for card in spaces]
    left = Counter(DEFAULT_DECK) - Counter(FishCard.parse(c) for c in named)
    pad = []
    for c in _PAD_ORDER:
        if left[c] > 0:
            pad.append(str(c))
            left[c] -= 1
    if put_back is None:
        return [pad[0], *named, *pad[1:]]
    return named + pad


def stacked_game(rounds: Sequence[Sequence[str]], put_back: str | None = None, seed: int = 0, **config: object) -> GameState:
    """A new game whose deck deals `rounds` in order (R4)."""
    order = parse_deck_order(stacked_deck(rounds, put_back))
    return new_game(GameConfig(**config), np.random.default_rng(seed), order)  # type: ignore[arg-type]


def play(state: GameState, *rounds: Sequence[int]) -> list[RoundRecord]:
    """Play several rounds of diver cards; returns every record produced (forced round included)."""
    records: list[RoundRecord] = []
    for plays in rounds:
        records.extend(play_round(state, list(plays)))
    return records


def check_round_arrays(rounds: Sequence[object], records_per_game: Sequence[Sequence[RoundRecord]]) -> None:
    """The batched engine's round arrays (a step's `infos["rounds"]`) are the rules' round records of
    each game, reveal by reveal (the forced round 12 too)."""
    from miaui_env.games.miaui.vector import DECISIONS  # here, so that the rules scenarios load no compiler

    assert len(rounds) == len(records_per_game[0])
    for k, batch in enumerate(rounds):
        records = [game_records[k] for game_records in records_per_game]
        assert [record.round for record in records] == [batch.round] * len(records)
        np.testing.assert_array_equal(batch.plays, [record.plays for record in records])
        np.testing.assert_array_equal(batch.catchers, [[-1 if d.winner is None else d.winner for d in r.depths] for r in records])
        np.testing.assert_array_equal(batch.best_cards, [[d.best_card or 0 for d in r.depths] for r in records])
        decisions = [[DECISIONS[i] for i in row] for row in batch.decisions.tolist()]
        assert decisions == [[d.decision for d in r.depths] for r in records]


def card(text: str) -> FishCard:
    """A FishCard from `kind:value`."""
    return FishCard.parse(text)


# R10's shared victory, dealt for 3 players: the two seats that always play their highest card split
# equal-valued pairs (60 points each, whichever of them Kiti favours); the seat that always plays its
# lowest card catches four Emperor Tunas, a Lantern and a Jellyfish, then six Seagulls that take all
# six back (0 points). Every seat catches every round (R7), so the deal decides the scores whatever
# the seats of the two high players.
_SHARED_PAIRS = [
    ("kittenfish:2", "kittenfish:2"), ("kittenfish:4", "kittenfish:4"), ("tigerfish:6", "tigerfish:6"),
    ("tigerfish:7", "tigerfish:7"), ("tigerfish:8", "tigerfish:8"), ("tigerfish:9", "tigerfish:9"),
    ("emperor_tuna:12", "emperor_tuna:12"), ("emperor_tuna:13", "emperor_tuna:13"), ("kittenfish:1", "lantern:1"),
    ("kittenfish:3", "lantern:3"), ("kittenfish:5", "lantern:5"), ("jellyfish:-10", "jellyfish:-10"),
]  # fmt: skip
_SHARED_THIRD = [
    "emperor_tuna:10", "emperor_tuna:11", "emperor_tuna:14", "emperor_tuna:15", "lantern:7", "jellyfish:-15", *["seagull:0"] * 6,
]  # fmt: skip
# Rounds 1-6: the pairs at the bottom and middle, the third card on top; rounds 7-12 the reverse.
SHARED_VICTORY_ROUNDS = [(a, b, _SHARED_THIRD[r]) if r < 6 else (_SHARED_THIRD[r], a, b) for r, (a, b) in enumerate(_SHARED_PAIRS)]
SHARED_VICTORY_PUT_BACK = "jellyfish:-15"
SHARED_VICTORY_HIGH_SCORE = 2 + 4 + 6 + 7 + 8 + 9 + 12 + 13 + 1 + 3 + 5 - 10  # each high player's pair cards: 60


def highest_card(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A batched policy: every row plays the highest diver card in hand."""
    return np.asarray(masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1))


def lowest_card(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A batched policy: every row plays the lowest diver card in hand."""
    return np.asarray(np.argmax(masks, axis=1))


@contextlib.contextmanager
def pettingzoos_own_warnings_only(*more: str) -> Iterator[None]:
    """Every warning an error but those PettingZoo's tests give by design (Dict observations, all-zero
    masks of waiting and finished agents, api_test's made-up reset option) and the `more` given."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in (
            "Observation space for each agent probably should be",
            "Observation is not a NumPy array",
            "Action mask numpy array is all zeros",
            "reset option.s. options ignored",
            *more,
        ):
            warnings.filterwarnings("ignore", message=message)
        yield


# Short games (MV1-MV3): a deck of 3 x rounds + 1 cards that holds every effect early (a Lantern, a
# Seagull and Jellyfish among the first cards), so that R5 and R9 happen in two or three rounds.
EFFECTS_FIRST = (
    "lantern:5 seagull:0 jellyfish:-10 tigerfish:7 jellyfish:-15 emperor_tuna:12 lantern:1 jellyfish:-10 kittenfish:2 seagull:0 "
    "emperor_tuna:15 tigerfish:9 kittenfish:4 lantern:3 emperor_tuna:10 tigerfish:6 kittenfish:1 jellyfish:-15 seagull:0 "
    "emperor_tuna:13 tigerfish:8 kittenfish:5 lantern:7 emperor_tuna:11 tigerfish:6 kittenfish:3 seagull:0 emperor_tuna:14 "
    "tigerfish:7 kittenfish:2 emperor_tuna:12 tigerfish:8 seagull:0 emperor_tuna:13"
)


def effects_first_deck(rounds: int) -> str:
    """A short game's deck list (MV2) whose first cards hold every effect."""
    return " ".join(EFFECTS_FIRST.split()[: 3 * rounds + 1])


TEST_GAMES = Path(__file__).parent / "games"


def environment_with_test_games() -> dict[str, str]:
    """This process's environment, plus what names the test-only games (tests/games/) to a command
    run in a subprocess: their folder on PYTHONPATH, their entries in MIAUI_RL_GAMES."""
    from miaui_env.games import GAMES_VARIABLE

    modules = sorted(path.stem for path in TEST_GAMES.glob("*.py"))
    path = os.pathsep.join(p for p in (str(TEST_GAMES), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, GAMES_VARIABLE: " ".join(f"{module}:GAME" for module in modules)}


OLD_MODULES = tuple(
    f"miaui_env.{name}"
    for name in (
        "adapters",
        "arena",
        "belief",
        "cards",
        "cli",
        "compact",
        "compact_torch",
        "demo",
        "env",
        "files",
        "observation",
        "picture",
        "play",
        "privileged",
        "render",
        "replay",
        "rules",
        "saved_state",
        "sb3",
        "seeding",
        "settings",
        "single_agent",
        "web",
    )
)
"""Every module 0.1 had at the package's top level (0.1's tree): aliases in 0.2, gone since 0.3."""


# -- random games, the AEC loop and a recording agent ------------------------------------------
# The table sizes, variants and views that the whole-game checks of a seat's view play (each a
# size, Open Baskets, No Fighting and the view): every size, each variant alone and together, both views.
SEAT_VIEW_TABLES = [
    (3, False, False, "table"),
    (4, True, False, "table"),
    (4, False, True, "table"),
    (4, False, False, "recall"),
    (5, False, True, "table"),
    (5, False, True, "recall"),
    (6, True, True, "table"),
    (6, True, True, "recall"),
]


def random_game_states(config: GameConfig, view: str, rng: np.random.Generator, games: int) -> Iterator[tuple[GameState, Any]]:
    """`games` games played by random legal cards from `rng`: every state from the deal to the end,
    each with an `Encoder` of `view` refreshed on it."""
    from miaui_env.games.miaui.encoder import Encoder

    for _ in range(games):
        state = new_game(config, rng)
        encoder = Encoder(state.config, view)
        while True:
            encoder.refresh(state)
            yield state, encoder
            if state.is_over:
                break
            play_round(state, [int(rng.choice(state.legal_cards(s))) for s in range(state.num_players)])


def aec_decisions(env: Any) -> Iterator[tuple[str, Any]]:
    """A PettingZoo AEC game's loop, decisions only: each agent that must act with its observation,
    for the caller to step; an agent whose game has ended is stepped with None here."""
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        yield agent, observation


class RecordingAgent:
    """Plays its lowest card and keeps every batch it was asked about: the observations in `seen`, the
    masks in `masks`. Without a `view` it has no `view` attribute: it is shown the view it is given."""

    def __init__(self, name: str = "recorder", view: str | None = None):
        self.name, self.seen, self.masks = name, [], []
        if view is not None:
            self.view = view

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.seen.append(observations.copy())
        self.masks.append(masks.copy())
        return np.argmax(masks, axis=1)

    def reset(self) -> None:
        pass


# -- commands ----------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent


def run_module(module: str, *args: str, timeout: float = 120, **run: Any) -> subprocess.CompletedProcess[str]:
    """`python -m module args...` from the repository root as a user runs it, its output captured as
    text; `run` passes on to `subprocess.run` (input, env)."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, **run)


# -- the browser app's requests -----------------------------------------------------------------
def bad_new_games(players: str, low: int, high: int, offered: str, kind: str = "agent") -> list[tuple[dict[str, Any], str]]:
    """The changes to a new game's request body for a table of 3 that every game's page refuses alike
    (`miaui_env.core.web`'s checks), each with its error: the table size `players` (from `low` to
    `high`) out of range or not an integer, a seat past the table, too few opponents (`kind` names),
    one not offered (the menu starts with `offered`), a negative seed."""
    return [
        ({players: high + 1}, rf"{players}={high + 1} is not allowed: an integer from {low} to {high}"),
        ({players: "3"}, rf"{players}='3' is not allowed"),
        ({"seat": 3}, r"seat=3 is not allowed: an integer from 0 to 2"),
        ({"opponents": ["random"]}, rf"opponents=\['random'\]: a list of 2 {kind} names"),
        ({"opponents": ["random", "nobody"]}, rf"agent 'nobody' is not offered here; choose from {offered}"),
        ({"seed": -1}, r"seed=-1 is not allowed"),
    ]


def bad_decisions(step: int) -> list[tuple[Any, int, str]]:
    """Decision request bodies that every page deciding by action refuses alike
    (`miaui_env.core.web.decision_request` and `checked_decision`), in a game at `step` decisions
    where action 1 is legal, each with its status and error."""
    return [
        ({"action": True}, 400, r"action=True is not an action"),
        ({"action": 1.0}, 400, r"action=1.0 is not an action"),
        ({"step": 0}, 400, r"a decision is a JSON object \{'action'"),
        ({"action": 1, "card": 3}, 400, r"a decision is a JSON object"),
        ([1], 400, r"a decision is a JSON object"),
        ({"action": 1, "step": step + 1}, 409, rf"step={step + 1} is not the decision being asked: the game is at step {step}"),
        ({"action": 1, "step": "0"}, 400, r"step='0' is not allowed: the decisions made so far, an integer >= 0 \(the game is at step"),
        ({"action": 1, "step": float(step)}, 400, r"step=\d+\.0 is not allowed"),
        ({"action": 1, "step": False}, 400, r"step=False is not allowed"),
        ({"action": 1, "step": -1}, 400, r"step=-1 is not allowed"),
        ({"action": 1, "step": [0]}, 400, r"step=\[0\] is not allowed"),
    ]
