"""The batched engine against the reference env: identical games, step by step."""

from __future__ import annotations

import ast
import inspect
import itertools

import numpy as np
import pytest
from helpers import stacked_deck

import miaui_env
from miaui_env import IllegalActionError
from miaui_env.cards import FISH_KINDS, FishKind
from miaui_env.rules import DEAL_UNIFORMS, DECK_SIZE, NUM_ROUNDS, GameConfig, deal_from
from miaui_env.vector import DECISIONS, VectorMiaui, rule_kernels

CONFIGS = list(itertools.product(range(3, 7), (False, True), (False, True)))
GAMES, EPISODES = 64, 4  # 256 games per configuration and view, 8192 in all


def reference_step(envs, actions):
    """Step every reference env with one game's joint action; stack what they return."""
    out = [env.step({f"player_{s}": int(a) for s, a in enumerate(row)}) for env, row in zip(envs, actions, strict=True)]
    return out


def stacked(per_env: list[dict], key: str) -> np.ndarray:
    return np.stack([np.stack([o[a][key] for a in sorted(o, key=lambda a: int(a.split("_")[1]))]) for o in per_env])


@pytest.mark.parametrize("view", ["table", "recall"])
@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), CONFIGS)
def test_batched_engine_plays_the_reference_games(n, open_baskets, no_fighting, view):
    reward = ("win", "score", "margin")[(n + open_baskets + 2 * no_fighting) % 3]
    kwargs = dict(num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, reward=reward)
    seed = 1000 * n + 10 * open_baskets + no_fighting
    engine = VectorMiaui(GAMES, seed=seed, **kwargs)
    refs = [miaui_env.parallel_env(**kwargs) for _ in range(GAMES)]
    first = [env.reset(seed=seed + i)[0] for i, env in enumerate(refs)]
    obs, masks = engine.reset(seed=seed)
    np.testing.assert_array_equal(obs, stacked(first, "observation"))
    np.testing.assert_array_equal(masks, stacked(first, "action_mask"))
    rng = np.random.default_rng(seed)
    for _ in range(EPISODES):
        for step in range(11):
            legal = masks.astype(bool)
            actions = np.argmax(rng.random(legal.shape) * legal, axis=2)
            obs, masks, rewards, dones, infos = engine.step(actions)
            results = [env.step({f"player_{s}": int(a) for s, a in enumerate(row)}) for env, row in zip(refs, actions, strict=True)]
            ref_obs = [r[0] for r in results]
            ref_rewards = np.array([[r[1][f"player_{s}"] for s in range(n)] for r in results], dtype=np.float32)
            np.testing.assert_array_equal(rewards, ref_rewards)
            assert dones.all() == (step == 10) and dones.any() == (step == 10)
            for rounds, ref_rounds in zip(
                infos["rounds"], zip(*(r[4]["player_0"]["round_results"] for r in results), strict=True), strict=True
            ):
                assert [rec.round for rec in ref_rounds] == [rounds.round] * GAMES
                np.testing.assert_array_equal(rounds.plays, [rec.plays for rec in ref_rounds])
                np.testing.assert_array_equal(
                    rounds.catchers, [[-1 if d.winner is None else d.winner for d in rec.depths] for rec in ref_rounds]
                )
                np.testing.assert_array_equal(rounds.best_cards, [[d.best_card or 0 for d in rec.depths] for rec in ref_rounds])
                assert [[DECISIONS[i] for i in row] for row in rounds.decisions.tolist()] == [
                    [d.decision for d in rec.depths] for rec in ref_rounds
                ]
            if step < 10:
                np.testing.assert_array_equal(obs, stacked(ref_obs, "observation"))
                np.testing.assert_array_equal(masks, stacked(ref_obs, "action_mask"))
                continue
            np.testing.assert_array_equal(infos["final_observation"], stacked(ref_obs, "observation"))
            np.testing.assert_array_equal(infos["final_action_mask"], stacked(ref_obs, "action_mask"))
            np.testing.assert_array_equal(infos["scores"], [[r[4][f"player_{s}"]["score"] for s in range(n)] for r in results])
            np.testing.assert_array_equal(infos["winners"], [[r[4][f"player_{s}"]["winner"] for s in range(n)] for r in results])
            restarted = [env.reset()[0] for env in refs]  # the next game of each slot: no seed, same stream
            np.testing.assert_array_equal(obs, stacked(restarted, "observation"))
            np.testing.assert_array_equal(masks, stacked(restarted, "action_mask"))


def test_stacked_decks_per_game_match_the_reference():
    decks = [
        stacked_deck([("tigerfish:7", "emperor_tuna:15", "lantern:5")]),
        None,
        stacked_deck([("seagull:0", "jellyfish:-15", "kittenfish:1", "tigerfish:6")]),
    ]
    engine = VectorMiaui(3, num_players=4, seed=5)
    obs, _ = engine.reset(seed=5, decks=decks)
    for i, deck in enumerate(decks):
        ref = miaui_env.parallel_env(num_players=4)
        ref_obs, _ = ref.reset(seed=5 + i, options={"deck": deck} if deck else None)
        np.testing.assert_array_equal(obs[i], stacked([ref_obs], "observation")[0])


def engine_snapshot(engine: VectorMiaui) -> tuple:
    return (engine._obs.tobytes(), engine._game.hands.tobytes(), engine._game.pile_stats.tobytes(), engine.round)


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
    assert imported == {"__future__", "numpy", "numba", "miaui_env.rules", "miaui_env.vector.state"}


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


def test_a_fresh_deal_with_a_hand_that_is_no_hand_is_refused():
    from miaui_env.rules import InvalidConfigError, new_game

    engine = VectorMiaui(1, num_players=4, seed=0)
    state = new_game(engine.config, np.random.default_rng(0))
    state.hands[0, 0] = 2
    with pytest.raises(InvalidConfigError, match=r"states\[0\] has a hand that does not hold the 12 diver cards left at round 1"):
        engine.load_states([state])
