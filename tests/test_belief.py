"""What one seat knows (perfect recall of its own observations) and worlds resampled from it.

The true games come from the reference rules; a seat's knowledge is built from nothing but the
observation vectors its seat was dealt. The resampled worlds must (1) reproduce the seat's whole
observation history exactly, (2) change nothing the seat knows, (3) put each unseen card in each
hidden place as often as the game's own dealing does (R3/R4), measured against true deals.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from miaui_env.games.miaui.belief import KnowledgeError, SeatKnowledge, put_back_weights
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishKind
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import GameConfig, GameState, new_game, play_round

CONFIGS = [
    GameConfig(n, open_baskets, no_fighting)
    for n, open_baskets, no_fighting in itertools.product(range(3, 7), (False, True), (False, True))
]


def random_plays(state: GameState, rng: np.random.Generator) -> list[int]:
    """A uniformly random legal card for every seat."""
    return [int(rng.choice(np.flatnonzero(hand))) + 1 for hand in state.hands]


def observed_game(config: GameConfig, seed: int, rounds: int, view: str = "table"):
    """A random game played `rounds` rounds: its states' observations per seat and the plays."""
    rng = np.random.default_rng(seed)
    state = new_game(config, rng)
    encoder = Encoder(config, view)
    history, plays = [], []
    for _ in range(rounds):
        encoder.refresh(state)
        history.append([encoder.observe(seat) for seat in range(config.num_players)])
        if state.round == rounds:
            break
        plays.append(random_plays(state, rng))
        play_round(state, plays[-1])
    return state, history, plays


def knowledge_of(history, seat: int) -> SeatKnowledge:
    """A seat's knowledge fed with its observations, in order."""
    knowledge = SeatKnowledge()
    for observations in history:
        knowledge.observe(observations[seat])
    return knowledge


def cards(state: GameState, indices) -> list:
    return [state.card(i) for i in indices]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-ob{c.open_baskets:d}-nf{c.no_fighting:d}")
@pytest.mark.parametrize("view", ["table", "recall"])
def test_knowledge_knows_every_hand_and_pile(config, view):
    for seed in range(3):
        rounds = 1 + seed * 5
        state, history, _ = observed_game(config, seed, rounds, view)
        for seat in range(config.num_players):
            knowledge = knowledge_of(history, seat)
            skeleton = knowledge.state
            assert skeleton.round == state.round
            # Kiti's place tells the seat who it is (R1); without Kiti (No Fighting) it calls itself seat 0.
            assert knowledge.seat == (0 if config.no_fighting else seat)
            shift = 0 if not config.no_fighting else (knowledge.seat - seat) % config.num_players
            n = config.num_players
            for s in range(n):
                t = (s + shift) % n
                assert np.array_equal(skeleton.hands[t], state.hands[s])
                assert cards(skeleton, skeleton.piles[t]) == cards(state, state.piles[s])
                assert skeleton.played[t] == state.played[s]
            assert Counter(cards(skeleton, skeleton.box)) == Counter(cards(state, state.box))


def test_knowledge_refuses_a_skipped_round():
    config = GameConfig(4)
    _, history, _ = observed_game(config, 0, 4)
    knowledge = SeatKnowledge()
    knowledge.observe(history[0][0])
    with pytest.raises(KnowledgeError, match="round 3 after round 1"):
        knowledge.observe(history[2][0])
    fresh = SeatKnowledge()
    with pytest.raises(KnowledgeError, match="from round 1"):
        fresh.observe(history[1][0])


def test_the_same_observation_twice_is_one_decision():
    config = GameConfig(4)
    _, history, _ = observed_game(config, 1, 3)
    knowledge = knowledge_of(history, 2)
    knowledge.observe(history[-1][2])
    assert knowledge.round == 3


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-ob{c.open_baskets:d}-nf{c.no_fighting:d}")
def test_resampled_world_shows_the_seat_its_whole_history(config):
    """Replaying the true plays on a sampled world's deal shows the seat every observation it saw."""
    n = config.num_players
    for seed in range(4):
        rounds = 2 + 3 * seed
        state, history, plays = observed_game(config, 100 + seed, rounds)
        seat = seed % n
        knowledge = knowledge_of(history, seat)
        shift = 0 if not config.no_fighting else (knowledge.seat - seat) % n
        rng = np.random.default_rng(seed)
        for _ in range(5):
            world = knowledge.sample(rng)
            replay = new_game(config, np.random.default_rng(0), world.deal)
            encoder = Encoder(config)
            for round_index, observations in enumerate(history):
                encoder.refresh(replay)
                assert np.array_equal(encoder.observe(knowledge.seat), observations[seat]), f"round {round_index + 1}"
                if round_index < len(plays):
                    play_round(replay, [plays[round_index][(t - shift) % n] for t in range(n)])
            assert replay.round == world.state.round == state.round
            assert replay.deck == world.state.deck and replay.put_back == world.state.put_back
            assert replay.lagoon == world.state.lagoon
            assert replay.piles == world.state.piles and np.array_equal(replay.hands, world.state.hands)


def test_resampling_changes_nothing_the_seat_knows():
    config = GameConfig(5, no_fighting=True)
    _, history, _ = observed_game(config, 7, 8)
    knowledge = knowledge_of(history, 3)
    before = knowledge.state.clone()
    seen = set(range(37)) - {knowledge.deal[p] for p in knowledge.hidden_places()}
    rng = np.random.default_rng(0)
    for _ in range(50):
        world = knowledge.sample(rng).state
        assert world.piles == before.piles and world.played == before.played and world.box == before.box
        for depth, space in enumerate(world.lagoon):
            for slot, card in enumerate(space):
                if card.card in seen or before.lagoon[depth][slot].card in seen:
                    assert card == before.lagoon[depth][slot]
    assert knowledge.state.deck == before.deck and knowledge.state.lagoon == before.lagoon  # sampling leaves the skeleton alone


def test_put_back_weights_follow_round_one():
    """R3/R4: round 1 skips Seagulls, so a put-back non-Seagull leaves one fewer to draw from."""
    seagull = next(c for c in DEFAULT_DECK if c.kind is FishKind.SEAGULL)
    tuna = next(c for c in DEFAULT_DECK if c.kind is FishKind.EMPEROR_TUNA)
    weights = put_back_weights([seagull, tuna], DEFAULT_DECK)
    assert weights[1] / weights[0] == pytest.approx((31 * 30 * 29) / (30 * 29 * 28))


@pytest.mark.slow
def test_the_put_back_is_a_seagull_as_often_as_dealing_makes_it():
    """Over true round-1 deals, the put-back is a Seagull 6/37 of the time; worlds resampled from
    each round-1 observation must say the same (placing unseen cards uniformly would say 6/34)."""
    config, games, per_game = GameConfig(4), 6000, 8
    encoder = Encoder(config)
    true_gulls = sampled_gulls = 0.0
    rng = np.random.default_rng(2024)
    for game in range(games):
        state = new_game(config, np.random.default_rng(10_000 + game))
        true_gulls += state.card(state.put_back).kind is FishKind.SEAGULL
        encoder.refresh(state)
        knowledge = SeatKnowledge()
        knowledge.observe(encoder.observe(0))
        sampled_gulls += np.mean([DEFAULT_DECK[knowledge.sample(rng).state.put_back].kind is FishKind.SEAGULL for _ in range(per_game)])
    true_share, sampled_share = true_gulls / games, sampled_gulls / games
    standard_error = np.sqrt(6 / 37 * 31 / 37 / games)
    assert abs(sampled_share - true_share) < 4 * standard_error
    assert abs(sampled_share - 6 / 34) > 4 * np.sqrt(6 / 34 * 28 / 34 / (games * per_game))  # uniform placement is ruled out


@pytest.mark.slow
def test_unseen_cards_land_in_each_hidden_place_as_often_as_in_true_deals():
    """Calibration against the dealing process: over many true games and seats, the kind of card in
    each hidden place (the put-back, the next and last deck cards, a face-down card someone else
    peeked) must be as frequent in the resampled worlds as in the true games."""
    rng = np.random.default_rng(7)
    true_kinds: dict[str, Counter] = {}
    sampled_kinds: dict[str, Counter] = {}
    configs = [GameConfig(4), GameConfig(3, no_fighting=True), GameConfig(6)]
    for game in range(2400):
        config = configs[game % len(configs)]
        rounds = 2 + game % 10
        state, history, _ = observed_game(config, 50_000 + game, rounds)
        seat = game % config.num_players
        knowledge = knowledge_of(history, seat)
        world = knowledge.sample(rng).state
        places = {"put_back": (state.put_back, world.put_back), "next": (state.deck[0], world.deck[0])}
        places["last"] = (state.deck[-1], world.deck[-1])
        for depth, space in enumerate(state.lagoon):
            for slot, card in enumerate(space):
                if card.peeker is not None and card.peeker != seat:
                    places[f"face_down_{game}_{depth}_{slot}"] = (card.card, world.lagoon[depth][slot].card)
        for place, (true_card, world_card) in places.items():
            name = "face_down" if place.startswith("face_down") else place
            true_kinds.setdefault(name, Counter())[DEFAULT_DECK[true_card].kind] += 1
            sampled_kinds.setdefault(name, Counter())[DEFAULT_DECK[world_card].kind] += 1
    assert sum(true_kinds["face_down"].values()) > 100  # the games put enough face-down cards to judge
    for place, truth in true_kinds.items():
        total = sum(truth.values())
        for kind in FishKind:
            p = (truth[kind] + sampled_kinds[place][kind]) / (2 * total)
            if p == 0:
                continue
            z = (sampled_kinds[place][kind] - truth[kind]) / np.sqrt(2 * total * p * (1 - p))
            assert abs(z) < 4.5, f"{place}: {kind} {sampled_kinds[place][kind]} resampled vs {truth[kind]} true of {total}"


def test_knowledge_refuses_another_games_or_another_seats_next_observation_and_keeps_what_it_knew():
    config = GameConfig(4)
    for seed in range(12):
        _, history, _ = observed_game(config, seed, 3)
        _, other_game, _ = observed_game(config, 1000 + seed, 3)
        knowledge = knowledge_of(history[:1], 0)
        deal = list(knowledge.deal)
        for intruder in (other_game[1][0], history[1][1], other_game[0][0][::-1]):
            with pytest.raises(KnowledgeError):
                knowledge.observe(intruder)
            assert (knowledge.round, knowledge.deal) == (1, deal)
        knowledge.observe(history[1][0])  # its own next observation still follows
        assert knowledge.round == 2


def test_knowledge_refuses_the_same_round_shown_again_with_another_hand():
    config = GameConfig(4)
    _, history, _ = observed_game(config, 3, 3)
    knowledge = knowledge_of(history, 2)
    altered = history[-1][2].copy()
    altered[OBSERVATION_LAYOUT.span("hand")] = 1.0
    with pytest.raises(KnowledgeError, match="differs first in 'hand'"):
        knowledge.observe(altered)
