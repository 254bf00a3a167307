"""Invariants over thousands of random games in every configuration."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from miaui_env.games.miaui.cards import FishKind
from miaui_env.games.miaui.rules import NUM_ROUNDS, GameConfig, SeagullTheft, new_game, play_round, scores, winners

GAMES_PER_CONFIG = 1000


@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), list(itertools.product(range(3, 7), (False, True), (False, True))))
def test_random_games_keep_every_invariant(n, open_baskets, no_fighting):
    config = GameConfig(n, open_baskets, no_fighting)
    everything = list(range(len(config.deck)))
    deck = config.deck
    rng = np.random.default_rng(1000 * n + 10 * open_baskets + no_fighting)
    for _ in range(GAMES_PER_CONFIG):
        state = new_game(config, rng)
        assert not any(deck[lc.card].kind is FishKind.SEAGULL for space in state.lagoon for lc in space)  # R4
        while not state.is_over:
            assert state.hands.any(axis=1).all()  # nobody must act with an empty hand
            held = state.hands.sum(axis=1)
            plays = [int(rng.choice(np.flatnonzero(state.hands[s]))) + 1 for s in range(n)]
            records = play_round(state, plays)
            assert (held - state.hands.sum(axis=1) == len(records)).all()  # one card a seat a round
            for record in records:
                caught = [d.winner for d in record.depths if d.winner is not None]
                assert len(caught) == len(set(caught))  # at most one catch a seat a round
                if not no_fighting:
                    assert len(caught) == 3
            # All 37 cards accounted for, each exactly once.
            places = [state.put_back, *state.deck, *state.box]
            places += [lc.card for space in state.lagoon for lc in space] + [c for pile in state.piles for c in pile]
            assert sorted(places) == everything
            for pile in state.piles:
                assert sum(deck[c].kind is FishKind.JELLYFISH for c in pile) < 3  # R9
                assert not any(deck[c].kind is FishKind.SEAGULL for c in pile)
        assert state.round == NUM_ROUNDS + 1 and not state.hands.any() and not state.deck
        totals = scores(state)
        assert list(totals) == [sum(deck[c].value for c in pile) for pile in state.piles]
        assert winners(state) == tuple(s for s in range(n) if totals[s] == max(totals))
        kinds = Counter(deck[c].kind for c in state.box)
        thefts = [e for r in state.history for e in r.events if isinstance(e, SeagullTheft)]
        assert kinds[FishKind.SEAGULL] == len(thefts)  # every caught Seagull flew off to the box
