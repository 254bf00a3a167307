"""Soak: random legal play of many games of both games, every invariant checked at every step.

    python benchmarks/soak.py --miaui-games 1000000 --octopus-games 100000    # the docs' run
    python benchmarks/soak.py --miaui-games 20000 --octopus-games 500         # a quick one

Miaui runs on the batched engine (`VectorMiaui`, `--batch` games at once, every table size 3-6 in
turn, the base game and both variants), checked after every round:

- each seat holds one card fewer after each round (two after round 11, whose twelfth card is forced);
- the 37 cards are all somewhere: the deck still to come, the lagoon, the piles and the box;
- no pile holds three Jellyfish or a Seagull (R9); every observation is finite and inside the
  observation box; every mask of a game still running allows a card;
- at the end: no card in hand, the rewards are the winners' shares (R10), summing to 1.

The octopus game runs on its pure engine, checked after every decision: the 66 cards are all
somewhere (deck, row, discard, collections), totals never fall, a session scores at most 40, the
seat to act has a legal action, and a game ends with a total of 77 (O9) or at the session cap.

Progress lines every few seconds with the rate and an ETA; the last line says how many games and
checks passed. Any failure stops the run with the game's seed and the invariant that broke.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from miaui_env.core.layout import VECTOR_BOUND
from miaui_env.games.miaui.cards import FISH_KINDS, FishKind
from miaui_env.games.miaui.rules import NUM_ROUNDS, GameConfig
from miaui_env.games.miaui.vector import VectorMiaui
from miaui_env.games.octopus import rules as octopus


class InvariantError(AssertionError):
    """An invariant broke: the soak names the game and the rule."""


def check(ok: bool, what: str) -> None:
    """Raise InvariantError naming `what` unless `ok`."""
    if not ok:
        raise InvariantError(what)


class Progress:
    """A line every `every` seconds: done, rate, ETA."""

    def __init__(self, label: str, total: int, every: float = 10.0):
        self.label, self.total, self.every = label, total, every
        self.start = self.last = time.perf_counter()

    def update(self, done: int) -> None:
        """Print a line if `every` seconds have passed."""
        now = time.perf_counter()
        if now - self.last >= self.every and done:
            rate = done / (now - self.start)
            print(
                f"  {self.label}: {done:,} of {self.total:,} games, {rate:,.0f} games/s, ETA {(self.total - done) / rate:,.0f} s",
                flush=True,
            )
            self.last = now


def soak_miaui(games: int, batch: int, seed: int) -> int:
    """Random legal Miaui games on the batched engine, every invariant checked each round; the checks made."""
    tables = list(itertools.product(range(3, 7), (False, True), (False, True)))
    rng = np.random.default_rng(seed)
    progress, played, checks = Progress("miaui", games), 0, 0
    for index in itertools.count():
        if played >= games:
            return checks
        n, open_baskets, no_fighting = tables[index % len(tables)]
        size = min(batch, games - played)
        engine = VectorMiaui(size, seed=seed + index, num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, autoreset=False)
        kinds = len(FISH_KINDS)
        jellyfish, seagull = FISH_KINDS.index(FishKind.JELLYFISH), FISH_KINDS.index(FishKind.SEAGULL)
        deck_size = len(GameConfig(n, open_baskets, no_fighting).deck)
        where = f"Miaui, {n} players, open_baskets={open_baskets}, no_fighting={no_fighting}, engine seed {seed + index}"
        observations, masks = engine.reset(seed=seed + index)
        for round_number in range(1, NUM_ROUNDS):
            held = masks.sum(axis=2)
            check(bool((held == NUM_ROUNDS + 1 - round_number).all()), f"{where}: hands before round {round_number}")
            check(bool(np.isfinite(observations).all() and (np.abs(observations) <= VECTOR_BOUND).all()), f"{where}: observations")
            observations, masks, rewards, done, _ = engine.step(np.argmax(rng.random(masks.shape) * masks, axis=2))
            game = engine.game_arrays
            # R3/R4: the put-back card, the deal still to come, the lagoon, the piles and the box hold every card once
            dealt = 3 * min(round_number + 1, NUM_ROUNDS)  # R4: 3 a round, the next round restocked (round 11 plays 12 too)
            placed = game.lagoon_len.sum(axis=1) + game.pile_len.sum(axis=(1,)) + game.box_stats[:, :kinds].sum(axis=1)
            check(
                bool((1 + (game.placement.shape[1] - dealt) + placed == deck_size).all()), f"{where}: cards lost after round {round_number}"
            )
            check(bool((game.pile_stats[:, :, jellyfish] < 3).all()), f"{where}: a pile of three Jellyfish (R9)")
            check(bool((game.pile_stats[:, :, seagull] == 0).all()), f"{where}: a Seagull in a pile")
            checks += size
        check(bool(done.all()), f"{where}: games not over after round 12")
        check(not engine.action_masks().any(), f"{where}: cards left in hand at the end")
        total = rewards.sum(axis=1)
        check(bool(np.allclose(total, 1.0)), f"{where}: the win shares do not sum to 1 (R10)")
        played += size
        progress.update(played)
    return checks


def soak_octopus(games: int, seed: int) -> int:
    """Random legal octopus games on the pure engine, every invariant checked each decision; the checks made."""
    rng = np.random.default_rng(seed)
    progress, checks = Progress("octopus", games), 0
    for game_index in range(games):
        n = 2 + game_index % 3
        state = octopus.new_game(n, seed=seed + game_index, max_sessions=30)
        where = f"octopus, {n} players, seed {seed + game_index}"
        totals = list(state.totals)
        while not state.is_over:
            mask = octopus.action_mask(state)
            check(bool(mask.any()), f"{where}: no legal action for the seat to act")
            cards = len(state.deck) + len(state.row) + len(state.discard) + sum(len(c) for c in state.collections)
            check(cards == octopus.NUM_CARDS, f"{where}: {cards} cards on the table, not {octopus.NUM_CARDS}")
            action = int(rng.choice(np.flatnonzero(mask)))
            octopus.step(state, octopus.decision_of(state, action))
            check(all(a >= b for a, b in zip(state.totals, totals, strict=True)), f"{where}: a total fell")
            totals = list(state.totals)
            checks += 1
        check(all(max(scores) <= 40 for scores in state.session_scores), f"{where}: a session scored over 40 (O7)")
        check(max(state.totals) >= octopus.TARGET or state.truncated, f"{where}: the game ended below 77 uncapped (O9)")
        progress.update(game_index + 1)
    return checks


def main() -> None:
    """Soak both games and print what passed."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--miaui-games", type=int, default=1_000_000)
    parser.add_argument("--octopus-games", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=4096, help="Miaui games played at once")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    miaui_checks = soak_miaui(args.miaui_games, args.batch, args.seed)
    octopus_checks = soak_octopus(args.octopus_games, args.seed)
    print(
        f"{args.miaui_games:,} Miaui games ({miaui_checks:,} game-rounds checked) and {args.octopus_games:,} octopus games "
        f"({octopus_checks:,} decisions checked): 0 invariant failures, {time.perf_counter() - started:,.0f} s"
    )


if __name__ == "__main__":
    main()
