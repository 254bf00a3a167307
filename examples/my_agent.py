"""Your own agent in the arena: a class with `act(observations, masks)` and `reset()` is all it takes.

    python examples/my_agent.py                                             # against three counters
    python -m miaui_env.apps.arena --candidate examples.my_agent:SecondHighest --field counter --players 4

`act` gets one row per seat it plays (the seat's observation) and that row's legal cards (a 0/1
mask over the 12 diver cards) and returns one card index (0-11) per row. This one holds its 12
back and plays the second-highest card it still has.
"""

from __future__ import annotations

import argparse

import numpy as np


class SecondHighest:
    """Plays the second-highest card in hand (the highest when it holds only one)."""

    name = "second-highest"

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One card index per row: the second legal card from the top."""
        held = np.cumsum(masks[:, ::-1], axis=1)  # from card 12 down: how many held so far
        return 11 - np.argmax(held >= np.minimum(2, held[:, -1:]), axis=1)

    def reset(self) -> None:
        """Nothing is remembered between games."""


def main(argv: list[str] | None = None) -> dict[str, float]:
    """A gauntlet of SecondHighest against three counters; its win share and 95% interval."""
    from miaui_env.core.arena import summarize
    from miaui_env.games.miaui.agents.loading import load_agent
    from miaui_env.games.miaui.arena import ArenaConfig, play

    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = ArenaConfig(num_players=4, games=args.games, seed=args.seed)
    seats, scores, winners = play([SecondHighest(), load_agent("counter", seed=args.seed)], "gauntlet", config)
    mine = summarize(["second-highest", "counter"], seats, scores, winners, 4)[0]
    print(f"second-highest wins {mine.win_share:.3f} +- {mine.win_share_ci:.3f} against three counters (fair share 0.250)")
    return {"win_share": mine.win_share, "win_share_ci": mine.win_share_ci, "games": mine.games}


if __name__ == "__main__":
    main()
