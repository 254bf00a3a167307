"""What every MaskablePPO learner of the trainers shares: the `ppo` section as MaskablePPO's arguments,
a learner built from it (fresh, or from a trained policy's network), and the global generators left
as they were.

Self-play (training/selfplay.py) and the exploitability yardstick's best responses
(training/exploit.py) both build their learner here, so a `ppo` section means the same to both.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import random
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from miaui_env.core.agents import Agent
from miaui_env.core.policy import PolicyAgent
from miaui_env.core.policy_spec import PolicySpecError, activation, features_extractor, policy_class
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from training.config import ConfigError, SelfPlayConfig
from training.config_files import thaw

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv

    from training.magnet import MagnetPPO

# The trainers set these MaskablePPO arguments themselves; the rest of its signature is the `ppo` section's.
RUN_SETS = ("self", "env", "seed", "device", "verbose", "tensorboard_log", "_init_setup_model")
# The numeric arguments' bounds, refused here with their key rather than deep inside SB3 or torch.
PPO_BOUNDS: dict[str, tuple[type, Callable[[float], bool], str]] = {
    "learning_rate": (float, lambda v: v > 0, "a number > 0"),
    "n_steps": (int, lambda v: v >= 1, "an integer >= 1"),
    "batch_size": (int, lambda v: v >= 1, "an integer >= 1"),
    "n_epochs": (int, lambda v: v >= 1, "an integer >= 1"),
    "gamma": (float, lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "gae_lambda": (float, lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "clip_range": (float, lambda v: v > 0, "a number > 0"),
    "ent_coef": (float, lambda v: v >= 0, "a number >= 0"),
    "vf_coef": (float, lambda v: v >= 0, "a number >= 0"),
    "max_grad_norm": (float, lambda v: v > 0, "a number > 0"),
}


# Arguments MaskablePPO takes as a schedule: a config may give `{start: A, end: B}` for a straight line
# from A at the run's first step to B at its last (SB3's LinearSchedule over the run's progress).
SCHEDULED = ("learning_rate", "clip_range")
SCHEDULE_KEYS = ("start", "end")


def _check_value(key: str, value: Any) -> None:
    kind, within, allowed = PPO_BOUNDS[key]
    numeric = not isinstance(value, bool) and isinstance(value, int if kind is int else int | float)
    if not numeric or not math.isfinite(value) or not within(value):
        raise ConfigError(f"ppo.{key}={value!r} is not allowed; it must be {allowed}")


def check_ppo_section(section: Mapping[str, Any]) -> None:
    """Refuse a `ppo` key MaskablePPO does not take, or a numeric value out of its bounds (ConfigError)."""
    from sb3_contrib import MaskablePPO

    taken = [name for name in inspect.signature(MaskablePPO.__init__).parameters if name not in RUN_SETS]
    for key, value in section.items():
        if key not in taken:
            raise ConfigError(f"ppo.{key} is not a MaskablePPO argument (or is set by the run); arguments: {', '.join(taken)}")
        if key in SCHEDULED and isinstance(value, Mapping):
            if sorted(value) != sorted(SCHEDULE_KEYS):
                raise ConfigError(
                    f"ppo.{key}={dict(value)!r} is not allowed; a schedule is {{start: A, end: B}} "
                    f"(a straight line over the run), or give one number"
                )
            for end in SCHEDULE_KEYS:
                _check_value(key, value[end])
        elif key in PPO_BOUNDS:
            _check_value(key, value)


def ppo_kwargs(section: Mapping[str, Any]) -> dict[str, Any]:
    """The `ppo` section as MaskablePPO's keyword arguments (plain dicts and lists), checked: YAML cannot
    hold a class, so `policy_kwargs.activation_fn` is written as a torch.nn class name (`ReLU`, `Tanh`),
    `policy_kwargs.features_extractor_class` as the name of a features extractor a game gives (`Game.features_extractors`)
    and `policy` (the network's class; the trainer's own by default) as the name of a policy class a game gives."""
    from stable_baselines3.common.utils import LinearSchedule

    check_ppo_section(section)
    kwargs: dict[str, Any] = thaw(section)
    for key in SCHEDULED:
        if isinstance(kwargs.get(key), dict):  # SB3's progress runs from 1 at the first step to 0 at the last
            kwargs[key] = LinearSchedule(float(kwargs[key]["start"]), float(kwargs[key]["end"]), end_fraction=1.0)
    policy_kwargs = kwargs.get("policy_kwargs") or {}
    if not isinstance(policy_kwargs, dict):
        raise ConfigError(f"ppo.policy_kwargs={policy_kwargs!r} is not allowed; it is a mapping of the policy's keyword arguments")
    named_activation = policy_kwargs.get("activation_fn")
    if named_activation is not None:
        try:  # the names a checkpoint can be loaded by (miaui_env/core/policy_spec.py)
            policy_kwargs["activation_fn"] = activation(named_activation)
        except PolicySpecError as error:
            raise ConfigError(f"ppo.policy_kwargs.{error}") from None
    if "policy" in kwargs:
        try:  # a network class a game gives (`Game.policy_classes`) or SB3's, by the name its checkpoints keep
            kwargs["policy"] = policy_class(kwargs["policy"])
        except PolicySpecError as error:
            raise ConfigError(f"ppo.{error}") from None
    extractor = policy_kwargs.get("features_extractor_class")
    if isinstance(extractor, str):
        try:  # a game's own extractor, by the name its checkpoints keep (miaui_env/core/policy_spec.py)
            policy_kwargs["features_extractor_class"] = features_extractor(extractor)
        except PolicySpecError as error:
            raise ConfigError(f"ppo.policy_kwargs.{error}") from None
    return kwargs


class TrainedWeights(NamedTuple):
    """A trained SB3 policy's network: enough to build the same network and start from its weights."""

    policy_class: type
    """The SB3 policy class (MaskableActorCriticPolicy, or the privileged critic's)."""
    policy_kwargs: dict[str, Any]
    """The keyword arguments its class was built with (network shape, activation)."""
    state_dict: dict[str, Any]
    """Its weights, as `load_state_dict` takes them."""

    @property
    def privileged(self) -> bool:
        """Whether its critic reads the global state (miaui_env.games.miaui.privileged)."""
        from miaui_env.games.miaui.privileged import PrivilegedCriticPolicy

        return issubclass(self.policy_class, PrivilegedCriticPolicy)


def trained_weights(agent: Agent) -> TrainedWeights | None:
    """A trained SB3 policy's network and weights; None for any other agent."""
    from sb3_contrib import MaskablePPO

    if isinstance(agent, PolicyAgent) and isinstance(agent.policy, MaskablePPO):
        network = agent.policy.policy
        return TrainedWeights(type(network), dict(agent.policy.policy_kwargs), network.state_dict())
    return None


def card_odds(ppo: Mapping[str, Any]) -> bool:
    """Whether a `ppo` section's policy (or a trained network's, as `{"policy_kwargs": its kwargs}`) reads
    the card-counting odds (`policy_kwargs.card_odds`)."""
    policy_kwargs = ppo.get("policy_kwargs") or {}
    return bool(policy_kwargs.get("card_odds", False))


def initial_weights(config: SelfPlayConfig, load: Callable[..., Agent] = load_agent) -> TrainedWeights | None:
    """The weights `config.init` names (None without one), loaded by `load` (the run's game's
    loader); ConfigError unless it is a trained MaskablePPO policy that sees the run's view through
    the run's kind of critic."""
    if config.init is None:
        return None
    if config.kickstart.decisions > 0:  # checked here, not per --set: the two keys are often set one after the other
        raise ConfigError(
            f"config key 'init' is {config.init!r} and kickstart.decisions is {config.kickstart.decisions}: both "
            "start the network; set kickstart.decisions=0 to start from init's weights, or init=null to clone"
        )
    agent = load(config.init, seed=0)
    weights = trained_weights(agent)
    if weights is None:
        raise ConfigError(
            f"config key 'init' is {config.init!r}, which is not a trained MaskablePPO policy; name a checkpoint "
            "(e.g. miaui-ppo-v1, checkpoints/my-run, results/exploit/counter/best-response-4p)"
        )
    privileged = weights.privileged
    if privileged != config.privileged_critic:
        raise ConfigError(
            f"config key 'init' is {config.init!r}, trained with privileged_critic={privileged}, but the run has "
            f"privileged_critic={config.privileged_critic}: the inputs differ, so set it to {privileged}"
        )
    view = getattr(agent, "view", "table")
    if view != config.view:
        raise ConfigError(
            f"config key 'init' is {config.init!r}, which sees the {view!r} view, but the run's view is "
            f"{config.view!r}: set view={view} to start from it"
        )
    trained_odds, wanted_odds = card_odds({"policy_kwargs": weights.policy_kwargs}), card_odds(config.ppo)
    if trained_odds != wanted_odds:
        raise ConfigError(
            f"config key 'init' is {config.init!r}, trained with card_odds={trained_odds}, but the run has "
            f"ppo.policy_kwargs.card_odds={wanted_odds}: the inputs differ, so set it to {str(trained_odds).lower()}"
        )
    return weights


def new_learner(
    venv: VecEnv,
    kwargs: Mapping[str, Any],
    seed: int,
    *,
    start: TrainedWeights | None = None,
    privileged_critic: bool = False,
    tensorboard_log: str | None = None,
    device: str = "cpu",
) -> MagnetPPO:
    """A MaskablePPO learner on `venv` with `kwargs` (`ppo_kwargs` of a `ppo` section), on `device`
    (training/hardware.py's names): a new network (its critic privileged if asked), or `start`'s
    network, class, shape and weights; ConfigError for arguments MaskablePPO refuses. Its policy takes
    compact rows (uint8 codes) as well as float32 ones. It is a `MagnetPPO`, which trains as
    MaskablePPO until given a magnet."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from miaui_env.games.miaui.card_odds import CardOddsFeatures
    from miaui_env.games.miaui.compact_torch import CompactInputPolicy, ExpandsCodes
    from miaui_env.games.miaui.privileged import PrivilegedCriticPolicy
    from training.hardware import torch_device
    from training.magnet import MagnetPPO

    arguments = dict(kwargs)
    named: type | None = arguments.pop("policy", None)  # the ppo section's `policy`
    policy: type = named or CompactInputPolicy  # MaskablePPO's MlpPolicy, taking codes too
    if named is not None and privileged_critic:
        raise ConfigError(f"ppo.policy={named.__name__} is not allowed here: privileged_critic sets the network's class; leave it out")
    if named is not None and start is not None and named is not start.policy_class:
        raise ConfigError(
            f"ppo.policy={named.__name__} is not allowed here: the starting policy (init) is a {start.policy_class.__name__}, "
            "whose class the network keeps; leave ppo.policy out"
        )
    if named is not None and venv.observation_space.dtype == np.uint8 and not issubclass(named, ExpandsCodes):
        raise ConfigError(
            f"ppo.policy={named.__name__} reads no uint8 rows, which this game's trainer gives: name one that does (CompactInputPolicy)"
        )
    if start is not None:
        policy, arguments["policy_kwargs"] = start.policy_class, start.policy_kwargs
        if policy is MaskableActorCriticPolicy:  # the same network, key for key
            policy = CompactInputPolicy
        extractor = start.policy_kwargs.get("features_extractor_class")
        # A policy that expands codes hands its extractor the float layout, which CardOddsFeatures reads; another extractor reads codes.
        reads_floats = extractor is None or extractor is CardOddsFeatures
        if venv.observation_space.dtype == np.uint8 and (not issubclass(policy, ExpandsCodes) or not reads_floats):
            built = start.policy_class.__name__ + (f" with {getattr(extractor, '__name__', extractor)}" if extractor else "")
            raise ConfigError(
                f"the starting policy ({built}) cannot read the trainer's uint8 rows: start from a "
                "MaskablePPO MlpPolicy or a PrivilegedCriticPolicy, without a features extractor or with CardOddsFeatures"
            )
    elif privileged_critic:
        policy = PrivilegedCriticPolicy
        arguments["policy_kwargs"] = {**arguments.get("policy_kwargs", {}), "own_size": OBSERVATION_LAYOUT.size}
    on = torch_device(device)
    try:
        model = MagnetPPO(policy, venv, seed=seed, device=on, verbose=0, tensorboard_log=tensorboard_log, **arguments)
    except (TypeError, ValueError, AssertionError, NotImplementedError) as error:
        # Values inside the section (policy_kwargs, schedules) are checked by SB3 and torch themselves.
        raise ConfigError(f"the ppo section was refused by MaskablePPO: {type(error).__name__}: {error}") from None
    if start is not None:
        model.policy.load_state_dict(start.state_dict)
    if model.rollout_buffer.observations.dtype != venv.observation_space.dtype:  # SB3 before 2.7.1 stored every row as float32
        raise ConfigError(
            f"this stable-baselines3 stores {venv.observation_space.dtype} rows as "
            f"{model.rollout_buffer.observations.dtype}: install stable-baselines3 and sb3-contrib >= 2.7.1"
        )
    return model


@contextlib.contextmanager
def rng_untouched() -> Iterator[None]:
    """Leave the global generators PPO draws from as they were (loading an SB3 model reseeds them)."""
    import torch

    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    # A GPU learner samples there; a CPU run on a GPU machine never starts CUDA, and has nothing to keep.
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])
        if cuda_states is not None:
            torch.cuda.set_rng_state_all(cuda_states)
