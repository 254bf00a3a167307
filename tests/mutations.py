"""The mutation catalogue: one-line semantic mutations that the oracle tests (`pytest -m oracle`) must catch.

Each entry of `CATALOGUE` changes one line of the library the way a plausible bug would (a Seagull
that steals nothing, a tie that takes the better place, a replay checker that stops comparing the
scores) and says what it breaks, citing the rule (R1-R11 of docs/rules/miaui.md) where one
applies. A test suite earns its claims only if every one of these makes it fail.

What the tool does:
1. copies the repository's working tree (local changes included) once into a scratch directory
   (no .git, virtual environments, caches, runs/ or results/);
2. checks that `import miaui_env` there resolves to the copy, not to the editable install of the
   checkout (pytest runs with cwd and PYTHONPATH set to the copy; a small plugin asserts it in every
   pytest run);
3. runs the unmutated oracle subset there: it must pass, or the tool stops;
4. for each mutant: writes the mutated file, runs `python -m pytest -m oracle -x -q -p no:cacheprovider`
   (stopping at the first failure), records killed or SURVIVED, the seconds and the first failing
   test, then restores the original file with shutil.copy2 (same bytes, same mtime).

The pytest command is given the test files that use the marker (`mark.oracle`), the ones that test
the mutated file first (`FIRST_TESTS`), so a killed mutant usually dies in seconds; the selection is
the one `pytest -m oracle` makes, only collected faster and in another order. Hypothesis runs with a
fixed seed and its example database (.hypothesis/) emptied before each run, so a run is repeatable
and no mutant inherits another's failing examples. `--tests` narrows the run (baseline included) to
the oracle tests of the files named.

Compiled kernels: all runs share one NUMBA_CACHE_DIR inside the scratch, seeded with the kernels
the checkout has compiled already (its own test runs cached them; the copy keeps each source's bytes
and mtime, which is all numba checks) and completed by the baseline, so the kernels of unmutated
files are compiled once, or not at all. Numba checks a cached kernel against its own
source file only; a kernel also bakes in the module globals it reads and the kernels it calls. A
mutant of a file that a kernel file imports (directly or through other imports: rules.py,
observation.py, the kernel files themselves) therefore runs on a hard-linked copy of the cache
without those kernel files' entries, which are compiled afresh for it and thrown away after.

Run it with the project's interpreter, from anywhere:

    python tests/mutations.py                       # the whole catalogue; writes results/mutants.md
    python tests/mutations.py --list                # the catalogue, each entry checked against the tree
    python tests/mutations.py --only kernel-seagull-steals-nothing arena-ties-take-the-better-place
    python tests/mutations.py --timeout 300 --keep  # seconds per mutant; keep the scratch copy
    python tests/mutations.py --only rules-seagull-steals-nothing --tests tests/test_rules.py  # these files' oracle tests only

CI runs a rotating sample, `python tests/mutations.py --sample 8`: every k-th mutant of the
catalogue from offset turn % k (k = ceil(len / 8), the turn today's date unless `--turn` says), so
k consecutive days run every mutant once; the run prints its turn, and `--turn T` repeats it.

How long: the copy and the baseline take about as long as `pytest -m oracle` itself (68 s on a quiet
2-core machine with the checkout's kernels compiled, 197 s with every kernel compiled cold); a killed
mutant takes 3-10 seconds, or 15-60 when it is a kernel's mutant (or one of a file a kernel imports)
and the kernels are compiled for it; a survivor runs the whole subset. On a quiet 2-core machine the
whole catalogue (72 mutants then, all killed) took 18 minutes. A run of some mutants (`--only`) or some test files
(`--tests`) writes results/mutants-partial.md instead of results/mutants.md. A mutant that hangs past --timeout
counts as killed and is reported as a timeout. The exit status is 0 when every mutant was killed, 1
when any survived, 2 when the catalogue, the copy or the baseline is wrong.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results" / "mutants.md"  # a whole-catalogue run's report
PARTIAL_RESULTS = ROOT / "results" / "mutants-partial.md"  # a run of some mutants (--only) or some tests (--tests)
PYTEST = ["-m", "pytest", "-m", "oracle", "-x", "-q", "-p", "no:cacheprovider"]
EXTRA = ["--hypothesis-seed=0", "-p", "mutants_guard"]  # a repeatable Hypothesis run; the plugin below checks the import
ORACLE_MARK = re.compile(r"mark\.oracle\b")
GUARD_EXIT = 99  # the guard plugin's exit status: miaui_env did not come from the scratch copy

# Names never copied into the scratch, at any depth; at the top level also these.
SKIPPED = {".git", "__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".ci-venv", ".venv", "venv"}
SKIPPED_AT_TOP = {"runs", "results", "build", "dist"}

# The test files that test a library file, run first when that file is mutated.
FIRST_TESTS = {
    "miaui_env/apps/any_game.py": ("tests/test_any_game.py",),
    "miaui_env/games/miaui/rules.py": ("tests/test_rules.py", "tests/test_short_game.py"),
    "miaui_env/games/miaui/vector/rule_kernels.py": ("tests/test_vector.py", "tests/test_compiled_env.py", "tests/test_replay.py"),
    "miaui_env/games/miaui/vector/encode_kernels.py": ("tests/test_vector.py", "tests/test_leaks.py", "tests/test_compiled_env.py"),
    "miaui_env/games/miaui/vector/engine.py": ("tests/test_vector.py", "tests/test_compiled_env.py"),
    "miaui_env/games/miaui/observation.py": ("tests/test_observation.py", "tests/test_leaks.py"),
    "miaui_env/games/miaui/encoder.py": ("tests/test_observation.py", "tests/test_vector.py", "tests/test_leaks.py"),
    "miaui_env/core/layout.py": ("tests/test_observation.py", "tests/test_octopus_env.py", "tests/test_leaks.py"),
    "miaui_env/games/miaui/arena.py": ("tests/test_arena.py",),
    "miaui_env/games/miaui/replay.py": ("tests/test_replay.py",),
    "miaui_env/games/octopus/rules.py": ("tests/test_octopus_rules.py",),
    "miaui_env/games/octopus/observation.py": ("tests/test_octopus_env.py", "tests/test_octopus_observation_painter.py"),
    "miaui_env/games/octopus/env.py": ("tests/test_octopus_env.py",),
    "miaui_env/games/octopus/arena.py": ("tests/test_octopus_agents.py",),
}

# A pytest plugin loaded into every run in the scratch (-p mutants_guard): stop before any test if
# miaui_env is not the scratch copy's (the checkout is installed editable, so it could be found too).
GUARD_PLUGIN = '''"""Written by tests/mutations.py: every pytest run in the scratch copy must test the copy."""
import os
from pathlib import Path

import pytest


def pytest_configure(config):
    import miaui_env

    copy = Path(os.environ["MIAUI_MUTANTS_COPY"]).resolve()
    found = Path(miaui_env.__file__).resolve()
    if copy not in found.parents:
        pytest.exit(f"miaui_env was imported from {found}, not from the scratch copy {copy}", returncode=99)
'''


class CatalogueError(ValueError):
    """A catalogue entry that cannot be applied: its text is not in its file exactly once, or it is no one-line change."""


@dataclass(frozen=True)
class Mutation:
    """One semantic mutation: `original` (exactly once in `file`) becomes `replacement`, which breaks what `breaks` says."""

    name: str
    file: str  # relative to the repository root
    original: str  # may span lines to be unique; only one of its lines changes
    replacement: str
    breaks: str

    def apply(self, text: str) -> str:
        """The file's text with the mutation applied; CatalogueError naming the entry if it does not apply."""
        count = text.count(self.original)
        if count != 1:
            raise CatalogueError(f"{self.name}: its original text occurs {count} times in {self.file}, not exactly once: {self.original!r}")
        before, after = self.original.splitlines(), self.replacement.splitlines()
        if len(before) != len(after) or sum(a != b for a, b in zip(before, after, strict=True)) != 1:
            raise CatalogueError(f"{self.name}: a mutation changes exactly one line; {self.original!r} -> {self.replacement!r}")
        mutated = text.replace(self.original, self.replacement)
        try:
            compile(mutated, self.file, "exec")
        except SyntaxError as error:
            raise CatalogueError(
                f"{self.name}: the mutated {self.file} is not Python ({error}); a mutation must change meaning, not syntax"
            ) from None
        return mutated


# fmt: off
CATALOGUE: tuple[Mutation, ...] = (
    # -- miaui_env/games/miaui/rules.py: the reference rules ---------------------------------------------------
    Mutation("rules-kiti-starts-a-seat-late", "miaui_env/games/miaui/rules.py",
             "    return (round_number - 1) % num_players",
             "    return round_number % num_players",
             "R1: Kiti sits after seat r mod n in round r instead of (r-1) mod n, so every tie priority shifts"),
    Mutation("rules-deep-ties-go-clockwise", "miaui_env/games/miaui/rules.py",
             "    return tuple((a - k) % num_players for k in range(num_players))",
             "    return tuple((a + k) % num_players for k in range(num_players))",
             "R1: deepest and deep ties go clockwise from seat a (a, a+1, ...) instead of Kiti's right arm (a, a-1, ...)"),
    Mutation("rules-shallow-ties-start-at-kitis-right", "miaui_env/games/miaui/rules.py",
             "    return tuple((a + 1 + k) % num_players for k in range(num_players))",
             "    return tuple((a + k) % num_players for k in range(num_players))",
             "R1: shallow ties start at seat a instead of a+1, Kiti's left arm"),
    Mutation("rules-shallow-takes-the-highest-card", "miaui_env/games/miaui/rules.py",
             "        pick = min if shallow else max",
             "        pick = max",
             "R7.3: the top space goes to the highest remaining card instead of the lowest"),
    Mutation("rules-shallow-ties-use-the-deep-order", "miaui_env/games/miaui/rules.py",
             "            priority = shallow_order if shallow else deep_order",
             "            priority = deep_order",
             "R1/R7.3: a shallow tie is broken by the deep priority (a, a-1, ...) instead of the shallow one (a+1, a+2, ...)"),
    Mutation("rules-ties-go-to-the-lowest-seat", "miaui_env/games/miaui/rules.py",
             "        if len(contenders) == 1:",
             "        if len(contenders) >= 1:",
             "R1/R8: every tie goes to the lowest tied seat: Kiti's priority and No Fighting's 'nobody catches' are ignored"),
    Mutation("rules-a-catcher-stays-in-the-round", "miaui_env/games/miaui/rules.py",
             "            still_in.remove(winner)",
             "            still_in = list(still_in)",
             "R7: a player who caught stays in the round and can catch again at the next depth"),
    Mutation("rules-no-fighting-tied-players-stay-in", "miaui_env/games/miaui/rules.py",
             "            still_in = [s for s in still_in if s not in contenders]",
             "            still_in = list(still_in)",
             "R8: in No Fighting the tied players stay in the round and contend at the next depth"),
    Mutation("rules-no-fighting-takes-the-newest-first", "miaui_env/games/miaui/rules.py",
             "            caught = tuple(lc.card for lc in state.lagoon[depth])",
             "            caught = tuple(lc.card for lc in reversed(state.lagoon[depth]))",
             "R8/R9: a No Fighting stack lands newest first, so a Seagull on top of it steals another fish"),
    Mutation("rules-lantern-peek-goes-to-the-top-space", "miaui_env/games/miaui/rules.py",
             "                    lantern_peekers[depth] = winner  # R5: next card in this space is face-down",
             "                    lantern_peekers[Depth.SHALLOW] = winner  # R5: next card in this space is face-down",
             "R5: a Lantern caught at the bottom or middle makes the next top card face-down instead of its own space's"),
    Mutation("rules-restock-top-first", "miaui_env/games/miaui/rules.py",
             "    for depth in _DEPTHS:\n        state.lagoon[depth].append(LagoonCard(",
             "    for depth in reversed(_DEPTHS):\n        state.lagoon[depth].append(LagoonCard(",
             "R4: rounds 2-12 restock the top space first instead of the bottom (deepest) first"),
    Mutation("rules-round-one-seagull-goes-to-the-bottom", "miaui_env/games/miaui/rules.py",
             "            deck.insert(position, card)",
             "            deck.append(card)",
             "R4: a round-1 Seagull goes to the bottom of the deck instead of being shuffled back into it"),
    Mutation("rules-the-last-card-is-put-back", "miaui_env/games/miaui/rules.py",
             "    return order[0], first_round_order(config, order[1:], uniforms[size:])",
             "    return order[-1], first_round_order(config, order[:-1], uniforms[size:])",
             "R3: the bottom card of the shuffled deck is put back in the box instead of the top card"),
    Mutation("rules-seagull-steals-the-bottom-fish", "miaui_env/games/miaui/rules.py",
             "        stolen = pile.pop() if pile else None",
             "        stolen = pile.pop(0) if pile else None",
             "R9: a Seagull takes the bottom fish of the pile instead of the top one"),
    Mutation("rules-seagull-steals-nothing", "miaui_env/games/miaui/rules.py",
             "        stolen = pile.pop() if pile else None",
             "        stolen = None",
             "R9: a Seagull goes to the box alone and the pile keeps its top fish"),
    Mutation("rules-two-jellyfish-make-a-triple", "miaui_env/games/miaui/rules.py",
             "        if len(jellies) == 3:",
             "        if len(jellies) == 2:",
             "R9: two Jellyfish on a pile already go to the box"),
    Mutation("rules-a-triple-sends-only-the-last-jellyfish", "miaui_env/games/miaui/rules.py",
             "            pile[:] = [c for c in pile if c not in jellies]",
             "            pile[:] = [c for c in pile if c != card]",
             "R9: the third Jellyfish goes to the box alone and the other two stay on the pile"),
    Mutation("rules-jellyfish-score-nothing", "miaui_env/games/miaui/rules.py",
             "    return sum(deck[c].value for c in state.piles[check_seat(seat, state.num_players)])",
             "    return sum(max(deck[c].value, 0) for c in state.piles[check_seat(seat, state.num_players)])",
             "R10: negative fish (Jellyfish) count 0 instead of their value"),
    Mutation("rules-the-lowest-score-wins", "miaui_env/games/miaui/rules.py",
             "    best = max(totals)",
             "    best = min(totals)",
             "R10: the players with the lowest score win"),
    Mutation("rules-tied-winners-each-get-a-whole-win", "miaui_env/core/errors.py",
             "        shares: npt.NDArray[np.float64] = winning / winning.sum(axis=-1, keepdims=True)",
             "        shares: npt.NDArray[np.float64] = winning / 1.0",
             "R10: tied winners each get the whole 'win' reward instead of sharing it"),
    Mutation("rules-no-forced-last-round", "miaui_env/games/miaui/rules.py",
             "    if state.round == state.config.rounds:",
             "    if state.round > state.config.rounds:",
             "R6: the engine does not play round 12's forced card, so a game stops after round 11"),
    Mutation("rules-short-game-hands-hold-twelve-cards", "miaui_env/games/miaui/rules.py",
             "    hands[:, : config.rounds] = 1",
             "    hands[:, :] = 1",
             "MV1: a short game deals every hand the twelve diver cards instead of cards 1 to rounds"),

    # -- miaui_env/games/miaui/vector/rule_kernels.py: the same rules, compiled --------------------------------
    Mutation("kernel-seagull-steals-nothing", "miaui_env/games/miaui/vector/rule_kernels.py",
             "    if pile_len[g, w] > 0:",
             "    if pile_len[g, w] < 0:",
             "R9: a Seagull goes to the box alone and the pile keeps its top fish (the issue's example)"),
    Mutation("kernel-two-jellyfish-make-a-triple", "miaui_env/games/miaui/vector/rule_kernels.py",
             "if kind[c] == jellyfish and pile_stats[g, winner, jellyfish] == 3:",
             "if kind[c] == jellyfish and pile_stats[g, winner, jellyfish] == 2:",
             "R9: two Jellyfish on a pile already go to the box"),
    Mutation("kernel-shallow-ties-use-the-deep-order", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                order = 1 if shallow else 0",
             "                order = 0",
             "R1/R7.3: a shallow tie is broken by the deep priority instead of the shallow one"),
    Mutation("kernel-ties-go-to-the-lowest-seat", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                        and (winner < 0 or ranks[order, round_number, s] < ranks[order, round_number, winner])",
             "                        and winner < 0",
             "R1: Kiti's priority is ignored; every tie goes to the lowest tied seat"),
    Mutation("kernel-a-catcher-stays-in-the-round", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                still_in[winner] = False",
             "                still_in[winner] = True",
             "R7: a player who caught stays in the round and can catch again at the next depth"),
    Mutation("kernel-no-fighting-tied-players-stay-in", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                        still_in[s] = False",
             "                        still_in[s] = count > 1",
             "R8: in No Fighting the tied players stay in the round and contend at the next depth"),
    Mutation("kernel-no-fighting-takes-the-newest-first", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                c = lagoon[g, depth, k]",
             "                c = lagoon[g, depth, lagoon_len[g, depth] - 1 - k]",
             "R8/R9: a No Fighting stack lands newest first, so a Seagull on top of it steals another fish"),
    Mutation("kernel-lantern-peeks-nothing", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                        lantern_peeker[depth] = winner",
             "                        lantern_peeker[depth] = -1",
             "R5: a Lantern's catcher does not get to see the next card of its space (it is not even face-down)"),
    Mutation("kernel-restock-top-first", "miaui_env/games/miaui/vector/rule_kernels.py",
             "                lagoon[g, depth, slot] = placement[g, NUM_SPACES * round_number + depth]",
             "                lagoon[g, depth, slot] = placement[g, NUM_SPACES * round_number + NUM_SPACES - 1 - depth]",
             "R4: rounds 2-12 restock the top space first instead of the bottom (deepest) first"),
    Mutation("kernel-the-last-card-is-put-back", "miaui_env/games/miaui/vector/rule_kernels.py",
             "            placement[g, i] = order[i + 1]",
             "            placement[g, i] = order[i]",
             "R3: the top card of the shuffled deck is dealt and the bottom one is put back instead"),
    Mutation("kernel-bottom-seagull-not-replaced", "miaui_env/games/miaui/vector/rule_kernels.py",
             "            if kind[placement[g, space]] == seagull:",
             "            if kind[placement[g, space]] == seagull and space > 0:",
             "R4: a Seagull drawn for round 1's bottom space stays there instead of being replaced"),
    Mutation("kernel-round-one-seagull-goes-to-the-bottom", "miaui_env/games/miaui/vector/rule_kernels.py",
             "            position = min(int(u * (length + 1)), length)",
             "            position = length",
             "R4: a round-1 Seagull goes to the bottom of the deck instead of where the deal's uniform puts it"),
    Mutation("kernel-stolen-fish-shown-as-the-seagull", "miaui_env/games/miaui/vector/rule_kernels.py",
             "            stolen_stats[g, w, k] += stats[top, k]",
             "            stolen_stats[g, w, k] += stats[c, k]",
             "R9/R11: the last reveal shows the Seagull as the fish lost instead of the fish it stole"),

    # -- miaui_env/core/layout.py: any game's declared index -------------------------------------------
    Mutation("layout-seat-rows-absolute", "miaui_env/core/layout.py",
             "                dst[rel] = src[(seat + rel) % num_players]",
             "                dst[rel] = src[rel]",
             "R1/O1: seat rows are absolute, not the observer's own first and each seat to the left after it"),
    # -- miaui_env/games/miaui/observation.py: the declared visibility tables (R11) ----------------------------
    Mutation("visibility-box-public", "miaui_env/games/miaui/observation.py",
             '    "box": Sight.RECALL,',
             '    "box": Sight.PUBLIC,',
             "R11: the table view shows the box's contents, which only a perfect memory (recall) still knows"),
    Mutation("visibility-lagoon-recall-only", "miaui_env/games/miaui/observation.py",
             '    "lagoon": Sight.PUBLIC,',
             '    "lagoon": Sight.RECALL,',
             "R11: the table view hides the lagoon's face-up cards, which every player sees"),
    Mutation("visibility-opponents-discards-in-the-table-view", "miaui_env/games/miaui/observation.py",
             '    "played": OpponentSight(Shown.NOTHING, Shown.ALL),',
             '    "played": OpponentSight(Shown.ALL, Shown.ALL),',
             "R11: the table view shows every diver card an opponent played, not only the last reveal"),
    Mutation("visibility-open-baskets-hide-discards", "miaui_env/games/miaui/observation.py",
             '    "played": OpponentSight(Shown.NOTHING, Shown.ALL),',
             '    "played": OpponentSight(Shown.NOTHING, Shown.NOTHING),',
             "R11: Open Baskets and the recall view hide the opponents' played diver cards, which lie face-up"),
    Mutation("visibility-opponents-whole-piles-in-the-table-view", "miaui_env/games/miaui/observation.py",
             '    "pile": OpponentSight(Shown.FIRST, Shown.ALL),',
             '    "pile": OpponentSight(Shown.ALL, Shown.ALL),',
             "R11: the table view shows an opponent's fish below the top card"),
    Mutation("visibility-opponents-pile-contents-in-the-table-view", "miaui_env/games/miaui/observation.py",
             '    "pile_summary": OpponentSight(Shown.FIRST, Shown.ALL),',
             '    "pile_summary": OpponentSight(Shown.ALL, Shown.ALL),',
             "R11: the table view shows what an opponent's whole pile holds (kind counts, value sum), not only its height"),
    Mutation("visibility-thefts-hidden", "miaui_env/games/miaui/observation.py",
             '    "stolen": _OPEN,',
             '    "stolen": OpponentSight(Shown.NOTHING, Shown.NOTHING),',
             "R9/R11: an opponent's Seagull theft, a public event of the last reveal, is not shown"),

    # -- miaui_env/core/arena.py: the statistics --------------------------------------------------------
    Mutation("arena-ties-take-the-better-place", "miaui_env/core/arena.py",
             "    rank = 1.0 + higher + (equal - 1) / 2.0  # ties share the average place",
             "    rank = 1.0 + higher  # ties share the average place",
             "R10/arena: tied players all take the best of their places instead of sharing the average (the issue's example)"),
    Mutation("arena-ties-take-the-worse-place", "miaui_env/core/arena.py",
             "    rank = 1.0 + higher + (equal - 1) / 2.0  # ties share the average place",
             "    rank = 1.0 + higher + (equal - 1)  # ties share the average place",
             "R10/arena: tied players all take the worst of their places instead of sharing the average"),
    Mutation("arena-tied-winners-each-get-a-whole-win", "miaui_env/core/arena.py",
             "    sets = games // num_players\n    share = np.where(winners, 1.0 / winners.sum(axis=1, keepdims=True), 0.0)",
             "    sets = games // num_players\n    share = np.where(winners, 1.0, 0.0)",
             "R10/arena: the win share counts a shared victory as a whole win for each tied winner"),
    Mutation("arena-no-rotation-in-a-duplicate-set", "miaui_env/games/miaui/arena.py",
             "    seats = np.concatenate([np.roll(base, r, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)",
             "    seats = np.concatenate([np.roll(base, 0, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)",
             "arena: a duplicate set replays its deal without rotating the lineup, so seat and Kiti luck do not cancel"),
    Mutation("arena-a-new-deal-every-game", "miaui_env/games/miaui/arena.py",
             "    game_seeds = np.repeat(set_seeds, n)",
             "    game_seeds = np.tile(set_seeds, n)",
             "arena: the games of a duplicate set are dealt different decks instead of the same one"),
    Mutation("arena-ci-with-the-normal-quantile-for-few-sets", "miaui_env/core/arena.py",
             "    critical = _T_975[values.size - 2] if values.size - 1 < MIN_SETS_FOR_Z else 1.96",
             "    critical = 1.96",
             "arena: a 95% interval over fewer than 30 duplicate sets uses 1.96 instead of Student's t (too narrow)"),
    Mutation("arena-ci-with-the-population-spread", "miaui_env/core/arena.py",
             "    spread = float(values.std(ddof=1)) if values.size > 1 else 0.0",
             "    spread = float(values.std(ddof=0)) if values.size > 1 else 0.0",
             "arena: the interval uses the population standard deviation (ddof=0) instead of the sample one"),
    Mutation("arena-ci-not-over-the-square-root", "miaui_env/core/arena.py",
             "    return mean, critical * spread / math.sqrt(values.size)",
             "    return mean, critical * spread / values.size",
             "arena: the interval's half-width divides by the number of sets instead of its square root"),
    Mutation("arena-copies-rated-at-their-best-place", "miaui_env/core/arena.py",
             "        places = [float(rank[game][seats[game] == a].mean()) for a in present]",
             "        places = [float(rank[game][seats[game] == a].min()) for a in present]",
             "arena: an agent with several copies at a table is rated at its best copy's place instead of their mean place"),
    Mutation("arena-significance-two-sided", "miaui_env/core/arena.py",
             "        p = 0.5 * math.erfc(z / math.sqrt(2))",
             "        p = math.erfc(z / math.sqrt(2))",
             "arena: the gauntlet's one-sided z-test reports a two-sided p-value"),
    Mutation("arena-sign-test-drops-the-observed-count", "miaui_env/core/arena.py",
             "p = sum(math.comb(decided, k) for k in range(above, decided + 1)) / 2**decided if decided else 1.0",
             "p = sum(math.comb(decided, k) for k in range(above + 1, decided + 1)) / 2**decided if decided else 1.0",
             "arena: the sign test's p-value leaves out the outcome observed (P(X > k) instead of P(X >= k))"),

    # -- miaui_env/games/miaui/replay.py: what makes a replay refuse a tampered game --------------------------
    Mutation("replay-records-not-compared", "miaui_env/games/miaui/replay.py",
             "        if mine != theirs:",
             "        if mine.keys() != theirs.keys():",
             "replay: an edited round record (who played what, who caught what) is accepted"),
    Mutation("replay-missing-records-accepted", "miaui_env/games/miaui/replay.py",
             "    if len(played) != len(replay.records):",
             "    if len(played) < len(replay.records):",
             "replay: a replay whose last round records were cut off is accepted"),
    Mutation("replay-scores-not-compared", "miaui_env/games/miaui/replay.py",
             "    if tuple(scores(final)) != replay.scores or tuple(sorted(winners(final))) != replay.winners:",
             "    if tuple(sorted(winners(final))) != replay.winners:",
             "replay/R10: edited final scores are accepted"),
    Mutation("replay-winners-not-compared", "miaui_env/games/miaui/replay.py",
             "    if tuple(scores(final)) != replay.scores or tuple(sorted(winners(final))) != replay.winners:",
             "    if tuple(scores(final)) != replay.scores:",
             "replay/R10: edited winners are accepted"),
    Mutation("replay-a-short-game-accepted", "miaui_env/games/miaui/replay.py",
             "    if len(plays) != NUM_ROUNDS - 1:",
             "    if len(plays) > NUM_ROUNDS - 1:",
             "replay: a game cut short (fewer than 11 chosen rounds, records and scores to match) is accepted"),
    Mutation("replay-seat-names-not-counted", "miaui_env/games/miaui/replay.py",
             "    if len(players) != num_players:",
             "    if len(players) > num_players:",
             "replay: a replay naming fewer players than its table has seats is accepted"),
    Mutation("replay-seed-ignored", "miaui_env/games/miaui/replay.py",
             "        rng = seed_generator(0 if seed is None else check_seed(seed))",
             "        rng = seed_generator(0)",
             "replay: every seeded replay is dealt seed 0's game instead of its own"),

    # -- miaui_env/games/miaui/vector/encode_kernels.py and miaui_env/games/miaui/vector/engine.py -------------------------
    Mutation("engine-short-game-deals-twelve-cards", "miaui_env/games/miaui/vector/engine.py",
             "        game.hands[:] = self._loader.fresh_hands",
             "        game.hands.fill(1)",
             "MV1: the batched engine deals a short game's hands every diver card, not cards 1 to rounds"),
    Mutation("encode-short-game-round-shown-after-its-end", "miaui_env/games/miaui/vector/encode_kernels.py",
             "                target[_ROUND + r] = 1 if r + 1 == round_number and round_number <= tables.rounds else 0",
             "                target[_ROUND + r] = 1 if r + 1 == round_number else 0",
             "MV1: a finished short game's observation still shows a round about to be played"),
    Mutation("encode-face-down-shown-to-everyone", "miaui_env/games/miaui/vector/encode_kernels.py",
             "            if card != empty and peeker[g, depth, j] >= 0 and hide_in_lagoon:",
             "            if card != empty and peeker[g, depth, j] >= 99 and hide_in_lagoon:",
             "R5: the compiled encoder shows every face-down card to every seat, not its peeker alone"),
    Mutation("encode-peeker-sees-nothing", "miaui_env/games/miaui/vector/encode_kernels.py",
             "            if s >= 0 and tables.peeks[1 if j >= LAGOON_SLOTS else 0]:",
             "            if s >= 99 and tables.peeks[1 if j >= LAGOON_SLOTS else 0]:",
             "R5: the Lantern's catcher no longer sees the face-down card she peeked"),
    Mutation("encode-box-in-every-view", "miaui_env/games/miaui/vector/encode_kernels.py",
             "        if shows_box:",
             "        if True:",
             "R11: the box shown in the table view, whatever VISIBILITY declares (recall only)"),
    Mutation("encode-opponent-rows-unmasked", "miaui_env/games/miaui/vector/encode_kernels.py",
             "            out[slot, s, k] = rows[slot, s, k] if tables.opponent_mask[k] != 0 else np.float32(0.0)",
             "            out[slot, s, k] = rows[slot, s, k] if True else np.float32(0.0)",
             "R11: float32 observations show opponents' buried fish and old discards in the table view"),
    Mutation("encode-opponent-codes-unmasked", "miaui_env/games/miaui/vector/encode_kernels.py",
             "                out[slot, s, k] = rows[slot, s, k] * tables.keep[k] + tables.hidden_zero[k]",
             "                out[slot, s, k] = rows[slot, s, k] + tables.hidden_zero[k]",
             "R11: uint8 observations show opponents' buried fish and old discards in the table view"),
    Mutation("encode-seat-rows-absolute", "miaui_env/games/miaui/vector/encode_kernels.py",
             "            at = _SEATS + seat_dim * (s - o if s >= o else s - o + n)",
             "            at = _SEATS + seat_dim * s",
             "R1: seat rows in absolute order, not starting with the observer and going to her left"),
    Mutation("encode-hand-shown-whatever-the-table", "miaui_env/games/miaui/vector/encode_kernels.py",
             "        if shows_hand:  # Sight.OWN: the observer's own hand",
             "        if True:  # Sight.OWN: the observer's own hand",
             "R11: the compiled encoder writes the hand whether or not VISIBILITY shows it"),
    Mutation("encode-pile-bottom-first", "miaui_env/games/miaui/vector/encode_kernels.py",
             "            below = pile_len[g, s] - 1 - j",
             "            below = j",
             "R11: a pile's shown cards are its bottom three, not its top three (Seagulls take the top, R9)"),
    Mutation("encode-pile-height-scaled-as-a-count", "miaui_env/games/miaui/vector/encode_kernels.py",
             "        out[slot, s, _SUMMARY] = np.float32(height / HEIGHT_SCALE)",
             "        out[slot, s, _SUMMARY] = np.float32(height / COUNT_SCALE)",
             "the float32 pile summary's height on another scale than the reference encoder's"),
    Mutation("encode-round-one-hot-a-round-late", "miaui_env/games/miaui/vector/encode_kernels.py",
             "                target[_ROUND + r] = 1 if r + 1 == round_number and round_number <= tables.rounds else 0",
             "                target[_ROUND + r] = 1 if r == round_number and round_number <= tables.rounds else 0",
             "the round piece names the round after the one about to be played"),
    Mutation("engine-face-down-public-in-the-tables", "miaui_env/games/miaui/vector/engine.py",
             "        face_down_public=np.array([face_down_public(name) for name in FACE_DOWN_PIECES]),",
             "        face_down_public=np.array([True, True]),",
             "R5: the engine's tables turn face-down cards up for everyone, whatever FACE_DOWN_VISIBILITY declares"),
    Mutation("engine-every-slot-one-stream", "miaui_env/core/seeding.py",
             "    return [np.random.Generator(np.random.PCG64(child)) for child in seed_children(root, count)]",
             "    return [np.random.Generator(np.random.PCG64(child)) for child in seed_children(root, 1) * count]",
             "seeding: every slot of a batch deals from one stream, so a batch plays one game many times"),
    Mutation("engine-rewarded-by-score-whatever-the-mode", "miaui_env/games/miaui/vector/engine.py",
             "            rewards[:] = final_rewards(scores, self.table_spec.reward)",
             '            rewards[:] = final_rewards(scores, "score")',
             "rewards: every reward mode pays the final score"),
    Mutation("engine-lowest-score-wins", "miaui_env/games/miaui/vector/engine.py",
             "            winners = scores == scores.max(axis=1, keepdims=True)",
             "            winners = scores == scores.min(axis=1, keepdims=True)",
             "R10: the engine's infos name the lowest scores the winners"),
    # -- miaui_env/games/octopus/rules.py: the octopus game's rules -------------------------------------------
    Mutation("octopus-bust-keeps-the-earlier-card", "miaui_env/games/octopus/rules.py",
             "            kept = row[:i]",
             "            kept = row[: i + 1]",
             "O3: a bust keeps the earlier card of the pair instead of discarding it with every card after it"),
    Mutation("octopus-theft-needs-more-than-k", "miaui_env/games/octopus/rules.py",
             "    if face >= k:",
             "    if face > k:",
             "O5: a roll equal to k fails instead of taking k cards"),
    Mutation("octopus-minus-one-takes-nothing", "miaui_env/games/octopus/rules.py",
             "    elif face == -1 and state.collections[seat]:",
             "    elif False:",
             "O5: a -1 roll no longer gives the target one of the thief's cards"),
    Mutation("octopus-game-needs-more-than-77", "miaui_env/games/octopus/rules.py",
             "    reached = max(state.totals) >= state.variant.target",
             "    reached = max(state.totals) > state.variant.target",
             "O9: a total of exactly 77 does not end the game"),
    Mutation("octopus-a-session-scores-its-best-species-only", "miaui_env/games/octopus/rules.py",
             "    return sum(best)",
             "    return max(best)",
             "O7: a session scores the best species' highest value, not the sum over species"),
    Mutation("octopus-an-octopus-loses-the-row", "miaui_env/games/octopus/rules.py",
             "        discarded = (*state.row, card)",
             "        discarded = (card,)",
             "O3: the row an octopus ends never reaches the discard pile"),
    Mutation("octopus-every-session-starts-at-player-0", "miaui_env/games/octopus/rules.py",
             "    _start_session(state, first=nxt)  # O8: the seat order simply continues",
             "    _start_session(state, first=0)",
             "O8: a new session starts with player_0 instead of the next seat in order"),
    Mutation("octopus-a-theft-from-oneself-is-offered", "miaui_env/games/octopus/rules.py",
             "        if any(state.collections[t] for t in range(state.num_players) if t != seat):",
             "        if any(state.collections[t] for t in range(state.num_players)):",
             "O10: a thief whose only cards are her own is asked for a theft she cannot make"),
    Mutation("octopus-the-largest-theft-is-not-offered", "miaui_env/games/octopus/rules.py",
             "            thefts.extend(Theft(target, k) for k in range(1, min(MAX_STEAL, size) + 1))",
             "            thefts.extend(Theft(target, k) for k in range(1, min(MAX_STEAL, size)))",
             "O5/O10: a theft of as many cards as allowed is never offered"),
    Mutation("octopus-a-variant-ends-at-77", "miaui_env/games/octopus/rules.py",
             "    reached = max(state.totals) >= state.variant.target",
             "    reached = max(state.totals) >= TARGET",
             "OV2: a small variant plays on past its own target, to the full game's 77"),
    Mutation("octopus-a-variant-deals-the-whole-deck", "miaui_env/games/octopus/rules.py",
             "        cards = state.variant.cards",
             "        cards = FULL_GAME.cards",
             "OV1: a small variant is dealt every card of the full game"),
    # -- miaui_env/games/octopus/arena.py: the octopus arena's duplicate sets ------------------------------
    Mutation("octopus-arena-seats-not-rotated", "miaui_env/games/octopus/arena.py",
             "    seats = np.concatenate([np.roll(base, r, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)",
             "    seats = np.concatenate([np.roll(base, 0, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)",
             "a duplicate set plays one lineup n times instead of rotating it over the seats"),
    Mutation("octopus-arena-games-of-a-set-dealt-apart", "miaui_env/games/octopus/arena.py",
             "    return seats, np.repeat(seed_ints(config.seed, sets), n)",
             "    return seats, seed_ints(config.seed, sets * n)",
             "every game of a duplicate set gets a deal of its own: the seats' luck no longer cancels"),
    # -- miaui_env/games/octopus/observation.py and env.py: what a seat sees (O4), the env's rewards ------------
    Mutation("octopus-table-view-shows-every-collection", "miaui_env/games/octopus/observation.py",
             '    "collection": _RECALLED,',
             '    "collection": _OPEN,',
             "O4: the table view shows every opponent's face-down collection card by card"),
    Mutation("octopus-table-view-shows-session-scores", "miaui_env/games/octopus/observation.py",
             '    "session_score": _RECALLED,  # computable from the collection, so no more visible than it',
             '    "session_score": _OPEN,',
             "O4: the table view shows what an opponent's face-down collection scores"),
    Mutation("octopus-table-view-remembers-the-discard", "miaui_env/games/octopus/observation.py",
             '    "discard": Sight.RECALL,  # every card went there face-up, but only perfect memory still knows them all (O4)',
             '    "discard": Sight.PUBLIC,',
             "O4: the table view holds the discard pile card by card, which only perfect memory knows"),
    Mutation("octopus-painter-miscounts-the-deck", "miaui_env/games/octopus/observation.py",
             "        cells[_DECK_SIZE_AT] = len(state.deck) / SIZE_SCALE",
             "        cells[_DECK_SIZE_AT] = (len(state.deck) + 1) / SIZE_SCALE",
             "the env's in-place canvas shows one card more in the deck than the reference encoder"),
    Mutation("octopus-env-pays-the-score-whatever-the-mode", "miaui_env/games/octopus/env.py",
             "            self.rewards = dict(zip(self.agents, final_rewards(np.array(totals), self.reward_mode).tolist(), strict=True))",
             '            self.rewards = dict(zip(self.agents, final_rewards(np.array(totals), "score").tolist(), strict=True))',
             "rewards: the octopus env pays the final total in every reward mode"),
    # the generic apps of a plug-in game (miaui_env/apps/any_game.py)
    Mutation("any-game-replay-ignores-its-winners", "miaui_env/apps/any_game.py",
             '    if winners != data["winners"]:',
             "    if False:",
             "a plug-in game's replay checker stops comparing the winners a file says with the game's"),
    Mutation("any-game-asks-an-agent-that-is-out", "miaui_env/apps/any_game.py",
             "            self.left[agent] = dict(env.infos[agent])",
             "            return str(agent)",
             "a plug-in game's agent that is out before the end is asked to act instead of stepping out"),
    Mutation("any-game-arena-never-rotates-the-lineup", "miaui_env/apps/any_game.py",
             "    seats = np.concatenate([np.roll(base, r, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)",
             "    seats = np.concatenate([np.roll(base, 0, axis=1)[:, None] for r in range(n)], axis=1).reshape(sets * n, n)",
             "a plug-in game's duplicate set plays one seating n times instead of every seat of the deal"),
)
# fmt: on


@dataclass
class Outcome:
    """What one pytest run in the scratch copy came to."""

    status: str  # "passed", "failed", "error" (collection or import), "timeout", "no tests"
    seconds: float
    first_failure: str
    output: str

    @property
    def killed(self) -> bool:
        """True when the oracle subset did not pass (a timeout counts)."""
        return self.status in ("failed", "error", "timeout")


def check_catalogue(mutations: Iterable[Mutation], root: Path) -> list[str]:
    """Every problem with these entries against the tree at `root` (empty when all apply)."""
    problems, names = [], set()
    for mutation in mutations:
        if mutation.name in names:
            problems.append(f"{mutation.name}: the name is used twice")
        names.add(mutation.name)
        path = root / mutation.file
        if not path.is_file():
            problems.append(f"{mutation.name}: no file {mutation.file}")
            continue
        try:
            mutation.apply(path.read_text())
        except CatalogueError as error:
            problems.append(str(error))
    return problems


def _skipped(folder: str, names: list[str]) -> set[str]:
    """shutil.copytree's ignore: caches, virtual environments, and at the top runs/ and results/."""
    skipped = {name for name in names if name in SKIPPED or name.endswith(".egg-info")}
    skipped |= {name for name in names if (Path(folder) / name / "pyvenv.cfg").exists()}
    if Path(folder).resolve() == ROOT:
        skipped |= SKIPPED_AT_TOP & set(names)
    return skipped


def oracle_files(repo: Path) -> list[str]:
    """The test files (relative to `repo`) that use the oracle marker, sorted."""
    return sorted(str(path.relative_to(repo)) for path in (repo / "tests").glob("test_*.py") if ORACLE_MARK.search(path.read_text()))


def ordered_files(files: Sequence[str], mutated: str) -> list[str]:
    """The oracle files, the ones testing `mutated` first (FIRST_TESTS)."""
    first = [f for f in FIRST_TESTS.get(mutated, ()) if f in files]
    return first + [f for f in files if f not in first]


def _module(relative: str) -> str:
    """'miaui_env/games/miaui/vector/engine.py' -> 'miaui_env.games.miaui.vector.engine' (a package's __init__ is the package)."""
    parts = list(Path(relative).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str) -> set[str]:
    """The modules a file names in its import statements (for `from a import b`, both a and a.b)."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def stale_kernel_files(repo: Path, mutated: str) -> list[Path]:
    """The library files with compiled kernels whose cached code may depend on `mutated`: the file
    itself if it has kernels, and every kernel file that imports it, directly or through other imports."""
    files = {_module(str(p.relative_to(repo))): p for p in (repo / "miaui_env").rglob("*.py")}
    graph = {name: _imports(path, name) & files.keys() for name, path in files.items()}
    target = _module(mutated)
    stale = []
    for name, path in files.items():
        if "@njit" not in path.read_text():
            continue
        seen, todo = set(), [name]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(graph.get(current, ()))
        if target in seen:
            stale.append(path)
    return stale


def seed_kernel_cache(checkout: Path, repo: Path, cache: Path) -> int:
    """Copy the checkout's compiled kernels to where numba looks for the copy's (`cache`, the copy's
    NUMBA_CACHE_DIR); returns how many files. Numba files a cached kernel under its source's folder
    and checks it against the source's stamp, which the copy keeps (the same bytes and mtime), so the
    kernels the checkout's own tests compiled (in its __pycache__ folders, or under its
    NUMBA_CACHE_DIR) are valid there, and the baseline does not compile them again. Like numba in the
    checkout itself, it does not see a kernel made stale by an edit of another module whose globals
    the kernel baked in; CI's fresh clone compiles every kernel afresh in its oracle run."""
    from numba.core import config
    from numba.core.caching import UserProvidedCacheLocator

    def cache_folder(source_folder: Path, root: Path) -> Path:
        return root / UserProvidedCacheLocator.get_suitable_cache_subpath(str(source_folder / "kernels.py"))

    cache.mkdir(parents=True, exist_ok=True)  # a mutant's cache is copied from it, kernels or none
    copied = 0
    for folder in sorted({path.parent for path in (checkout / "miaui_env").rglob("*.py")}):
        origins = [folder / "__pycache__"] + ([cache_folder(folder, Path(config.CACHE_DIR))] if config.CACHE_DIR else [])
        for origin in origins:
            for entry in sorted(origin.glob("*.nb[ic]")) if origin.is_dir() else []:
                target = cache_folder(repo / folder.relative_to(checkout), cache)
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(entry, target / entry.name)
                copied += 1
    return copied


def mutant_cache(pristine: Path, run_cache: Path, stale: Sequence[Path]) -> Path:
    """The NUMBA_CACHE_DIR for one mutant: the shared cache itself when no kernel depends on the
    mutated file, else a hard-linked copy without the entries of the `stale` kernel files."""
    if not stale:
        return pristine
    shutil.rmtree(run_cache, ignore_errors=True)
    try:
        shutil.copytree(pristine, run_cache, copy_function=os.link)  # numba replaces files, never writes into them
    except OSError:
        shutil.rmtree(run_cache, ignore_errors=True)
        shutil.copytree(pristine, run_cache)
    for source in stale:  # numba's folder for a source file is named after the file's folder: <folder>_<hash>
        for entry in run_cache.rglob(f"{source.stem}.*"):
            if entry.is_file() and entry.parent.name.startswith(f"{source.parent.name}_"):
                entry.unlink()
    return run_cache


def run_oracle(repo: Path, env: dict[str, str], files: Sequence[str], timeout: float | None) -> Outcome:
    """Run the oracle subset on `files` in the scratch copy, stopping at the first failure."""
    shutil.rmtree(repo / ".hypothesis", ignore_errors=True)  # no examples carried from one mutant to the next
    command = [sys.executable, *PYTEST, *EXTRA, *files]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # pytest and anything it started
        output, _ = process.communicate()
        return Outcome("timeout", time.perf_counter() - started, f"(no result in {timeout:.0f} s)", output)
    seconds = time.perf_counter() - started
    if process.returncode == GUARD_EXIT and "not from the scratch copy" in output:
        raise SystemExit(f"mutations: {output.strip().splitlines()[-1]}")
    failing = re.findall(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", output, flags=re.MULTILINE)  # the node id, spaces and all
    status = {0: "passed", 1: "failed", 5: "no tests"}.get(process.returncode, "error")
    if status == "error" and not failing:
        failing = [f"(pytest exit status {process.returncode})"]
    return Outcome(status, seconds, failing[0] if failing else "", output)


def _clock(seconds: float) -> str:
    """Seconds as 1h02m, 3m05s or 42s."""
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _revision() -> str:
    """The checkout's commit, and whether it has local changes (the scratch copies the working tree)."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown revision"
    return f"{commit}{' with local changes' if dirty.strip() else ''}"


def write_report(path: Path, rows: Sequence[tuple[Mutation, Outcome]], baseline: Outcome, files: Sequence[str]) -> None:
    """The results as a markdown table, with the kill rate."""
    killed = sum(outcome.killed for _, outcome in rows)
    lines = [
        "# Mutants of the oracle subset",
        "",
        f"Written by `python tests/mutations.py` at {time.strftime('%Y-%m-%d %H:%M')} on {_revision()}.",
        f"Oracle files: {', '.join(f'`{f}`' for f in files)}; the unmutated subset passed in {baseline.seconds:.0f} s.",
        "",
        f"**Killed {killed} of {len(rows)} ({100 * killed / max(len(rows), 1):.0f}%).**",
        "",
        "| mutant | file | what it breaks | result | seconds | first failing test |",
        "|---|---|---|---|---|---|",
    ]
    for mutation, outcome in rows:
        result = {"failed": "killed", "error": "killed (error)", "timeout": "killed (timeout)"}.get(outcome.status, "**SURVIVED**")
        breaks = mutation.breaks.replace("|", "\\|")
        lines.append(
            f"| `{mutation.name}` | `{mutation.file}` | {breaks} | {result} | {outcome.seconds:.0f} | `{outcome.first_failure or '-'}` |"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def run_catalogue(mutations: Sequence[Mutation], timeout: float | None, keep: bool, tests: Sequence[str] | None = None) -> int:
    """Copy, check the import, run the baseline, then every mutant (on the oracle tests of `tests`,
    default every file that uses the marker); returns the exit status."""
    problems = check_catalogue(mutations, ROOT)
    if problems:
        print("mutations: the catalogue does not apply to this tree:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="miaui-mutants-")).resolve()  # the path numba's cache folders are named by
    repo, pristine, run_cache, guard = scratch / "repo", scratch / "numba-cache", scratch / "numba-cache-mutant", scratch / "guard"
    try:
        print(f"copying {ROOT} to {repo} ...", flush=True)
        shutil.copytree(ROOT, repo, ignore=_skipped, symlinks=True)
        guard.mkdir()
        (guard / "mutants_guard.py").write_text(GUARD_PLUGIN)
        env = {
            **os.environ,
            "PYTHONPATH": f"{repo}{os.pathsep}{guard}",
            "PYTHONDONTWRITEBYTECODE": "1",  # no .pyc of a mutant can outlive it
            "NUMBA_CACHE_DIR": str(pristine),
            "MIAUI_MUTANTS_COPY": str(repo),
        }
        found = subprocess.run(
            [sys.executable, "-c", "import miaui_env; print(miaui_env.__file__)"], cwd=repo, env=env, capture_output=True, text=True
        )
        where = Path(found.stdout.strip() or "/").resolve()
        if found.returncode != 0 or repo.resolve() not in where.parents:
            print(f"mutations: `import miaui_env` in the scratch copy found {where} ({found.stderr.strip()[-300:]})", file=sys.stderr)
            return 2
        print(f"miaui_env imports from the copy: {where}", flush=True)
        print(f"compiled kernels taken from the checkout: {seed_kernel_cache(ROOT, repo, pristine)} cache files", flush=True)
        files = oracle_files(repo) if not tests else [str(Path(f)) for f in tests]
        missing = [f for f in files if not (repo / f).is_file()]
        if missing:
            print(f"mutations: no test file {', '.join(missing)} in the copy (name them relative to the repository)", file=sys.stderr)
            return 2
        if not files:
            print("mutations: no test file uses the oracle marker (pytest.mark.oracle)", file=sys.stderr)
            return 2
        print(f"baseline: the unmutated oracle subset ({len(files)} files) ...", flush=True)
        baseline = run_oracle(repo, env, files, None)
        if baseline.status != "passed":
            print(baseline.output[-6000:], file=sys.stderr)
            print(
                f"mutations: the UNMUTATED oracle subset does not pass ({baseline.status}, {baseline.first_failure}); fix that first",
                file=sys.stderr,
            )
            return 2
        summary = baseline.output.strip().splitlines()[-1]
        print(f"baseline passed in {baseline.seconds:.0f} s ({summary})", flush=True)
        limit = timeout if timeout is not None else max(300.0, 3 * baseline.seconds)
        rows: list[tuple[Mutation, Outcome]] = []
        started = time.perf_counter()
        for number, mutation in enumerate(mutations, start=1):
            target = repo / mutation.file
            kept = scratch / "original" / mutation.file
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(target, kept)
            target.write_text(mutation.apply(target.read_text()))
            stamp = time.time_ns()  # a stamp of its own: numba and Python see a changed file
            os.utime(target, ns=(stamp, stamp))
            try:
                run_env = {**env, "NUMBA_CACHE_DIR": str(mutant_cache(pristine, run_cache, stale_kernel_files(repo, mutation.file)))}
                outcome = run_oracle(repo, run_env, ordered_files(files, mutation.file), limit)
            finally:
                shutil.copy2(kept, target)  # the original bytes and mtime: the shared cache is valid again
                shutil.rmtree(run_cache, ignore_errors=True)
            if outcome.status == "no tests":
                print(outcome.output[-3000:], file=sys.stderr)
                print(f"mutations: {mutation.name}: pytest collected no oracle test", file=sys.stderr)
                return 2
            rows.append((mutation, outcome))
            elapsed = time.perf_counter() - started
            eta = elapsed / number * (len(mutations) - number)
            verdict = {"failed": "killed", "error": "killed (error)", "timeout": "killed (timeout)"}.get(outcome.status, "SURVIVED")
            print(
                f"[{number:>2}/{len(mutations)}] {mutation.name:<55} {verdict:<16} {outcome.seconds:6.1f}s  "
                f"{outcome.first_failure or '-'}  (ETA {_clock(eta)})",
                flush=True,
            )
        report = RESULTS if len(mutations) == len(CATALOGUE) and tests is None else PARTIAL_RESULTS
        write_report(report, rows, baseline, files)
        killed = sum(outcome.killed for _, outcome in rows)
        survivors = [mutation.name for mutation, outcome in rows if not outcome.killed]
        print(f"\nkilled {killed} of {len(rows)} mutants ({100 * killed / len(rows):.0f}%) in {_clock(time.perf_counter() - started)}")
        if survivors:
            print("SURVIVED: " + ", ".join(survivors))
        print(f"results: {report}")
        return 1 if survivors else 0
    finally:
        if keep:
            print(f"scratch kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def rotating_sample(catalogue: Sequence[Mutation], size: int, turn: int) -> list[Mutation]:
    """Every k-th mutant from offset turn % k, k = ceil(len / size): k consecutive turns run the whole catalogue once."""
    stride = max(1, math.ceil(len(catalogue) / size))
    return list(catalogue[turn % stride :: stride])


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line; list the catalogue or run (some of) it."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print the catalogue, each entry checked against the tree, and stop")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per mutant (default: 3x the baseline, at least 300)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy (its path is printed)")
    parser.add_argument(
        "--tests", nargs="+", metavar="FILE", help="run the oracle tests of these files only (e.g. tests/test_rules.py), baseline included"
    )
    parser.add_argument("--sample", type=int, metavar="N", help="about N mutants: one slice of the catalogue (CI's rotating sample)")
    parser.add_argument("--turn", type=int, default=None, help="with --sample: which slice (default: today's, so it rotates daily)")
    args = parser.parse_args(argv)
    chosen = list(CATALOGUE)
    if args.sample is not None:
        if args.only or args.sample < 1:
            parser.error("--sample takes a number >= 1, and not with --only")
        turn = date.today().toordinal() if args.turn is None else args.turn
        chosen = rotating_sample(chosen, args.sample, turn)
        print(f"sample: turn {turn}, {len(chosen)} of {len(CATALOGUE)} mutants (--turn {turn} runs the same ones)")
    if args.only:
        by_name = {mutation.name: mutation for mutation in CATALOGUE}
        unknown = [name for name in args.only if name not in by_name]
        if unknown:
            parser.error(f"no mutant named {', '.join(unknown)}; see --list")
        chosen = [by_name[name] for name in dict.fromkeys(args.only)]
    if args.list:
        problems = {p.split(":", 1)[0]: p for p in check_catalogue(chosen, ROOT)}
        for mutation in chosen:
            state = "ok" if mutation.name not in problems else f"DOES NOT APPLY: {problems[mutation.name]}"
            print(f"{mutation.name:<55} {mutation.file:<36} {mutation.breaks}  [{state}]")
        print(f"{len(chosen)} mutants")
        return 2 if problems else 0
    return run_catalogue(chosen, args.timeout, args.keep, args.tests)


if __name__ == "__main__":
    sys.exit(main())
