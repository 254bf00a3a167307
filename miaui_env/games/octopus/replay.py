"""Octopus replays: a whole game of the octopus fishing game as versioned JSON that plays back bit for bit.

A replay holds the table (`num_players`, the session cap `max_sessions`, O12), the deal (`seed`:
`new_game(num_players, seed=seed)` shuffles every session's deck, rolls every die and draws every
theft from it, O11), the view the human was shown (`view`, O4), who sat where (`players`), every
decision the seats made as an action index (`actions`, 0-11, `rules.action_of`: the engine plays
every forced move itself, O10, so these are all a game needs), and what the game made of them:
every session's scores (`session_scores`, O7), the final `totals` and the `winners` (O9).
`replay_states` plays the actions back through the rules and refuses (`OctopusReplayError`, a
`ReplayError`) a replay whose actions are not legal or whose scores are not what they make,
naming the first that differs. `save_replay` writes only what `load_replay` reads back.

    python -m miaui_env.apps.replay GAME.json

prints the game as a hand history: every flip, stop, bust, octopus, theft, roll and score.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from miaui_env.core.agents import Agent, Policy, agent_name, as_agent
from miaui_env.core.errors import is_integer
from miaui_env.core.replays import ReplayError, read_replay_file, replay_parser, write_replay_file
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.env import play_decision
from miaui_env.games.octopus.observation import Painter
from miaui_env.games.octopus.rules import OctopusState

REPLAY_VERSION = 1
GAME = "octopus"
VIEWS = ("table", "recall")  # O4
_KEYS = ("version", "game", "num_players", "max_sessions", "seed", "view", "players", "actions", "session_scores", "totals", "winners")
MAX_SEED = 2**64 - 1  # a seed a JSON reader in any language keeps exact as an unsigned 64-bit integer
# A game ends when a total reaches 77 (O9); a session adds at least one card per turn, so even a
# player who always stops after one card ends it in a few hundred decisions. These bounds refuse a
# file that is huge for no reason before anything is played.
MAX_ACTIONS = 100_000
MAX_SESSIONS = 1_000
MAX_NAME = 200


class OctopusReplayError(ReplayError):
    """An octopus replay this library cannot play back: another version or game, bad JSON, illegal or edited decisions."""


@dataclass(frozen=True)
class OctopusReplay:
    """One octopus game; see the module docstring. Build one with `record`, read one with `load_replay`."""

    num_players: int
    seed: int
    view: str
    players: tuple[str, ...]
    actions: tuple[int, ...]
    session_scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    max_sessions: int | None = None


def record(
    state: OctopusState, actions: Sequence[int], *, seed: int, view: str = "table", players: Sequence[str] | None = None
) -> OctopusReplay:
    """The replay of the finished game `state`, dealt by `seed`, whose decisions were `actions`."""
    if not isinstance(state, OctopusState):
        raise OctopusReplayError(f"record takes the finished game's rules.OctopusState, got {state!r:.60}")
    if not state.is_over:
        raise OctopusReplayError("a replay records a finished game; this one is still being played")
    if not state.variant.is_full_game:  # a replay file names no variant: it would play back as the full game
        raise OctopusReplayError(f"a replay records the full game; this one is a small variant ({state.variant})")
    n = state.num_players
    if isinstance(players, str | bytes):
        raise OctopusReplayError(f"players: {n} names, one per seat, as a list; got the string {players!r:.60}")
    if isinstance(actions, str | bytes) or not isinstance(actions, Sequence | np.ndarray):
        raise OctopusReplayError(f"actions: the game's decisions as a list of action indices; got {actions!r:.60}")
    for i, action in enumerate(actions):
        if isinstance(action, bool | np.bool_ | np.timedelta64) or not isinstance(action, int | np.integer):
            raise OctopusReplayError(f"actions[{i}]: an action index 0-{rules.NUM_ACTIONS - 1} (an integer); got {action!r:.40}")
    replay = OctopusReplay(
        num_players=n,
        seed=seed,
        view=view,
        players=tuple(players) if players is not None else tuple(f"player_{seat}" for seat in range(n)),
        actions=tuple(int(action) for action in actions),
        session_scores=tuple(tuple(scores) for scores in state.session_scores),
        totals=tuple(state.totals),
        winners=tuple(rules.winners(state)),
        max_sessions=state.max_sessions,
    )
    _check_fields(replay)
    replay_states(replay)  # a replay that does not play back to this game is refused here, not when read
    return replay


def play_and_record(
    agents: Sequence[Agent | Policy], num_players: int, seed: int, view: str = "table", max_sessions: int | None = None
) -> OctopusReplay:
    """One game of `agents` (seat i plays `agents[i % len(agents)]`, each shown its own view, else
    `view`) dealt by `seed`, as a replay."""
    if isinstance(agents, str | bytes) or not isinstance(agents, Sequence) or not agents:
        raise OctopusReplayError(f"play_and_record seats at least one agent (a list, cycled over the seats); got {agents!r:.60}")
    if not is_integer(num_players):
        raise OctopusReplayError(f"num_players={num_players!r:.40} is not allowed; the octopus game is played by 2, 3 or 4 players")
    entrants = [as_agent(agent) for agent in agents]
    seated = [entrants[seat % len(entrants)] for seat in range(num_players)]
    for agent in entrants:
        agent.reset()
    state = rules.new_game(num_players, seed=seed, max_sessions=max_sessions)
    painter, actions = Painter(), []
    while not state.is_over:
        agent = seated[state.active]
        actions.append(play_decision(agent, state, getattr(agent, "view", view), painter))
    return record(state, actions, seed=seed, view=view, players=[agent_name(agent) for agent in seated])


# -- playing back -----------------------------------------------------------------------------------


def replay_states(replay: OctopusReplay) -> list[OctopusState]:
    """The game after its deal and after every decision, played back through the rules; OctopusReplayError
    naming the first decision, session score, total or winner that is not what the replay says."""
    _check_fields(replay)
    state = rules.new_game(replay.num_players, seed=replay.seed, max_sessions=replay.max_sessions)
    states = [state.clone()]
    for index, action in enumerate(replay.actions):
        if state.is_over:
            raise OctopusReplayError(f"actions[{index}]: the game ended after {index} decisions; the replay holds {len(replay.actions)}")
        if not rules.action_mask(state)[action]:
            legal = [int(a) for a in rules.action_mask(state).nonzero()[0]]
            raise OctopusReplayError(f"actions[{index}]: action {action} is not legal for player_{state.active} here; legal: {legal}")
        rules.step(state, rules.decision_of(state, action))
        states.append(state.clone())
    if not state.is_over:
        raise OctopusReplayError(f"actions: the game is not over after the replay's {len(replay.actions)} decisions")
    played_sessions = [tuple(scores) for scores in state.session_scores]
    for session, (played, recorded) in enumerate(zip(played_sessions, replay.session_scores, strict=False), start=1):
        if played != recorded:
            raise OctopusReplayError(
                f"session_scores[{session - 1}]: session {session} scored {list(played)}; the replay says {list(recorded)}"
            )
    if len(played_sessions) != len(replay.session_scores):
        raise OctopusReplayError(
            f"session_scores: the game has {len(played_sessions)} sessions; the replay holds {len(replay.session_scores)}"
        )
    for seat, (played_total, recorded_total) in enumerate(zip(state.totals, replay.totals, strict=True)):
        if played_total != recorded_total:
            raise OctopusReplayError(f"totals[{seat}]: player_{seat} ends on {played_total}; the replay says {recorded_total}")
    if tuple(rules.winners(state)) != replay.winners:
        raise OctopusReplayError(f"winners: the game's are {list(rules.winners(state))}; the replay says {list(replay.winners)}")
    return states


# -- checks shared by record, save and load -----------------------------------------------------------


def _is_int(value: object) -> bool:
    """A plain int, not a bool (JSON's true is no 1 here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _int_in(value: object, field: str, low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:  # type: ignore[operator]
        raise OctopusReplayError(f"{field}: an integer {low}-{high}; got {value!r:.60}")
    return int(value)  # type: ignore[call-overload,no-any-return]


def _int_list(values: object, field: str, low: int, high: int, length: int | None = None, longest: int | None = None) -> tuple[int, ...]:
    if not isinstance(values, list | tuple):
        raise OctopusReplayError(f"{field}: a list of integers; got {values!r:.60}")
    if length is not None and len(values) != length:
        raise OctopusReplayError(f"{field}: {length} entries, one per seat; got {len(values)}")
    if longest is not None and len(values) > longest:
        raise OctopusReplayError(f"{field}: at most {longest} entries; got {len(values)}")
    return tuple(_int_in(value, f"{field}[{i}]", low, high) for i, value in enumerate(values))


def _check_fields(replay: OctopusReplay) -> None:
    """Every field of the right type, range and length (OctopusReplayError naming the first that is not)."""
    if not isinstance(replay, OctopusReplay):
        raise OctopusReplayError(f"an OctopusReplay (from record or load_replay) is needed; got {type(replay).__name__}")
    n = _int_in(replay.num_players, "num_players", rules.MIN_PLAYERS, rules.MAX_PLAYERS)
    if replay.max_sessions is not None:
        _int_in(replay.max_sessions, "max_sessions", 1, MAX_SESSIONS)
    _int_in(replay.seed, "seed", 0, MAX_SEED)
    if not isinstance(replay.view, str) or replay.view not in VIEWS:
        raise OctopusReplayError(f"view: one of {', '.join(VIEWS)}; got {replay.view!r:.60}")
    if not isinstance(replay.players, list | tuple) or len(replay.players) != n:
        raise OctopusReplayError(f"players: {n} names, one per seat; got {replay.players!r:.80}")
    for seat, name in enumerate(replay.players):
        # printable only: a name is printed in the hand history, where a newline or terminal escape could forge lines
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or not name.isprintable():
            raise OctopusReplayError(f"players[{seat}]: a name of 1-{MAX_NAME} printable characters; got {name!r:.60}")
    _int_list(replay.actions, "actions", 0, rules.NUM_ACTIONS - 1, longest=MAX_ACTIONS)
    if not isinstance(replay.session_scores, list | tuple) or not 0 < len(replay.session_scores) <= MAX_SESSIONS:
        raise OctopusReplayError(f"session_scores: a list of 1-{MAX_SESSIONS} sessions; got {replay.session_scores!r:.60}")
    max_score = rules.NUM_SPECIES * max(rules.FISH_VALUES)  # O7: 40
    for session, scores in enumerate(replay.session_scores):
        _int_list(scores, f"session_scores[{session}]", 0, max_score, length=n)
    _int_list(replay.totals, "totals", 0, max_score * MAX_SESSIONS, length=n)
    winners = _int_list(replay.winners, "winners", 0, n - 1, longest=n)
    if not winners or list(winners) != sorted(set(winners)):
        raise OctopusReplayError(f"winners: the winning seats, at least one, ascending, each once; got {list(winners)}")


# -- files ------------------------------------------------------------------------------------------


def replay_to_json(replay: OctopusReplay) -> str:
    """The replay as JSON text (keys in a fixed order, version first)."""
    _check_fields(replay)
    body = {
        "version": REPLAY_VERSION,
        "game": GAME,
        "num_players": replay.num_players,
        "max_sessions": replay.max_sessions,
        "seed": replay.seed,
        "view": replay.view,
        "players": list(replay.players),
        "actions": list(replay.actions),
        "session_scores": [list(scores) for scores in replay.session_scores],
        "totals": list(replay.totals),
        "winners": list(replay.winners),
    }
    return json.dumps(body, indent=1) + "\n"


def _refuse_constant(name: str) -> None:
    raise OctopusReplayError(f"a replay holds no {name}: it is not JSON's numbers")


def replay_from_json(text: str) -> OctopusReplay:
    """A replay from JSON text, played back and checked; OctopusReplayError naming what is wrong."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError as bad:
        raise OctopusReplayError("a replay is JSON nested a few levels deep; this is nested too deep to read") from bad
    except (ValueError, TypeError) as bad:  # also integers past Python's 4300-digit limit
        if isinstance(bad, OctopusReplayError):
            raise
        raise OctopusReplayError(f"a replay is JSON; this is not ({bad!s:.200})") from bad
    if not isinstance(data, dict):
        raise OctopusReplayError(f"a replay is a JSON object with keys {', '.join(_KEYS)}; got {type(data).__name__}")
    version = data.get("version")
    if not _is_int(version) or version != REPLAY_VERSION:  # a bool or a float equal to 1 is no version
        raise OctopusReplayError(f"version: replay format {version!r:.40}; this library reads version {REPLAY_VERSION}")
    if data.get("game") != GAME:
        raise OctopusReplayError(
            f"game: {data.get('game')!r:.40} is not an octopus replay (python -m miaui_env.apps.replay shows a replay of any game)"
        )
    missing, unknown = sorted(set(_KEYS) - set(data)), sorted(set(data) - set(_KEYS))
    if missing or unknown:
        raise OctopusReplayError(f"a replay has the keys {', '.join(_KEYS)}; missing {missing or 'none'}, unknown {unknown or 'none'}")
    scores = data["session_scores"]
    replay = OctopusReplay(
        num_players=data["num_players"],
        seed=data["seed"],
        view=data["view"],
        players=tuple(data["players"]) if isinstance(data["players"], list) else data["players"],
        actions=tuple(data["actions"]) if isinstance(data["actions"], list) else data["actions"],
        session_scores=tuple(tuple(s) if isinstance(s, list) else s for s in scores) if isinstance(scores, list) else scores,
        totals=tuple(data["totals"]) if isinstance(data["totals"], list) else data["totals"],
        winners=tuple(data["winners"]) if isinstance(data["winners"], list) else data["winners"],
        max_sessions=data["max_sessions"],
    )
    replay_states(replay)
    return replay


def save_replay(replay: OctopusReplay, path: str | os.PathLike[str]) -> Path:
    """Write the replay to `path` (folders made as needed), only if `load_replay` would read it back; returns the path."""
    text = replay_to_json(replay)
    replay_from_json(text)  # never write a file that load refuses
    return write_replay_file(text, path, OctopusReplayError)


def load_replay(path: str | os.PathLike[str]) -> OctopusReplay:
    """Read and check an octopus replay file; OctopusReplayError naming the file if it is not one."""
    return read_replay_file(path, OctopusReplayError, replay_from_json)


# -- the game in words ------------------------------------------------------------------------------


def _who(seat: int, me: int | None) -> str:
    return "you" if seat == me else f"player_{seat}"


def _does(seat: int, me: int | None, verb: str) -> str:
    """ "player_1 flips", or "you flip" for the human's seat (`verb` in the third person)."""
    if seat != me:
        return f"player_{seat} {verb}"
    first, _, rest = verb.partition(" ")
    base = first[:-3] + "y" if first.endswith("ies") else first[:-1]
    return " ".join(["you", base, rest]).rstrip()


def _cards(cards: Sequence[int]) -> str:
    return ", ".join(map(rules.card_name, cards)) or "nothing"


def describe_event(event: rules.Event, me: int | None = None) -> str | None:
    """One line for an engine event, `me` named "you"; None for a flip a line elsewhere already shows."""
    if not isinstance(event, rules.Event):
        raise OctopusReplayError(f"describe_event takes an engine event (miaui_env.games.octopus.rules.Event), got {event!r:.60}")
    match event:
        case rules.SessionStart(session, first):
            return f"Session {session} begins with a shuffled deck; {_does(first, me, 'flips')} first (O2, O8)."
        case rules.Flipped(seat, card, forced):
            return f"{_does(seat, me, 'turns up' if forced else 'flips')} {rules.card_name(card)}"
        case rules.Kept(seat, cards, forced):
            why = " (the deck is empty, O3)" if forced else ""
            keeps = "keep" if seat == me else "keeps"
            return f"{_does(seat, me, 'stops')}{why} and {keeps} {len(cards)} card{'s' * (len(cards) != 1)}: {_cards(cards)}"
        case rules.Busted(seat, discarded, kept):
            return f"{_does(seat, me, 'busts')} (O3): {_cards(discarded)} discarded; kept {_cards(kept)}"
        case rules.Octopus(seat, discarded):
            return f"{_does(seat, me, 'meets')} an octopus (O3): the row is discarded ({len(discarded) - 1} fish)"
        case rules.TheftSkipped(seat):
            return "nobody else holds a card: no theft (O5)"
        case rules.NoTheft(seat):
            return f"{_does(seat, me, 'steals')} nothing (O5)"
        case rules.Rolled(seat, target, k, face):
            return f"{_does(seat, me, 'tries')} to steal {k} from {_who(target, me)} and {'roll' if seat == me else 'rolls'} {face} (O5)"
        case rules.CardsMoved(source, dest, cards):
            return f"  {_cards(cards)} move{'s' * (len(cards) == 1)} from {_who(source, me)} to {_who(dest, me)}"
        case rules.SessionScored(session, scores, totals):
            parts = ", ".join(
                f"{_who(seat, me)} {score} (total {total})" for seat, (score, total) in enumerate(zip(scores, totals, strict=True))
            )
            return f"Session {session} scores (O7): {parts}"
        case rules.GameEnded(winners, totals, truncated):
            why = "the session cap is reached (O12)" if truncated else f"a total reached {rules.TARGET} (O9)"
            return f"The game ends: {why}; winner{'s' * (len(winners) > 1)}: {', '.join(_who(s, me) for s in winners)}"
    return None


def hand_history(replay: OctopusReplay) -> str:
    """The game in words: the table, who sat where, every event, the final totals."""
    final = replay_states(replay)[-1]
    lines = [f"The octopus game, {replay.num_players} players, seed {replay.seed}"]
    lines += [f"  player_{seat}: {name}" for seat, name in enumerate(replay.players)]
    lines += [line for line in (describe_event(event) for event in final.events) if line is not None]
    lines.append("Final totals: " + ", ".join(f"{name} {total}" for name, total in zip(replay.players, replay.totals, strict=True)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Print an octopus replay's hand history."""
    from miaui_env.core.cli import run_command

    parser = replay_parser(__doc__ or "", "an octopus replay file (JSON)")
    args = parser.parse_args(argv)
    run_command(parser.prog, lambda: print(hand_history(load_replay(args.replay))))


if __name__ == "__main__":
    main()
