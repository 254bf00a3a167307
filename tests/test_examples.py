"""Every client example in examples/ runs as its library's users run it, a few thousand steps each.

Each client is an optional extra (`pip install -e ".[examples]"` brings them all; `.ci/run` does);
a missing one fails these tests, it does not skip them. The env raises `IllegalActionError` at a
card not in hand, so an example that runs to its end played legal cards throughout; the summaries
add what each client learnt (a finite loss) or played.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

EXAMPLES = Path(__file__).parent.parent / "examples"


def example(name: str) -> ModuleType:
    """Import examples/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_sb3_make_vec_env_and_maskable_ppo():
    summary = example("sb3_maskable_ppo").main(["--steps", "2048", "--seed", "0"])
    assert summary["steps"] >= 2048 and math.isfinite(summary["loss"]) and 0.0 <= summary["mean_return"] <= 1.0


def test_cleanrl_style_ppo_with_masks():
    summary = example("cleanrl_ppo_masks").main(["--total-timesteps", "4096", "--seed", "1"])
    assert summary["steps"] == 4096 and summary["games"] >= 4096 // 12 - 8  # 11 decisions and an autoreset step a game
    assert 0.0 <= summary["mean_return"] <= 1.0 and math.isfinite(summary["loss"])


def test_cleanrl_style_ppo_refuses_a_budget_below_one_rollout(capsys):
    with pytest.raises(SystemExit):
        example("cleanrl_ppo_masks").main(["--total-timesteps", "100", "--num-envs", "2", "--num-steps", "64"])
    assert "--total-timesteps 100 is less than one rollout" in capsys.readouterr().err


def test_tianshou_multi_agent_dqn():
    summary = example("tianshou_dqn").main(["--steps", "2000", "--seed", "0"])
    assert summary["steps"] >= 2000 and 30 <= summary["games"] <= summary["steps"] // 44  # 44 decisions a game, and its end steps
    assert math.isfinite(summary["loss"])


def test_torchrl_pettingzoo_wrapper_with_a_masked_policy():
    summary = example("torchrl_rollout").main(["--steps", "2000", "--seed", "0"])
    assert summary["legal"] == 1.0 and summary["steps"] == summary["games"] * 44 and summary["games"] == 2000 // 44


def test_supersuit_vector_env_with_masks_through_the_observation():
    summary = example("supersuit_masks").main(["--steps", "2048", "--seed", "0"])
    assert summary["steps"] >= 2048 and summary["legal"] == 1.0 and math.isfinite(summary["loss"])


@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_rllib_pettingzoo_wrappers(api):
    summary = example("rllib_ppo").main(["--api", api, "--iterations", "2", "--seed", "0"])
    assert summary["steps"] >= 2 * 352 and summary["episode_return"] == pytest.approx(1.0)


def test_your_own_agent_plays_the_arena_from_the_example():
    module = example("my_agent")
    masks = np.array([[1] * 12, [1, 0, 0, 1] + [0] * 8, [0] * 6 + [1] + [0] * 5], dtype=np.int8)
    assert module.SecondHighest().act(np.zeros((3, 620), np.float32), masks).tolist() == [10, 0, 6]  # cards 11, 1 and 7
    summary = module.main(["--games", "200", "--seed", "1"])
    assert summary["games"] == 200 and 0.0 <= summary["win_share"] < 0.25  # it throws its cards away against counters


def test_openspiel_cfr_and_nfsp_on_a_short_miaui_game_measured_exactly():
    found = example("openspiel_short_game").main(["--cfr-iterations", "10", "--nfsp-episodes", "300", "--seed", "0"])
    assert found["cfr"] < found["uniform"] / 4  # full-width CFR's average policy nears an equilibrium within 10 iterations
    assert 0.0 <= found["nfsp"] < 3.0 and found["cfr"] >= 0.0  # NashConv in win share: at most 1 a seat


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "3"], "a deck must hold 10 cards for 3 rounds"),
        (["--rounds", "1"], "rounds=1 is not allowed"),
        (["--cfr-iterations", "-5"], "--cfr-iterations -5: at least 1"),
        (["--nfsp-episodes", "0"], "--nfsp-episodes 0: at least 1"),
    ],
)
def test_the_short_game_example_refuses_bad_input_by_name(args, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        example("openspiel_short_game").main(args)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_openspiel_mccfr_and_dqn_on_miaui():
    summary = example("openspiel_algorithms").main(["--iterations", "30", "--episodes", "30", "--eval-games", "20", "--seed", "0"])
    assert summary["mccfr_infostates"] > 30 * 3 * 5  # every sampled game reaches ~11 decisions a seat, nearly all new
    assert math.isfinite(summary["dqn_loss"])
