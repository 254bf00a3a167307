"""Cost per decision of the search agent in an arena batch, on one core, next to OpenSpiel's MCTS.

Plays `--games` four-player arena games of `search` (default budget), and of the same search with
`miaui-ppo-v0` as its prior (`search+miaui-ppo-v0`), against three `counter`s, all games at once
as the arena does, and reports the search's milliseconds per decision and playouts per second (a
decision plays worlds x iterations x seats x cards-in-hand playouts to the game's end). The peer,
measured in the same run: OpenSpiel's `MCTSBot` (UCT with random rollouts, C++) playing turn-based
`goofspiel(num_cards=12,players=4)` with the same number of simulations per decision as the
search's average playouts; the ratio compares playouts per second.
Usage: python benchmarks/search_speed.py [--games 512] [--seed 0]
Needs the benchmark extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core

import numpy as np  # noqa: E402
from peers import peer  # noqa: E402  (this script's folder is on sys.path when it runs)

from miaui_env.games.miaui.agents.heuristics import CountingAgent  # noqa: E402
from miaui_env.games.miaui.agents.loading import load_agent  # noqa: E402
from miaui_env.games.miaui.agents.search import RegretMatchingSearchAgent  # noqa: E402
from miaui_env.games.miaui.arena import ArenaConfig, play  # noqa: E402
from miaui_env.games.miaui.rules import NUM_ROUNDS  # noqa: E402

PLAYERS = 4


def search_cost(games: int, seed: int, spec: str) -> tuple[float, float]:
    """Milliseconds per decision of the search agent `spec` and its playouts per decision, over an arena gauntlet."""
    search = load_agent(spec, seed=seed)
    assert isinstance(search, RegretMatchingSearchAgent)
    config = ArenaConfig(num_players=PLAYERS, games=games, seed=seed, batch_games=games)
    play([RegretMatchingSearchAgent(seed, worlds=1, iterations=1), CountingAgent(seed)], "gauntlet", config)  # compile and warm up
    start = time.perf_counter()
    play([search, CountingAgent(seed)], "gauntlet", config)
    seconds = time.perf_counter() - start
    decisions = games * (NUM_ROUNDS - 1)  # one search seat a game, 11 decisions each
    # Cards in hand at decision r: 13 - r for every seat.
    playouts = np.mean([search.worlds * search.iterations * PLAYERS * (NUM_ROUNDS + 1 - r) for r in range(1, NUM_ROUNDS)])
    return 1000 * seconds / decisions, float(playouts)


def mcts_cost(simulations: int, decisions: int, seed: int) -> float:
    """Milliseconds per decision of OpenSpiel's UCT with random rollouts on 4-player goofspiel."""
    pyspiel = peer("pyspiel", "OpenSpiel")

    game = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel(num_cards=12,players=4)"))
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, simulations, 10**7, False, seed, False)
    made, start = 0, time.perf_counter()
    while made < decisions:
        state = game.new_initial_state()
        while not state.is_terminal() and made < decisions:
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
                continue
            state.apply_action(bot.step(state))
            made += 1
    return 1000 * (time.perf_counter() - start) / decisions


def main() -> None:
    """Measure both and print the table."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for spec in ("search", "search+miaui-ppo-v0"):
        ms, playouts = search_cost(args.games, args.seed, spec)
        peer_ms = mcts_cost(round(playouts), 60, args.seed)
        where = f"4 players, {args.games} arena games at once"
        print(f"{spec} (default budget), {where}: {ms:.1f} ms/decision, {playouts:.0f} playouts/decision")
        print(f"OpenSpiel MCTSBot, goofspiel 4 players, {round(playouts)} simulations: {peer_ms:.1f} ms/decision")
        ratio = (playouts / ms) / (round(playouts) / peer_ms)
        print(f"playouts per second, {spec} / MCTSBot: {ratio:.2f}", flush=True)


if __name__ == "__main__":
    main()
