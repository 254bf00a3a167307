"""The playing styles: each plays the card it claims, only legal ones, the same way for the same seed."""

from __future__ import annotations

import numpy as np
import pytest

from miaui_env.core.loading import AgentSpecError
from miaui_env.core.seeding import seed_children
from miaui_env.games.miaui.agents import AgentError, builtin_agents
from miaui_env.games.miaui.agents.heuristics import CountingAgent
from miaui_env.games.miaui.agents.loading import load_agent, load_agents
from miaui_env.games.miaui.agents.styles import (
    STYLE_AGENTS,
    AgentBatchError,
    ExtremesAgent,
    HighAgent,
    LowAgent,
    MiddleAgent,
    NoisyCountingAgent,
    rounds_of,
)
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.vector import VectorMiaui
from miaui_env.games.miaui.web import agent_menu

STYLES = [style.name for style in STYLE_AGENTS]


def hand(*cards: int) -> np.ndarray:
    """A (1, 12) mask holding diver cards `cards` (1-12): action k is card k + 1."""
    mask = np.zeros((1, 12), dtype=np.int8)
    mask[0, [card - 1 for card in cards]] = 1
    return mask


def round_one_row() -> np.ndarray:
    """One seat's real round-1 observation, (1, 620)."""
    observations, _ = VectorMiaui(1, num_players=4, seed=0).reset()
    return observations[0, :1]


def legal_range(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's lowest and highest legal card index."""
    legal = masks > 0
    return np.argmax(legal, axis=1), 11 - np.argmax(legal[:, ::-1], axis=1)


def test_styles_load_by_name_everywhere_built_in_names_are_listed():
    for style in STYLE_AGENTS:
        agent = load_agent(style.name, seed=3)
        assert type(agent) is style and agent.name == style.name and builtin_agents()[style.name] is style
    assert [agent.name for agent in load_agents(STYLES, seed=0)] == STYLES
    assert set(STYLES) <= {choice.name for choice in agent_menu()}  # the browser app offers them
    with pytest.raises(AgentSpecError, match=r"'extremes' is a built-in agent"):
        load_agent("extremes@sample")
    built_in = r"is not a built-in \(random, greedy, counter, search, high, low, extremes, middle, noisy-counter\)"
    with pytest.raises(AgentSpecError, match=built_in):
        load_agent("hihg")


def test_each_style_chooses_its_card_from_a_hand_built_hand():
    row = round_one_row()
    assert rounds_of(row).tolist() == [1]
    even, odd = hand(2, 5, 7, 11), hand(2, 5, 7)
    assert HighAgent(0).act(row, even).tolist() == [10] and LowAgent(0).act(row, even).tolist() == [1]
    assert ExtremesAgent(0).act(row, even).tolist() == [10]  # round 1 is odd: its highest
    assert MiddleAgent(0).act(row, odd).tolist() == [4]
    many = np.repeat(row, 400, axis=0)
    assert set(MiddleAgent(0).act(many, np.repeat(even, 400, axis=0)).tolist()) == {4, 6}  # either middle card of an even hand
    assert HighAgent(0).act(row, hand(3)).tolist() == LowAgent(0).act(row, hand(3)).tolist() == [2]


def test_the_styles_read_the_hand_and_round_of_a_real_second_round():
    engine = VectorMiaui(1, num_players=3, seed=0)
    engine.reset()
    observations, masks, *_ = engine.step(np.array([[11, 0, 5]]))  # seat 0 plays its 12, seat 1 its 1, seat 2 its 6
    rows, masks = observations[0], masks[0]
    assert rounds_of(rows).tolist() == [2, 2, 2]
    assert HighAgent(0).act(rows, masks).tolist() == [10, 11, 11]
    assert LowAgent(0).act(rows, masks).tolist() == [0, 1, 0]
    assert ExtremesAgent(0).act(rows, masks).tolist() == [0, 1, 0]  # round 2 is even: its lowest
    assert MiddleAgent(0).act(rows, masks).tolist() == [5, 6, 6]  # the median of 1-11, of 2-12, of 1-5 and 7-12 (7)


@pytest.mark.parametrize(
    ("n", "open_baskets", "no_fighting", "view"),
    [(3, False, False, "table"), (4, True, True, "recall"), (5, False, True, "table"), (6, True, False, "recall")],
)
def test_styles_play_only_legal_cards_and_what_they_claim_over_whole_games(n, open_baskets, no_fighting, view):
    engine = VectorMiaui(32, num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, seed=n)
    agents = {name: load_agent(name, seed=n) for name in STYLES}
    observations, masks = engine.reset()
    for step in range(22):  # two games: engine.step raises on any illegal card
        seat = step % n  # each style plays every seat in turn; the other seats are played by `middle`
        rows, row_masks = observations.reshape(-1, OBSERVATION_LAYOUT.size), masks.reshape(-1, 12)
        lowest, highest = legal_range(row_masks)
        held = row_masks.sum(axis=1)
        played = {name: agent.act(rows, row_masks) for name, agent in agents.items()}
        for name, cards in played.items():
            assert cards.dtype == np.int64 and row_masks[np.arange(len(cards)), cards].all(), name
        assert (played["high"] == highest).all() and (played["low"] == lowest).all()
        odd = rounds_of(rows) % 2 == 1
        assert (played["extremes"] == np.where(odd, highest, lowest)).all()
        rank = np.cumsum(row_masks > 0, axis=1)[np.arange(len(rows)), played["middle"]] - 1  # 0-based, lowest first
        assert ((rank == (held - 1) // 2) | ((held % 2 == 0) & (rank == held // 2))).all()
        actions = played["middle"].reshape(32, n).copy()
        actions[:, seat] = played[STYLES[step % len(STYLES)]].reshape(32, n)[:, seat]
        observations, masks, *_ = engine.step(actions)


def test_noisy_counter_plays_the_counter_but_a_random_card_in_about_30_percent_of_decisions():
    observations, masks = VectorMiaui(500, num_players=4, seed=1).reset()
    rows, row_masks = observations.reshape(-1, OBSERVATION_LAYOUT.size), masks.reshape(-1, 12)
    noisy = NoisyCountingAgent(7)
    plain = CountingAgent(seed_children(7, 2)[0])  # the noisy counter's own counter, seeded alike
    differ = (noisy.act(rows, row_masks) != plain.act(rows, row_masks)).mean()
    # A random card of a 12-card hand is the counter's own in 1 of 12 draws: 0.3 * 11/12 = 0.275 expected (sd 0.005).
    assert 0.255 < differ < 0.295
    assert (noisy.counter.opponent_cards(rows) == plain.opponent_cards(rows)).all()  # it saw every row
    noisy.reset()
    assert noisy.counter._seen is None


@pytest.mark.parametrize("name", STYLES)
def test_a_style_plays_the_same_games_for_the_same_seed(name):
    def cards_played(seed):
        engine = VectorMiaui(64, num_players=4, seed=2)
        agent = load_agent(name, seed=seed)
        observations, masks = engine.reset()
        played = []
        for _ in range(11):
            cards = agent.act(observations.reshape(-1, OBSERVATION_LAYOUT.size), masks.reshape(-1, 12)).reshape(64, 4)
            played.append(cards)
            observations, masks, *_ = engine.step(cards)
        return np.stack(played)

    first = cards_played(5)
    assert (first == cards_played(5)).all()
    if name in ("middle", "noisy-counter"):  # the seeded styles: another seed plays otherwise
        assert (first != cards_played(6)).any()


@pytest.mark.parametrize("name", STYLES)
def test_a_style_refuses_a_batch_it_cannot_play(name):
    agent = load_agent(name, seed=0)
    row = round_one_row()
    with pytest.raises(AgentError, match=r"masks of shape \(1, 12\), one per row; got dtype int8 shape \(12,\)"):
        agent.act(row, hand(1, 2)[0])
    with pytest.raises(AgentError, match=r"masks of shape \(2, 12\), one per row; got dtype int8 shape \(1, 12\)"):
        agent.act(np.repeat(row, 2, axis=0), hand(1, 2))
    with pytest.raises(AgentBatchError, match=r"row 1 of the masks allows no card"):
        agent.act(np.repeat(row, 2, axis=0), np.concatenate([hand(3), hand()]))
