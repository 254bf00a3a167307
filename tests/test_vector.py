"""The batched engine against the pure reference: every game it plays is played beside it by
`rules.play_round` on a `GameState` of the test's own, dealt by `rules.new_game` from the slot's
seed, and shown by `encoder.Encoder`: observations bit for bit, masks, rewards, round records,
final observations, scores and winners, at every step, in every configuration."""

from __future__ import annotations

import ast
import inspect
import itertools

import numpy as np
import pytest
from gymnasium.utils import seeding
from helpers import check_round_arrays, effects_first_deck, stacked_deck

from miaui_env import IllegalActionError
from miaui_env.core.errors import REWARDS, final_rewards
from miaui_env.core.layout import OpponentSight, Shown, Sight
from miaui_env.games.miaui import encoder, observation
from miaui_env.games.miaui.cards import FISH_KINDS, FishKind, parse_deck_order
from miaui_env.games.miaui.compact import compact_observations
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import VIEWS
from miaui_env.games.miaui.rules import (
    DEAL_UNIFORMS,
    DECK_SIZE,
    NUM_ROUNDS,
    GameConfig,
    GameState,
    deal_from,
    new_game,
    play_round,
    scores,
    winners,
)
from miaui_env.games.miaui.vector import VectorMiaui, rule_kernels

CONFIGURATIONS = list(itertools.product(range(3, 7), (False, True), (False, True), VIEWS, REWARDS, ("float32", "uint8"), (1, 2)))
GAMES, EPISODES = 6, 1  # per configuration (the autoreset deal included): 384 configurations, 2,304 games


class ReferenceBatch:
    """One game per slot as the pure rules and encoder play and show it: the test's own states."""

    def __init__(self, config: GameConfig, view: str, dtype: str, generators: list[np.random.Generator]):
        self.config, self.view, self.dtype, self.generators = config, view, dtype, generators
        self.games: list[GameState] = []
        self.encoder = Encoder(config, view)  # rewritten whole for each game (refresh's new_game): as good as a fresh one

    def deal(self, decks: list[list[str] | None] | None = None) -> None:
        """A new game in every slot, from the slot's own generator (R3, R4), or from its stacked deck."""
        decks = decks or [None] * len(self.generators)
        self.games = [
            new_game(self.config, rng, None if deck is None else parse_deck_order(deck, self.config.deck))
            for rng, deck in zip(self.generators, decks, strict=True)
        ]

    def observations(self) -> np.ndarray:
        """(B, n, size): every seat's observation, each game written whole into the encoder, in the engine's dtype."""
        seen = []
        for game in self.games:
            self.encoder.refresh(game, new_game=True)
            seen.append([self.encoder.observe(seat) for seat in range(self.config.num_players)])
        floats = np.array(seen, dtype=np.float32)
        return compact_observations(floats) if self.dtype == "uint8" else floats

    def masks(self) -> np.ndarray:
        return np.array([game.hands for game in self.games])

    def play(self, actions: np.ndarray) -> list[tuple]:
        """One reveal in every game (card indices 0-11); the records each game produced."""
        return [play_round(game, [int(a) + 1 for a in row]) for game, row in zip(self.games, actions, strict=True)]


def same_bits(engine_obs: np.ndarray, reference_obs: np.ndarray) -> None:
    """Bit for bit (-0.0 is not 0.0 here), with numpy's report of where they differ if they do."""
    np.testing.assert_array_equal(engine_obs, reference_obs)
    assert engine_obs.dtype == reference_obs.dtype and engine_obs.tobytes() == reference_obs.tobytes()


@pytest.mark.oracle
@pytest.mark.parametrize(("n", "open_baskets", "no_fighting", "view", "reward", "dtype", "threads"), CONFIGURATIONS)
def test_batched_engine_plays_and_shows_what_the_pure_rules_and_encoder_do(n, open_baskets, no_fighting, view, reward, dtype, threads):
    seed = 1000 * n + 100 * open_baskets + 10 * no_fighting + VIEWS.index(view)
    settings = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, reward=reward, observation_dtype=dtype)
    play_beside_the_reference(settings, seed, GAMES, threads)


SHORT_GAMES = [  # (rounds, players, open_baskets, no_fighting, view, dtype)
    (2, 3, False, False, "table", "float32"),
    (3, 3, False, True, "recall", "uint8"),
    (3, 4, True, False, "table", "float32"),
    (5, 6, False, False, "recall", "float32"),
    (11, 5, True, True, "table", "uint8"),
]


@pytest.mark.oracle
@pytest.mark.parametrize(("rounds", "n", "open_baskets", "no_fighting", "view", "dtype"), SHORT_GAMES)
def test_batched_engine_plays_short_games_as_the_pure_rules_do(rounds, n, open_baskets, no_fighting, view, dtype):
    deck = effects_first_deck(rounds)
    settings = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, observation_dtype=dtype)
    play_beside_the_reference({**settings, "reward": "score", "rounds": rounds, "deck": deck}, seed=rounds, games=64, threads=1)


def play_beside_the_reference(settings: dict, seed: int, games: int, threads: int) -> None:
    """Two episodes of `games` random games through the engine and the pure rules and encoder side
    by side, every step compared (observations bit for bit, masks, records, rewards, scores, winners)."""
    engine = VectorMiaui(games, seed=seed, threads=threads, **settings)
    view, reward, dtype, n = engine.view, engine.table_spec.reward, engine.table_spec.observation_dtype, engine.num_players
    # The documented seed tree: slot i deals with child i of SeedSequence(seed), game after game.
    children = np.random.SeedSequence(seed).spawn(games)
    reference = ReferenceBatch(engine.config, view, dtype, [np.random.Generator(np.random.PCG64(c)) for c in children])
    reference.deal()  # the games dealt at construction
    obs, masks = engine.reset()  # no new seed: each slot's next deal
    reference.deal()
    same_bits(obs, reference.observations())
    np.testing.assert_array_equal(masks, reference.masks())
    rng = np.random.default_rng(seed)
    last = engine.config.rounds
    for _ in range(EPISODES):
        for decision in range(last - 1):  # the last round's card is forced (R6)
            actions = np.argmax(rng.random(masks.shape) * masks, axis=2)
            obs, masks, rewards, dones, infos = engine.step(actions)
            records = reference.play(actions)
            check_round_arrays(infos["rounds"], records)
            if decision < last - 2:
                assert not dones.any() and not rewards.any()
                same_bits(obs, reference.observations())
                np.testing.assert_array_equal(masks, reference.masks())
                continue
            assert dones.all()
            totals = np.array([scores(game) for game in reference.games])
            np.testing.assert_array_equal(rewards, final_rewards(totals, reward).astype(np.float32))
            np.testing.assert_array_equal(infos["scores"], totals)
            np.testing.assert_array_equal(infos["winners"], [[s in winners(game) for s in range(n)] for game in reference.games])
            same_bits(infos["final_observation"], reference.observations())
            np.testing.assert_array_equal(infos["final_action_mask"], reference.masks())
            reference.deal()  # autoreset: each slot's next game, from the same generator
            same_bits(obs, reference.observations())
            np.testing.assert_array_equal(masks, reference.masks())


FLIPS = [  # (table, entry, flipped value): each changes what a seat is shown
    ("VISIBILITY", "box", Sight.PUBLIC),  # the box in the table view too
    ("VISIBILITY", "lagoon", Sight.RECALL),  # the lagoon hidden from the table view
    ("OPPONENT_ROW_VISIBILITY", "played", OpponentSight(Shown.ALL, Shown.ALL)),  # opponents' old discards shown
    ("OPPONENT_ROW_VISIBILITY", "pile", OpponentSight(Shown.ALL, Shown.ALL)),  # buried fish shown
    ("OPPONENT_ROW_VISIBILITY", "caught", OpponentSight(Shown.NOTHING, Shown.NOTHING)),  # others' catches hidden
    ("FACE_DOWN_VISIBILITY", "lagoon", Sight.PUBLIC),  # face-down cards turned up for everyone (R5 broken)
    ("VISIBILITY", "round", Sight.RECALL),  # each piece of the table's head hidden from the table view in turn
    ("VISIBILITY", "hand", Sight.RECALL),
    ("VISIBILITY", "variant", Sight.RECALL),
    ("VISIBILITY", "num_players", Sight.RECALL),
]  # (no face-down card reaches lagoon_rest: its space was emptied by the Lantern's catch, R5)


GAMES_TO_FLIP = 32


@pytest.mark.oracle
@pytest.mark.parametrize(("table", "entry", "flipped"), FLIPS, ids=[f"{t}-{e}" for t, e, _ in FLIPS])
def test_a_flipped_visibility_entry_changes_what_both_encoders_show(monkeypatch, table, entry, flipped):
    """The compiled encoder takes every visibility decision from observation's declared tables: one
    entry flipped, the engine and the reference encoder still agree bit for bit, and both show
    something else than before."""
    settings = dict(num_players=4, no_fighting=True, view="table")  # No Fighting: stacks past 3 cards, in lagoon_rest too

    def play() -> list[np.ndarray]:
        engine = VectorMiaui(GAMES_TO_FLIP, seed=11, **settings)
        children = np.random.SeedSequence(11).spawn(GAMES_TO_FLIP)
        reference = ReferenceBatch(engine.config, "table", "float32", [np.random.Generator(np.random.PCG64(c)) for c in children])
        reference.deal()
        rng, masks, seen = np.random.default_rng(0), engine.action_masks(), []
        for _ in range(NUM_ROUNDS - 1):
            actions = np.argmax(rng.random(masks.shape) * masks, axis=2)
            obs, masks, _, _, infos = engine.step(actions)
            reference.play(actions)
            shown = infos.get("final_observation", obs)
            same_bits(shown, reference.observations())
            seen.append(shown.copy())
        return seen

    before = play()
    monkeypatch.setitem(getattr(observation, table), entry, flipped)
    after = play()
    assert any(not np.array_equal(a, b) for a, b in zip(before, after, strict=True))


@pytest.mark.oracle
def test_explicit_slot_seeds_deal_what_the_env_deals_for_that_seed():
    """reset(seeds=[...]): slot i deals `rules.new_game` with the env's generator for seeds[i]."""
    config = GameConfig(num_players=5, no_fighting=True)
    engine = VectorMiaui(3, num_players=5, no_fighting=True, view="recall")
    obs, _ = engine.reset(seeds=[7, 123456789, 2**40])
    reference = ReferenceBatch(config, "recall", "float32", [seeding.np_random(s)[0] for s in (7, 123456789, 2**40)])
    reference.deal()
    same_bits(obs, reference.observations())


@pytest.mark.oracle
def test_two_seeds_share_no_game():
    """Slot streams come from the seed tree: seeds 0 and 1 (or any two) deal no common game."""
    deals = {}
    for seed in (0, 1, 2):
        engine = VectorMiaui(16, num_players=4, seed=seed)
        deals[seed] = {engine.snapshot().game.placement[i].tobytes() for i in range(16)}
        assert len(deals[seed]) == 16  # and no two slots of one seed share one
    assert not deals[0] & deals[1] and not deals[1] & deals[2] and not deals[0] & deals[2]


@pytest.mark.oracle
def test_stacked_decks_per_game_match_the_reference():
    decks = [
        stacked_deck([("tigerfish:7", "emperor_tuna:15", "lantern:5")]),
        None,
        stacked_deck([("seagull:0", "jellyfish:-15", "kittenfish:1", "tigerfish:6")]),
    ]
    engine = VectorMiaui(3, num_players=4)
    obs, _ = engine.reset(seeds=[5, 6, 7], decks=decks)
    reference = ReferenceBatch(engine.config, "table", "float32", [seeding.np_random(s)[0] for s in (5, 6, 7)])
    reference.deal(decks)
    same_bits(obs, reference.observations())


def engine_snapshot(engine: VectorMiaui) -> tuple:
    game = engine.game_arrays
    return (engine.observations.tobytes(), game.hands.tobytes(), game.pile_stats.tobytes(), engine.round)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros((4, 3), dtype=np.int64), r"shape \(num_envs, num_players\) = \(4, 4\), got \(4, 3\)"),
        (np.zeros((4, 4)), "integer card indices"),
        (np.full((4, 4), 12), "game 0, player_0: action 12 is not a card in hand"),
        (np.array([[0] * 4, [0] * 4, [0, 0, 0, -1], [0] * 4], dtype=np.int32), "game 2, player_3: action -1 is not a card in hand"),
        (np.array([[0] * 4, [0] * 4, [0] * 4, [0, 0, 200, 0]], dtype=np.uint8), "game 3, player_2: action 200 is not a card in hand"),
        (np.array([[0] * 4, [0, 13, 0, 0], [0] * 4, [0] * 4], dtype=">i4"), "game 1, player_1: action 13 is not a card in hand"),
        (np.array([[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]), "game 0, player_1: action 1"),
    ],
)
def test_bad_actions_name_game_and_seat_and_change_nothing(actions, message):
    engine = VectorMiaui(4, num_players=4, seed=0)
    engine.step(np.ones((4, 4), dtype=np.int64))  # everyone plays diver card 2
    before = engine_snapshot(engine)
    with pytest.raises(IllegalActionError, match=message):
        engine.step(actions if message != "game 0, player_1: action 1" else np.where(np.arange(4) == 1, 1, 0)[None].repeat(4, 0))
    assert engine_snapshot(engine) == before


@pytest.mark.parametrize("as_given", [lambda a: a.astype(">i8"), lambda a: a.astype(np.int16), np.asfortranarray, lambda a: a.tolist()])
def test_actions_of_any_integer_type_byte_order_or_layout_play_alike(as_given):
    native, other = VectorMiaui(8, num_players=4, seed=3), VectorMiaui(8, num_players=4, seed=3)
    rng = np.random.default_rng(0)
    masks = native.action_masks()
    for _ in range(2 * NUM_ROUNDS):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=2)
        obs, masks, rewards, _, _ = native.step(actions)
        other_obs, _, other_rewards, _, _ = other.step(as_given(actions))
        np.testing.assert_array_equal(obs, other_obs)
        np.testing.assert_array_equal(rewards, other_rewards)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2, "num_players": 7}, "num_players=7"),
        ({"num_envs": 2, "view": "x"}, "view"),
        ({"num_envs": 2, "reward": "x"}, "reward"),
        ({"num_envs": 2, "autoreset": "no"}, "autoreset must be True or False, got 'no'"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        VectorMiaui(**kwargs)


def test_same_seed_same_games():
    def play(seed: int) -> list[np.ndarray]:
        engine = VectorMiaui(8, num_players=5, no_fighting=True, seed=seed)
        rng = np.random.default_rng(0)
        masks, seen = engine.action_masks(), []
        for _ in range(22):
            obs, masks, rewards, _, _ = engine.step(np.argmax(rng.random(masks.shape) * masks, axis=2))
            seen += [obs.copy(), rewards]
        return seen

    a, b, c = play(3), play(3), play(4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.oracle
def test_deal_kernel_matches_the_rules_on_stacked_decks():
    """R4: round 1's Seagull replacement, as rules.deal_from does it, on decks stacked to meet it often."""
    config = GameConfig()
    kind = np.array([FISH_KINDS.index(c.kind) for c in config.deck])
    seagulls = np.flatnonzero(kind == FISH_KINDS.index(FishKind.SEAGULL))
    rng = np.random.default_rng(0)
    orders = np.stack([rng.permutation(DECK_SIZE) for _ in range(3000)])
    for row in orders[:1000]:  # Seagulls right on top: long chains of replacements
        for top, gull in enumerate(seagulls[:3], start=1):
            where = np.flatnonzero(row == gull)[0]
            row[top], row[where] = row[where], row[top]
    uniforms = rng.random((3000, DEAL_UNIFORMS))
    uniforms[::7, DECK_SIZE : DECK_SIZE + 3] = 0.0  # put back on top: drawn again at once
    placement = np.empty((3000, DECK_SIZE - 1), dtype=np.int16)
    rule_kernels.deal_games(uniforms, orders, placement, kind, FISH_KINDS.index(FishKind.SEAGULL), 0, 3000)
    for g in range(3000):
        assert placement[g].tolist() == deal_from(config, uniforms[g], orders[g].tolist())[1]


@pytest.mark.oracle
def test_deal_kernel_shuffles_as_the_rules_do_even_with_equal_uniforms():
    """R3: the shuffle is the stable argsort of the deal's uniforms; equal ones keep their order."""
    config = GameConfig()
    kind = np.array([FISH_KINDS.index(c.kind) for c in config.deck])
    rng = np.random.default_rng(1)
    uniforms = rng.random((3000, DEAL_UNIFORMS))
    uniforms[::3, 5] = uniforms[::3, 30]  # ties, the later index first in the row
    uniforms[1::3, :DECK_SIZE] = np.round(uniforms[1::3, :DECK_SIZE], 1)  # many ties, in every bucket
    uniforms[2::6, :DECK_SIZE] = np.nextafter(1.0, 0.0)  # all equal, in the last bucket
    uniforms[5::6, :4] = 0.0
    placement = np.empty((3000, DECK_SIZE - 1), dtype=np.int16)
    unstacked = np.full((3000, DECK_SIZE), -1)
    rule_kernels.deal_games(uniforms, unstacked, placement, kind, FISH_KINDS.index(FishKind.SEAGULL), 0, 3000)
    for g in range(3000):
        assert placement[g].tolist() == deal_from(config, uniforms[g])[1]


def test_equal_slot_seeds_deal_equal_games():
    engine = VectorMiaui(4, num_players=3)
    obs, _ = engine.reset(seeds=[9, 9, 10, 9])
    np.testing.assert_array_equal(obs[0], obs[1])
    np.testing.assert_array_equal(obs[0], obs[3])
    assert not np.array_equal(obs[0], obs[2])
    with pytest.raises(ValueError, match="one seed for each of the 4"):
        engine.reset(seeds=[1, 2])


def test_rule_kernels_know_nothing_of_the_observation():
    # The rules (R4-R9) are kept apart from the encoding: only encode_kernels may read the layout.
    tree = ast.parse(inspect.getsource(rule_kernels))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported == {"__future__", "numpy", "numba", "miaui_env.games.miaui.rules", "miaui_env.games.miaui.vector.state"}


def test_without_autoreset_the_ended_games_stay_until_new_ones_are_loaded():
    """autoreset=False (the envs' one game): the last step returns the final observations, the same
    games the autoresetting engine ends, and nothing plays on until new games are loaded."""
    from gymnasium.error import ResetNeeded

    kept, resetting = VectorMiaui(3, num_players=4, seed=9, autoreset=False), VectorMiaui(3, num_players=4, seed=9)
    rng = np.random.default_rng(1)
    for _ in range(NUM_ROUNDS - 1):  # the last card of round 12 is forced
        actions = np.argmax(rng.random((3, 4, 12)) * kept.action_masks(), axis=2)
        obs, masks, rewards, dones, infos = kept.step(actions)
        _, _, rewards_too, _, infos_too = resetting.step(actions)
        np.testing.assert_array_equal(rewards, rewards_too)
    assert dones.all() and (masks == 0).all()
    np.testing.assert_array_equal(obs, infos_too["final_observation"])
    np.testing.assert_array_equal(infos["scores"], infos_too["scores"])
    with pytest.raises(ResetNeeded, match="autoreset is off"):
        kept.step(actions)
    obs, masks = kept.reset(seed=9)
    assert masks.all() and kept.round == 1


def test_trusted_actions_play_as_checked_ones():
    checked, trusted = VectorMiaui(4, num_players=5, seed=2), VectorMiaui(4, num_players=5, seed=2)
    rng = np.random.default_rng(3)
    for _ in range(2 * (NUM_ROUNDS - 1)):
        actions = np.argmax(rng.random((4, 5, 12)) * checked.action_masks(), axis=2).astype(np.int64)
        for one, other in zip(checked.step(actions)[:4], trusted.step(actions, trusted=True)[:4], strict=True):
            np.testing.assert_array_equal(one, other)


@pytest.mark.parametrize(
    ("settings", "seat", "card", "message"),
    [
        ({}, 0, 0, "has a hand that does not hold 12 of the diver cards 1-12, as at round 1"),  # a 2 is no 0/1 flag
        ({"rounds": 3, "deck": effects_first_deck(3)}, 1, 4, "has a hand that does not hold 3 of the diver cards 1-3, as at round 1"),
    ],
)
def test_a_fresh_deal_with_a_hand_that_is_no_hand_is_refused(settings, seat, card, message):
    from miaui_env.core.errors import InvalidConfigError
    from miaui_env.games.miaui.rules import new_game

    engine = VectorMiaui(1, num_players=4, seed=0, **settings)
    state = new_game(engine.config, np.random.default_rng(0))
    state.hands[seat, card] = 2 if not settings else 1  # a short game's hand with a card past its rounds (MV1)
    if settings:
        state.hands[seat, 0] = 0  # (as many cards as it should hold)
    with pytest.raises(InvalidConfigError, match=rf"states\[0\] {message}"):
        engine.load_states([state])


def test_the_engines_state_is_read_through_read_only_views_that_follow_the_games():
    engine = VectorMiaui(3, num_players=4, seed=1)
    game, stats, seen = engine.game_arrays, engine.card_stats, engine.observations
    for array in (*game, stats, seen):
        with pytest.raises(ValueError, match="read-only"):
            array.flat[0] = 1
    np.testing.assert_array_equal(stats, encoder.stats_table(engine.config))
    rng = np.random.default_rng(2)
    for _ in range(3):
        obs, masks, *_ = engine.step(np.argmax(rng.random((3, 4, 12)) * engine.action_masks(), axis=2))
        snapshot = engine.snapshot()
        assert engine.game_arrays is game  # the same views, showing every step
        for view, copy in zip(game, snapshot.game, strict=True):
            np.testing.assert_array_equal(view, copy)
        np.testing.assert_array_equal(game.hands, masks)
        assert engine.observations.tobytes() == obs.tobytes() and np.shares_memory(engine.observations, obs)


def mid_game_state(rounds: int = 3):
    """A 4-player game after `rounds` rounds of everyone playing their highest card."""
    from miaui_env.games.miaui.rules import GameConfig, new_game, play_round

    state = new_game(GameConfig(4), np.random.default_rng(0))
    for _ in range(rounds):
        play_round(state, [int(np.flatnonzero(hand)[-1]) + 1 for hand in state.hands])
    return state


def fish_in_two_places(state):
    state.piles[0].append(state.deck[0])
    state.deck[1] = state.deck[0]


def fish_twice_in_a_fresh_deal(state):
    state.deck[5] = state.lagoon[0][0].card


def float_deck_index(state):
    state.deck[0] = 1.5


def float_put_back(state):
    state.put_back = float(state.put_back)


def float_round(state):
    state.round = 4.0


@pytest.mark.parametrize(
    ("rounds", "spoil", "message"),
    [
        (
            3,
            fish_in_two_places,
            r"states\[0\] holds card \d+ \(.*\) 3 times; deck, put_back, lagoon, piles and box together hold each card",
        ),
        (0, fish_twice_in_a_fresh_deal, r"states\[0\] holds card \d+ \(.*\) 2 times; .* exactly once \(R3\)"),
        (3, float_deck_index, r"states\[0\] holds card 1\.5; a card is an integer index into config\.deck, 0-36"),
        (0, float_deck_index, r"states\[0\] holds card 1\.5; a card is an integer index"),
        (3, float_put_back, r"states\[0\] holds card \d+\.0; a card is an integer index"),
        (3, float_round, r"states\[0\] has round=4\.0; a round is an integer from 1 to 12"),
    ],
    ids=["a fish in two places", "a card twice in a fresh deal", "deck index 1.5", "fresh deck index 1.5", "put_back a float", "round 4.0"],
)
def test_load_states_refuses_cards_out_of_place_and_floats_and_changes_nothing(rounds, spoil, message):
    from miaui_env.core.errors import InvalidConfigError

    engine = VectorMiaui(1, num_players=4, seed=0)
    state = mid_game_state(rounds)
    engine.load_states([state.clone()])  # the state as played loads
    spoil(state)
    before = engine_snapshot(engine)
    with pytest.raises(InvalidConfigError, match=message):
        engine.load_states([state])
    assert engine_snapshot(engine) == before


@pytest.mark.parametrize(
    "settings",
    [{"open_baskets": True, "no_fighting": True}, {"no_fighting": True}, {"open_baskets": True}, {"num_players": 3}],
    ids=["open baskets and no fighting", "no fighting", "open baskets", "another table"],
)
def test_restore_refuses_a_snapshot_of_an_engine_with_other_settings_and_changes_nothing(settings):
    from miaui_env.core.errors import InvalidConfigError

    engine, other = VectorMiaui(3, seed=0), VectorMiaui(3, seed=1, **settings)
    before = engine_snapshot(engine)
    with pytest.raises(InvalidConfigError, match=r"restore takes a snapshot of (this engine|an engine with this one's settings)"):
        engine.restore(other.snapshot())
    assert engine_snapshot(engine) == before
    alike = VectorMiaui(3, seed=2)
    alike.step(np.zeros((3, 4), dtype=np.int64))
    engine.restore(alike.snapshot())  # an engine with the same settings restores
    assert engine.round == 2


def test_the_engine_refuses_time_spans_as_actions():
    engine = VectorMiaui(2, num_players=3, seed=0)
    engine.reset()
    with pytest.raises(IllegalActionError, match="integer card indices 0-11, got dtype timedelta64"):
        engine.step(np.zeros((2, 3), dtype="m8[s]"))


def test_load_states_reads_any_integer_cards_and_refuses_a_bool():
    from miaui_env.core.errors import InvalidConfigError
    from miaui_env.games.miaui.rules import GameConfig, new_game

    state = new_game(GameConfig(4), np.random.default_rng(0))
    state.deck = [np.uint64(card) for card in state.deck]  # with the put-back int: numpy would make these floats
    engine = VectorMiaui(1, num_players=4)
    assert engine.load_states([state])[0].shape == (1, 4, engine.observations.shape[-1])
    state.deck = [True, *state.deck[1:]]
    with pytest.raises(InvalidConfigError, match=r"states\[0\] holds card True; a card is an integer index"):
        engine.load_states([state])
