"""A game that gives only its env and its agents (tests/games/sealed_bids.py) gets the library's
generic arena, replays, terminal play and self-play trainer (miaui_env.apps.any_game,
miaui_env.core.selfplay, training.games.AnyGame), each through its registry entry."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import subprocess
import sys
import typing
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from helpers import environment_with_test_games
from pettingzoo import AECEnv

from miaui_env.apps import any_game
from miaui_env.apps.arena import main as arena_main
from miaui_env.apps.replay import main as replay_main
from miaui_env.core.errors import IllegalActionError, InvalidConfigError
from miaui_env.games import OPTIONAL_PARTS, Game, GamePartError, get_game, register
from miaui_env.games.miaui.agents import RandomAgent

ROOT = Path(__file__).parent.parent
GAME = "sealed_bids"


@pytest.mark.oracle  # the generic arena's duplicate sets and replays
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


@pytest.mark.oracle  # the generic replay checker
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
        ({"seed": None}, "seed=None: a replay's seed is an integer >= 0"),
        ({"version": True}, "version True"),
        ({"winners": [not won for won in replay["winners"]]}, "come to winners"),
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
    game, agents = get_game(GAME), ["player_0", "player_1"]
    with pytest.raises(any_game.GameProtocolError, match="without a number 'score' and a bool 'winner'"):
        any_game.final_results({agent: {} for agent in agents}, agents, game)
    with pytest.raises(any_game.GameProtocolError, match="no winner"):
        any_game.final_results({agent: {"score": 1, "winner": False} for agent in agents}, agents, game)


# -- a game of turns whose players can be out before it ends, with no "table" view --------------------
class StayOrLeave(AECEnv):
    """On its turn a seat stays (0, paid 0.1 at once) or leaves (1: out at once, score 0; seat 0 may
    not). After two turns a seat, the seats still in share the win (score 1)."""

    metadata: typing.ClassVar = {"name": "stay_or_leave_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, num_players=3, view="open", reward="win", render_mode=None):
        super().__init__()
        if view != "open" or reward != "win":
            raise ValueError(f"view={view!r}, reward={reward!r}: the game has the view 'open' and the reward 'win'")
        self.num_players, self.render_mode = num_players, render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        box = gymnasium.spaces.Box(0, 1, (2,), np.float32)
        self.observation_spaces = dict.fromkeys(self.possible_agents, gymnasium.spaces.Dict({"observation": box, "action_mask": box}))
        self.action_spaces = {agent: gymnasium.spaces.Discrete(2) for agent in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents, self.turns = list(self.possible_agents), 0
        self.rewards, self._cumulative_rewards = dict.fromkeys(self.agents, 0.0), dict.fromkeys(self.agents, 0.0)
        self.terminations, self.truncations = dict.fromkeys(self.agents, False), dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent):
        return {"observation": np.array([self.turns / 8, 0], np.float32), "action_mask": np.array([1, agent != "player_0"], np.int8)}

    def render(self):
        return f"turn {self.turns}; in: {', '.join(agent for agent in self.agents if not self.terminations[agent])}"

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        self.turns += 1
        if action == 0:
            self.rewards[agent] = 0.1
        else:
            self.terminations[agent], self.infos[agent] = True, {"score": 0.0, "winner": False}
        still_in = [other for other in self.agents if not self.terminations[other]]
        if self.turns >= 2 * self.num_players:
            for other in still_in:
                self.terminations[other], self.infos[other] = True, {"score": 1.0, "winner": True}
                self.rewards[other] += 1.0 / len(still_in)
        else:
            seat = self.possible_agents.index(agent)
            self.agent_selection = next(
                other for k in range(1, self.num_players + 1) if (other := self.possible_agents[(seat + k) % self.num_players]) in still_in
            )
        self._accumulate_rewards()
        self._deads_step_first()


def stay_or_leave_agent(spec, seed=None):
    if spec != "random":
        raise ValueError(f"unknown agent {spec!r}; agents: random")
    return RandomAgent(seed, num_actions=2)


class StayOrLeaveWords:
    def introduction(self, num_players, seat):
        return ["Stay (0) or leave (1); the seats still in after two turns each share the win."]

    def seat_view(self, env, agent):
        return [env.unwrapped.render()]

    def action(self, action):
        return ("stay", "leave")[action]


STAY_OR_LEAVE_WORDS = StayOrLeaveWords()


@pytest.fixture
def stay_or_leave():
    module = __name__
    return register(
        Game(
            name="stay_or_leave",
            title="stay or leave",
            min_players=2,
            max_players=4,
            default_players=3,
            variants=(),
            views=("open",),
            baselines=("random",),
            card_players=(3,),
            play_opponents=("random",),
            parts={
                "env": f"{module}:StayOrLeave",
                "load_agent": f"{module}:stay_or_leave_agent",
                "agent_names": f"{module}:list",
                "shipped_policies": f"{module}:list",
                "observation_version": f"{module}:STAY_OR_LEAVE_VERSION",
                "words": f"{module}:STAY_OR_LEAVE_WORDS",
            },
        )
    )


STAY_OR_LEAVE_VERSION = 1


@pytest.mark.oracle  # a game whose players leave early, in every generic app
def test_a_game_whose_players_leave_before_its_end_plays_in_the_arena_replays_and_terminal_play(stay_or_leave, tmp_path):
    from miaui_env.apps.card import play_card

    result = stay_or_leave.part("gauntlet")(["random", "random"], 3, 60, 2, False)
    assert result.duplicate_sets == 20 and sum(agent.games for agent in result.agents) == 180
    assert 0 < result.agents[0].win_share < 1  # some games were won by staying, some lost by leaving
    (cell,) = play_card("random", ["random"], [3], [30], seed=1, show_progress=False, game="stay_or_leave")  # its only view, not "table"
    assert cell.games == 30
    replay = any_game.record(stay_or_leave, 3, "open", 0, ["a", "b", "c"], [0, 1, 0, 0, 0, 0])  # player_1 leaves at once
    assert replay["scores"] == [1.0, 0.0, 1.0] and replay["winners"] == [True, False, True]
    told = "\n".join(any_game.history(stay_or_leave, replay))
    assert "player_1: leave" in told and "Won by player_0 and player_2" in told
    answers = iter(["0", "0"])
    args = argparse.Namespace(players=3, seat=0, seed=4, view="open", opponents=["random"], replay=tmp_path / "mine.json")
    assert any_game.play(stay_or_leave, args, read=lambda prompt: next(answers)) == 0
    assert any_game.load_replay(stay_or_leave, tmp_path / "mine.json")["winners"][0]  # seat 0 cannot leave: it stays in and wins


def test_the_generic_vecenv_pays_a_row_its_seats_rewards_and_counts_them_in_the_episode_return(stay_or_leave):
    from miaui_env.core.selfplay import AECSelfPlayVecEnv

    venv = AECSelfPlayVecEnv("stay_or_leave", 4, num_players=3, learner_seats=[0], seed=0)
    venv.reset()
    paid, returns = np.zeros(4), []
    for _ in range(4):
        _, rewards, dones, infos = venv.step(np.zeros(4, dtype=np.int64))  # seat 0 stays
        paid += rewards
        for row in np.flatnonzero(dones):
            returns.append((infos[row]["episode"]["r"], paid[row]))
            paid[row] = 0
    assert returns and all(reported == pytest.approx(summed) for reported, summed in returns)
    assert all(reported > 1 / 3 for reported, _ in returns)  # 0.2 for staying twice, and a share of the win


def test_an_agent_playing_from_another_view_is_refused_at_a_table_and_the_best_response_plays_from_the_targets():
    from training.games import training_game

    game = get_game(GAME)
    recall_player = RandomAgent(0, num_actions=3)
    recall_player.view = "recall"  # type: ignore[attr-defined]
    with pytest.raises(InvalidConfigError, match="plays from the 'recall' view; this table deals 'table'"):
        any_game.table_view(game, [recall_player], "table")
    assert any_game.table_view(game, [RandomAgent(0, num_actions=3)], None) == "table"
    assert training_game(GAME).best_response_view(recall_player) == "recall"
    assert training_game("miaui").best_response_view(recall_player) == "recall"  # Miaui's table shows the target its own


def test_the_generic_self_play_vecenv_pays_each_row_its_own_seat_s_result():
    from miaui_env.core.selfplay import AECSelfPlayVecEnv

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
    from miaui_env.core.selfplay import AECSelfPlayVecEnv

    runs = []
    for _ in range(2):
        venv = AECSelfPlayVecEnv(GAME, 4, num_players=2, seed=11)
        seen = [venv.reset()]
        for _ in range(6):
            seen.append(venv.step(np.argmax(venv.action_masks(), axis=1))[0])
        runs.append(np.stack(seen))
    assert np.array_equal(*runs)


def test_a_held_row_keeps_its_decision_while_the_others_play_and_then_plays_it():
    """`step_async(actions, hold=...)`: a held row is not played (its action ignored, no reward, no
    end), the others are; released, it plays on from the decision it kept."""
    from miaui_env.core.selfplay import AECSelfPlayVecEnv

    prize = get_game(GAME).load_agent("match-the-prize")  # plays the same whichever rows ask: the rows are independent
    free, held = (AECSelfPlayVecEnv(GAME, 4, num_players=2, learner_seats=[0], opponent=prize, seed=11) for _ in range(2))
    first = free.reset()
    assert np.array_equal(held.reset(), first)
    hold = np.array([False, True, False, False])
    actions = np.argmax(free.action_masks(), axis=1)
    after_free = free.step(actions)[0]
    held.step_async(np.where(hold, 99, actions), hold=hold)  # the held row's action is not even looked at
    after_held, rewards, dones, infos = held.step_wait()
    assert np.array_equal(after_held[~hold], after_free[~hold]) and np.array_equal(after_held[hold], first[hold])
    assert rewards[1] == 0 and not dones[1] and infos[1] == {}
    assert not np.array_equal(after_free[1], first[1])  # played, the row moves on; held, it did not
    released = held.step(np.argmax(held.action_masks(), axis=1))[0]
    assert np.array_equal(released[1], after_free[1])  # the same decision, played one step later
    with pytest.raises(IllegalActionError, match="hold is one bool a row"):
        held.step_async(actions, hold=[True, False])


@pytest.mark.slow  # trains for about 15 s
def test_a_short_self_play_run_trains_a_policy_that_beats_random_play(tmp_path):
    from training.config import load_config
    from training.selfplay import train

    # A config file, as configs/octopus.yaml is: its game and table sizes checked together
    (tmp_path / "bids.yaml").write_text(
        f"""
game: {GAME}
view: table
total_timesteps: 20000
tables: [{{num_players: 2, num_games: 32}}, {{num_players: 3, num_games: 32}}]
ppo: {{n_steps: 64, batch_size: 1024, learning_rate: 0.001, policy_kwargs: {{net_arch: [64, 64]}}}}
opponents: {{weights: {{pool: 0.5, random: 0.25, match-the-prize: 0.25}}, snapshot_every: 10000}}
evaluation: {{every: 10000, num_players: 3, games_per_baseline: 600, baselines: [random, match-the-prize]}}
kickstart: {{decisions: 0}}
magnet: {{coef: 0}}
probe: {{steps: 3000, num_players: 3, games: 60}}
device: cpu
"""
    )
    config = load_config(tmp_path / "bids.yaml")
    metadata = train(config, tmp_path / "run", show_progress=False)
    assert metadata["game"] == GAME and metadata["steps"] >= 20000
    final = {row["baseline"]: row for row in metadata["evaluations"] if row["step"] == metadata["evaluations"][-1]["step"]}
    assert set(final) == {"random", "match-the-prize"}
    assert final["random"]["win_share"] - final["random"]["win_share_ci"] > 1 / 3  # above fair share against random play
    for path in (tmp_path / "run" / "replays").glob("step-*.json"):
        assert any_game.load_replay(get_game(GAME), path)["players"][0] == "learner"
    assert metadata["exploitability"]["players"] == 3


# -- bad input to what this module's apps add ------------------------------------------------------
@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"num_players": 9}, "num_players=9 is not allowed; sealed bids is played by 2-4"),
        ({"num_players": 3, "games": 0}, "games=0"),
        ({"num_players": 3, "batch_games": 1.5}, "batch_games=1.5"),
        ({"num_players": 3, "view": "recall"}, "view='recall' is not allowed; sealed bids's views are table"),
        ({"num_players": 3, "seed": -1}, "seed=-1"),
        ({"num_players": 3, "seed": None}, "seed=None is not allowed"),
        ({"num_players": 3, "game": "chess"}, "unknown game 'chess'"),
    ],
)
def test_the_generic_arena_config_refuses_bad_values_by_name(settings, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        any_game.AnyArenaConfig(**{"game": GAME, **settings})


def test_the_generic_vecenv_refuses_bad_settings_and_a_bad_action_changes_nothing():
    from miaui_env.core.selfplay import AECSelfPlayVecEnv

    for settings, named in [
        ({"num_games": 0}, "num_games=0"),
        ({"num_games": 2, "num_players": 9}, "num_players=9"),
        ({"num_games": 2, "view": "recall"}, "view='recall'"),
        ({"num_games": 2, "learner_seats": [5]}, "seat 5"),
        ({"num_games": 2, "opponent": "random"}, "opponent"),
    ]:
        with pytest.raises(ValueError, match=re.escape(named)):
            AECSelfPlayVecEnv(GAME, **settings)
    venv = AECSelfPlayVecEnv(GAME, 2, num_players=2, learner_seats=[0], seed=1)
    with pytest.raises(ValueError, match="call reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    before = venv.reset()
    masks = venv.action_masks()
    for actions in (np.array([3, 0]), np.array([0]), np.array([0.5, 0.0])):
        with pytest.raises(ValueError, match="action"):
            venv.step(actions)
        assert np.array_equal(venv._obs, before) and np.array_equal(venv.action_masks(), masks)
    venv.step(np.argmax(masks, axis=1))  # the games go on from where they were


@pytest.mark.parametrize("count", [0, -3, 1.5, True, "12"])
def test_a_random_player_of_no_action_count_is_refused(count):
    with pytest.raises(ValueError, match=re.escape(f"num_actions={count!r}")):
        RandomAgent(0, num_actions=count)


def test_a_run_in_a_view_its_game_does_not_have_is_refused_naming_the_key(tmp_path):
    from training.config import ConfigError, load_config
    from training.selfplay import train

    (tmp_path / "bids.yaml").write_text(f"game: {GAME}\nview: recall\ntables: [{{num_players: 3, num_games: 2}}]\n")
    with pytest.raises(ConfigError, match=r"config key 'view' is 'recall', which sealed bids .* does not have; its views: table"):
        train(load_config(tmp_path / "bids.yaml"), tmp_path / "run", show_progress=False)
    assert not (tmp_path / "run" / "model.zip").exists()


def test_an_env_that_keeps_an_agent_that_is_out_is_named_not_looped_on(stay_or_leave):
    class Stuck(StayOrLeave):
        def _was_dead_step(self, action):  # an env that forgets to remove the agent that is out
            return None

    table = any_game.Table(stay_or_leave, Stuck(num_players=3))
    table.env.reset()
    table.env.step(0)
    table.env.step(1)  # player_1 leaves; player_2 decides, then player_0 ...
    table.env.step(0)
    table.env.agent_selection = "player_1"  # ... and the env hands the turn back to the one that left
    with pytest.raises(any_game.GameProtocolError, match="kept player_1, which is out, after its step None"):
        table.to_decide()


def test_a_plug_in_game_s_runs_start_from_defaults_made_of_its_sizes_and_agents():
    """`--set game=...` on a plug-in game: a table of each size, its agents as opponents and
    baselines, its first view; none of Miaui's keys."""
    from training.config import ConfigError, SelfPlayConfig, load_config

    config = load_config(None, [f"game={GAME}"])
    game = get_game(GAME)
    assert type(config) is SelfPlayConfig and config.view == game.views[0]
    assert [table.num_players for table in config.tables] == list(range(game.min_players, game.max_players + 1))
    assert set(config.evaluation.baselines) == set(game.agent_names()) and set(config.opponents.weights) == {"pool", *game.agent_names()}
    with pytest.raises(ConfigError, match="unknown key 'privileged_critic'"):
        load_config(None, [f"game={GAME}", "privileged_critic=false"])
