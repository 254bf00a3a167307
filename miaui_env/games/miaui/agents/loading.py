"""Turn an agent spec into an agent: a built-in name, a checkpoint, or a user's `module:callable`.

    load_agent("counter", seed=0)                      # random, greedy, counter, search
    load_agent("extremes", seed=0)                     # a playing style: high, low, extremes, middle, noisy-counter
    load_agent("checkpoints/miaui-ppo-v0", seed=0)     # a trained policy (directory or model.zip)
    load_agent("miaui-ppo-v0")                         # a shipped policy, by name (SHIPPED_POLICIES)
    load_agent("checkpoints/miaui-rllib", seed=0)      # an RLlib run (its exported policy/)
    load_agent("my_package.bots:make_bot", seed=0)     # called with seed= if it accepts it
    load_agents(["counter", "random"], seed=0)         # a lineup, seeded from one seed tree
    load_agent("miaui-ppo-v0@sample", seed=0)          # a trained policy playing its mixed strategy
    load_agent("search+miaui-ppo-v0", seed=0)          # the search agent warm-started by a policy

A callable that returns an object with `act` is an agent factory; any other callable is used as a
batched policy `(observations, masks) -> actions` itself.

Shipped policies (miaui-ppo-v1, miaui-ppo-v0, miaui-ppo-v1-league) are found by name in
`SHIPPED_POLICIES`: the installed package's own copy, `miaui_env/shipped/` (a wheel carries
the repository's checkpoints/<name>/model.zip, metadata.json and config.yaml there), else the
checkout's checkpoints/ (an editable install, or code run from the source tree).

Play modes. A trained policy (a checkpoint, a shipped policy, or a module:callable that returns a
`PolicyAgent`) plays its most likely card, unless its run's metadata.json says `"play": "sample"`
(the mode it was measured strongest in); `SPEC@sample` makes it play the mixed strategy it
learned, a card drawn from its masked distribution by its own generator (seeded by `seed`, so the
same seed plays the same games), and `SPEC@best` its most likely card. The agent is named
with its mode (`miaui-ppo-v0@sample`), so results show which one played. The suffix is a word
after the last `@`; a spec that exists as a path is that path (so a folder named `run@v2` stays a
folder), and `@` can appear in no module:callable. A mode on anything else (`counter@sample`), or
a mode that is not one of `PLAY_MODES`, is an AgentSpecError naming the allowed modes.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import gymnasium

from miaui_env.core.agents import Agent, as_agent
from miaui_env.core.checkpoint import CheckpointSpaceError, space_name
from miaui_env.core.loading import (
    SHIPPED_POLICIES,
    AgentSpecError,
    load_trained_policy,
    refuse_play_mode_on_builtin,
    split_play_mode,
    with_play_mode,
)
from miaui_env.core.registry import game_of_agents_module
from miaui_env.core.seeding import check_seed, seed_children, seed_int
from miaui_env.games.miaui import GAME
from miaui_env.games.miaui.agents import builtin_agents
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT, OBSERVATION_VERSION
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS

SEARCH_PREFIX = "search+"  # search+PRIOR: the search agent with PRIOR's play as its warm start


def load_agent(spec: str, seed: int | None = None) -> Agent:
    """The agent `spec` names; see the module docstring."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec is a non-empty string (a built-in name, a checkpoint path or module:callable), got {spec!r}")
    seed = check_seed(seed)
    if spec.startswith(SEARCH_PREFIX):
        return _load_policy_search(spec, seed)
    base, mode = split_play_mode(spec)
    refuse_play_mode_on_builtin(spec, base, mode, builtin_agents())  # before anything is loaded
    return with_play_mode(_load(base, seed), spec, base, mode)


def _load_policy_search(spec: str, seed: int | None) -> Agent:
    """`search+PRIOR`: the search agent warm-started from the agent PRIOR names (policy + search)."""
    from miaui_env.games.miaui.agents.search import RegretMatchingSearchAgent

    prior_spec = spec[len(SEARCH_PREFIX) :]
    if not prior_spec:
        raise AgentSpecError(f"agent {spec!r}: name the prior after '{SEARCH_PREFIX}', e.g. {SEARCH_PREFIX}miaui-ppo-v0")
    search_seed, prior_seed = (None, None) if seed is None else (seed_int(child) for child in seed_children(seed, 2))
    prior = load_agent(prior_spec, seed=prior_seed)
    agent = RegretMatchingSearchAgent(search_seed, prior=prior)
    agent.name = f"{SEARCH_PREFIX}{getattr(prior, 'name', prior_spec)}"
    return agent


def _load(spec: str, seed: int | None) -> Agent:
    """The agent a spec without a play mode names."""
    builtins = builtin_agents()
    if spec in builtins:
        return builtins[spec](seed)
    trained = load_trained_policy(GAME.name, spec, seed, OBSERVATION_VERSION, check=_check_spaces)
    if trained is not None:
        return trained
    module_name, sep, attribute = spec.partition(":")
    if not sep:
        raise AgentSpecError(
            f"agent {spec!r} is not a built-in ({', '.join(builtins)}), a checkpoint (a directory with "
            f"model.zip, or a .zip file), a shipped policy in {SHIPPED_POLICIES}, or a module:callable"
        )
    if not module_name or not attribute or module_name.startswith("."):
        raise AgentSpecError(f"agent {spec!r} is not module:callable with an absolute module name (e.g. my_package.bots:make_bot)")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except Exception as error:  # the user's module failed to import (any error of theirs): name it, with its cause
        raise AgentSpecError(f"cannot load agent {spec!r}: {type(error).__name__}: {error}") from None
    if not callable(target):
        raise AgentSpecError(f"{spec} is {target!r:.60}, neither an agent class or factory nor a batched policy function")
    owner = game_of_agents_module(getattr(target, "__module__", None) or module_name)
    if owner is not None and owner.part("load_agent") is not load_agent:
        raise AgentSpecError(f"{spec} is an agent of {owner.title} (--game {owner.name}); this game needs a Miaui agent")
    if inspect.isclass(target) or _returns_agent(target):
        try:
            takes_seed = "seed" in inspect.signature(target).parameters
        except (TypeError, ValueError):  # a builtin without a signature
            takes_seed = False
        try:
            made = target(seed=seed) if takes_seed else target()
        except Exception as error:  # the user's factory failed: name it, with its cause
            raise AgentSpecError(f"{spec} raised {type(error).__name__}: {error}") from None
        if not callable(getattr(made, "act", None)):
            raise AgentSpecError(f"{spec} returned {made!r}, which has no act(observations, masks) method")
        if not hasattr(made, "name"):
            made.name = attribute
        return cast(Agent, made)  # it has act(); the protocol's other parts are duck-typed
    if not _takes_a_batch(target):
        raise AgentSpecError(
            f"{spec} takes {_signature(target)}: neither an agent class or factory (called with no arguments) "
            f"nor a batched policy function (called with observations, masks)"
        )
    return as_agent(target, attribute)


def _check_spaces(model: Any, source: Path) -> None:
    """CheckpointSpaceError unless the model reads this game's observations and plays its cards."""
    network = getattr(model, "policy", model)
    check_policy_spaces(
        getattr(model, "observation_space", None), getattr(model, "action_space", None), getattr(network, "own_size", None), source
    )


def load_agents(specs: Sequence[str], seed: int) -> list[Agent]:
    """The agents `specs` name, each seeded from its own child of `seed`'s tree (SeedSequence.spawn),
    so that equal specs at one table still play independently."""
    if isinstance(specs, str) or not isinstance(specs, Sequence):
        raise AgentSpecError(f"specs must be a list of agent specs, got {specs!r:.60}")
    return [load_agent(spec, seed=seed_int(child)) for spec, child in zip(specs, seed_children(seed, len(specs)), strict=True)]


def _returns_agent(function: Any) -> bool:
    """Whether a callable is an agent factory (takes no observations) rather than a policy."""
    try:
        parameters = [p for p in inspect.signature(function).parameters.values() if p.default is inspect.Parameter.empty]
    except (TypeError, ValueError):
        return False
    return len(parameters) == 0


def _takes_a_batch(function: Any) -> bool:
    """Whether a callable can be called as a policy, with (observations, masks); True where its signature is unknown."""
    try:
        inspect.signature(function).bind(None, None)
    except TypeError:
        return False
    except ValueError:  # a builtin without a signature: nothing to check
        return True
    return True


def _signature(function: Any) -> str:
    """A callable's parameters, for an error message."""
    try:
        return str(inspect.signature(function))
    except (TypeError, ValueError):
        return "(...)"


def check_policy_spaces(observation_space: Any, action_space: Any, own_size: int | None, source: Path | str) -> None:
    """Refuse a policy that cannot read this game's observation rows or does not choose one of its cards.

    A policy reads the (OBSERVATION_LAYOUT.size,) row an agent is handed, either as its whole input
    or (a privileged critic's actor, `own_size`) as the front of a longer one.
    """
    expected_observation = f"Box({OBSERVATION_LAYOUT.size},)"
    expected_action = f"Discrete({NUM_DIVER_CARDS})"
    shape = getattr(observation_space, "shape", None)
    reads_rows = shape == (OBSERVATION_LAYOUT.size,) or (
        own_size == OBSERVATION_LAYOUT.size and shape is not None and len(shape) == 1 and shape[0] > own_size
    )
    chooses_cards = isinstance(action_space, gymnasium.spaces.Discrete) and action_space.n == NUM_DIVER_CARDS
    if not (reads_rows and chooses_cards):
        raise CheckpointSpaceError(
            f"{source} is a policy for observations {space_name(observation_space)} and actions {space_name(action_space)}, "
            f"but this game gives observations {expected_observation} (or longer rows that begin with them, for a privileged critic) "
            f"and actions {expected_action}; it was trained on another game or layout"
        )
