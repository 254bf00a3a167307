"""Run configs: the typed, frozen config objects read from YAML, their checks, and the seed tree."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from miaui_env.core.errors import REWARDS
from miaui_env.core.seeding import seed_children
from miaui_env.games.miaui.observation import VIEWS
from miaui_env.games.miaui.spec import TableSpec
from training.config import (
    EvaluationConfig,
    KickstartConfig,
    MagnetConfig,
    MiauiRLlibConfig,
    MiauiSelfPlayConfig,
    MiauiTableConfig,
    OpponentsConfig,
    ProbeConfig,
    RLlibConfig,
    RunConfig,
    RunSeeds,
    SelfPlayConfig,
    TableConfig,
    json_schema,
    load_config,
)
from training.config_files import CONFIG_DIR, ConfigError, read_yaml

ROOT = Path(__file__).parent.parent
SMOKE = ROOT / "configs" / "smoke.yaml"


def config_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(textwrap.dedent(text))
    return path


# -- defaults and types ---------------------------------------------------------------------------
def test_the_defaults_are_the_yaml_files_typed():
    config = load_config()
    assert isinstance(config, SelfPlayConfig) and config == SelfPlayConfig.load()
    assert config.run_name == "miaui-ppo" and isinstance(config.total_timesteps, int)
    assert config.tables[3] == MiauiTableConfig(num_players=6, num_games=96, learner_seats=(0, 3))
    assert config.opponents.baseline_names == ("counter", "noisy-counter", "greedy", "random", "high", "low", "extremes", "middle")
    assert config.magnet == MagnetConfig(coef=0.2, policy="average", rate=0.01)
    assert config.exploiters.every == 0 and config.exploiter_sizes == (3, 4, 6)  # off; on, at every table size in turn
    assert config.ppo["learning_rate"] == 1e-3 and config.total_timesteps == 10_000_000  # the recipe study's
    assert config.ppo["policy_kwargs"]["card_odds"] is True  # its second lever
    for shipped in ("v1", "v1-league", "kickstart"):  # the shipped policies' configs train as they trained: 0.2's rate and inputs
        shipped_ppo = load_config(ROOT / "configs" / f"{shipped}.yaml").ppo
        assert shipped_ppo["learning_rate"] == 3e-4 and shipped_ppo["policy_kwargs"]["card_odds"] is False, shipped
    assert config.kickstart.decisions == 0  # no teacher
    assert config.kickstart.guidance_learning_rate == 3e-5 and isinstance(config.kickstart.learning_rate, float)
    assert config.ppo["policy_kwargs"]["net_arch"]["vf"] == (128, 128)
    rllib = RLlibConfig.load()
    assert rllib.run_name == "miaui-rllib" and rllib.evaluation.every == 10 and rllib.training["lambda_"] == 0.95


def test_the_config_is_frozen():
    config = load_config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.tables[0].num_games = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.ppo["n_steps"] = 3  # type: ignore[index]
    assert dataclasses.replace(config, seed=3).seed == 3


def test_a_table_entry_may_leave_out_its_options():
    config = load_config(None, ["tables=[{num_players: 5, num_games: 8}]"])
    assert config.tables == (MiauiTableConfig(num_players=5, num_games=8, learner_seats=None, open_baskets=False, no_fighting=False),)


# -- unknown keys ----------------------------------------------------------------------------------
def test_an_unknown_key_in_a_table_entry_is_refused_naming_it(tmp_path):
    path = config_file(
        tmp_path,
        """
        tables:
          - {num_players: 4, num_games: 16, learner_seats: [0]}
          - {num_players: 3, num_games: 8, learner_seats: [0], no_fightin: true}
        """,
    )
    with pytest.raises(ConfigError, match=r"unknown config key 'tables\[1\]\.no_fightin'; known keys here: .*no_fighting"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"--set tables=.*unknown config key 'tables\[0\]\.no_fightin'"):
        load_config(None, ["tables=[{num_players: 4, num_games: 16, no_fightin: true}]"])


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("seeed: 1", "seeed"),
        ("opponents: {snapshot_evry: 5}", "opponents.snapshot_evry"),
        ("evaluation: {baseline: [random]}", "evaluation.baseline"),
        ("kickstart: {teacher: greedy, learning_rat: 0.1}", "kickstart.learning_rat"),
        ("tables: [{num_players: 4, num_games: 2, seats: [0]}]", "tables[0].seats"),
    ],
)
def test_unknown_keys_are_refused_at_every_depth(tmp_path, text, key):
    with pytest.raises(ConfigError, match=f"unknown config key '{re.escape(key)}'"):
        load_config(config_file(tmp_path, text))


# Overrides (--set) of no key of the config, each with what its refusal says: checked with the wrong types below.
UNKNOWN_OVERRIDE_KEYS = [
    ("learnign_rate=1", "unknown key 'learnign_rate'; known keys here: device, evaluation, exploiters, game, init, kickstart"),
    ("kickstart.techer=random", "unknown key 'kickstart.techer'; known keys here: batch_size"),
    ("opponents.pool.size=2", "unknown key 'opponents.pool'"),
    ("tables.0.num_games=2", "'tables' has no keys; set it whole"),
    ("seed.x=2", "'seed' has no keys"),
    ("seed", "not key=value"),
]


def test_rllib_configs_refuse_unknown_keys_too(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown config key 'evaluation\.evry'"):
        RLlibConfig.load(config_file(tmp_path, "evaluation: {evry: 2}"))
    with pytest.raises(ConfigError, match=r"unknown key 'total_timesteps'"):
        RLlibConfig.load(None, ["total_timesteps=5"])


# -- types -----------------------------------------------------------------------------------------
# Overrides (--set) of a value of the wrong type, each with what its refusal says: the key, the value and what is allowed.
WRONG_TYPES = [
    ("total_timesteps=lots", "config key 'total_timesteps' is 'lots'; allowed: an integer from 0 to 1e\\+15"),
    ("seed=true", "config key 'seed' is True; allowed: an integer"),  # a bool is not an int
    ("seed=1.5", "config key 'seed' is 1.5; allowed: an integer"),
    ("kickstart.learning_rate=true", "config key 'kickstart.learning_rate' is True; allowed: a number"),
    ("kickstart.epochs=0", "config key 'kickstart.epochs' is 0; allowed: an integer from 1 to 1e\\+15"),
    ("kickstart.epochs=1.5", "config key 'kickstart.epochs' is 1.5; allowed: an integer from 1 to 1e\\+15"),
    ("total_timesteps=" + "9" * 400, "config key 'total_timesteps' is 9{80}; allowed: an integer from 0 to 1e\\+15"),
    ("evaluation.games_per_baseline=10000000000000000", "'evaluation.games_per_baseline' is 10000000000000000; allowed: an integer"),
    ("kickstart.learning_rate=.inf", "config key 'kickstart.learning_rate' is inf; allowed: a number >= 0"),
    ("magnet.coef=1e400", "config key 'magnet.coef' is inf; allowed: a number >= 0"),  # YAML reads 1e400 as inf
    ("opponents.pfsp_exponent=.nan", "config key 'opponents.pfsp_exponent' is nan; allowed: a number >= 0"),
    ("opponents.weights={pool: .inf}", "config key 'opponents.weights.pool' is inf; allowed: a number >= 0"),
    ("opponents.weights={}", "config key 'opponents.weights' is {}: no agent has a weight above 0"),
    ("opponents.weights={pool: 0, random: 0}", "no agent has a weight above 0; allowed: the pool and baselines"),
    ("run_name=" + "x" * 101, "config key 'run_name' is 'x+; allowed: a folder name of 1-100 letters"),
    ("kickstart.teacher_share_end=2", "config key 'kickstart.teacher_share_end' is 2; allowed: a number from 0 to 1"),
    ("view=tabel", "config key 'view' is 'tabel'; allowed: one of 'table', 'recall'"),
    ("game=chess", "config key 'game' is 'chess'; allowed: one of 'miaui', 'octopus'"),
    ("game=Octopus", "config key 'game' is 'Octopus'; allowed: one of 'miaui', 'octopus'"),  # names are lower case
    ("evaluation.baselines=random", "config key 'evaluation.baselines' is 'random'; allowed: a list, each a string"),
    ("evaluation.baselines=[random, 3]", r"config key 'evaluation.baselines\[1\]' is 3; allowed: a string"),
    ("opponents.weights.random=true", "config key 'opponents.weights.random' is True; allowed: a number >= 0"),
    ("opponents.weights={random: -1}", "config key 'opponents.weights.random' is -1; allowed: a number >= 0"),
    ("tables=[{num_players: 7, num_games: 2}]", r"config key 'tables\[0\].num_players' is 7; allowed: an integer from 2 to 6"),
    (
        "tables=[{num_players: 2, num_games: 2}]",
        r"config key 'tables\[0\].num_players' is 2; allowed: an integer from 3 to 6 \(game: miaui",
    ),
    ("tables=[{num_players: 4, num_games: 2, open_baskets: 1}]", r"'tables\[0\].open_baskets' is 1; allowed: a bool"),
    ("tables=[{num_players: 4}]", r"config key 'tables\[0\].num_games' is missing"),
    ("tables=[]", "config key 'tables' is empty; allowed: at least one table"),
    ("ppo=[1]", "config key 'ppo' is \\[1\\]; allowed: a mapping"),
    ("opponents=3", "config key 'opponents' is 3; allowed: a mapping with keys weights, snapshot_every, pool_size"),
]


@pytest.mark.parametrize(("override", "message"), UNKNOWN_OVERRIDE_KEYS + WRONG_TYPES)
def test_a_bad_override_is_refused_with_what_is_wrong(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, [override])


def test_wrong_types_in_a_file_name_the_file(tmp_path):
    path = config_file(tmp_path, "kickstart: {decisions: many}")
    with pytest.raises(ConfigError, match=rf"{path}: config key 'kickstart.decisions' is 'many'; allowed: an integer from 0 to 1e\+15"):
        load_config(path)


def test_a_game_that_is_not_a_name_in_a_file_is_refused(tmp_path):
    path = config_file(tmp_path, "game: [octopus]")
    with pytest.raises(ConfigError, match=rf"{path}: config key 'game' is \['octopus'\]; allowed: one of 'miaui', 'octopus'"):
        load_config(path)


def test_an_override_is_read_by_the_type_of_its_key():
    config = load_config(None, ["run_name=nan", "kickstart.teacher=123", "seed=3", "kickstart.learning_rate=1e-4"])
    assert config.run_name == "nan" and config.kickstart.teacher == "123"  # strings stay strings
    assert config.seed == 3 and config.kickstart.learning_rate == 1e-4
    assert load_config(None, ["run_name=true", "view=recall"]).run_name == "true"
    assert isinstance(load_config(None, ["kickstart.learning_rate=1"]).kickstart.learning_rate, float)  # an int is a number


def test_1e_4_is_a_float_in_files_and_overrides(tmp_path):
    assert read_yaml("1e-4") == 1e-4 and read_yaml("-2E5") == -2e5 and read_yaml(".5") == 0.5 and read_yaml("1.0e-4") == 1e-4
    assert read_yaml("10") == 10 and isinstance(read_yaml("10"), int) and read_yaml("nan") == "nan" and read_yaml("1_000") == 1000
    path = config_file(tmp_path, "kickstart: {learning_rate: 1e-4, guidance_learning_rate: 3E-5}\nppo: {learning_rate: 1e-4}\n")
    config = load_config(path, ["ppo.ent_coef=1e-3"])
    assert config.kickstart.learning_rate == 1e-4 and config.kickstart.guidance_learning_rate == 3e-5
    assert config.ppo["learning_rate"] == 1e-4 and config.ppo["ent_coef"] == 1e-3  # free sections too


# -- free sections, merging --------------------------------------------------------------------------
def test_the_ppo_section_passes_any_key_through(tmp_path):
    from training.ppo import ppo_kwargs

    path = config_file(tmp_path, "ppo: {target_kl: 0.02, policy_kwargs: {ortho_init: false, activation_fn: ReLU}}")
    config = load_config(path, ["ppo.normalize_advantage=false", "ppo.policy_kwargs.share_features_extractor=true"])
    kwargs = ppo_kwargs(config.ppo)
    assert kwargs["target_kl"] == 0.02 and kwargs["normalize_advantage"] is False and kwargs["n_steps"] == 22
    assert kwargs["policy_kwargs"]["ortho_init"] is False and kwargs["policy_kwargs"]["share_features_extractor"] is True
    assert kwargs["policy_kwargs"]["net_arch"] == {"pi": [256, 256], "vf": [128, 128]}  # merged, and plain lists again
    assert type(kwargs["policy_kwargs"]) is dict


def test_a_rate_may_be_a_straight_line_over_the_run():
    from training.ppo import ppo_kwargs

    config = load_config(None, ["ppo.learning_rate={start: 0.001, end: 0.0001}", "ppo.clip_range={start: 0.3, end: 0.1}"])
    kwargs = ppo_kwargs(config.ppo)
    rate, clip = kwargs["learning_rate"], kwargs["clip_range"]
    # SB3's progress_remaining: 1 at the run's first step, 0 at its last
    assert [round(rate(progress), 10) for progress in (1.0, 0.5, 0.0)] == [0.001, 0.00055, 0.0001]
    assert [round(clip(progress), 10) for progress in (1.0, 0.0)] == [0.3, 0.1]
    assert ppo_kwargs(load_config().ppo)["learning_rate"] == 0.001  # one number stays a number


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{start: 0.001}", "a schedule is {start: A, end: B}"),
        ("{start: 0.001, end: 0.0001, shape: cosine}", "a schedule is {start: A, end: B}"),
        ("{start: 0.001, end: -1}", "ppo.learning_rate=-1 is not allowed; it must be a number > 0"),
        ("{start: true, end: 0.1}", "ppo.learning_rate=True is not allowed"),
    ],
)
def test_a_schedule_that_is_not_a_straight_line_of_allowed_rates_is_refused(value, message):
    from training.ppo import ppo_kwargs

    with pytest.raises(ConfigError, match=re.escape(message)):
        ppo_kwargs(load_config(None, [f"ppo.learning_rate={value}"]).ppo)


def test_rllib_sections_pass_any_key_through():
    config = RLlibConfig.load(None, ["training={lr: 1e-4, anything: {deep: [1]}}", "model.vf_share_layers=true"])
    assert config.training["lr"] == 1e-4 and config.training["anything"]["deep"] == (1,)
    assert config.training["lambda_"] == 0.95  # merged with configs/rllib.yaml
    assert config.model["vf_share_layers"] is True


def test_weights_are_replaced_whole_but_a_dotted_key_sets_one():
    assert load_config(SMOKE, ["opponents.weights={random: 1}"]).opponents.weights == {"random": 1.0}
    weights = load_config(None, ["opponents.mode=mixture", "opponents.weights.pool=0"]).opponents.weights
    assert weights == {**load_config().opponents.weights, "pool": 0}
    smoke = load_config(SMOKE)
    assert smoke.opponents.weights == {"pool": 0.5, "random": 0.25, "greedy": 0.25}  # no counter from the defaults
    assert smoke.kickstart.guidance_steps == 1 and smoke.kickstart.teacher == "greedy"  # sections merge key by key


def test_override_gives_a_changed_copy():
    config = load_config(SMOKE)
    changed = config.override("total_timesteps=50", "ppo.n_steps=44")
    assert changed.total_timesteps == 50 and changed.ppo["n_steps"] == 44 and config.total_timesteps == 6000
    assert changed.override("total_timesteps=6000", "ppo.n_steps=22") == config


# -- round trip -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind_and_file",
    [(SelfPlayConfig, None), (SelfPlayConfig, SMOKE), (SelfPlayConfig, ROOT / "configs" / "octopus.yaml"), (RLlibConfig, None)],
)
def test_the_config_round_trips_through_yaml(tmp_path, kind_and_file):
    kind, path = kind_and_file
    config = kind.load(path, ["kickstart.learning_rate=1e-4"] if kind is SelfPlayConfig else ["training.lr=1e-4"])
    text = config.to_yaml()
    assert type(config).from_dict(read_yaml(text)) == config
    saved = tmp_path / "config.yaml"
    saved.write_text(text)
    assert kind.load(saved) == config  # what --resume reads back
    assert kind.load(saved).to_yaml() == text


def test_every_field_has_a_docstring():
    kinds = [RunConfig, SelfPlayConfig, MiauiSelfPlayConfig, RLlibConfig, TableConfig, MiauiTableConfig, OpponentsConfig, EvaluationConfig]
    kinds += [KickstartConfig, ProbeConfig, RunSeeds]
    for kind in kinds:
        body = ast.parse(textwrap.dedent(inspect.getsource(kind))).body[0].body  # type: ignore[attr-defined]
        for statement, following in zip(body, [*body[1:], None], strict=True):
            if isinstance(statement, ast.AnnAssign):
                documented = isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                assert documented, f"{kind.__name__}.{ast.unparse(statement.target)} has no docstring"


# -- seeds ------------------------------------------------------------------------------------------
def test_named_streams_are_children_of_one_seed_sequence():
    seeds = RunSeeds(5)
    spawned = np.random.SeedSequence(5).spawn(7)
    assert seeds.sequence("tables").generate_state(4).tolist() == spawned[0].generate_state(4).tolist()
    assert seeds.sequence("ppo").generate_state(4).tolist() == spawned[6].generate_state(4).tolist()
    assert seeds.integer("evaluation", 1, 0) == RunSeeds(5).integer("evaluation", 1, 0)  # the same at every evaluation
    ints = {seeds.integer(stream) for stream in ("tables", "baselines", "opponents", "cloning", "guidance", "evaluation", "ppo")}
    assert len(ints) == 7 and RunSeeds(6).integer("ppo") != seeds.integer("ppo")
    assert load_config(None, ["seed=5"]).seeds == seeds


def test_seed_children_do_not_depend_on_what_was_spawned_before():
    parent = np.random.SeedSequence(3)
    first = [child.generate_state(2).tolist() for child in seed_children(parent, 3)]
    parent.spawn(5)
    assert [child.generate_state(2).tolist() for child in seed_children(parent, 3)] == first
    assert first == [child.generate_state(2).tolist() for child in np.random.SeedSequence(3).spawn(3)]


def test_two_tables_never_share_slot_seeds_even_with_thousands_of_games():
    from miaui_env.core.vec import MultiTableVecEnv
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    def lowest(observations, masks):
        return np.argmax(masks, axis=1)

    tables = [MiauiSelfPlayVecEnv(num_games=1500, num_players=3, learner_seats=[0], opponent=lowest, rotate_seats=False) for _ in range(2)]
    venv = MultiTableVecEnv(tables)
    seeds = venv.seed(RunSeeds(0).sequence("tables"))
    first, second = seeds[:1500], seeds[1500:]
    assert len(set(first)) == 1500 and not set(first) & set(second)
    # Every game played through with the lowest cards: what it shows depends on its deal alone.
    games = [[observation.tobytes()] for observation in venv.reset()]
    for _ in range(11):
        observations, _, _, infos = venv.step(np.argmax(venv.action_masks(), axis=1))
        for game, observation in zip(games, observations, strict=True):
            game.append(observation.tobytes())
    games = [b"".join(game) + info["terminal_observation"].tobytes() for game, info in zip(games, infos, strict=True)]
    assert games[1000] != games[1500]  # under `seed + 1000 * table`, one game
    assert len(set(games)) == 3000  # every game its own deal


def test_a_table_seeded_at_construction_deals_as_seed_does():
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    child = RunSeeds(0).sequence("tables", 1)
    built = MiauiSelfPlayVecEnv(num_games=6, num_players=4, seed=child).reset()
    reseeded = MiauiSelfPlayVecEnv(num_games=6, num_players=4)
    reseeded.seed(child)
    assert np.array_equal(built, reseeded.reset())


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda path: path.name)
def test_every_committed_config_loads_and_names_agents_that_load(path):
    """A config in configs/ (v1.yaml names the shipped stage-1 policy and its best response) must run
    as it stands: it loads, and every agent it names loads."""
    from training.games import training_game

    if path.name == "rllib.yaml":
        RLlibConfig.load(path)
        return
    config = load_config(path)
    names = [*config.opponents.baseline_names, *config.evaluation.baselines, config.kickstart.teacher]
    for name in [*names, *([config.init] if config.init else [])]:
        training_game(config.game).load_agent(name, seed=0)  # each game's own agents


# -- YAML 1.2 -----------------------------------------------------------------------------------------
def test_yaml_is_read_as_yaml_1_2_and_a_repeated_key_is_refused(tmp_path):
    assert read_yaml("[010, yes, on, 1:30, 0x1F, true]") == [10, "yes", "on", "1:30", 31, True]
    with pytest.raises(ConfigError, match=r"run.yaml: not valid YAML \(line 2\): found duplicate key \"seed\""):
        load_config(config_file(tmp_path, "seed: 1\nseed: 2\n"))
    with pytest.raises(ConfigError, match="not valid YAML"):
        read_yaml("!!python/object/apply:os.system [echo]")  # a safe loader builds no objects
    with pytest.raises(ConfigError, match="a config file is a mapping of keys to values, not \\[1, 2\\]"):
        load_config(config_file(tmp_path, "[1, 2]"))


def test_config_yaml_reads_the_same_in_a_yaml_1_1_reader():
    import yaml  # PyYAML: YAML 1.1, where 3e-05 is text and yes is true

    config = load_config(None, ["run_name=yes", "kickstart.guidance_learning_rate=3e-5", "ppo.ent_coef=1e-20", "init=on"])
    text = config.to_yaml()
    assert "guidance_learning_rate: 3.0e-05\n" in text and "run_name: 'yes'\n" in text
    assert yaml.safe_load(text) == config.to_dict() == read_yaml(text)


# -- one table spec, and keys renamed in 0.2 --------------------------------------------------------
def test_the_tables_are_table_specs():
    config = load_config(SMOKE, ["reward=margin"])
    assert config.table_specs == (
        TableSpec(num_players=4, open_baskets=False, no_fighting=False, view="recall", reward="margin"),
        TableSpec(num_players=3, open_baskets=True, no_fighting=True, view="recall", reward="margin"),
    )
    assert config.evaluation_specs == tuple(TableSpec(4, *variant, "recall", "margin") for variant in config.variants)
    tables = "tables=[{num_players: 5, num_games: 8, no_fighting: true}]"
    rllib = RLlibConfig.load(None, [tables, "view=recall", "evaluation.num_players=3"])
    assert rllib.evaluation_specs == (TableSpec(num_players=3, no_fighting=True, view="recall"),)


def test_views_and_rewards_are_the_librarys(tmp_path):
    for view in VIEWS:
        assert load_config(None, [f"view={view}"]).view == view == RLlibConfig.load(None, [f"view={view}"]).view
    for reward in REWARDS:
        assert load_config(None, [f"reward={reward}"]).reward == reward
    with pytest.raises(ConfigError, match="config key 'reward' is 'points'; allowed: one of 'win', 'score', 'margin'"):
        RLlibConfig.load(None, ["reward=points"])


def test_players_is_num_players_everywhere():
    schema = json.dumps([json_schema(SelfPlayConfig), json_schema(RLlibConfig)])
    assert '"num_players"' in schema and '"players"' not in schema


@pytest.mark.parametrize("section", ["evaluation", "probe"])
def test_the_0_1_key_players_is_refused_naming_num_players(tmp_path, section):
    # read as num_players with a DeprecationWarning in 0.2; an unknown key since 0.3
    with pytest.raises(ConfigError, match=f"'{section}.players'.*num_players"):
        load_config(config_file(tmp_path, f"{section}: {{players: 5}}"))
    with pytest.raises(ConfigError, match=f"unknown key '{section}.players'; known keys here: .*num_players"):
        load_config(None, [f"{section}.players=3"])
    assert not hasattr(getattr(load_config(None), section), "players")


def test_the_names_of_0_1_stay_out_of_messages():
    with pytest.raises(ConfigError, match=r"known keys here: baselines, every, games_per_baseline, num_players$"):
        load_config(None, ["evaluation={evry: 3}"])
    with pytest.raises(ConfigError, match=r"unknown key 'probe.player'; known keys here: games, num_players, steps$"):
        load_config(None, ["probe.player=3"])


@pytest.mark.parametrize("path", sorted((ROOT / "checkpoints").glob("*/config.yaml")), ids=lambda path: path.parent.name)
def test_every_shipped_checkpoints_config_loads(path):
    """A shipped policy's config.yaml loads (`--resume` reads it) with today's key names, warning of nothing."""
    written = read_yaml(path.read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        config = load_config(path)
    assert config.run_name == written["run_name"] and config.evaluation.num_players == written["evaluation"]["num_players"]


def test_the_probe_is_recorded_in_metadata_under_its_old_key():
    """metadata.json's `exploitability` keeps `players`: a finished shipped run resumed is not probed again."""
    shipped = json.loads((ROOT / "checkpoints" / "miaui-ppo-v1" / "metadata.json").read_text())["exploitability"]
    recorded = load_config(ROOT / "configs" / "v1.yaml").probe.in_metadata()
    assert recorded == {"steps": 10_000_000, "players": 4, "games": 2000} == {key: shipped[key] for key in recorded}


# -- the JSON schema and where the configs are ----------------------------------------------------
def test_the_json_schema_documents_every_field():
    for kind in (SelfPlayConfig, MiauiSelfPlayConfig, RLlibConfig, MiauiRLlibConfig):
        schema = json_schema(kind)
        sections = [schema, *schema["$defs"].values()]
        assert all(field.get("description") for section in sections for field in section["properties"].values())
        assert schema["properties"]["run_name"]["description"] == "checkpoints/<run_name>/ holds the run."  # an inherited field's too
    tables = json_schema()["$defs"]["MiauiTableConfig"]["properties"]["num_players"]
    assert (tables["minimum"], tables["maximum"], tables["type"]) == (2, 6, "integer")  # either game's sizes; each game's own below


@pytest.mark.parametrize(("schema", "kind"), [("rllib", MiauiRLlibConfig), ("rllib-any-game", RLlibConfig)])
def test_the_schema_command_prints_it(schema, kind):
    done = subprocess.run(
        [sys.executable, "-m", "training.config", "--schema", schema], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    printed, expected = json.loads(done.stdout), json_schema(kind)
    # The games are the registry's when the schema module loaded: here the suite's plug-in game is one of them.
    assert {"miaui", "octopus"} <= set(printed["properties"]["game"].pop("enum")) <= set(expected["properties"]["game"].pop("enum"))
    assert printed == expected


def test_an_rllib_config_is_keyed_on_its_game():
    """As a self-play config: the game is read first; an octopus RLlib run takes the octopus game's own
    tables, opponents and evaluation (configs/octopus.yaml) with configs/rllib.yaml's RLlib sections,
    and has no Miaui keys."""
    miaui, octopus = RLlibConfig.load(), RLlibConfig.load(None, ["game=octopus"])
    assert type(miaui) is MiauiRLlibConfig and type(octopus) is RLlibConfig and octopus.run_name == "octopus-rllib"
    selfplay = load_config(None, ["game=octopus"])
    assert (octopus.tables, octopus.opponents, octopus.view) == (selfplay.tables, selfplay.opponents, selfplay.view)
    assert octopus.evaluation.baselines == selfplay.evaluation.baselines and octopus.evaluation.every == miaui.evaluation.every
    assert (octopus.training, octopus.model, octopus.iterations) == (miaui.training, miaui.model, miaui.iterations)
    assert octopus.privileged_critic is False and octopus.probe.steps == 0
    for override, match in [
        ("privileged_critic=true", "unknown key 'privileged_critic'"),
        ("tables=[{num_players: 3, num_games: 4, open_baskets: true}]", r"unknown config key 'tables\[0\].open_baskets'"),
        ("tables=[{num_players: 5, num_games: 4}]", r"'tables\[0\].num_players' is 5; allowed: an integer from 2 to 4"),
    ]:
        with pytest.raises(ConfigError, match=match):
            RLlibConfig.load(None, ["game=octopus", override])
    with pytest.raises(ConfigError, match="whose runs are RLlibConfigs, not MiauiRLlibConfigs"):
        MiauiRLlibConfig.load(None, ["game=octopus"])
    assert RLlibConfig.load(None, ["game=octopus", "game=miaui"]) == miaui  # the last --set game decides
    with pytest.raises(ConfigError, match=r"--set game=chess: .*'chess'"):
        RLlibConfig.load(None, ["game=chess"])


def test_a_shipped_config_is_found_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # somewhere without a configs/ folder
    assert load_config("smoke.yaml") == load_config("smoke") == load_config(SMOKE)
    assert CONFIG_DIR == ROOT / "configs"  # a checkout: its own configs/ (a wheel's are tests/test_wheel.py's)
    with pytest.raises(
        ConfigError, match=r"config file 'configs/smoke.yaml' does not exist \(the shipped configs, by name: default, .*smoke"
    ):
        load_config("configs/smoke.yaml")  # a path is a path
    with pytest.raises(ConfigError, match="config file 'nothing' does not exist"):
        load_config("nothing")


@pytest.mark.parametrize(
    ("net_arch", "key", "size"),
    [
        ("[0]", "net_arch", "0"),
        ("[64, -1]", "net_arch", "-1"),
        ("[true]", "net_arch", "True"),
        ("{pi: [8], vf: [0]}", r"net_arch\.vf", "0"),
    ],
)
def test_a_network_layer_of_no_width_is_refused_naming_the_key(net_arch, key, size):
    refused = rf"config key 'ppo\.policy_kwargs\.{key}' is .*layer size {size} is not allowed; allowed: a list of layer sizes of at least 1"
    with pytest.raises(ConfigError, match=refused):
        load_config(SMOKE, [f"ppo.policy_kwargs={{net_arch: {net_arch}}}"])
    with pytest.raises(ConfigError, match=r"config key 'ppo\.policy_kwargs\.net_arch\.q'"):
        load_config(SMOKE, ["ppo.policy_kwargs={net_arch: {q: [4]}}"])
    assert load_config(SMOKE, ["ppo.policy_kwargs={net_arch: {pi: [8], vf: [16, 4]}}"]).ppo["policy_kwargs"]["net_arch"]["vf"] == (16, 4)


@pytest.mark.parametrize("text", ["", "# every default, please\n", "null\n", "~\n"])
def test_a_config_file_that_sets_nothing_is_refused_as_a_slip(tmp_path, text):
    path = config_file(tmp_path, text)
    with pytest.raises(ConfigError, match=rf"{path}: the file sets nothing; leave out --config for the defaults"):
        load_config(path)


def test_an_integer_past_python_s_digit_limit_is_a_config_error(tmp_path):
    path = config_file(tmp_path, "seed: " + "9" * 5000 + "\n")
    with pytest.raises(ConfigError, match=rf"{path}: not a config: Exceeds the limit"):
        load_config(path)


@pytest.mark.parametrize(
    ("path", "overrides", "message"),
    [
        (5, [], "a config path is a str or a Path, got int"),
        (b"configs/smoke.yaml", [], "a config path is a str or a Path, got bytes"),
        (None, None, "overrides are a list of KEY=VALUE strings, got None"),
        (None, "seed=1", "overrides are a list of KEY=VALUE strings, got 'seed=1'"),
        (None, [b"seed=1"], r"overrides are a list of KEY=VALUE strings, got \[b'seed=1'\]"),
    ],
)
def test_load_config_refuses_arguments_of_the_wrong_type(path, overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(path, overrides)


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        (("chess", SelfPlayConfig, ROOT / "configs" / "octopus.yaml"), "chess"),
        (("octopus", dict, ROOT / "configs" / "octopus.yaml"), "kind=<class 'dict'> is not allowed"),
        (("octopus", SelfPlayConfig, ROOT / "configs" / "no-such.yaml"), "no-such.yaml' is not a YAML file"),
        (("octopus", SelfPlayConfig, "configs/octopus.yaml"), "is not a YAML file"),
        (
            ("octopus", RLlibConfig, ROOT / "configs" / "octopus.yaml"),
            r"RLlibConfig'> is not allowed; allowed: SelfPlayConfig",
        ),
    ],
)
def test_a_run_schema_that_cannot_be_used_is_refused_and_changes_nothing(arguments, match):
    from training.config import register_run_schema, run_schema

    before = run_schema("octopus")
    with pytest.raises(ValueError, match=match):
        register_run_schema(*arguments)
    assert run_schema("octopus") == before


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        (("chess", RLlibConfig, ROOT / "configs" / "rllib.yaml"), "chess"),
        (
            ("octopus", SelfPlayConfig, ROOT / "configs" / "rllib.yaml"),
            r"SelfPlayConfig'> is not allowed; allowed: RLlibConfig",
        ),
        (("octopus", RLlibConfig, ROOT / "configs" / "no-such.yaml"), "no-such.yaml' is not a YAML file"),
    ],
)
def test_an_rllib_schema_that_cannot_be_used_is_refused_and_changes_nothing(arguments, match):
    from training.config import register_rllib_schema, rllib_schema

    before = rllib_schema("octopus")
    with pytest.raises(ValueError, match=match):
        register_rllib_schema(*arguments)
    assert rllib_schema("octopus") == before


def test_the_schema_command_prints_any_game_s_schema():
    done = subprocess.run(
        [sys.executable, "-m", "training.config", "--schema", "selfplay-any-game"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    printed = json.loads(done.stdout)  # (its game enum lacks the tests' own games, registered in this process only)
    assert done.returncode == 0 and printed["title"] == "SelfPlayConfig"
    assert printed["properties"].keys() == json_schema(SelfPlayConfig)["properties"].keys()
    assert "privileged_critic" not in printed["properties"] and "MiauiTableConfig" not in printed["$defs"]
