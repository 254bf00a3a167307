"""What a seat is shown (R5, R6, R11), tested on what users get, not on the reference encoder.

Each property plays two reachable games, built as stacked decks (37 cards, the put-back card first)
and every seat's diver cards, which differ only in something R11 hides, through every surface a
user reads a seat's view from, and compares what each seat is shown, step by step:

- `aec`: `miaui_env.env` (the observation, the action mask and the info of every agent, after the
  deal and after every single choice);
- `parallel`: `miaui_env.parallel_env` (observation, mask and info of every agent, after each reveal);
- `vector`: `VectorMiaui`'s rows (both games of a pair are two slots of one engine: observations and masks);
- `sb3`: `MiauiSelfPlayVecEnv`'s learner rows (every seat but the last learns; the last is played
  by an opponent agent; rows and `action_masks()`, the final row from `terminal_observation`);
- `gymnasium`: `MiauiSingleAgentEnv` seated at each seat in turn (observation, `action_masks()`, info);
- `picture`: `seat_picture` of each seat's observation from the Parallel env (pixels);
- `web-play`: the browser app's JSON for the person's seat (`GET /api/games/<id>`, then each
  `POST .../play`), the person seated at each seat in turn, through Flask's test client;
- `web-watch`: the browser app's replay frames for a seat (`POST /api/watch`, each frame's JSON);
- `replay-frames`: `miaui_env.games.miaui.replay.frames(replay, seat)`, the pictures a replay's GIF shows for a seat.

Where a surface plays a seat by an agent (sb3, gymnasium, web-play), that agent is `Script`: it
plays the test's cards for its seat, reading nothing but the round number (public), so both games
of a pair stay in step. The envs take a stacked deck (`reset(options={"deck": ...})`, VectorMiaui's
`reset(decks=...)`, the SB3 VecEnv's engine's `set_decks`, a replay's `deck`); the browser app's
person's game is only dealt from a seed, so `web-play` builds its `HumanGame` from a stacked
`rules.GameState` and puts it in the app's own `GameStore`, then drives it through HTTP alone.

The pure rules (`rules.new_game` with the deck order, `play_round`) tell each test where the cards
it swapped lie at every step (undealt, face-down with a peeker, buried in a pile, ...), so each
property compares exactly the steps and seats R11 covers:

1. pending choices (AEC only: every other surface takes the joint action in one call, so there is
   no state between a choice and its reveal to look at): seats that have chosen differently in a
   round change nobody's view until the reveal, which then shows it;
2. deck order and the put-back card: two undealt cards (or one and the put-back card) swapped
   change nobody's view until one of them is dealt, which then shows it;
3. face-down cards (R5): the card lying face-down after a Lantern swapped with an undealt one
   changes nobody's view but its peeker's while it lies face-down, and the peeker's does change;
4. buried fish: two plain fish caught by one seat in swapped order change nobody else's table view
   (no Open Baskets) while both lie below the top of the pile and out of the last reveal; the
   recall view or Open Baskets (drawn) does show them apart while one is among the top three;
5. hands and old discards: one seat's two diver cards played in swapped rounds (chosen so that no
   catch differs, as the rules confirm) change nobody else's table view (no Open Baskets) except at
   the two reveals that show them; the owner's view does change, and so does the others' in the
   recall view or with Open Baskets (the cards played so far) between the two rounds.

Every "the view changes" check guards the comparison itself: a surface that showed nothing would
pass the "unchanged" checks and fail these. The picture surfaces (`picture`, `replay-frames`) are
slow to draw, so they compare a few seats (the ones the property is about, and one more) at the
last step of each stretch of equal steps, over fewer examples.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

import miaui_env
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishKind, parse_deck_order
from miaui_env.games.miaui.display.picture import seat_picture
from miaui_env.games.miaui.observation import LAGOON_SLOTS, OBSERVATION_LAYOUT, VIEWS
from miaui_env.games.miaui.replay import frames as replay_frames
from miaui_env.games.miaui.replay import record_replay, replay_to_json
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, NUM_ROUNDS, GameConfig, GameState, SeagullTheft, new_game, play_round
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from miaui_env.games.miaui.single_agent import MiauiSingleAgentEnv
from miaui_env.games.miaui.vector import VectorMiaui

pytestmark = pytest.mark.oracle

CARDS = tuple(str(card) for card in DEFAULT_DECK)
FINAL = NUM_ROUNDS + 1  # the step after the game's end
# The steps every surface shows: before each round chosen (round 12's card is forced, R6), and the end.
STEPS = (*range(1, NUM_ROUNDS), FINAL)
PLAIN = {FishKind.KITTENFISH, FishKind.TIGERFISH, FishKind.EMPEROR_TUNA}  # no effect on landing, no peek

Key = tuple[int, int]  # (round about to be played, or FINAL; how many seats have chosen in it: AEC only)
Cell = tuple[int, int]  # (step, seat)


# -- the games ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """The settings every surface is built with."""

    num_players: int
    open_baskets: bool = False
    no_fighting: bool = False
    view: str = "table"
    observation_dtype: str = "float32"

    def kwargs(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "open_baskets": self.open_baskets,
            "no_fighting": self.no_fighting,
            "view": self.view,
            "observation_dtype": self.observation_dtype,
        }

    @property
    def config(self) -> GameConfig:
        return GameConfig(self.num_players, self.open_baskets, self.no_fighting)


@dataclass(frozen=True)
class Game:
    """A stacked deck (put-back card first, then rounds 1-12's bottom, middle, top) and the order in
    which each seat plays its 12 diver cards (the 12th is forced)."""

    deck: tuple[str, ...]
    hands: tuple[tuple[int, ...], ...]

    @property
    def plays(self) -> list[list[int]]:
        """The 11 chosen rounds' diver cards, by seat."""
        return [[hand[r] for hand in self.hands] for r in range(NUM_ROUNDS - 1)]

    def swap_cards(self, i: int, j: int) -> Game:
        """The same game with the cards at deck positions i and j swapped."""
        deck = list(self.deck)
        deck[i], deck[j] = deck[j], deck[i]
        return replace(self, deck=tuple(deck))

    def swap_rounds(self, seat: int, r1: int, r2: int) -> Game:
        """The same game with `seat` playing its round-r1 card in round r2 and the other way round (12: the forced card)."""
        hand = list(self.hands[seat])
        hand[r1 - 1], hand[r2 - 1] = hand[r2 - 1], hand[r1 - 1]
        return replace(self, hands=(*self.hands[:seat], tuple(hand), *self.hands[seat + 1 :]))

    def reference(self, table: Table) -> dict[int, GameState]:
        """The pure rules' game at every step (the deck as stacked: round 1 holds no Seagull to move, R4)."""
        state = new_game(table.config, np.random.default_rng(0), parse_deck_order(self.deck))
        states = {1: state.clone()}
        for r, cards in enumerate(self.plays, start=1):
            play_round(state, cards)
            states[FINAL if r == NUM_ROUNDS - 1 else r + 1] = state.clone()
        return states


def dealt_at(position: int) -> int:
    """The step at which the card at deck position `position` (>= 1) first lies in the lagoon (R4)."""
    return (position - 1) // 3 + 1


def without_round_one_seagulls(deck: Sequence[str]) -> tuple[str, ...]:
    """The deck with any Seagull in round 1 swapped with the deepest other card: a stacked deck then
    deals exactly as written, whatever generator the surface holds (R4 reinserts round-1 Seagulls at random)."""
    deck = list(deck)
    for i in (1, 2, 3):
        if deck[i].startswith("seagull"):
            j = max(j for j in range(4, len(deck)) if not deck[j].startswith("seagull"))
            deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


@dataclass(frozen=True)
class Pair:
    """Two games, the cells (step, seat) where every surface must show them alike, and groups of cells
    where it must show them apart (in each group, some cell the surface shows differs): in the pair's
    table and, for `other_table`, in another one."""

    what: str
    table: Table
    a: Game
    b: Game
    same: frozenset[Cell]
    differ: tuple[tuple[Cell, ...], ...] = ()
    other_table: Table | None = None
    other_differ: tuple[tuple[Cell, ...], ...] = ()
    focus: tuple[int, ...] = ()  # the seats a slow surface looks at


# -- what each surface shows --------------------------------------------------------------------
class Shown:
    """What one game showed each seat at each step, as bytes (drawn on demand, kept); None for a
    seat this surface does not show."""

    def __init__(self, keys: Sequence[Key], seats: Sequence[int], draw: Callable[[Key, int], bytes]):
        self.keys, self.seats, self._draw, self._kept = list(keys), set(seats), draw, dict[tuple[Key, int], bytes]()

    def __call__(self, key: Key, seat: int) -> bytes | None:
        if seat not in self.seats:
            return None
        if (key, seat) not in self._kept:
            self._kept[key, seat] = self._draw(key, seat)
        return self._kept[key, seat]


def eager(frames: dict[tuple[Key, int], bytes], seats: Sequence[int]) -> Shown:
    return Shown(sorted({key for key, _ in frames}), seats, lambda key, seat: frames[key, seat])


def per_seat(play: Callable[[int], list[bytes]], seats: Sequence[int]) -> Shown:
    """A surface that plays the whole game for one seat at a time: step i of `play(seat)` is STEPS[i]."""
    games: dict[int, list[bytes]] = {}

    def draw(key: Key, seat: int) -> bytes:
        if seat not in games:
            games[seat] = play(seat)
        return games[seat][STEPS.index(key[0])]

    return Shown([(step, 0) for step in STEPS], seats, draw)


def observed(observation: dict[str, np.ndarray], info: Any = None) -> bytes:
    """An env agent's observation and action mask, bit for bit, and its info."""
    return observation["observation"].tobytes() + observation["action_mask"].tobytes() + repr(info).encode()


def table_json(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True).encode()


class Script:
    """An agent playing the test's cards: row i is seat `seats[i % len(seats)]` of game `i // len(seats)`.
    It reads only the round number from the observation (public: the same in both games of a pair)."""

    name = "script"

    def __init__(self, games: Sequence[Game], seats: Sequence[int]):
        self.games, self.seats = list(games), list(seats)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        rounds = OBSERVATION_LAYOUT.view(np.asarray(observations), "round").argmax(axis=-1)
        k = len(self.seats)
        return np.array([self.games[i // k].hands[self.seats[i % k]][r] - 1 for i, r in enumerate(rounds)], dtype=np.int64)

    def reset(self) -> None:
        """Nothing is remembered."""


def aec_frames(table: Table, game: Game) -> dict[tuple[Key, int], bytes]:
    """What every agent of the AEC env is shown after the deal and after every single choice."""
    env = miaui_env.env(**table.kwargs())
    env.reset(seed=0, options={"deck": list(game.deck)})
    agents, frames = list(env.possible_agents), {}

    def keep(key: Key) -> None:
        for seat, agent in enumerate(agents):
            frames[key, seat] = observed(env.observe(agent), env.infos[agent])

    for r, cards in enumerate(game.plays, start=1):
        for seat, card in enumerate(cards):
            keep((r, seat))
            assert env.agent_selection == agents[seat]
            env.step(card - 1)
    keep((FINAL, 0))
    return frames


def show_aec(table: Table, games: Sequence[Game]) -> list[Shown]:
    return [eager(aec_frames(table, game), range(table.num_players)) for game in games]


def parallel_observations(table: Table, game: Game) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The Parallel env's observations and infos at every step."""
    env = miaui_env.parallel_env(**table.kwargs())
    observations, infos = env.reset(seed=0, options={"deck": list(game.deck)})
    steps = [(observations, infos)]
    for cards in game.plays:
        observations, _, _, _, infos = env.step({agent: card - 1 for agent, card in zip(env.possible_agents, cards, strict=True)})
        steps.append((observations, infos))
    return steps


def show_parallel(table: Table, games: Sequence[Game]) -> list[Shown]:
    shown = []
    for game in games:
        frames = {}
        for step, (observations, infos) in zip(STEPS, parallel_observations(table, game), strict=True):
            for seat, agent in enumerate(observations):
                frames[(step, 0), seat] = observed(observations[agent], infos[agent])
        shown.append(eager(frames, range(table.num_players)))
    return shown


def show_vector(table: Table, games: Sequence[Game]) -> list[Shown]:
    engine = VectorMiaui(len(games), autoreset=False, **table.kwargs())
    observations, masks = engine.reset(seeds=[0] * len(games), decks=[game.deck for game in games])
    frames: list[dict[tuple[Key, int], bytes]] = [{} for _ in games]
    for step in STEPS:
        for g, seat in np.ndindex(len(games), table.num_players):
            frames[g][(step, 0), seat] = observations[g, seat].tobytes() + masks[g, seat].tobytes()
        if step < NUM_ROUNDS:
            actions = np.array([game.plays[step - 1] for game in games]) - 1
            observations, masks, _, _, _ = engine.step(actions)
    return [eager(f, range(table.num_players)) for f in frames]


def show_sb3(table: Table, games: Sequence[Game]) -> list[Shown]:
    n = table.num_players
    learners = list(range(n - 1))
    venv = MiauiSelfPlayVecEnv(len(games), learner_seats=learners, opponent=Script(games, [n - 1]), rotate_seats=False, **table.kwargs())
    venv.engine.set_decks([game.deck for game in games])
    rows, masks = venv.reset(), venv.action_masks()
    frames: list[dict[tuple[Key, int], bytes]] = [{} for _ in games]
    for step in STEPS:
        for g, frame in enumerate(frames):
            for j, seat in enumerate(learners):  # env index g * L + j is game g's j-th learner seat
                frame[(step, 0), seat] = rows[g * len(learners) + j].tobytes() + masks[g * len(learners) + j].tobytes()
        if step < NUM_ROUNDS:
            actions = np.array([game.hands[seat][step - 1] - 1 for game in games for seat in learners])
            rows, _, dones, infos = venv.step(actions)
            masks = venv.action_masks()
            if dones.all():  # the games were replaced: their last rows are the terminal observations
                rows, masks = np.stack([info["terminal_observation"] for info in infos]), np.zeros_like(masks)
    return [eager(f, learners) for f in frames]


def show_gymnasium(table: Table, games: Sequence[Game]) -> list[Shown]:
    n = table.num_players

    def play(game: Game, seat: int) -> list[bytes]:
        opponents = [Script([game], [(seat + k + 1) % n]) for k in range(n - 1)]
        env = MiauiSingleAgentEnv(opponents=opponents, seat=seat, **table.kwargs())
        observation, info = env.reset(seed=0, options={"deck": list(game.deck)})
        seen = []
        for cards in [*game.plays, None]:
            seen.append(observation.tobytes() + env.action_masks().tobytes() + repr(sorted(info.items())).encode())
            if cards is not None:
                observation, _, _, _, info = env.step(cards[seat] - 1)
        return seen

    return [per_seat(lambda seat, game=game: play(game, seat), range(n)) for game in games]


def show_picture(table: Table, games: Sequence[Game]) -> list[Shown]:
    shown = []
    for game in games:
        steps = dict(zip(STEPS, parallel_observations(table, game), strict=True))

        def draw(key: Key, seat: int, steps: dict = steps) -> bytes:
            return seat_picture(steps[key[0]][0][f"player_{seat}"]["observation"], table.num_players).tobytes()

        shown.append(Shown([(step, 0) for step in STEPS], range(table.num_players), draw))
    return shown


@dataclass
class WebApp:
    """One browser app for the module, driven through Flask's test client in one browser session."""

    client: Any = None
    session: str = ""
    store: Any = None

    def start(self) -> WebApp:
        if self.client is None:
            from miaui_env.apps.web import create_app
            from miaui_env.apps.web.games import GameStore

            self.store = GameStore()
            app = create_app(self.store, replays=None, library=())
            self.client = app.test_client()
            # Reading the API opens no session (only a new game does): the tests hold one of their own.
            self.session = secrets.token_urlsafe(16)
            self.client.set_cookie("miaui_session", self.session)
        return self


WEB = WebApp()


def answer(response: Any) -> Any:
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()


def show_web_play(table: Table, games: Sequence[Game]) -> list[Shown]:
    from miaui_env.games.miaui.web import HumanGame

    web, n = WEB.start(), table.num_players

    def play(game: Game, seat: int) -> list[bytes]:
        # The app deals a person's game from a seed only: this one is dealt from the stacked deck and
        # kept in the app's own store; from here on it is reached through HTTP alone.
        state = new_game(table.config, np.random.default_rng(0), parse_deck_order(game.deck))
        agents = {s: Script([game], [s]) for s in range(n) if s != seat}
        human = HumanGame(state, agents, table.view)
        web.store.add(web.session, human)
        url = f"/api/games/{human.id}"
        views = [answer(web.client.get(url))]
        for round_number, cards in enumerate(game.plays, start=1):  # a play names its round
            views.append(answer(web.client.post(f"{url}/play", json={"card": cards[seat], "round": round_number})))
        assert web.client.delete(url).status_code == 204
        return [table_json({k: v for k, v in view.items() if k != "id"}) for view in views]

    return [per_seat(lambda seat, game=game: play(game, seat), range(n)) for game in games]


def replay_of(table: Table, game: Game) -> Any:
    return record_replay(table.config, game.plays, deck=game.deck)


def show_web_watch(table: Table, games: Sequence[Game]) -> list[Shown]:
    web = WEB.start()

    def play(game: Game, seat: int) -> list[bytes]:
        watched = answer(web.client.post("/api/watch", json={"replay": replay_to_json(replay_of(table, game)), "seat": seat}))
        return [table_json(frame) for frame in watched["frames"]]

    return [per_seat(lambda seat, game=game: play(game, seat), range(table.num_players)) for game in games]


def show_replay_frames(table: Table, games: Sequence[Game]) -> list[Shown]:
    def play(game: Game, seat: int) -> list[bytes]:
        return [picture.tobytes() for picture in replay_frames(replay_of(table, game), seat)]

    return [per_seat(lambda seat, game=game: play(game, seat), range(table.num_players)) for game in games]


@dataclass(frozen=True)
class Surface:
    """A way a user reads a seat's view: `show` plays games and returns what each seat was shown."""

    name: str
    show: Callable[[Table, Sequence[Game]], list[Shown]]
    examples: int = 10
    views: tuple[str, ...] = VIEWS
    dtypes: tuple[str, ...] = ("float32", "uint8")
    slow: bool = False  # compare the pair's focus seats at the last step of each stretch only

    def __str__(self) -> str:
        return self.name


SURFACES = [
    Surface("aec", show_aec, examples=12),
    Surface("parallel", show_parallel, examples=15),
    Surface("vector", show_vector, examples=20),
    Surface("sb3", show_sb3, examples=15),
    Surface("gymnasium", show_gymnasium, examples=6),
    Surface("picture", show_picture, examples=4, dtypes=("float32",), slow=True),
    Surface("web-play", show_web_play, examples=4, dtypes=("float32",)),
    # The watch page and a replay's pictures show the table view (and the table's Open Baskets).
    Surface("web-watch", show_web_watch, examples=4, views=("table",), dtypes=("float32",)),
    Surface("replay-frames", show_replay_frames, examples=2, views=("table",), dtypes=("float32",), slow=True),
]
STEPWISE = [surface for surface in SURFACES if surface.name == "aec"]  # takes the seats' choices one at a time


# -- comparing ----------------------------------------------------------------------------------
def in_words(key: Key) -> str:
    step, chosen = key
    if step == FINAL:
        return "the end of the game"
    return f"round {step}" + (f" after {chosen} choices" if chosen else "")


def last_of_stretches(steps: set[int]) -> set[int]:
    """The last step of each run of consecutive steps (in STEPS' order)."""
    return {step for step in steps if STEPS.index(step) + 1 == len(STEPS) or STEPS[STEPS.index(step) + 1] not in steps}


def slow_cells(cells: frozenset[Cell], focus: tuple[int, ...]) -> set[Cell]:
    return {(step, seat) for seat in focus for step in last_of_stretches({t for t, s in cells if s == seat})}


def assert_alike(surface: Surface, pair: Pair, a: Shown, b: Shown) -> None:
    cells = slow_cells(pair.same, pair.focus) if surface.slow else pair.same
    for step, seat in sorted(cells):
        for key in (key for key in a.keys if key[0] == step):
            seen = a(key, seat)
            if seen is not None:
                assert seen == b(key, seat), f"{surface}: player_{seat} can tell the games apart at {in_words(key)}: {pair.what}"


def assert_apart(surface: Surface, pair: Pair, a: Shown, b: Shown, groups: tuple[tuple[Cell, ...], ...], table: Table) -> None:
    for group in groups:
        cells = [(step, seat) for step, seat in group if not surface.slow or seat in pair.focus]
        shown = [(a((step, 0), seat), b((step, 0), seat)) for step, seat in cells if a((step, 0), seat) is not None]
        if shown:
            assert any(x != y for x, y in shown), f"{surface} ({table}): none of {cells} shows what it should tell apart: {pair.what}"


def check(surface: Surface, pair: Pair) -> None:
    a, b = surface.show(pair.table, [pair.a, pair.b])
    assert_alike(surface, pair, a, b)
    assert_apart(surface, pair, a, b, pair.differ, pair.table)
    if pair.other_table is not None and pair.other_differ:
        a, b = surface.show(pair.other_table, [pair.a, pair.b])
        assert_apart(surface, pair, a, b, pair.other_differ, pair.other_table)


def run(surface: Surface, pairs: Callable[[Surface], st.SearchStrategy[Pair]]) -> None:
    """Check `surface` on `surface.examples` pairs drawn from `pairs`."""

    def property_holds(pair: Pair) -> None:
        check(surface, pair)

    # Each property and surface its own name: Hypothesis keeps failing examples in its database by test name.
    property_holds.__name__ = property_holds.__qualname__ = f"{pairs.__name__}_on_{surface.name.replace('-', '_')}"
    # No shrinking: a failure names its pair in words (`Pair.what`), and shrinking whole games takes minutes.
    checked = settings(
        max_examples=surface.examples,
        deadline=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )(given(pair=pairs(surface))(property_holds))
    checked()


# -- the pairs ----------------------------------------------------------------------------------
@st.composite
def tables(draw: Any, surface: Surface, view: str | None = None, open_baskets: bool | None = None) -> Table:
    return Table(
        num_players=draw(st.integers(3, 6)),
        open_baskets=draw(st.booleans()) if open_baskets is None else open_baskets,
        no_fighting=draw(st.booleans()),
        view=draw(st.sampled_from(surface.views)) if view is None else view,
        observation_dtype=draw(st.sampled_from(surface.dtypes)),
    )


@st.composite
def games(draw: Any, num_players: int) -> Game:
    deck = without_round_one_seagulls(draw(st.permutations(CARDS)))
    return Game(deck, tuple(tuple(draw(st.permutations(range(1, NUM_DIVER_CARDS + 1)))) for _ in range(num_players)))


def all_seats(step: int, n: int) -> tuple[Cell, ...]:
    return tuple((step, s) for s in range(n))


def showing_more(draw: Any, surface: Surface, table: Table) -> Table:
    """The pair's table in the recall view or with Open Baskets (the surface's choice of what it shows)."""
    if "recall" in surface.views and draw(st.booleans()):
        return replace(table, view="recall")
    return replace(table, open_baskets=True)


@st.composite
def pending_choice_pairs(draw: Any, surface: Surface) -> Pair:
    table = draw(tables(surface))
    n = table.num_players
    a = draw(games(n))
    r = draw(st.integers(1, NUM_ROUNDS - 1))
    chosen = draw(st.integers(1, n - 1))  # the seats 0 .. chosen-1 choose first (AEC order), differently
    b = a
    for seat in range(chosen):
        b = b.swap_rounds(seat, r, draw(st.integers(r + 1, NUM_ROUNDS)))
    reveal = FINAL if r == NUM_ROUNDS - 1 else r + 1
    same = frozenset((t, s) for t in STEPS if t <= r for s in range(n))
    return Pair(f"seats 0-{chosen - 1} choose other cards in round {r}", table, a, b, same, (all_seats(reveal, n),))


@st.composite
def deck_order_pairs(draw: Any, surface: Surface) -> Pair:
    table = draw(tables(surface))
    n = table.num_players
    a = draw(games(n))
    i, j = sorted(draw(st.lists(st.sampled_from([0, *range(4, len(CARDS))]), min_size=2, max_size=2, unique=True)))
    b = a.swap_cards(i, j)
    first = dealt_at(i if i else j)  # the put-back card (position 0) is never dealt (R3)
    same = frozenset((t, s) for t in STEPS if t < first for s in range(n))
    differ: tuple[tuple[Cell, ...], ...] = ()
    focus = draw(st.integers(0, n - 1))
    if first < NUM_ROUNDS and a.deck[i] != a.deck[j]:
        # R4/R5: a card dealt lies face-up for everyone, or face-down for its peeker alone. A space
        # shows its oldest cards one by one, the ones past them (No Fighting) only as a sum or a count.
        order = parse_deck_order(a.deck)
        dealt = {order[p] for p in (i, j) if p and dealt_at(p) == first}
        lying = [lc for space in a.reference(table)[first].lagoon for lc in space[:LAGOON_SLOTS] if lc.card in dealt]
        if lying:
            peekers = {lc.peeker for lc in lying}
            seats = range(n) if None in peekers else sorted(peekers)
            differ = (tuple((first, s) for s in seats),)
            focus = seats[0] if None not in peekers else focus
    what = f"deck positions {i} and {j} swapped ({a.deck[i]} and {a.deck[j]}; {'put back' if i == 0 else f'dealt at round {dealt_at(i)}'})"
    return Pair(what, table, a, b, same, differ, focus=(focus,))


@st.composite
def face_down_pairs(draw: Any, surface: Surface) -> Pair:
    table = draw(tables(surface))
    n = table.num_players
    a = draw(games(n))
    # A Lantern in the lagoon by round 10, so that a peek (R5) is likely; the rules say where it went.
    lanterns = [p for p, card in enumerate(a.deck) if card.startswith("lantern")]
    target = 1 + 3 * draw(st.integers(0, 9)) + draw(st.integers(0, 2))
    a = replace(a, deck=without_round_one_seagulls(a.swap_cards(draw(st.sampled_from(lanterns)), target).deck))
    states = a.reference(table)
    face_down: dict[int, tuple[int, int, list[int]]] = {}  # card -> (peeker, its place in its space, the steps it lies face-down)
    for step in STEPS:
        for space in states[step].lagoon:
            for slot, lc in enumerate(space):
                if lc.peeker is not None:
                    face_down.setdefault(lc.card, (lc.peeker, slot, []))[2].append(step)
    assume(face_down)
    card = draw(st.sampled_from(sorted(face_down)))
    peeker, slot, steps = face_down[card]
    order = parse_deck_order(a.deck)
    q = order.index(card)
    # Swap it with the put-back card or one dealt after it is caught (or after the game).
    partners = [0, *(p for p in range(4, len(CARDS)) if dealt_at(p) > max(steps) and max(steps) < NUM_ROUNDS)]
    unlike = [p for p in partners if a.deck[p] != a.deck[q]]
    d = draw(st.sampled_from(unlike or partners))
    b = a.swap_cards(q, d)
    first, last = min(steps), max(steps)
    same = frozenset((t, s) for t in STEPS for s in range(n) if (t <= last if s != peeker else t < first))
    # Her view shows it, one by one among a space's oldest cards (past them, No Fighting sums them: not every surface shows the sum).
    differ = (((first, peeker),),) if a.deck[q] != a.deck[d] and slot < LAGOON_SLOTS else ()
    other = draw(st.sampled_from([s for s in range(n) if s != peeker]))
    what = f"face-down {a.deck[q]} (deck position {q}, peeked by player_{peeker} at steps {steps}) swapped with {a.deck[d]} (position {d})"
    return Pair(what, table, a, b, same, differ, focus=(peeker, other))


@st.composite
def buried_fish_pairs(draw: Any, surface: Surface) -> Pair:
    table = draw(tables(surface, view="table", open_baskets=False))
    n = table.num_players
    a = draw(games(n))
    states = a.reference(table)
    deck = table.config.deck
    caught: dict[int, list[tuple[int, int]]] = {s: [] for s in range(n)}  # seat -> (round, card) of each plain fish caught
    for r in range(1, NUM_ROUNDS):
        before, record = states[r], states[FINAL if r == NUM_ROUNDS - 1 else r + 1].history[r - 1]
        for result in record.depths:
            if result.winner is not None:
                caught[result.winner] += [(r, lc.card) for lc in before.lagoon[result.depth] if deck[lc.card].kind in PLAIN]

    def window(owner: int, x: int, y: int) -> list[int]:
        """The steps at which x and y both lie below the top of the owner's pile, out of the last reveal
        (at the end: rounds 11 and 12, revealed together)."""
        steps = []
        for previous, step in zip((None, *STEPS), STEPS, strict=False):
            state = states[step]
            revealed = state.history[len(states[previous].history) :] if previous else []
            named = [fish for record in revealed for result in record.depths for fish in result.fish]
            named += [e.stolen for record in revealed for e in record.events if isinstance(e, SeagullTheft)]
            pile = state.piles[owner]
            if x in pile[:-1] and y in pile[:-1] and deck[x] not in named and deck[y] not in named:
                steps.append(step)
        return steps

    candidates = [
        (owner, x, y, steps)
        for owner, fish in caught.items()
        for k, (r1, x) in enumerate(fish)
        for r2, y in fish[k + 1 :]
        if r1 < r2 and (steps := window(owner, x, y))
    ]
    assume(candidates)
    unlike = [c for c in candidates if deck[c[1]] != deck[c[2]]]
    owner, x, y, steps = draw(st.sampled_from(unlike or candidates))
    order = parse_deck_order(a.deck)
    b = a.swap_cards(order.index(x), order.index(y))  # plain fish: the game is the same with the two cards' names swapped
    others = [s for s in range(n) if s != owner]
    same = frozenset((t, s) for t in steps for s in others)
    near_top = [t for t in steps if {x, y} & set(states[t].piles[owner][-3:])]  # a pile shows its top three
    differ, other_differ = (), ()
    if near_top and deck[x] != deck[y]:
        differ = (((near_top[0], owner),),)  # the owner sees her own pile
        other_differ = (tuple((near_top[0], s) for s in others),)
    what = f"player_{owner} catches {deck[x]} and {deck[y]} in swapped order; both buried at steps {steps}"
    return Pair(what, table, a, b, same, differ, showing_more(draw, surface, table), other_differ, (owner, draw(st.sampled_from(others))))


def catches(game: Game, table: Table) -> list[tuple[Any, ...]]:
    """Who caught what at each depth, and every Seagull theft and Jellyfish triple, round by round."""
    history = game.reference(table)[FINAL].history
    return [(tuple((d.winner, d.fish) for d in record.depths), record.events) for record in history]


@st.composite
def hand_pairs(draw: Any, surface: Surface) -> Pair:
    table = draw(tables(surface, view="table", open_baskets=False))
    n = table.num_players
    a = draw(games(n))
    owner = draw(st.integers(0, n - 1))
    r1 = draw(st.integers(1, NUM_ROUNDS - 4))
    r2 = draw(st.integers(r1 + 2, NUM_ROUNDS - 2))  # a round between the two; the last reveal past both before the end
    # Two of the owner's cards that compare alike with every other card of both rounds: the rounds
    # resolve alike (R7/R8 only compare cards) whichever of them she plays when.
    others = [cards[s] for cards in (a.plays[r1 - 1], a.plays[r2 - 1]) for s in range(n) if s != owner]
    alike = [(c, d) for c in range(1, 13) for d in range(1, 13) if c != d and all(np.sign(c - o) == np.sign(d - o) for o in others)]
    assume(alike)
    c, d = draw(st.sampled_from(alike))
    hand = list(a.hands[owner])
    for r, card in ((r1, c), (r2, d)):  # she plays c in round r1 and d in round r2 in game a
        k = hand.index(card)
        hand[r - 1], hand[k] = hand[k], hand[r - 1]
    a = replace(a, hands=(*a.hands[:owner], tuple(hand), *a.hands[owner + 1 :]))
    assert a.hands[owner][r1 - 1] == c and a.hands[owner][r2 - 1] == d
    b = a.swap_rounds(owner, r1, r2)
    assert catches(a, table) == catches(b, table), "the rules resolve the two games differently: the pair is not what the test says"
    others_seen = frozenset((t, s) for t in STEPS if t not in (r1 + 1, r2 + 1) for s in range(n) if s != owner)
    same = others_seen | {(t, owner) for t in STEPS if t <= r1}
    differ = (((r1 + 1, owner),),)  # her own hand
    other_differ = (tuple((r1 + 2, s) for s in range(n) if s != owner),)  # the cards she has played so far
    what = f"player_{owner} plays {c} in round {r1} and {d} in round {r2}, or the other way round"
    focus = (owner, draw(st.sampled_from([s for s in range(n) if s != owner])))
    return Pair(what, table, a, b, same, differ, showing_more(draw, surface, table), other_differ, focus)


# -- the properties -----------------------------------------------------------------------------
@pytest.mark.parametrize("surface", STEPWISE, ids=str)
def test_pending_choices_show_nowhere_before_the_reveal(surface):
    run(surface, pending_choice_pairs)


@pytest.mark.parametrize("surface", SURFACES, ids=str)
def test_deck_order_and_the_put_back_card_show_nowhere(surface):
    run(surface, deck_order_pairs)


@pytest.mark.parametrize("surface", SURFACES, ids=str)
def test_a_face_down_card_shows_to_its_peeker_only(surface):
    run(surface, face_down_pairs)


@pytest.mark.parametrize("surface", SURFACES, ids=str)
def test_buried_fish_show_to_nobody_else_in_the_table_view(surface):
    run(surface, buried_fish_pairs)


@pytest.mark.parametrize("surface", SURFACES, ids=str)
def test_hands_and_old_discards_show_to_nobody_else_in_the_table_view(surface):
    run(surface, hand_pairs)
