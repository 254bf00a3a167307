"""The VecEnv plumbing every game's self-play shares: one engine's slots as Stable-Baselines3 env
indices, each table's seeds from its seed tree, and the checks of actions and learner seats.

Miaui's VecEnv (`miaui_env.games.miaui.selfplay`), the octopus game's
(`miaui_env.games.octopus.selfplay`) and any game's (`miaui_env.core.selfplay`) build on it;
`MultiTableVecEnv` trains several tables of one game as one VecEnv.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, cast

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from miaui_env.core.errors import IllegalActionError, InvalidConfigError, is_integer
from miaui_env.core.seeding import Seed, seed_child, seed_children, seed_int, seed_ints, seed_tree

TABLE_DEALS = 0  # a table's children in its seed tree: its deals
TABLE_OPPONENT = 1  # and its default (random) opponent


def slot_seeds(seed: Seed, num_games: int) -> list[int]:
    """One seed per game slot of a table seeded `seed`: 64-bit words of its deals child's state."""
    return [int(word) for word in seed_ints(seed_child(seed, TABLE_DEALS), num_games, bits=64)]


def opponent_seed(seed: Seed) -> int:
    """The seed of a table's default (random) opponent."""
    return seed_int(seed_child(seed, TABLE_OPPONENT))


class OneEnvVecEnv(VecEnv):
    """A VecEnv whose indices are slots of one engine: attributes and methods are shared."""

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) bool: the legal actions of each index."""
        raise NotImplementedError

    FIXED = ("num_envs", "num_players", "observation_space", "action_space", "table_spec", "view")
    """Attributes `set_attr` refuses: they describe the games under way, which would no longer match them."""

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        """The env indices `indices` names (None: all; an int; a list of ints), each one of this VecEnv's."""
        chosen = list(super()._get_indices(indices))
        wrong = [i for i in chosen if not is_integer(i) or not 0 <= i < self.num_envs]
        if wrong:
            raise InvalidConfigError(f"indices {wrong!r:.60} are not env indices; they are 0-{self.num_envs - 1}")
        return chosen

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute, once per index (every index shares this one env)."""
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the (shared) env; the attributes in FIXED are refused."""
        if attr_name in self.FIXED:
            raise InvalidConfigError(f"set_attr({attr_name!r}) is refused: it describes the games under way; make a new VecEnv instead")
        self._get_indices(indices)
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        """`action_masks` per index (what sb3-contrib calls); other methods once, result repeated."""
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[chosen])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(chosen)

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None) -> list[bool]:
        """No index is wrapped."""
        return [False] * len(list(self._get_indices(indices)))

    def close(self) -> None:
        """Nothing to release."""


def index_array(actions: object, num_envs: int, what: str, count: int) -> np.ndarray:
    """`actions` as (num_envs,) int64 indices, one per env index (ranges and masks are the caller's to
    check); IllegalActionError naming what is wrong: masked entries (numpy.ma, whose hidden data would
    be played), a ragged nesting, another shape, or numbers that are not integers (a float or a string
    would be truncated or parsed, not refused)."""
    if np.ma.is_masked(actions):
        raise IllegalActionError(f"actions hold masked entries (numpy.ma); give every {what}")
    try:
        given = np.asarray(actions)
    except ValueError:  # a ragged nesting of lists
        raise IllegalActionError(f"actions must hold one {what} index per env index, got {actions!r:.60}") from None
    if given.shape not in ((num_envs,), (num_envs, 1)):
        raise IllegalActionError(f"actions must hold one {what} index per env index, shape ({num_envs},), got shape {given.shape}")
    if given.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be integer {what} indices 0-{count - 1}, got dtype {given.dtype}")
    return given.reshape(num_envs).astype(np.int64)


def checked_seats(learner_seats: object, num_players: int) -> list[int]:
    """The learner seats, sorted; InvalidConfigError unless a non-empty collection of distinct ints 0 to n-1."""
    if learner_seats is None:
        return list(range(num_players))
    allowed = f"a non-empty list of distinct seats 0-{num_players - 1}"
    if isinstance(learner_seats, str | bytes) or not isinstance(learner_seats, Sequence | np.ndarray):
        raise InvalidConfigError(f"learner_seats={learner_seats!r} is not allowed; give {allowed}")
    seats = list(learner_seats)
    for seat in seats:
        if not is_integer(seat) or not 0 <= seat < num_players:
            raise InvalidConfigError(f"learner_seats={learner_seats!r}: seat {seat!r} is not allowed; give {allowed}")
    if not seats or len(set(seats)) != len(seats):
        raise InvalidConfigError(f"learner_seats={learner_seats!r} is not allowed; give {allowed}")
    return sorted(int(seat) for seat in seats)


class SelfPlayTable(Protocol):
    """What `MultiTableVecEnv` needs of a table: a self-play VecEnv of any game (Miaui's, the octopus game's, AECSelfPlayVecEnv)."""

    num_envs: int
    observation_space: gymnasium.spaces.Space[Any]
    action_space: gymnasium.spaces.Space[Any]

    def seed(self, seed: Seed | None = None) -> list[int | None]: ...
    def reset(self) -> np.ndarray: ...
    def check_actions(self, actions: np.ndarray) -> np.ndarray: ...
    def step_async(self, actions: np.ndarray, *, trusted: bool = False) -> None: ...
    def check_actions_pending(self) -> None: ...
    def step_wait(self) -> VecEnvStepReturn: ...
    def action_masks(self) -> np.ndarray: ...


class MultiTableVecEnv(OneEnvVecEnv):
    """Several self-play VecEnvs of one game (say Miaui's 3-, 4- and 6-player tables, or its variants;
    or octopus tables of 2, 3 and 4 players) as one, so one network learns them all. Indices run
    through the tables in order; all tables share the observation layout and the actions."""

    def __init__(self, tables: Sequence[SelfPlayTable]):
        if isinstance(tables, str | bytes) or not isinstance(tables, Sequence) or not tables:
            raise InvalidConfigError(f"MultiTableVecEnv needs a non-empty list of self-play tables (of one game), got {tables!r:.60}")
        for table in tables:  # every game's self-play VecEnv shares this base
            if not isinstance(table, OneEnvVecEnv) or isinstance(table, MultiTableVecEnv):
                raise InvalidConfigError(f"MultiTableVecEnv table {table!r:.60} is not a self-play VecEnv (a game's, or AECSelfPlayVecEnv)")
        if len({id(table) for table in tables}) != len(tables):
            raise InvalidConfigError("MultiTableVecEnv was given the same table twice; each table is its own batch of games")
        _check_same_observation_space(tables)
        self.tables = list(tables)
        self._bounds = np.cumsum([0] + [t.num_envs for t in self.tables])
        self.render_mode = None
        super().__init__(int(self._bounds[-1]), self.tables[0].observation_space, self.tables[0].action_space)

    @property
    def bounds(self) -> tuple[int, ...]:
        """Where each table's env indices start, then the number of indices: table i holds `bounds[i]` to `bounds[i + 1] - 1`."""
        return tuple(int(bound) for bound in self._bounds)

    def seed(self, seed: Seed | None = None) -> list[int | None]:
        """Seed every table's next reset, table i from child i of `seed`'s tree (None: fresh entropy);
        returns each index's game seed."""
        children = seed_children(seed_tree(seed), len(self.tables))
        return [s for table, child in zip(self.tables, children, strict=True) for s in table.seed(child)]

    def reset(self) -> np.ndarray:
        """Reset every table (dealt as `seed()` said, if it was called since)."""
        return np.concatenate([table.reset() for table in self.tables])

    def step_async(self, actions: np.ndarray) -> None:
        """Hand each table its share of the actions, all of them checked before any table keeps its share."""
        space = cast("gymnasium.spaces.Discrete[Any]", self.action_space)  # every self-play table's actions are numbered
        given = index_array(actions, self.num_envs, "action", int(space.n))
        spans = zip(self.tables, self._bounds[:-1], self._bounds[1:], strict=True)
        shares = [table.check_actions(given[start:stop]) for table, start, stop in spans]
        for table, share in zip(self.tables, shares, strict=True):
            table.step_async(share, trusted=True)

    def step_wait(self) -> VecEnvStepReturn:
        """Step every table; concatenate what they return."""
        for table in self.tables:  # before any table plays, so a refused call leaves every table as it was
            table.check_actions_pending()
        results = [table.step_wait() for table in self.tables]
        obs, rewards, dones, infos = zip(*results, strict=True)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for table in infos for i in table]

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) bool legal actions, table after table."""
        return np.concatenate([table.action_masks() for table in self.tables])


def _check_same_observation_space(tables: Sequence[SelfPlayTable]) -> None:
    """InvalidConfigError naming the first table whose observations differ from table 0's in dtype or width:
    their rows are concatenated into one batch, so codes would be read as floats."""
    first = tables[0].observation_space
    for index, table in enumerate(tables[1:], start=1):
        space = table.observation_space
        if space.dtype != first.dtype or space.shape != first.shape:
            raise InvalidConfigError(
                f"MultiTableVecEnv tables must share one observation space: table 0 has {first} "
                f"but table {index} has {space}; give every table the same observation_dtype and privileged"
            )
