"""Miaui as a PettingZoo environment (`miaui_v0`): AEC (`env`, `raw_env`) and Parallel (`parallel_env`).

Miaui is a 3-6 player game of simultaneous hidden bids over 12 rounds. Each round every player
secretly plays a diver card 1-12; the highest card catches the bottom fish, the next highest the
middle one, the lowest the top one; Kiti breaks ties; Lanterns, Jellyfish and Seagulls twist the
score. The rules are `miaui_env.games.miaui.rules` (R1-R11, on the docs site's page `docs/rules/miaui.md`); this module only
turns agents into seats and game results into rewards.

The envs play on the compiled path: each holds one game of the batched engine
(`miaui_env.games.miaui.vector.VectorMiaui`, numba kernels), which resolves every reveal and writes every
seat's observation in one go. Games are dealt by `rules.new_game` from the env's own generator,
so seeds and stacked decks deal what they always dealt. The pure rules stay the definition:
`env.game` is a copy of the game's `rules.GameState`, brought up to date from the cards played
when it is read (as are `state()`, rendering and each info's `round_results`), and a property test plays
random games of every configuration through both envs beside `rules.play_round` and
`encoder.Encoder`, requiring the same observations, masks, infos, rewards and states at
every step (tests/test_compiled_env.py).

| | |
|---|---|
| Import | `from miaui_env import env, raw_env, parallel_env`, or `pettingzoo.make("aec", "miaui_env/miaui-v0")` |
| Agents | `player_0 ... player_{n-1}`, clockwise (R1); `player_0` is the youngest |
| Actions | `Discrete(12)`: action `a` plays diver card `a + 1` |
| Observations | `Dict(observation=Box(-64, 64, (620,), float32), action_mask=Box(0, 1, (12,), int8))` |
| State | `Box(-64, 64, (696,), float32)`: the whole game, every hidden card included (table below) |
| Episode | 11 decisions per agent: the forced last card of round 12 is played by the engine (R6) |
| Version | `miaui_v0`, observation layout `OBSERVATION_VERSION` = 1 |

## Arguments
- `num_players` (3-6, default 4).
- `open_baskets`, `no_fighting` (bool): the rulebook's variants, alone or together.
- `view`: `"table"` (default) shows what R11 lets a player see; `"recall"` adds everything that
  was ever public (every revealed diver card, every caught fish, every Seagull theft and Jellyfish
  triple), as a perfect-memory player would know it. Open Baskets shows opponents' whole piles and
  played cards in either view.
- `reward`: `"win"` (default; tied winners share 1, others 0), `"score"` (the final score), or
  `"margin"` (own final score minus the best opponent's).
- `observation_dtype`: `"float32"` (default) or `"uint8"`: every entry as its exact byte code
  (`miaui_env.games.miaui.compact`; `compact.expand_observations` gives the floats back bit for bit).
- `rounds` (2-12, default 12) and `deck` (a deck list such as `"emperor_tuna:10*6 jellyfish:-10*4"`,
  default R2's 37 cards): a short game (MV1-MV3) of `rounds` rounds, hands holding cards 1 to
  `rounds`, dealt from its 3 x `rounds` + 1 fish; an episode is `rounds - 1` decisions an agent.
  The observation keeps its layout (cards above `rounds` are never in a hand), so a network built
  for one plays the other. For exact tools (`python -m training.exact --game miaui`).
- `render_mode`: `None`, `"ansi"` (`render()` returns the table as text), `"human"` (prints it
  at every deal and every reveal, as the game goes, and whenever `render()` is called) or
  `"rgb_array"` (`render()` returns a picture of the table, (H, W, 3) uint8, drawn with Pillow:
  `pip install "miaui-rl[render]"`; without it the constructor raises `MissingExtraError`).
  Every mode shows every card, face-down ones included: a spectator's view, not a seat's
  (`miaui_env.games.miaui.display.picture.seat_picture(observation, n)` draws one seat's view from its observation).

`reset(seed=..., options={"deck": [...]})` stacks the deck: all 37 cards written `kind:value`
(R2), top first; the first is put back unseen. Anything else raises `DeckError` (a ValueError).
Round-1 Seagulls are reinserted at a seeded random position, the rest keeping its order (R4).

## Rewards and infos
Rewards are 0 until the game ends, then as `reward` says. `reset`'s infos are empty, as PettingZoo's
classic games' are (TorchRL builds its info specs from them, and leaves empty ones out); after that
every info holds the same three keys, each one value, so that libraries that stack infos into
arrays (Tianshou's `Batch`) see the same shapes at every step:

| key | value |
|---|---|
| `"round_results"` | `RoundResults`: the public `RoundRecord`s of the last reveal (iterate, or `.records`) |
| `"score"` | int: the agent's score so far (R10) |
| `"winner"` | bool: whether the agent is among the winners; False until the game ends |

A reveal resolves one round, two after round 11 (the forced round 12 follows); before the first
reveal the AEC env's infos are still `reset`'s.

## Errors
Every call checks all its arguments before anything changes. `raw_env` raises
`IllegalActionError` (a ValueError) for an action that is not a card in the acting agent's hand,
naming the legal actions; `UnknownAgentError` for an agent not at the table; at reset, `SeedError`
(a seed that is not an integer >= 0), `ResetOptionError` (options that are not a dict) and
`DeckError`. An unknown option (`dek`) is ignored with a `ResetOptionWarning` naming the known
ones, as PettingZoo's API test requires of envs. Before the first reset and after the game's end
the envs raise Gymnasium's `ResetNeeded`. `env()` adds PettingZoo's `OrderEnforcingWrapper`,
which checks reset's arguments before it counts the env as reset (it leaves out
`AssertOutOfBoundsWrapper`, whose bare assertion the env's own check replaces with a clearer
error). Constructors take their arguments by keyword (`TableSpec` checks them).

`env(illegal_action="terminate", illegal_reward=-1.0)` treats a card not in hand as PettingZoo's
classic games do (`TerminateIllegalWrapper`): the game ends, the offender is rewarded
`illegal_reward` and every other agent 0 (what `pettingzoo.test.state_test`, which samples actions
without the mask, needs). An action that is no card index at all still raises.

## Legal Actions Mask
`observation["action_mask"]` (int8, 12) is 1 for each diver card in the agent's hand: any card
held may be played, once (R6). Every agent's mask is its hand also when it is not the agent
acting, in the AEC env too: all seats choose at once and the AEC env only collects the joint
action (nothing is revealed before the last choice), so whose turn it is changes nothing about
what an agent may play, and a waiting agent's mask says which cards it will choose from. The mask
is the observation's `hand` piece; the Gymnasium and SB3 envs give it as `action_masks()`, the
Gymnasium env also as `info["action_mask"]` (every card once its game is over: the next step is
an autoreset that ignores its action).

## Observation
One float32 vector from named pieces: table-wide pieces, then one row per seat, seat-relative (row
0 is you, row k the k-th seat to your left; rows beyond the table are zero), so every table size,
variant and view has the same layout. A card is 8 features: one-hot kind (kittenfish, tigerfish,
emperor_tuna, lantern, jellyfish, seagull), value / 15, and a flag for a face-down card you may not
see; empty slots are zero, and sums of features are kind counts and value sums.
`miaui_env.OBSERVATION_LAYOUT.view(obs, name)` cuts out any piece by name, seat-row pieces
included (e.g. `view(obs, "pile")` has shape (6, 3, 8)).

| piece | indices | shape | meaning |
|---|---|---|---|
| `num_players` | 0-3 | 4 | one-hot table size 3, 4, 5, 6 |
| `variant` | 4-5 | 2 | Open Baskets, No Fighting flags |
| `round` | 6-17 | 12 | one-hot round about to be played (1-12) |
| `hand` | 18-29 | 12 | 1 for each diver card in your hand (equals the action mask) |
| `lagoon` | 30-101 | 3x3x8 | bottom, middle, top space: oldest 3 cards; a face-down card is 'hidden' unless you peeked it |
| `lagoon_rest` | 102-125 | 3x8 | feature sum of any further cards in each space (No Fighting stacks) |
| `box` | 126-133 | 8 | feature sum of the cards Seagulls and Jellyfish sent to the box (recall view only) |
| `seats` | 134-619 | 6x81 | one row per seat (below): you, then each seat to your left; rows past the table are 0 |

Each row of `seats`:

| piece | indices | shape | meaning |
|---|---|---|---|
| `present` | 0-0 | 1 | 1 if the seat is at the table |
| `kiti` | 1-1 | 1 | 1 if Kiti sits between this seat and the next one to its left (0 in No Fighting) |
| `deep_priority` | 2-2 | 1 | 1 - rank/n in this round's deepest/deep tie order (0 in No Fighting) |
| `shallow_priority` | 3-3 | 1 | 1 - rank/n in the shallow tie order (0 in No Fighting) |
| `pile_summary` | 4-11 | 8 | pile height/12, count of each kind/4, value sum/60 (opponents, table view: height only) |
| `pile` | 12-35 | 3x8 | the top 3 fish of the pile, top first (opponents, table view: top only) |
| `played` | 36-47 | 12 | 1 for each diver card played so far (opponents: Open Baskets or recall view only) |
| `last_round` | 48-80 | 33 | last reveal: card played (12), depth caught (3), fish caught (8), fish lost to Seagulls (8), thefts, triples |

A pile shows its top 3 cards one by one; its summary counts every card in it. A lagoon space
shows its oldest 3 cards one by one (outside No Fighting it only ever holds one) and sums the rest.

## State
`state()`: the whole game for a centralized critic or a spectator, every hidden card shown, in the
observation's pieces (seat rows as above, absolute: `player_0` first, every entry visible):

| piece | indices | shape | meaning |
|---|---|---|---|
| `num_players` | 0-3 | 4 | one-hot table size 3, 4, 5, 6 |
| `variant` | 4-5 | 2 | Open Baskets, No Fighting flags |
| `round` | 6-17 | 12 | one-hot round about to be played (1-12) |
| `hand` | 18-89 | 6x12 | every seat's hand |
| `lagoon` | 90-161 | 3x3x8 | the lagoon, face-down cards shown |
| `lagoon_rest` | 162-185 | 3x8 | feature sum of further cards in each space, face-down ones shown |
| `box` | 186-193 | 8 | feature sum of the cards in the box |
| `deck` | 194-201 | 8 | feature sum of the undealt deck |
| `put_back` | 202-209 | 8 | the card put back unseen at setup |
| `seats` | 210-695 | 6x81 | one row per seat, player_0 first, everything shown |

## Version History
- `miaui_v0`, observation layout version 1: the 620-float observation and 696-float state above.
  Added since, without changing either: `illegal_action="terminate"`; infos with the same keys
  at every step (`round_results` became one `RoundResults` value, `score` is there throughout);
  `human` rendering at each deal and reveal; registration as `miaui_env/miaui-v0` in PettingZoo's
  registry; `render_mode="rgb_array"`; `observation_dtype="uint8"`; the compiled path (same
  games, observations and infos; `round_results` are written when first read).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Unpack

import gymnasium
import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

# `X as X`: the names users import from here, now shared with the octopus env.
from miaui_env.core.aec import ILLEGAL_ACTIONS as ILLEGAL_ACTIONS
from miaui_env.core.aec import AECTurns, RefusingTerminateIllegalWrapper, SeatedEnv, checked_options, dealt_game, order_enforced
from miaui_env.core.aec import ResetOptionError as ResetOptionError
from miaui_env.core.aec import ResetOptionWarning as ResetOptionWarning
from miaui_env.core.aec import UnknownAgentError as UnknownAgentError
from miaui_env.core.aec import _CheckedOrderEnforcingWrapper as _CheckedOrderEnforcingWrapper
from miaui_env.core.errors import IllegalActionError, final_rewards
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.render import RENDER_MODES, seat_name
from miaui_env.core.seeding import check_seed
from miaui_env.games.miaui.cards import parse_deck_order
from miaui_env.games.miaui.display.picture import table_picture
from miaui_env.games.miaui.display.text import render_table
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION, STATE_LAYOUT
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, GameState, RoundRecord, check_action, new_game, play_checked_round
from miaui_env.games.miaui.spec import TableKwargs, TableSpec
from miaui_env.games.miaui.vector import VectorMiaui

RESET_OPTIONS = ("deck",)

METADATA = {
    "name": "miaui_v0",
    "render_modes": list(RENDER_MODES),
    "is_parallelizable": True,
    "render_fps": 1,
}


def observation_box(compact: bool) -> gymnasium.spaces.Box:
    """The observation vector's space: float32 within VECTOR_BOUND, or uint8 codes (`miaui_env.games.miaui.compact`)."""
    if compact:
        return gymnasium.spaces.Box(0, np.iinfo(np.uint8).max, (OBSERVATION_LAYOUT.size,), np.uint8)
    return gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (OBSERVATION_LAYOUT.size,), np.float32)


class RoundResults:
    """The `RoundRecord`s one reveal made public (`records`), as one value: iterating gives them.

    Deliberately not a sequence: numpy and the libraries built on it (Tianshou's `Batch`) see one
    object at every step, whether the reveal resolved one round, two (11 and the forced 12) or
    none yet, so stacked infos keep their shape. The envs' records are written by the reference
    rules when first read (`PlayedGame`), so a loop that never reads them never pays for them."""

    __slots__ = ("_records", "_source")

    def __init__(self, records: Iterable[RoundRecord] = (), *, source: Callable[[], tuple[RoundRecord, ...]] | None = None):
        self._records = None if source is not None else tuple(records)
        self._source = source

    @property
    def records(self) -> tuple[RoundRecord, ...]:
        """The records, in the order the rounds were played."""
        if self._records is None:
            assert self._source is not None
            self._records, self._source = self._source(), None
        return self._records

    def __iter__(self) -> Iterator[RoundRecord]:
        """The records, in the order the rounds were played."""
        return iter(self.records)

    def __eq__(self, other: object) -> bool:
        return self.records == other.records if isinstance(other, RoundResults) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.records)

    def __repr__(self) -> str:
        return f"RoundResults(records={self.records!r})"

    def __reduce__(self) -> tuple[type, tuple[tuple[RoundRecord, ...]]]:
        return RoundResults, (self.records,)  # a copy holds the records themselves, not the game they come from

    def __setstate__(self, state: Any) -> None:
        """Unpickle infos pickled when RoundResults was a dataclass (its state: {"records": ...})."""
        self._records, self._source = tuple(state["records"]), None


class PlayedGame:
    """One dealt game as the reference rules (`miaui_env.games.miaui.rules`) see it, brought up to date when
    asked: the compiled engine plays the rounds, and the joint actions it played are replayed
    through the rules only when the state or a round's records are read."""

    def __init__(self, state: GameState):
        self._state, self._plays = state, list[tuple[int, ...]]()
        self._history_ends: list[int] = []  # len(history) after each reveal played so far

    def add(self, cards: tuple[int, ...]) -> int:
        """Note the joint action (diver cards) the engine just played; returns the reveal's number."""
        self._plays.append(cards)
        return len(self._plays) - 1

    def state(self) -> GameState:
        """The game now: every noted joint action played by the rules."""
        for cards in self._plays[len(self._history_ends) :]:
            play_checked_round(self._state, cards)  # the engine checked the cards
            self._history_ends.append(len(self._state.history))
        return self._state

    def records(self, reveal: int) -> tuple[RoundRecord, ...]:
        """The records of reveal `reveal` (one round, two after round 11)."""
        history = self.state().history
        return tuple(history[self._history_ends[reveal - 1] if reveal else 0 : self._history_ends[reveal]])


class _MiauiEnv(SeatedEnv):
    """What the AEC and Parallel envs share: settings, spaces, the game, its encoder and generator."""

    metadata = METADATA

    def __init__(self, *, render_mode: str | None = None, **settings: Unpack[TableKwargs]):
        self.table_spec = TableSpec.of(**settings)
        self._set_render_mode(render_mode)
        self.config = self.table_spec.game
        self._encoder = Encoder(self.config, self.table_spec.view)
        self._seat_agents(self.config.num_players, seat_name)
        self.compact = self.table_spec.observation_dtype == "uint8"
        self._set_spaces(observation_box(self.compact), NUM_DIVER_CARDS, STATE_LAYOUT.size)
        self.observation_version = OBSERVATION_VERSION
        self.np_random, self.np_random_seed = seeding.np_random(None)
        # The compiled path: one game on the batched engine (proven identical to the rules); the
        # reference state follows it only when read (`PlayedGame`). The engine's own deals are never
        # used: every game is dealt by the rules here and loaded into it.
        self.engine = VectorMiaui(1, seed=0, autoreset=False, **self.table_spec.as_kwargs())
        self._played: PlayedGame | None = None
        self._seat_observations = self._masks = np.zeros((0, 0))
        self._is_over = False
        self._encoded: tuple[PlayedGame, int] | None = None  # the game and round the encoder last wrote (for state())

    def _dealt(self, call: str = "using the env") -> PlayedGame:
        """The game being played; ResetNeeded before the first reset."""
        return dealt_game(self._played, call)

    @property
    def game(self) -> GameState:
        """A copy of the game as the reference rules have it now (omniscient; for tools and tests,
        not for agents): read it again after a step; changing it changes nothing in the env."""
        return self._dealt().state().clone()

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (ResetNeeded before the first reset)."""
        self._dealt()
        return self._is_over

    def check_reset(self, seed: Any = None, options: Any = None) -> tuple[int | None, list[int] | None]:
        """The seed and stacked deck order of a reset, checked (SeedError, ResetOptionError, DeckError); changes nothing."""
        seed = check_seed(seed)
        options = checked_options(options, RESET_OPTIONS)
        if options is None:
            return seed, None
        deck = options.get("deck")
        return seed, None if deck is None else parse_deck_order(deck, self.config.deck)

    def _new_game(self, seed: Any, options: Any) -> None:
        seed, deck_order = self.check_reset(seed, options)  # every argument checked before anything changes
        self._reseed(seed)
        game = new_game(self.config, self.np_random, deck_order)
        observations, masks = self.engine.start_dealt([game])  # the rules just dealt it: no checks to run again
        self._seat_observations, self._masks = observations[0], masks[0]
        self._played, self._is_over = PlayedGame(game), False

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self._seat_observations[seat].copy(), "action_mask": self._masks[seat].copy()}

    def check_action(self, agent: str, action: Any) -> int:
        """The card index `action` names; IllegalActionError, naming the legal actions, unless it is a card in `agent`'s hand."""
        self._dealt()
        return check_action(self._masks[self.seat(agent)], action, agent)

    def _reveal(self, cards: list[int]) -> tuple[list[float] | None, list[dict[str, Any]]]:
        """Play the joint action (diver cards); the rewards if the game ended, and every seat's info."""
        assert self._played is not None
        # Each card was checked as it came (check_action), so the engine need not check them again.
        observations, masks, _, done, ended = self.engine.step(np.array([cards], dtype=np.int64) - 1, trusted=True)
        reveal = self._played.add(tuple(cards))
        results = RoundResults(source=functools.partial(self._played.records, reveal))
        self._seat_observations, self._masks, self._is_over = observations[0], masks[0], bool(done[0])
        if self._is_over:
            totals, winning = ended["scores"][0].tolist(), ended["winners"][0].tolist()
        else:
            totals, winning = self.engine.scores()[0].tolist(), [False] * len(cards)
        infos = [{"round_results": results, "score": total, "winner": won} for total, won in zip(totals, winning, strict=True)]
        rewards: list[float] | None = final_rewards(np.array(totals), self.table_spec.reward).tolist() if self._is_over else None
        return rewards, infos

    def state(self) -> np.ndarray:
        """The global state vector (see `STATE_LAYOUT`): everything, hidden cards included."""
        played = self._dealt()
        game = played.state()
        if self._encoded != (played, game.round):
            self._encoder.refresh(game, new_game=self._encoded is None or self._encoded[0] is not played)
            self._encoded = (played, game.round)
        return self._encoder.state_vector(game)

    def _table_text(self) -> str:
        return render_table(self.game)

    def _table_picture(self) -> np.ndarray:
        return table_picture(self.game)


class raw_env(_MiauiEnv, AECTurns, AECEnv):  # noqa: N801 (PettingZoo's naming)
    """Miaui as a PettingZoo AEC env; the module docstring is its documentation."""

    def __init__(self, *, render_mode: str | None = None, **settings: Unpack[TableKwargs]):
        AECEnv.__init__(self)
        _MiauiEnv.__init__(self, render_mode=render_mode, **settings)
        self._pending: list[int] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game, optionally seeded and with a stacked deck (`options={"deck": [...]}`)."""
        self._new_game(seed, options)
        self._seat_everyone()
        self._pending = []
        self.agent_selection = self.agents[0]
        self._render_as_it_goes()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What `agent` sees now: nothing of this round's choices until all are revealed (R6, R11)."""
        seat = self.seat(agent)
        self._dealt("observe()")
        return self._observe(seat)

    def step(self, action: Any) -> None:
        """Take the acting agent's card; the round is revealed once every seat has chosen."""
        agent = self._agent_to_step(action)
        if agent is None:
            return
        seat = self.seat_of[agent]
        self._pending.append(check_action(self._masks[seat], action, agent) + 1)
        self._cumulative_rewards[agent] = 0.0
        # Rewards are 0 until the last reveal sets them, so only that step has any to accumulate.
        if len(self._pending) == len(self.agents):
            final, infos = self._reveal(self._pending)
            self._render_as_it_goes()
            self._pending = []
            self.infos = dict(zip(self.agents, infos, strict=True))
            if final is not None:
                self.rewards = dict(zip(self.agents, final, strict=True))
                self.terminations = dict.fromkeys(self.agents, True)
                self._accumulate_rewards()
        self.agent_selection = self.agents[(seat + 1) % len(self.agents)]


class MiauiParallelEnv(_MiauiEnv, ParallelEnv):
    """Miaui with the Parallel API: every agent's card in one `step`, as the rules take them."""

    def __init__(self, *, render_mode: str | None = None, **settings: Unpack[TableKwargs]):
        _MiauiEnv.__init__(self, render_mode=render_mode, **settings)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new game; returns observations and (empty) infos."""
        self._new_game(seed, options)
        self.agents = list(self.possible_agents)
        self._render_as_it_goes()
        return self._observations(), {agent: {} for agent in self.agents}

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self._observe(s) for s, a in enumerate(self.agents)}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Reveal one round from every agent's action; IllegalActionError (nothing changes) if any is bad."""
        if self.is_over:
            raise ResetNeeded("the game is over: call reset() to deal a new one")
        if not isinstance(actions, Mapping):
            raise IllegalActionError(f"step() takes a dict of one action per agent ({self.agents}), got {actions!r:.60}")
        if set(actions) != set(self.agents):
            raise IllegalActionError(f"step() needs one action for each of {self.agents}, got {sorted(map(repr, actions))}")
        cards = [self.check_action(a, actions[a]) + 1 for a in self.agents]
        final, info_list = self._reveal(cards)
        self._render_as_it_goes()
        observations = self._observations()
        infos = dict(zip(self.agents, info_list, strict=True))
        done = final is not None
        rewards = dict(zip(self.agents, final if final is not None else [0.0] * len(self.agents), strict=True))
        terminations = dict.fromkeys(self.agents, done)
        truncations = dict.fromkeys(self.agents, False)
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


class _TerminateIllegalWrapper(RefusingTerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper, except that an action that names no card at all (not an
    int 0-11) is still an IllegalActionError, not an IndexError from inside the wrapper."""

    num_actions = NUM_DIVER_CARDS
    what_an_action_is = "a card index"

    @staticmethod
    def as_action(action: Any) -> Any:
        """A 0-d array as its item, as raise mode (rules.check_action) takes it."""
        scalar = isinstance(action, np.ndarray) and action.shape == () and not isinstance(action, np.ma.MaskedArray)
        return action.item() if scalar and action.dtype.kind != "m" else action  # (numpy.ma.masked and time spans stay themselves)


def env(*, illegal_action: str = "raise", illegal_reward: float = -1.0, **kwargs: Any) -> OrderEnforcingWrapper:
    """The AEC env with PettingZoo's order-enforcing wrapper (other arguments as `raw_env`).
    `illegal_action="terminate"` ends the game at a card not in hand, as PettingZoo's classic
    games do (`TerminateIllegalWrapper`): the offender is rewarded `illegal_reward`, every other
    agent 0 (any finite real: an int, a float or a numpy scalar). The default, "raise", refuses the
    card with IllegalActionError and changes nothing."""
    return order_enforced(lambda: raw_env(**kwargs), illegal_action, illegal_reward, _TerminateIllegalWrapper)


def parallel_env(**kwargs: Any) -> MiauiParallelEnv:
    """The Parallel API env (arguments as `raw_env`)."""
    return MiauiParallelEnv(**kwargs)
