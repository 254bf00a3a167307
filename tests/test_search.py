"""The regret-matching search agent: legal, seeded, blind to what its seat cannot know, and stronger than random."""

from __future__ import annotations

import numpy as np
import pytest

from miaui_env.core.arena import summarize
from miaui_env.core.errors import InvalidConfigError
from miaui_env.games.miaui.agents import RandomAgent, checked_actions
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.agents.search import RegretMatchingSearchAgent
from miaui_env.games.miaui.arena import ArenaConfig, play
from miaui_env.games.miaui.belief import SeatKnowledge
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.rules import GameConfig, new_game, play_round
from miaui_env.games.miaui.vector import VectorMiaui

SMALL = {"worlds": 2, "iterations": 2}


def _game_as_seen(config, deal, others_plays, agent, seat):
    """Play a game from `deal` in which `agent` holds `seat` and the other seats play `others_plays`;
    the agent's cards, one per round."""
    state = new_game(config, np.random.default_rng(0), deal)
    encoder = Encoder(config)
    chosen = []
    for plays in others_plays:
        encoder.refresh(state)
        card = int(checked_actions(agent, encoder.observe(seat)[None], state.hands[seat][None])[0])
        chosen.append(card)
        joint = list(plays)
        joint[seat] = card + 1
        play_round(state, joint)
    return chosen


def _scripted_others(config, seed):
    """Cards for the other seats that do not depend on the deal: each seat's hand in a fixed shuffled order."""
    rng = np.random.default_rng(seed)
    orders = [rng.permutation(12) + 1 for _ in range(config.num_players)]
    return [[int(order[r]) for order in orders] for r in range(11)]


@pytest.mark.parametrize("config", [GameConfig(4), GameConfig(3, no_fighting=True), GameConfig(5, open_baskets=True)], ids=str)
def test_search_choices_ignore_what_its_seat_cannot_know(config):
    """Two games that differ only where the seat cannot see (deck order, the put-back card,
    face-down cards others peeked) get the same cards from the same-seeded agent."""
    seat = 1
    others = _scripted_others(config, 3)
    true_deal = [int(i) for i in np.random.default_rng(11).permutation(37)]
    # The seat's view of the true game, to draw an alternative deal it cannot tell apart.
    mine = _game_as_seen(config, true_deal, others, RegretMatchingSearchAgent(0, **SMALL), seat)
    state = new_game(config, np.random.default_rng(0), true_deal)
    encoder, knowledge = Encoder(config), SeatKnowledge()
    for plays in others[:6]:
        encoder.refresh(state)
        knowledge.observe(encoder.observe(seat))
        joint = list(plays)
        joint[seat] = mine[len(state.history)] + 1
        play_round(state, joint)
    encoder.refresh(state)
    knowledge.observe(encoder.observe(seat))
    alternative = knowledge.sample(np.random.default_rng(5)).deal
    assert (alternative[0], alternative[22:]) != (state.put_back, state.deck)  # the hidden cards did move
    first = _game_as_seen(config, true_deal, others[:7], RegretMatchingSearchAgent(0, **SMALL), seat)
    second = _game_as_seen(config, alternative, others[:7], RegretMatchingSearchAgent(0, **SMALL), seat)
    assert first == second == mine[:7]


@pytest.mark.parametrize(
    ("n", "open_baskets", "no_fighting", "view"), [(3, False, False, "table"), (4, True, True, "recall"), (6, False, True, "table")]
)
def test_search_plays_only_legal_cards(n, open_baskets, no_fighting, view):
    engine = VectorMiaui(6, num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, seed=n)
    agent = RegretMatchingSearchAgent(0, worlds=1, iterations=1)
    obs, masks = engine.reset()
    for _ in range(22):  # two games: engine.step raises on any illegal card
        actions = agent.act(obs.reshape(-1, obs.shape[-1]), masks.reshape(-1, 12)).reshape(6, n)
        assert masks[np.arange(6)[:, None], np.arange(n), actions].all()
        obs, masks, *_ = engine.step(actions)


def test_search_plays_legal_cards_and_follows_its_seed():
    config = ArenaConfig(num_players=3, games=24, seed=5, batch_games=12)
    runs = [play([RegretMatchingSearchAgent(1, **SMALL), RandomAgent(2)], "gauntlet", config) for _ in range(2)]
    for a, b in zip(runs[0], runs[1], strict=True):
        assert np.array_equal(a, b)
    other = play([RegretMatchingSearchAgent(9, **SMALL), RandomAgent(2)], "gauntlet", config)
    assert not np.array_equal(runs[0][1], other[1])  # another seed searches other worlds


def test_search_beats_random():
    config = ArenaConfig(num_players=4, games=96, seed=123)
    seats, scores, winners = play([RegretMatchingSearchAgent(0, **SMALL), RandomAgent(1)], "gauntlet", config)
    search = summarize(["search", "random"], seats, scores, winners, 4)[0]
    assert search.win_share - search.win_share_ci > 0.25  # above the fair share of four seats


def test_search_is_a_builtin_agent():
    agent = load_agent("search", seed=0)
    assert isinstance(agent, RegretMatchingSearchAgent) and agent.name == "search"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"worlds": 0}, "worlds=0"),
        ({"worlds": 10**6}, "worlds=1000000 is not allowed; it must be at most 1024"),  # refused now, not at the first act()
        ({"iterations": 2.5}, "iterations=2.5"),
        ({"prior_weight": -1}, "prior_weight=-1"),
        ({"max_games": 0}, "max_games=0"),
        ({"play": "greedy"}, "play='greedy'"),
        ({"utility": "points"}, "reward='points'"),
        ({"rollout": "counter"}, "rollout='counter' is a name"),
    ],
)
def test_bad_search_settings_are_refused(kwargs, message):
    with pytest.raises(InvalidConfigError if "rollout" not in kwargs else ValueError, match=message):
        RegretMatchingSearchAgent(0, **kwargs)


@pytest.mark.parametrize(
    ("spec", "message"), [("search+", "name the prior after 'search\\+'"), ("search+nothing", "'nothing' is not a built-in")]
)
def test_a_policy_search_spec_names_a_loadable_prior(spec, message):
    from miaui_env.core.loading import AgentSpecError

    with pytest.raises(AgentSpecError, match=message):
        load_agent(spec, seed=0)


def test_policy_search_is_named_for_its_prior():
    agent = load_agent("search+greedy", seed=0)
    assert isinstance(agent, RegretMatchingSearchAgent) and agent.name == "search+greedy" and agent.prior.name == "greedy"
