"""Octopus rules scenarios with stacked decks and stacked die rolls, written from
docs/rules/octopus.md (O1-O12), and hypothesis properties of random legal play."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from miaui_env.games.octopus.rules import (
    CARD_SPECIES,
    CARD_VALUES,
    DIE_FACES,
    FLIP,
    NO_THEFT,
    NUM_ACTIONS,
    NUM_CARDS,
    OCTOPUS_IDS,
    SPECIES_NAMES,
    STOP,
    Busted,
    CardsMoved,
    Decision,
    Flipped,
    GameEnded,
    IllegalDecisionError,
    InvalidConfigError,
    Kept,
    NoTheft,
    Octopus,
    OctopusState,
    Phase,
    Rolled,
    SessionScored,
    SessionStart,
    Theft,
    TheftSkipped,
    Variant,
    action_mask,
    action_of,
    card_name,
    decision_of,
    fish,
    legal_decisions,
    new_game,
    session_score,
    stacked_deck,
    step,
    winners,
)

pytestmark = pytest.mark.oracle  # rules scenarios: the reference the octopus engine is checked against


def ids(text: str) -> list[int]:
    """Card ids from `cod:4 cod:1 cod:1 octopus ...`: the n-th mention of a card is its n-th copy."""
    seen: Counter[str] = Counter()
    out = []
    for name in text.split():
        copy = seen[name]
        seen[name] += 1
        if name == "octopus":
            out.append(OCTOPUS_IDS[copy])
        else:
            species, value = name.split(":")
            out.append(fish(species, int(value), copy))
    return out


def game(top: str, n: int = 2, dice: Sequence[int] = (), **kwargs: object) -> OctopusState:
    """A game whose first session's deck starts with `top` (then every other card by id)."""
    return new_game(n, 0, deck=stacked_deck(ids(top)), dice=list(dice), **kwargs)  # type: ignore[arg-type]


def play(state: OctopusState, *decisions: Decision) -> list[object]:
    """Make several decisions; every event they produced."""
    events: list[object] = []
    for d in decisions:
        events.extend(step(state, d))
    return events


def names(cards: Sequence[int]) -> list[str]:
    return [card_name(c) for c in cards]


def accounted(state: OctopusState) -> list[int]:
    return sorted(state.deck + state.row + state.discard + [c for coll in state.collections for c in coll])


def snapshot(state: OctopusState) -> tuple[object, ...]:
    """Everything a decision could change, the generator's state included."""
    return (
        state.session,
        state.active,
        state.phase,
        list(state.deck),
        list(state.row),
        list(state.discard),
        [list(c) for c in state.collections],
        list(state.totals),
        list(state.session_scores),
        list(state.events),
        list(state.stacked_dice),
        list(state.stacked_decks),
        state.turns,
        state.truncated,
        repr(state.rng.bit_generator.state),
    )


# ---- O1 -----------------------------------------------------------------------------------------


def test_o1_the_cards_and_the_die():
    assert NUM_CARDS == 66 and len(SPECIES_NAMES) == 10 == len(set(SPECIES_NAMES))
    per_species = Counter(CARD_SPECIES[c] for c in range(NUM_CARDS))
    assert per_species == Counter({**{s: 6 for s in range(10)}, -1: 6})
    for s in range(10):
        assert sorted(CARD_VALUES[c] for c in range(NUM_CARDS) if CARD_SPECIES[c] == s) == [1, 1, 2, 2, 3, 4]
    assert [card_name(c) for c in OCTOPUS_IDS] == ["octopus"] * 6
    assert card_name(fish("cod", 4)) == "cod:4"
    assert fish("cod", 1, 0) != fish("cod", 1, 1)
    assert sorted(DIE_FACES) == [-1, 1, 1, 2, 3, 3]


# ---- O3 -----------------------------------------------------------------------------------------


def test_o3_the_first_flip_is_forced_then_stop_or_flip():
    state = game("cod:3 eel:2 herring:4")
    assert state.events == [SessionStart(1, 0), Flipped(0, fish("cod", 3), True)]
    assert state.phase is Phase.FLIP_OR_STOP and state.active == 0
    assert legal_decisions(state) == (STOP, FLIP)
    assert play(state, FLIP) == [Flipped(0, fish("eel", 2), False)]
    events = play(state, STOP)
    assert events == [Kept(0, tuple(ids("cod:3 eel:2")), False), Flipped(1, fish("herring", 4), True)]
    assert names(state.collections[0]) == ["cod:3", "eel:2"] and state.row == [fish("herring", 4)]
    assert state.active == 1


@pytest.mark.parametrize(
    ("top", "flips", "discarded", "kept"),
    [
        ("cod:1 cod:4 bream:2", 1, "cod:1 cod:4", ""),  # the pair is the whole row: nothing kept
        ("cod:2 cod:2 bream:2", 1, "cod:2 cod:2", ""),  # the same value is a pair too
        ("eel:3 cod:1 herring:2 cod:2 bream:2", 3, "cod:1 herring:2 cod:2", "eel:3"),  # value does not matter
        ("eel:3 ide:4 cod:1 herring:2 jack:1 ide:1 bream:2", 5, "ide:4 cod:1 herring:2 jack:1 ide:1", "eel:3"),
        ("eel:3 cod:1 herring:2 eel:1 bream:2", 3, "eel:3 cod:1 herring:2 eel:1", ""),  # earlier card first: nothing kept
        ("eel:3 cod:1 herring:2 herring:1 bream:2", 3, "herring:2 herring:1", "eel:3 cod:1"),
    ],
)
def test_o3_a_bust_discards_the_pair_and_between_keeps_what_came_before(top, flips, discarded, kept):
    state = game(top)
    events = play(state, *[FLIP] * flips)
    assert Busted(0, tuple(ids(discarded)), tuple(ids(kept))) in events
    assert state.discard == ids(discarded)
    assert state.collections[0] == ids(kept)
    assert state.active == 1 and state.row == [fish("bream", 2)]  # the next turn's forced flip
    assert events[-1] == Flipped(1, fish("bream", 2), True)


def test_o3_an_octopus_as_the_first_card_with_nobody_to_rob_passes_the_turn():
    state = game("octopus cod:4")
    octo = OCTOPUS_IDS[0]
    assert state.events == [
        SessionStart(1, 0),
        Flipped(0, octo, True),
        Octopus(0, (octo,)),
        TheftSkipped(0),  # O5/O10: only "no theft" is possible, so nothing is asked
        Flipped(1, fish("cod", 4), True),
    ]
    assert state.discard == [octo] and state.active == 1 and state.phase is Phase.FLIP_OR_STOP


def test_o3_o10_an_octopus_with_only_the_thiefs_own_cards_out_passes_the_turn():
    state = game("cod:4 eel:1 eel:2 octopus bream:1")
    events = play(state, STOP, FLIP)  # player_0 keeps cod:4; player_1 busts on eel:2 and keeps nothing
    octo = OCTOPUS_IDS[0]
    assert state.collections == [ids("cod:4"), []]
    assert events[-4:] == [Flipped(0, octo, True), Octopus(0, (octo,)), TheftSkipped(0), Flipped(1, fish("bream", 1), True)]
    assert state.active == 1 and state.phase is Phase.FLIP_OR_STOP  # nobody else holds a card: no theft is asked


def test_o3_an_octopus_as_the_first_card_may_rob_an_opponent():
    state = game("cod:4 octopus")
    play(state, STOP)  # player_0 keeps cod:4; player_1's first card is the octopus
    assert state.active == 1 and state.phase is Phase.THEFT
    assert state.row == [] and state.discard == [OCTOPUS_IDS[0]]
    assert legal_decisions(state) == (NO_THEFT, Theft(0, 1))


def test_o3_an_octopus_discards_the_row():
    state = game("cod:4 eel:1 jack:2 octopus bream:1")
    events = play(state, FLIP, FLIP, FLIP)
    assert Octopus(0, (*ids("cod:4 eel:1 jack:2"), OCTOPUS_IDS[0])) in events
    assert state.discard == [*ids("cod:4 eel:1 jack:2"), OCTOPUS_IDS[0]]
    assert state.collections == [[], []]
    assert TheftSkipped(0) in events and state.active == 1


# ---- O5 -----------------------------------------------------------------------------------------

# player_0 keeps anchovy:4; player_1 keeps bream:4 cod:4 dory:4; player_0 flips an octopus.
THEFT_SETUP = "anchovy:4 bream:4 cod:4 dory:4 octopus eel:1"


def theft_position(dice: Sequence[int] = (), n: int = 2) -> OctopusState:
    state = game(THEFT_SETUP, n=n, dice=dice)
    play(state, STOP, FLIP, FLIP, STOP)
    assert state.active == 0 and state.phase is Phase.THEFT
    return state


def test_o5_the_theft_choices():
    state = theft_position()
    assert legal_decisions(state) == (NO_THEFT, Theft(1, 1), Theft(1, 2), Theft(1, 3))


@pytest.mark.parametrize(
    ("face", "k", "moved"),
    [
        (3, 1, 1),
        (3, 2, 2),
        (3, 3, 3),
        (2, 1, 1),
        (2, 2, 2),
        (2, 3, 0),  # 2 < 3: nothing
        (1, 1, 1),
        (1, 2, 0),
        (1, 3, 0),
        (-1, 1, -1),  # -1: the target takes one of the thief's cards, whatever k
        (-1, 2, -1),
        (-1, 3, -1),
    ],
)
def test_o5_each_die_face_against_each_k(face, k, moved):
    state = theft_position(dice=[face])
    thief_before, target_before = list(state.collections[0]), list(state.collections[1])
    events = play(state, Theft(1, k))
    assert events[0] == Rolled(0, 1, k, face)
    assert state.stacked_dice == []
    if moved > 0:
        (move,) = [e for e in events if isinstance(e, CardsMoved)]
        assert move.source == 1 and move.dest == 0 and len(move.cards) == moved
        assert set(move.cards) <= set(target_before)
        assert state.collections[0] == thief_before + list(move.cards)
        assert sorted(state.collections[1] + list(move.cards)) == sorted(target_before)
    elif moved < 0:
        assert CardsMoved(0, 1, (fish("anchovy", 4),)) in events
        assert state.collections[0] == [] and state.collections[1] == [*target_before, fish("anchovy", 4)]
    else:
        assert not any(isinstance(e, CardsMoved) for e in events)
        assert state.collections == [thief_before, target_before]
    assert state.active == 1  # the turn ended either way


def test_o5_minus_one_with_an_empty_thief_collection_does_nothing():
    # player_0 busts at once (empty collection); player_1 keeps bream:4; player_0 flips an octopus.
    state = game("anchovy:1 anchovy:2 bream:4 octopus eel:1", dice=[-1])
    play(state, FLIP, STOP)
    assert state.active == 0 and state.phase is Phase.THEFT and state.collections == [[], [fish("bream", 4)]]
    events = play(state, Theft(1, 1))
    assert events[0] == Rolled(0, 1, 1, -1)
    assert not any(isinstance(e, CardsMoved) for e in events)
    assert state.collections == [[], [fish("bream", 4)]]


def test_o5_a_theft_into_an_empty_collection():
    state = game("anchovy:1 anchovy:2 bream:4 octopus eel:1", dice=[3])
    play(state, FLIP, STOP)
    events = play(state, Theft(1, 1))
    assert CardsMoved(1, 0, (fish("bream", 4),)) in events
    assert state.collections == [[fish("bream", 4)], []]


def test_o5_the_whole_collection_can_be_stolen():
    state = theft_position(dice=[3])
    play(state, Theft(1, 3))
    assert sorted(state.collections[0]) == sorted(ids("anchovy:4 bream:4 cod:4 dory:4"))
    assert state.collections[1] == []


def test_o5_empty_collections_are_no_targets_and_k_is_at_most_the_collection():
    # 3 players: player_0 keeps cod:4; player_1 busts (empty); player_2 keeps eel:1 jack:1;
    # player_0 flips an octopus.
    state = game("cod:4 bream:1 bream:2 eel:1 jack:1 octopus ide:1", n=3)
    play(state, STOP, FLIP, FLIP, STOP)
    assert state.active == 0 and state.phase is Phase.THEFT
    assert [len(c) for c in state.collections] == [1, 0, 2]
    assert legal_decisions(state) == (NO_THEFT, Theft(2, 1), Theft(2, 2))


def test_o5_no_theft_rolls_no_die():
    state = theft_position(dice=[3])
    rng_before = repr(state.rng.bit_generator.state)
    events = play(state, NO_THEFT)
    assert events[0] == NoTheft(0)
    assert not any(isinstance(e, Rolled | CardsMoved) for e in events)
    assert state.stacked_dice == [3]  # the stacked roll is still there
    assert repr(state.rng.bit_generator.state) == rng_before  # and the generator drew nothing
    assert [len(c) for c in state.collections] == [1, 3]


def test_o5_unstacked_rolls_come_from_the_generator_each_face_about_equally():
    faces = Counter()
    for seed in range(600):
        state = new_game(2, seed, deck=stacked_deck(ids(THEFT_SETUP)))
        play(state, STOP, FLIP, FLIP, STOP, Theft(1, 1))
        (roll,) = [e for e in state.events if isinstance(e, Rolled)]
        faces[roll.face] += 1
    assert set(faces) == {-1, 1, 2, 3}
    assert 60 < faces[-1] < 140 and 150 < faces[1] < 250 and 60 < faces[2] < 140 and 150 < faces[3] < 250


# ---- O6-O9: whole sessions driven by a policy ---------------------------------------------------

Policy = Callable[[OctopusState], Decision]


def stop_at_once(state: OctopusState) -> Decision:
    return STOP if state.phase is Phase.FLIP_OR_STOP else NO_THEFT


def run(state: OctopusState, policy: Policy, sessions: int | None = None) -> None:
    """Play with `policy` until the game ends (or `sessions` sessions have been scored)."""
    while not state.is_over and (sessions is None or len(state.session_scores) < sessions):
        step(state, policy(state))


OCTOPUSES_FIRST = [*OCTOPUS_IDS]


def fish_ascending() -> list[int]:
    """Each species' cards 1,1,2,2,3,4, species after species."""
    return list(range(60))


def fish_mixed(descending: set[int]) -> list[int]:
    """Species by species; the species in `descending` come 4,3,2,2,1,1."""
    return [c for s in range(10) for c in (range(6 * s + 5, 6 * s - 1, -1) if s in descending else range(6 * s, 6 * s + 6))]


# With the six octopuses first nobody can be robbed (every collection is empty), so each flips
# one card and the turns alternate; then with 2 players stopping at once, player_0 keeps the fish
# at even positions and player_1 those at odd ones. Ascending species (1,1,2,2,3,4): player_0 holds
# 1,2,3 of each (30 points, O7), player_1 1,2,4 (40). Descending (4,3,2,2,1,1): 40 and 30.
ASC = [*OCTOPUSES_FIRST, *fish_ascending()]
DESC = [*OCTOPUSES_FIRST, *fish_mixed(set(range(10)))]
HALF = [*OCTOPUSES_FIRST, *fish_mixed({0, 1, 2, 3, 4})]  # 5*3 + 5*4 = 35 each
SEVEN = [*OCTOPUSES_FIRST, *fish_mixed(set(range(7)))]  # 7*4 + 3*3 = 37 and 7*3 + 3*4 = 33


@pytest.mark.parametrize(
    ("decks", "session_scores", "totals", "winners_"),
    [
        ([ASC, ASC], [(30, 40), (30, 40)], (60, 80), (1,)),  # one player passes 77
        ([ASC, DESC, DESC], [(30, 40), (40, 30), (40, 30)], (110, 100), (0,)),  # both pass in session 3: the higher wins
        ([ASC, DESC, HALF], [(30, 40), (40, 30), (35, 35)], (105, 105), (0, 1)),  # both pass, tied: shared
        ([DESC, ASC, HALF, HALF], [(40, 30), (30, 40), (35, 35)], (105, 105), (0, 1)),
        ([DESC, SEVEN], [(40, 30), (37, 33)], (77, 63), (0,)),  # exactly 77 ends the game (O9: "77 or more")
    ],
)
def test_o7_o9_sessions_scores_and_winners(decks, session_scores, totals, winners_):
    state = new_game(2, 0, deck=decks)
    run(state, stop_at_once)
    assert state.session_scores == session_scores
    assert tuple(state.totals) == totals
    assert state.is_over and not state.truncated and winners(state) == winners_
    assert state.events[-1] == GameEnded(winners_, totals, False)
    scored = [e for e in state.events if isinstance(e, SessionScored)]
    assert [e.scores for e in scored] == session_scores
    assert legal_decisions(state) == ()


def test_o6_o8_the_last_card_mid_turn_is_a_forced_stop_and_the_next_session_continues_the_order():
    # Octopuses first, then every fish ascending except anchovy:4, which is last. Stopping at once,
    # player_0 flips the 59th fish (jack:4, an even position) with one card left, flips again
    # (anchovy:4, another species) and must stop: the deck is empty.
    order = [*OCTOPUSES_FIRST, *[c for c in range(60) if c != fish("anchovy", 4)], fish("anchovy", 4)]

    def policy(state: OctopusState) -> Decision:
        return FLIP if len(state.deck) == 1 else STOP

    state = new_game(2, 0, deck=[order, stacked_deck(ids("cod:4"))], max_sessions=2)
    run(state, policy, sessions=1)
    kept = [e for e in state.events if isinstance(e, Kept)]
    assert kept[-1] == Kept(0, tuple(ids("jack:4 anchovy:4")), True)  # O3: forced
    assert legal_decisions(state) == (STOP, FLIP)
    # O7: player_0 holds anchovy 1,2,3,4 and 2,4 of every other species... best 4 each: 40;
    # player_1 holds anchovy 1,2 and 1,2,3 of every other species: 2 + 9 * 3 = 29.
    assert state.session_scores == [(40, 29)]
    # O8: player_0 took the last turn, so player_1 starts session 2 with a fresh deck.
    assert state.events[-3:] == [SessionScored(1, (40, 29), (40, 29)), SessionStart(2, 1), Flipped(1, fish("cod", 4), True)]
    assert state.session == 2 and state.active == 1 and state.collections == [[], []] and state.discard == []
    assert len(state.deck) == 65 and state.row == [fish("cod", 4)]


@pytest.mark.parametrize(("n", "second_first"), [(2, 0), (3, 0), (4, 2)])
def test_o8_the_seat_order_continues_into_the_next_session(n, second_first):
    # 66 one-card turns from player_0: the last is seat 65 mod n; the next session starts clockwise after.
    state = new_game(n, 0, deck=[ASC, stacked_deck(ids("cod:4"))])
    run(state, stop_at_once, sessions=1)
    assert state.events[-2:] == [SessionStart(2, second_first), Flipped(second_first, fish("cod", 4), True)]
    assert state.active == second_first


def test_o6_a_session_ending_on_an_octopus_is_scored_after_its_theft():
    # Five octopuses first (no thefts possible), the 60 fish ascending, the sixth octopus last.
    # 66 one-card turns from player_0: fish i is turn 6 + i, seat (5 + i) % 2, so player_1 holds
    # the even positions (1,2,3 of each species: 30), player_0 the odd ones (1,2,4: 40). The last
    # turn (66) is player_1's: the octopus, and she steals one card from player_0 with a 3.
    order = [*OCTOPUS_IDS[:5], *range(60), OCTOPUS_IDS[5]]

    def policy(state: OctopusState) -> Decision:
        return STOP if state.phase is Phase.FLIP_OR_STOP else Theft(0, 1)

    state = new_game(2, 0, deck=order, dice=[3], max_sessions=1)
    run(state, policy)
    tail = state.events[-6:]
    assert tail[0] == Flipped(1, OCTOPUS_IDS[5], True) and tail[1] == Octopus(1, (OCTOPUS_IDS[5],))
    assert tail[2] == Rolled(1, 0, 1, 3)
    assert isinstance(tail[3], CardsMoved) and tail[3].source == 0 and tail[3].dest == 1
    (stolen,) = tail[3].cards
    # O7: a stolen 4 beats the thief's 3 of that species (+1) and leaves the victim her 2 (-2);
    # a stolen 1 or 2 changes neither score.
    four = CARD_VALUES[stolen] == 4
    thief, victim = 30 + four, 40 - 2 * four
    assert tail[4] == SessionScored(1, (victim, thief), (victim, thief))
    assert tail[5] == GameEnded((0,), (victim, thief), True)  # O12: the cap of one session, a truncation
    assert state.is_over and state.truncated and winners(state) == (0,)
    assert sorted(state.collections[0] + state.collections[1]) == list(range(60))
    assert stolen in state.collections[1] and stolen % 2 == 1  # one of player_0's (odd positions)


def test_o12_the_session_cap_is_a_truncation_and_without_it_play_goes_on():
    capped = new_game(2, 0, deck=[ASC, ASC], max_sessions=1)
    run(capped, stop_at_once)
    assert capped.is_over and capped.truncated and capped.totals == [30, 40]
    assert capped.events[-1] == GameEnded((1,), (30, 40), True)
    uncapped = new_game(2, 0, deck=[ASC, ASC])
    run(uncapped, stop_at_once)
    assert uncapped.session == 2 and not uncapped.truncated


@pytest.mark.parametrize(
    ("cards", "score"),
    [
        ("", 0),
        ("cod:1", 1),
        ("cod:1 cod:4 cod:2", 4),  # only the highest of a species counts
        ("cod:1 cod:1 cod:2 cod:2", 2),
        ("anchovy:1 bream:4 cod:3 cod:1 dory:3 dory:2", 11),  # the rulebook's example: 1 + 4 + 3 + 3
        (" ".join(f"{s}:{v}" for s in SPECIES_NAMES for v in (1, 1, 2, 2, 3, 4)), 40),
    ],
)
def test_o7_session_score(cards, score):
    assert session_score(ids(cards)) == score


# ---- O10: illegal decisions ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", [NO_THEFT, Theft(1, 1), "sit", None, 1, True, (1, 1), "no_theft"])
def test_o10_illegal_decisions_at_flip_or_stop_change_nothing(bad):
    state = game("cod:3 eel:2 herring:4")
    before = snapshot(state)
    with pytest.raises(IllegalDecisionError, match=r"legal decisions: stop, flip") as info:
        step(state, bad)
    assert isinstance(info.value, ValueError) and "player_0" in str(info.value)
    assert snapshot(state) == before


@pytest.mark.parametrize("bad", [STOP, FLIP, Theft(0, 1), Theft(1, 0), Theft(1, 4), Theft(2, 1), (1, True), (1, 2, 3), "theft"])
def test_o10_illegal_thefts_change_nothing(bad):
    state = theft_position(dice=[3])
    before = snapshot(state)
    with pytest.raises(IllegalDecisionError, match=r"no_theft, Theft\(target=1, k=1\)"):
        step(state, bad)
    assert snapshot(state) == before


def test_o10_a_theft_larger_than_the_collection_is_refused():
    state = game("anchovy:1 anchovy:2 bream:4 octopus eel:1", dice=[3])
    play(state, FLIP, STOP)
    before = snapshot(state)
    with pytest.raises(IllegalDecisionError):
        step(state, Theft(1, 2))
    assert snapshot(state) == before
    assert step(state, (1, 1))  # a plain tuple names a theft too


def test_o10_no_decision_after_the_end():
    state = new_game(2, 0, deck=ASC, max_sessions=1)
    run(state, stop_at_once)
    before = snapshot(state)
    with pytest.raises(IllegalDecisionError, match="the game is over; legal decisions: none"):
        step(state, STOP)
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 1},
        {"num_players": 5},
        {"num_players": True},
        {"num_players": 2, "rng": -1},
        {"num_players": 2, "rng": "x"},
        {"num_players": 2, "deck": list(range(65))},
        {"num_players": 2, "deck": [0] * 66},
        {"num_players": 2, "deck": []},
        {"num_players": 2, "deck": [list(range(66)), [1, 2]]},
        {"num_players": 2, "dice": [0]},
        {"num_players": 2, "dice": [4]},
        {"num_players": 2, "max_sessions": 0},
        {"num_players": 2, "rng": 1, "seed": 1},
    ],
)
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(InvalidConfigError):
        new_game(**kwargs)


# ---- O11 and properties of random legal play ----------------------------------------------------


def random_game(
    n: int, seed: int, choices: int, max_sessions: int | None = None, check: bool = False, variant: Variant | None = None
) -> OctopusState:
    """A game on `seed` whose decisions are drawn by a generator seeded `choices`; with `check`,
    the invariants are asserted after every step."""
    variant = Variant() if variant is None else variant
    state = new_game(n, seed, max_sessions=max_sessions, variant=variant)
    picker = np.random.default_rng(choices)
    steps = 0
    while not state.is_over:
        before_totals = list(state.totals)
        legal = legal_decisions(state)
        assert legal and len(set(legal)) == len(legal)
        step(state, legal[int(picker.integers(len(legal)))])
        steps += 1
        assert steps < 5_000, "the game did not end"
        if check:
            assert accounted(state) == list(variant.cards)  # all its cards (the full game's 66), each once
            assert all(b <= a for b, a in zip(before_totals, state.totals, strict=True))  # totals only grow
            assert state.collections == collections_from_events(state)
            assert not any(is_oct for is_oct in (c >= 60 for coll in state.collections for c in coll))
            assert (state.phase is Phase.THEFT) == (state.row == [] and isinstance(state.events[-1], Octopus))
    return state


def collections_from_events(state: OctopusState) -> list[list[int]]:
    """Every collection rebuilt from the event log alone (what a recall view or a replay would do)."""
    colls: list[list[int]] = [[] for _ in range(state.num_players)]
    for e in state.events:
        if isinstance(e, SessionStart):
            colls = [[] for _ in range(state.num_players)]
        elif isinstance(e, Kept):
            colls[e.seat].extend(e.cards)
        elif isinstance(e, Busted):
            colls[e.seat].extend(e.kept)
        elif isinstance(e, CardsMoved):
            for c in e.cards:
                colls[e.source].remove(c)
            colls[e.dest].extend(e.cards)
    return colls


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), choices=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_card_and_ends(n, seed, choices):
    state = random_game(n, seed, choices, check=True)
    assert state.is_over and not state.truncated
    assert max(state.totals) >= 77
    assert state.session_scores == [e.scores for e in state.events if isinstance(e, SessionScored)]
    assert [sum(col) for col in zip(*state.session_scores, strict=True)] == state.totals
    best = max(state.totals)
    assert winners(state) == tuple(i for i, t in enumerate(state.totals) if t == best)
    assert state.events[-1] == GameEnded(winners(state), tuple(state.totals), False)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), choices=st.integers(0, 2**32 - 1))
def test_o11_same_seed_and_decisions_same_game(n, seed, choices):
    a = random_game(n, seed, choices, max_sessions=2)
    b = random_game(n, seed, choices, max_sessions=2)
    assert a.events == b.events and a.totals == b.totals
    # a generator passed in plays the same game as its seed
    c = new_game(n, np.random.default_rng(seed), max_sessions=2)
    picker = np.random.default_rng(choices)
    while not c.is_over:
        legal = legal_decisions(c)
        step(c, legal[int(picker.integers(len(legal)))])
    assert c.events == a.events


def test_o11_a_clone_plays_on_identically():
    state = new_game(3, 5)
    picker = np.random.default_rng(0)
    for _ in range(30):
        legal = legal_decisions(state)
        step(state, legal[int(picker.integers(len(legal)))])
    twin = state.clone()
    for s in (state, twin):
        p = np.random.default_rng(1)
        for _ in range(40):
            legal = legal_decisions(s)
            step(s, legal[int(p.integers(len(legal)))])
    assert twin.events == state.events and twin.collections == state.collections


def test_o11_different_seeds_shuffle_differently():
    decks = {tuple(new_game(2, seed).deck) for seed in range(5)}
    assert len(decks) == 5


# ---- integer actions ----------------------------------------------------------------------------


def test_actions_name_decisions_relative_to_the_seat_that_acts():
    # 3 players, player_0 to rob: player_2 (offset 2) holds two cards, player_1 none.
    state = game("cod:4 bream:1 bream:2 eel:1 jack:1 octopus ide:1", n=3)
    play(state, STOP, FLIP, FLIP, STOP)
    assert NUM_ACTIONS == 12
    assert action_mask(state).tolist() == [0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]
    assert [decision_of(state, a) for a in (2, 6, 7)] == [NO_THEFT, Theft(2, 1), Theft(2, 2)]
    assert [action_of(state, d) for d in legal_decisions(state)] == [2, 6, 7]
    for bad in (-1, 12, True, "2"):
        with pytest.raises(IllegalDecisionError, match="actions are 0-11"):
            decision_of(state, bad)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_the_mask_is_the_legal_decisions_and_never_empty_while_playing(n, seed):
    state = new_game(n, seed, max_sessions=1)
    picker = np.random.default_rng(seed)
    while not state.is_over:
        mask = action_mask(state)
        legal = np.flatnonzero(mask)
        assert legal.size > 0
        assert [decision_of(state, int(a)) for a in legal] == sorted(legal_decisions(state), key=lambda d: action_of(state, d))
        step(state, decision_of(state, int(legal[picker.integers(legal.size)])))
    assert not action_mask(state).any()


# ---- OV1-OV3: small variants ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "cards"),
    [
        # OV1: the first `species` species, of each the fish of `values`, then the first octopuses; ids unchanged
        (Variant(species=2, values=(1, 2), octopuses=1, target=1), "anchovy:1 anchovy:2 bream:1 bream:2 octopus"),
        (Variant(species=1, values=(2, 1, 1), octopuses=0), "anchovy:1 anchovy:1 anchovy:2"),
        (Variant(species=3, values=(4,), octopuses=2), "anchovy:4 bream:4 cod:4 octopus octopus"),
        (Variant(), " ".join(f"{s}:{v}" for s in SPECIES_NAMES for v in (1, 1, 2, 2, 3, 4)) + " octopus" * 6),
    ],
)
def test_ov1_a_variant_plays_exactly_its_cards(variant, cards):
    assert variant.cards == tuple(sorted(ids(cards)))
    state = new_game(2, 7, variant=variant)
    assert sorted(state.deck + [e.card for e in state.events if isinstance(e, Flipped)]) == list(variant.cards)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"species": 0}, "species=0 is not allowed; it is an integer from 1 to 10"),
        ({"species": 11}, "species=11 is not allowed"),
        ({"values": (1, 1, 1)}, r"values=\(1, 1, 1\) are not a part of a species' six fish"),
        ({"values": (5,)}, r"values=\(5,\) are not a part"),
        ({"values": ()}, "leave no fish"),
        ({"values": "12"}, "values='12' are not allowed"),
        ({"octopuses": 7}, "octopuses=7 is not allowed; it is an integer from 0 to 6"),
        ({"target": 0}, "target=0 is not allowed"),
        ({"target": 1.5}, "target=1.5 is not allowed"),
    ],
)
def test_ov1_a_variant_outside_the_game_is_refused(settings, message):
    with pytest.raises(InvalidConfigError, match=message):
        Variant(**settings)


def test_ov1_a_stacked_deck_of_a_variant_is_a_permutation_of_its_cards():
    small = Variant(species=2, values=(1, 2), octopuses=1)
    assert stacked_deck(ids("octopus bream:2"), small) == (60, 8, 0, 2, 6)
    with pytest.raises(InvalidConfigError, match=r"cards \[12\] that the variant does not play"):
        stacked_deck(ids("cod:1"), small)
    with pytest.raises(InvalidConfigError, match=r"of the variant \[0, 2, 6, 8, 60\]"):
        new_game(2, 0, deck=list(range(NUM_CARDS)), variant=small)


def test_ov2_the_game_ends_after_the_session_in_which_a_total_reaches_the_variant_s_target():
    # 2 species x (1, 2), no octopus, every turn stops at its first card: player_0 keeps anchovy:2 and
    # bream:2 (4 points), player_1 bream:1 and anchovy:1 (2 points).
    deck = ids("anchovy:2 bream:1 bream:2 anchovy:1")
    state = new_game(2, 0, deck=deck, variant=Variant(species=2, values=(1, 2), octopuses=0, target=3))
    run(state, stop_at_once)
    assert state.session_scores == [(4, 2)]
    assert state.is_over and not state.truncated and state.events[-1] == GameEnded((0,), (4, 2), False)
    higher = new_game(2, 0, deck=[deck, deck], variant=Variant(species=2, values=(1, 2), octopuses=0, target=5))
    run(higher, stop_at_once)  # 4 points is short of 5: a second session, player_0 first again (O8: player_1 took the last turn)
    assert higher.session_scores == [(4, 2), (4, 2)] and higher.is_over and higher.events[-1] == GameEnded((0,), (8, 4), False)


def test_ov3_the_full_game_deals_as_it_did_before_variants():
    # the full game's shuffle is still the stable argsort of 66 uniforms of the game's generator
    state = new_game(3, 123)
    expected = np.argsort(np.random.default_rng(123).random(NUM_CARDS), kind="stable").tolist()
    flipped = [e.card for e in state.events if isinstance(e, Flipped)]
    assert flipped + state.deck[::-1] == expected


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), choices=st.integers(0, 2**32 - 1), octopuses=st.integers(0, 2))
def test_ov1_ov2_random_play_of_a_small_variant_keeps_its_cards_and_ends(n, seed, choices, octopuses):
    small = Variant(species=3, values=(1, 2, 3), octopuses=octopuses, target=8)
    state = random_game(n, seed, choices, check=True, variant=small, max_sessions=50)
    assert state.is_over
    assert state.truncated or max(state.totals) >= 8
    assert all(score <= 3 * 3 for scores in state.session_scores for score in scores)  # 3 species, best value 3
