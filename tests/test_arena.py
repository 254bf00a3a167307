"""The arena: fair schedules, reproducible numbers, files, agent specs, and the command line.

The oracle tests (`pytest -m oracle`) are the schedule, the duplicate deals and the statistics; the
statistics are checked on games whose outcome the rules decide (stacked decks, R8, R10) and on
hand-made results whose numbers are worked out here from their definitions.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from helpers import (
    SHARED_VICTORY_HIGH_SCORE,
    SHARED_VICTORY_PUT_BACK,
    SHARED_VICTORY_ROUNDS,
    RecordingAgent,
    highest_card,
    run_module,
    stacked_deck,
)
from helpers import lowest_card as lowest_policy

from miaui_env.apps.arena import main
from miaui_env.core.arena import gauntlet_significance, lineups, summarize, table
from miaui_env.core.checkpoint import CheckpointVersionError
from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.loading import AgentSpecError
from miaui_env.core.policy import load_sb3_policy
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.agents.heuristics import GreedyAgent
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.arena import ArenaConfig, play, run
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.miaui.vector import VectorMiaui


def lowest_card(observations, masks):
    """A module-level policy for the module:callable spec."""
    return np.argmax(masks, axis=1)


def make_random(seed=None):
    """A module-level agent factory."""
    return RandomAgent(seed)


@pytest.mark.oracle
def test_duplicate_sets_rotate_every_agent_through_every_seat():
    config = ArenaConfig(num_players=4, games=400, seed=0, batch_games=64)
    seats, _, winners = play([RandomAgent(0), GreedyAgent(1), RandomAgent(2)], "gauntlet", config)
    assert seats.shape == (400, 4)
    for set_start in range(0, 400, 4):
        block = seats[set_start : set_start + 4]
        assert sorted(np.flatnonzero(block == 0) % 4) == [0, 1, 2, 3]  # the candidate in every seat once
        for r in range(4):
            np.testing.assert_array_equal(block[r], np.roll(block[0], r))
    assert (winners.sum(axis=1) >= 1).all()


@pytest.mark.oracle
def test_same_numbers_from_the_same_seed():
    config = ArenaConfig(num_players=3, games=90, seed=5, batch_games=30)
    first = play([GreedyAgent(0), RandomAgent(1)], "pool", config)
    second = play([GreedyAgent(0), RandomAgent(1)], "pool", config)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.oracle
def test_every_game_of_a_duplicate_set_is_dealt_the_same():
    # Two copies of one deterministic policy: whatever the rotation, each set replays one game.
    config = ArenaConfig(num_players=4, games=200, seed=6, batch_games=40)
    _, scores, _ = play([load_agent("test_arena:lowest_card"), load_agent("test_arena:lowest_card")], "pool", config)
    for set_start in range(0, 200, 4):
        assert (scores[set_start : set_start + 4] == scores[set_start]).all()
    assert len({tuple(row) for row in scores}) > 10  # and the sets are different deals


@pytest.mark.oracle
def test_pool_tables_cover_every_pairing():
    tables = lineups("pool", 5, 4, 5)
    assert {tuple(t) for t in tables} == {(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4), (1, 2, 3, 4)}
    small = lineups("pool", 2, 4, 2)
    assert (small == [[0, 1, 0, 1], [1, 0, 1, 0]]).all()


@pytest.mark.oracle
def test_summary_numbers_are_consistent():
    config = ArenaConfig(num_players=4, games=800, seed=2, batch_games=400)
    seats, scores, winners = play([GreedyAgent(0), RandomAgent(1)], "gauntlet", config)
    results = summarize(["greedy", "random"], seats, scores, winners, 4)
    greedy, random_ = results
    assert greedy.games == 800 and random_.games == 2400
    assert greedy.win_share + 3 * random_.win_share == pytest.approx(1.0)
    assert greedy.mean_rank < random_.mean_rank and greedy.rating_mu > random_.rating_mu
    assert 0 < greedy.win_share_ci < 0.1


def test_agent_specs(tmp_path):
    assert load_agent("counter", seed=1).name == "counter"
    policy = load_agent("test_arena:lowest_card")
    assert policy.act(np.zeros((2, 620)), np.array([[0, 1] + [1] * 10, [0, 0, 1] + [1] * 9])).tolist() == [1, 2]
    assert isinstance(load_agent("test_arena:make_random", seed=3), RandomAgent)
    with pytest.raises(AgentSpecError, match="not a built-in"):
        load_agent("alphazero")
    with pytest.raises(AgentSpecError, match="cannot load agent"):
        load_agent("no_such_module:bot")


def test_a_checkpoint_for_another_observation_layout_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    model = MaskablePPO("MlpPolicy", MiauiSelfPlayVecEnv(2, num_players=3, seed=0), n_steps=8, batch_size=8)
    model.save(tmp_path / "model.zip")
    (tmp_path / "metadata.json").write_text(json.dumps({"observation_version": 0}))
    with pytest.raises(CheckpointVersionError, match=r"version 0.*version 1"):
        load_sb3_policy(tmp_path)
    (tmp_path / "metadata.json").write_text(json.dumps({"observation_version": 1}))
    agent = load_agent(str(tmp_path))
    masks = np.zeros((3, 12), dtype=np.int8)
    masks[:, 4] = 1
    assert agent.act(np.zeros((3, 620), dtype=np.float32), masks).tolist() == [4, 4, 4]


def test_command_line_writes_table_json_csv_and_png(tmp_path):
    out = tmp_path / "arena"
    pool = ("--pool", "greedy", "random", "counter")
    done = run_module("miaui_env.apps.arena", *pool, "--players", "3", "--games", "300", "--seed", "4", "--out", str(out), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "win share" in done.stdout and "counter" in done.stdout
    assert "arena" in done.stderr and "300/300" in done.stderr  # the progress bar
    report = json.loads((out / "arena.json").read_text())
    assert report["mode"] == "pool" and {a["name"] for a in report["agents"]} == {"greedy", "random", "counter"}
    assert report["config"]["num_players"] == 3 and "players" not in report["config"]
    assert (out / "arena.csv").read_text().startswith("name,games,win_share")
    assert (out / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.oracle
@pytest.mark.parametrize("arena_view", ["table", "recall"])
def test_each_agent_is_shown_the_view_it_plays_from(arena_view):
    from miaui_env import OBSERVATION_LAYOUT
    from miaui_env.games.miaui.observation import table_view

    remembers, plain, forgets = RecordingAgent("remembers", "recall"), RecordingAgent("plain"), RecordingAgent("forgets", "table")
    play([remembers, plain, forgets], "pool", ArenaConfig(num_players=3, games=30, view=arena_view))

    def played_by_opponents(agent):
        return OBSERVATION_LAYOUT.view(np.concatenate(agent.seen), "played")[:, 1:].sum()

    assert played_by_opponents(remembers) > 0  # the recall view shows every card opponents played
    assert played_by_opponents(forgets) == 0  # the table view does not (R11)
    assert (played_by_opponents(plain) > 0) == (arena_view == "recall")  # the arena's view for the rest
    for agent in (forgets, plain) if arena_view == "table" else (forgets,):
        seen = np.concatenate(agent.seen)
        assert np.array_equal(table_view(seen), seen)

    def shown(agent, name):
        """Piece `name` of everything the agent was shown, opponents' seat rows only for a seat-row piece."""
        pieces = OBSERVATION_LAYOUT.view(np.concatenate(agent.seen), name)
        return pieces if name in ("box", "lagoon") else pieces[:, 1:]

    # R11, table view: the lagoon's face-up cards; an opponent's pile shows its height and top card
    # only, the box nothing; the last reveal's Seagull thefts are public. Recall: the whole piles and
    # the box, thefts too.
    assert shown(forgets, "lagoon").any()
    assert not shown(forgets, "box").any()
    assert not shown(forgets, "pile")[:, :, 1:].any() and not shown(forgets, "pile_summary")[:, :, 1:].any()
    assert shown(forgets, "pile")[:, :, 0].any() and shown(forgets, "pile_summary")[:, :, 0].any()
    assert shown(remembers, "box").any()
    assert shown(remembers, "pile")[:, :, 1:].any() and shown(remembers, "pile_summary")[:, :, 1:].any()
    for agent in (forgets, remembers):
        assert shown(agent, "stolen").any() and shown(agent, "thefts").any()


# -- ties, win shares and intervals (R10 and the module docstring: "win share (ties split), mean rank
# (ties share the average place), with 95% confidence intervals over duplicate sets") ----------------
def _by_name(results):
    return {r.name: r for r in results}


@pytest.mark.oracle
def test_players_tied_by_a_stacked_deck_share_the_average_place_and_the_victory(monkeypatch):
    deck = stacked_deck(SHARED_VICTORY_ROUNDS, put_back=SHARED_VICTORY_PUT_BACK)

    class StackedEngine(VectorMiaui):
        """The arena's engine, every deal stacked with the shared-victory deck (helpers)."""

        def reset(self, seed=None, decks=None, seeds=None):
            return super().reset(seed=seed, decks=[deck] * self.num_envs, seeds=seeds)

    monkeypatch.setattr("miaui_env.games.miaui.arena.VectorMiaui", StackedEngine)
    # Two identical players always play their highest card and one her lowest: whatever the seats of
    # the rotation, the two high players score 60 each and tie for first, the low player scores 0.
    names = ["high#0", "high#1", "low"]
    seats, scores, winners = play([highest_card, highest_card, lowest_policy], "pool", ArenaConfig(num_players=3, games=6, seed=1))
    assert np.sort(scores, axis=1).tolist() == [[0, SHARED_VICTORY_HIGH_SCORE, SHARED_VICTORY_HIGH_SCORE]] * 6
    assert winners.sum(axis=1).tolist() == [2] * 6 and set(seats[winners]) == {0, 1}  # R10: both tied players win
    results = _by_name(summarize(names, seats, scores, winners, 3))
    for high in ("high#0", "high#1"):
        assert results[high].mean_rank == 1.5  # places 1 and 2, shared: (1 + 2) / 2
        assert results[high].win_share == 0.5  # the victory split between the two
        assert results[high].mean_score == SHARED_VICTORY_HIGH_SCORE
    assert results["low"].mean_rank == 3.0 and results["low"].win_share == 0.0 and results["low"].mean_score == 0.0
    assert results["high#0"].rating_mu == results["high#1"].rating_mu > results["low"].rating_mu  # tied every game


@pytest.mark.oracle
@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_table_that_ties_at_every_depth_shares_every_place(players):
    # No Fighting (R8): players who all play the same card tie at every depth, so nobody ever catches,
    # every score is 0 (R10) and everyone shares the victory: the average place is (1 + n) / 2.
    config = ArenaConfig(num_players=players, games=2 * players, no_fighting=True, seed=3)
    seats, scores, winners = play([lowest_policy] * players, "pool", config)
    assert (scores == 0).all() and winners.all()
    for result in summarize([f"same#{i}" for i in range(players)], seats, scores, winners, players):
        assert result.mean_rank == (1 + players) / 2
        assert result.win_share == pytest.approx(1 / players)


def _rotated_sets(sets: int, players: int = 3) -> np.ndarray:
    """Seats of `sets` duplicate sets of agents 0..players-1, rotated one seat a game as the arena does."""
    return np.array([np.roll(np.arange(players), r) for _ in range(sets) for r in range(players)])


def _results(wins_per_set: list[int]):
    """Three agents; in set s agent 0 wins (10 points, the others 0) the first wins_per_set[s] of its 3
    games, agent 1 wins the others. Returns agent 0's AgentResult."""
    seats = _rotated_sets(len(wins_per_set))
    scores = np.zeros(seats.shape, dtype=np.int64)
    for game in range(len(seats)):
        winner = 0 if game % 3 < wins_per_set[game // 3] else 1
        scores[game, seats[game] == winner] = 10
    winners = scores == scores.max(axis=1, keepdims=True)
    return summarize(["a", "b", "c"], seats, scores, winners, 3)[0]


@pytest.mark.oracle
def test_intervals_over_few_duplicate_sets_use_students_t():
    # Agent a's win share per set: 1/3, 2/3, 1 -> mean 2/3, sample standard deviation 1/3; with 3 sets
    # (2 degrees of freedom) the 95% half-width is t(0.975, 2) = 4.303 times 1/3 over sqrt(3).
    a = _results([1, 2, 3])
    assert a.games == 9
    assert a.win_share == pytest.approx(2 / 3)
    assert a.win_share_ci == pytest.approx(4.303 * (1 / 3) / math.sqrt(3))
    assert a.mean_score == pytest.approx(20 / 3) and a.mean_score_ci == pytest.approx(4.303 * (10 / 3) / math.sqrt(3))
    # Ranks: a win is place 1; a loss ties a with c at 0 points, places 2 and 3 shared: 2.5 each.
    # Per set: (1 + 2.5 + 2.5) / 3 = 2, (1 + 1 + 2.5) / 3 = 1.5, 1 -> mean 1.5, deviation 0.5.
    assert a.mean_rank == pytest.approx(1.5) and a.mean_rank_ci == pytest.approx(4.303 * 0.5 / math.sqrt(3))


@pytest.mark.oracle
def test_intervals_over_many_duplicate_sets_use_the_normal_quantile():
    pattern = [1, 2, 3] * 13  # 39 sets: win shares 1/3, 2/3, 1 thirteen times each
    a = _results(pattern)
    deviation = math.sqrt(13 * ((1 / 3) ** 2 + 0 + (1 / 3) ** 2) / (39 - 1))  # the sample standard deviation
    assert a.win_share == pytest.approx(2 / 3)
    assert a.win_share_ci == pytest.approx(1.96 * deviation / math.sqrt(39))


@pytest.mark.oracle
def test_few_identical_sets_give_no_interval():
    a = _results([2, 2, 2])  # no spread over 3 sets says nothing about the next ones
    assert a.win_share == pytest.approx(2 / 3) and math.isnan(a.win_share_ci)


@pytest.mark.oracle
def test_an_agent_with_several_copies_is_rated_at_its_copies_mean_place():
    # Agent 0 sits twice at every table, first and last (10 and 0 points); agent 1 is second (5).
    # Agent 0's copies' mean place is (1 + 3) / 2 = 2, agent 1's place is 2: a tie every game, so
    # both keep the same rating and the same mean rank.
    seats = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    scores = np.array([[10, 5, 0], [0, 10, 5], [5, 0, 10]])
    first, second = summarize(["twice", "once"], seats, scores, scores == 10, 3)
    assert first.mean_rank == second.mean_rank == 2.0
    assert first.rating_mu == pytest.approx(second.rating_mu) and first.rating_sigma == pytest.approx(second.rating_sigma)
    assert first.win_share == pytest.approx(1 / 2) and second.win_share == 0.0  # a's two copies: one win in two seats


def _gauntlet(shares: list[int], players: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Seats and winners of duplicate sets where the candidate (agent 0) wins every game of a set with
    share 1 and none of a set with share 0 (agent 1 wins those)."""
    seats = _rotated_sets(len(shares), players)
    winners = np.array([seats[game] == (0 if shares[game // players] else 1) for game in range(len(seats))])
    return seats, winners


@pytest.mark.oracle
def test_the_gauntlet_sign_test_counts_the_sets_above_fair_share():
    # 6 of 8 sets above the fair share 1/3, 2 below: P(X >= 6) for X ~ Binomial(8, 1/2) = 37/256.
    text = gauntlet_significance(*_gauntlet([1] * 6 + [0] * 2), 3, "cand")
    p = float(re.search(r"6 of 8 sets above fair share: one-sided p = ([0-9.e-]+)", text).group(1))
    assert p == pytest.approx(37 / 256, abs=0.005) and "not significantly above" in text  # shown to 2 digits
    text = gauntlet_significance(*_gauntlet([1] * 10), 3, "cand")  # 10 of 10: p = 1/1024 < 1%
    assert "(above fair share at the 1% level)" in text


@pytest.mark.oracle
def test_the_gauntlet_z_test_is_one_sided():
    # 40 sets, half won whole: mean 1/2 against the fair 1/3; z = (1/2 - 1/3) / (s / sqrt(40)) with the
    # sample deviation s, and the one-sided p is the normal tail above z.
    from statistics import NormalDist

    text = gauntlet_significance(*_gauntlet([1, 0] * 20), 3, "cand")
    s = math.sqrt(40 * 0.25 / 39)
    z = (1 / 2 - 1 / 3) / (s / math.sqrt(40))
    shown = re.search(r"z = ([0-9.-]+), one-sided p = ([0-9.e-]+)", text)
    assert float(shown.group(1)) == pytest.approx(z, abs=0.005)
    assert float(shown.group(2)) == pytest.approx(1 - NormalDist().cdf(z), rel=0.05)
    assert "not significantly above" in text  # p is about 0.02: not at the 1% level


def test_the_arena_config_names_its_table_as_the_table_spec_does():
    table = TableSpec(5, no_fighting=True, view="recall", reward="margin", observation_dtype="uint8")
    config = ArenaConfig.at_table(table, games=20, seed=3, batch_games=10)
    assert config == ArenaConfig(num_players=5, games=20, no_fighting=True, view="recall", seed=3, batch_games=10)
    assert config.table_spec == TableSpec(5, no_fighting=True, view="recall")  # the arena pays by wins, in float32
    assert ArenaConfig(3, 6).table_spec.num_players == 3  # the first positional field is still the table size
    with pytest.raises(InvalidConfigError, match=re.escape("takes a miaui_env.games.miaui.spec.TableSpec, got {'num_players': 4}")):
        ArenaConfig.at_table({"num_players": 4})  # type: ignore[arg-type]


def test_players_the_0_1_name_of_num_players_is_gone():
    with pytest.raises(TypeError, match="players"):
        ArenaConfig(players=3, games=30, seed=2)  # type: ignore[call-arg]
    assert not hasattr(ArenaConfig(num_players=3), "players")
    with pytest.raises(TypeError, match="players"):
        lineups("pool", 5, players=4, sets=3)  # type: ignore[call-arg]


@pytest.mark.parametrize("flag", ["--players", "--num-players"])
def test_the_command_lines_table_size_has_two_spellings(tmp_path, flag):
    with pytest.raises(SystemExit) as ended:
        main(["--pool", "random", "greedy", flag, "5", "--games", "10", "--seed", "1", "--out", str(tmp_path)])
    assert ended.value.code == 0
    report = json.loads((tmp_path / "arena.json").read_text())
    assert report["config"]["num_players"] == 5 and report["duplicate_sets"] == 2


def test_the_arena_bar_ends_at_its_total_of_whole_duplicate_sets(capsys):
    from miaui_env.games.miaui.arena import run

    result = run(["random", "greedy"], "gauntlet", ArenaConfig(num_players=3, games=4, seed=2, batch_games=3), out=None)
    bar = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert result.duplicate_sets * 3 == 6 and re.match(r"arena: 100%.*\| 6/6 \[", bar), bar


def test_the_game_option_defaults_to_miaui_and_dispatches_to_the_octopus_arena(tmp_path):
    for game, players in (("miaui", "3"), ("octopus", "2")):
        with pytest.raises(SystemExit) as ended:
            main(["--game", game, "--pool", "random", "--players", players, "--games", "4", "--seed", "1", "--out", str(tmp_path / game)])
        assert ended.value.code == 0
    miaui = json.loads((tmp_path / "miaui" / "arena.json").read_text())
    octopus = json.loads((tmp_path / "octopus" / "arena.json").read_text())
    assert "game" not in miaui and miaui["config"]["num_players"] == 3  # Miaui's report, unchanged
    assert octopus["game"] == "octopus" and octopus["config"]["num_players"] == 2


def test_an_unknown_game_and_miaui_options_for_the_octopus_game_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as ended:
        main(["--game", "chess", "--pool", "random", "--out", str(tmp_path)])
    assert ended.value.code == 2 and "invalid choice: 'chess'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ended:
        main(["--game", "octopus", "--pool", "random", "--open-baskets", "--out", str(tmp_path)])
    assert ended.value.code == 2 and "--open-baskets: Miaui-only" in capsys.readouterr().err


def test_one_arena_result_serves_both_games_and_names_the_octopus_game_first():
    from miaui_env.core.arena import ArenaResult, table
    from miaui_env.games.octopus import arena as octopus_arena

    config = octopus_arena.OctopusArenaConfig(num_players=2, games=4, seed=1)
    result = octopus_arena.run(["random", "cautious"], "pool", config, out=None, show_progress=False)
    assert isinstance(result, ArenaResult) and result.game == "octopus" and result.config is config
    assert next(iter(result.as_dict())) == "game" and result.as_dict()["config"]["num_players"] == 2
    assert octopus_arena.result_table(result) == table(result)
    assert not hasattr(octopus_arena, "OctopusArenaResult")
    miaui = ArenaResult(ArenaConfig(num_players=3), "pool", [])
    assert miaui.game == "miaui" and "game" not in miaui.as_dict()  # Miaui's arena.json keeps its keys


def test_a_table_with_no_interval_says_n_a_not_nan():
    # One duplicate set: no spread over sets to make an interval from.
    result = run(["counter", "greedy"], "gauntlet", ArenaConfig(num_players=4, games=4, seed=1), None, False)
    assert np.isnan(result.agents[0].win_share_ci)
    printed = table(result)
    assert "nan" not in printed and printed.splitlines()[1].split()[3:5] == ["+-", "n/a"]
    wider = table(run(["counter", "greedy"], "gauntlet", ArenaConfig(num_players=4, games=40, seed=1), None, False))
    assert "n/a" not in wider.splitlines()[1]
