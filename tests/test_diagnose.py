"""The diagnosis of a run (training/diagnose.py): the per-table curves the trainer logs, and the
policy change between snapshots, checked against torch's own KL of the masked distributions."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from training.diagnose import diagnose, fixed_states, read_curves

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("diagnose") / "smoke"
    command = [
        sys.executable,
        "-m",
        "training.selfplay",
        "--config",
        "configs/smoke.yaml",
        "--out",
        str(run),
        "--set",
        "kickstart.decisions=0",
    ]
    done = subprocess.run([*command, "--set", "kickstart.guidance_steps=0"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return run


def test_the_trainer_logs_each_table_s_critic_advantages_and_the_opponents_it_deals(smoke_run):
    curves = read_curves(smoke_run)
    for label in ("t0_4p_2seats", "t1_3p_1seat"):  # configs/smoke.yaml's two tables
        for measure in ("explained_variance", "advantage_std", "return_mean"):
            assert len(curves[f"tables/{measure}_{label}"]) >= 3, (measure, label)
    assert all(value > 0 for _, value in curves["tables/advantage_std_t1_3p_1seat"])
    # The smoke config deals pool 0.5, random 0.25, greedy 0.25: the pool's half goes to the learner, then to its snapshots.
    assert {value for _, value in curves["opponents/share_random"]} == {0.25}
    pool = [value for _, value in curves.get("opponents/share_learner", [])] + [value for _, value in curves["opponents/share_snapshot"]]
    assert pool and all(value == pytest.approx(0.5) for value in pool)


def test_policy_change_is_the_mean_kl_of_the_masked_policies_and_zero_between_equal_snapshots(smoke_run, tmp_path):
    from sb3_contrib import MaskablePPO

    run = tmp_path / "run"
    shutil.copytree(smoke_run, run)
    snapshots = sorted((run / "pool").glob("step_*.pt"))
    assert len(snapshots) == 2
    # A far-moved newer snapshot: near each other the two directions of the KL agree to second order.
    weights = torch.load(snapshots[0], weights_only=True)
    generator = torch.Generator().manual_seed(0)
    weights["action_net.weight"] += torch.randn(weights["action_net.weight"].shape, generator=generator)
    torch.save(weights, snapshots[1])
    found = diagnose(run, tmp_path / "out", states=300, seed=4)
    (change,) = found["policy_change"]
    # torch's KL(newer || older) of the two masked categorical distributions, on the same states
    model = MaskablePPO.load(run / "model.zip", device="cpu")
    observations, masks = fixed_states(model, "miaui", "recall", 300, 4)
    assert observations.shape[0] == 300 and masks.any(axis=1).all()
    distributions = []
    for path in snapshots:
        model.policy.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        tensor, _ = model.policy.obs_to_tensor(observations)
        with torch.no_grad():
            distributions.append(model.policy.get_distribution(tensor, action_masks=masks).distribution)
    expected = torch.distributions.kl_divergence(distributions[1], distributions[0]).mean().item()
    assert change["kl"] == pytest.approx(expected, rel=1e-3) and change["kl"] > 0.05
    changed = np.mean(distributions[1].probs.argmax(-1).numpy() != distributions[0].probs.argmax(-1).numpy())
    assert change["best_card_changed"] == pytest.approx(changed, abs=1e-4)
    shutil.copy(snapshots[0], snapshots[1])  # two equal snapshots: the policy did not move
    (still,) = diagnose(run, tmp_path / "equal", states=300, seed=4)["policy_change"]
    assert still["kl"] == 0 and still["best_card_changed"] == 0


def test_the_command_writes_the_page_and_its_tables(smoke_run, tmp_path):
    out = tmp_path / "diagnosis"
    done = subprocess.run(
        [sys.executable, "-m", "training.diagnose", str(smoke_run), "--states", "200", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "best card changed on" in done.stdout and f"written to {out}/diagnosis.png" in done.stdout
    assert (out / "diagnosis.png").read_bytes()[:4] == b"\x89PNG"
    curves = {row["curve"] for row in csv.DictReader((out / "curves.csv").open())}
    assert {"train/approx_kl", "train/clip_fraction", "eval/win_share_vs_random", "policy/kl_to_previous_snapshot"} <= curves
    assert next(csv.DictReader((out / "policy_change.csv").open()))["from_step"].isdigit()
    missing = subprocess.run(
        [sys.executable, "-m", "training.diagnose", str(tmp_path / "nothing")], cwd=ROOT, capture_output=True, text=True
    )
    assert missing.returncode == 2 and "has no model.zip" in missing.stderr and "Traceback" not in missing.stderr
