"""The octopus fishing game as a PettingZoo AEC environment (`octopus_v0`: `env`, `raw_env`).

A push-your-luck card game for 2-4 players over several sessions (the rules as implemented, with
the rulings O1-O12, are on the docs site's page `docs/rules/octopus.md`). On her turn a player flips
cards from a 66-card deck into a face-up row: after each new species she **stops** (the row goes
into her face-down collection) or **flips again**; a species already in the row is a bust (the pair
and everything between them are discarded, the cards before the earlier one are kept); an octopus
discards the whole row and lets her try a **theft**: she names an opponent and k in 1-3, and a die
(-1, 1, 1, 2, 3, 3) decides: a roll >= k moves k random cards of the target's to her, -1 moves one
random card of hers to the target. When the deck is empty the session is scored (per species only
the highest card counts, O7) and a new one begins; the game ends after the session in which a
total reaches 77, the highest total winning (ties share the victory, O9). The rules are
`miaui_env.games.octopus.rules`; this module only turns agents into seats and results into rewards.

| | |
|---|---|
| Import | `miaui_env.octopus_env`, `pettingzoo.make("aec", "miaui_env/octopus-v0")`, or `from miaui_env.games.octopus.env import env` |
| Agents | `player_0 ... player_{n-1}`, clockwise (O1); `player_0` takes the first turn |
| Actions | `Discrete(12)`: 0 stop, 1 flip, 2 no theft, `3 + 3 * (offset - 1) + (k - 1)`: steal k from the seat `offset` places clockwise |
| Observations | `Dict(observation=Box(-64, 64, (306,), float32), action_mask=Box(0, 1, (12,), int8))` |
| State | `Box(-64, 64, (372,), float32)`: the whole game, the deck's order included (table below) |
| Episode | until a total reaches 77 (O9), or `max_sessions` sessions (a truncation, O12) |
| Version | `octopus_v0`, observation layout `OBSERVATION_VERSION` = 1 |

## Arguments
- `num_players` (2-4, default 3).
- `view`: `"table"` (default) shows what is in sight now (O4): the row, the deck's and the discard
  pile's sizes, your own collection card by card, opponents' collection sizes, every total, whose
  turn it is, the last die roll and theft. `"recall"` adds what a perfect memory knows: every card
  of the discard pile and of every opponent's collection (each was shown to everyone, O4).
- `reward`: `"win"` (default; tied winners share 1, the others 0), `"score"` (the final total) or
  `"margin"` (own final total minus the best opponent's).
- `max_sessions` (default 30; None for no cap): O12's cap. A game that reaches it without a total of
  77 ends as a **truncation** (every agent's `truncations` True, not `terminations`), rewarded as
  `reward` says from the totals then (the leaders share a win). Random play ends in 3 or 4 sessions.
- `variant` (default `rules.Variant()`, the full game): a small variant (OV1-OV3), fewer cards and a
  lower target, e.g. `Variant(species=2, values=(1, 2), octopuses=1, target=1)`; its cards keep
  their ids, so every space and layout is the full game's.
- `render_mode`: `None`, `"ansi"` (`render()` returns the table as text), `"human"` (prints it at
  reset and after every step, and whenever `render()` is called) or `"rgb_array"` (`render()`
  returns a picture, (H, W, 3) uint8, drawn with Pillow: `pip install "miaui-rl[render]"`; without
  it the constructor raises `MissingExtraError`). Every mode is a spectator's view: every
  collection shown, the deck's order never.

`reset(seed=..., options={"deck": [...], "dice": [...]})` stacks the game for tests (O11): `deck`
is a deck order (the 66 card ids, top first: fish `species * 6 + slot` with values 1,1,2,2,3,4 by
slot, octopuses 60-65; `rules.stacked_deck(top)` completes one from its first cards) or a list of
orders for the first sessions; `dice` is a list of die faces rolled first. Later sessions and rolls
come from the env's generator, as do theft draws.

## Rulings this env follows
The engine's (see `miaui_env.games.octopus.rules`): the first flip of a turn, a stop when the deck is
empty, busts, die rolls and session ends are forced and played by the engine (O10), so an agent is
asked only to flip or stop, and for a theft after an octopus when an opponent holds a card (with
nobody to rob, the engine passes on). Theft targets are relative to the thief (offset 1 is the
next seat clockwise), so one network can play every seat. The next session's first turn goes to
the seat after the one who took the last turn (O8).

## Turns, rewards and infos
Only the deciding seat acts: `agent_selection` is the seat the engine waits for, and play passes
clockwise with the turns. Every agent's `action_mask` is all zero while another seat decides, and
never all zero for the agent to act. Rewards are 0 until the game ends, then as `reward` says.
`reset`'s infos are empty, as PettingZoo's classic games'; after that every info holds the same
keys: `"total"` (int, the agent's running total), `"session"` (int, the session being played) and
`"winner"` (bool, among the winners; False until the game ends).

## Errors
Every call checks its arguments before anything changes, with the classes and messages every game's
env shares (`miaui_env.core.errors`, `miaui_env.core.aec`):
`IllegalActionError` (a ValueError) for an action that is not legal for the agent to act, naming
the legal actions; `UnknownAgentError` for an agent not at the table; at construction,
`InvalidConfigError`; at reset, `SeedError` (not an integer >= 0), `ResetOptionError` (options
that are not a dict), `DeckError` (a stacked deck that is not a deck order) and `DiceError` (die
faces not among -1, 1, 2, 3). An unknown option is ignored with a `ResetOptionWarning` naming the
known ones, as PettingZoo's API test requires. Before the first reset and after the game's end the
env raises Gymnasium's `ResetNeeded`. `env()` adds PettingZoo's order enforcing (checking reset's
arguments before it counts the env as reset). `env(illegal_action="terminate", illegal_reward=-1.0)`
ends the game at an illegal action as PettingZoo's classic games do (`TerminateIllegalWrapper`):
the offender gets `illegal_reward`, every other agent 0; an action that is no action index at all
still raises.

## Observation
One float32 vector from named pieces: table-wide pieces, then one row per seat, seat-relative (row
0 is you, row k the k-th seat clockwise; rows beyond the table are zero), so every table size and
view has the same layout. Piles are shown card by card as counts per species (anchovy, bream, cod,
dory, eel, flounder, grouper, herring, ide, jack) and value 1-4. `OBSERVATION_LAYOUT.view(obs,
name)` (`miaui_env.games.octopus.observation`) cuts out any piece by name, seat-row pieces included. What
each view shows is declared piece by piece in `VISIBILITY` and `OPPONENT_ROW_VISIBILITY` (deny by
default: an undeclared piece raises).

| piece | indices | shape | meaning |
|---|---|---|---|
| `num_players` | 0-2 | 3 | one-hot table size 2, 3, 4 |
| `session` | 3-3 | 1 | session number / 10 (1-based, O8) |
| `row` | 4-13 | 10 | per species: the value / 4 of its card in the row, 0 if none (O3) |
| `row_order` | 14-23 | 10 | per species: its card's place in the row (1 = first) / 10, 0 if none |
| `row_length` | 24-24 | 1 | cards in the row / 10 |
| `deck_size` | 25-25 | 1 | cards left in the deck / 66 (its order is never shown, O4) |
| `discard_size` | 26-26 | 1 | cards in the discard pile / 66 |
| `last_roll` | 27-30 | 4 | one-hot face -1, 1, 2, 3 of the session's last theft roll (O5); 0 if none yet |
| `theft_k` | 31-33 | 3 | one-hot k announced for that theft |
| `theft_moved` | 34-73 | 10x4 | the cards that theft moved, shown to everyone (O5): count per species and value |
| `decision` | 74-76 | 3 | one-hot what you are asked: flip or stop, a theft, nothing (not your turn, game over) |
| `discard` | 77-116 | 10x4 | discard pile: count per species and value (recall view only, O4) |
| `discard_octopuses` | 117-117 | 1 | octopuses in the discard pile / 6 (recall view only) |
| `seats` | 118-305 | 4x47 | one row per seat (below): you, then each seat clockwise; rows past the table are 0 |

Each row of `seats`:

| piece | indices | shape | meaning |
|---|---|---|---|
| `present` | 0-0 | 1 | 1 if the seat is at the table |
| `to_act` | 1-1 | 1 | 1 if it is this seat's turn (it decides next, O10) |
| `total` | 2-2 | 1 | running total / 77 (O7; the game ends at 1, O9) |
| `collection_size` | 3-3 | 1 | cards in its collection / 66 |
| `thief` | 4-4 | 1 | 1 if this seat rolled for the last theft of the session (O5) |
| `theft_target` | 5-5 | 1 | 1 if this seat was the target of that theft |
| `session_score` | 6-6 | 1 | its collection's score so far / 40 (O7; opponents: recall view only) |
| `collection` | 7-46 | 10x4 | count per species and value 1-4 (opponents: recall view only) |

## State
`state()`: the whole game for a centralized critic or a spectator, not a seat's view: the
observation's pieces with absolute seats (`player_0` first, everything shown), what the table
waits for, and the deck's order:

| piece | indices | shape | meaning |
|---|---|---|---|
| `num_players` | 0-2 | 3 | one-hot table size 2, 3, 4 |
| `session` | 3-3 | 1 | session number / 10 (1-based, O8) |
| `row` | 4-13 | 10 | per species: the value / 4 of its card in the row, 0 if none (O3) |
| `row_order` | 14-23 | 10 | per species: its card's place in the row (1 = first) / 10, 0 if none |
| `row_length` | 24-24 | 1 | cards in the row / 10 |
| `deck_size` | 25-25 | 1 | cards left in the deck / 66 (its order is never shown, O4) |
| `discard_size` | 26-26 | 1 | cards in the discard pile / 66 |
| `last_roll` | 27-30 | 4 | one-hot face -1, 1, 2, 3 of the session's last theft roll (O5); 0 if none yet |
| `theft_k` | 31-33 | 3 | one-hot k announced for that theft |
| `theft_moved` | 34-73 | 10x4 | the cards that theft moved, shown to everyone (O5): count per species and value |
| `phase` | 74-76 | 3 | one-hot what the table waits for: flip or stop, a theft, nothing (game over) |
| `discard` | 77-116 | 10x4 | discard pile: count per species and value |
| `discard_octopuses` | 117-117 | 1 | octopuses in the discard pile / 6 |
| `deck` | 118-183 | 66 | per card id: its place in the deck from the top (1 = next) / 66, 0 if not in it |
| `seats` | 184-371 | 4x47 | one row per seat, player_0 first, everything shown |

## Version History
- `octopus_v0`, observation layout version 1: the 306-float observation and 372-float state above.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from miaui_env.core.aec import AECTurns, RefusingTerminateIllegalWrapper, checked_options, dealt_game, order_enforced
from miaui_env.core.agents import Agent, Policy, checked_actions
from miaui_env.core.errors import REWARDS, DeckError, IllegalActionError, InvalidConfigError, final_rewards, is_integer
from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.core.render import RENDER_MODES, seat_name
from miaui_env.core.seeding import check_seed
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.observation import (
    OBSERVATION_LAYOUT,
    OBSERVATION_VERSION,
    STATE_LAYOUT,
    Painter,
    canvas,
    check_view,
    observe_canvas,
    state_vector,
)
from miaui_env.games.octopus.rules import MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS, NUM_CARDS, SPECIES_NAMES, OctopusState

RESET_OPTIONS = ("deck", "dice")
DEFAULT_MAX_SESSIONS = 30  # O12: far beyond any real game (random play ends in 3 or 4 sessions)
ACTION_NAMES = ("stop", "flip", "no theft", *(f"steal {k} from +{offset}" for offset in range(1, MAX_PLAYERS) for k in (1, 2, 3)))


_FLIP_OR_STOP = rules.Phase.FLIP_OR_STOP  # a module name: an enum member's lookup is slow for every step
_MOVES = (rules.STOP, rules.FLIP, rules.NO_THEFT)  # actions 0-2, as `rules.decision_of` names them
_FLIP_OR_STOP_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_FLIP_OR_STOP_MASK[[rules.action_of(rules.new_game(MIN_PLAYERS, seed=0), d) for d in (rules.STOP, rules.FLIP)]] = 1
_FLIP_OR_STOP_MASK.flags.writeable = False


def decision_mask(state: OctopusState) -> np.ndarray:
    """The legal actions of the seat to act (read-only): flip or stop is the common decision and
    its mask is always the same (O3); a theft's depends on the collections, so the engine lists it (O5)."""
    return _FLIP_OR_STOP_MASK if state.phase is _FLIP_OR_STOP else rules.action_mask(state)


def play_decision(agent: Agent | Policy, state: OctopusState, view: str, painter: Painter | None = None) -> int:
    """Play the decision `agent` takes for the seat to act, shown that seat's observation in `view`
    (painted in place by `painter`, one per game, when given); the action, checked legal (O10)."""
    painted = painter.canvas(state) if painter is not None else canvas(state)
    seen = observe_canvas(painted, state.num_players, state.active, view)
    action = int(checked_actions(agent, seen[None], rules.action_mask(state)[None])[0])
    rules.step(state, rules.decision_of(state, action))
    return action


class DiceError(ValueError):
    """Stacked die faces that the octopus die does not have (O1: -1, 1, 1, 2, 3, 3)."""


METADATA = {
    "name": "octopus_v0",
    "render_modes": list(RENDER_MODES),
    "is_parallelizable": False,  # turns are sequential: there is no joint action to collect
    "render_fps": 1,
}


def _check_settings(num_players: Any, view: Any, reward: Any, max_sessions: Any) -> None:
    """InvalidConfigError, in the message style every env shares, for any setting outside what the game allows."""
    if not is_integer(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidConfigError(f"num_players={num_players!r} is not allowed; the octopus game is played by 2, 3 or 4 players (O1)")
    try:
        check_view(view)
    except rules.InvalidConfigError as refused:
        raise InvalidConfigError(str(refused)) from None
    if not isinstance(reward, str) or reward not in REWARDS:
        raise InvalidConfigError(f"reward={reward!r} is not allowed; rewards are {', '.join(map(repr, REWARDS))}")
    if max_sessions is not None and (not is_integer(max_sessions) or max_sessions < 1):
        raise InvalidConfigError(f"max_sessions={max_sessions!r} is not allowed; it is None (no cap) or an integer >= 1 (O12)")


def _action_list(mask: np.ndarray) -> str:
    legal = [int(a) for a in np.flatnonzero(mask)]
    return f"{legal} ({', '.join(ACTION_NAMES[a] for a in legal)})" if legal else "none"


def check_action(mask: np.ndarray, action: object, who: str) -> int:
    """The action index `action` names if `mask` allows it; else IllegalActionError naming the legal actions."""
    if type(action) is int and 0 <= action < NUM_ACTIONS and len(mask) == NUM_ACTIONS and mask[action]:
        return action  # the common case, first: the checks below are slow for what is plainly an int
    if not isinstance(mask, np.ndarray) or mask.shape != (NUM_ACTIONS,):
        raise InvalidConfigError(f"check_action takes a mask of shape ({NUM_ACTIONS},); got {getattr(mask, 'shape', type(mask).__name__)}")
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu" and not np.ma.is_masked(action):
        action = action.item()  # (a 0-d time span array, or a masked value, stays an array: no action)
    index = -1  # no action: anything but an integer (a bool or a numpy time span is no integer here)
    if isinstance(action, int | np.integer) and not isinstance(action, bool | np.timedelta64):
        index = int(action)
    if 0 <= index < NUM_ACTIONS and mask[index]:
        return index
    reason = (
        f"({ACTION_NAMES[index]}) is not legal now" if 0 <= index < NUM_ACTIONS else f"is not an action (actions are 0-{NUM_ACTIONS - 1})"
    )
    raise IllegalActionError(f"{who}: action {action!r} {reason}; legal actions: {_action_list(mask)}")


# ---- text and pictures of a table (a spectator's view) -------------------------------------------


def _short(card: int) -> str:
    """`C4` for the cod worth 4, `OCT` for an octopus."""
    return "OCT" if rules.is_octopus(card) else f"{SPECIES_NAMES[rules.CARD_SPECIES[card]][0].upper()}{rules.CARD_VALUES[card]}"


def _describe_theft(state: OctopusState) -> str:
    for event in reversed(state.events):
        if isinstance(event, rules.Rolled):
            return f"last theft: {seat_name(event.seat)} asked {event.k} of {seat_name(event.target)}'s cards and rolled {event.face}"
        if isinstance(event, rules.SessionStart):
            break
    return "last theft: none this session"


def _check_state(state: object, where: str) -> None:
    if not isinstance(state, OctopusState):
        raise InvalidConfigError(f"{where} draws an OctopusState (from rules.new_game or the env); got {type(state).__name__}")


def render_text(state: OctopusState) -> str:
    """The table as text: session, deck, row, discard pile, each seat's total and collection."""
    _check_state(state, "render_text")
    if state.is_over:
        doing = (
            "game over"
            + (" (session cap, O12)" if state.truncated else "")
            + f"; winners: {', '.join(map(seat_name, rules.winners(state)))}"
        )
    else:
        doing = f"{seat_name(state.active)} to decide: {'a theft' if state.phase is rules.Phase.THEFT else 'flip or stop'}"
    lines = [
        f"session {state.session}, deck {len(state.deck)} cards; {doing}",
        f"row: {' '.join(map(_short, state.row)) or '-'}",
        f"discard ({len(state.discard)}): {' '.join(map(_short, sorted(state.discard))) or '-'}",
        _describe_theft(state),
    ]
    for seat, cards in enumerate(state.collections):
        marker = ">" if seat == state.active and not state.is_over else " "
        lines.append(
            f"{marker} {seat_name(seat)}: total {state.totals[seat]:3d}, session {rules.session_score(cards):2d}, "
            f"{len(cards):2d} cards: {' '.join(map(_short, sorted(cards))) or '-'}"
        )
    return "\n".join(lines)


SEA, PALE, CARD_INK = (18, 64, 99), (235, 240, 245), (20, 20, 20)
SPECIES_COLOURS = [(246, 178, 107), (230, 145, 56), (111, 168, 220), (255, 217, 102), (180, 167, 214),
                   (147, 196, 125), (224, 102, 102), (118, 165, 175), (194, 123, 160), (204, 204, 204)]  # fmt: skip
OCTOPUS_COLOUR = (120, 40, 110)


def table_picture(state: OctopusState) -> np.ndarray:
    """The table as a picture, (H, W, 3) uint8, drawn with Pillow (one size for every table of a game)."""
    _check_state(state, "table_picture")
    from PIL import Image, ImageDraw, ImageFont

    width, card_w, card_h, seat_h = 1000, 30, 40, 56
    height = 130 + MAX_PLAYERS * seat_h
    image = Image.new("RGB", (width, height), SEA)
    draw = ImageDraw.Draw(image)
    font, small = ImageFont.load_default(size=15), ImageFont.load_default(size=11)

    def card(x: int, y: int, c: int) -> None:
        colour = OCTOPUS_COLOUR if rules.is_octopus(c) else SPECIES_COLOURS[rules.CARD_SPECIES[c]]
        draw.rectangle((x, y, x + card_w - 2, y + card_h - 2), fill=colour, outline=CARD_INK)
        draw.text((x + 3, y + 12), _short(c), fill=CARD_INK, font=small)

    text = render_text(state).splitlines()
    draw.text((12, 8), text[0], fill=PALE, font=font)
    draw.text((12, 30), text[3], fill=PALE, font=small)
    draw.text((12, 62), "row", fill=PALE, font=font)
    for i, c in enumerate(state.row):
        card(60 + i * card_w, 50, c)
    for seat, cards in enumerate(state.collections):
        y = 110 + seat * seat_h
        marker = "> " if seat == state.active and not state.is_over else ""
        draw.text((12, y + 4), f"{marker}{seat_name(seat)}", fill=PALE, font=font)
        draw.text((12, y + 24), f"total {state.totals[seat]}", fill=PALE, font=small)
        for i, c in enumerate(sorted(cards)[: (width - 140) // 14]):
            card(130 + i * 14, y, c)  # overlapping, like a fanned stack
    return np.asarray(image, dtype=np.uint8)


# ---- the env ----------------------------------------------------------------------------------


class raw_env(AECTurns, AECEnv):  # noqa: N801 (PettingZoo's naming)
    """The octopus game as a PettingZoo AEC env; the module docstring is its documentation."""

    metadata = METADATA

    def __init__(
        self,
        *,
        num_players: int = 3,
        view: str = "table",
        reward: str = "win",
        max_sessions: int | None = DEFAULT_MAX_SESSIONS,
        variant: rules.Variant = rules.FULL_GAME,
        render_mode: str | None = None,
        **unknown: Any,
    ):
        super().__init__()
        if unknown:  # named, as every env names them, rather than Python's bare TypeError
            raise InvalidConfigError(
                f"unknown table setting(s) {', '.join(sorted(unknown))}; the octopus env's settings are "
                "num_players, view, reward, max_sessions, variant, render_mode"
            )
        _check_settings(num_players, view, reward, max_sessions)
        if not isinstance(variant, rules.Variant):
            raise InvalidConfigError(f"variant={variant!r:.60} is not allowed; it is an octopus rules.Variant (the full game by default)")
        self.variant = variant
        self._set_render_mode(render_mode)
        self.num_players, self.view, self.reward_mode = int(num_players), view, reward
        self.max_sessions = None if max_sessions is None else int(max_sessions)
        self._seat_agents(self.num_players, seat_name)
        obs_box = gymnasium.spaces.Box(-VECTOR_BOUND, VECTOR_BOUND, (OBSERVATION_LAYOUT.size,), np.float32)
        self._set_spaces(obs_box, NUM_ACTIONS, STATE_LAYOUT.size)
        self.observation_version = OBSERVATION_VERSION
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self._game: OctopusState | None = None
        self._canvas: np.ndarray | None = None  # the table as last painted (None: changed since)
        self._painter = Painter()
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._no_actions = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def _dealt(self, call: str = "using the env") -> OctopusState:
        """The game being played; ResetNeeded before the first reset."""
        return dealt_game(self._game, call)

    @property
    def game(self) -> OctopusState:
        """A copy of the game (omniscient; for tools and tests, not for agents)."""
        return self._dealt().clone()

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (ResetNeeded before the first reset)."""
        return self._dealt().is_over

    def check_reset(self, seed: Any = None, options: Any = None) -> tuple[int | None, list[tuple[int, ...]] | None, list[int] | None]:
        """The seed, stacked decks and stacked dice of a reset, checked (SeedError, ResetOptionError,
        DeckError, DiceError); changes nothing."""
        seed = check_seed(seed)
        options = checked_options(options, RESET_OPTIONS)
        if options is None:
            return seed, None, None
        decks = dice = None
        if options.get("deck") is not None:
            deck = options["deck"]
            try:
                rules.new_game(MIN_PLAYERS, seed=0, deck=deck, variant=self.variant)  # the engine's own check (O11)
            except rules.InvalidConfigError as refused:
                raise DeckError(f"{refused}; rules.stacked_deck(top) completes an order from its first cards") from None
            decks = _decks_of(deck)
        if options.get("dice") is not None:
            faces = options["dice"]
            try:
                rules.new_game(2, seed=0, dice=faces)  # the engine's own check: a list (or 1-d array) of faces
            except rules.InvalidConfigError as refused:
                raise DiceError(str(refused)) from None
            dice = [int(f) for f in faces]
        return seed, decks, dice

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game, optionally seeded and stacked (`options={"deck": [...], "dice": [...]}`)."""
        seed, decks, dice = self.check_reset(seed, options)  # every argument checked before anything changes
        self._reseed(seed)
        self._game = rules.new_game(
            self.num_players, self.np_random, deck=decks, dice=dice, max_sessions=self.max_sessions, variant=self.variant
        )
        self._canvas = None
        self._seat_everyone()
        self._reported: tuple[int, tuple[int, ...], bool] | None = None  # what the infos last said
        self._after_move()
        if self._game.is_over:  # a small variant's deal can end it before anyone decides (O8): every agent is out at once
            self.agent_selection = self.possible_agents[0]
            self._report()
        self._render_as_it_goes()

    def _after_move(self) -> None:
        """Follow the engine: the deciding seat acts next (O10); its legal actions."""
        game = self._dealt()
        self._canvas = None
        self._mask = decision_mask(game)
        if not game.is_over:
            self.agent_selection = self.possible_agents[game.active]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What `agent` sees now (O4) and its legal actions (all zero unless it is to act)."""
        seat = self.seat(agent)
        self._dealt("observe()")
        return self._observe(seat)

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        game = self._dealt()
        if self._canvas is None:
            self._canvas = self._painter.canvas(game)  # painted once per move, cut for every seat that looks
        acting = not game.is_over and seat == game.active
        mask = self._mask if acting else self._no_actions
        return {"observation": observe_canvas(self._canvas, self.num_players, seat, self.view), "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        """The acting agent's decision (O10); the engine plays every forced move up to the next decision."""
        agent = self._agent_to_step(action)
        if agent is None:
            return
        game = self._dealt()
        index = check_action(self._mask, action, agent)
        rules.step(game, _MOVES[index] if index < len(_MOVES) else rules.decision_of(game, index))
        self._cumulative_rewards[agent] = 0.0
        self._after_move()
        self._report()
        self._render_as_it_goes()

    def _report(self) -> None:
        """New infos at a session's end; at the game's end the rewards, and every agent out."""
        game = self._dealt()
        totals = game.totals
        reported = (game.session, tuple(totals), game.is_over)
        if reported != self._reported:  # the infos change only at a session's end: new dicts only then
            winning = set(rules.winners(game)) if game.is_over else set()
            self.infos = {a: {"total": totals[s], "session": game.session, "winner": s in winning} for s, a in enumerate(self.agents)}
            self._reported = reported
        if game.is_over:
            self.rewards = dict(zip(self.agents, final_rewards(np.array(totals), self.reward_mode).tolist(), strict=True))
            ended = self.truncations if game.truncated else self.terminations  # O12: the cap is a truncation
            for a in self.agents:
                ended[a] = True
            self._accumulate_rewards()

    def state(self) -> np.ndarray:
        """The global state vector (see `STATE_LAYOUT`): everything, the deck's order included."""
        return state_vector(self._dealt("state()"))

    def _table_text(self) -> str:
        return render_text(self._dealt("render()"))

    def _table_picture(self) -> np.ndarray:
        return table_picture(self._dealt("render()"))


def _decks_of(deck: Any) -> list[tuple[int, ...]]:
    """A stacked deck option as a list of orders (one order, or a list of them), already checked."""
    is_one = len(deck) > 0 and not hasattr(deck[0], "__len__")
    orders = [deck] if is_one else list(deck)
    return [tuple(int(c) for c in order) for order in orders]


class _TerminateIllegalWrapper(RefusingTerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper, except that a value that is no action index at all (not
    an int 0-11) is still an IllegalActionError, not an IndexError from inside the wrapper."""

    num_actions = NUM_ACTIONS

    @staticmethod
    def as_action(action: Any) -> Any:
        """A 0-d integer array as its item, as raise mode (check_action) takes it."""
        scalar = isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu" and not np.ma.is_masked(action)
        return action.item() if scalar else action  # (a masked value stays itself: no action)


def env(*, illegal_action: str = "raise", illegal_reward: float = -1.0, **kwargs: Any) -> OrderEnforcingWrapper:
    """The AEC env with PettingZoo's order-enforcing wrapper (other arguments as `raw_env`).
    `illegal_action="terminate"` ends the game at an illegal action, as PettingZoo's classic games
    do: the offender is rewarded `illegal_reward`, every other agent 0. The default, "raise",
    refuses it with IllegalActionError and changes nothing."""
    return order_enforced(lambda: raw_env(**kwargs), illegal_action, illegal_reward, _TerminateIllegalWrapper)


octopus_env = env  # the name `miaui_env.octopus_env` gives it beside Miaui's `env`

__all__ = [
    "ACTION_NAMES",
    "DEFAULT_MAX_SESSIONS",
    "NUM_CARDS",
    "DiceError",
    "check_action",
    "env",
    "octopus_env",
    "raw_env",
    "render_text",
    "table_picture",
]
