"""Miaui in the terminal (`python -m miaui_env.apps.play`, the registry's `play` part): you take one
seat, arena agents take the others.

Each round shows exactly what your seat may know (your observation, read back in words: the env
builds it, so nothing hidden can show), asks for a diver card, then shows the reveal and who caught
what. The finished game is saved as a replay (`miaui_env.games.miaui.replay`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

# The engine, the agents and the replays are imported inside `play` (seconds of start-up, numba
# among them), under the command's `run_command`, so Ctrl-C during start-up ends in one line.
from miaui_env.core.cli import check_output_file, read_answer
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, NUM_ROUNDS

_LONGEST_ANSWER_SHOWN = 20


def introduction(seat: int, no_fighting: bool) -> list[str]:
    """What a new player needs before round 1: who they are, which card takes which space, and why 11 choices."""
    ties = "tied players catch nothing there (R8)" if no_fighting else "ties go by Kiti's priority (R1)"
    return [
        f"You are player_{seat}. Each round everyone reveals one diver card at once (R6):",
        "  the highest card catches the bottom fish, the next highest the middle fish,",
        f"  and the lowest of the rest the top fish (R7); {ties}.",
        f"The game has {NUM_ROUNDS} rounds: you choose a card in rounds 1-{NUM_ROUNDS - 1};",
        f"  in round {NUM_ROUNDS} your last card is forced, so it is played for you (R6).",
    ]


def ask_card(legal: list[int], read: Callable[[str], str]) -> int | None:
    """A diver card from the player, asked again until it is one of `legal`; None to quit."""
    while True:
        answer = read_answer(read, f"Your card ({' '.join(map(str, legal))}), or q to quit: ")
        if answer is None:
            return None
        # '²' is a digit too; and int() refuses more than 4300 digits, so a long answer is never converted
        if not (answer.isascii() and answer.isdigit()) or len(answer.lstrip("0")) > 2 or not 1 <= int(answer) <= NUM_DIVER_CARDS:
            shown = answer if len(answer) <= _LONGEST_ANSWER_SHOWN else answer[:_LONGEST_ANSWER_SHOWN] + "..."
            print(f"  {shown!r} is not a diver card: type a number from 1 to {NUM_DIVER_CARDS}.")
        elif int(answer) not in legal:
            print(f"  You have already played {answer}; your cards are {' '.join(map(str, legal))}.")
        else:
            return int(answer)


def play(args: argparse.Namespace, read: Callable[[str], str] = input) -> int:
    """One game against the chosen agents; returns the process exit status."""
    from miaui_env.core.agents import checked_actions
    from miaui_env.core.render import seat_name
    from miaui_env.games.miaui.agents import as_seen, views_at_table
    from miaui_env.games.miaui.agents.loading import load_agents
    from miaui_env.games.miaui.display.text import describe_observation, describe_round
    from miaui_env.games.miaui.env import parallel_env
    from miaui_env.games.miaui.replay import record_replay, save_replay

    if args.replay is not None:
        check_output_file(args.replay)  # before the game, not after it (a game played for nothing)
    n = args.players
    others = [(args.seat + k) % n for k in range(1, n)]
    agents = dict(zip(others, load_agents([args.opponents[i % len(args.opponents)] for i in range(len(others))], args.seed), strict=True))
    # The human sees --view; an agent trained on the recall view is shown it (see miaui_env/games/miaui/arena.py).
    agent_views, dealt = views_at_table(list(agents.values()), args.view)
    views = dict(zip(agents, agent_views, strict=True))
    env = parallel_env(num_players=n, open_baskets=args.open_baskets, no_fighting=args.no_fighting, view=dealt)
    for seat, agent in agents.items():
        print(f"{seat_name(seat)}: {agent.name}")
    print("\n".join(introduction(args.seat, args.no_fighting)))
    me = seat_name(args.seat)
    observations, _ = env.reset(seed=args.seed)
    plays: list[list[int]] = []
    while env.agents:
        print("\n" + describe_observation(as_seen(observations[me]["observation"], args.view, dealt), args.seat, n))
        card = ask_card((np.flatnonzero(observations[me]["action_mask"]) + 1).tolist(), read)
        if card is None:
            print("Game abandoned.")
            return 0
        actions = {me: card - 1}
        for seat, agent in agents.items():
            seen = observations[seat_name(seat)]
            shown = as_seen(seen["observation"][None], views[seat], dealt)
            actions[seat_name(seat)] = int(checked_actions(agent, shown, seen["action_mask"][None])[0])
        plays.append([int(actions[seat_name(s)]) + 1 for s in range(n)])
        observations, _, _, _, infos = env.step(actions)
        for record in infos[me]["round_results"]:
            print("\n" + "\n".join(describe_round(record)))
    print("\nFinal scores:")
    best = max(info["score"] for info in infos.values())
    for agent_name, info in infos.items():
        who = "you" if agent_name == me else agents[int(agent_name.split("_")[1])].name
        print(f"  {agent_name} ({who}): {info['score']}{'  winner' if info['score'] == best else ''}")
    print("You win!" if infos[me]["winner"] else "Better luck next time.")
    if args.replay is not None:
        players = ["you" if s == args.seat else agents[s].name for s in range(n)]
        path = save_replay(record_replay(env.table_spec, plays, seed=args.seed, players=players), args.replay)
        print(f"The game is saved as a replay: {path} (python -m miaui_env.apps.replay {path})")
    return 0
