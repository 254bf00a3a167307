"""Where the trainers compute (training/hardware.py): the device and threads settings, compact rows
copied to the learner as uint8 codes and expanded there, and GPU checkpoints on a CPU-only machine.

No test needs a GPU: a CUDA machine is stood in for where torch is asked whether it has one, and a
CUDA-trained checkpoint is written by tagging its tensors' storage as CUDA's.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.compact import COMPACT_SCALE, COMPACT_ZERO, CompactError, expand_codes
from miaui_env.games.miaui.compact_torch import CompactInputPolicy
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.privileged import PRIVILEGED_CODE_SCALE, PRIVILEGED_CODE_ZERO, PrivilegedCriticPolicy
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from training import selfplay
from training.config import ConfigError, load_config
from training.games import MiauiGame
from training.hardware import available_cores, check_threads, torch_device, torch_threads
from training.ppo import new_learner, ppo_kwargs

ROOT = Path(__file__).parent.parent
ROW_SCALE = np.concatenate([COMPACT_SCALE, PRIVILEGED_CODE_SCALE])
ROW_ZERO = np.concatenate([COMPACT_ZERO, PRIVILEGED_CODE_ZERO])


# -- the settings -------------------------------------------------------------------------------
def test_auto_is_the_cpu_without_a_gpu_and_cuda_with_one(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert torch_device("auto") == torch.device("cpu") and torch_device("cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert torch_device("auto") == torch.device("cuda")
    assert torch_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(ConfigError, match=r"device='cuda:2' but torch sees 2 GPU\(s\): cuda:0 to cuda:1"):
        torch_device("cuda:2")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("cuda", r"device='cuda' but torch sees no CUDA GPU here .*use device=auto or cpu"),
        ("cuda:0", r"device='cuda:0' but torch sees no CUDA GPU"),
        ("gpu", r"device='gpu' is not allowed; devices are auto, cpu, cuda and cuda:<index>"),
        ("CPU", r"device='CPU' is not allowed"),
    ],
)
def test_a_device_this_machine_lacks_is_refused_by_name(monkeypatch, name, message):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError, match=message):
        torch_device(name)


def test_threads_run_from_one_to_the_cores_here_and_torch_gets_its_setting_back():
    most = available_cores()
    assert check_threads(1) == 1 and check_threads(most) == most
    for bad in (0, most + 1, True, 1.0, "2"):
        with pytest.raises(ConfigError, match=rf"threads={bad!r} is not allowed; it must be an integer from 1 to {most}"):
            check_threads(bad)
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_the_config_keys_are_checked_and_documented():
    config = load_config(None, ["threads=1", "device=cpu"])
    assert (config.threads, config.device) == (1, "cpu")
    with pytest.raises(ConfigError, match=r"config key 'device' is 'tpu'; allowed: a string matching"):
        load_config(None, ["device=tpu"])
    with pytest.raises(ConfigError, match=r"config key 'threads' is 0; allowed: an integer from 1 to 1e\+15"):
        load_config(None, ["threads=0"])
    gpu = load_config(ROOT / "configs" / "gpu.yaml")
    assert gpu.device == "cuda" and gpu.threads == 16
    text = (ROOT / "configs" / "default.yaml").read_text()
    assert "\nthreads: 1 " in text and "\ndevice: auto " in text


def test_a_run_asking_for_more_than_the_machine_has_stops_before_it_starts(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for flags, message in [
        (["--threads", str(available_cores() + 1)], f"threads={available_cores() + 1} is not allowed"),
        (["--device", "cuda"], "device='cuda' but torch sees no CUDA GPU"),
    ]:
        with pytest.raises(SystemExit) as stopped:
            selfplay.main(["--config", "configs/smoke.yaml", "--out", str(tmp_path / "run"), *flags])
        assert stopped.value.code != 0
        assert message in capsys.readouterr().err
        assert not (tmp_path / "run" / "model.zip").exists()


# -- compact rows -------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_compact_privileged_rows_are_the_float_rows_bit_for_bit(num_players):
    settings = {"num_players": num_players, "learner_seats": [0, 1], "seed": 7, "privileged": True, "view": "recall"}
    floats, codes = MiauiSelfPlayVecEnv(32, **settings), MiauiSelfPlayVecEnv(32, **settings, observation_dtype="uint8")
    assert codes.observation_space.dtype == np.uint8 and codes.observation_space.shape == floats.observation_space.shape
    float_rows, code_rows = floats.reset(), codes.reset()
    rng = np.random.default_rng(0)
    for _ in range(2 * 11):  # two whole games, their final rows included
        assert np.array_equal(expand_codes(code_rows, ROW_SCALE, ROW_ZERO), float_rows)
        masks = floats.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        float_rows, _, done, float_infos = floats.step(actions)
        code_rows, _, _, code_infos = codes.step(actions)
        if done[0]:
            finals = [np.stack([info["terminal_observation"] for info in infos]) for infos in (float_infos, code_infos)]
            assert np.array_equal(expand_codes(finals[1], ROW_SCALE, ROW_ZERO), finals[0])


@pytest.mark.parametrize("privileged", [False, True])
def test_a_policy_reads_codes_and_their_floats_alike(privileged):
    venv = MiauiSelfPlayVecEnv(16, num_players=4, learner_seats=[0, 2], seed=3, privileged=privileged, observation_dtype="uint8")
    model = new_learner(venv, ppo_kwargs({"n_steps": 11, "batch_size": 64}), 0, privileged_critic=privileged)
    assert isinstance(model.policy, PrivilegedCriticPolicy if privileged else CompactInputPolicy)
    rows, masks = venv.reset(), venv.action_masks()
    scale, zero = (ROW_SCALE, ROW_ZERO) if privileged else (COMPACT_SCALE, COMPACT_ZERO)
    floats = expand_codes(rows, scale, zero)
    with torch.no_grad():
        from_codes = model.policy.get_distribution(torch.as_tensor(rows), action_masks=masks).distribution.probs
        from_floats = model.policy.get_distribution(torch.as_tensor(floats), action_masks=masks).distribution.probs
        values_codes = model.policy.predict_values(torch.as_tensor(rows))
        values_floats = model.policy.predict_values(torch.as_tensor(floats))
        # The codes read as plain numbers (what an SB3 policy without the tables would see) play otherwise.
        as_numbers = model.policy.get_distribution(torch.as_tensor(rows, dtype=torch.float32), action_masks=masks).distribution.probs
    assert torch.equal(from_codes, from_floats) and torch.equal(values_codes, values_floats)
    assert not torch.allclose(as_numbers, from_floats)
    agent_rows = floats[:, : OBSERVATION_LAYOUT.size]  # what the arena hands a loaded policy
    assert np.array_equal(model.predict(agent_rows, action_masks=masks, deterministic=True)[0], from_floats.argmax(-1).numpy())


def test_a_policy_built_for_other_rows_refuses_codes_by_name():
    import gymnasium

    space = gymnasium.spaces.Box(0, 255, (10,), np.uint8)
    policy = CompactInputPolicy(space, gymnasium.spaces.Discrete(12), lambda _: 1e-3)
    with pytest.raises(CompactError, match="CompactInputPolicy was built without code tables"):
        policy.predict_values(torch.zeros((1, 10), dtype=torch.uint8))


def test_a_starting_policy_that_cannot_read_codes_is_refused_by_name():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from miaui_env.games.miaui.compact_torch import ExpandCompactObservations
    from training.ppo import TrainedWeights

    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=0, observation_dtype="uint8")
    start = TrainedWeights(MaskableActorCriticPolicy, {"features_extractor_class": ExpandCompactObservations}, {})
    with pytest.raises(ConfigError, match=r"the starting policy \(MaskableActorCriticPolicy with ExpandCompactObservations\) cannot read"):
        new_learner(venv, ppo_kwargs({"n_steps": 11, "batch_size": 44}), 0, start=start)


def test_an_sb3_that_stores_rows_as_float32_is_refused(monkeypatch):
    """SB3 before 2.7.1 kept every rollout row as float32: codes would reach the policy as plain numbers."""
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    reset = MaskableRolloutBuffer.reset

    def float_rows(self):
        reset(self)
        self.observations = self.observations.astype(np.float32)

    monkeypatch.setattr(MaskableRolloutBuffer, "reset", float_rows)
    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=0, observation_dtype="uint8")
    with pytest.raises(ConfigError, match=r"stores uint8 rows as float32: install stable-baselines3 and sb3-contrib >= 2\.7\.1"):
        new_learner(venv, ppo_kwargs({"n_steps": 11, "batch_size": 44}), 0)


def smoke_overrides(out: Path) -> list[str]:
    return [
        "total_timesteps=1500",
        "kickstart.decisions=400",
        "evaluation.every=100000",
        "probe.steps=0",
        "privileged_critic=true",
        "magnet.coef=0.05",
        "kickstart.guidance_steps=1",
        f"run_name={out.name}",
    ]


def test_a_run_on_compact_rows_trains_exactly_as_on_float_rows(tmp_path, monkeypatch):
    """Codes expand to the float rows bit for bit, so cloning, guidance, PPO and the magnet learn the same weights."""
    weights = {}
    for dtype in ("float32", "uint8"):
        monkeypatch.setattr(MiauiGame, "row_dtype", dtype)
        config = load_config(ROOT / "configs" / "smoke.yaml", smoke_overrides(tmp_path / dtype))
        metadata = selfplay.train(config, tmp_path / dtype, show_progress=False)
        assert metadata["observation_dtype"] == dtype
        with zipfile.ZipFile(tmp_path / dtype / "model.zip") as archive:
            weights[dtype] = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    assert weights["float32"].keys() == weights["uint8"].keys()
    assert all(torch.equal(weights["float32"][key], weights["uint8"][key]) for key in weights["float32"])


def test_a_run_from_before_compact_rows_resumes_on_float_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(MiauiGame, "row_dtype", "float32")
    config = load_config(ROOT / "configs" / "smoke.yaml", smoke_overrides(tmp_path / "old"))
    selfplay.train(config, tmp_path / "old", show_progress=False)
    metadata_file = tmp_path / "old" / "metadata.json"
    metadata = json.loads(metadata_file.read_text())
    del metadata["observation_dtype"]  # as 0.2's runs wrote it
    metadata_file.write_text(json.dumps(metadata))
    monkeypatch.setattr(MiauiGame, "row_dtype", "uint8")
    resumed = selfplay.train(config.override("total_timesteps=2000"), tmp_path / "old", resume=True, show_progress=False)
    assert resumed["steps"] >= 2000 and "observation_dtype" not in resumed


# -- GPU checkpoints on a CPU ---------------------------------------------------------------------
def as_if_saved_on_cuda(path: Path) -> None:
    """Rewrite the torch files inside an SB3 model.zip as a CUDA machine writes them: every storage tagged cuda:0."""
    original = torch.serialization.location_tag
    members = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            members[name] = archive.read(name)
    for name in [name for name in members if name.endswith(".pth")]:
        state = torch.load(io.BytesIO(members[name]), map_location="cpu", weights_only=False)
        buffer = io.BytesIO()
        torch.serialization.location_tag = lambda storage: "cuda:0"  # type: ignore[assignment]
        try:
            torch.save(state, buffer)
        finally:
            torch.serialization.location_tag = original
        members[name] = buffer.getvalue()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def test_a_checkpoint_trained_on_a_gpu_loads_and_plays_on_a_cpu_only_machine(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # a CPU-only machine, wherever the test runs
    run = tmp_path / "gpu-run"
    shutil.copytree(ROOT / "checkpoints" / "miaui-ppo-v1", run, ignore=shutil.ignore_patterns("exploit", "tensorboard", "replays"))
    as_if_saved_on_cuda(run / "model.zip")
    with zipfile.ZipFile(run / "model.zip") as archive, pytest.raises(RuntimeError, match="CUDA"):
        torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)  # what a loader without map_location meets
    agent = load_agent(str(run))  # the arena's, human play's and the browser app's loader
    shipped = load_agent("miaui-ppo-v1")
    venv = MiauiSelfPlayVecEnv(8, num_players=4, seed=1, view="recall")
    rows, masks = venv.reset(), venv.action_masks()
    assert np.array_equal(agent.act(rows, masks), shipped.act(rows, masks))


def test_the_yardstick_refuses_a_device_or_threads_this_machine_lacks(monkeypatch):
    from training.exploit import ExploitConfig

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError, match=r"ExploitConfig device='cuda:1' but torch sees no CUDA GPU"):
        ExploitConfig(target="counter", device="cuda:1")
    with pytest.raises(ConfigError, match=rf"ExploitConfig threads={available_cores() + 1} is not allowed"):
        ExploitConfig(target="counter", threads=available_cores() + 1)
