"""Self-play modes (latest, mixture, league with PFSP), the league's resume, and the privileged
critic: it reads the global state, the policy never does."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from miaui_env.games.miaui.agents import RandomAgent
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.arena import ArenaConfig, play
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT, SEAT_DIM
from miaui_env.games.miaui.privileged import PRIVILEGED_SIZE, PrivilegedCriticPolicy, SeatSummary, privileged_features
from miaui_env.games.miaui.rules import MAX_PLAYERS
from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.miaui.vector import VectorMiaui
from training.config import ConfigError, load_config
from training.opponents import League, OpponentMixture, finished_games
from training.selfplay import Run, train

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

SMOKE = ["total_timesteps=4000", "evaluation.every=2000", "evaluation.games_per_baseline=8", "kickstart.decisions=0"]


def smoke(mode: str, *overrides: str):
    return load_config("configs/smoke.yaml", [*SMOKE, f"opponents.mode={mode}", *overrides])


@pytest.mark.parametrize("mode", ["latest", "mixture", "league"])
def test_each_self_play_mode_trains_and_checkpoints(tmp_path, mode):
    run = tmp_path / mode
    metadata = train(smoke(mode), run, show_progress=False)
    assert metadata["steps"] >= 4000
    snapshots = list((run / "pool").glob("step_*.pt"))
    assert (len(snapshots) == 0) if mode == "latest" else (len(snapshots) == 2)  # latest plays the learner itself
    assert (run / "league.json").exists() == (mode == "league")
    if mode == "league":
        league = metadata["league"]
        assert set(league) == {f"snapshot@{int(path.stem.removeprefix('step_'))}" for path in snapshots}
        assert sum(entry["weight"] for entry in league.values()) == pytest.approx(1.0, abs=1e-3)
        saved = json.loads((run / "league.json").read_text())
        assert max(saved["games"].values()) > 0  # games against the snapshots were counted
    agent = load_agent(str(run))
    _, scores, _ = play([agent, RandomAgent(0)], "gauntlet", ArenaConfig(num_players=4, games=8))
    assert scores.shape == (8, 4)


def test_resuming_a_league_run_restores_its_pool_and_statistics(tmp_path):
    run = tmp_path / "league"
    config = smoke("league")
    train(config, run, show_progress=False)
    saved = json.loads((run / "league.json").read_text())
    pool = sorted(path.name for path in (run / "pool").glob("step_*.pt"))
    resumed = Run(config, run, resume=True)
    league = resumed.opponents.league
    assert league is not None and league.state_dict() == saved
    assert sorted(path.name for path in resumed.opponents.pool.files()) == pool
    assert [agent.name for agent in resumed.members] == [f"snapshot@{int(name[5:15])}" for name in pool]
    # The draw weights the resumed run deals with come from the saved statistics.
    expected = league.weights([agent.name for agent in resumed.members])
    pool_weight = config.opponents.weights["pool"]
    assert resumed.opponents.shares()[: len(pool)] == pytest.approx([pool_weight * w for w in expected])
    metadata = train(config.override("total_timesteps=8000"), run, resume=True, show_progress=False)
    assert metadata["steps"] >= 8000


def test_pfsp_draws_most_the_snapshots_the_learner_loses_to():
    league = League(exponent=2.0, decay=1.0, prior=4.0, floor=0.0)
    beaten, even, strong = "snapshot@1", "snapshot@2", "snapshot@3"
    even_games = [([even] * 3, 0.25 if i % 4 else 1.0, 4) for i in range(40)]
    league.record([([beaten] * 3, 1.0, 4)] * 40 + even_games + [([strong] * 3, 0.0, 4)] * 40)
    assert league.win_rate(beaten) > league.win_rate(even) > league.win_rate(strong)
    weights = league.weights([beaten, even, strong])
    assert weights[2] > weights[1] > weights[0] and sum(weights) == pytest.approx(1.0)
    unseen = league.weights([beaten, "snapshot@9"])  # no games yet: the fair share, (1 - 1/4)^2
    assert unseen[1] > unseen[0]
    assert League(exponent=0.0).weights([beaten, strong]) == pytest.approx([0.5, 0.5])  # p = 0: plain fictitious play
    fading = League(exponent=2.0, decay=0.5)
    fading.record([([strong], 0.0, 4)])
    fading.record([])
    assert fading.games[strong] == pytest.approx(0.5)  # old results fade
    fading.record([([even], 1.0, 4)] * 2, games_per_episode=8)  # a quarter of an episode's games end: a quarter's fade
    assert fading.games[strong] == pytest.approx(0.5 * 0.5**0.25) and fading.games[even] == 2.0
    fading.forget([beaten])
    assert strong not in fading.games


@pytest.mark.parametrize("seats", [3, 4, 6])
def test_pfsp_reads_an_n_seat_win_share_as_a_two_player_rate(seats):
    league = League(exponent=2.0, decay=1.0, prior=0.0)
    league.record([(["snapshot@1"], 1.0 / seats, seats)] * 10)  # even: the fair share
    league.record([(["snapshot@2"], 0.0, seats)] * 10)
    league.record([(["snapshot@3"], 1.0, seats)] * 10)
    assert [league.win_rate(f"snapshot@{i}") for i in (1, 2, 3)] == pytest.approx([0.5, 0.0, 1.0])
    assert league.win_rate("snapshot@9") == 0.5  # no games yet: even


@pytest.mark.parametrize(
    "state",
    [
        {"wins": {"snapshot@1": 3.0}, "games": {"snapshot@1": 2.0}, "fair": {"snapshot@1": 0.5}},  # more wins than games
        {"wins": {"snapshot@1": 1.0}, "games": {"snapshot@1": 2.0}},  # no fair shares
        {"wins": {"snapshot@1": "one"}, "games": {"snapshot@1": 2.0}, "fair": {"snapshot@1": 0.5}},
        {"wins": {"snapshot@1": 1.0}, "games": {"snapshot@2": 2.0}, "fair": {"snapshot@2": 0.5}},
        [1, 2, 3],
    ],
)
def test_league_statistics_no_league_could_write_are_refused(state):
    league = League(exponent=2.0)
    with pytest.raises(ValueError, match="league statistics"):
        league.load_state_dict(state)
    assert league.state_dict() == {"wins": {}, "games": {}, "fair": {}}  # unchanged


def test_a_damaged_league_file_stops_the_resume_with_one_clear_error(tmp_path):
    from miaui_env.core.checkpoint import CheckpointError

    run = tmp_path / "league"
    config = smoke("league", "total_timesteps=500")
    train(config, run, show_progress=False)
    (run / "league.json").write_text("{not json")
    with pytest.raises(CheckpointError, match=r"league\.json is damaged"):
        Run(config, run, resume=True)


def test_a_run_keeps_the_critic_it_started_with(tmp_path):
    run = tmp_path / "plain"
    train(smoke("latest", "total_timesteps=500"), run, show_progress=False)
    with pytest.raises(ConfigError, match=r"privileged_critic=True but .* was trained with privileged_critic=False"):
        Run(smoke("latest", "total_timesteps=500", "privileged_critic=true"), run, resume=True)


def test_settings_that_cannot_work_are_refused_before_training(tmp_path):
    with pytest.raises(ConfigError, match=r"opponents\.mode.*'league'.*pool is 0"):
        smoke("league", "opponents.weights.pool=0")
    with pytest.raises(ConfigError, match="probe"):
        Run(smoke("mixture", "probe.steps=1000", "probe.games=100000000"), tmp_path / "huge", resume=False)


def test_an_interrupted_run_is_not_probed(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "collect_rollouts", interrupted)  # Ctrl-C during the first rollout
    run = tmp_path / "stopped"
    with pytest.raises(KeyboardInterrupt):
        train(smoke("mixture", "probe.steps=1000", "probe.games=16"), run, show_progress=False)
    metadata = json.loads((run / "metadata.json").read_text())
    assert "exploitability" not in metadata and not (run / "exploit").exists()


def test_an_interrupted_run_exits_130_without_the_summary(tmp_path, monkeypatch, capsys):
    from sb3_contrib import MaskablePPO

    import training.selfplay as selfplay

    calls = []

    def interrupted_later(self, *args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt  # Ctrl-C during the second rollout, after some learning
        return original(self, *args, **kwargs)

    original = MaskablePPO.collect_rollouts
    monkeypatch.setattr(MaskablePPO, "collect_rollouts", interrupted_later)
    run = tmp_path / "stopped"
    with pytest.raises(SystemExit) as stopped:
        selfplay.main(["--config", "configs/smoke.yaml", "--out", str(run), "--set", "probe.steps=0"])
    assert stopped.value.code == 130
    out, err = capsys.readouterr()
    assert "checkpointing what was learned" in out and "trained " not in out
    assert "interrupted: the last checkpoint written stands" in err
    assert (run / "model.zip").exists() and json.loads((run / "metadata.json").read_text())["steps"] > 0


def test_draw_by_seat_mixes_a_game_s_opponents():
    def fixed(card):
        return lambda observations, masks: np.full(len(masks), card)

    mixture = OpponentMixture([fixed(0), fixed(5)], [1.0, 1.0], np.random.default_rng(0), seats_per_game=3, draw="seat")
    chosen = mixture.act(np.zeros((3000, 620)), np.ones((3000, 12), dtype=np.int8)).reshape(1000, 3)
    assert (chosen != chosen[:, :1]).any(axis=1).mean() > 0.5  # mixed tables
    assert len(mixture.seated(3000)) == 3000
    with pytest.raises(ValueError, match="draw='table'"):
        OpponentMixture([fixed(0)], [1.0], np.random.default_rng(0), draw="table")


def test_the_self_play_env_names_each_game_s_opponents():
    venv = MiauiSelfPlayVecEnv(4, num_players=3, learner_seats=[0], seed=1, opponent=RandomAgent(0))
    venv.reset()
    for _ in range(11):
        _, _, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    assert dones.all() and all(info["opponents"] == ("random", "random") for info in infos)


def test_the_league_counts_a_game_its_learner_seats_share_once_at_their_mean_win():
    venv = MiauiSelfPlayVecEnv(6, num_players=4, learner_seats=[0, 2], seed=3, opponent=RandomAgent(0))
    venv.reset()
    for _ in range(11):
        _, _, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    assert dones.all() and venv.rows_per_game == 2
    counted = finished_games([venv], [0], infos)
    shares = [(infos[2 * g]["winner"] + infos[2 * g + 1]["winner"]) / 2 for g in range(6)]
    assert [won for _, won, _ in counted] == shares  # one result per game, not per learner row
    assert all(names == ["random", "random"] and seats == 4 for names, _, seats in counted)


def test_the_config_refuses_an_unknown_mode():
    with pytest.raises(ConfigError, match=r"opponents\.mode"):
        load_config(None, ["opponents.mode=alphastar"])


# -- the privileged critic ----------------------------------------------------------------------
def privileged_model(seed: int = 0):
    from sb3_contrib import MaskablePPO

    venv = MiauiSelfPlayVecEnv(8, num_players=4, learner_seats=[0, 2], seed=seed, privileged=True)
    kwargs = {"own_size": OBSERVATION_LAYOUT.size, "net_arch": {"pi": [32], "vf": [32]}}
    return venv, MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs=kwargs, seed=seed, device="cpu")


def distribution_and_value(policy, rows, masks):
    with torch.no_grad():
        tensor, _ = policy.obs_to_tensor(rows)
        probabilities = policy.get_distribution(tensor, action_masks=masks).distribution.probs
        return probabilities.numpy(), policy.predict_values(tensor).numpy()


def test_the_privileged_policy_reads_only_the_seat_s_observation():
    venv, model = privileged_model()
    rows = venv.reset()
    assert rows.shape == (16, OBSERVATION_LAYOUT.size + PRIVILEGED_SIZE)
    masks = venv.action_masks()
    probabilities, values = distribution_and_value(model.policy, rows, masks)
    scrambled = rows.copy()
    scrambled[:, OBSERVATION_LAYOUT.size :] = np.random.default_rng(1).uniform(-2, 2, (16, PRIVILEGED_SIZE))
    same, other_values = distribution_and_value(model.policy, scrambled, masks)
    assert np.array_equal(probabilities, same)  # exactly: the actor never reads the state
    assert not np.allclose(values, other_values)  # the critic does
    alone, _ = distribution_and_value(model.policy, rows[:, : OBSERVATION_LAYOUT.size], masks)  # agents give observations only
    assert np.array_equal(probabilities, alone)


def test_hidden_information_moves_the_critic_and_never_the_policy():
    """Two games that differ only in what no seat has seen (the box card and the last round's card
    trade places, R3): every seat's observation is the same for eleven rounds, the state is not."""
    _, model = privileged_model()
    deck = [str(card) for card in TableSpec.of(num_players=4).game.deck]
    order = [deck[i] for i in np.random.default_rng(5).permutation(len(deck))]
    while any(card.startswith("seagull") for card in order[1:4]):  # R4's first-round replacement would reach into the deck
        order = order[3:] + order[:3]
    swapped = [order[-1], *order[1:-1], order[0]]
    engine = VectorMiaui(2, num_players=4, view="recall")
    observations, masks = engine.reset(decks=[order, swapped])
    rng = np.random.default_rng(2)
    for _ in range(6):
        assert np.array_equal(observations[0], observations[1])
        state = privileged_features(engine, np.arange(4))
        assert not np.array_equal(state[0], state[1])  # the deck still to come differs
        rows = np.concatenate([observations.reshape(8, -1), state.reshape(8, -1)], axis=1)
        probabilities, values = distribution_and_value(model.policy, rows, masks.reshape(8, 12).astype(bool))
        assert np.array_equal(probabilities[:4], probabilities[4:])
        assert not np.allclose(values[:4], values[4:])
        cards = np.array([rng.choice(np.flatnonzero(m)) for m in masks[0]])
        observations, masks, *_ = engine.step(np.stack([cards, cards]))


def test_privileged_features_are_the_state_seen_from_each_seat():
    engine = VectorMiaui(3, num_players=5, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(4):
        masks = engine.action_masks()
        engine.step(np.array([[rng.choice(np.flatnonzero(m)) for m in game] for game in masks]))
    state = privileged_features(engine, np.array([0, 3]))
    assert state.shape == (3, 2, PRIVILEGED_SIZE) and state.dtype == np.float32
    hands = state[:, :, 6 * 8 : 6 * 8 + 6 * 12].reshape(3, 2, 6, 12)
    assert np.array_equal(hands[:, 1, :5], engine.action_masks()[:, [3, 4, 0, 1, 2]])  # seat 3 sees itself first
    assert not hands[:, :, 5].any()  # no sixth seat
    assert np.array_equal(hands.sum(axis=3)[:, :, :5], np.full((3, 2, 5), 8))  # four rounds played


def test_privileged_is_a_bool():
    from miaui_env.core.errors import InvalidConfigError

    with pytest.raises(InvalidConfigError, match="privileged must be True or False"):
        MiauiSelfPlayVecEnv(2, num_players=3, privileged="yes")


def test_a_run_s_policy_loads_in_the_play_mode_its_config_names(tmp_path):
    best, sample = tmp_path / "best", tmp_path / "sample"
    train(smoke("latest", "total_timesteps=500"), best, show_progress=False)
    assert json.loads((best / "metadata.json").read_text())["play"] == "best"
    assert load_agent(str(best)).deterministic  # the most likely card
    train(smoke("latest", "total_timesteps=500", "play=sample"), sample, show_progress=False)
    assert json.loads((sample / "metadata.json").read_text())["play"] == "sample"
    sampling = load_agent(str(sample), seed=3)
    assert not sampling.deterministic and sampling.name == "sample"
    assert load_agent(f"{sample}@best").deterministic  # a mode in the spec decides
    with pytest.raises(ConfigError, match="play"):
        load_config(None, ["play=greedy"])


def test_the_exploitability_probe_trains_a_best_response_to_the_final_policy(tmp_path):
    run = tmp_path / "probed"
    config = smoke("mixture", "total_timesteps=1000", "probe.steps=1000", "probe.games=16")
    metadata = train(config, run, show_progress=False)
    probed = metadata["exploitability"]
    assert probed["at_step"] == metadata["steps"] and probed["steps"] == 1000 and probed["players"] == 4
    assert probed["gain"] == pytest.approx(probed["win_share"] - 1 / 4, abs=1e-3)
    report = json.loads((run / "exploit" / "exploit.json").read_text())
    assert report["target"] == str(run) and report["complete"] and report["tables"][0]["init"] == "target"
    assert json.loads((run / "metadata.json").read_text())["exploitability"] == probed
    # Resuming a finished run does not probe the same policy again.
    (run / "exploit" / "exploit.json").unlink()
    again = train(config, run, resume=True, show_progress=False)
    assert again["exploitability"] == probed and not (run / "exploit" / "exploit.json").exists()


# -- the seat summary in front of the actor ---------------------------------------------------------
def seat_rows(num_players: int, seed: int) -> np.ndarray:
    """Observations of a few mid-game seats at a table of `num_players` (recall view: opponents' rows are full)."""
    engine = VectorMiaui(2, num_players=num_players, seed=seed, view="recall")
    observations, masks = engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        observations, masks, *_ = engine.step(np.array([[rng.choice(np.flatnonzero(m)) for m in game] for game in masks]))
    return np.asarray(observations[:, :2], dtype=np.float32).reshape(-1, OBSERVATION_LAYOUT.size)


def seats_of(rows: np.ndarray) -> np.ndarray:
    start = OBSERVATION_LAYOUT.offsets["seats"]
    return rows[:, start : start + MAX_PLAYERS * SEAT_DIM].reshape(len(rows), MAX_PLAYERS, SEAT_DIM)


def test_the_seat_summary_reads_every_opponent_alike_and_ignores_empty_seats():
    summary = SeatSummary(16, torch.nn.Tanh)
    rows = np.concatenate([seat_rows(6, seed=1), seat_rows(3, seed=2)])
    mixed = rows.copy()
    seats = seats_of(mixed)
    seats[:4, 1:6] = seats[:4, [3, 5, 1, 4, 2]]  # 6 players: the opponents' rows in another order
    seats[4:, 1:3] = seats[4:, [2, 1]]  # 3 players: the two opponents swapped
    seats[4:, 3:] = np.random.default_rng(0).uniform(-1, 1, seats[4:, 3:].shape) * (np.arange(SEAT_DIM) > 0)  # noise in empty rows
    with torch.no_grad():
        before, after = summary(torch.from_numpy(rows)), summary(torch.from_numpy(mixed))
    size = OBSERVATION_LAYOUT.size
    assert torch.allclose(before[:, size:], after[:, size:], atol=1e-6)  # the summary: the same opponents, the same numbers
    assert not torch.equal(before[:, :size], after[:, :size])  # the flat observation keeps the order
    assert summary.out_dim == size + 32 and before.shape == (8, size + 32)


def test_a_policy_with_a_seat_summary_saves_loads_and_plays_as_trained(tmp_path):
    from sb3_contrib import MaskablePPO

    venv = MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0], seed=0, privileged=True)
    kwargs = {"own_size": OBSERVATION_LAYOUT.size, "seat_width": 8, "net_arch": {"pi": [16], "vf": [16]}}
    model = MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs=kwargs, n_steps=11, batch_size=44, seed=0, device="cpu")
    model.learn(44)
    assert isinstance(model.policy.mlp_extractor.policy_net[0], SeatSummary)
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert loaded.policy.seat_width == 8
    rows, masks = venv.reset(), venv.action_masks()
    assert np.array_equal(distribution_and_value(model.policy, rows, masks)[0], distribution_and_value(loaded.policy, rows, masks)[0])


def test_a_seat_summary_reads_miaui_s_observation_only():
    from miaui_env.games.miaui.privileged import AsymmetricMlpExtractor

    with pytest.raises(ValueError, match=f"seat_width reads Miaui's {OBSERVATION_LAYOUT.size}-column observation; own_size is 100"):
        AsymmetricMlpExtractor(200, 100, {"pi": [8], "vf": [8]}, torch.nn.Tanh, seat_width=8)


@pytest.mark.parametrize("seat_width", [-1, 2.5, True])
def test_a_seat_width_that_is_not_a_width_is_refused(seat_width):
    from sb3_contrib import MaskablePPO

    venv = MiauiSelfPlayVecEnv(2, num_players=3, privileged=True, seed=0)
    with pytest.raises(ValueError, match=f"seat_width={seat_width!r} must be an integer >= 0"):
        MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs={"seat_width": seat_width}, device="cpu")


@pytest.mark.parametrize("own_size", [0, OBSERVATION_LAYOUT.size + PRIVILEGED_SIZE])
def test_a_privileged_policy_needs_the_observation_to_be_a_proper_prefix_of_the_row(own_size):
    from sb3_contrib import MaskablePPO

    venv = MiauiSelfPlayVecEnv(2, num_players=3, privileged=True, seed=0)
    with pytest.raises(ValueError, match=f"own_size={own_size} must be between 1 and the row length"):
        MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs={"own_size": own_size}, device="cpu")


def test_a_multi_table_env_tells_where_each_table_s_rows_start():
    from miaui_env.core.vec import MultiTableVecEnv

    tables = [MiauiSelfPlayVecEnv(4, num_players=4, learner_seats=[0, 2], seed=0), MiauiSelfPlayVecEnv(3, num_players=3, seed=1)]
    venv = MultiTableVecEnv(tables)
    assert venv.bounds == (0, 8, 17) and venv.num_envs == 17
    with pytest.raises(AttributeError):
        venv.bounds = (0, 1, 2)  # read-only


def test_the_snapshot_pool_keeps_its_latest_snapshots_and_forgets_those_after_a_checkpoint(tmp_path):
    import torch

    from training.opponents import SnapshotPool

    class Learner:
        policy = torch.nn.Linear(2, 1)

    pool = SnapshotPool(tmp_path / "pool", size=3)
    pool.fill(Learner())
    assert [pool.step_of(path) for path in pool.files()] == [0, 1, 2]
    for step in (10, 20):
        pool.add(Learner(), step)
    assert [pool.step_of(path) for path in pool.files()] == [2, 10, 20]
    pool.trim()
    assert sorted(path.name for path in (tmp_path / "pool").iterdir()) == ["step_0000000002.pt", "step_0000000010.pt", "step_0000000020.pt"]
    pool.discard_after(10)
    assert [pool.step_of(path) for path in pool.files()] == [2, 10]
