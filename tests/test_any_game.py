"""A game that gives only its env and its agents (tests/games/sealed_bids.py) gets the library's
generic arena, replays, terminal play and self-play trainer (miaui_env.apps.any_game,
miaui_env.integrations.aec_selfplay, training.games.AnyGame), each through its registry entry."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import environment_with_test_games

from miaui_env.apps import any_game
from miaui_env.apps.arena import main as arena_main
from miaui_env.apps.replay import main as replay_main
from miaui_env.games import OPTIONAL_PARTS, GamePartError, get_game, register

ROOT = Path(__file__).parent.parent
GAME = "sealed_bids"


def test_a_gauntlet_finds_the_prize_matcher_above_random_and_writes_replays_that_play_back(tmp_path, capsys):
    gauntlet = ["--game", GAME, "--candidate", "match-the-prize", "--field", "random", "--games", "600", "--seed", "3"]
    with pytest.raises(SystemExit) as done:
        arena_main([*gauntlet, "--replays", "4", "--out", str(tmp_path)])
    assert done.value.code == 0
    assert "match-the-prize: win share" in capsys.readouterr().out
    written = json.loads((tmp_path / "arena.json").read_text())
    assert written["game"] == GAME and written["duplicate_sets"] == 200 and written["config"]["game"] == GAME
    candidate = next(agent for agent in written["agents"] if agent["name"] == "match-the-prize")
    assert candidate["win_share"] - candidate["win_share_ci"] > 1 / 3  # it bids its high cards on the high prizes
    assert "above fair share at the 1% level" in written["significance"]
    assert (tmp_path / "arena.png").read_bytes()[:4] == b"\x89PNG"
    replays = sorted((tmp_path / "replays").glob("game-*.json"))
    assert len(replays) == 4
    rotations = [tuple(any_game.load_replay(get_game(GAME), path)["players"]) for path in replays[:3]]
    assert rotations[1] == rotations[0][-1:] + rotations[0][:-1]  # one duplicate set: the lineup rotated a seat a game
    assert len({json.loads(path.read_text())["seed"] for path in replays[:3]}) == 1  # ... on one deal


def test_the_replay_command_tells_a_saved_game_and_refuses_a_tampered_one(tmp_path, capsys):
    game = get_game(GAME)
    players = ["match-the-prize", "random", "random"]
    replay = any_game.record(game, 3, "table", 17, players, [2, 0, 1, 1, 2, 0, 0, 1, 2])
    path = any_game.save_replay(replay, tmp_path / "game.json")
    with pytest.raises(SystemExit) as done:
        replay_main([str(path)])
    told = capsys.readouterr().out
    assert done.value.code == 0
    assert "  player_0: bid 3" in told and "Final scores: player_0" in told and told.count("bid") >= 9
    won = [f"player_{s}" for s, w in enumerate(replay["winners"]) if w]
    assert f"Won by {' and '.join(won)}" in told
    for change, words in [
        ({"scores": [9, 0, 0]}, "come to scores"),
        ({"decisions": replay["decisions"][:-1]}, "end before the game does"),
        ({"decisions": [*replay["decisions"], 0]}, "the game ends before its 10 decisions do"),
        ({"decisions": [5, *replay["decisions"][1:]]}, "decision 0 (player_0: action 5) is not legal"),
        ({"num_players": 7}, "not a table of sealed bids"),
        ({"game": "miaui"}, "a replay of game 'miaui'"),
        ({"seed": -1}, "seed=-1"),
    ]:
        tampered = tmp_path / "tampered.json"
        tampered.write_text(json.dumps({**replay, **change}))
        with pytest.raises(any_game.AnyGameReplayError, match=re.escape(words)) as refused:
            any_game.load_replay(game, tampered)
        assert str(tampered) in str(refused.value) and isinstance(refused.value, ValueError)


def test_terminal_play_plays_a_whole_game_and_saves_a_replay_the_replay_command_reads(tmp_path):
    saved = tmp_path / "mine.json"
    play = [sys.executable, "-m", "miaui_env.apps.play", "--game", GAME, "--seed", "5", "--replay", str(saved)]
    done = subprocess.run(play, input="9\nx\n0\n1\n2\n", capture_output=True, text=True, timeout=120, env=environment_with_test_games())
    assert done.returncode == 0, done.stderr
    assert "'9' is not a choice" in done.stdout and "'x' is not a choice" in done.stdout  # asked again
    assert "You are player_0" in done.stdout and "Final scores:" in done.stdout and "game saved as" not in done.stderr
    replay = json.loads(saved.read_text())
    assert replay["players"][0] == "you" and [replay["decisions"][i] for i in (0, 3, 6)] == [0, 1, 2]  # the seat's bids, in order
    shown = subprocess.run(
        [sys.executable, "-m", "miaui_env.apps.replay", str(saved)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment_with_test_games(),
    )
    assert shown.returncode == 0 and "Won by" in shown.stdout, shown.stderr


def test_terminal_play_of_a_game_without_words_ends_in_one_line_naming_them(capsys):
    from miaui_env.apps.play import main as play_main

    parts = {part: target for part, target in get_game(GAME).parts.items() if part != "words"}
    register(dataclasses.replace(get_game(GAME), name="wordless", title="the wordless game", parts=parts))
    with pytest.raises(SystemExit) as done:
        play_main(["--game", "wordless", "--no-replay", "--seed", "1"])
    assert done.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.endswith(": error: the wordless game has no words: " + OPTIONAL_PARTS["words"])
    with pytest.raises(GamePartError, match="the wordless game has no words"):
        get_game("wordless").part("words")


def test_an_env_that_ends_without_a_result_in_its_infos_is_named():
    class Silent:
        def __init__(self, env):
            self.env = env

        def __getattr__(self, name):
            return getattr(self.env, name)

        @property
        def infos(self):
            return {agent: {} for agent in self.env.possible_agents}

    game = get_game(GAME)
    env = game.env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(any_game.GameProtocolError, match="without a number 'score' and a bool 'winner'"):
        any_game.final_results(Silent(env), game)


def test_the_generic_self_play_vecenv_pays_each_row_its_own_seat_s_result():
    from miaui_env.integrations.aec_selfplay import AECSelfPlayVecEnv

    venv = AECSelfPlayVecEnv(GAME, 16, num_players=3, seed=4, learner_seats=[0, 2])
    observations = venv.reset()
    assert observations.shape == (32, get_game(GAME).env().observation_space("player_0")["observation"].shape[0])
    rng, ended, paid = np.random.default_rng(0), 0, 0.0
    for _ in range(9):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in venv.action_masks()])
        _, rewards, dones, infos = venv.step(actions)
        assert (rewards[~dones] == 0).all()  # "win" pays at the end only
        for row in np.flatnonzero(dones):
            info = infos[row]
            assert info["seat"] == [0, 2][row % 2] and rewards[row] == pytest.approx(info["episode"]["r"])
            assert info["winner"] == (rewards[row] > 0) and info["episode"]["l"] == 3  # a bid a round
            ended, paid = ended + 1, paid + rewards[row]
    assert ended == 32 * 3 and 0 < paid / ended < 1  # three whole games a row, random against random


def test_the_generic_self_play_vecenv_deals_the_same_games_from_the_same_seed():
    from miaui_env.integrations.aec_selfplay import AECSelfPlayVecEnv

    runs = []
    for _ in range(2):
        venv = AECSelfPlayVecEnv(GAME, 4, num_players=2, seed=11)
        seen = [venv.reset()]
        for _ in range(6):
            seen.append(venv.step(np.argmax(venv.action_masks(), axis=1))[0])
        runs.append(np.stack(seen))
    assert np.array_equal(*runs)


@pytest.mark.slow  # trains for about a minute
def test_a_minute_of_self_play_trains_a_policy_that_beats_random_play(tmp_path):
    from training.config import load_config
    from training.selfplay import train

    # A config file, as configs/octopus.yaml is: its game and table sizes checked together
    (tmp_path / "bids.yaml").write_text(
        f"""
game: {GAME}
view: table
total_timesteps: 60000
tables: [{{num_players: 2, num_games: 32}}, {{num_players: 3, num_games: 32}}]
ppo: {{n_steps: 64, batch_size: 1024, learning_rate: 0.001, policy_kwargs: {{net_arch: [64, 64]}}}}
opponents: {{weights: {{pool: 0.5, random: 0.25, match-the-prize: 0.25}}, snapshot_every: 10000}}
evaluation: {{every: 30000, num_players: 3, games_per_baseline: 600, baselines: [random, match-the-prize]}}
kickstart: {{decisions: 0}}
privileged_critic: false
exploiters: {{every: 0}}
magnet: {{coef: 0}}
probe: {{steps: 3000, num_players: 3, games: 60}}
device: cpu
"""
    )
    config = load_config(tmp_path / "bids.yaml")
    metadata = train(config, tmp_path / "run", show_progress=False)
    assert metadata["game"] == GAME and metadata["steps"] >= 60000
    final = {row["baseline"]: row for row in metadata["evaluations"] if row["step"] == metadata["evaluations"][-1]["step"]}
    assert set(final) == {"random", "match-the-prize"}
    assert final["random"]["win_share"] - final["random"]["win_share_ci"] > 1 / 3  # above fair share against random play
    for path in (tmp_path / "run" / "replays").glob("step-*.json"):
        assert any_game.load_replay(get_game(GAME), path)["players"][0] == "learner"
    assert metadata["exploitability"]["players"] == 3
