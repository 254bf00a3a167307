"""The AEC speed benchmark counts what it says: whole games with their resets timed, and steps alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

import miaui_env

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


def benchmark(name: str):
    if str(BENCHMARKS) not in sys.path:  # as when a script runs: its folder is on sys.path (benchmarks/peers.py)
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class SlowReset:
    """An env whose reset takes 20 ms: only the whole-games count may pay for it."""

    def __init__(self, env):
        self.env = env

    def reset(self, *args, **kwargs):
        import time

        time.sleep(0.02)
        return self.env.reset(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.env, name)


def test_whole_games_count_their_resets_and_steps_only_do_not():
    aec_speed = benchmark("aec_speed")
    found = aec_speed.compare(lambda: SlowReset(miaui_env.env(num_players=3)), lambda: miaui_env.env(num_players=3), 0.3, 2)
    # 40 agent-steps a 3-player game: a 20 ms reset caps whole games near 2,000 steps/s, and steps alone never see it
    assert found["whole"] < 2_000 < found["steps"]
    assert found["ratio_whole"] < 0.5 * found["ratio_steps"] and found["peer_whole"] > 2_000


def test_the_soak_checks_every_round_and_catches_a_lost_card(monkeypatch):
    import pytest

    from miaui_env.games.miaui.vector import VectorMiaui

    soak = benchmark("soak")
    assert soak.soak_miaui(300, 64, seed=0) == 300 * 11  # every game's every round (the twelfth is forced)
    assert soak.soak_octopus(12, seed=0) > 12 * 20  # every decision of every game
    step = VectorMiaui.step

    def losing_a_card(self, actions, **kwargs):  # a pile that forgets its top fish: the cards no longer add up (R3)
        result = step(self, actions, **kwargs)
        self._game.pile_len[0, 0] = max(0, self._game.pile_len[0, 0] - 1)
        return result

    monkeypatch.setattr(VectorMiaui, "step", losing_a_card)
    with pytest.raises(soak.InvariantError, match="cards lost after round"):
        soak.soak_miaui(64, 64, seed=0)


def test_a_missing_speed_peer_stops_with_what_to_install():
    import pytest

    benchmark("aec_speed")  # puts benchmarks/ on sys.path, as running a script does
    from peers import peer

    assert peer("json", "nothing").dumps([1]) == "[1]"
    with pytest.raises(SystemExit, match=r"the speed peer no_such_peer_module needs pygame: pip install 'miaui-rl\[bench\]'"):
        peer("no_such_peer_module", "pygame")


def test_the_octopus_agents_benchmark_times_the_compiled_agents_and_their_reference_on_the_same_decisions():
    agents_speed = benchmark("octopus_agents_speed")
    rows, masks = agents_speed.record(2, seed=0)
    assert len(rows) > 50 and set(np.unique(masks[:, 2])) == {0, 1}  # flips and thefts
    for name in agents_speed.AGENTS:
        found = agents_speed.compare(name, rows, masks, 16, 0.05)
        assert found["same"] and found["speed"] > 0 and found["reference"] > 0
        assert found["ratio"] == found["speed"] / found["reference"]
    assert agents_speed.selfplay_speed(agents_speed.AGENTS["risk-aware"](0), 2, 0.05) > 0
