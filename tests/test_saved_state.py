"""Game states copied, saved and loaded: `GameState.clone`, the JSON format of `saved_state`, and
the batched engine's `load_states` against the reference Encoder, step by step to the game's end."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import check_round_arrays, play, stacked_game
from hypothesis import given, settings
from hypothesis import strategies as st

from miaui_env.core.errors import InvalidConfigError, final_rewards
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishCard, FishKind
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.rules import (
    NUM_ROUNDS,
    GameConfig,
    GameState,
    JellyfishTriple,
    SeagullTheft,
    new_game,
    play_round,
    scores,
    winners,
)
from miaui_env.games.miaui.saved_state import STATE_FORMAT_VERSION, StateFormatError, load_state, save_state, state_from_dict, state_to_dict
from miaui_env.games.miaui.vector import VectorMiaui

CONFIGS = list(itertools.product(range(3, 7), (False, True), (False, True)))
FIELDS = [f.name for f in dataclasses.fields(GameState)]


def random_plays(state: GameState, rng: np.random.Generator) -> list[int]:
    """A random legal diver card for every seat."""
    return [int(rng.choice(state.legal_cards(seat))) for seat in range(state.num_players)]


def random_state(config: GameConfig, seed: int, target_round: int) -> GameState:
    """A game of random legal play from a seeded deal, stopped at `target_round` (round 12 is
    played with round 11, R6: a target of 12 or 13 is the finished game)."""
    rng = np.random.default_rng(seed)
    state = new_game(config, rng)
    while state.round < target_round:
        play_round(state, random_plays(state, rng))
    return state


def assert_same_state(loaded: GameState, original: GameState) -> None:
    for name in FIELDS:
        if name == "hands":
            assert loaded.hands.dtype == original.hands.dtype == np.int8
            np.testing.assert_array_equal(loaded.hands, original.hands)
        else:
            assert getattr(loaded, name) == getattr(original, name), name


def scripted_state(rounds_played: int = 4) -> GameState:
    """4 players, standard game: seat 0 sends three Jellyfish to the box in round 3, seat 1 loses its
    top fish to a Seagull in round 4, and seat 3's Lantern puts round 5's top card face-down (R5, R9)."""
    state = stacked_game(
        [
            ("jellyfish:-10", "tigerfish:6", "lantern:1"),
            ("jellyfish:-10", "tigerfish:7", "kittenfish:1"),
            ("jellyfish:-15", "tigerfish:8", "kittenfish:2"),
            ("emperor_tuna:15", "seagull:0", "lantern:3"),
        ],
        num_players=4,
    )
    play(state, *[(12, 11, 1, 5), (11, 10, 2, 6), (10, 9, 3, 7), (9, 8, 4, 1)][:rounds_played])
    return state


def test_the_scripted_state_holds_every_kind_of_record():
    state = scripted_state()
    assert state.round == 5
    assert isinstance(state.history[2].events[0], JellyfishTriple)
    assert state.history[3].events == (SeagullTheft(1, FishCard(FishKind.TIGERFISH, 8)),)
    assert state.lagoon[2][0].peeker == 3


# -- clone -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), [(3, False, False), (4, True, True), (6, False, True)])
def test_a_clone_is_equal_and_independent(n, open_baskets, no_fighting):
    config = GameConfig(n, open_baskets, no_fighting)
    for seed in range(8):
        state = random_state(config, seed, 2 + seed)
        before = copy.deepcopy(state)
        twin = state.clone()
        assert_same_state(twin, state)
        rng = np.random.default_rng(seed)
        play_round(twin, random_plays(twin, rng))  # the clone plays on...
        twin.deck.clear()
        twin.lagoon[0].clear()
        twin.hands[:] = 0
        for cards in (*twin.piles, *twin.played, twin.box, twin.history):
            cards.append(cards[0] if cards else 0)
        assert_same_state(state, before)  # ...and the original has not moved
        # A clone plays the same game as its original.
        twin, rng_a, rng_b = state.clone(), np.random.default_rng(seed), np.random.default_rng(seed)
        while not state.is_over:
            assert play_round(state, random_plays(state, rng_a)) == play_round(twin, random_plays(twin, rng_b))
        assert_same_state(twin, state)


# -- the JSON format ---------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), CONFIGS)
def test_a_saved_state_loads_equal_and_plays_on_identically(n, open_baskets, no_fighting, tmp_path):
    config = GameConfig(n, open_baskets, no_fighting)
    seed = 100 * n + 10 * open_baskets + no_fighting
    targets = [1, 13, *np.random.default_rng(seed).integers(1, NUM_ROUNDS + 1, size=4).tolist()]
    for k, target in enumerate(targets):
        state = random_state(config, seed + k, target)
        data = state_to_dict(state)
        text = json.dumps(data)
        assert json.loads(text) == data  # JSON-ready: nothing that JSON would change
        assert data["version"] == STATE_FORMAT_VERSION
        path = tmp_path / f"state{k}.json"
        save_state(state, path)
        copies = [state_from_dict(json.loads(text)), load_state(path), load_state(str(path))]
        for loaded in copies:
            assert_same_state(loaded, state)
        rng = np.random.default_rng(k)
        while not state.is_over:  # the same rounds played on the original and every copy
            plays = random_plays(state, rng)
            records = play_round(state, plays)
            for loaded in copies:
                assert play_round(loaded, plays) == records
        for loaded in copies:
            assert_same_state(loaded, state)
            assert scores(loaded) == scores(state) and winners(loaded) == winners(state)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"state{k}.json" for k in range(len(targets)))  # no temporaries


def test_save_state_replaces_a_file_whole(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("an older file")
    state = scripted_state()
    save_state(state, path)
    assert_same_state(load_state(path), state)
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    with pytest.raises(StateFormatError, match="No such file or directory"):  # a missing folder: nothing is left behind
        save_state(state, tmp_path / "missing" / "game.json")
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_a_state_of_another_deck_round_trips():
    deck = tuple(FishCard(c.kind, c.value + 1) if c.kind is FishKind.TIGERFISH else c for c in DEFAULT_DECK)
    state = random_state(GameConfig(5, deck=deck), 3, 6)
    assert_same_state(state_from_dict(state_to_dict(state)), state)


Mutation = Callable[[dict[str, Any]], Any]


def holder_of(data: dict[str, Any], path: tuple[str | int, ...]) -> tuple[Any, str | int]:
    """The dict or list that holds data[path] (a path of keys and indices), and its key there."""
    *parents, last = path
    holder: Any = data
    for key in parents:
        holder = holder[key]
    return holder, last


def put(path: tuple[str | int, ...], value: Any) -> Mutation:
    """Set data[path] to value."""

    def mutate(data: dict[str, Any]) -> None:
        holder, key = holder_of(data, path)
        holder[key] = value

    return mutate


def drop(path: tuple[str | int, ...]) -> Mutation:
    """Delete data[path]."""

    def mutate(data: dict[str, Any]) -> None:
        holder, key = holder_of(data, path)
        del holder[key]

    return mutate


def assert_refused(mutate: Mutation, message: str, path: Path) -> None:
    """The scripted state, changed by `mutate`, is refused with `message`: as data, and from the file
    `path`, whose name the error gives too."""
    data = state_to_dict(scripted_state())
    state_from_dict(copy.deepcopy(data))  # the scripted state itself loads
    mutate(data)
    with pytest.raises(StateFormatError, match=message):
        state_from_dict(data)
    path.write_text(json.dumps(data))
    with pytest.raises(StateFormatError, match=f"^{path}: .*" + message):
        load_state(path)


# Each malformed state: what is changed in the scripted state (4 players, round 5), and the error it gets.
MALFORMED = [
    ("version 2", put(("version",), 2), r"has format version 2; this library reads version 1 only"),
    ("version as text", put(("version",), "1"), r'has format version "1"; this library reads version 1'),
    ("version true", put(("version",), True), r"has format version true; this library reads version 1"),
    ("no version", drop(("version",)), r"has no 'version' key; this library reads state format version 1"),
    ("unknown key", put(("deck_order",), []), r"the saved state has unknown key 'deck_order'; its keys are version, config, round"),
    ("missing key", drop(("history",)), r"the saved state has no key 'history'; its keys are version, config"),
    ("table too large", put(("config", "num_players"), 7), r"config: num_players=7 is not allowed; Miaui is played by 3, 4, 5, 6"),
    ("table size a float", put(("config", "num_players"), 4.0), r"config: num_players must be an int from 3 to 6, got 4.0"),
    ("variant as text", put(("config", "open_baskets"), "yes"), r"config: open_baskets must be True or False, got 'yes'"),
    ("config key unknown", put(("config", "variant"), 1), r"config has unknown key 'variant'; its keys are num_players, open_baskets"),
    ("config key missing", drop(("config", "no_fighting")), r"config has no key 'no_fighting'"),
    ("deck card unknown", put(("config", "deck", 0), "whale:3"), r"config\.deck\[0\]: card 'whale:3' has unknown kind 'whale'"),
    ("deck card a number", put(("config", "deck", 0), 5), r"config\.deck\[0\] is 5; it must be a card written kind:value"),
    ("deck short", drop(("config", "deck", 0)), r"config: a deck must hold 37 cards \(R3\), got 36"),
    ("round 0", put(("round",), 0), r"round is 0; it must be an integer from 1 to 13 \(the round to play next"),
    ("round 14", put(("round",), 14), r"round is 14; it must be an integer from 1 to 13"),
    ("round as text", put(("round",), "5"), r'round is "5"; it must be an integer'),
    ("round true", put(("round",), True), r"round is true; it must be an integer"),
    ("round off by one", put(("round",), 6), r"deck holds 21 cards at round 6; it must hold 18 \(.*R4\)"),
    ("card past the deck", put(("deck", 0), 37), r"deck\[0\] is 37; it must be an integer from 0 to 36 \(an index into config\.deck\)"),
    ("card negative", put(("deck", 0), -1), r"deck\[0\] is -1; it must be an integer from 0 to 36"),
    ("card a float", put(("deck", 0), 3.0), r"deck\[0\] is 3\.0; it must be an integer"),
    (
        "card twice",
        lambda d: d["box"].__setitem__(0, d["deck"][0]),
        r"box\[0\] is card \d+ \(.+\), which deck\[0\] already holds; deck, put_back, lagoon, piles and box together hold each card",
    ),
    ("put back dealt", lambda d: d.__setitem__("put_back", d["deck"][3]), r"put_back is card \d+ \(.+\), which deck\[3\]"),
    ("card lost", lambda d: d["box"].pop(), r"cards \d+ \(.+\) are nowhere; deck, put_back, lagoon, piles and box"),
    ("deck short of a round", lambda d: d["box"].append(d["deck"].pop()), r"deck holds 20 cards at round 5; it must hold 21"),
    ("deck not a list", put(("deck",), {}), r"deck is \{\}; it must be a list of undealt cards"),
    ("lagoon of 2 spaces", drop(("lagoon", 2)), r"lagoon holds 2 items; it must hold 3: spaces, bottom first"),
    (
        "lagoon space of 2 cards",
        lambda d: d["lagoon"][0].append({"card": d["piles"][0].pop(), "peeker": None}),
        r"lagoon\[0\] holds 2 cards at round 5; it must hold exactly 1 \(R4 deals one a round and R7 catches every space\)",
    ),
    (
        "peeker not a seat",
        put(("lagoon", 2, 0, "peeker"), 4),
        r"lagoon\[2\]\[0\]\.peeker is 4; it must be an integer from 0 to 3 \(a seat of this 4-player game\), or null",
    ),
    ("peeker as text", put(("lagoon", 2, 0, "peeker"), "x"), r'lagoon\[2\]\[0\]\.peeker is "x"; it must be an integer'),
    ("lagoon card without peeker", drop(("lagoon", 0, 0, "peeker")), r"lagoon\[0\]\[0\] has no key 'peeker'; its keys are card, peeker"),
    ("lagoon card a number", put(("lagoon", 0, 0), 5), r"lagoon\[0\]\[0\] is 5; it must be an object with keys card, peeker"),
    ("piles of 5 seats", lambda d: d["piles"].append([]), r"piles holds 5 items; it must hold 4: entries, one per seat"),
    ("hands of 3 seats", drop(("hands", 3)), r"hands holds 3 items; it must hold 4"),
    ("hand of 11 flags", drop(("hands", 0, 0)), r"hands\[0\] holds 11 items; it must hold 12: flags \(0 or 1\)"),
    ("hand flag 2", put(("hands", 0, 0), 2), r"hands\[0\]\[0\] is 2; it must be 0 or 1 \(1: diver card 1 is in hand\)"),
    ("hand flag true", put(("hands", 0, 0), True), r"hands\[0\]\[0\] is true; it must be 0 or 1"),
    ("played card in hand", put(("hands", 0, 11), 1), r"hands\[0\]\[11\] is 1; played\[0\] lists diver card 12; a card is in hand exactly"),
    ("unplayed card out of hand", put(("hands", 0, 0), 0), r"hands\[0\]\[0\] is 0; played\[0\] does not list diver card 1"),
    ("played too few", drop(("played", 0, 3)), r"played\[0\] lists 3 diver cards at round 5; it must list 4 \(one a round played, R6\)"),
    ("played card 13", put(("played", 0, 0), 13), r"played\[0\]\[0\] is 13; it must be an integer from 1 to 12 \(a diver card\)"),
    ("played twice", put(("played", 0, 1), 12), r"played\[0\]\[1\] is diver card 12 again; each diver card is played at most once"),
    ("history too short", drop(("history", 3)), r"history holds 3 round records at round 5; it must hold 4 \(one per round played\)"),
    ("record out of order", put(("history", 0, "round"), 2), r"history\[0\]\.round is 2; record history\[0\] is round 1's"),
    ("record key missing", drop(("history", 1, "events")), r"history\[1\] has no key 'events'; its keys are round, plays, depths"),
    (
        "record plays disagree",
        put(("history", 1, "plays", 0), 1),
        r"history\[1\]\.plays is \[1, 10, 2, 6\]; played says the seats played \[11, 10, 2, 6\] in round 2",
    ),
    ("depths short", drop(("history", 0, "depths", 2)), r"history\[0\]\.depths holds 2 items; it must hold 3"),
    (
        "decision unknown",
        put(("history", 0, "depths", 1, "decision"), "coin_flip"),
        r'history\[0\]\.depths\[1\]\.decision is "coin_flip"; it must be one of "sole_best", "kiti", "no_fighting", "nobody_left"',
    ),
    (
        "depth misnamed",
        put(("history", 0, "depths", 0, "depth"), "bottom"),
        r'history\[0\]\.depths\[0\]\.depth is "bottom"; the depths are listed deepest, deep, shallow, so this one is "deepest"',
    ),
    (
        "depth out of order",
        put(("history", 0, "depths", 0, "depth"), "shallow"),
        r'depths\[0\]\.depth is "shallow"; .* so this one is "deepest"',
    ),
    ("depth key unknown", put(("history", 0, "depths", 0, "kiti"), 0), r"history\[0\]\.depths\[0\] has unknown key 'kiti'"),
    (
        "fish not in the deck",
        put(("history", 0, "depths", 0, "fish", 0), "seagull:5"),
        r'history\[0\]\.depths\[0\]\.fish\[0\] is "seagull:5"; it must be a card of config\.deck .*; config\.deck has no such card',
    ),
    ("fish of no kind", put(("history", 0, "depths", 0, "fish", 0), "whale:1"), r"fish\[0\]: card 'whale:1' has unknown kind 'whale'"),
    (
        "winner not a seat",
        put(("history", 0, "depths", 0, "winner"), 9),
        r"depths\[0\]\.winner is 9; it must be an integer from 0 to 3 \(a seat of this 4-player game\), or null \(nobody caught\)",
    ),
    ("best card 13", put(("history", 0, "depths", 0, "best_card"), 13), r"best_card is 13; it must be an integer from 1 to 12"),
    ("contender not a seat", put(("history", 0, "depths", 0, "contenders", 0), -1), r"contenders\[0\] is -1; it must be an integer"),
    (
        "tie order wrong",
        put(("history", 0, "deep_priority"), [0, 1, 2, 3]),
        r"history\[0\]\.deep_priority is \[0, 1, 2, 3\]; it must be \[0, 3, 2, 1\]: R1's order in round 1 of a 4-player game",
    ),
    (
        "event of no type",
        put(("history", 3, "events", 0, "type"), "whale_attack"),
        r'history\[3\]\.events\[0\]\.type is "whale_attack"; it must be one of "seagull_theft", "jellyfish_triple"',
    ),
    (
        "event without type",
        drop(("history", 3, "events", 0, "type")),
        r"history\[3\]\.events\[0\] is .*; it must be an object whose key 'type' is one of",
    ),
    (
        "theft by no seat",
        put(("history", 3, "events", 0, "seat"), 7),
        r"history\[3\]\.events\[0\]\.seat is 7; it must be an integer from 0 to 3",
    ),
    (
        "theft of no card",
        put(("history", 3, "events", 0, "stolen"), "jellyfish:-99"),
        r"events\[0\]\.stolen is \"jellyfish:-99\"; .*no such card",
    ),
    (
        "theft key unknown",
        put(("history", 3, "events", 0, "cards"), []),
        r"history\[3\]\.events\[0\] has unknown key 'cards'; its keys are type",
    ),
    ("triple of two", drop(("history", 2, "events", 0, "cards", 2)), r"history\[2\]\.events\[0\]\.cards holds 2 items; it must hold 3"),
]


@pytest.mark.parametrize(("mutate", "message"), [pytest.param(m, msg, id=name) for name, m, msg in MALFORMED])
def test_a_malformed_state_is_refused_with_what_is_wrong(mutate, message, tmp_path):
    assert_refused(mutate, message, tmp_path / "bad.json")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], r"the saved state is \[\]; it must be a JSON object"),
        ("state", r'the saved state is "state"; it must be a JSON object'),
        (None, r"the saved state is null"),
    ],
)
def test_a_state_that_is_not_an_object_is_refused(data, message):
    with pytest.raises(StateFormatError, match=message):
        state_from_dict(data)


def test_no_fighting_states_are_checked_by_their_own_rules():
    state = random_state(GameConfig(4, no_fighting=True), 11, 6)
    data = state_to_dict(state)
    data["history"][0]["deep_priority"] = [0, 3, 2, 1]
    with pytest.raises(StateFormatError, match=r"deep_priority is \[0, 3, 2, 1\]; it must be \[\]: No Fighting has no Kiti \(R8\)"):
        state_from_dict(data)
    data = state_to_dict(state)
    data["lagoon"][1] += [{"card": card, "peeker": None} for card in data["box"] + [c for pile in data["piles"] for c in pile]]
    data["box"], data["piles"] = [], [[] for _ in data["piles"]]
    with pytest.raises(
        StateFormatError, match=r"lagoon\[1\] holds \d+ cards at round 6; it must hold from 1 .* to 6 \(one dealt a round, R8\)"
    ):
        state_from_dict(data)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", r"is not valid JSON \(.*\); a saved state is one JSON object"),
        (b"\xff\xfe\x00garbage", r"is not valid JSON"),
        (b"", r"is not valid JSON"),
    ],
)
def test_a_file_that_is_not_json_is_refused(content, message, tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(content)
    with pytest.raises(StateFormatError, match=message):
        load_state(path)


def test_the_saved_state_module_loads_no_rl_library():
    # It sits beside the rules (pyproject's layers): pure logic, importable without the RL stack.
    code = "import json, sys, miaui_env.games.miaui.saved_state; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    root = Path(__file__).parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert loaded & {"pettingzoo", "gymnasium", "torch", "stable_baselines3", "sb3_contrib", "ray", "numba"} == set()


# -- the batched engine ------------------------------------------------------------------------
def reference_observations(encoders: list[Encoder], states: list[GameState]) -> np.ndarray:
    """(B, n, 620): every seat's observation as the reference Encoder shows it."""
    observations = []
    for encoder, state in zip(encoders, states, strict=True):
        encoder.refresh(state)
        observations.append([encoder.observe(seat) for seat in range(state.num_players)])
    return np.array(observations)


def load_and_play_out(engine: VectorMiaui, states: list[GameState], rng: np.random.Generator) -> None:
    """Load `states` and play them to the end in the engine and in the rules (on clones), with the
    same random legal cards: everything the engine returns must be what the reference shows."""
    saved = [state_to_dict(state) for state in states]
    obs, masks = engine.load_states(states)
    assert engine.round == states[0].round
    games = [state.clone() for state in states]
    encoders = [Encoder(engine.config, engine.view) for _ in states]
    np.testing.assert_array_equal(obs, reference_observations(encoders, games))
    np.testing.assert_array_equal(masks, [game.hands for game in games])
    while True:
        actions = np.argmax(rng.random(masks.shape) * masks, axis=2)
        obs, masks, rewards, dones, infos = engine.step(actions)
        records = [play_round(game, (row + 1).tolist()) for game, row in zip(games, actions, strict=True)]
        check_round_arrays(infos["rounds"], records)  # the round (and the forced round 12) as the rules resolved it
        expected = reference_observations(encoders, games)
        if not dones.any():
            np.testing.assert_array_equal(obs, expected)
            np.testing.assert_array_equal(masks, [game.hands for game in games])
            np.testing.assert_array_equal(rewards, 0.0)
            continue
        assert dones.all() and all(game.is_over for game in games)
        totals = np.array([scores(game) for game in games])
        np.testing.assert_array_equal(infos["final_observation"], expected)
        np.testing.assert_array_equal(infos["final_action_mask"], [game.hands for game in games])
        np.testing.assert_array_equal(infos["scores"], totals)
        np.testing.assert_array_equal(infos["winners"], [[seat in winners(game) for seat in range(game.num_players)] for game in games])
        np.testing.assert_array_equal(rewards, final_rewards(totals, engine.table_spec.reward).astype(np.float32))
        assert engine.round == 1 and masks.all()  # and the engine has dealt its next games
        break
    assert [state_to_dict(state) for state in states] == saved  # the engine kept no hold on the states


@pytest.mark.oracle
@pytest.mark.parametrize("view", ["table", "recall"])
@pytest.mark.parametrize(("n", "open_baskets", "no_fighting"), CONFIGS)
def test_loaded_states_play_as_the_reference_does(n, open_baskets, no_fighting, view):
    index = CONFIGS.index((n, open_baskets, no_fighting))
    reward = ("win", "score", "margin")[index % 3]
    engine = VectorMiaui(24, num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, reward=reward, seed=index)
    rng = np.random.default_rng(index)
    for round_number in (1, 2 + (index + (view == "recall")) % 9, NUM_ROUNDS - 1):  # rounds 2-10 between them
        states = [random_state(engine.config, 1000 * index + 100 * round_number + slot, round_number) for slot in range(24)]
        load_and_play_out(engine, states, rng)


@pytest.mark.oracle
@pytest.mark.parametrize("rounds_played", [1, 2, 3, 4])
def test_the_last_reveal_loads_with_its_peeks_thefts_and_triples(rounds_played):
    # Round 2: a face-down card from round 1's Lantern; round 4: round 3's Jellyfish triple; round 5:
    # round 4's Seagull theft and another face-down card. Each with random games beside it.
    scripted = scripted_state(rounds_played)
    for view in ("table", "recall"):
        engine = VectorMiaui(3, num_players=4, view=view, seed=rounds_played)
        others = [random_state(engine.config, seed, scripted.round) for seed in range(2)]
        load_and_play_out(engine, [others[0], scripted, others[1]], np.random.default_rng(rounds_played))


def test_a_loaded_engine_can_load_again_at_another_round():
    engine = VectorMiaui(4, num_players=5, no_fighting=True, seed=0)
    rng = np.random.default_rng(0)
    for round_number in (9, 3, 3, 11, 1):
        states = [random_state(engine.config, 10 * round_number + slot, round_number) for slot in range(4)]
        load_and_play_out(engine, states, rng)


def engine_snapshot(engine: VectorMiaui) -> tuple[Any, ...]:
    snapshot = engine.snapshot()
    arrays = [*snapshot.game, *snapshot.reveal, engine.observations]
    return (snapshot.round, *(array.tobytes() for array in arrays))


def other_deck_state() -> GameState:
    deck = tuple(FishCard(c.kind, c.value + 1) if c.kind is FishKind.TIGERFISH else c for c in DEFAULT_DECK)
    return random_state(GameConfig(4, deck=deck), 0, 3)


def short_deck_state() -> GameState:
    state = random_state(GameConfig(4), 0, 3)
    state.box.append(state.deck.pop())
    return state


def odd_card_state() -> GameState:
    state = random_state(GameConfig(4), 0, 3)
    state.box.append(99)
    return state


def odd_hand_state() -> GameState:
    state = random_state(GameConfig(4), 0, 3)
    state.hands[2, np.flatnonzero(state.hands[2] == 0)[0]] = 1
    return state


def odd_peeker_state() -> GameState:
    state = random_state(GameConfig(4), 0, 3)
    state.lagoon[1][0] = state.lagoon[1][0]._replace(peeker=4)
    return state


REFUSED = [
    (
        "mixed rounds",
        lambda: [3, 3, 5, 3],
        r"every state must be at the same round \(the engine plays its games in lockstep\); "
        r"got round 3 in slots 0, 1, 3; round 5 in slots 2",
    ),
    ("three states", lambda: [3, 3, 3], r"states must give one GameState for each of the 4 games, got 3"),
    (
        "five players",
        lambda: [3, random_state(GameConfig(5), 0, 3), 3, 3],
        r"states\[1\] is a game of 5 players, open_baskets=False, "
        r"no_fighting=False; this engine plays 4 players, open_baskets=False, no_fighting=False",
    ),
    (
        "another variant",
        lambda: [3, 3, random_state(GameConfig(4, no_fighting=True), 0, 3), 3],
        r"states\[2\] is a game of 4 players, "
        r"open_baskets=False, no_fighting=True; this engine plays",
    ),
    ("another deck", lambda: [3, 3, 3, other_deck_state()], r"states\[3\] is a game of 4 players, .*, another deck; this engine plays"),
    ("finished game", lambda: [3, 3, 13, 3], r"states\[2\] is a finished game \(round 13\); only games with a round left to play load"),
    ("not a state", lambda: [3, {"round": 3}, 3, 3], r"states\[1\] is a dict, not a rules\.GameState"),
    ("not a sequence", lambda: None, r"states must be a sequence of one rules\.GameState for each of the 4 games"),
    (
        "deck short",
        lambda: [3, 3, 3, short_deck_state()],
        r"states\[3\] is not a whole game state at round 3: .*27 undealt cards \(got 26\)",
    ),
    ("card not in the deck", lambda: [3, odd_card_state(), 3, 3], r"states\[1\] holds card 99; a card is an integer index"),
    ("hand too full", lambda: [3, 3, odd_hand_state(), 3], r"states\[2\] has a hand that does not hold 10 of the diver cards 1-12"),
    ("peeker not a seat", lambda: [odd_peeker_state(), 3, 3, 3], r"states\[0\] has a lagoon peeker that is no seat 0-3"),
]


@pytest.mark.parametrize(("states", "message"), [pytest.param(states, msg, id=name) for name, states, msg in REFUSED])
def test_refused_states_change_nothing(states, message):
    engine = VectorMiaui(4, num_players=4, seed=0)
    engine.step(np.argmax(engine.action_masks(), axis=2))  # something to lose: a game in round 2
    before = engine_snapshot(engine)
    given = states()
    if given is not None:  # a round number stands for a random state at that round
        given = [random_state(engine.config, slot, s) if isinstance(s, int) else s for slot, s in enumerate(given)]
    with pytest.raises(InvalidConfigError, match=message):
        engine.load_states(given)
    assert engine_snapshot(engine) == before


def test_a_restored_snapshot_plays_the_same_games_again():
    """A search restores one position for every playout: the same cards from it give the same games."""
    engine = VectorMiaui(16, num_players=5, open_baskets=True, seed=0)
    engine.load_states([random_state(engine.config, slot, 4) for slot in range(16)])
    snapshot = engine.snapshot()
    first_obs = engine.restore(snapshot)[0].copy()
    runs = []
    for _ in range(2):
        obs, masks = engine.restore(snapshot)
        assert np.array_equal(obs, first_obs)
        rng, steps = np.random.default_rng(3), []
        for _ in range(8):  # rounds 4-11, then the forced 12th
            actions = np.argmax(rng.random(masks.shape) * masks, axis=2)
            obs, masks, rewards, dones, infos = engine.step(actions)
            steps.append((infos["final_observation"] if dones.all() else obs).copy())
        runs.append((steps, infos["scores"], rewards))
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][0], runs[1][0], strict=True))
    assert np.array_equal(runs[0][1], runs[1][1]) and np.array_equal(runs[0][2], runs[1][2])
    # Without observing, restore writes no observations; the next step writes them all the same.
    after_step = []
    for observe in (True, False):
        assert (engine.restore(snapshot, observe=observe) is None) is not observe
        after_step.append(engine.step(np.argmax(engine.action_masks(), axis=2))[0].copy())
    assert np.array_equal(after_step[0], after_step[1])
    with pytest.raises(InvalidConfigError, match="restore takes a snapshot of this engine"):
        VectorMiaui(8, num_players=5, seed=0).restore(snapshot)


def moved(source: tuple[str | int, ...], target: tuple[str | int, ...]) -> Mutation:
    """Take the card at data[source] out of its list and append it to the list at data[target]."""

    def mutate(data: dict[str, Any]) -> None:
        holder, key = holder_of(data, source)
        card = holder.pop(key)
        holder, key = holder_of(data, target)
        holder[key].append(card)

    return mutate


def swapped(first: tuple[str | int, ...], second: tuple[str | int, ...]) -> Mutation:
    """Exchange the cards at data[first] and data[second]: every card still in exactly one place."""

    def mutate(data: dict[str, Any]) -> None:
        (a, i), (b, j) = holder_of(data, first), holder_of(data, second)
        a[i], b[j] = b[j], a[i]

    return mutate


def jellyfish_triple_kept(data: dict[str, Any]) -> None:
    """Seat 0 keeps the three Jellyfish R9 sent to the box in round 3."""
    data["piles"][0] = data["box"][:3] + data["piles"][0]
    data["box"] = data["box"][3:]


def pile_of_two_seats(data: dict[str, Any]) -> None:
    """Seat 1's two fish moved under seat 2's three: five fish after four rounds."""
    data["piles"][2] = data["piles"][1] + data["piles"][2]
    data["piles"][1] = []


# Each impossible state: a well-formed scripted state (4 players, round 5; see scripted_state) changed so
# that no play of the rules reaches it, every card still in exactly one place, and the error it gets.
IMPOSSIBLE = [
    ("three Jellyfish in a pile", jellyfish_triple_kept, r"piles\[0\] is .*; a pile never holds three Jellyfish.*\(R9\)"),
    ("a Seagull in a pile", moved(("box", 3), ("piles", 1)), r"piles\[1\] is .*; a pile never holds a Seagull.*\(R9\)"),
    ("more fish than rounds", pile_of_two_seats, r"piles\[2\] is .*; a seat catches one fish a round at most \(R7\), so after 4 rounds"),
    ("a box card never caught", swapped(("box", 4), ("deck", -1)), r"piles and box hold cards \d+ \(.*\), which no history record caught"),
    (
        "a caught fish in the deck",
        swapped(("piles", 2, 2), ("deck", 0)),
        r"piles and box hold cards \d+ \(.*\), which no history record caught",
    ),
    (
        "a peeker on the wrong seat",
        put(("lagoon", 2, 0, "peeker"), 0),
        r"lagoon\[2\] peekers is \[0\]; replaying the history gives \[3\].*\(R5\)",
    ),
    (
        "a face-down card not peeked",
        put(("lagoon", 2, 0, "peeker"), None),
        r"lagoon\[2\] peekers is \[null\]; replaying the history gives \[3\]",
    ),
    ("a peek without a Lantern", put(("lagoon", 0, 0, "peeker"), 2), r"lagoon\[0\] peekers is \[2\]; replaying the history gives \[null\]"),
    (
        "a winner without the best card",
        put(("history", 0, "depths", 0, "winner"), 1),
        r"history\[0\]\.depths\[0\]\.winner is 1; replaying the plays gives 0",
    ),
    (
        "a tie that was none",
        put(("history", 1, "depths", 1, "decision"), "kiti"),
        r"history\[1\]\.depths\[1\]\.decision is \"kiti\"; replaying",
    ),
    (
        "a theft of another card",
        put(("history", 3, "events", 0, "stolen"), "tigerfish:7"),
        r"history\[3\]\.events\[0\]\.stolen is \"tigerfish:7\"; replaying the plays gives \"tigerfish:8\"",
    ),
    (
        "the piles of two seats exchanged",
        swapped(("piles", 0), ("piles", 3)),
        r"piles\[0\] is \[\"lantern:3\"\]; replaying the history gives \[\"emperor_tuna:15\"\]",
    ),
    ("a card in two places", put(("box", 0), 0), r"is card 0 \(.*\), which .* already holds; .* each card exactly once"),
]


@pytest.mark.parametrize(("mutate", "message"), [pytest.param(m, msg, id=name) for name, m, msg in IMPOSSIBLE])
def test_a_state_the_rules_cannot_reach_is_refused_with_what_is_wrong(mutate, message, tmp_path):
    assert_refused(mutate, message, tmp_path / "impossible.json")


def test_a_face_down_card_in_round_one_is_refused():
    data = state_to_dict(scripted_state(rounds_played=0))
    data["lagoon"][1][0]["peeker"] = 2
    with pytest.raises(StateFormatError, match=r"lagoon\[1\]\[0\]\.peeker is 2; it must be null in round 1.*\(R5\)"):
        state_from_dict(data)


def test_a_seagull_dealt_in_round_one_is_refused():
    data = state_to_dict(scripted_state(rounds_played=0))
    seagull = next(i for i, name in enumerate(data["config"]["deck"]) if name.startswith("seagull"))
    at = data["deck"].index(seagull)
    data["deck"][at], data["lagoon"][2][0]["card"] = data["lagoon"][2][0]["card"], seagull
    with pytest.raises(StateFormatError, match=r"round 1 dealt a Seagull \(seagull:0\) to lagoon\[2\]; round 1 replaces Seagulls \(R4\)"):
        state_from_dict(data)


def test_no_fighting_fish_moved_from_a_pile_into_the_lagoon_are_refused():
    state = random_state(GameConfig(4, no_fighting=True), seed=3, target_round=7)
    seat = next(seat for seat, pile in enumerate(state.piles) if pile)
    data = state_to_dict(state)
    data["lagoon"][0].append({"card": data["piles"][seat].pop(), "peeker": None})
    with pytest.raises(StateFormatError, match=r"history\[\d+\]\.depths\[\d\]\.fish\[\d+\] \(.*\) lie in no pile and not in the box"):
        state_from_dict(data)


@given(
    n=st.integers(3, 6),
    open_baskets=st.booleans(),
    no_fighting=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    target_round=st.integers(1, 13),
)
@settings(max_examples=60, deadline=None)
def test_every_state_real_play_reaches_saves_and_loads_back_equal(n, open_baskets, no_fighting, seed, target_round):
    original = random_state(GameConfig(n, open_baskets, no_fighting), seed, target_round)
    assert_same_state(state_from_dict(json.loads(json.dumps(state_to_dict(original)))), original)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, r"nests JSON too deeply to read"),
        ('{"version": ' + "9" * 5000 + "}", r"is not valid JSON \(Exceeds the limit .* digits"),
    ],
    ids=["100,000 deep", "5000 digits"],
)
def test_json_no_parser_can_hold_is_refused(content, message, tmp_path):
    path = tmp_path / "hostile.json"
    path.write_text(content)
    with pytest.raises(StateFormatError, match=f"^{path} " + message):
        load_state(path)


@pytest.mark.parametrize("path", [None, 3, "", "game\0.json"], ids=["None", "a number", "empty", "a null byte"])
def test_a_path_that_names_no_file_is_refused(path, tmp_path):
    with pytest.raises(StateFormatError, match=r"^path is .*; it must be a file path \(a str or os.PathLike\)"):
        load_state(path)
    with pytest.raises(StateFormatError, match=r"^path is .*; it must be a file path"):
        save_state(scripted_state(), path)
    assert list(tmp_path.iterdir()) == []


def test_a_state_at_round_12_is_refused_since_round_12_is_played_with_round_11():
    data = state_to_dict(random_state(GameConfig(4), seed=3, target_round=11))
    data["round"] = 12
    with pytest.raises(StateFormatError, match=r"^round is 12; round 12 is played with round 11, its cards forced \(R6\)"):
        state_from_dict(data)
