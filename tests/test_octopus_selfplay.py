"""The octopus self-play VecEnv: SB3's VecEnv API, observations against the pure encoder, rewards
against the AEC env, seeding, opponents on their own seats only, errors, and a MaskablePPO smoke run."""

from __future__ import annotations

import numpy as np
import pytest

from miaui_env.core.errors import IllegalActionError, InvalidConfigError, final_rewards
from miaui_env.core.vec import slot_seeds
from miaui_env.games.miaui.agents import AgentError
from miaui_env.games.octopus import rules
from miaui_env.games.octopus.env import raw_env
from miaui_env.games.octopus.observation import OBSERVATION_LAYOUT, observe
from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv, lead_potential

SEEN = OBSERVATION_LAYOUT.size


def random_actions(venv: OctopusSelfPlayVecEnv, rng: np.random.Generator) -> np.ndarray:
    masks = venv.action_masks()
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def play(venv: OctopusSelfPlayVecEnv, steps: int, seed: int = 0):
    """Random legal play for `steps` steps; yields (games before the step, step results)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        before = venv.games
        yield before, venv.step(random_actions(venv, rng))


def decisions_of(game: rules.OctopusState) -> list[rules.Decision]:
    """The decisions a finished game's seats made, read back from its events (forced moves left out, O10)."""
    made: list[rules.Decision] = []
    for event in game.events:
        if isinstance(event, rules.Flipped) and not event.forced:
            made.append(rules.FLIP)
        elif isinstance(event, rules.Kept) and not event.forced:
            made.append(rules.STOP)
        elif isinstance(event, rules.NoTheft):
            made.append(rules.NO_THEFT)
        elif isinstance(event, rules.Rolled):
            made.append(rules.Theft(event.target, event.k))
    return made


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_vecenv_api_shapes_dtypes_masks_and_autoreset(num_players):
    venv = OctopusSelfPlayVecEnv(3, num_players=num_players, seed=1)
    assert venv.num_envs == 3 * num_players
    obs = venv.reset()
    assert obs.shape == (venv.num_envs, SEEN) and obs.dtype == np.float32
    assert venv.observation_space.shape == (SEEN,) and venv.action_space.n == rules.NUM_ACTIONS
    episodes = 0
    for _, (obs, rewards, dones, infos) in play(venv, 400):
        assert obs.shape == (venv.num_envs, SEEN) and obs.dtype == np.float32
        assert rewards.shape == (venv.num_envs,) and rewards.dtype == np.float32
        assert dones.shape == (venv.num_envs,) and dones.dtype == bool
        assert len(infos) == venv.num_envs
        assert all(venv.observation_space.contains(row) for row in obs)
        masks = venv.action_masks()
        assert masks.dtype == bool and masks.shape == (venv.num_envs, rules.NUM_ACTIONS)
        assert masks.any(axis=1).all()  # never all-zero for a learner row
        for row in np.flatnonzero(dones):
            episodes += 1
            final = infos[row]["terminal_observation"]
            assert final.shape == (SEEN,) and venv.observation_space.contains(final)
            assert not np.array_equal(final, obs[row])  # the next game's first decision is already there
            assert infos[row]["episode"]["l"] >= 1 and infos[row]["seat"] == venv.row_seats[row]
        for row in np.flatnonzero(~dones):
            assert infos[row] == {} and rewards[row] == 0.0
    assert episodes > 0
    assert venv.get_attr("num_players") == [num_players] * venv.num_envs
    assert len(venv.env_method("action_masks")) == venv.num_envs


@pytest.mark.parametrize("view", ["table", "recall"])
def test_a_row_sees_exactly_the_pure_encoders_observation_at_its_decision(view):
    venv = OctopusSelfPlayVecEnv(4, learner_seats=[0, 2], view=view, seed=2)
    venv.reset()
    for before, (obs, _, dones, infos) in play(venv, 150, seed=3):
        for row in np.flatnonzero(dones):  # the final observation too, of the game that just ended
            seat = int(venv.row_seats[row])
            np.testing.assert_array_equal(infos[row]["terminal_observation"], observe(before[row], seat, view))
        for row, game in enumerate(venv.games):
            seat = int(venv.row_seats[row])
            assert not game.is_over and game.active == seat  # each row waits on its own seat's decision
            np.testing.assert_array_equal(obs[row], observe(game, seat, view))
            np.testing.assert_array_equal(venv.action_masks()[row], rules.action_mask(game).astype(bool))


@pytest.mark.parametrize("reward", ["win", "score", "margin"])
def test_rewards_are_the_aec_envs_final_rewards_for_the_same_game(reward):
    venv = OctopusSelfPlayVecEnv(2, reward=reward, seed=4)
    venv.reset()
    seeds = slot_seeds(4, venv.num_envs)
    replayed: set[int] = set()
    for before, (_, rewards, dones, infos) in play(venv, 300, seed=5):
        for row in np.flatnonzero(dones):
            game, seat = before[row], int(venv.row_seats[row])
            assert rewards[row] == pytest.approx(final_rewards(np.array(game.totals), reward)[seat])
            assert infos[row]["episode"]["r"] == rewards[row] and infos[row]["totals"] == tuple(game.totals)
            if row in replayed:
                continue
            # A row's first game is the AEC env's game seeded with the row's slot seed (O11), decision for decision.
            replayed.add(int(row))
            aec = raw_env(num_players=3, reward=reward)
            aec.reset(seed=seeds[row])
            for decision in decisions_of(game):
                aec.step(rules.action_of(aec.game, decision))
            assert aec.game.totals == game.totals and aec.terminations[f"player_{seat}"]
            assert aec.rewards[f"player_{seat}"] == pytest.approx(float(rewards[row]))
    assert replayed


def test_same_seed_same_trajectories_and_seed_method():
    def run(venv: OctopusSelfPlayVecEnv) -> list[np.ndarray]:
        out = [venv.reset()]
        for _, (obs, rewards, dones, _) in play(venv, 120, seed=9):
            out += [obs, rewards, dones]
        return out

    first, second = run(OctopusSelfPlayVecEnv(2, seed=7)), run(OctopusSelfPlayVecEnv(2, seed=7))
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    reseeded = OctopusSelfPlayVecEnv(2, seed=123)
    reseeded.seed(7)
    for a, b in zip(first, run(reseeded), strict=True):
        np.testing.assert_array_equal(a, b)
    other = run(OctopusSelfPlayVecEnv(2, seed=8))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_a_reset_without_a_new_seed_carries_the_seeded_generators_on():
    # PPO resets the tables again after cloning has played on them: those games come from the seed too.
    def second_reset() -> np.ndarray:
        venv = OctopusSelfPlayVecEnv(4, num_players=3, seed=7)
        venv.reset()
        for _ in play(venv, 30, seed=1):
            pass
        return np.concatenate([venv.reset(), venv.action_masks()], axis=1)

    np.testing.assert_array_equal(second_reset(), second_reset())
    venv = OctopusSelfPlayVecEnv(4, num_players=3, seed=7)
    assert not np.array_equal(venv.reset(), venv.reset())  # carried on: the next games, not the first ones again


class SpyOpponent:
    """A random opponent that checks, at every call, that it is handed only opponents' decisions."""

    name = "spy"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.venv: OctopusSelfPlayVecEnv | None = None
        self.rows = 0

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert self.venv is not None
        waiting = [r for r, g in enumerate(self.venv.games) if not g.is_over and g.active != self.venv.row_seats[r]]
        assert len(waiting) == len(observations)  # one row per game that waits on an opponent, no learner seat
        seats = OBSERVATION_LAYOUT.view(observations, "seats")
        assert (seats[:, 0, 1] == 1).all()  # each observation is of the seat to act (its own row 0, to_act)
        self.rows += len(observations)
        return np.argmax(self.rng.random(masks.shape) * masks, axis=1)

    def reset(self) -> None:
        """Nothing remembered."""


def test_opponents_only_act_on_their_own_seats():
    spy = SpyOpponent()
    venv = OctopusSelfPlayVecEnv(3, learner_seats=[1], opponent=spy, seed=11)
    spy.venv = venv
    venv.reset()
    for _ in play(venv, 200):
        pass
    assert spy.rows > 0 and venv.opponent_decisions == spy.rows


def test_errors_masked_action_and_step_wait_first():
    venv = OctopusSelfPlayVecEnv(2, seed=0)
    with pytest.raises(IllegalActionError, match="reset"):
        venv.step_async(np.zeros(venv.num_envs, dtype=np.int64))
    venv.reset()
    with pytest.raises(IllegalActionError, match="step_async"):
        venv.step_wait()
    games = [g.clone() for g in venv.games]
    bad = np.ones(venv.num_envs, dtype=np.int64)
    bad[0] = 2  # "no theft" at a flip-or-stop decision
    with pytest.raises(IllegalActionError, match=r"env index 0 .*legal actions: \[0, 1\]"):
        venv.step_async(bad)
    with pytest.raises(IllegalActionError, match="step_async"):
        venv.step_wait()  # the refused actions were not stored
    assert [g.events for g in venv.games] == [g.events for g in games]
    with pytest.raises(IllegalActionError, match="integer"):
        venv.step_async(np.ones(venv.num_envs))
    with pytest.raises(IllegalActionError, match="shape"):
        venv.step_async(np.ones(3, dtype=np.int64))
    with pytest.raises(InvalidConfigError):
        OctopusSelfPlayVecEnv(0)
    with pytest.raises(InvalidConfigError):
        OctopusSelfPlayVecEnv(1, num_players=5)
    with pytest.raises(InvalidConfigError):
        OctopusSelfPlayVecEnv(1, learner_seats=[3])
    with pytest.raises(InvalidConfigError):
        OctopusSelfPlayVecEnv(1, view="god")


def test_session_cap_is_a_truncation():
    venv = OctopusSelfPlayVecEnv(2, max_sessions=1, seed=3)
    venv.reset()
    truncated = [
        info["TimeLimit.truncated"] for _, (_, _, dones, infos) in play(venv, 300) for info, done in zip(infos, dones, strict=True) if done
    ]
    assert truncated and any(truncated)


def test_maskable_ppo_smoke_run():
    from sb3_contrib import MaskablePPO

    venv = OctopusSelfPlayVecEnv(8, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=1, seed=0, device="cpu")
    model.learn(3 * 8 * 128)
    assert model.num_timesteps >= 3000
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    venv.step(actions)  # the trained policy's actions are legal


# ---- a mix of opponents, seated game by game ---------------------------------------------------------


class Spy:
    """A named random legal player that keeps every row it is shown."""

    def __init__(self, name: str, view: str | None = None, seed: int = 0):
        self.name, self.rng, self.rows = name, np.random.default_rng(seed), []
        if view is not None:
            self.view = view

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.rows.extend(observations)
        return np.argmax(self.rng.random(masks.shape) * masks, axis=1)

    def reset(self) -> None:
        pass


def ended_infos(venv: OctopusSelfPlayVecEnv, steps: int) -> list[dict]:
    ended = []
    for _, (_, _, dones, infos) in play(venv, steps, seed=4):
        ended += [info for done, info in zip(dones, infos, strict=True) if done]
    return ended


def test_a_mix_seats_one_agent_per_game_by_weight_and_names_it():
    venv = OctopusSelfPlayVecEnv(24, num_players=3, seed=2)
    alice, bob, carol = Spy("alice"), Spy("bob"), Spy("carol")
    venv.set_opponents([alice, bob, carol], [0.5, 0.5, 0.0], seed=7)
    venv.reset()
    ended = ended_infos(venv, 150)
    assert len(ended) > 50
    tables = {info["opponents"] for info in ended}
    assert tables == {("alice", "alice"), ("bob", "bob")}  # draw="game": one agent fills a game; carol's weight 0 never seats her
    assert not carol.rows and alice.rows and bob.rows


def test_a_mix_drawn_per_seat_mixes_the_table():
    venv = OctopusSelfPlayVecEnv(24, num_players=4, learner_seats=[0], seed=2)
    venv.set_opponents([Spy("alice"), Spy("bob")], seed=7, draw="seat")
    venv.reset()
    tables = {info["opponents"] for info in ended_infos(venv, 150)}
    assert any(len(set(table)) == 2 for table in tables)


def test_new_weights_seat_the_next_games_and_games_under_way_keep_theirs():
    venv = OctopusSelfPlayVecEnv(16, num_players=2, seed=2)
    venv.set_opponents([Spy("alice"), Spy("bob")], [1.0, 0.0], seed=7)
    venv.reset()
    venv.set_opponent_weights([0.0, 1.0])
    ended = ended_infos(venv, 300)
    first_games, later = ended[: venv.num_envs], ended[2 * venv.num_envs :]
    assert all(info["opponents"] == ("alice",) for info in first_games)  # dealt before the new weights
    assert later and all(info["opponents"] == ("bob",) for info in later)


def test_each_opponent_is_shown_the_view_it_plays_from():
    remembers, sees_the_table = Spy("remembers", view="recall"), Spy("sees the table")
    venv = OctopusSelfPlayVecEnv(16, num_players=3, seed=3)  # the rows' own view: table
    venv.set_opponents([remembers, sees_the_table], seed=1)
    venv.reset()
    ended_infos(venv, 200)

    def others_collections(rows: list[np.ndarray]) -> float:
        return float(np.abs(np.stack([OBSERVATION_LAYOUT.view(row, "collection")[1:] for row in rows])).sum())

    assert others_collections(remembers.rows) > 0  # O4: a perfect memory reads opponents' collections card by card
    assert others_collections(sees_the_table.rows) == 0  # the table view shows none of them


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda venv: venv.set_opponents([], seed=0), "non-empty list of agents"),
        (lambda venv: venv.set_opponents([Spy("a"), Spy("b")], [1.0], seed=0), "one finite weight >= 0 per opponent"),
        (lambda venv: venv.set_opponents([Spy("a")], [-1.0], seed=0), "one finite weight >= 0 per opponent"),
        (lambda venv: venv.set_opponents([Spy("a")], [float("nan")], seed=0), "one finite weight >= 0 per opponent"),
        (lambda venv: venv.set_opponents([Spy("a"), Spy("b")], [0.0, 0.0], seed=0), "not all zero"),
        (lambda venv: venv.set_opponents([Spy("a")], seed=0, draw="table"), "draw='table' is not allowed"),
        (lambda venv: venv.set_opponents([Spy("a", view="all")], seed=0), "'all'"),
        (lambda venv: venv.set_opponent_weights([1.0, 2.0]), r"weights=\[1.0, 2.0\] is not allowed; .* per opponent \(the mix has 1\)"),
        (lambda venv: venv.set_opponents([Spy("a"), Spy("b")], [True, False], seed=0), r"weights=\[True, False\] is not allowed"),
        (lambda venv: venv.set_opponents([Spy("a"), Spy("b")], "ab", seed=0), "weights='ab' is not allowed"),
        (lambda venv: venv.set_opponents("cautious", seed=0), "non-empty list of agents, got 'cautious'"),
        (lambda venv: venv.set_opponent_weights(None), "weights=None is not allowed"),
    ],
)
def test_a_bad_mix_is_refused_and_the_seating_stands(call, match):
    venv = OctopusSelfPlayVecEnv(4, num_players=2, seed=0)
    venv.reset()
    with pytest.raises(InvalidConfigError, match=match):
        call(venv)
    assert next(info["opponents"] for info in ended_infos(venv, 120)) == ("random",)


def test_bad_weights_for_a_mix_leave_its_weights_as_they_were():
    venv = OctopusSelfPlayVecEnv(8, num_players=2, seed=2)
    venv.set_opponents([Spy("alice"), Spy("bob")], [1.0, 0.0], seed=7)
    venv.reset()
    for weights in ([0.0, float("nan")], [0.0, -1.0], [0.0, 0.0], [0.0, 1.0, 1.0], [False, True]):
        with pytest.raises(InvalidConfigError, match=r"per opponent \(the mix has 2\)"):
            venv.set_opponent_weights(weights)
    assert {info["opponents"] for info in ended_infos(venv, 300)} == {("alice",)}  # bob's weight is still 0


@pytest.mark.parametrize("opponent", ["cautious", 3, None])
def test_a_mix_of_what_is_not_an_agent_is_refused_and_the_seating_stands(opponent):
    venv = OctopusSelfPlayVecEnv(4, num_players=2, seed=0)
    venv.reset()
    with pytest.raises(AgentError, match=f"opponent={opponent!r}"):
        venv.set_opponents([Spy("a"), opponent], seed=0)
    assert next(info["opponents"] for info in ended_infos(venv, 120)) == ("random",)


def test_octopus_tables_of_several_sizes_step_as_one_vecenv_and_never_mix_with_miaui_tables():
    from miaui_env.core.vec import MultiTableVecEnv
    from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv

    tables = [OctopusSelfPlayVecEnv(4, num_players=n, seed=n) for n in (2, 3, 4)]
    venv = MultiTableVecEnv(tables)
    assert venv.num_envs == 4 * 2 + 4 * 3 + 4 * 4 and venv.bounds == (0, 8, 20, 36)
    venv.reset()
    rng = np.random.default_rng(0)
    done = 0
    for _ in range(80):
        masks = venv.action_masks()
        _, _, dones, _ = venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
        done += int(dones.sum())
    assert done > 0
    with pytest.raises(InvalidConfigError, match="share one observation space"):
        MultiTableVecEnv([OctopusSelfPlayVecEnv(2, num_players=2, seed=0), MiauiSelfPlayVecEnv(2, num_players=3, seed=0)])


def test_a_small_variant_s_game_that_ends_before_the_learner_decides_is_dealt_again():
    # Five cards: a game can end on forced moves alone (an octopus, a bust) before the learner's first
    # decision. Such a game is dealt again, so every row always holds a decision and every episode one step.
    from miaui_env.games.octopus import rules as octopus_rules
    from miaui_env.games.octopus.agents import load_octopus_agent

    tiny = octopus_rules.Variant(species=2, values=(1, 2), octopuses=1, target=1)
    venv = OctopusSelfPlayVecEnv(16, num_players=2, opponent=load_octopus_agent("risk-aware"), max_sessions=1, variant=tiny, seed=0)
    venv.reset()
    picker, episodes = np.random.default_rng(0), 0
    for _ in range(200):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()
        _, _, dones, infos = venv.step(np.array([picker.choice(np.flatnonzero(row)) for row in masks]))
        episodes += int(dones.sum())
        assert all(info["episode"]["l"] >= 1 for info, done in zip(infos, dones, strict=True) if done)
    assert episodes > 500


def test_a_vecenv_variant_that_is_no_variant_is_refused():
    with pytest.raises(InvalidConfigError, match=r"variant='tiny' is not allowed; it is an octopus rules\.Variant"):
        OctopusSelfPlayVecEnv(2, variant="tiny")  # type: ignore[arg-type]


def test_the_lead_potential_is_points_less_the_best_opponents_over_the_target():
    # O7: points are the running total plus the best card of each species held; O9: the target is 77.
    game = rules.new_game(3, seed=0)
    game.totals[:] = [30, 41, 12]
    game.collections[0][:] = [rules.fish("cod", 4), rules.fish("cod", 1), rules.fish("eel", 2)]  # 4 + 2
    game.collections[1][:] = [rules.fish("dory", 3)]  # 3
    game.collections[2][:] = []
    assert lead_potential(game, 0) == pytest.approx((36 - 44) / 77)
    assert lead_potential(game, 1) == pytest.approx((44 - 36) / 77)
    assert lead_potential(game, 2) == pytest.approx((12 - 44) / 77)


@pytest.mark.parametrize("discount", [1.0, 0.99])
def test_shaping_adds_discounted_potential_steps_and_nothing_else(discount):
    # The same seed with and without shaping: the same games; each row's reward differs by exactly
    # c * (discount * phi(next decision) - phi(this decision)), with phi = 0 once its game ended.
    coef = 2.5
    plain = OctopusSelfPlayVecEnv(3, num_players=3, seed=9, view="recall")
    shaped = OctopusSelfPlayVecEnv(3, num_players=3, seed=9, view="recall", shaping=coef, discount=discount)
    np.testing.assert_array_equal(plain.reset(), shaped.reset())
    seats = shaped.row_seats
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        before = [lead_potential(game, seat) for game, seat in zip(shaped.games, seats, strict=True)]
        actions = random_actions(plain, rng)
        obs, rewards, dones, _ = plain.step(actions)
        shaped_obs, shaped_rewards, shaped_dones, _ = shaped.step(actions)
        np.testing.assert_array_equal(obs, shaped_obs)
        np.testing.assert_array_equal(dones, shaped_dones)
        after = [0.0 if done else lead_potential(game, seat) for game, seat, done in zip(shaped.games, seats, dones, strict=True)]
        expected = rewards + coef * (discount * np.array(after) - np.array(before))
        np.testing.assert_allclose(shaped_rewards, expected.astype(np.float32), rtol=0, atol=1e-6)
        ended += int(dones.sum())
    assert ended > 0


def test_undiscounted_shaping_adds_up_to_minus_the_first_potential_over_an_episode():
    # Ng, Harada & Russell (1999): the shaping terms telescope, so no action changes what they add up to.
    coef = 1.0
    venv = OctopusSelfPlayVecEnv(2, num_players=4, seed=3, view="recall", shaping=coef)
    venv.reset()
    seats = venv.row_seats
    first = [lead_potential(game, seat) for game, seat in zip(venv.games, seats, strict=True)]
    returns = np.zeros(venv.num_envs)
    checked = 0
    for _, (_, rewards, dones, infos) in play(venv, 600, seed=5):
        returns += rewards
        for row in np.flatnonzero(dones):
            assert returns[row] == pytest.approx(infos[row]["episode"]["r"] - coef * first[row], abs=1e-4)
            returns[row] = 0.0
            first[row] = lead_potential(venv.games[row], seats[row])
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"shaping": -0.5}, "shaping=-0.5"),
        ({"shaping": float("nan")}, "shaping=nan"),
        ({"discount": 1.5}, "discount=1.5"),
        ({"shaping": "1"}, "shaping='1'"),
    ],
)
def test_bad_shaping_is_refused(kwargs, match):
    with pytest.raises(InvalidConfigError, match=match):
        OctopusSelfPlayVecEnv(2, num_players=2, **kwargs)
