"""Play the octopus fishing game in the terminal: you take one seat, baseline agents the others.

    python -m miaui_env.apps.play --game octopus [--players 3] [--opponents rival-aware octopus-ppo-v1 ...] [--seat 0]
                                  [--seed 1] [--view table] [--replay PATH | --no-replay]

The engine (`miaui_env.games.octopus.rules`, rulings O1-O12 of docs/rules/octopus.md) plays every forced
move (O10); you are asked only what a seat decides: stop or flip again (O3), and after an octopus
which theft to try (O5). Before each decision you see the table as your seat sees it (O4: your row
and your collection card by card, opponents' collection sizes and every total; with `--view recall`
also every card ever shown), and every move of the others as the engine's events tell it. Bad input
is asked again; `q` (or closed input) leaves; Ctrl-C ends with status 130. A finished game is saved
as an octopus replay: `python -m miaui_env.apps.replay PATH` prints it back.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from miaui_env.core.cli import check_output_file, read_answer
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.replay import MAX_SEED, OctopusReplayError, describe_event, record, save_replay
from miaui_env.games.octopus.rules import OctopusState

_LONGEST_ANSWER_SHOWN = 20


def steal_odds(k: int) -> Fraction:
    """O5: the chance that one roll of the die (-1, 1, 1, 2, 3, 3) is at least `k`."""
    return Fraction(sum(face >= k for face in rules.DIE_FACES), len(rules.DIE_FACES))


def _odds(k: int) -> str:
    chance = steal_odds(k)
    return f"P(roll >= {k}) = {chance.numerator}/{chance.denominator}"


def introduction(seat: int, num_players: int) -> list[str]:
    """What a new player needs before the first turn: who they are, what a turn is, what each choice means."""
    return [
        f"You are player_{seat} at a table of {num_players}; player_0 takes the first turn, then clockwise (O1).",
        "On your turn cards are flipped from the deck into a face-up row; the first flip is made for you (O3).",
        "After each new species you choose:",
        "  s / stop: keep the row: its cards go into your face-down collection;",
        "  f / flip: flip the next card. A species already in the row is a bust: the pair and the cards",
        "            between them are discarded, the cards before the earlier one are yours (O3).",
        "An octopus discards the whole row, and you may try a theft (O5):",
        '  "no theft", or "steal k from player_j" (k = 1-3 cards): the die (-1, 1, 1, 2, 3, 3) decides.',
        f"  A roll >= k takes k random cards of theirs ({_odds(1)}, {_odds(2)}, {_odds(3)});",
        "  a -1 gives one random card of yours to them.",
        "When the deck is empty the session is scored: per species only your highest card counts (O7).",
        f"The game ends after the session in which a total reaches {rules.TARGET}; the highest total wins (O9).",
        "Type q to leave.",
    ]


def by_species(cards: Sequence[int]) -> str:
    """A pile as "cod 1,4 | eel 2" (species in order, values ascending), octopuses counted last."""
    groups: dict[int, list[int]] = {}
    for card in cards:
        if not rules.is_octopus(card):
            groups.setdefault(rules.CARD_SPECIES[card], []).append(rules.CARD_VALUES[card])
    parts = [f"{rules.SPECIES_NAMES[s]} {','.join(map(str, sorted(values)))}" for s, values in sorted(groups.items())]
    octopuses = sum(map(rules.is_octopus, cards))
    if octopuses:
        parts.append(f"{octopuses} octopus{'es' * (octopuses > 1)}")
    return " | ".join(parts) or "-"


def table(state: OctopusState, seat: int, view: str) -> list[str]:
    """The table as `seat` sees it (O4): its row and collection, the others' sizes and totals (their
    cards and the discard pile too in the recall view: each was shown to everyone once)."""
    n = state.num_players
    mine = state.collections[seat]
    asked = "a theft" if state.phase is rules.Phase.THEFT else "stop or flip"
    lines = [
        f"--- Session {state.session}, your turn (player_{seat}): {asked}; "
        f"deck {_count(len(state.deck), 'card')}, discard pile {len(state.discard)} ---",
        f"Your row: {', '.join(map(rules.card_name, state.row)) or '-'}",
        f"Your collection, {_count(len(mine), 'card')}, scoring {rules.session_score(mine)} so far: {by_species(mine)}",
        f"Your total: {state.totals[seat]}",
    ]
    for offset in range(1, n):
        other = (seat + offset) % n
        cards = state.collections[other]
        line = f"  player_{other}: {_count(len(cards), 'card')}, total {state.totals[other]}"
        if view == "recall":
            line += f"; {by_species(cards)}"
        lines.append(line)
    if view == "recall":
        lines.append(f"Discard pile: {by_species(state.discard)}")
    return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def _shown(answer: str) -> str:
    return repr(answer if len(answer) <= _LONGEST_ANSWER_SHOWN else answer[:_LONGEST_ANSWER_SHOWN] + "...")


def theft_choices(state: OctopusState) -> list[tuple[rules.Decision, str]]:
    """The legal theft decisions (O5) with their words, "no theft" first."""
    choices: list[tuple[rules.Decision, str]] = []
    for decision in rules.legal_decisions(state):
        if isinstance(decision, rules.Theft):
            held = len(state.collections[decision.target])
            choices.append((decision, f"steal {decision.k} from player_{decision.target} ({_count(held, 'card')}): {_odds(decision.k)}"))
        else:
            choices.append((decision, "no theft"))
    return choices


def ask_decision(state: OctopusState, read: Callable[[str], str]) -> rules.Decision | None:
    """The human's decision, asked again until it is legal; None to quit (q or closed input)."""
    if state.phase is rules.Phase.THEFT:
        choices = theft_choices(state)
        print("You may try a theft (O5):")
        for number, (_, words) in enumerate(choices):
            print(f"  {number}: {words}")
        prompt = f"Your choice (0-{len(choices) - 1}), or q to quit: "
    else:
        prompt = "Stop (s) or flip (f), or q to quit: "
    while True:
        answer = read_answer(read, prompt)
        if answer is None:
            return None
        if state.phase is not rules.Phase.THEFT:
            if answer in ("s", "stop"):
                return rules.STOP
            if answer in ("f", "flip"):
                return rules.FLIP
            print(f"  {_shown(answer)} is not a choice: type s to stop or f to flip.")
            continue
        if answer in ("n", "no", "no theft"):
            return rules.NO_THEFT
        # '²' is a digit too, and int() refuses thousands of digits: only short ASCII numbers are read
        if answer.isascii() and answer.isdigit() and len(answer) <= 2 and int(answer) < len(choices):
            return choices[int(answer)][0]
        print(f"  {_shown(answer)} is not a choice: type a number from 0 to {len(choices) - 1}.")


def _agent_action(agent: Any, state: OctopusState, seat: int) -> int:
    """The agent's action for `seat`, from that seat's observation (O4) and mask, checked legal."""
    from miaui_env.core.agents import checked_actions
    from miaui_env.games.octopus.observation import observe

    seen = observe(state, seat, getattr(agent, "view", "table"))
    return int(checked_actions(agent, seen[None], rules.action_mask(state)[None])[0])


def build_opponents(specs: Sequence[str], players: int, seat: int, seed: int) -> dict[int, Any]:
    """One agent per other seat, the specs cycled clockwise from `seat`: any octopus agent spec (a
    built-in, a shipped policy such as octopus-ppo-v1, a run's folder); AgentSpecError naming an unknown one."""
    from miaui_env.games.octopus.agents import load_octopus_agent

    for spec in dict.fromkeys(specs):  # every spec checked before any seat is filled
        load_octopus_agent(spec, seed=0)
    others = [(seat + offset) % players for offset in range(1, players)]
    # each opponent its own stream: the seed says the whole game, opponents' choices included
    return {other: load_octopus_agent(specs[i % len(specs)], seed=seed * 10 + other + 1) for i, other in enumerate(others)}


def play(args: argparse.Namespace, read: Callable[[str], str] = input) -> int:
    """One octopus game against the chosen agents; returns the process exit status."""
    if args.replay is not None:
        check_output_file(args.replay)  # before the game, not after it (a game played for nothing)
        if args.seed > MAX_SEED:  # a replay keeps seeds up to 2**64 - 1: refused now, not once the game is played
            raise OctopusReplayError(
                f"--seed {args.seed} cannot be saved in a replay (seeds 0-{MAX_SEED}); use a smaller seed or --no-replay"
            )
    n, me = args.players, args.seat
    agents = build_opponents(args.opponents, n, me, args.seed)
    names = {seat: getattr(agent, "name", type(agent).__name__) for seat, agent in agents.items()}
    for seat in sorted(agents):
        print(f"player_{seat}: {names[seat]}")
    print("\n".join(introduction(me, n)))
    state = rules.new_game(n, seed=args.seed)
    actions: list[int] = []
    told = 0  # the engine's events printed so far
    while not state.is_over:
        for event in state.events[told:]:
            line = describe_event(event, me)
            if line is not None:
                print(("\n" if isinstance(event, rules.SessionStart) else "") + line)
        told = len(state.events)
        if state.active == me:
            print("\n" + "\n".join(table(state, me, args.view)))
            decision = ask_decision(state, read)
            if decision is None:
                print("Game abandoned.")
                return 0
            action = rules.action_of(state, decision)
        else:
            action = _agent_action(agents[state.active], state, state.active)
        actions.append(action)
        rules.step(state, rules.decision_of(state, action))
    for event in state.events[told:]:
        line = describe_event(event, me)
        if line is not None:
            print(line)
    print("\n" + "\n".join(final_summary(state, me, names)))
    if args.replay is not None:
        players = ["you" if seat == me else names[seat] for seat in range(n)]
        path = save_replay(record(state, actions, seed=args.seed, view=args.view, players=players), args.replay)
        print(f"The game is saved as a replay: {path} (python -m miaui_env.apps.replay {path})")
    return 0


def final_summary(state: OctopusState, me: int, names: Mapping[int, str]) -> list[str]:
    """Every session's scores (O7), the final totals with the winners (O9), and whether you won."""
    winners = rules.winners(state)
    lines = ["Session scores:"]
    for session, scores in enumerate(state.session_scores, start=1):
        lines.append(f"  session {session}: " + ", ".join(f"player_{seat} {score}" for seat, score in enumerate(scores)))
    lines.append("Final totals:" + (" (the session cap ended the game, O12)" if state.truncated else ""))
    for seat, total in enumerate(state.totals):
        who = "you" if seat == me else names[seat]
        lines.append(f"  player_{seat} ({who}): {total}{'  winner' if seat in winners else ''}")
    lines.append("You win!" if me in winners else "Better luck next time.")
    return lines
