"""A policy's card: its arena gauntlet against each opponent at each table size, as one table.

    python -m miaui_env.apps.card --candidate miaui-ppo-v2 --field random greedy counter miaui-ppo-v1 --players 3 4 6 --seed 2027
    python -m miaui_env.apps.card --candidate my_pkg.bots:make_bot --field counter search --games 4000 600
    python -m miaui_env.apps.card --game octopus --candidate octopus-ppo-v1 --field risk-aware rival-aware --players 2 3 4

One cell is one gauntlet of the game's arena (Miaui's: miaui_env/games/miaui/arena.py): the candidate against n-1 copies
of one opponent, duplicate-dealt (every deal played n times, the seats rotated), its win share with
a 95% interval over duplicate sets and a one-sided test against the fair share 1/n. Every cell
deals from the same seed, so the columns of one row meet the same deals. `--games` gives the games
of every cell, or one number per opponent (a slow opponent, such as the search, gets fewer).
`--game octopus` makes the card of an octopus agent, from the octopus game's arena, at 2-4
players: each game of the registry (miaui_env.games) plays its card in its own arena (its `gauntlet` part).

Written to `--out` (default results/card/<candidate>/): card.md (the table as Markdown, the way
the README's policy cards show it), card.json (every cell's figures and the arguments) and card.csv.
Same arguments, same numbers.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from miaui_env.core.cli import (
    add_game_argument,
    check_writable,
    distinct,
    game_chooser,
    half_width,
    non_negative_int,
    positive_int,
    run_command,
)
from miaui_env.core.files import atomic_write, write_rows
from miaui_env.core.registry import LEGACY_GAME, get_game


class CardError(ValueError):
    """A card that cannot be played: games not given once or once per opponent."""


@dataclass(frozen=True)
class Cell:
    """One gauntlet of the card: the candidate against n-1 copies of `opponent`."""

    num_players: int
    """Seats at the table."""
    opponent: str
    """The agent filling the other seats."""
    games: int
    """Games played (whole duplicate sets)."""
    win_share: float
    """The candidate's share of the wins (tied winners share one)."""
    win_share_ci: float
    """Half-width of the win share's 95% interval."""
    significance: str
    """The one-sided test against the fair share 1/n."""


def games_per_opponent(field: list[str], games: list[int]) -> dict[str, int]:
    """`games` as one count per opponent: one number for all, or one each (CardError otherwise)."""
    if len(games) not in (1, len(field)):
        raise CardError(f"--games has {len(games)} numbers for {len(field)} opponents; give one for all, or one per opponent")
    return dict(zip(field, games * len(field) if len(games) == 1 else games, strict=True))


def play_card(
    candidate: str, field: list[str], players: list[int], games: list[int], seed: int, show_progress: bool = True, game: str = LEGACY_GAME
) -> list[Cell]:
    """Every gauntlet of the card, table size by table size, in `game`'s arena."""
    counts = games_per_opponent(field, games)
    gauntlet = get_game(game).part("gauntlet")
    cells = []
    for n in players:
        for opponent, count in counts.items():
            if show_progress:
                print(f"{candidate} against {n - 1} x {opponent}, {count:,} games")
            result = gauntlet([candidate, opponent], n, count, seed, show_progress)
            mine = result.agents[0]
            cells.append(Cell(n, opponent, mine.games, round(mine.win_share, 4), round(mine.win_share_ci, 4), result.significance or ""))
    return cells


def markdown(cells: list[Cell], field: list[str]) -> str:
    """The card as a Markdown table: a row per table size (fair share in brackets), a column per opponent."""
    lines = ["| players (fair) | " + " | ".join(f"vs {name}" for name in field) + " |", "|---" * (len(field) + 1) + "|"]
    for n in dict.fromkeys(cell.num_players for cell in cells):
        row = {cell.opponent: cell for cell in cells if cell.num_players == n}
        figures = [f"{row[name].win_share:.3f} ± {half_width(row[name].win_share_ci)}" for name in field]
        lines.append(f"| {n} ({1 / n:.3f}) | " + " | ".join(figures) + " |")
    return "\n".join(lines) + "\n"


def write(cells: list[Cell], field: list[str], arguments: dict[str, Any], out: Path) -> None:
    """card.md, card.json and card.csv under `out`, each written whole."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [cell.__dict__ for cell in cells]
    atomic_write(out / "card.md", markdown(cells, field))
    atomic_write(out / "card.json", json.dumps({"arguments": arguments, "cells": rows}, indent=2) + "\n")
    write_rows(out / "card.csv", rows)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, play the card and write it."""
    game = get_game(game_chooser().parse_known_args(argv)[0].game)
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_argument(parser)
    parser.add_argument("--candidate", required=True, help="the agent under test (any agent spec of the game)")
    parser.add_argument("--field", nargs="+", default=list(game.baselines), help="the opponents, one column each")
    parser.add_argument(
        "--players",
        "--num-players",
        dest="players",
        type=int,
        nargs="+",
        default=list(game.card_players),
        choices=game.players,
        help="table sizes, one row each",
    )
    parser.add_argument("--games", type=positive_int, nargs="+", default=[4000], help="games per cell: one number, or one per opponent")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="default: results/card/<candidate>/")
    args = parser.parse_args(argv)
    distinct(parser, "--field", args.field)
    distinct(parser, "--players", args.players)

    def card() -> None:
        out = args.out or Path("results/card") / re.sub(r"[^\w.@+-]", "_", args.candidate)
        games_per_opponent(args.field, args.games)  # refused before any game is played
        check_writable(out)
        cells = play_card(args.candidate, args.field, args.players, args.games, args.seed, game=args.game)
        arguments = {
            "game": args.game,
            "candidate": args.candidate,
            "field": args.field,
            "players": args.players,
            "games": args.games,
            "seed": args.seed,
        }
        write(cells, args.field, arguments, out)
        print(markdown(cells, args.field))
        print(f"written to {out}/card.md, card.json, card.csv")

    run_command(parser.prog, card)


if __name__ == "__main__":
    main()
