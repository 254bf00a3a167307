"""Self-play training: a smoke run, resuming a killed run, refusing a mismatched checkpoint, the
config overrides, and the shipped policy."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from miaui_env.core.arena import summarize
from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.arena import ArenaConfig, play
from miaui_env.games.miaui.replay import load_replay
from miaui_env.games.miaui.rules import GameConfig
from training.config import ConfigError, load_config

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent


def selfplay(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.selfplay", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_smoke_run_writes_a_whole_run(tmp_path):
    run = tmp_path / "smoke"
    done = selfplay("--config", "configs/smoke.yaml", "--out", str(run))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "self-play" in done.stderr and "100%" in done.stderr  # the progress bar
    assert "last arena evaluation" in done.stdout
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["observation_version"] == 1 and metadata["steps"] >= 6000
    assert metadata["policy"]["class"] == "CompactInputPolicy"  # the network by name, not pickled (agents/policy_spec.py)
    assert metadata["player_counts"] == [3, 4]
    assert {row["baseline"] for row in metadata["evaluations"]} == {"random", "greedy"}
    assert metadata["kickstart"]["teacher"] == "greedy" and metadata["kickstart"]["decisions"] >= 3000
    assert metadata["evaluations"][0]["step"] == 0  # the clone is measured before PPO starts
    assert len(list((run / "pool").glob("step_*.pt"))) == 2  # pool_size
    assert (run / "evaluations.csv").read_text().startswith("step,baseline,win_share")
    assert (run / "win_share.png").read_bytes()[:4] == b"\x89PNG"
    replays = sorted((run / "replays").glob("step-*.json"))  # the first game of every evaluation gauntlet
    assert len(replays) == len(metadata["evaluations"])
    assert all(
        set(load_replay(path).players) <= {"learner", "random", "greedy"} and "learner" in load_replay(path).players for path in replays
    )
    assert yaml.safe_load((run / "config.yaml").read_text())["run_name"] == "smoke"
    assert any((run / "tensorboard").rglob("events.out.tfevents.*"))
    agent = load_agent(str(run))  # the arena and human play can load it
    assert agent.view == metadata["view"] == "recall"  # and show it the view it was trained on
    _, scores, _ = play([agent, RandomAgent(0)], "gauntlet", ArenaConfig(num_players=3, games=30))
    assert scores.shape == (30, 3)
    refused = selfplay("--config", "configs/smoke.yaml", "--out", str(run))
    assert refused.returncode != 0 and "already holds a run" in refused.stderr


def steps_checkpointed(run: Path) -> int:
    try:
        return json.loads((run / "metadata.json").read_text())["steps"]
    except FileNotFoundError:
        return 0


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    run = tmp_path / "killed"
    overrides = ["--set", "total_timesteps=200000", "--set", "evaluation.every=3000", "--set", "evaluation.games_per_baseline=8"]
    process = subprocess.Popen(
        [sys.executable, "-m", "training.selfplay", "--config", "configs/smoke.yaml", "--out", str(run), *overrides],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline and steps_checkpointed(run) == 0:  # past the clone's checkpoint at step 0
        time.sleep(0.2)
    time.sleep(1.0)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stopped_at = json.loads((run / "metadata.json").read_text())["steps"]
    assert 0 < stopped_at < 200000
    done = selfplay("--resume", str(run), "--set", "total_timesteps=" + str(stopped_at + 4000))
    assert done.returncode == 0, done.stderr[-2000:]
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["steps"] >= stopped_at + 4000
    steps = [row["step"] for row in metadata["evaluations"]]
    assert steps == sorted(steps) and steps[0] <= stopped_at < steps[-1]  # one history, continued


def test_a_checkpoint_for_another_layout_is_refused(tmp_path):
    run = tmp_path / "old"
    run.mkdir()
    (run / "model.zip").write_bytes(b"")
    (run / "metadata.json").write_text(json.dumps({"observation_version": 0}))
    done = selfplay("--resume", str(run))
    assert done.returncode != 0
    assert "observation layout version 0, but this library builds version 1" in done.stderr


def test_any_maskable_ppo_argument_is_allowed_in_the_ppo_section(tmp_path):
    config_file = tmp_path / "kl.yaml"
    config_file.write_text("ppo:\n  target_kl: 0.02\n")
    config = load_config(config_file)
    assert config.ppo["target_kl"] == 0.02 and config.ppo["n_steps"] == 22  # merged with the defaults
    config_file.write_text("opponents:\n  snapshot_evry: 5\n")
    with pytest.raises(ConfigError, match=r"unknown config key 'opponents\.snapshot_evry'"):
        load_config(config_file)


def test_config_overrides():
    config = load_config(ROOT / "configs" / "smoke.yaml", ["ppo.learning_rate=1e-4", "opponents.weights={random: 1}"])
    assert config.ppo["learning_rate"] == 1e-4 and config.ppo["gae_lambda"] == 0.95  # merged with default.yaml
    assert config.opponents.weights == {"random": 1}
    with pytest.raises(ConfigError, match=r"unknown key 'learnign_rate'; known keys here: device, evaluation"):
        load_config(None, ["learnign_rate=1"])
    with pytest.raises(ConfigError, match="not key=value"):
        load_config(None, ["seed"])


@pytest.mark.parametrize("name", ["miaui-ppo-v0", "miaui-ppo-v1", "miaui-ppo-v2"])
def test_the_shipped_policies_load_by_name_and_beat_random_clearly(name):
    agent = load_agent(name, seed=5)
    assert agent.name == name
    config = ArenaConfig(num_players=4, games=1200, seed=11)
    seats, scores, winners = play([agent, RandomAgent(1)], "gauntlet", config)
    result = summarize(["ppo", "random"], seats, scores, winners, 4)[0]
    assert result.games >= 1000 and result.win_share >= 0.5


def test_opponent_mixture_deals_whole_games_by_weight():
    import numpy as np

    from training.opponents import OpponentMixture

    def fixed(card):
        return lambda observations, masks: np.full(len(masks), card)

    mixture = OpponentMixture([fixed(0), fixed(5)], [1.0, 3.0], np.random.default_rng(0), seats_per_game=3)
    masks = np.ones((3000, 12), dtype=np.int8)
    first = mixture.act(np.zeros((3000, 620)), masks).reshape(1000, 3)
    assert (first == first[:, :1]).all()  # the three opponents of a game are one agent
    assert 0.70 < (first[:, 0] == 5).mean() < 0.80  # by weight
    assert (mixture.act(np.zeros((3000, 620)), masks).reshape(1000, 3) == first).all()  # kept within an episode
    mixture.reset()
    assert not (mixture.act(np.zeros((3000, 620)), masks).reshape(1000, 3) == first).all()  # redrawn after


def agreement_with(agent, model, seed: int) -> float:
    """How often the learner picks `agent`'s card, over every seat of 200 4-player games `agent` plays."""
    import numpy as np

    from miaui_env.games.miaui.vector import VectorMiaui

    engine = VectorMiaui(200, num_players=4, view="recall", seed=seed)  # the view smoke.yaml trains on
    observations, masks = engine.reset(seed=seed)
    same = []
    for _ in range(11):
        rows, legal = observations.reshape(-1, 620), masks.reshape(-1, 12)
        chosen = agent.act(rows, legal)
        learned, _ = model.predict(rows, action_masks=legal.astype(bool), deterministic=True)
        same.append(learned == chosen)
        observations, masks, *_ = engine.step(chosen.reshape(200, 4))
    return float(np.mean(same))


def test_cloning_teaches_the_policy_its_teacher_s_cards(tmp_path):
    from training.kickstart import clone_teacher
    from training.selfplay import Run

    config = load_config(ROOT / "configs" / "smoke.yaml", ["kickstart.decisions=40000", "kickstart.learning_rate=0.003"])
    run = Run(config, tmp_path, resume=False)
    greedy = load_agent("greedy")
    before = agreement_with(greedy, run.model, seed=5)
    measures = clone_teacher(run.model, config.kickstart, seed=0)
    after = agreement_with(greedy, run.model, seed=5)
    assert measures["teacher"] == "greedy" and measures["decisions"] >= 40000
    assert after > 0.6 and after > before + 0.3, (before, after)


def test_same_seed_same_run(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from training.selfplay import train

    config = load_config(ROOT / "configs" / "smoke.yaml", ["total_timesteps=2000", "evaluation.every=1000"])
    first = train(config, tmp_path / "a", show_progress=False)
    second = train(config, tmp_path / "b", show_progress=False)
    assert json.dumps(first["evaluations"]) == json.dumps(second["evaluations"])  # as JSON text: an interval may be NaN
    assert {**first["kickstart"], "seconds": 0} == {**second["kickstart"], "seconds": 0}
    a, b = (MaskablePPO.load(tmp_path / run / "model.zip", device="cpu").policy.state_dict() for run in "ab")
    assert all(torch.equal(a[key], b[key]) for key in a)


def test_guidance_labels_each_rollout_with_the_teacher_and_pulls_toward_it(tmp_path):
    from training.selfplay import Run

    overrides = ["kickstart.decisions=0", "kickstart.guidance_steps=2", "kickstart.guidance_learning_rate=0.003"]
    config = load_config(ROOT / "configs" / "smoke.yaml", overrides)
    run = Run(config, tmp_path, resume=False)
    run.model.learn(100, callback=run.guidance)  # one rollout; its lesson waits for the next rollout
    from training.kickstart import own_part

    observations, masks, labels = run.guidance._lesson  # the rollout's rows: uint8 codes, as the learner reads them
    assert observations.dtype == np.uint8 and len(labels) == min(2 * 256, run.model.n_steps * run.venv.num_envs)
    assert (load_agent("greedy").act(own_part(observations), masks) == labels).mean() > 0.95  # greedy breaks ties at random

    def agreement() -> float:
        chosen, _ = run.model.predict(observations, action_masks=masks.astype(bool), deterministic=True)
        return float((chosen == labels).mean())

    before = agreement()
    for _ in range(30):
        run.guidance.teach(observations, masks, labels)
    assert agreement() > before + 0.2


def test_the_activation_is_named_by_its_torch_class():
    import torch

    from training.ppo import ppo_kwargs

    assert ppo_kwargs({"policy_kwargs": {"activation_fn": "ReLU"}})["policy_kwargs"]["activation_fn"] is torch.nn.ReLU
    with pytest.raises(ConfigError, match=r"ppo.policy_kwargs.activation_fn=.Relu. is not allowed; it is one of torch.nn.s activations"):
        ppo_kwargs({"policy_kwargs": {"activation_fn": "Relu"}})


def test_a_features_extractor_is_named_by_the_library_s_class():
    from miaui_env.games.miaui.compact_torch import ExpandCompactObservations
    from miaui_env.games.octopus.odds import OctopusOddsFeatures
    from training.ppo import ppo_kwargs

    for name, extractor in [("OctopusOddsFeatures", OctopusOddsFeatures), ("ExpandCompactObservations", ExpandCompactObservations)]:
        assert ppo_kwargs({"policy_kwargs": {"features_extractor_class": name}})["policy_kwargs"]["features_extractor_class"] is extractor
    with pytest.raises(ConfigError, match=r"features_extractor_class='NatureCNN' is not allowed; allowed: ExpandCompactObservations"):
        ppo_kwargs({"policy_kwargs": {"features_extractor_class": "NatureCNN"}})


def test_every_evaluation_of_a_run_replays_the_same_games_in_the_learner_s_view(tmp_path, monkeypatch):
    import training.gauntlet
    from training.selfplay import Run

    config = load_config(ROOT / "configs" / "smoke.yaml", ["kickstart.decisions=0", "evaluation.games_per_baseline=24"])
    run = Run(config, tmp_path, resume=False)
    lineups = []

    def recording_play(agents, mode, arena, samples=None):
        lineups.append(([getattr(agent, "view", None) for agent in agents], arena.seed))
        return play(agents, mode, arena, samples=samples)

    monkeypatch.setattr(training.gauntlet, "play", recording_play)
    first = run.evaluate(0)
    assert json.dumps(run.evaluate(0)) == json.dumps(first)  # the same deals, and the baselines seeded alike (a CI may be NaN)
    gauntlets = len(config.evaluation.baselines) * len(config.variants)  # smoke.yaml's tables play two variants
    assert [view for (view, _), _ in lineups] == [config.view] * 2 * gauntlets  # a recall learner is shown recall
    assert len({seed for _, seed in lineups}) == 2  # each baseline its own deals (on every variant)


def test_a_run_starts_from_the_weights_init_names(tmp_path):
    """`init` starts PPO from a trained policy (its network shape and critic too): before any step the
    learner is that policy, weight for weight; afterwards PPO trains it on."""
    import torch

    from training.selfplay import Run, train

    start = load_agent("miaui-ppo-v1")
    overrides = ["init=miaui-ppo-v1", "kickstart.decisions=0", "privileged_critic=true", "total_timesteps=600"]
    overrides += ["ppo.policy_kwargs.card_odds=false"]  # v1 reads the observation alone
    run = Run(load_config("configs/smoke.yaml", overrides), tmp_path / "fresh", resume=False)
    theirs, ours = start.policy.policy.state_dict(), run.model.policy.state_dict()
    assert type(run.model.policy) is type(start.policy.policy) and theirs.keys() == ours.keys()
    assert all(torch.equal(theirs[key], ours[key]) for key in theirs)
    metadata = train(load_config("configs/smoke.yaml", [*overrides, "evaluation.every=100000"]), tmp_path / "trained", show_progress=False)
    assert metadata["init"] == "miaui-ppo-v1" and metadata["steps"] >= 600
    trained = load_agent(str(tmp_path / "trained")).policy.policy.state_dict()
    assert any(not torch.equal(theirs[key], trained[key]) for key in theirs)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["init=miaui-ppo-v1", "privileged_critic=true"], "both start the network; set kickstart.decisions=0"),
        (["init=counter", "kickstart.decisions=0"], "'counter', which is not a trained MaskablePPO policy"),
        (["init=miaui-ppo-v1", "kickstart.decisions=0"], "trained with privileged_critic=True, but the run has privileged_critic=False"),
        (["init=miaui-ppo-v0", "kickstart.decisions=0", "view=table"], "sees the 'recall' view, but the run's view is 'table'"),
        (["init=miaui-ppo-v0", "kickstart.decisions=0"], "trained with card_odds=False, but the run has ppo.policy_kwargs.card_odds=True"),
    ],
)
def test_an_init_that_cannot_start_the_run_is_refused(tmp_path, overrides, message):
    from training.selfplay import Run

    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Run(load_config("configs/smoke.yaml", overrides), tmp_path / "run", resume=False)
    done = selfplay("--config", "configs/smoke.yaml", *(f"--set={o}" for o in overrides), "--out", str(tmp_path / "cli"), timeout=120)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def evaluated_arenas(run, monkeypatch) -> list[tuple[ArenaConfig, tuple[int, ...]]]:
    """The arena configs `run.evaluate` plays, each with its first game's scores, as they are played."""
    import training.gauntlet

    played = []

    def recording_play(agents, mode, arena, samples=None):
        seats, scores, winners = play(agents, mode, arena, samples=samples)
        played.append((arena, tuple(int(score) for score in scores[0])))
        return seats, scores, winners

    monkeypatch.setattr(training.gauntlet, "play", recording_play)
    return played


NO_FIGHTING_ONLY = "tables=[{num_players: 4, num_games: 8, learner_seats: [0], no_fighting: true}]"


def test_a_run_trained_on_no_fighting_is_evaluated_and_replayed_on_no_fighting(tmp_path, monkeypatch):
    from training.selfplay import Run

    overrides = [NO_FIGHTING_ONLY, "kickstart.decisions=0", "evaluation.games_per_baseline=8"]
    run = Run(load_config(ROOT / "configs" / "smoke.yaml", overrides), tmp_path, resume=False)
    played = evaluated_arenas(run, monkeypatch)
    rows = run.evaluate(0)
    arenas = [(arena.open_baskets, arena.no_fighting) for arena, _ in played]
    assert arenas == [(False, True)] * 2, f"a No Fighting run was evaluated on (open_baskets, no_fighting) = {arenas}"
    assert [row["variant"] for row in rows] == ["no_fighting"] * 2
    for (_, first_scores), name in zip(played, ["random", "greedy"], strict=True):
        replay = load_replay(tmp_path / "replays" / f"step-000000000-{name}-no_fighting.json")
        assert replay.config == GameConfig(4, open_baskets=False, no_fighting=True), replay.config
        assert replay.scores == first_scores  # the replay is the game the gauntlet played, not the same cards in another game


def test_a_run_mixing_variants_is_evaluated_on_each_on_the_same_deals(tmp_path, monkeypatch):
    from training.selfplay import Run, summary

    # smoke.yaml's tables: a base-game table and an Open Baskets + No Fighting one.
    config = load_config(ROOT / "configs" / "smoke.yaml", ["kickstart.decisions=0", "evaluation.games_per_baseline=8"])
    assert config.variants == ((False, False), (True, True))
    run = Run(config, tmp_path, resume=False)
    played = evaluated_arenas(run, monkeypatch)
    rows = run.evaluate(0)
    assert [(row["baseline"], row["variant"]) for row in rows] == [
        ("random", "base"),
        ("random", "open_baskets+no_fighting"),
        ("greedy", "base"),
        ("greedy", "open_baskets+no_fighting"),
    ]
    assert [(arena.open_baskets, arena.no_fighting) for arena, _ in played] == [(False, False), (True, True)] * 2
    assert played[0][0].seed == played[1][0].seed != played[2][0].seed  # a baseline's deals, on each variant
    assert sorted(path.name for path in (tmp_path / "replays").iterdir()) == [
        "step-000000000-greedy-open_baskets+no_fighting.json",
        "step-000000000-greedy.json",
        "step-000000000-random-open_baskets+no_fighting.json",
        "step-000000000-random.json",
    ]
    assert load_replay(tmp_path / "replays" / "step-000000000-random.json").config.no_fighting is False
    assert "vs random, open_baskets+no_fighting" in summary({"steps": 0, "evaluations": rows}, tmp_path)


def test_the_probe_trains_and_measures_on_the_run_s_variant(tmp_path, monkeypatch):
    import training.exploit
    import training.gauntlet
    from training.exploit import ExploitConfig
    from training.selfplay import probe

    config = load_config(ROOT / "configs" / "smoke.yaml", [NO_FIGHTING_ONLY, "probe.steps=100"])
    assert config.main_variant == (False, True)
    mixed = load_config(ROOT / "configs" / "smoke.yaml")  # 16 games x 2 learner seats of the base game against 8 x 1
    assert mixed.main_variant == (False, False)
    asked = []
    final = {"win_share": 0.3, "win_share_ci": 0.1, "gain": 0.05, "gain_ci": 0.1}
    monkeypatch.setattr(training.exploit, "measure", lambda settings, show: asked.append(settings) or {"tables": [{"final": final}]})
    figures = probe(config, tmp_path, 100, show_progress=False)
    assert asked[0].no_fighting and not asked[0].open_baskets
    assert figures["variant"] == "no_fighting"
    assert isinstance(asked[0], ExploitConfig) and (asked[0].open_baskets, asked[0].no_fighting) == (False, True)
    # The run's own PPO settings (smoke.yaml's), not configs/default.yaml's again.
    assert asked[0].ppo == config.ppo and asked[0].ppo["batch_size"] == 256 != load_config(None).ppo["batch_size"]
    assert (asked[0].players, asked[0].steps, asked[0].eval_games, asked[0].seed) == ((4,), 100, 40, config.seed)

    arenas = []

    def recording_play(agents, mode, arena, samples=None):
        arenas.append(arena)
        return play(agents, mode, arena, samples=samples)

    monkeypatch.setattr(training.gauntlet, "play", recording_play)
    learner = load_agent("greedy")
    training.exploit.evaluate_against(
        learner, "random", ExploitConfig("random", eval_games=8, seed=config.seed, no_fighting=True), 4, (0, 0)
    )
    assert (arenas[0].open_baskets, arenas[0].no_fighting) == (False, True)


def test_an_rllib_run_is_evaluated_on_its_variant(monkeypatch):
    import training.gauntlet
    import training.rllib_selfplay
    from training.config import RLlibConfig

    arenas = []

    def recording_play(agents, mode, arena, samples=None):
        arenas.append(arena)
        return play(agents, mode, arena, samples=samples)

    monkeypatch.setattr(training.gauntlet, "play", recording_play)
    monkeypatch.setattr(training.rllib_selfplay, "exported_agent", lambda policy_dir, view: load_agent("greedy"))
    config = RLlibConfig.load(None, ["tables=[{num_players: 4, num_games: 8, open_baskets: true}]", "evaluation.games_per_baseline=8"])
    rows = training.rllib_selfplay.evaluate(Path("policy"), config, 1)
    assert len(rows) == len(config.evaluation.baselines)
    assert {(arena.open_baskets, arena.no_fighting) for arena in arenas} == {(True, False)}


def test_the_gauntlet_deals_the_same_games_at_the_same_path_of_the_seed_tree(tmp_path):
    from miaui_env.games.miaui.spec import TableSpec
    from training.config import RunSeeds
    from training.gauntlet import gauntlet

    table = TableSpec(num_players=3, no_fighting=True)
    first = gauntlet(load_agent("greedy", seed=1), "random", table, 30, RunSeeds(4), (0,), replay=tmp_path / "first.json")
    again = gauntlet(load_agent("greedy", seed=1), "random", table, 30, RunSeeds(4), (0,))
    elsewhere = gauntlet(load_agent("greedy", seed=1), "random", table, 30, RunSeeds(4), (1,))
    assert first == again and first.games == 30 and first.opponent == "random"
    assert (elsewhere.win_share, elsewhere.mean_score) != (first.win_share, first.mean_score)
    assert first.figures() == {
        "win_share": round(first.win_share, 4),
        "win_share_ci": round(first.win_share_ci, 4),
        "mean_score": round(first.mean_score, 2),
        "games": 30,
    }
    assert first.gain == pytest.approx(first.win_share - 1 / 3) and "10 duplicate sets" in first.significance
    replay = load_replay(tmp_path / "first.json")  # the first game, as played
    assert replay.config.no_fighting and sorted(set(replay.players)) == ["greedy", "random"]
