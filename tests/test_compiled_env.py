"""The envs run on the compiled engine (one game of `VectorMiaui` behind each env); the pure
reference rules and encoder stay the definition. Random games of every configuration, played
through the AEC and the Parallel env and, beside them, through `rules.play_round` and
`encoder.Encoder` on a state of the test's own: every observation, mask, score, winner, round
record, reward and global state must be the same at every step. Observations, masks, scores,
winners and rewards come from the compiled engine; `state()` and the round records the envs build
by replaying the cards played through the rules, so those check the envs' bookkeeping (the
engine's own round records are checked in tests/test_vector.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gymnasium.utils import seeding
from helpers import effects_first_deck
from hypothesis import given, settings
from hypothesis import strategies as st

import miaui_env
from miaui_env.core.errors import REWARDS, final_rewards
from miaui_env.games.miaui.compact import compact_observations
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import VIEWS
from miaui_env.games.miaui.rules import new_game, play_round, scores, winners
from miaui_env.games.miaui.spec import TableSpec

pytestmark = pytest.mark.oracle

configurations = st.fixed_dictionaries(
    {
        "num_players": st.integers(3, 6),
        "open_baskets": st.booleans(),
        "no_fighting": st.booleans(),
        "view": st.sampled_from(["table", "recall"]),
        "reward": st.sampled_from(["win", "score", "margin"]),
        "observation_dtype": st.sampled_from(["float32", "uint8"]),
    }
)


class Reference:
    """The game as the pure rules and encoder play and show it, dealt as the env deals `seed`."""

    def __init__(self, kwargs: dict, seed: int):
        self.table_spec = TableSpec.of(**kwargs)
        self.game = new_game(self.table_spec.game, seeding.np_random(seed)[0])
        self.encoder = Encoder(self.table_spec.game, self.table_spec.view)
        self.encoder.refresh(self.game)

    def play(self, cards: list[int]) -> tuple:
        """One reveal: its records."""
        records = play_round(self.game, cards)
        self.encoder.refresh(self.game)
        return records

    def observation(self, seat: int) -> np.ndarray:
        observation = self.encoder.observe(seat)
        return compact_observations(observation) if self.table_spec.observation_dtype == "uint8" else observation

    def check(self, observations: dict, agents: list[str]) -> None:
        """Every seat's observation and mask are the reference's."""
        for seat, agent in enumerate(agents):  # bit for bit: -0.0 is not 0.0 here (compact codes expand to 0.0)
            assert observations[agent]["observation"].tobytes() == self.observation(seat).tobytes()
            np.testing.assert_array_equal(observations[agent]["action_mask"], self.game.hands[seat])

    def check_infos(self, infos: dict, agents: list[str], records: tuple) -> None:
        totals, winning = scores(self.game), winners(self.game) if self.game.is_over else ()
        for seat, agent in enumerate(agents):
            assert infos[agent]["score"] == totals[seat] and infos[agent]["winner"] == (seat in winning)
            assert infos[agent]["round_results"].records == records


def random_cards(game, rng: np.random.Generator) -> list[int]:
    return [int(rng.choice(np.flatnonzero(hand))) + 1 for hand in game.hands]


EVERY_CONFIGURATION = [
    dict(num_players=n, open_baskets=ob, no_fighting=nf, view=view, reward=reward, observation_dtype=dtype)
    for n, ob, nf, view, reward, dtype in itertools.product(range(3, 7), (False, True), (False, True), VIEWS, REWARDS, ("float32", "uint8"))
]


SHORT_GAMES = [  # MV1-MV3: 2, 3, 4 and 7 rounds, with their decks
    dict(num_players=3, rounds=2, deck=effects_first_deck(2), reward="score"),
    dict(num_players=4, rounds=3, deck=effects_first_deck(3), no_fighting=True, view="recall", observation_dtype="uint8"),
    dict(num_players=5, rounds=4, deck=effects_first_deck(4), open_baskets=True, reward="margin"),
    dict(num_players=6, rounds=7, deck=effects_first_deck(7), view="recall", reward="score"),
]


@pytest.mark.parametrize(
    "kwargs",
    EVERY_CONFIGURATION + SHORT_GAMES,
    ids=lambda kwargs: "-".join(f"{value}" if key != "deck" else "short" for key, value in kwargs.items()),
)
def test_both_envs_play_and_show_what_the_reference_does_in_every_configuration(kwargs):
    """One game a configuration through the AEC and the Parallel env, beside the pure rules and encoder."""
    seed = 7 * kwargs["num_players"] + 3 * kwargs.get("open_baskets", False) + kwargs.get("no_fighting", False) + kwargs.get("rounds", 0)
    aec, parallel = miaui_env.env(**kwargs), miaui_env.parallel_env(**kwargs)
    aec.reset(seed=seed)
    observations, _ = parallel.reset(seed=seed)
    reference, rng = Reference(kwargs, seed), np.random.default_rng(seed)
    agents = list(parallel.possible_agents)
    while not reference.game.is_over:
        reference.check(observations, agents)
        reference.check({agent: aec.observe(agent) for agent in agents}, agents)
        state = reference.encoder.state_vector(reference.game)
        np.testing.assert_array_equal(parallel.state(), state)
        np.testing.assert_array_equal(aec.state(), state)
        cards = random_cards(reference.game, rng)
        observations, rewards, _, _, infos = parallel.step({agent: card - 1 for agent, card in zip(agents, cards, strict=True)})
        for card in cards:
            aec.step(card - 1)
        records = reference.play(cards)
        reference.check_infos(infos, agents, records)
        reference.check_infos(aec.infos, agents, records)
    reference.check(observations, agents)
    expected = final_rewards(np.array(scores(reference.game)), reference.table_spec.reward).tolist()
    assert [rewards[agent] for agent in agents] == expected
    assert [aec.rewards[agent] for agent in agents] == expected


@settings(max_examples=40, deadline=None)
@given(kwargs=configurations, seed=st.integers(0, 2**31), play_seed=st.integers(0, 2**31))
def test_the_aec_env_plays_and_shows_what_the_reference_does(kwargs, seed, play_seed):
    env = miaui_env.env(**kwargs)
    env.reset(seed=seed)
    reference, rng = Reference(kwargs, seed), np.random.default_rng(play_seed)
    agents = list(env.possible_agents)
    while not reference.game.is_over:
        reference.check({agent: env.observe(agent) for agent in agents}, agents)
        np.testing.assert_array_equal(env.state(), reference.encoder.state_vector(reference.game))
        cards = random_cards(reference.game, rng)
        for card in cards:
            env.step(card - 1)
        records = reference.play(cards)
        reference.check_infos(env.infos, agents, records)
    reference.check({agent: env.observe(agent) for agent in agents}, agents)
    expected = final_rewards(np.array(scores(reference.game)), reference.table_spec.reward)
    assert [env.rewards[agent] for agent in agents] == expected.tolist()
    assert env.unwrapped.game.history == reference.game.history  # the env's own reference state, replayed from its plays


@settings(max_examples=40, deadline=None)
@given(kwargs=configurations, seed=st.integers(0, 2**31), play_seed=st.integers(0, 2**31))
def test_the_parallel_env_plays_and_shows_what_the_reference_does(kwargs, seed, play_seed):
    env = miaui_env.parallel_env(**kwargs)
    observations, _ = env.reset(seed=seed)
    reference, rng = Reference(kwargs, seed), np.random.default_rng(play_seed)
    agents = list(env.possible_agents)
    reference.check(observations, agents)
    while not reference.game.is_over:
        cards = random_cards(reference.game, rng)
        observations, rewards, terminations, _, infos = env.step({agent: card - 1 for agent, card in zip(agents, cards, strict=True)})
        records = reference.play(cards)
        reference.check(observations, agents)
        reference.check_infos(infos, agents, records)
        np.testing.assert_array_equal(env.state(), reference.encoder.state_vector(reference.game))
        assert all(terminations.values()) == reference.game.is_over
    expected = final_rewards(np.array(scores(reference.game)), reference.table_spec.reward)
    assert [rewards[agent] for agent in agents] == expected.tolist()


def test_round_results_are_written_when_read_and_keep_their_reveal():
    """A reveal's records come from the reference rules when first read, even games later; a copy
    holds the records themselves."""
    import pickle

    env = miaui_env.parallel_env(num_players=4)
    env.reset(seed=5)
    reference = Reference({"num_players": 4}, 5)
    rng = np.random.default_rng(0)
    kept = []
    while not reference.game.is_over:
        cards = random_cards(reference.game, rng)
        _, _, _, _, infos = env.step({f"player_{s}": c - 1 for s, c in enumerate(cards)})
        kept.append((infos["player_0"]["round_results"], reference.play(cards)))
    env.reset(seed=6)  # a new game: the old results still read their own
    env.step({agent: int(np.flatnonzero(env.game.hands[s])[0]) for s, agent in enumerate(env.agents)})
    for results, records in reversed(kept):
        assert results.records == records and list(results) == list(records)
        assert pickle.loads(pickle.dumps(results)) == results
    assert len(kept[-1][1]) == 2  # the last reveal: round 11 and the forced round 12
