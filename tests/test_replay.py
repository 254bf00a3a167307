"""Replays: saved games play back bit for bit through the env; bad replays are refused.

The oracle tests (`pytest -m oracle`) are the checker (every kind of tampering is refused) and the
playback: a replay played through `rules.py` gives the records, scores and winners the env and the
arena's batched engine gave, and the reference `Encoder` shows every seat, at every step, exactly what
the env (on the compiled engine) showed it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium.utils import seeding
from helpers import run_module
from hypothesis import given, settings
from hypothesis import strategies as st

import miaui_env
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.replays import ReplayError
from miaui_env.games.miaui.arena import ArenaConfig, run
from miaui_env.games.miaui.cards import DEFAULT_DECK
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.replay import (
    REPLAY_VERSION,
    dealt_deck,
    frames,
    hand_history,
    load_replay,
    record_replay,
    replay_from_json,
    replay_states,
    replay_to_json,
    save_replay,
)
from miaui_env.games.miaui.rules import GameConfig, new_game, play_round, scores, winners
from miaui_env.games.miaui.saved_state import record_to_dict
from miaui_env.games.miaui.spec import TableSpec


def played_game(settings_: dict, seed: int, rng: np.random.Generator, deck=None):
    """A random legal game through the parallel env: its plays, every step's observations and records."""
    env = miaui_env.parallel_env(**settings_)
    observations, _ = env.reset(seed=seed, options=None if deck is None else {"deck": list(deck)})
    first = env.game.clone()
    plays, seen, records = [], [observations], []
    while env.agents:
        actions = {agent: int(rng.choice(np.flatnonzero(o["action_mask"]))) for agent, o in observations.items()}
        plays.append([actions[f"player_{s}"] + 1 for s in range(settings_["num_players"])])
        observations, _, _, _, infos = env.step(actions)
        seen.append(observations)
        records += [record_to_dict(record) for record in infos["player_0"]["round_results"]]
    return first, plays, seen, records


def assert_same_observations(mine: list[dict], theirs: list[dict]) -> None:
    assert len(mine) == len(theirs)
    for step, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert a.keys() == b.keys(), step
        for agent in a:
            np.testing.assert_array_equal(a[agent]["observation"], b[agent]["observation"], strict=True)


@pytest.mark.oracle
@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(3, 6),
    open_baskets=st.booleans(),
    no_fighting=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
    by_deck=st.booleans(),
    view=st.sampled_from(["table", "recall"]),
)
def test_random_games_replay_identically_and_the_env_showed_what_the_reference_encoder_does(
    n, open_baskets, no_fighting, seed, by_deck, view
):
    table = {"num_players": n, "open_baskets": open_baskets, "no_fighting": no_fighting}
    first, plays, seen, records = played_game({**table, "view": view}, seed, np.random.default_rng(seed))
    deal = {"deck": dealt_deck(first)} if by_deck else {"seed": seed}
    replay = replay_from_json(replay_to_json(record_replay(GameConfig(**table), plays, **deal)))
    assert list(replay.records) == records
    # What the env, on the compiled engine, showed each seat after the deal and after every reveal is
    # what the reference Encoder shows of the replay's states, played back through rules.py.
    encoder = Encoder(replay.config, view)
    states = replay_states(replay)
    assert len(states) == len(seen) == 12
    for step, state in enumerate(states):
        encoder.refresh(state)
        for seat in range(n):
            np.testing.assert_array_equal(seen[step][f"player_{seat}"]["observation"], encoder.observe(seat), strict=True)
    # through the env again, dealt as the replay says: the same records and observations at every step
    _, again_plays, again_seen, again_records = played_game(
        {**table, "view": view}, replay.seed if replay.seed is not None else 0, _Replayer(replay.plays), deck=replay.deck
    )
    assert again_plays == plays and again_records == records
    assert_same_observations(again_seen, seen)


class _Replayer:
    """A stand-in for a generator that picks the replay's cards in order (for `played_game`)."""

    def __init__(self, plays):
        self.cards = iter(card - 1 for cards in plays for card in cards)

    def choice(self, legal):
        card = next(self.cards)
        assert card in legal
        return card


def good_replay_text() -> str:
    _, plays, _, _ = played_game({"num_players": 4}, 7, np.random.default_rng(7))
    return replay_to_json(record_replay(GameConfig(num_players=4), plays, seed=7))


def edited(text: str, change) -> str:
    data = json.loads(text)
    change(data)
    return json.dumps(data)


def swap_two_cards(data: dict) -> None:
    # two seats' cards of round 3 swapped: still legal cards, but not the game the records tell
    for round_index in range(2, 11):
        a, b = data["plays"][round_index][0], data["plays"][round_index][1]
        if a not in data["plays"][round_index - 1] and a != b:
            data["plays"][round_index][0], data["plays"][round_index][1] = b, a
            return


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda text: text[: len(text) // 2], "a replay is JSON"),
        (lambda text: edited(text, lambda d: d.update(version=2)), f"version 2; this library reads version {REPLAY_VERSION}"),
        (lambda text: edited(text, lambda d: d.pop("plays")), r"missing \['plays'\]"),
        (lambda text: edited(text, lambda d: d["plays"][4].__setitem__(0, d["plays"][0][0])), "round 5: .*not in hand|round 5"),
        (lambda text: edited(text, lambda d: d["plays"][2].__setitem__(1, "7")), "a play is a diver card 1-12, got '7'"),
        (lambda text: edited(text, lambda d: d["scores"].__setitem__(0, 99)), "scores .* are not the game's"),
        (
            lambda text: edited(text, lambda d: d.update(winners=[s for s in range(4) if s not in d["winners"]])),
            "and winners are not the game's",
        ),
        (lambda text: edited(text, lambda d: d["records"].pop()), "holds 11 round records; its cards make 12"),
        (lambda text: edited(text, lambda d: d["players"].pop()), "players names 3 seats at a table of 4"),
        (
            lambda text: edited(text, lambda d: d["records"][3].__setitem__("plays", [1, 2, 3, 4])),
            "round 4's record is not what its cards make",
        ),
        (lambda text: edited(text, lambda d: d.update(seed=None, deck=None)), "needs the deal: a seed or a deck"),
        (lambda text: edited(text, lambda d: d["settings"].update(num_players=9)), "num_players=9"),
        (lambda text: "[1, 2]", "a JSON object"),
        (lambda text: "[" * 100_000 + "]" * 100_000, "nested too deep"),
        (lambda text: text.replace('"seed": 7', '"seed": ' + "9" * 5000), "a replay is JSON; .*5000 digits"),
        (lambda text: edited(text, lambda d: d.update(version=True)), "version True"),
        (lambda text: edited(text, lambda d: d.update(version=1.0)), "version 1.0"),
        (lambda text: edited(text, lambda d: d.update(players="abcd")), "players are a list of one name"),
        (lambda text: edited(text, lambda d: d.update(players=[1, 2, 3, 4])), "players are a list of one name"),
        (lambda text: edited(text, lambda d: d.update(scores=[str(s) for s in d["scores"]])), "scores are a list of integers"),
        (lambda text: edited(text, lambda d: d.update(scores=[float(s) for s in d["scores"]])), "scores are a list of integers"),
        (lambda text: edited(text, lambda d: d.update(winners=[str(w) for w in d["winners"]])), "winners are a list of integers"),
        (lambda text: edited(text, lambda d: d.update(winners=[bool(w) for w in d["winners"]])), "winners are a list of integers"),
        (lambda text: edited(text, lambda d: d.update(plays="abc")), "plays are a list of rounds"),
        (lambda text: edited(text, lambda d: d.update(records={})), "records a list"),
    ],
)
def test_bad_replays_are_refused_with_a_clear_error(change, message):
    with pytest.raises(ReplayError, match=message):
        replay_from_json(change(good_replay_text()))


@pytest.mark.parametrize("path", [None, "", 3, "bad\0name.json"])
def test_a_replay_path_that_names_no_file_is_refused(path):
    with pytest.raises(ReplayError, match=r"a replay path is .*; it must be a file path"):
        load_replay(path)
    with pytest.raises(ReplayError, match=r"a replay path is .*; it must be a file path"):
        save_replay(replay_from_json(good_replay_text()), path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda plays: [[card + 0.9 for card in cards] for cards in plays], "got 1.9; cards are ints"),
        (lambda plays: [[True] * 4, *plays[1:]], "got True"),
        (lambda plays: "plays", "plays are a list of rounds"),
    ],
)
def test_record_replay_refuses_plays_that_are_not_int_cards(change, message):
    plays = [[card] * 4 for card in range(1, 12)]
    with pytest.raises(ReplayError, match=message):
        record_replay(GameConfig(num_players=4), change(plays), seed=0)
    assert record_replay(GameConfig(num_players=4), [[np.int64(c) for c in cards] for cards in plays], seed=0).plays[0] == (1, 1, 1, 1)


@pytest.mark.parametrize(("players", "message"), [(["a", "b"], "names 2 seats at a table of 4"), ("abcd", "players are a list")])
def test_record_replay_refuses_names_a_saved_file_could_not_be_read_back_with(players, message):
    with pytest.raises(ReplayError, match=message):
        record_replay(GameConfig(num_players=4), [[card] * 4 for card in range(1, 12)], seed=0, players=players)


def test_the_replay_command_refuses_a_seat_without_a_gif(tmp_path):
    good = save_replay(replay_from_json(good_replay_text()), tmp_path / "good.json")
    done = run_module("miaui_env.apps.replay", str(good), "--seat", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "give --gif OUT.gif with it" in done.stderr


@pytest.mark.oracle
def test_an_edited_card_is_caught_where_the_game_changes():
    with pytest.raises(ReplayError, match=r"record is not what its cards make|not in hand|which it played in an earlier round"):
        replay_from_json(edited(good_replay_text(), swap_two_cards))


@pytest.mark.oracle
def test_a_game_cut_short_is_refused_even_when_its_records_and_scores_agree():
    data = json.loads(good_replay_text())
    state = new_game(GameConfig(num_players=4), seeding.np_random(7)[0])  # the game's deal: reset(seed=7)
    for cards in data["plays"][:10]:
        play_round(state, cards)
    data.update(plays=data["plays"][:10], records=data["records"][:10], scores=list(scores(state)), winners=list(winners(state)))
    with pytest.raises(ReplayError, match="holds the 11 chosen rounds of a whole game; this one holds 10"):
        replay_from_json(json.dumps(data))


def test_a_replay_records_its_table_from_a_game_config_or_a_table_spec():
    _, plays, _, _ = played_game({"num_players": 4, "no_fighting": True}, 3, np.random.default_rng(3))
    by_config = record_replay(GameConfig(num_players=4, no_fighting=True), plays, seed=3)
    by_spec = record_replay(TableSpec(num_players=4, no_fighting=True, view="recall", reward="score"), plays, seed=3)
    assert by_spec == by_config and by_config.config == GameConfig(num_players=4, no_fighting=True)
    with pytest.raises(InvalidConfigError, match="a GameConfig or a TableSpec; got dict"):  # 0.1's form, gone since 0.3
        record_replay({"num_players": 4, "no_fighting": True, "view": "table"}, plays, seed=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigError, match="a GameConfig or a TableSpec; got str"):
        record_replay("4 players", plays, seed=3)
    with pytest.raises(InvalidConfigError, match=r"records 12-round games of R2.s deck"):  # the file could not say which deck
        record_replay(GameConfig(num_players=4, deck=tuple(reversed(DEFAULT_DECK))), plays, seed=3)


def test_the_file_keeps_its_format():
    text = good_replay_text()
    assert list(json.loads(text)) == ["version", "settings", "players", "seed", "deck", "plays", "records", "scores", "winners"]
    assert json.loads(text)["settings"] == {"num_players": 4, "open_baskets": False, "no_fighting": False}
    replay = replay_from_json(text)
    assert replay.config == GameConfig(num_players=4) and replay_to_json(replay) == text
    assert not hasattr(replay, "settings")  # 0.1's attribute, gone since 0.3


def test_arena_replays_are_the_games_the_arena_played(tmp_path):
    config = ArenaConfig(num_players=4, games=8, seed=5)
    result = run(["counter", "greedy"], "gauntlet", config, tmp_path, show_progress=False, replays=5)
    files = sorted((tmp_path / "replays").glob("game-*.json"))
    assert len(files) == 5 and result.duplicate_sets == 2
    arena = json.loads((tmp_path / "arena.json").read_text())
    assert arena  # the usual results are written too
    for path in files:
        replay = load_replay(path)
        assert sorted(set(replay.players)) == ["counter", "greedy"]
        assert len(frames(replay)) == 12  # after the deal and after each of the 11 reveals
        assert "final scores:" in hand_history(replay)


@pytest.mark.oracle
@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("no_fighting", [False, True])
def test_arena_games_are_the_games_the_rules_play_from_their_deals(players, no_fighting):
    """Every game the arena's batched engine played, played again through rules.py from its deal seed
    and its cards: the same final scores and winners (R10), on every table."""
    from miaui_env.games.miaui.agents import RandomAgent
    from miaui_env.games.miaui.agents.heuristics import CountingAgent, GreedyAgent
    from miaui_env.games.miaui.arena import SampleGames, play

    games = 5 * players  # 5 duplicate sets: 5 deals, each played with every rotation
    samples = SampleGames(games)
    config = ArenaConfig(num_players=players, games=games, no_fighting=no_fighting, seed=11 + players)
    _, totals, won = play([CountingAgent(1), GreedyAgent(2), RandomAgent(3)], "gauntlet", config, samples=samples)
    table = GameConfig(num_players=players, no_fighting=no_fighting)
    for game in range(games):
        replay = record_replay(table, samples.plays[game], seed=int(samples.seeds[game]))
        assert list(replay.scores) == totals[game].tolist(), game
        assert list(replay.winners) == np.flatnonzero(won[game]).tolist(), game


def test_human_play_saves_a_replay_that_prints_back(tmp_path):
    path = tmp_path / "mine.json"
    typed = "\n".join(map(str, range(1, 12))) + "\n"  # diver cards 1 to 11, one a round
    done = run_module("miaui_env.apps.play", "--players", "3", "--seed", "4", "--opponents", "greedy", "--replay", str(path), input=typed)
    assert done.returncode == 0, done.stderr
    replay = load_replay(path)
    assert replay.players == ("you", "greedy", "greedy") and replay.seed == 4
    assert [cards[0] for cards in replay.plays] == list(range(1, 12))
    shown = run_module("miaui_env.apps.replay", str(path), "--gif", str(tmp_path / "game.gif"), "--seat", "0")
    assert shown.returncode == 0, shown.stderr
    assert "round 11 reveal" in shown.stdout and "winners:" in shown.stdout
    from PIL import Image

    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == 12


def test_the_replay_command_refuses_a_bad_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 7}')
    done = run_module("miaui_env.apps.replay", str(bad))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "replay format version 7" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.oracle
def test_saved_replays_round_trip_through_files(tmp_path):
    replay = replay_from_json(good_replay_text())
    assert load_replay(save_replay(replay, tmp_path / "a" / "b.json")) == replay


def test_both_games_replay_files_are_read_and_written_by_one_pair_of_helpers(tmp_path):
    from miaui_env.core.replays import ReplayError, read_replay_file, write_replay_file
    from miaui_env.games.octopus import replay as octopus_replay

    written = write_replay_file("{}", tmp_path / "new" / "a.json", octopus_replay.OctopusReplayError)
    assert written.read_text() == "{}"
    (tmp_path / "bad.json").write_bytes(b"\xff")
    for load, error in ((load_replay, ReplayError), (octopus_replay.load_replay, octopus_replay.OctopusReplayError)):
        with pytest.raises(error, match=r"bad\.json: cannot be read as a replay"):
            load(tmp_path / "bad.json")
        with pytest.raises(error, match=r"a\.json: "):
            load(written)

    def refuse(text: str) -> None:
        raise octopus_replay.OctopusReplayError(f"refused {text}")

    with pytest.raises(octopus_replay.OctopusReplayError, match=r"a\.json: refused \{\}"):
        read_replay_file(written, octopus_replay.OctopusReplayError, refuse)
