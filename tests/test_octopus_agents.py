"""The octopus baselines on stacked scenarios (O3 stop rule, O5 thefts) and the octopus arena's
duplicate sets, statistics and command line (shared/spec/octopus-rulings.md, O1-O12)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miaui_env.apps.arena import main as arena_main
from miaui_env.core.arena import summarize
from miaui_env.core.loading import AgentSpecError
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.octopus.agents import (
    CautiousAgent,
    RiskAwareAgent,
    RivalAwareAgent,
    TheftAwareAgent,
    flip_odds,
    leading_opponents,
    load_octopus_agents,
    octopus_agents,
    success_probability,
    theft_action,
    theft_mask,
)
from miaui_env.games.octopus.arena import (
    OctopusArenaConfig,
    deal,
    new_games,
    play,
    run,
    schedule,
)
from miaui_env.games.octopus.observation import observe
from miaui_env.games.octopus.rules import (
    FLIP,
    NO_THEFT,
    OCTOPUS_IDS,
    STOP,
    InvalidConfigError,
    OctopusState,
    Phase,
    Rolled,
    action_mask,
    decision_of,
    fish,
    new_game,
    stacked_deck,
    step,
)

OCT = OCTOPUS_IDS[0]


def stacked(num_players: int, top: list[int]) -> OctopusState:
    """A game whose deck begins with `top` (O11)."""
    return new_game(num_players, seed=0, deck=stacked_deck(top), max_sessions=1)


def decide(agent: object, state: OctopusState, view: str = "recall") -> int:
    """The agent's action for the seat to act, from that seat's observation."""
    obs = observe(state, state.active, view)[None]
    return int(agent.act(obs, action_mask(state)[None])[0])  # type: ignore[attr-defined]


# ---- the risk-aware stop rule (O3), hand-computed -------------------------------------------------


def test_the_risk_aware_odds_count_the_discard_pile_as_seen():
    # player_0 flips anchovy:1 then anchovy:2 (a bust, both discarded); player_1's forced flip is
    # anchovy:3. Seen: A1, A2 (discard), A3 (row); the deck holds 63 cards, 3 of them anchovies and 6 octopuses.
    state = stacked(2, [fish("anchovy", 1), fish("anchovy", 2), fish("anchovy", 3)])
    step(state, FLIP)
    assert state.active == 1 and state.row == [fish("anchovy", 3)]
    p_bust, p_octopus, _, stop_gain = flip_odds(observe(state, 1, "recall"))
    assert p_bust == pytest.approx(3 / 63) and p_octopus == pytest.approx(6 / 63) and stop_gain == 3


@pytest.mark.parametrize(
    ("row_length", "expected_flip", "decision"),
    [
        # Row A1 B1 C1 (deck 63): P(bust) = 15/63; a bust on the i-th row species keeps i cards
        # (0 + 1 + 2) * 5/63; each of the 7 new species adds 2*(3+1) + 2*(3+2) + (3+3) + (3+4) = 31:
        # E_flip = (15 + 7 * 31) / 63 = 232/63 = 3.68 > G_stop = 3: flip.
        (3, Fraction(232, 63), 1),
        # Row A1..F1 (deck 60): P(bust) = 30/60; busts (0+1+...+5) * 5/60 = 75/60; each of the 4 new
        # species adds 2*7 + 2*8 + 9 + 10 = 49: E_flip = (75 + 196) / 60 = 271/60 = 4.52 < 6: stop.
        (6, Fraction(271, 60), 0),
    ],
)
def test_the_risk_aware_player_stops_when_one_more_flip_loses_in_expectation(row_length, expected_flip, decision):
    row = [fish(species, 1) for species in range(row_length)]
    state = stacked(2, row)
    for _ in range(row_length - 1):
        step(state, FLIP)
    assert state.row == row and state.active == 0
    p_bust, p_octopus, flip_value, stop_value = flip_odds(observe(state, 0, "recall"))
    deck = 66 - row_length
    assert p_bust == pytest.approx(5 * row_length / deck) and p_octopus == pytest.approx(6 / deck)
    assert flip_value == pytest.approx(float(expected_flip)) and stop_value == row_length
    assert decide(RiskAwareAgent(0), state) == decision


def test_the_risk_aware_player_values_a_card_by_what_it_adds_to_its_own_collection():
    # O7: player_0 already holds anchovy:4, so a second anchovy in the row adds nothing.
    state = stacked(2, [fish("anchovy", 4), fish("bream", 1), fish("anchovy", 3)])
    step(state, STOP)  # player_0 keeps A4; player_1 flips B1
    step(state, STOP)  # player_1 keeps B1; player_0 flips A3
    assert state.active == 0 and state.row == [fish("anchovy", 3)]
    *_, stop_value = flip_odds(observe(state, 0, "recall"))
    assert stop_value == 0


# ---- the risk-aware theft (O5), hand-computed ----------------------------------------------------


def test_the_die_odds():
    assert [success_probability(k) for k in (1, 2, 3)] == [5 / 6, 3 / 6, 2 / 6]


def theft_state(top: list[int], decisions: list[object]) -> OctopusState:
    return theft_state_of(2, top, decisions)


def theft_state_of(num_players: int, top: list[int], decisions: list[object]) -> OctopusState:
    """The game of `num_players` with `top` stacked after `decisions`, at a theft decision (O5)."""
    state = stacked(num_players, top)
    for decision in decisions:
        step(state, decision)  # type: ignore[arg-type]
    assert state.phase is Phase.THEFT
    return state


def test_the_risk_aware_theft_takes_the_best_expected_swing():
    # player_0 keeps A4, player_1 keeps B4, player_0 keeps C1, player_1 flips an octopus.
    # Target player_0 = {A4, C1}, own = {B4}. Backfire (1/6): B4 lost (4) and gained by the target (4) = 8.
    # k=1: swings A4 -> 4 + 4, C1 -> 1 + 1: mean 5; EV = 5/6 * 5 - 8/6 = 17/6.
    # k=2: {A4, C1} -> 5 + 5 = 10; EV = 1/2 * 10 - 8/6 = 22/6: the better one.
    state = theft_state([fish("anchovy", 4), fish("bream", 4), fish("cod", 1), OCT], [STOP, STOP, STOP])
    agent = RiskAwareAgent(0)
    obs, mask = observe(state, 1, "recall"), action_mask(state)
    values = agent.theft_values(obs, mask)
    assert values == {theft_action(1, 1): pytest.approx(17 / 6), theft_action(1, 2): pytest.approx(22 / 6)}
    assert agent.choose_theft(obs, mask) == (theft_action(1, 2), pytest.approx(22 / 6))
    assert decide(agent, state) == theft_action(1, 2) == 4


def test_the_risk_aware_player_makes_no_theft_when_every_one_loses_in_expectation():
    # player_0 keeps C1; player_1 keeps B4 and C4; player_0 flips an octopus (no theft); player_1 flips one.
    # Target {C1}, own {B4, C4}. k=1: C1 adds 0 to us (we hold C4), costs the target 1: 5/6 * 1.
    # Backfire: B4 -> 4 + 4 = 8; C4 -> 4 + (4 - 1) = 7; mean 7.5, times 1/6 = 1.25 > 5/6: no theft.
    state = theft_state([fish("cod", 1), fish("bream", 4), fish("cod", 4), OCT, OCTOPUS_IDS[1]], [STOP, FLIP, STOP, NO_THEFT])
    agent = RiskAwareAgent(0)
    obs, mask = observe(state, 1, "recall"), action_mask(state)
    assert agent.theft_values(obs, mask) == {theft_action(1, 1): pytest.approx(5 / 6 - 7.5 / 6)}
    assert decide(agent, state) == 2  # no theft


# ---- the theft-aware player: an octopus is worth the theft it allows (O3, O5) ------------------------


def test_the_theft_aware_player_flips_where_the_octopus_theft_outweighs_the_expected_loss():
    # player_0 busts (A1 A2, discarded); player_1 keeps G4 H4 I4 J4 (species 6-9); player_0 flips B1 C1 D1 E1.
    # Deck 56: unseen A 1,2,3,4; B-E 1,2,2,3,4 each; F all six; G-J 1,1,2,2,3 each; 6 octopuses.
    # Busts keep (0 + 1 + 2 + 3) * 5 = 30; a new species adds 4 + its value: A 16 + 10, F 24 + 13,
    # G-J 4 * (20 + 9): E_flip = (30 + 179) / 56 = 209/56 < G_stop = 4, so risk-aware stops (edge -15/56).
    # An octopus (6/56) allows stealing from {G4, H4, I4, J4} with nothing of ours at stake: k=1
    # 5/6 * 8, k=2 1/2 * 16 = 8, k=3 1/3 * 24 = 8; best 8, so the edge is -15/56 + 6/56 * 8 = 33/56: flip.
    state = stacked(2, [fish(0, 1), fish(0, 2), *(fish(s, 4) for s in range(6, 10)), *(fish(s, 1) for s in range(1, 5))])
    for decision in [FLIP, FLIP, FLIP, FLIP, STOP, FLIP, FLIP, FLIP]:
        step(state, decision)
    assert state.active == 0 and len(state.row) == 4 and len(state.collections[1]) == 4 and not state.collections[0]
    obs = observe(state, 0, "recall")
    _, p_octopus, flip_value, stop_value = flip_odds(obs)
    assert (p_octopus, flip_value, stop_value) == (pytest.approx(6 / 56), pytest.approx(209 / 56), 4)
    assert TheftAwareAgent(0).flip_edge(obs) == pytest.approx(33 / 56)
    assert decide(RiskAwareAgent(0), state) == 0 and decide(TheftAwareAgent(0), state) == 1


def test_the_theft_aware_player_steals_as_the_risk_aware_player_does():
    state = theft_state([fish("anchovy", 4), fish("bream", 4), fish("cod", 1), OCT], [STOP, STOP, STOP])
    assert decide(TheftAwareAgent(0), state) == decide(RiskAwareAgent(0), state) == theft_action(1, 2)
    assert TheftAwareAgent.view == "recall"


def test_the_risk_aware_player_shown_the_table_view_counts_no_swing_from_cards_it_cannot_see():
    # The table view hides player_0's collection {A4, C1} from player_1: no known gain, only the -1
    # face's cost (B4 lost, 4, and gained by a target holding no bream as far as it sees, 4): -8/6.
    state = theft_state([fish("anchovy", 4), fish("bream", 4), fish("cod", 1), OCT], [STOP, STOP, STOP])
    agent = RiskAwareAgent(0)
    values = agent.theft_values(observe(state, 1, "table"), action_mask(state))
    assert values == {theft_action(1, 1): pytest.approx(-8 / 6), theft_action(1, 2): pytest.approx(-8 / 6)}
    assert decide(agent, state, "table") == 2  # no theft


def test_the_risk_aware_player_asks_for_the_recall_view():
    assert RiskAwareAgent.view == "recall" and not hasattr(CautiousAgent, "view")


# ---- the rival-aware player: only the leading opponent's points count fully (O7, O9) --------------


def rival_theft_state() -> OctopusState:
    """3 players: player_0 keeps A4, player_1 B3, player_2 A3; the next three flips are octopuses, the
    first two thefts declined: player_2 decides a theft, against player_0 (4 points, the leader) or player_1 (3)."""
    top = [fish("anchovy", 4), fish("bream", 3), fish("anchovy", 3), *OCTOPUS_IDS[:3]]
    state = new_game(3, seed=0, deck=stacked_deck(top), max_sessions=1)
    for decision in [STOP, STOP, STOP, NO_THEFT, NO_THEFT]:
        step(state, decision)
    assert state.active == 2 and state.phase is Phase.THEFT
    return state


def test_the_rival_aware_player_steals_from_the_leader_where_theft_aware_steals_elsewhere():
    # Own {A3}; the -1 face gives a target A3: we lose 3, player_0 (holding A4) gains 0, player_1 gains 3.
    # From player_0 (offset 1), k=1: we gain 4 - 3 = 1, it loses 4: 5/6 * 5 - 1/6 * 3 = 22/6.
    # From player_1 (offset 2), k=1: we gain 3, it loses 3: 5/6 * 6 - 1/6 * (3 + 3) = 24/6 for theft-aware;
    # rival-aware counts a trailing opponent's points 0 times: 5/6 * 3 - 1/6 * 3 = 12/6.
    state = rival_theft_state()
    obs, mask = observe(state, 2, "recall"), action_mask(state)
    assert leading_opponents(obs).tolist() == [False, True, False, False]
    from_leader, from_trailer = theft_action(1, 1), theft_action(2, 1)
    assert TheftAwareAgent(0).theft_values(obs, mask) == {from_leader: pytest.approx(22 / 6), from_trailer: pytest.approx(24 / 6)}
    assert RivalAwareAgent(0).theft_values(obs, mask) == {from_leader: pytest.approx(22 / 6), from_trailer: pytest.approx(12 / 6)}
    assert decide(TheftAwareAgent(0), state) == from_trailer and decide(RivalAwareAgent(0), state) == from_leader
    # Half weight: 5/6 * (3 + 1.5) - 1/6 * (3 + 1.5) = 18/6, still below the leader's 22/6.
    assert RivalAwareAgent(0, rival_weight=0.5).theft_values(obs, mask)[from_trailer] == pytest.approx(18 / 6)


def test_opponents_tied_for_the_lead_all_count_fully():
    # player_0 and player_1 each keep a 4: both lead; player_2 (nothing yet) flips an octopus.
    state = theft_state_of(3, [fish("anchovy", 4), fish("bream", 4), OCT], [STOP, STOP])
    obs = observe(state, 2, "recall")
    assert leading_opponents(obs).tolist() == [False, True, True, False]
    values = RivalAwareAgent(0).theft_values(obs, action_mask(state))
    assert values == TheftAwareAgent(0).theft_values(obs, action_mask(state))


def test_the_best_placed_opponent_leads_even_behind_the_seat_itself():
    # player_0 keeps A4 (4), player_1 B1 (1), player_2 C4 and D4 (8, ahead of both); after two declined
    # thefts player_2 flips an octopus: player_0, offset 1, is the opponent to weigh fully.
    top = [fish("anchovy", 4), fish("bream", 1), fish("cod", 4), fish("dory", 4), *OCTOPUS_IDS[:3]]
    state = theft_state_of(3, top, [STOP, STOP, FLIP, STOP, NO_THEFT, NO_THEFT])
    assert state.active == 2
    assert leading_opponents(observe(state, 2, "recall")).tolist() == [False, True, False, False]


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31), num_players=st.integers(2, 4))
def test_a_rival_weight_of_one_is_the_theft_aware_player(seed, num_players):
    # Every opponent's points count fully at weight 1: the same actions as theft-aware at every decision.
    state, rival, theft_aware, random = (
        new_game(num_players, seed=seed, max_sessions=1),
        RivalAwareAgent(seed, 1.0),
        TheftAwareAgent(seed),
        RandomAgent(seed),
    )
    while not state.is_over:
        assert decide(rival, state) == decide(theft_aware, state)
        step(state, decision_of(state, decide(random, state)))


@pytest.mark.parametrize("weight", [-0.1, 1.5, float("nan"), True, "0.5", None])
def test_a_rival_weight_outside_zero_to_one_is_refused(weight):
    with pytest.raises(InvalidConfigError, match=f"rival_weight={weight!r}"):
        RivalAwareAgent(0, rival_weight=weight)


# ---- the cautious threshold player --------------------------------------------------------------


@pytest.mark.parametrize("cards", [1, 2, 3, 4])
def test_the_cautious_player_stops_exactly_at_its_threshold(cards):
    state = stacked(2, [fish(species, 2) for species in range(6)])
    agent = CautiousAgent(0, cards=cards)
    while True:
        action = decide(agent, state, "table")
        if len(state.row) < cards:
            assert action == 1
            step(state, FLIP)
        else:
            assert action == 0 and len(state.row) == cards
            break


def test_the_cautious_player_steals_one_card_from_the_largest_collection():
    # 3 players: player_0 keeps A1; player_1 keeps B1 C1; player_2 flips an octopus.
    state = stacked(3, [fish("anchovy", 1), fish("bream", 1), fish("cod", 1), OCT])
    step(state, STOP)
    step(state, FLIP)
    step(state, STOP)
    assert state.phase is Phase.THEFT and state.active == 2
    assert decide(CautiousAgent(0), state, "table") == theft_action(2, 1)  # player_1 is 2 seats clockwise of player_2
    assert decide(CautiousAgent(0, steal=False), state, "table") == 2


def test_a_cautious_threshold_below_one_is_refused():
    with pytest.raises(InvalidConfigError, match="cards=0"):
        CautiousAgent(0, cards=0)


# ---- every baseline, random games ----------------------------------------------------------------


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31), num_players=st.integers(2, 4))
def test_the_baselines_respect_the_masks_in_random_games(seed, num_players):
    rng = np.random.default_rng(seed)
    agents = [
        RandomAgent(seed),
        CautiousAgent(seed, cards=int(rng.integers(1, 6))),
        RiskAwareAgent(seed),
        TheftAwareAgent(seed),
        RivalAwareAgent(seed),
    ]
    state = new_game(num_players, seed=seed, max_sessions=2)
    seat_agents = [agents[int(i)] for i in rng.integers(0, len(agents), num_players)]
    while not state.is_over:
        agent = seat_agents[state.active]
        mask = action_mask(state)
        action = int(agent.act(observe(state, state.active, getattr(agent, "view", "table"))[None], mask[None])[0])
        assert mask[action] == 1
        step(state, decision_of(state, action))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31), num_players=st.integers(2, 4))
def test_the_theft_an_octopus_would_allow_is_the_mask_it_gives(seed, num_players):
    # The theft-aware player weighs, before each flip, the thefts an octopus would allow (O5):
    # at every theft decision of random games its mask, read from the observation, is the engine's.
    state, agent, thefts = new_game(num_players, seed=seed, max_sessions=1), RandomAgent(seed), 0
    while not state.is_over:
        mask = action_mask(state)
        if state.phase is Phase.THEFT:
            np.testing.assert_array_equal(theft_mask(observe(state, state.active, "table")), mask)
            thefts += 1
        step(state, decision_of(state, int(agent.act(observe(state, state.active)[None], mask[None])[0])))
    assert thefts > 0


def test_the_name_table_loads_every_baseline_seeded():
    assert set(octopus_agents()) == {"random", "cautious", "risk-aware", "theft-aware", "rival-aware"}
    first, again = load_octopus_agents(["random", "risk-aware"], seed=3), load_octopus_agents(["random", "risk-aware"], seed=3)
    masks = np.ones((50, 12), dtype=np.int8)
    assert (first[0].act(np.zeros((50, 306)), masks) == again[0].act(np.zeros((50, 306)), masks)).all()
    with pytest.raises(AgentSpecError, match="'greedy'"):
        load_octopus_agents(["greedy"])


# ---- the arena ------------------------------------------------------------------------------------


@pytest.mark.oracle  # the octopus arena's schedule, deals and statistics
def test_a_duplicate_set_shares_its_decks_and_dice_with_the_seats_rotated():
    config = OctopusArenaConfig(num_players=3, games=9, seed=5, max_sessions=4)
    seats, set_seeds = schedule("pool", 3, config)
    games = new_games(set_seeds, config)
    for first in range(0, 9, 3):
        for r in range(3):
            assert (seats[first + r] == np.roll(seats[first], r)).all()
            assert set_seeds[first + r] == set_seeds[first]
            a, b = games[first], games[first + r]
            assert a.deck == b.deck and a.stacked_decks == b.stacked_decks and a.stacked_dice == b.stacked_dice
            assert a.rng.bit_generator.state == b.rng.bit_generator.state
        assert sorted(seats[first]) == [0, 1, 2]
    assert games[0].deck != games[3].deck  # sets differ
    luck = deal(int(set_seeds[0]), 4)
    assert len(luck.decks) == 4 and len(luck.dice) == 24 and all(sorted(d) == list(range(66)) for d in luck.decks)


@pytest.mark.oracle  # the octopus arena's schedule, deals and statistics
def test_the_die_tape_is_rolled_by_every_game_of_a_set():
    config = OctopusArenaConfig(num_players=2, games=2, seed=11, max_sessions=2)
    seats, _, _ = play([RandomAgent(0), RiskAwareAgent(0)], "pool", config)
    luck = deal(int(schedule("pool", 2, config)[1][0]), 2)
    for game in new_games(schedule("pool", 2, config)[1], config):
        agents = [RandomAgent(0), RiskAwareAgent(0)]
        while not game.is_over:
            agent = agents[seats[0, game.active]]
            action = int(agent.act(observe(game, game.active, getattr(agent, "view", "table"))[None], action_mask(game)[None])[0])
            step(game, decision_of(game, action))
        rolls = [e.face for e in game.events if isinstance(e, Rolled)]
        assert rolls == list(luck.dice[: len(rolls)])


@pytest.mark.oracle  # the octopus arena's schedule, deals and statistics
def test_the_statistics_match_a_hand_count_on_a_tiny_schedule():
    config = OctopusArenaConfig(num_players=2, games=6, seed=7, max_sessions=3)
    seats, scores, winners = play([CautiousAgent(0), RiskAwareAgent(0)], "pool", config)
    assert seats.shape == scores.shape == winners.shape == (6, 2)
    for game in range(6):  # O9: the highest totals win
        assert (winners[game] == (scores[game] == scores[game].max())).all()
    results = summarize(["cautious", "risk-aware"], seats, scores, winners, 2)
    for agent, result in enumerate(results):
        per_set_share, per_set_score = [], []
        for first in (0, 2, 4):
            share = score = 0.0
            for game in (first, first + 1):
                seat = list(seats[game]).index(agent)
                share += winners[game, seat] / winners[game].sum()
                score += scores[game, seat]
            per_set_share.append(share / 2)
            per_set_score.append(score / 2)
        assert result.games == 6
        assert result.win_share == pytest.approx(np.mean(per_set_share))
        assert result.mean_score == pytest.approx(np.mean(per_set_score))
    assert sum(r.win_share for r in results) == pytest.approx(1.0)


@pytest.mark.oracle  # the octopus arena's schedule, deals and statistics
def test_the_same_config_plays_the_same_games():
    config = OctopusArenaConfig(num_players=3, games=6, seed=2, max_sessions=3, batch_games=4)
    first = play(load_octopus_agents(["random", "cautious", "risk-aware"], 2), "pool", config)
    again = play(load_octopus_agents(["random", "cautious", "risk-aware"], 2), "pool", config)
    assert all((a == b).all() for a, b in zip(first, again, strict=True))


def test_the_command_line_runs_the_octopus_arena(tmp_path, capsys):
    with pytest.raises(SystemExit) as ended:
        arena_main(
            [
                "--game",
                "octopus",
                "--pool",
                "random",
                "cautious",
                "--players",
                "2",
                "--games",
                "4",
                "--seed",
                "1",
                "--max-sessions",
                "2",
                "--out",
                str(tmp_path),
            ]
        )
    assert ended.value.code == 0
    report = json.loads((tmp_path / "arena.json").read_text())
    assert report["game"] == "octopus" and report["config"]["num_players"] == 2 and report["duplicate_sets"] == 2
    assert (tmp_path / "arena.csv").exists() and (tmp_path / "arena.png").exists()
    assert "cautious" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--open-baskets"], "--open-baskets: Miaui-only"),
        (["--no-fighting"], "--no-fighting: Miaui-only"),
        (["--replays", "3"], "--replays: Miaui-only"),
        (["--players", "5"], "invalid choice: 5"),
        (["--pool", "random", "greedy"], "'greedy'"),
    ],
)
def test_the_command_line_refuses_what_the_octopus_game_lacks(tmp_path, capsys, arguments, message):
    base = ["--game", "octopus", "--games", "2", "--out", str(tmp_path)]
    pool = [] if "--pool" in arguments else ["--pool", "random"]
    with pytest.raises(SystemExit) as ended:
        arena_main(base + pool + arguments)
    assert ended.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "arena.json").exists()


def test_a_bad_config_names_the_value():
    with pytest.raises(InvalidConfigError, match="num_players=5"):
        OctopusArenaConfig(num_players=5)
    with pytest.raises(InvalidConfigError, match="games=0"):
        OctopusArenaConfig(games=0)


def test_run_summarizes_with_ratings():
    result = run(["cautious", "risk-aware"], "gauntlet", OctopusArenaConfig(num_players=2, games=4, seed=3, max_sessions=2), None, False)
    assert [r.name for r in result.agents] == ["cautious", "risk-aware"] and result.significance is not None
    assert result.duplicate_sets == 2 and all(r.rating_sigma > 0 for r in result.agents)
