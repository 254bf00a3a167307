"""The baseline agents: legal play everywhere, depth values from the rulebook, and the ladder."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import stacked_deck

import miaui_env
from miaui_env.core.arena import gauntlet_significance, summarize
from miaui_env.games.miaui.agents import RandomAgent, builtin_agents
from miaui_env.games.miaui.agents.heuristics import CountingAgent, GreedyAgent, depth_values, winning_chances
from miaui_env.games.miaui.arena import ArenaConfig, play
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.vector import VectorMiaui


@pytest.mark.parametrize("name", ["random", "greedy", "counter"])
@pytest.mark.parametrize(
    ("n", "open_baskets", "no_fighting", "view"),
    [(3, False, False, "table"), (4, True, True, "recall"), (5, False, True, "table"), (6, True, False, "table")],
)
def test_agents_only_play_legal_cards(name, n, open_baskets, no_fighting, view):
    engine = VectorMiaui(64, num_players=n, open_baskets=open_baskets, no_fighting=no_fighting, view=view, seed=n)
    agent = builtin_agents()[name](0)
    obs, masks = engine.reset()
    for _ in range(33):  # three games: engine.step raises on any illegal card
        actions = agent.act(obs.reshape(-1, obs.shape[-1]), masks.reshape(-1, 12)).reshape(64, n)
        assert masks[np.arange(64)[:, None], np.arange(n), actions].all()
        obs, masks, *_ = engine.step(actions)


def observation_after(rounds, plays, seat):
    """player `seat`'s observation after `plays` with a stacked deck."""
    env = miaui_env.parallel_env(num_players=4)
    obs, _ = env.reset(options={"deck": stacked_deck(rounds)})
    for joint in plays:
        obs, *_ = env.step({f"player_{s}": card - 1 for s, card in enumerate(joint)})
    return obs[f"player_{seat}"]["observation"][None]


def test_depth_values_follow_the_fish_effects():
    # player_0 holds a Jellyfish (-15) on top; round 2 offers a Seagull, a Tuna and a Jellyfish.
    rounds = [("jellyfish:-15", "tigerfish:8", "kittenfish:2"), ("seagull:0", "emperor_tuna:13", "jellyfish:-10")]
    values = depth_values(observation_after(rounds, [(12, 11, 6, 1)], seat=0))
    assert values[0].tolist() == pytest.approx([15.0, 13.0, -10.0])  # the Seagull would take the Jellyfish
    values = depth_values(observation_after(rounds, [(12, 11, 6, 1)], seat=2))
    assert values[0].tolist() == pytest.approx([0.0, 13.0, -10.0])  # nothing for it to steal


def test_a_third_jellyfish_is_worth_the_two_it_takes_away():
    rounds = [
        ("jellyfish:-15", "tigerfish:8", "kittenfish:2"),
        ("jellyfish:-10", "tigerfish:6", "kittenfish:3"),
        ("jellyfish:-10", "tigerfish:7", "kittenfish:4"),
    ]
    values = depth_values(observation_after(rounds, [(12, 11, 6, 1), (11, 10, 5, 2)], seat=0))
    assert values[0, 0] > 20  # about the two it holds (-25), not the -10 it shows


def test_an_unpeeked_face_down_card_is_worth_the_deck_average():
    rounds = [("emperor_tuna:14", "tigerfish:8", "lantern:5"), ("kittenfish:2", "tigerfish:6", "emperor_tuna:15")]
    peeker = depth_values(observation_after(rounds, [(12, 11, 6, 1)], seat=3))
    other = depth_values(observation_after(rounds, [(12, 11, 6, 1)], seat=0))
    assert peeker[0, 2] == pytest.approx(15.0)
    assert other[0, 2] == pytest.approx(np.mean([c.value for c in miaui_env.DEFAULT_DECK]))


def enumerated_chances(observation, opponent_cards):
    """The heuristics' winning chances by brute force: every combination of the opponents' cards,
    each uniform over the cards she may hold, and Kiti's priorities for ties (none in No Fighting)."""
    present, deep, shallow = (OBSERVATION_LAYOUT.view(observation, name)[:, 0] for name in ("present", "deep_priority", "shallow_priority"))
    no_fighting = OBSERVATION_LAYOUT.view(observation, "variant")[1] > 0
    opponents = [s for s in range(1, 6) if present[s] > 0]
    hands = [np.flatnonzero(opponent_cards[s]) for s in opponents]
    chances = np.zeros((12, 3))
    for card in range(12):
        for combination in itertools.product(*hands):
            weight = np.prod([1 / len(hand) for hand in hands])
            below, above = [], []
            for s, c in zip(opponents, combination, strict=True):
                below.append(c < card or (c == card and not no_fighting and deep[0] > deep[s]))
                above.append(c > card or (c == card and not no_fighting and shallow[0] > shallow[s]))
            chances[card] += weight * np.array([all(below), below.count(False) == 1, all(above)])
    return chances


@pytest.mark.parametrize(("n", "no_fighting"), [(3, False), (4, False), (4, True)])
def test_winning_chances_match_enumeration(n, no_fighting):
    engine = VectorMiaui(3, num_players=n, no_fighting=no_fighting, seed=n)
    rng = np.random.default_rng(n)
    obs, masks = engine.reset()
    for _ in range(3):  # Kiti's priorities move every round
        obs, masks, *_ = engine.step(np.argmax(rng.random(masks.shape) * masks, axis=2))
    observations = obs.reshape(-1, obs.shape[-1])
    opponent_cards = rng.random((len(observations), 6, 12)) < 0.4
    opponent_cards[:, :, 0] = True  # nobody's hand is empty
    chances = winning_chances(observations, opponent_cards)
    for row in range(len(observations)):
        assert chances[row] == pytest.approx(enumerated_chances(observations[row], opponent_cards[row]))


def test_the_counter_remembers_every_reveal_and_forgets_at_a_new_game():
    engine = VectorMiaui(2, num_players=4, seed=0)
    counter = CountingAgent(0)
    obs, masks = engine.reset()
    rng = np.random.default_rng(0)
    history = []
    for _ in range(4):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=2)
        history.append(actions)
        obs, masks, *_ = engine.step(actions)
        counter.act(obs[:, 0], masks[:, 0])
    left = counter.opponent_cards(obs[:, 0])
    for game, k in itertools.product(range(2), range(1, 4)):
        played = {int(h[game, k]) for h in history}
        assert set(np.flatnonzero(~left[game, k])) == played
    for _ in range(7):
        obs, masks, *_ = engine.step(np.argmax(rng.random(masks.shape) * masks, axis=2))
    assert counter.opponent_cards(obs[:, 0])[:, 1:4].all()  # round 1 of new games: nothing seen


def ladder(candidate, field, games=2000, seed=1):
    config = ArenaConfig(num_players=4, games=games, seed=seed)
    seats, scores, winners = play([candidate, field], "gauntlet", config)
    return summarize(["candidate", "field"], seats, scores, winners, 4)[0].win_share, gauntlet_significance(seats, winners, 4, "candidate")


def test_the_ladder():
    share, _ = ladder(GreedyAgent(0), RandomAgent(1))
    assert share >= 0.60  # one greedy against three random; fair share is 0.25
    share, _ = ladder(CountingAgent(0), RandomAgent(1))
    assert share >= 0.60
    share, verdict = ladder(CountingAgent(0), GreedyAgent(1), games=4000)
    assert share > 0.25 and "(above fair share at the 1% level)" in verdict


@pytest.mark.parametrize(("game", "name"), [("miaui", "counter"), ("octopus", "risk-aware")])
def test_an_agent_given_by_name_is_refused_with_its_game_s_loader_named(game, name):
    # The protocol's check serves every game, so its message names the registry's loader, not one game's.
    from miaui_env.core.agents import AgentError, check_agent
    from miaui_env.games import get_game

    with pytest.raises(
        AgentError, match=r"is a name, not an agent; build one first with its game's loader: .*get_game\(GAME\)\.load_agent"
    ):
        check_agent(name, "opponent")
    assert get_game(game).load_agent(name, seed=0).name == name  # the loader the message names builds it
