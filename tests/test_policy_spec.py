"""Policies named, not pickled (miaui_env/core/policy_spec.py): every shipped policy loads without
importing any module path its save pickled (the 0.1 paths included), plays exactly as the pickled
classes do, and a run writes its network's names into its metadata."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from helpers import OLD_MODULES
from sb3_contrib import MaskablePPO

from miaui_env.core.policy import action_probabilities
from miaui_env.core.policy_spec import PolicySpecError, policy_objects, policy_spec
from miaui_env.games import get_game
from miaui_env.games.miaui.agents.loading import load_agent

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints"


def shipped_folders() -> list[Path]:
    """The policies the package ships (the folders git keeps under checkpoints/; a user's own runs there are not),
    and the best responses shipped with them (configs/v1.yaml trains against one)."""
    kept = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines() if line.strip().startswith("!checkpoints/")]
    names = [line[len("!checkpoints/") :].rstrip("/") for line in kept]
    policies = [SHIPPED / name for name in names if name and (SHIPPED / name / "model.zip").exists()]
    best_responses = [folder.parent for policy in policies for folder in policy.glob("exploit/best-response-*/model.zip")]
    return sorted(policies + best_responses)


def test_every_shipped_policy_loads_with_the_0_1_paths_gone():
    # A fresh interpreter where importing any 0.1 path fails loudly, not only as a missing module
    # (0.3 removed them): a saved policy that still named one could not load.
    code = f"""
import importlib.abc, sys
import miaui_env
OLD = {OLD_MODULES!r}

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name in OLD or name.startswith(tuple(old + "." for old in OLD)):
            raise ImportError("a saved policy named the old path " + name)
        return None

sys.meta_path.insert(0, Refuse())
from miaui_env.games import get_game
for folder in {[str(p) for p in shipped_folders()]!r}:
    import json
    game = get_game(json.load(open(folder + "/metadata.json")).get("game", "miaui"))
    agent = game.part("load_agent")(folder)
    print(folder.rsplit("/", 1)[-1], type(agent).__name__)
print("old paths imported:", sorted(name for name in sys.modules if name in OLD))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("PolicyAgent") == len(shipped_folders()) >= 7, done.stdout
    assert "old paths imported: []" in done.stdout


@pytest.mark.parametrize("folder", shipped_folders(), ids=lambda p: p.name)
def test_a_policy_loaded_by_its_names_plays_as_the_pickled_one(folder):
    import json

    metadata = json.loads((folder / "metadata.json").read_text())
    game = get_game(metadata.get("game", "miaui"))
    named = game.part("load_agent")(str(folder))
    # Shipped zips pickle module paths gone since 0.3 (0.1's privileged critic, 0.2's octopus odds and
    # Miaui's training pieces in integrations): the comparison with what they pickled puts them back
    # for this load alone.
    moved_to = importlib.import_module
    old_paths = {
        "miaui_env.privileged": moved_to("miaui_env.games.miaui.privileged"),
        "miaui_env.integrations.privileged": moved_to("miaui_env.games.miaui.privileged"),
        "miaui_env.integrations.card_odds": moved_to("miaui_env.games.miaui.card_odds"),
        "miaui_env.integrations.sb3": moved_to("miaui_env.games.miaui.compact_torch"),  # CompactInputPolicy's 0.2 home
        "miaui_env.integrations.octopus_odds": moved_to("miaui_env.games.octopus.odds"),
    }
    with mock.patch.dict(sys.modules, old_paths):
        pickled = MaskablePPO.load(folder / "model.zip", device="cpu")
    assert type(named.policy.policy) is type(pickled.policy)
    env = game.part("env")(num_players=3)
    rows, masks = [], []
    for seed in range(40):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=6):
            seen = env.observe(agent)
            rows.append(seen["observation"])
            masks.append(seen["action_mask"])
            env.step(int(np.flatnonzero(seen["action_mask"])[0]))
    rows_array, masks_array = np.array(rows), np.array(masks).astype(bool)
    np.testing.assert_array_equal(
        action_probabilities(named.policy, rows_array, masks_array), action_probabilities(pickled, rows_array, masks_array)
    )


def test_a_description_round_trips_and_names_nothing_but_names():
    import torch

    from miaui_env.games.miaui.privileged import PrivilegedCriticPolicy
    from miaui_env.games.octopus.odds import OctopusOddsFeatures

    spec = policy_spec(PrivilegedCriticPolicy, {"net_arch": {"pi": (64,), "vf": [32]}, "own_size": 620, "activation_fn": torch.nn.ReLU})
    kwargs = {"net_arch": {"pi": [64], "vf": [32]}, "own_size": 620, "activation_fn": "ReLU"}
    assert spec == {"class": "PrivilegedCriticPolicy", "kwargs": kwargs}
    objects = policy_objects(spec)
    assert objects["policy_class"] is PrivilegedCriticPolicy and objects["policy_kwargs"]["activation_fn"] is torch.nn.ReLU
    extractor = policy_objects({"class": "CompactInputPolicy", "kwargs": {"features_extractor_class": "OctopusOddsFeatures"}})
    assert extractor["policy_kwargs"]["features_extractor_class"] is OctopusOddsFeatures


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ({"class": "os.system", "kwargs": {}}, r"policy class='os.system' is not allowed; allowed: MaskableActorCriticPolicy"),
        ({"class": "CompactInputPolicy", "kwargs": {"features_extractor_class": "Evil"}}, "features_extractor_class='Evil'"),
        ({"class": "CompactInputPolicy", "kwargs": {"activation_fn": "Module"}}, "activation_fn='Module'"),
        ({"class": "CompactInputPolicy", "kwargs": {"activation_fn": "functional"}}, "activation_fn='functional'"),
        ({"class": "CompactInputPolicy"}, "policy=.* is not allowed"),
        ("PrivilegedCriticPolicy", "policy=.* is not allowed"),
    ],
)
def test_a_description_naming_anything_else_is_refused_by_name(spec, named):
    with pytest.raises(PolicySpecError, match=named):
        policy_objects(spec)


def test_a_checkpoint_whose_description_is_bad_is_refused_as_a_checkpoint(tmp_path):
    import json
    import shutil

    from miaui_env.core.checkpoint import CheckpointError

    folder = tmp_path / "run"
    shutil.copytree(SHIPPED / "miaui-ppo-v1", folder)
    metadata = json.loads((folder / "metadata.json").read_text())
    metadata["policy"]["class"] = "Nope"
    (folder / "metadata.json").write_text(json.dumps(metadata))
    with pytest.raises(CheckpointError, match="policy class='Nope' is not allowed"):
        load_agent(str(folder))


def test_a_run_whose_network_could_not_be_named_is_refused_at_its_start():
    import torch

    from training.config import ConfigError
    from training.ppo import ppo_kwargs

    with pytest.raises(PolicySpecError, match="activation_fn='Identity' is not allowed"):
        policy_spec(CompactInputPolicyClass(), {"activation_fn": torch.nn.Identity})
    with pytest.raises(ConfigError, match=r"ppo\.policy_kwargs\.activation_fn='Identity' is not allowed"):
        ppo_kwargs({"policy_kwargs": {"activation_fn": "Identity"}})


def CompactInputPolicyClass() -> type:  # noqa: N802 (a class, fetched)
    from miaui_env.games.miaui.compact_torch import CompactInputPolicy

    return CompactInputPolicy


def test_a_0_1_run_that_names_no_network_is_refused_in_one_line_and_loads_once_it_names_it(tmp_path):
    import json
    import shutil

    from miaui_env.core.checkpoint import CheckpointError

    folder = tmp_path / "old-run"  # a best response saved before 0.2 named networks: its zip pickles miaui_env.privileged
    shutil.copytree(SHIPPED / "miaui-ppo-v1" / "exploit" / "best-response-4p", folder)
    metadata = json.loads((folder / "metadata.json").read_text())
    named = metadata.pop("policy")
    (folder / "metadata.json").write_text(json.dumps(metadata))
    with pytest.raises(
        CheckpointError, match=r"pickles a module path this library no longer has .*miaui_env\.privileged.*Upgrading to 0\.3"
    ):
        load_agent(str(folder))
    (folder / "metadata.json").write_text(json.dumps({**metadata, "policy": named}))  # what the upgrade table says to do
    assert load_agent(str(folder)).policy is not None


def test_a_plug_in_games_networks_load_by_the_names_it_registers():
    # The tables are the registered games' own (Game.features_extractors): a game of one's own adds its
    # extractor where it registers, and a config and a checkpoint then name it; gone with the game.
    import dataclasses

    from stable_baselines3.common.torch_layers import FlattenExtractor

    from miaui_env.core.policy_spec import features_extractor
    from miaui_env.games import register, unregister
    from training.ppo import ppo_kwargs

    with pytest.raises(PolicySpecError, match="features_extractor_class='FlattenExtractor' is not allowed"):
        features_extractor("FlattenExtractor")
    own = dataclasses.replace(
        get_game("octopus"),
        name="flat_bids",
        features_extractors={"FlattenExtractor": "stable_baselines3.common.torch_layers:FlattenExtractor"},
    )
    register(own)
    try:
        assert features_extractor("FlattenExtractor") is FlattenExtractor
        kwargs = ppo_kwargs({"policy_kwargs": {"features_extractor_class": "FlattenExtractor"}})
        assert kwargs["policy_kwargs"]["features_extractor_class"] is FlattenExtractor
        spec = {"class": "MaskableActorCriticPolicy", "kwargs": {"features_extractor_class": "FlattenExtractor"}}
        assert policy_objects(spec)["policy_kwargs"]["features_extractor_class"] is FlattenExtractor
    finally:
        unregister("flat_bids")
    with pytest.raises(PolicySpecError, match="FlattenExtractor"):
        features_extractor("FlattenExtractor")


def test_a_game_naming_another_games_network_class_is_refused_when_registered():
    # One name, one class: otherwise every checkpoint naming it (the shipped policies too) would load
    # whichever game registered last, or fail to load at all.
    import dataclasses

    from miaui_env.core.policy_spec import features_extractors
    from miaui_env.games import game_names, register

    clash = {"OctopusOddsFeatures": "stable_baselines3.common.torch_layers:OctopusOddsFeatures"}
    refused = r"game 'clash': features_extractors \['OctopusOddsFeatures'\] name other classes in the octopus game's"
    with pytest.raises(ValueError, match=refused):
        register(dataclasses.replace(get_game("octopus"), name="clash", features_extractors=clash))
    assert "clash" not in game_names()
    assert features_extractors()["OctopusOddsFeatures"] == "miaui_env.games.octopus.odds:OctopusOddsFeatures"
    policy = {"PrivilegedCriticPolicy": "stable_baselines3.common.policies:PrivilegedCriticPolicy"}
    with pytest.raises(ValueError, match=r"policy_classes \['PrivilegedCriticPolicy'\] name other classes in Miaui's"):
        register(dataclasses.replace(get_game("octopus"), name="clash", policy_classes=policy))


@pytest.mark.parametrize("table", ["policy_classes", "features_extractors"])
def test_a_game_whose_network_table_is_not_class_names_is_refused_when_made(table):
    import dataclasses

    with pytest.raises(ValueError, match=f"{table}=.* is not a mapping of class names to 'module:ClassName'"):
        dataclasses.replace(get_game("octopus"), name="bad", **{table: {"Odds": "my_package.odds:OtherName"}})
