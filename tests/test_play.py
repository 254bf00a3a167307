"""Human play in the terminal, driven through stdin."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).parent.parent


def run_play(lines: list[str], *args: str, command: str = "miaui_env.apps.play") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", command, *args],
        cwd=ROOT,
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_whole_game_with_bad_input_asked_again():
    # Card r in round r; the bad answers first, then card 1 once more after it has been played.
    done = run_play(
        ["hello", "0", "13", "1", "1", *map(str, range(2, 12))], "--players", "3", "--seed", "4", "--opponents", "greedy", "--no-replay"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "'hello' is not a diver card" in out and "'0' is not a diver card" in out and "'13' is not a diver card" in out
    assert "You have already played 1" in out
    assert out.count("Your hand:") == 11 and "Round 11 of 12" in out
    assert "round 12 reveal" in out and "Final scores:" in out
    assert "player_1 (greedy)" in out and "player_2 (greedy)" in out
    assert ("You win!" in out) != ("Better luck next time." in out)


def test_quitting_and_closed_input_end_quietly():
    assert "Game abandoned." in run_play(["q"], "--seed", "1").stdout
    ended = run_play([], "--seed", "1")
    assert ended.returncode == 0 and "Game abandoned." in ended.stdout and "Traceback" not in ended.stderr


def test_the_view_shows_what_the_seat_may_know_only():
    done = run_play(["q"], "--players", "5", "--seat", "2", "--seed", "9", "--opponents", "random")
    out = done.stdout
    assert "Round 1 of 12" in out and "Your hand: 1 2 3 4 5 6 7 8 9 10 11 12" in out
    assert "player_2 (you): 0 fish" in out and "Kiti sits between player_0 and player_1" in out


def test_thousands_of_digits_are_asked_again_not_the_end_of_the_game():
    done = run_play(["9" * 5000, "q"], "--players", "3", "--seed", "1", "--opponents", "random", "--no-replay")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"'{'9' * 20}...' is not a diver card" in done.stdout and "Game abandoned." in done.stdout


def test_ctrl_c_during_start_up_ends_in_one_line_with_status_130():
    # Ctrl-C arrives while the engine is imported (seconds of start-up): a KeyboardInterrupt there, on cue.
    interrupt_on_import = textwrap.dedent("""
        import builtins, sys
        real_import = builtins.__import__
        def interrupting_import(name, *args, **kwargs):
            if name == "miaui_env.games.miaui.env":
                raise KeyboardInterrupt
            return real_import(name, *args, **kwargs)
        builtins.__import__ = interrupting_import
        sys.argv = ["play.py", "--seed", "1", "--no-replay"]
        from miaui_env.apps.play import main
        main()
    """)
    done = subprocess.run([sys.executable, "-c", interrupt_on_import], cwd=ROOT, input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 130 and done.stderr.strip() == "play.py: game abandoned", done.stderr


def test_the_opening_says_who_you_are_which_card_takes_which_space_and_why_11_choices():
    out = run_play(["q"], "--players", "4", "--seat", "2", "--seed", "3", "--opponents", "random").stdout
    opening = out[: out.index("Round 1 of 12")]
    assert "You are player_2." in opening
    assert "highest card catches the bottom fish, the next highest the middle fish" in opening
    assert "lowest of the rest the top fish (R7); ties go by Kiti's priority (R1)" in opening
    assert "you choose a card in rounds 1-11" in opening and "in round 12 your last card is forced" in opening
    no_fighting = run_play(["q"], "--seed", "3", "--no-fighting", "--opponents", "random").stdout
    assert "tied players catch nothing there (R8)" in no_fighting
