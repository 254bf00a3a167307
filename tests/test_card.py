"""A policy's card (miaui_env/apps/card.py): each cell is the arena's gauntlet, and bad requests are refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from miaui_env.apps.card import CardError, games_per_opponent, markdown, play_card
from miaui_env.games.miaui.arena import ArenaConfig, run

ROOT = Path(__file__).parent.parent


def test_every_cell_is_the_arena_s_gauntlet_on_the_card_s_seed():
    cells = play_card("counter", ["random", "greedy"], [3, 4], [60, 24], seed=5, show_progress=False)
    assert [(cell.num_players, cell.opponent, cell.games) for cell in cells] == [
        (3, "random", 60),
        (3, "greedy", 24),
        (4, "random", 60),
        (4, "greedy", 24),
    ]
    for cell in cells:
        gauntlet = run(
            ["counter", cell.opponent], "gauntlet", ArenaConfig(num_players=cell.num_players, games=cell.games, seed=5), None, False
        )
        assert cell.win_share == round(gauntlet.agents[0].win_share, 4) and cell.win_share_ci == round(gauntlet.agents[0].win_share_ci, 4)
    table = markdown(cells, ["random", "greedy"]).splitlines()
    assert table[0] == "| players (fair) | vs random | vs greedy |"
    assert table[3].startswith("| 4 (0.250) | ") and f"{cells[3].win_share:.3f} ± {cells[3].win_share_ci:.3f}" in table[3]


def test_the_command_writes_the_card_and_refuses_games_that_do_not_fit_the_field(tmp_path):
    command = [sys.executable, "-m", "miaui_env.apps.card", "--candidate", "greedy", "--field", "random", "--players", "3"]
    done = subprocess.run([*command, "--games", "30", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "card.json").read_text())["cells"][0]["opponent"] == "random"
    assert (tmp_path / "card.md").read_text() in done.stdout
    refused = subprocess.run([*command, "--games", "30", "40"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--games has 2 numbers for 1 opponents" in refused.stderr and "Traceback" not in refused.stderr
    unknown = subprocess.run(
        [*command[:4], "nobody", *command[5:], "--out", str(tmp_path / "none")], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert unknown.returncode == 2 and "nobody" in unknown.stderr and not (tmp_path / "none" / "card.md").exists()
    with pytest.raises(CardError):
        games_per_opponent(["random", "counter", "greedy"], [1, 2])


@pytest.mark.slow
def test_the_octopus_card_is_the_octopus_arena_s_gauntlet_at_its_table_sizes(tmp_path):
    from miaui_env.games.octopus.arena import OctopusArenaConfig
    from miaui_env.games.octopus.arena import run as run_octopus

    cells = play_card("rival-aware", ["random", "cautious"], [2, 4], [40], seed=3, show_progress=False, game="octopus")
    assert [(cell.num_players, cell.opponent) for cell in cells] == [(2, "random"), (2, "cautious"), (4, "random"), (4, "cautious")]
    for cell in cells:
        config = OctopusArenaConfig(num_players=cell.num_players, games=40, seed=3)
        gauntlet = run_octopus(["rival-aware", cell.opponent], "gauntlet", config, None, False)
        assert cell.win_share == round(gauntlet.agents[0].win_share, 4) and cell.games == gauntlet.agents[0].games
    command = [sys.executable, "-m", "miaui_env.apps.card", "--game", "octopus", "--candidate", "cautious", "--field", "random"]
    done = subprocess.run([*command, "--games", "20", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| 2 (0.500) |" in done.stdout and "| 4 (0.250) |" in done.stdout  # the octopus game's sizes: 2, 3 and 4 (O1)
    miaui_size = subprocess.run([*command, "--players", "6"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert miaui_size.returncode == 2 and "invalid choice: 6" in miaui_size.stderr


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--players", "3", "3"], "--players names 3 more than once"),
        (["--field", "greedy", "random", "greedy"], "--field names greedy more than once"),
        (["--gam", "octopus"], "unrecognized arguments: --gam octopus"),  # no abbreviations: --gam is not --games
        (["--game", "chess"], "invalid choice: 'chess'"),
    ],
)
def test_repeated_rows_or_columns_and_abbreviations_are_refused(arguments, words):
    command = [sys.executable, "-m", "miaui_env.apps.card", "--candidate", "greedy", *arguments]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_every_command_line_parser_refuses_abbreviations():
    # argparse's abbreviations turned `--game octopus` into `--games octopus` once: every parser switches them off.
    import ast

    parsers = []
    for folder in ("miaui_env", "training", "benchmarks", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ArgumentParser":
                    keywords = {keyword.arg: keyword.value for keyword in node.keywords}
                    allowed = keywords.get("allow_abbrev")
                    parsers.append(
                        (f"{path.relative_to(ROOT)}:{node.lineno}", isinstance(allowed, ast.Constant) and allowed.value is False)
                    )
    assert len(parsers) >= 20 and [where for where, refused in parsers if not refused] == []
