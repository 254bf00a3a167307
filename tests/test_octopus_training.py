"""The project's trainer on the octopus game (`game: octopus`, configs/octopus.yaml): a whole small run
(evaluations, replays, league, the probe), resuming it, same seed same run, its policy as an octopus
agent and never as a Miaui one, what the game refuses, and the exploitability yardstick on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from miaui_env.core.checkpoint import CheckpointError, CheckpointSpaceError, CheckpointVersionError
from miaui_env.core.loading import AgentSpecError
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.octopus.agents import load_octopus_agent
from miaui_env.games.octopus.arena import OctopusArenaConfig, play
from miaui_env.games.octopus.replay import load_replay, replay_states
from training.config import ConfigError, load_config

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent
SMALL = [
    "total_timesteps=3000",
    "tables=[{num_players: 2, num_games: 8}, {num_players: 3, num_games: 4, learner_seats: [0, 2]}]",
    "ppo.n_steps=16",
    "ppo.batch_size=256",
    "ppo.n_epochs=1",
    "ppo.policy_kwargs.net_arch=[32, 32]",
    "evaluation.every=1000",
    "evaluation.games_per_baseline=30",
    "evaluation.baselines=[risk-aware, random]",
    "opponents.snapshot_every=800",
    "opponents.pool_size=2",
    "probe.steps=0",
    "kickstart.decisions=0",  # configs/octopus.yaml clones rival-aware first: a test of its own below
    "device=cpu",
]


def small_config(*overrides: str):
    return load_config(ROOT / "configs" / "octopus.yaml", [*SMALL, *overrides])


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    from training.selfplay import train

    directory = tmp_path_factory.mktemp("octopus") / "run"
    metadata = train(small_config("probe.steps=600", "probe.games=30"), directory, show_progress=False)
    return directory, metadata


def test_a_small_octopus_run_writes_a_whole_run(small_run):
    directory, metadata = small_run
    assert metadata["game"] == "octopus" and metadata["observation_dtype"] == "float32" and metadata["steps"] >= 3000
    assert metadata["player_counts"] == [2, 3]
    assert {row["baseline"] for row in metadata["evaluations"]} == {"risk-aware", "random"}
    assert all(row["variant"] == "base" and row["games"] == 30 for row in metadata["evaluations"])
    assert set(metadata["league"]) == {"snapshot@1608", "snapshot@2400"}  # PFSP's statistics per snapshot in the pool
    assert (directory / "win_share.png").read_bytes()[:4] == b"\x89PNG"
    assert len(list((directory / "pool").glob("step_*.pt"))) == 2
    replays = sorted((directory / "replays").glob("step-*.json"))
    assert len(replays) == len(metadata["evaluations"])
    for path in replays:  # an octopus replay of the learner against the baseline, playing back bit for bit
        replay = load_replay(path)
        assert replay.players[0] == "learner" and set(replay.players[1:]) <= {"risk-aware", "random"}
        assert replay_states(replay)[-1].totals == list(replay.totals)
    probed = metadata["exploitability"]
    assert probed["players"] == 3 and probed["steps"] == 600 and probed["variant"] == "base"
    report = json.loads((directory / "exploit" / "exploit.json").read_text())
    assert report["arguments"]["game"] == "octopus" and report["tables"][0]["init"] == "target"
    assert set(report["tables"][0]["final"]["vs_baselines"]) == {"random", "cautious", "risk-aware", "theft-aware", "rival-aware"}


def test_the_league_counts_every_octopus_game_as_it_ends():
    from miaui_env.core.vec import MultiTableVecEnv
    from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv
    from training.opponents import finished_games

    tables = [OctopusSelfPlayVecEnv(6, num_players=2, seed=1), OctopusSelfPlayVecEnv(3, num_players=3, learner_seats=[1], seed=2)]
    for table, name in zip(tables, ("alice", "bob"), strict=True):
        cautious = load_octopus_agent("cautious", 0)
        cautious.name = name
        table.set_opponents([cautious], seed=0)
    venv = MultiTableVecEnv(tables)
    venv.reset()
    rng = np.random.default_rng(0)
    counted, ended = [], 0
    for _ in range(150):
        masks = venv.action_masks()
        _, _, dones, infos = venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        counted += finished_games(tables, venv.bounds[:-1], infos) if dones.any() else []
        ended += int(dones.sum())
    assert ended > 10 and len(counted) == ended  # one result per row: every row is a game of its own
    assert {(tuple(names), seats) for names, _, seats in counted} == {(("alice",), 2), (("bob", "bob"), 3)}
    assert {won for _, won, _ in counted} <= {0.0, 0.5, 1.0}  # a lone learner seat wins, loses or shares a tie


def test_the_run_s_policy_is_an_octopus_agent_and_never_a_miaui_one(small_run):
    directory, _metadata = small_run
    agent = load_octopus_agent(str(directory))
    assert agent.view == "recall" and agent.deterministic
    assert not load_octopus_agent(f"{directory}@sample").deterministic
    _seats, scores, _ = play([agent, load_octopus_agent("risk-aware", 1)], "gauntlet", OctopusArenaConfig(num_players=2, games=20))
    assert scores.shape == (20, 2)
    with pytest.raises(CheckpointSpaceError, match="'octopus' game, not Miaui"):
        load_agent(str(directory))
    best_response = directory / "exploit" / "best-response-3p"
    assert json.loads((best_response / "metadata.json").read_text())["game"] == "octopus"
    assert load_octopus_agent(str(best_response)).view == "recall"


def test_a_checkpoint_that_is_not_an_octopus_policy_is_refused(small_run, tmp_path):
    directory, _ = small_run
    with pytest.raises(CheckpointSpaceError, match="'miaui' game, not the octopus game"):
        load_octopus_agent("miaui-ppo-v1")
    for name, metadata, error, match in [
        ("old", {"game": "octopus", "observation_version": 99}, CheckpointVersionError, "layout version 99"),
        ("unmarked", {"observation_version": 1}, CheckpointSpaceError, "'miaui' game"),
        ("damaged", None, CheckpointError, "not readable JSON"),
    ]:
        copy = tmp_path / name
        copy.mkdir()
        (copy / "model.zip").write_bytes((directory / "model.zip").read_bytes())
        (copy / "metadata.json").write_text("{" if metadata is None else json.dumps(metadata))
        with pytest.raises(error, match=match):
            load_octopus_agent(str(copy))
    with pytest.raises(AgentSpecError, match="unknown octopus agent 'counter'"):
        load_octopus_agent("counter")


def test_an_octopus_league_fades_per_episode_of_games_not_per_step(tmp_path):
    from training.selfplay import Run

    run = Run(small_config(), tmp_path, resume=False)
    league = run.opponents.league
    league.wins["snapshot@1"], league.games["snapshot@1"], league.fair["snapshot@1"] = 5.0, 10.0, 5.0
    infos: list[dict[str, object]] = [{} for _ in range(run.venv.num_envs)]
    run.record_games(infos)  # a step where no game ended
    assert league.games["snapshot@1"] == 10.0
    infos[0] = {"winner": 1.0, "opponents": ["random"]}
    run.record_games(infos)  # one game of the run's 24 ended (one per row: 8 games x 2 learner seats, 4 x 2)
    assert league.games["snapshot@1"] == pytest.approx(10.0 * league.decay ** (1 / 24))


def test_cloning_an_octopus_teacher_teaches_the_policy_its_decisions(tmp_path):
    from training.kickstart import clone_teacher, game_returns
    from training.selfplay import Run

    overrides = ["kickstart.teacher=cautious", "kickstart.decisions=16000", "kickstart.learning_rate=0.003", "kickstart.batch_size=256"]
    config = small_config(*overrides, "opponents.weights={pool: 0.5, random: 0.5}")
    run = Run(config, tmp_path, resume=False)
    teacher = load_octopus_agent("cautious", 0)

    def agreement() -> float:
        venv = run.venv
        observations, agree = venv.reset(), []
        for _ in range(30):
            masks = venv.action_masks()
            chosen, _ = run.model.predict(observations, action_masks=masks, deterministic=True)
            agree.append(chosen == teacher.act(observations, masks))
            observations, *_ = venv.step(chosen)
        return float(np.mean(agree))

    before = agreement()
    measures = clone_teacher(run.model, config.kickstart, 0, chunk_steps=run.game.cloning_chunk, **run.teacher_parts())
    after = agreement()
    assert measures["teacher"] == "cautious" and measures["decisions"] >= 16000
    assert after > 0.9 and after > before + 0.2, (before, after)
    # the returns it teaches the value head: each game's reward, and none for a game the chunk cut off
    rewards = np.array([[0, 0], [1, 0], [0, 0]], dtype=np.float32)
    returns, known = game_returns(rewards, rewards > 0)
    assert returns[:, 0].tolist() == [1, 1, 0] and known.tolist() == [[True, False], [True, False], [False, False]]


def test_cloning_learns_each_chunk_of_play_epochs_times(tmp_path, monkeypatch):
    import training.kickstart
    from training.selfplay import Run

    config = small_config("kickstart.teacher=cautious", "kickstart.decisions=1000", "kickstart.epochs=3", "kickstart.batch_size=256")
    run = Run(config, tmp_path, resume=False)
    passes: list[int] = []
    fit = training.kickstart._fit
    monkeypatch.setattr(training.kickstart, "_fit", lambda *args, **kwargs: passes.append(len(args[2])) or fit(*args, **kwargs))
    chunk = run.game.cloning_chunk
    training.kickstart.clone_teacher(run.model, config.kickstart, 0, chunk_steps=chunk, **run.teacher_parts())
    chunks = -(-1000 // (run.venv.num_envs * chunk))
    assert passes == [run.venv.num_envs * chunk] * (3 * chunks)  # every pass over a whole chunk's decisions


def test_cloning_chunks_cut_off_before_their_games_end_teach_the_policy_and_not_the_value(tmp_path):
    import torch

    from training.kickstart import clone_teacher
    from training.selfplay import Run

    overrides = ["kickstart.teacher=cautious", "kickstart.decisions=1", "kickstart.learning_rate=0.01", "kickstart.batch_size=32"]
    config = small_config(*overrides)
    run = Run(config, tmp_path, resume=False)
    before = {name: tensor.clone() for name, tensor in run.model.policy.state_dict().items()}
    clone_teacher(run.model, config.kickstart, 0, chunk_steps=8, **run.teacher_parts())
    # O7, O9: a game needs 77 points and a session scores at most 40, so 8 decisions end no game
    assert all(game.session == 1 and not game.is_over for table in run.tables for game in table.games)
    after = run.model.policy.state_dict()
    changed = {name for name in before if not torch.equal(before[name], after[name])}
    assert changed and all(name.startswith(("mlp_extractor.policy_net.", "action_net.")) for name in changed), sorted(changed)


def test_same_seed_same_octopus_run(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from training.selfplay import train

    # cloning first: PPO's reset of the tables after cloning must deal from the seed as well
    config = small_config("total_timesteps=1200", "evaluation.every=600", "kickstart.decisions=600", "kickstart.teacher=cautious")
    first = train(config, tmp_path / "a", show_progress=False)
    second = train(config, tmp_path / "b", show_progress=False)
    assert json.dumps(first["evaluations"]) == json.dumps(second["evaluations"])
    a, b = (MaskablePPO.load(tmp_path / run / "model.zip", device="cpu").policy.state_dict() for run in "ab")
    assert all(torch.equal(a[key], b[key]) for key in a)


def test_an_octopus_run_resumes_where_it_stopped(tmp_path):
    from training.selfplay import main, train

    train(small_config("total_timesteps=600", "evaluation.every=600"), tmp_path, show_progress=False)
    resumed = train(small_config("total_timesteps=1500", "evaluation.every=600"), tmp_path, resume=True, show_progress=False)
    assert resumed["game"] == "octopus" and resumed["steps"] >= 1500
    assert sorted({row["step"] for row in resumed["evaluations"]})[0] <= 1000 < resumed["steps"]
    with pytest.raises(SystemExit) as ended:  # the command line opens it as an octopus run too
        main(["--resume", str(tmp_path), "--set", f"total_timesteps={resumed['steps']}"])
    assert ended.value.code == 0
    with pytest.raises(ConfigError, match="run of the 'octopus' game"):
        train(load_config(ROOT / "configs" / "smoke.yaml", ["device=cpu"]), tmp_path, resume=True, show_progress=False)


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["kickstart.decisions=100", "kickstart.teacher=counter"], "unknown octopus agent 'counter'"),
        (["evaluation.baselines=[counter]"], "unknown octopus agent 'counter'"),
        (["opponents.weights={pool: 0.5, greedy: 0.5}"], "unknown octopus agent 'greedy'"),
        (["view=table", "kickstart.decisions=100", "kickstart.teacher=risk-aware"], "teacher='risk-aware' plays from the 'recall' view"),
    ],
)
def test_what_the_octopus_game_does_not_have_is_refused_before_training(tmp_path, overrides, match):
    from training.selfplay import Run

    with pytest.raises((ConfigError, AgentSpecError), match=match):
        Run(small_config(*overrides), tmp_path, resume=False)
    assert not (tmp_path / "model.zip").exists()


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["privileged_critic=true"], "unknown key 'privileged_critic'"),
        (["exploiters.every=1000"], "unknown key 'exploiters'"),
        (["tables=[{num_players: 3, num_games: 4, no_fighting: true}]"], r"unknown config key 'tables\[0\].no_fighting'"),
        (["tables=[{num_players: 3, num_games: 4, open_baskets: true}]"], r"unknown config key 'tables\[0\].open_baskets'"),
    ],
)
def test_an_octopus_config_has_no_miaui_keys(overrides, match):
    """A config is keyed on its game: an octopus run's schema has no variants, privileged critic or exploiters."""
    with pytest.raises(ConfigError, match=match):
        small_config(*overrides)
    config = small_config()
    assert not hasattr(type(config), "__dataclass_fields__") or "privileged_critic" not in type(config).__dataclass_fields__
    assert config.privileged_critic is False and config.exploiters.every == 0  # what the trainer reads of every game
    assert "open_baskets" not in config.to_yaml() and "exploiters" not in config.to_yaml()


def test_set_game_starts_from_that_game_s_defaults():
    """`--set game=octopus` on no file reads configs/octopus.yaml, not Miaui's defaults with the game swapped."""
    assert load_config(None, ["game=octopus"]) == load_config(ROOT / "configs" / "octopus.yaml")
    with pytest.raises(
        ConfigError, match=r"smoke.yaml \(read as game 'octopus', as --set game= says\): unknown config key 'tables\[0\].open_baskets'"
    ):
        load_config(ROOT / "configs" / "smoke.yaml", ["game=octopus"])  # a Miaui file is no octopus config


def test_the_last_set_game_decides_the_game_whatever_came_before(tmp_path):
    """The game is read first, then the file and the other overrides in that game's schema: an earlier
    `--set game=` or the file's own `game` is not checked against another game's tables first."""
    from training.config import MiauiSelfPlayConfig, OctopusSelfPlayConfig

    assert type(load_config(None, ["game=octopus", "game=miaui"])) is MiauiSelfPlayConfig
    (tmp_path / "named.yaml").write_text("game: miaui\nrun_name: renamed\n")
    config = load_config(tmp_path / "named.yaml", ["game=octopus"])
    assert type(config) is OctopusSelfPlayConfig and config.game == "octopus" and config.run_name == "renamed"


@pytest.mark.parametrize(
    ("config", "overrides", "match"),
    [
        ("octopus.yaml", ["tables=[{num_players: 5, num_games: 4}]"], r"'tables\[0\].num_players' is 5; allowed: an integer from 2 to 4"),
        ("octopus.yaml", ["evaluation.num_players=6"], "'evaluation.num_players' is 6; allowed: an integer from 2 to 4"),
        ("octopus.yaml", ["probe.num_players=5"], "'probe.num_players' is 5"),
        ("smoke.yaml", ["tables=[{num_players: 2, num_games: 4}]"], r"'tables\[0\].num_players' is 2; allowed: an integer from 3 to 6"),
        ("smoke.yaml", ["game=chess"], "game"),
    ],
)
def test_each_game_s_table_sizes(config, overrides, match):
    with pytest.raises(ConfigError, match=match):
        load_config(ROOT / "configs" / config, overrides)


def test_an_octopus_run_evaluated_at_two_players_starts_and_an_arena_too_large_is_refused_naming_its_section():
    """The arenas a run will play are checked by the game's own sizes: two players is an octopus table
    (it was once refused as a Miaui arena), and results beyond what an arena keeps are refused up front."""
    from training.selfplay import check_run

    check_run(small_config("evaluation.num_players=2", "probe.num_players=2"))
    with pytest.raises(ConfigError, match=r"config section 'evaluation': games=10000000000 would keep about"):
        check_run(small_config("evaluation.games_per_baseline=10000000000"))
    with pytest.raises(ConfigError, match=r"config section 'probe': games=10000000000"):
        check_run(small_config("probe={steps: 10, num_players: 3, games: 10000000000}"))


def test_the_yardstick_measures_an_octopus_agent_from_the_command_line(tmp_path):
    out = tmp_path / "exploit"
    args = ["--game", "octopus", "--target", "cautious", "--steps", "1500", "--eval-every", "1500", "--eval-games", "30"]
    args += ["--games", "16", "--baselines", "random", "--set", "ppo.n_steps=16", "--set", "ppo.batch_size=256", "--out", str(out)]
    done = subprocess.run([sys.executable, "-m", "training.exploit", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((out / "exploit.json").read_text())
    table = report["tables"][0]
    assert table["players"] == 3 and table["init"] == "scratch" and list(table["final"]["vs_baselines"]) == ["random"]
    assert 0 <= table["final"]["win_share"] <= 1 and (out / "exploit.png").read_bytes()[:4] == b"\x89PNG"
    assert load_octopus_agent(str(out / "best-response-3p")).name == "best-response-3p"


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"players": (5,)}, "table sizes 2 to 4"),
        ({"init": "kickstart"}, "init='kickstart' is not allowed"),
        ({"no_fighting": True}, "Miaui's variants"),
        ({"game": "chess"}, "game='chess' is not allowed"),
    ],
)
def test_an_octopus_exploit_config_that_cannot_work_is_refused(fields, match):
    from training.exploit import ExploitConfig

    with pytest.raises(ConfigError, match=match):
        ExploitConfig(target="cautious", **{"game": "octopus", **fields})


def test_the_octopus_yardstick_measures_three_players_unless_told_from_python_as_from_the_command_line():
    from training.exploit import ExploitConfig, config_from_args, parser

    assert ExploitConfig(target="cautious", game="octopus").players == (3,)
    assert config_from_args(parser().parse_args(["--target", "cautious", "--game", "octopus"])).players == (3,)
    assert ExploitConfig(target="cautious", game="octopus", players=(2, 4)).players == (2, 4)


def test_the_yardstick_s_default_baselines_are_the_game_s_own():
    from training.exploit import ExploitConfig

    assert ExploitConfig(target="cautious", game="octopus").baselines == ("random", "cautious", "risk-aware", "theft-aware", "rival-aware")
    assert ExploitConfig(target="counter").baselines == ("random", "greedy", "counter")
    assert ExploitConfig(target="cautious", game="octopus", players=[2, 4]).players == (2, 4)


def test_the_shipped_octopus_policy_loads_by_name_plays_and_stays_out_of_miaui_menus():
    from miaui_env.core.arena import summarize
    from miaui_env.games.miaui.web import policy_choices
    from miaui_env.games.octopus.agents import shipped_octopus_policies
    from miaui_env.games.octopus.odds import OctopusOddsFeatures

    metadata = json.loads((ROOT / "checkpoints" / "octopus-ppo-v1" / "metadata.json").read_text())
    agent = load_octopus_agent("octopus-ppo-v1", seed=0)
    assert metadata["game"] == "octopus" and agent.view == metadata["view"] == "recall" and agent.deterministic
    assert isinstance(agent.policy.policy.features_extractor, OctopusOddsFeatures)  # the library's class, unpickled by name
    assert "octopus-ppo-v1" in shipped_octopus_policies()
    assert not any(choice.name.startswith("octopus-ppo") for choice in policy_choices())  # the Miaui page's menu
    with pytest.raises(CheckpointSpaceError, match="'octopus' game, not Miaui"):
        load_agent("octopus-ppo-v1")
    seats, scores, winners = play([agent, load_octopus_agent("random", 1)], "gauntlet", OctopusArenaConfig(num_players=3, games=90, seed=5))
    assert summarize(["octopus-ppo-v1", "random"], seats, scores, winners, 3)[0].win_share > 0.7  # it wins about 0.96 of them
