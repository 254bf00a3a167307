"""Both games in OpenSpiel (miaui_env.integrations.openspiel): OpenSpiel's own random-simulation
checks, the same games as the AEC envs (returns and observations, deal for deal), chance that deals
as the rules do (R3/R4, O1/O2/O5), and information states that hide what a seat never saw (R5, R11)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pyspiel
import pytest

from miaui_env.core.errors import final_rewards
from miaui_env.games.miaui.cards import FishKind
from miaui_env.games.miaui.env import raw_env as miaui_raw_env
from miaui_env.games.miaui.rules import DECK_SIZE, GameConfig, deal, new_game, play_round, scores
from miaui_env.games.octopus import rules as octopus
from miaui_env.games.octopus.env import raw_env as octopus_raw_env
from miaui_env.integrations import openspiel as bridge

MIAUI_SETTINGS = [{"players": n} for n in range(3, 7)] + [
    {"players": 4, "open_baskets": True},
    {"players": 5, "no_fighting": True, "view": "recall"},
    {"players": 3, "reward": "margin"},
]
OCTOPUS_SETTINGS = [{"players": n} for n in range(2, 5)] + [{"players": 3, "view": "recall", "reward": "score"}]


@pytest.mark.slow
@pytest.mark.parametrize("params", MIAUI_SETTINGS, ids=str)
def test_miaui_passes_openspiels_random_simulation_checks(params):
    game = pyspiel.load_game(bridge.MIAUI_GAME, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=params["players"] == 3, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 6])
def test_miaui_turned_sequential_passes_the_checks(players):
    turn_based = pyspiel.convert_to_turn_based(pyspiel.load_game(bridge.MIAUI_GAME, {"players": players}))
    pyspiel.random_sim_test(turn_based, num_sims=2, serialize=False, verbose=False)
    assert turn_based.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


@pytest.mark.slow
@pytest.mark.parametrize("params", OCTOPUS_SETTINGS, ids=str)
def test_octopus_passes_openspiels_random_simulation_checks(params):
    game = pyspiel.load_game(bridge.OCTOPUS_GAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=params["players"] == 2, verbose=False)


# ---- the same games as the AEC envs --------------------------------------------------------------


def _outcome_named(state, name_of, name):
    """The chance outcome standing for a card of this name (identical cards are one outcome)."""
    matches = [action for action, _ in state.chance_outcomes() if name_of(action) == name]
    assert len(matches) == 1, (name, state.chance_outcomes())
    return matches[0]


def _payouts(play_both_ways, settings) -> int:
    """How many of 1,000 seeded games, cycling through `settings`, pay some seat: `play_both_ways(params,
    seed)` plays one in the AEC env and in OpenSpiel and returns its returns."""
    return sum(max(play_both_ways(params, seed)) > 0 for seed, params in zip(range(1000), itertools.cycle(settings), strict=False))


def _same_returns(state, returns):
    """OpenSpiel's returns at the end of the game are the AEC env's `returns`; returns them."""
    assert state.returns() == pytest.approx(returns)
    return returns


def _miaui_game_both_ways(params, seed, check_observations):
    """One game dealt by the AEC env (seeded; its round 1 may reinsert Seagulls), played by seeded
    random cards, and the same deal and cards through OpenSpiel: both returns, and observations."""
    settings = {"num_players": params["players"], **{k: v for k, v in params.items() if k != "players"}}
    env = miaui_raw_env(**settings)
    env.reset(seed=seed)
    dealt = env.game
    deck = dealt.config.deck
    fish = [dealt.put_back, *(space[0].card for space in dealt.lagoon), *dealt.deck]  # as chance deals them
    game = pyspiel.load_game(bridge.MIAUI_GAME, params)
    state = game.new_initial_state()
    for card in fish[:4]:
        state.apply_action(_outcome_named(state, lambda a: str(deck[a]), str(deck[card])))
    rng = np.random.default_rng(seed)
    rest = iter(fish[4:])
    while not state.is_terminal():
        assert state.is_simultaneous_node()
        if check_observations:
            for seat, agent in enumerate(env.agents):
                np.testing.assert_array_equal(state.observation_tensor(seat), env.observe(agent)["observation"])
        plays = [int(rng.choice(state.legal_actions(seat))) for seat in range(game.num_players())]
        for action in plays:
            env.step(action)
        state.apply_actions(plays)
        while state.is_chance_node():
            state.apply_action(_outcome_named(state, lambda a: str(deck[a]), str(deck[next(rest)])))
    return _same_returns(state, [env.rewards[agent] for agent in env.possible_agents])


@pytest.mark.slow
def test_miaui_gives_the_aec_envs_returns_on_a_thousand_deals():
    winners = _payouts(lambda params, seed: _miaui_game_both_ways(params, seed, check_observations=seed % 10 == 0), MIAUI_SETTINGS)
    assert winners > 900  # returns are the games' own, not zeros matching zeros


def _octopus_game_both_ways(params, seed, max_sessions, check_observations):
    """One octopus game in the AEC env (seeded shuffles, rolls and draws; seeded random decisions),
    then its flips, rolls, draws and decisions through OpenSpiel: both returns, and observations."""
    env = octopus_raw_env(
        num_players=params["players"], view=params.get("view", "table"), reward=params.get("reward", "win"), max_sessions=max_sessions
    )
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, observations, paid = [], [], {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            paid[agent] = reward
            env.step(None)
            continue
        seen = env.observe(agent)
        observations.append((env.agents.index(agent), seen["observation"]))
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        actions.append(action)
        env.step(action)
    chance = []
    for event in env.game.events:
        if isinstance(event, octopus.Flipped):
            chance.append(octopus.card_name(event.card))
        elif isinstance(event, octopus.Rolled):
            chance.append(f"die {event.face}")
        elif isinstance(event, octopus.CardsMoved):
            chance.extend(octopus.card_name(card) for card in event.cards)
    game = pyspiel.load_game(bridge.OCTOPUS_GAME, {**params, "max_sessions": max_sessions})
    state = game.new_initial_state()
    chance_left, decisions = iter(chance), iter(zip(actions, observations, strict=True))

    def name_of(action):
        return f"die {bridge.DIE_OUTCOMES[action - octopus.NUM_CARDS]}" if action >= octopus.NUM_CARDS else octopus.card_name(action)

    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(_outcome_named(state, name_of, next(chance_left)))
            continue
        action, (seat, observation) = next(decisions)
        assert state.current_player() == seat
        if check_observations:
            np.testing.assert_array_equal(state.observation_tensor(seat), observation)
        state.apply_action(action)
    assert next(chance_left, None) is None and next(decisions, None) is None
    return _same_returns(state, [paid[agent] for agent in env.possible_agents])


@pytest.mark.slow
def test_octopus_gives_the_aec_envs_returns_on_a_thousand_games():
    # 1,000 one-session games (O12's cap ends each after its scoring: thefts, busts, rolls, draws
    # and scoring all happen within a session) and 50 whole games to 77.
    paid = _payouts(
        lambda params, seed: _octopus_game_both_ways(params, seed, max_sessions=1, check_observations=seed % 20 == 0), OCTOPUS_SETTINGS
    )
    for seed in range(1000, 1050):
        _octopus_game_both_ways({"players": 2 + seed % 3}, seed, max_sessions=30, check_observations=seed % 10 == 0)
    assert paid > 900


# ---- chance deals as the rules do ----------------------------------------------------------------


def _deal_to(game, dealt):
    state = game.new_initial_state()
    for card in dealt:
        state.apply_action(card)
    return state


def test_miaui_chance_puts_back_any_card_then_deals_round_one_without_seagulls():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 4})
    deck = GameConfig().deck
    state = game.new_initial_state()
    put_back = state.chance_outcomes()
    assert sum(p for _, p in put_back) == pytest.approx(1.0)
    seagull = next(i for i, card in enumerate(deck) if card.kind is FishKind.SEAGULL)
    assert dict(put_back)[seagull] == pytest.approx(6 / 37)  # R3: six Seagulls among 37 cards
    state.apply_action(seagull)
    for _ in range(3):  # R4: round 1's spaces never hold a Seagull
        outcomes = dict(state.chance_outcomes())
        assert not any(deck[card].kind is FishKind.SEAGULL for card in outcomes)
        assert sum(outcomes.values()) == pytest.approx(1.0)
        state.apply_action(max(outcomes))
    assert state.is_simultaneous_node()


def test_miaui_chance_matches_the_envs_shuffle_for_the_first_fish():
    """The bottom space's first fish: its kind's chance under OpenSpiel's chance nodes (exact), against
    the rules' own deal (R3/R4, which reinserts Seagulls) over 20,000 shuffles."""
    config = GameConfig()
    deck = config.deck
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 4})
    exact = dict.fromkeys(FishKind, 0.0)
    root = game.new_initial_state()
    for put_back, p in root.chance_outcomes():
        child = root.child(put_back)
        for card, q in child.chance_outcomes():
            exact[deck[card].kind] += p * q
    rng = np.random.default_rng(2024)
    counts = dict.fromkeys(FishKind, 0)
    shuffles = 20_000
    for _ in range(shuffles):
        _, placement = deal(config, rng)
        counts[deck[placement[0]].kind] += 1
    for kind in FishKind:
        p = exact[kind]
        tolerance = 4 * np.sqrt(max(p * (1 - p), 1e-9) / shuffles) + 1e-9
        assert abs(counts[kind] / shuffles - p) < tolerance, (kind, counts[kind] / shuffles, p)
    assert exact[FishKind.SEAGULL] == 0.0


def test_miaui_deals_thirty_seven_cards_and_no_card_twice():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 3})
    state = game.new_initial_state()
    dealt = []
    rng = np.random.default_rng(5)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, chances = zip(*state.chance_outcomes(), strict=True)
            card = int(rng.choice(outcomes, p=chances))
            dealt.append(card)
            state.apply_action(card)
        else:
            state.apply_actions([int(rng.choice(state.legal_actions(s))) for s in range(3)])
    assert len(dealt) == DECK_SIZE and len(set(dealt)) == DECK_SIZE


def test_octopus_chance_flips_rolls_and_draws_as_the_rules_say():
    game = pyspiel.load_game(bridge.OCTOPUS_GAME, {"players": 2})
    state = game.new_initial_state()
    first = dict(state.chance_outcomes())
    assert sum(first.values()) == pytest.approx(1.0)
    assert first[octopus.OCTOPUS_IDS[0]] == pytest.approx(6 / 66)  # O1: six octopuses among 66 cards
    assert first[octopus.fish("cod", 1)] == pytest.approx(2 / 66)  # two cod worth 1
    # Stack: cod 1 (player_0 stops), anchovy 2 (player_1 stops), then an octopus for player_0.
    stop = 0
    for seat, card in enumerate((octopus.fish("cod", 1), octopus.fish("anchovy", 2))):
        state.apply_action(card)
        assert state.current_player() == seat and state.legal_actions() == [stop, 1]
        state.apply_action(stop)
    state.apply_action(octopus.OCTOPUS_IDS[0])
    assert state.current_player() == 0
    steal_one = 3  # a theft of one card from the seat one to the left
    assert steal_one in state.legal_actions()
    state.apply_action(steal_one)
    die = dict(state.chance_outcomes())
    assert die == pytest.approx({octopus.NUM_CARDS + i: p for i, p in enumerate((1 / 6, 2 / 6, 1 / 6, 2 / 6))})
    state.apply_action(octopus.NUM_CARDS + 1)  # a 1: one card moves (O5)
    assert dict(state.chance_outcomes()) == {octopus.fish("anchovy", 2): 1.0}  # player_1's only card
    state.apply_action(octopus.fish("anchovy", 2))
    assert state.is_chance_node()  # player_1's turn begins with a forced flip
    state.apply_action(octopus.fish("eel", 3))
    assert state.current_player() == 1
    for seat in (0, 1):  # every card that moves is shown to everyone (O4)
        assert "CardsMoved(source=1, dest=0, cards=(" in state.information_state_string(seat)


# ---- information -------------------------------------------------------------------------------


def _cards_of(kind):
    """The chance outcomes standing for the cards of `kind`: their indices in the standard deck."""
    return [i for i, card in enumerate(GameConfig().deck) if card.kind is kind]


def _miaui_after(game, put_back, round_one, plays, next_round):
    state = _deal_to(game, [put_back, *round_one])
    state.apply_actions(plays)
    for card in next_round:
        state.apply_action(card)
    return state


@pytest.mark.oracle
def test_miaui_information_state_hides_the_put_back_card_and_the_deck():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 3})
    lantern, jelly = _cards_of(FishKind.LANTERN)[0], _cards_of(FishKind.JELLYFISH)[0]
    tuna, seagulls = _cards_of(FishKind.EMPEROR_TUNA), _cards_of(FishKind.SEAGULL)
    # Same visible game, a different card put back: every seat's information is the same.
    one = _deal_to(game, [seagulls[0], lantern, tuna[0], tuna[1]])
    two = _deal_to(game, [jelly, lantern, tuna[0], tuna[1]])
    for seat in range(3):
        assert one.information_state_string(seat) == two.information_state_string(seat)
        assert one.information_state_tensor(seat) == two.information_state_tensor(seat)
        assert one.observation_tensor(seat) == two.observation_tensor(seat)
    assert one.information_state_string(0) != one.information_state_string(1)  # own hands and seats differ
    rng = np.random.default_rng(8)
    for _ in range(3):  # three more rounds, the same cards played and the same fish dealt to both
        plays = [int(rng.choice(one.legal_actions(s))) for s in range(3)]
        one.apply_actions(plays)
        two.apply_actions(plays)
        while one.is_chance_node():
            both = sorted({card for card, _ in one.chance_outcomes()} & {card for card, _ in two.chance_outcomes()})
            card = int(rng.choice(both))
            one.apply_action(card)
            two.apply_action(card)
    assert one.history()[4:] == two.history()[4:] and str(one) == str(two)
    for seat in range(3):
        assert one.information_state_string(seat) == two.information_state_string(seat)
        assert one.information_state_tensor(seat) == two.information_state_tensor(seat)


@pytest.mark.oracle
def test_miaui_information_state_shows_a_face_down_card_to_its_peeker_only():
    """R5: player_0 plays 12 and catches the Lantern at the bottom; round 2's bottom card lands face-down."""
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 3})
    lantern, tunas, kitten = _cards_of(FishKind.LANTERN)[0], _cards_of(FishKind.EMPEROR_TUNA), _cards_of(FishKind.KITTENFISH)
    plays = [11, 5, 0]  # diver cards 12, 6, 1
    seen, tensors = {}, {}
    for face_down in (tunas[-1], kitten[0]):
        state = _miaui_after(game, tunas[0], [lantern, tunas[1], tunas[2]], plays, [face_down, kitten[1], kitten[2]])
        seen[face_down] = [state.information_state_string(seat) for seat in range(3)]
        tensors[face_down] = [state.information_state_tensor(seat) + state.observation_tensor(seat) for seat in range(3)]
        assert "?" not in seen[face_down][0]
        assert "?" in seen[face_down][1] and "?" in seen[face_down][2]
    assert "round 2: hand 1 2 3 4 5 6 7 8 9 10 11;" in seen[kitten[0]][0]  # player_0 played its 12
    assert "round 2: hand 2 3 4 5 6 7 8 9 10 11 12;" in seen[kitten[0]][2] and "plays [12, 6, 1]" in seen[kitten[0]][2]
    assert seen[tunas[-1]][0] != seen[kitten[0]][0]  # the peeker tells the two apart
    assert seen[tunas[-1]][1:] == seen[kitten[0]][1:]  # nobody else can
    assert tensors[tunas[-1]][0] != tensors[kitten[0]][0] and tensors[tunas[-1]][1:] == tensors[kitten[0]][1:]


def test_miaui_information_tensor_keeps_every_round_seen():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 4})
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    rounds = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=chances)))
            continue
        rounds += 1
        rows = np.array(state.information_state_tensor(2)).reshape(bridge.DECISION_ROUNDS, -1)
        assert rows[rounds:].sum() == 0 and all(rows[k].any() for k in range(rounds))
        np.testing.assert_array_equal(rows[rounds - 1], state.observation_tensor(2))  # this round: the table view now
        state.apply_actions([int(rng.choice(state.legal_actions(s))) for s in range(4)])
    assert rounds == bridge.DECISION_ROUNDS


# ---- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "params", "named"),
    [
        (bridge.MIAUI_GAME, {"players": 7}, "num_players=7"),
        (bridge.MIAUI_GAME, {"view": "omniscient"}, "view='omniscient'"),
        (bridge.MIAUI_GAME, {"reward": "points"}, "reward='points'"),
        (bridge.OCTOPUS_GAME, {"players": 5}, "players=5"),
        (bridge.OCTOPUS_GAME, {"max_sessions": 0}, "max_sessions=0"),
        (bridge.OCTOPUS_GAME, {"view": "x"}, "'x'"),
        (bridge.OCTOPUS_GAME, {"reward": "points"}, "reward='points'"),
    ],
)
def test_a_bad_parameter_is_refused_by_name(name, params, named):
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        pyspiel.load_game(name, params)


def test_bad_moves_are_refused_and_change_nothing():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 3})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="chance outcome 99"):
        state.apply_action(99)
    for _ in range(4):
        state.apply_action(state.chance_outcomes()[0][0])
    before = str(state)
    with pytest.raises(ValueError, match="action 20"):
        state.apply_actions([0, 1, 20])
    assert str(state) == before and state.is_simultaneous_node()
    octopus_state = pyspiel.load_game(bridge.OCTOPUS_GAME, {"players": 2}).new_initial_state()
    octopus_state.apply_action(octopus.fish("cod", 1))
    before = str(octopus_state)
    with pytest.raises(ValueError, match="action 5 is not legal"):
        octopus_state.apply_action(5)
    assert str(octopus_state) == before and octopus_state.legal_actions() == [0, 1]


def test_public_only_observers_are_refused_by_name():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 3})
    with pytest.raises(ValueError, match="public-only"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


def _advance(state, rng, decisions):
    """Seeded random play up to the `decisions`-th decision node (-1: the state as it is)."""
    while decisions >= 0 and not state.is_terminal():
        if state.is_chance_node():
            outcomes, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=chances)))
        elif decisions == 0:
            break
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(s))) for s in range(state.num_players())])
            decisions -= 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions -= 1
    return state


@pytest.mark.parametrize("name", [bridge.MIAUI_GAME, bridge.OCTOPUS_GAME])
@pytest.mark.parametrize("decisions", [-1, 0, 3, 10_000])  # the first chance node, the first decision, mid-game, the end
def test_a_copied_or_serialized_state_plays_on_exactly_as_the_original(name, decisions):
    import pickle

    game = pyspiel.load_game(name, {"players": 3, "max_sessions": 1} if name == bridge.OCTOPUS_GAME else {"players": 3})
    assert game.num_players() == 3
    state = _advance(game.new_initial_state(), np.random.default_rng(1), decisions)
    copies = [
        state.clone(),
        pickle.loads(pickle.dumps(state)),
        pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1],
    ]
    for copy in copies:
        assert str(copy) == str(state) and copy.history() == state.history()
        for seat in range(3):
            assert copy.observation_string(seat) == state.observation_string(seat)
            assert copy.information_state_string(seat) == state.information_state_string(seat)
        ended = _advance(copy, np.random.default_rng(2), 10_000)
        assert ended.is_terminal() and ended.returns() == _advance(state.clone(), np.random.default_rng(2), 10_000).returns()


def test_calls_at_the_wrong_node_or_for_no_seat_are_refused_by_name_and_change_nothing():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 4})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match=r"apply_actions\(\[0, 0, 0, 0\]\) is not allowed now: chance is dealing"):
        state.apply_actions([0, 0, 0, 0])
    _advance(state, np.random.default_rng(0), 0)
    state.apply_actions([11, 11, 11, 11])
    before = str(state), state.history()
    with pytest.raises(ValueError, match="chance is dealing fish"):  # the round's cards are chosen: they stay chosen
        state.apply_actions([0, 0, 0, 0])
    assert (str(state), state.history()) == before
    choosing = _advance(game.new_initial_state(), np.random.default_rng(0), 0)
    for call, named in [
        (lambda: choosing.legal_actions(4), "player 4 is not a seat of this python_miaui table; seats are 0-3"),
        (lambda: state.action_to_string(pyspiel.PlayerId.CHANCE, 99), "chance outcome 99 is no fish"),
        (lambda: state.action_to_string(0, 12), "action 12 is no diver card"),
        (lambda: game.make_py_observer("string"), "observer takes a pyspiel.IIGObservationType"),
        (lambda: game.make_py_observer().set_from(state, 99), "player 99 is not a seat"),
        (lambda: game.make_py_observer().string_from(state, -1), "player -1 is not a seat"),
        (lambda: bridge.MiauiGame("x"), "parameters are a dict"),
    ]:
        with pytest.raises(ValueError, match=named):
            call()
    octopus_game = pyspiel.load_game(bridge.OCTOPUS_GAME, {"players": 2})
    octopus_state = _advance(octopus_game.new_initial_state(), np.random.default_rng(0), 0)
    observer = octopus_game.make_py_observer()
    for call, named in [
        (lambda: octopus_state.apply_actions([0, 0]), "played one seat at a time"),
        (lambda: octopus_state.action_to_string(pyspiel.PlayerId.CHANCE, 70), "chance outcome 70 is none"),
        (lambda: octopus_state.action_to_string(0, 12), "action 12 is none"),
        (lambda: observer.set_from(state, 0), "reads python_octopus states, got MiauiState"),
        (lambda: observer.string_from(octopus_state, 5), "player 5 is not a seat"),
    ]:
        with pytest.raises(ValueError, match=named):
            call()


@pytest.mark.oracle
def test_turned_sequential_a_seat_never_sees_an_earlier_seats_card_this_round():
    game = pyspiel.convert_to_turn_based(pyspiel.load_game(bridge.MIAUI_GAME, {"players": 4}))
    views = []
    for first_card in (0, 11):  # player_0 plays diver card 1, or 12
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        state.apply_action(first_card)
        assert state.current_player() == 1
        views.append([(state.information_state_string(s), state.observation_tensor(s)) for s in range(1, 4)])
        assert "you chose" not in state.information_state_string(1)
    assert views[0] == views[1]


@pytest.mark.oracle
def test_the_information_state_keeps_a_seats_own_pending_card_and_only_its_own():
    game = pyspiel.load_game(bridge.MIAUI_GAME, {"players": 3})
    strings = []
    for plays in ([0, 5, 7], [11, 5, 7]):  # player_0's card differs
        state = _advance(game.new_initial_state(), np.random.default_rng(0), 0)
        state.apply_actions(plays)
        assert state.is_chance_node()  # the next round's fish are being dealt
        strings.append([state.information_state_string(seat) for seat in range(3)])
    assert strings[0][0].endswith("you chose diver card 1") and strings[1][0].endswith("you chose diver card 12")
    assert strings[0][1:] == [s.replace("diver card 12", "diver card 1") for s in strings[1][1:]] == strings[1][1:]


# ---- short games (MV1-MV3) ----------------------------------------------------------------------

SHORT = {"players": 3, "rounds": 3, "deck": "emperor_tuna:10*4 tigerfish:6*2 jellyfish:-10*2 lantern:3 seagull:0"}


@pytest.mark.parametrize("extra", [{}, {"no_fighting": True, "view": "recall"}, {"players": 4, "reward": "margin"}], ids=str)
def test_a_short_game_passes_openspiels_checks_and_its_string_loads_it_again(extra):
    game = pyspiel.load_game(bridge.MIAUI_GAME, {**SHORT, **extra})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    assert str(pyspiel.load_game(str(game))) == str(game)
    assert game.max_game_length() == 2 and game.max_chance_outcomes() == 10  # MV1-MV2: 2 decisions, 10 cards
    assert game.information_state_tensor_shape() == [2, 620]


def test_a_short_game_in_openspiel_is_the_rules_short_game():
    game = pyspiel.load_game(bridge.MIAUI_GAME, SHORT)
    state = game.new_initial_state()
    kinds = {str(game.config.deck[action]): p for action, p in state.chance_outcomes()}
    assert kinds == {"emperor_tuna:10": 0.4, "tigerfish:6": 0.2, "jellyfish:-10": 0.2, "lantern:3": 0.1, "seagull:0": 0.1}
    rng = np.random.default_rng(3)
    for _ in range(20):  # random deals and plays: OpenSpiel's returns are the rules' on the same deal
        state, dealt, plays = game.new_initial_state(), [], []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                dealt.append(int(rng.choice(outcomes, p=chances)))
                state.apply_action(dealt[-1])
            else:
                assert state.legal_actions(0) and max(state.legal_actions(0)) <= 2  # cards 1-3 only (MV1)
                plays.append([int(rng.choice(state.legal_actions(s))) + 1 for s in range(3)])
                state.apply_actions([p - 1 for p in plays[-1]])
        order = dealt + sorted(set(range(10)) - set(dealt))
        rules_game = new_game(game.config, np.random.default_rng(0), order)
        for joint in plays:
            play_round(rules_game, joint)
        assert rules_game.is_over and state.returns() == list(final_rewards(np.array(scores(rules_game)), "win"))


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"rounds": 3}, "a short game of 3 rounds needs a deck of its own (MV2): the deck parameter"),
        ({"rounds": 13}, "rounds=13 is not allowed"),
        ({**SHORT, "deck": "whale:3*10"}, "unknown kind 'whale'"),
        ({**SHORT, "deck": "emperor_tuna:10*6, jellyfish:-10*4"}, "separate its cards by spaces"),
        ({**SHORT, "deck": "emperor_tuna:10*9"}, "a deck must hold 10 cards"),
        ({**SHORT, "deck": "emperor_tuna:10*6 jellyfish:-10000*4"}, "is worth -10000; a fish is worth -1000 to 1000"),
    ],
)
def test_a_bad_short_game_is_refused_by_name(params, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        pyspiel.load_game(bridge.MIAUI_GAME, params)
