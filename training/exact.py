"""Exact exploitability on a small variant: NashConv and each seat's best-response gain, computed by
OpenSpiel's exact best responses over the whole game tree, for agents and for an MCCFR solution.

    python -m training.exact --species 2 --values 12 --octopuses 1            # the five-card octopus variant
    python -m training.exact --species 3 --values 12 --octopuses 0 --agents random cautious --mccfr-iterations 10000
    python -m training.exact --species 2 --values 12 --octopuses 1 --yardstick-steps 300000   # and the yardstick's share
    python -m training.exact --game miaui --rounds 3 --deck "emperor_tuna:10*6 jellyfish:-10*4"   # a short Miaui game
    python -m training.exact --agents --mccfr-seconds 0 --selfplay-steps 1000000   # self-play, then MCCFR as long
    python -m training.exact --game miaui --agents high --yardstick-steps 200000 --selfplay-steps 200000
    python -m training.exact --agents risk-aware --mccfr-seconds 0 --yardstick-steps 1000000 --tabular-episodes 300000

The octopus game's small variant (`miaui_env.games.octopus.rules.Variant`, rulings OV1-OV3) is loaded in
OpenSpiel (`python_octopus` with `species`, `values`, `octopuses`, `target`) and played for one
session (`max_sessions=1`: the tree is finite). A short Miaui game (`GameConfig(rounds=..., deck=...)`,
rulings MV1-MV3; `--game miaui`, 3 players by default) is `python_miaui` with `rounds` and `deck`,
made turn-based (`pyspiel.convert_to_turn_based`: the seats choose one after another, none seeing
another's choice) for the best responses and MCCFR. Every seat plays the same policy; a seat's
best-response gain is what a player who knows that policy (and nothing of the deck's order) wins
above it in that seat, as a win share: the exact counterpart of the yardstick
(`python -m training.exact` is exact, `python -m training.exploit` is a trained lower bound). NashConv is the
sum of the seats' gains; 0 is a Nash equilibrium (Johanson et al. 2011; Lanctot et al. 2017).

Agents are any agent spec of the game, shown the view they play from. The built-in heuristics are
deterministic: one legal action a state, probability 1; `random` is the uniform policy over the
legal actions; Miaui's `greedy` and `counter` break ties at random, so they are the uniform mixture
over their equally scored cards; a trained policy plays its most likely action (`@sample`, a mixed
strategy, is refused, as are Miaui's `middle` and `noisy-counter`, which draw at random, and
`search`, whose beliefs deal the full game). Miaui's heuristics and policies were written and
trained for the 12-round game and play a short one from the same observation (its hands hold cards
1..rounds). The MCCFR row is OpenSpiel's external-sampling Monte Carlo CFR (Lanctot et al. 2009) run
for `--mccfr-seconds` of CPU time, or `--mccfr-iterations` (seeded and repeatable), on the same
game, its average policy measured the same way.

`--yardstick-steps` trains the yardstick's best response to each agent (`trained_gains`: its PPO,
the recall view, a seat of each game against the agent) on the variant itself and measures it
exactly, so the share of the exact gain it finds is how tight `training.exploit`'s lower bound is;
`--tabular-episodes` trains, in the same env and view, a best response that keeps one value per
observation and action (Monte Carlo control with epsilon-greedy exploration, Sutton & Barto ch. 5),
which only a small variant allows, and measures it the same way: what a learner that does not
generalise finds there tells the view and the env apart from PPO as the reason for a shortfall;
`--selfplay-steps` trains teacher-free self-play on the variant (the game's recipe's learner,
configs/octopus-v2.yaml with the trainer's own MLP policy, or configs/default.yaml without its privileged critic, against a pool of its
past selves), measures it exactly as it plays (its action chances) and by its most likely action,
then runs MCCFR for the same CPU time. Both train on the game's SB3 VecEnv (the octopus game's, or
the batched Miaui engine's, which plays short games).

Written to `--out` (default results/exact/<variant>/): exact.json and exact.md (the table).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import math
import time
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from miaui_env.core.agents import RandomAgent, reset_agent
from miaui_env.core.cli import check_writable, distinct, non_negative_int, positive_int, run_command
from miaui_env.core.errors import DeckError, InvalidConfigError, is_integer
from miaui_env.core.files import atomic_write
from miaui_env.core.loading import AgentSpecError
from miaui_env.core.registry import get_game
from miaui_env.games.miaui.cards import deck_list, parse_deck
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import NUM_DIVER_CARDS, GameConfig
from miaui_env.games.octopus import observation as octopus_observation
from miaui_env.games.octopus import rules as octopus

TIE = 1e-9  # greedy's and counter's scores this close are a tie, which they break uniformly at random
MIAUI_DECK = "emperor_tuna:10*6 jellyfish:-10*4"  # the three-round game's ten fish, the command's default
MAX_TREE_LEAVES = 2_000_000  # a short Miaui game's deal orders x card choices: the 3-round game has 45,360 (a minute a row)


class ExactConfigError(ValueError):
    """A measurement the exact tools cannot make: seats, size or training that the variant's game does not allow."""


class OctopusVariant:
    """The octopus game's small variants (OV1-OV3) for the exact tools: played one session long."""

    name = "octopus"
    title = "the octopus game"
    options = ("species", "values", "octopuses", "target")  # the command line's options that make a variant
    agents = ("random", "cautious", "risk-aware", "theft-aware", "rival-aware")
    refused: ClassVar[Mapping[str, str]] = MappingProxyType({})
    selfplay_recipe = "octopus-v2"  # configs/octopus-v2.yaml: the octopus game's teacher-free recipe
    # Its learner before the action-odds head (the trainer's own MLP on the odds), which docs/guides/openspiel.md measured;
    # a run on a small variant is paid its end-of-game reward alone (reward_shaping is the self-play trainer's).
    selfplay_overrides: tuple[str, ...] = ("ppo.policy=CompactInputPolicy",)
    length = ", one session"

    def spiel_game(self, variant: Any, players: int, view: str) -> Any:
        """The variant in OpenSpiel, one session long, rewarded by wins (the view is the agent's own)."""
        import pyspiel

        cards = {"species": variant.species, "values": int("".join(map(str, variant.values))), "octopuses": variant.octopuses}
        table = {"players": players, "target": variant.target, "max_sessions": 1, "reward": "win"}
        return pyspiel.load_game("python_octopus", {**cards, **table})

    def seen(self, state: Any, agent: Any) -> tuple[np.ndarray, np.ndarray]:
        """The seat to move's observation in the agent's view, and its action mask."""
        seat = state.current_player()
        return octopus_observation.observe(state.state, seat, getattr(agent, "view", "table")), octopus.action_mask(state.state)

    def learner_env(self, variant: Any, players: int, view: str, seed: int, opponent: Any = None) -> Any:
        """A learner's VecEnv on the variant, one session long: a learner seat of every game, the
        others `opponent`'s (None: random until `seat_pool`)."""
        from miaui_env.games.octopus.selfplay import OctopusSelfPlayVecEnv

        return OctopusSelfPlayVecEnv(
            256, num_players=players, opponent=opponent, view=view, reward="win", max_sessions=1, variant=variant, seed=seed
        )

    def seat_pool(self, venv: Any, pool: Sequence[Any], seed: int) -> None:
        """From the next game on, each game's opponents are one agent of `pool`, drawn uniformly."""
        venv.set_opponents(pool, [1.0] * len(pool), seed=seed)

    def variant(self, args: argparse.Namespace, players: int) -> octopus.Variant:
        """The variant the command line names (Variant refuses one outside the game, by name)."""
        values = tuple(int(v) for v in (args.values or "12"))
        return octopus.Variant(args.species or 2, values, 1 if args.octopuses is None else args.octopuses, args.target or 1)

    def check(self, variant: Any, players: int) -> None:
        """Nothing to refuse: every variant of OV1-OV3 is small enough, one session long."""

    def describe(self, variant: Any) -> str:
        """The variant in words."""
        return str(variant)

    def folder(self, variant: Any, players: int) -> str:
        """Its results folder's name."""
        return f"octopus-{variant.species}x{''.join(map(str, variant.values))}-{variant.octopuses}oct-{players}p"


class MiauiShortGame:
    """Short Miaui games (MV1-MV3) for the exact tools: made turn-based, each seat's card hidden from
    the others until the reveal."""

    name = "miaui"
    title = "Miaui"
    options = ("rounds", "deck", "no_fighting", "open_baskets")
    agents = ("random", "greedy", "counter", "high", "low")
    refused: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            "search": "its beliefs deal the 12-round game",
            "noisy-counter": "it plays a random card in 30% of its decisions",
            "middle": "it draws one of two middle cards at random",
        }
    )
    selfplay_recipe = "default"  # configs/default.yaml: Miaui's teacher-free recipe (its learner and view)
    # without its card-counting inputs: they price a face-down card and a Jellyfish triple by the whole
    # game's deck, not a short game's (and the OpenSpiel guide's figures were measured without them)
    selfplay_overrides = ("ppo.policy_kwargs.card_odds=false",)
    length = ""

    def __init__(self) -> None:
        self._games: dict[tuple[tuple[str, Any], ...], Any] = {}  # the same short game in other views, for `seen`

    def spiel_game(self, variant: Any, players: int, view: str) -> Any:
        """The short game in OpenSpiel, turn-based, rewarded by wins, observed in `view`."""
        import pyspiel

        rules = {"players": variant.num_players, "no_fighting": variant.no_fighting, "open_baskets": variant.open_baskets}
        params = {**rules, "rounds": variant.rounds, "deck": " ".join(map(str, variant.deck)), "reward": "win", "view": view}
        return pyspiel.convert_to_turn_based(pyspiel.load_game("python_miaui", params))

    def seen(self, state: Any, agent: Any) -> tuple[np.ndarray, np.ndarray]:
        """The seat to move's observation in the agent's view and its action mask. A state of the game
        loaded in another view is replayed, action by action, in the agent's (a trained best response
        reads the recall view where the agent it answers reads the table)."""
        import pyspiel

        parameters = state.get_game().get_parameters()["game"]
        view = getattr(agent, "view", "table")
        if parameters["view"] != view:
            key = tuple(sorted({**parameters, "view": view}.items()))
            if key not in self._games:
                game = pyspiel.load_game(parameters["name"], {k: v for k, v in key if k != "name"})
                self._games[key] = pyspiel.convert_to_turn_based(game)
            replayed = self._games[key].new_initial_state()
            for action in state.history():
                replayed.apply_action(action)
            state = replayed
        # the turn-based game puts its own cells first; the seat's observation is the last 620
        seen = np.asarray(state.observation_tensor(state.current_player()), dtype=np.float32)[-OBSERVATION_LAYOUT.size :]
        mask = np.zeros(NUM_DIVER_CARDS, dtype=np.int8)
        mask[state.legal_actions()] = 1
        return seen, mask

    def learner_env(self, variant: Any, players: int, view: str, seed: int, opponent: Any = None) -> Any:
        """A learner's VecEnv on the short game (the batched engine): a learner seat of every game,
        moving round the table, the others `opponent`'s (None: random until `seat_pool`)."""
        from miaui_env.games.miaui.selfplay import MiauiSelfPlayVecEnv
        from training.games import SeenAs

        rules = {"open_baskets": variant.open_baskets, "no_fighting": variant.no_fighting, "rounds": variant.rounds}
        return MiauiSelfPlayVecEnv(
            512,
            num_players=players,
            learner_seats=[0],
            opponent=None if opponent is None else SeenAs(opponent, view),  # each agent shown its own view, as measured
            view=view,
            reward="win",
            deck=deck_list(variant.deck),
            seed=seed,
            **rules,
        )

    def seat_pool(self, venv: Any, pool: Sequence[Any], seed: int) -> None:
        """From the next game on, each game's opponents are one agent of `pool`, drawn uniformly."""
        from training.games import SeenAs
        from training.opponents import OpponentMixture

        rng = np.random.default_rng(seed)
        seen_as: list[Any] = [SeenAs(agent, venv.engine.view) for agent in pool]  # each shown its own view of the rows
        venv.set_opponent(OpponentMixture(seen_as, [1.0] * len(pool), rng, seats_per_game=venv.num_players - 1))

    def variant(self, args: argparse.Namespace, players: int) -> GameConfig:
        """The short game the command line names; InvalidConfigError or DeckError naming a bad one."""
        rounds, deck = args.rounds or 3, MIAUI_DECK if args.deck is None else args.deck
        try:
            return GameConfig(players, bool(args.open_baskets), bool(args.no_fighting), parse_deck(deck), rounds)
        except (DeckError, InvalidConfigError) as error:
            raise ExactConfigError(f"--rounds {rounds} --deck {deck!r}: {error}") from None

    def check(self, variant: Any, players: int) -> None:
        """Refuse seats the game does not have and a tree too large to walk."""
        if players != variant.num_players:
            raise ExactConfigError(f"players={players} but the Miaui game seats {variant.num_players}")
        leaves = self.tree_leaves(variant)
        if leaves > MAX_TREE_LEAVES:
            raise ExactConfigError(
                f"{self.describe(variant)}, {players} players, can go {leaves:.2g} ways; the exact tools take up to "
                f"{MAX_TREE_LEAVES:,} (fewer rounds, players, or kinds of fish)"
            )

    def describe(self, variant: Any) -> str:
        """The short game in words."""
        rules = " ".join(name for name in ("open_baskets", "no_fighting") if getattr(variant, name)) or "standard"
        deck = ", ".join(f"{card}*{count}" for card, count in collections.Counter(map(str, variant.deck)).items())
        return f"Miaui, {variant.rounds} rounds ({rules}), deck {deck}"

    def folder(self, variant: Any, players: int) -> str:
        """Its results folder's name: the rounds, the deck (its cards and counts) and the rules."""
        counts = collections.Counter(variant.deck)
        deck = "-".join(f"{card.kind.value}{card.value}x{counts[card]}" for card in sorted(counts, key=str))
        rules = "".join(f"-{name}" for name in ("open_baskets", "no_fighting") if getattr(variant, name))
        return f"miaui-{variant.rounds}r-{deck}{rules}-{players}p"

    def tree_leaves(self, variant: GameConfig) -> int:
        """How many ways a game can go: the deck's orders of distinct cards times the seats' card choices."""
        orders = math.factorial(len(variant.deck))
        for count in collections.Counter(variant.deck).values():
            orders //= math.factorial(count)
        for hand in range(2, variant.rounds + 1):  # every seat picks one of `hand` cards, rounds 1 to rounds - 1
            orders *= hand**variant.num_players
        return orders


ExactGame = OctopusVariant | MiauiShortGame
OCTOPUS_VARIANTS, MIAUI_SHORT_GAMES = OctopusVariant(), MiauiShortGame()
EXACT_GAMES: dict[str, ExactGame] = {game.name: game for game in (OCTOPUS_VARIANTS, MIAUI_SHORT_GAMES)}
AGENTS = OctopusVariant.agents  # the octopus game's defaults, the command's default game


@dataclass(frozen=True)
class ExactConfig:
    """One measurement: the variant, the table, the agents and the MCCFR budget."""

    variant: octopus.Variant | GameConfig
    """The octopus game's small variant (its target matters little: the game is one session), or a
    short Miaui game (its `num_players` seats; `players` must agree)."""
    players: int = 2
    """Seats at the table."""
    agents: tuple[str, ...] = AGENTS
    """Agent specs of the variant's game, each measured playing every seat."""
    mccfr_seconds: float = 60.0
    """CPU seconds of external-sampling MCCFR (0: no MCCFR row), unless `mccfr_iterations` is given."""
    mccfr_iterations: int = 0
    """Iterations of MCCFR instead of a time budget (a seeded, repeatable row; 0: the time budget)."""
    seed: int = 0
    """MCCFR's sampling seed, and the trained best responses' seed."""
    yardstick_steps: int = 0
    """PPO steps of a trained best response to each agent, with the yardstick's settings (0: none)."""
    selfplay_steps: int = 0
    """PPO steps of teacher-free self-play on the variant, then MCCFR for the same CPU time (0: none)."""
    yardstick_ppo: tuple[str, ...] = ()
    """`ppo.KEY=VALUE` overrides of the yardstick's PPO (configs/yardstick.yaml), as `training.exploit --set` takes them."""
    tabular_episodes: int = 0
    """Games of a tabular best response to each agent (Monte Carlo control on the yardstick's env and view; 0: none)."""

    def __post_init__(self) -> None:
        for name in ("mccfr_iterations", "yardstick_steps", "selfplay_steps", "tabular_episodes"):
            value = getattr(self, name)
            if not is_integer(value) or value < 0:
                raise ExactConfigError(f"{name}={value!r:.40} is not allowed; it is a whole number >= 0 (0: none)")
        self.game.check(self.variant, self.players)
        for override in self.yardstick_ppo:
            if not isinstance(override, str) or not override.startswith("ppo."):
                raise ExactConfigError(f"yardstick_ppo {override!r:.60}: only ppo.KEY=VALUE settings apply (the yardstick's PPO)")
        if self.yardstick_ppo:
            from training.config import load_config
            from training.ppo import ppo_kwargs

            ppo_kwargs(load_config("yardstick", self.yardstick_ppo).ppo)  # a bad key or value: ConfigError, before any work

    @property
    def game(self) -> ExactGame:
        """The variant's game, as the exact tools play it."""
        return MIAUI_SHORT_GAMES if isinstance(self.variant, GameConfig) else OCTOPUS_VARIANTS


def describe(config: ExactConfig) -> str:
    """The variant in words, for the table's title."""
    return config.game.describe(config.variant)


def variant_name(config: ExactConfig) -> str:
    """The results folder's name of the measured table."""
    return config.game.folder(config.variant, config.players)


def spiel_game(config: ExactConfig, view: str = "table") -> Any:
    """The variant as an OpenSpiel game rewarded by wins: the octopus game one session long, Miaui
    turn-based (each seat's choice hidden from the others until the reveal)."""
    import miaui_env.integrations.openspiel  # noqa: F401  (registers python_miaui and python_octopus)

    return config.game.spiel_game(config.variant, config.players, view)


def load_exact_agent(game: ExactGame, spec: str) -> Any:
    """The agent `spec` names, if exact figures can be computed for it (one action a state)."""
    if spec.split("@")[0] in game.refused:
        raise AgentSpecError(f"{spec} has no exact figures here: {game.refused[spec.split('@')[0]]}")
    agent = get_game(game.name).load_agent(spec, seed=0)
    if getattr(agent, "deterministic", True) is False:
        raise AgentSpecError(f"{spec} plays a mixed strategy: measure it as it plays its most likely action (@best)")
    return agent


def agent_policy(game: Any, spec: str | Any, exact_game: ExactGame = OCTOPUS_VARIANTS) -> Any:
    """The agent `spec` (a spec, or an agent) as an OpenSpiel policy: its action at each decision,
    with probability 1 (the uniform policy over the legal actions for the random agent; greedy's and
    counter's best cards alike, as they break ties). A Miaui agent reads the observation tensor of
    `game`, so `game` is loaded in the agent's view."""
    from open_spiel.python import policy

    agent = load_exact_agent(exact_game, spec) if isinstance(spec, str) else spec

    class AgentPolicy(policy.Policy):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
            legal = state.legal_actions()
            if isinstance(agent, RandomAgent):
                return dict.fromkeys(legal, 1.0 / len(legal))
            if hasattr(agent, "card_scores"):  # the counter remembers the reveals it has seen: only this game's
                remember_the_game(state, agent, exact_game)
            seen, mask = exact_game.seen(state, agent)
            if hasattr(agent, "card_scores"):  # greedy, counter: the best card, ties uniformly at random
                scores = agent.card_scores(seen[None, :], mask[None, :])[0]
                best = [int(a) for a in np.flatnonzero(scores >= scores.max() - TIE)]
                return dict.fromkeys(best, 1.0 / len(best))
            action = int(np.asarray(agent.act(seen[None, :], mask[None, :])).reshape(-1)[0])
            return {action: 1.0}

    return AgentPolicy(game, list(range(game.num_players())))


def remember_the_game(state: Any, agent: Any, exact_game: ExactGame) -> None:
    """Reset an agent that remembers what it has seen (Miaui's counter), then show it its seat's
    earlier decisions of the game that led to `state`, as it saw them when it played: so its answer at
    a state depends on that state's game alone, not on the states asked about before it."""
    reset_agent(agent)
    seat, earlier = state.current_player(), state.get_game().new_initial_state()
    for action in state.history():
        if not earlier.is_chance_node() and earlier.current_player() == seat:
            agent.card_scores(*(part[None, :] for part in exact_game.seen(earlier, agent)))
        earlier.apply_action(action)


@dataclass(frozen=True)
class Row:
    """One policy's exact figures."""

    name: str
    nash_conv: float
    gains: tuple[float, ...]
    """Each seat's best-response gain in win share."""
    values: tuple[float, ...]
    """Each seat's win share when every seat plays the policy."""
    seconds: float
    trained_gains: tuple[float, ...] | None = None
    """Each seat's exact gain of the yardstick's trained best response (None: not trained)."""
    tabular_gains: tuple[float, ...] | None = None
    """Each seat's exact gain of the tabular best response (None: not trained)."""

    @property
    def found(self) -> float | None:
        """The share of the exact best response's gain that the trained one finds (mean over seats)."""
        return self.share(self.trained_gains)

    @property
    def tabular_found(self) -> float | None:
        """The share of the exact best response's gain that the tabular one finds (mean over seats)."""
        return self.share(self.tabular_gains)

    def share(self, found_gains: tuple[float, ...] | None) -> float | None:
        """`found_gains` as a share of the exact best response's gains (None: nothing to compare)."""
        if found_gains is None or sum(self.gains) <= 0:
            return None
        return sum(found_gains) / sum(self.gains)


def trained_gains(game: Any, config: ExactConfig, spec: str, profile: Any, values: Sequence[float]) -> tuple[float, ...]:
    """The yardstick's best response to `spec`, trained as `training.exploit` trains one (configs/yardstick.yaml's
    PPO from new weights, the recall view, a seat of each of its games against the agent in the others),
    then measured exactly: in each seat, its win share against the agent less the agent's own there."""
    from open_spiel.python.algorithms import expected_game_score

    from training.config import load_config
    from training.exploit import YARDSTICK
    from training.games import training_game
    from training.hardware import torch_threads
    from training.ppo import new_learner, ppo_kwargs

    target = get_game(config.game.name).load_agent(spec, seed=config.seed)
    view = training_game(config.game.name).best_response_view(target)  # the trainers' own choice of view
    venv = config.game.learner_env(config.variant, config.players, view, config.seed, opponent=target)
    model = new_learner(venv, ppo_kwargs(load_config(YARDSTICK, config.yardstick_ppo).ppo), config.seed)
    with torch_threads(1):  # as the yardstick trains (training/hardware.py)
        model.learn(config.yardstick_steps)
    learner = network_policy(game, model.policy, view, config.game, best=True)
    gains = []
    for seat in range(config.players):
        seated = [learner if s == seat else profile for s in range(config.players)]
        gains.append(float(expected_game_score.policy_value(game.new_initial_state(), seated)[seat]) - values[seat])
    return tuple(gains)


TABULAR_EXPLORATION = (0.3, 0.02)
"""The tabular best response's epsilon: a random legal action this often, falling in a straight line over its games."""


def tabular_gains(game: Any, config: ExactConfig, spec: str, profile: Any, values: Sequence[float]) -> tuple[float, ...]:
    """A best response to `spec` that keeps one value per (observation, action), learned by every-visit
    Monte Carlo control with epsilon-greedy exploration on the yardstick's env and view for
    `tabular_episodes` games, then measured exactly as the yardstick's is: in each seat, its win share
    against the agent less the agent's own there. Its greedy action at an observation it never met is
    the first legal one."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import expected_game_score

    from training.games import training_game

    target = get_game(config.game.name).load_agent(spec, seed=config.seed)
    view = training_game(config.game.name).best_response_view(target)
    venv = config.game.learner_env(config.variant, config.players, view, config.seed, opponent=target)
    values_of: dict[bytes, np.ndarray] = {}
    visits: dict[bytes, np.ndarray] = {}
    rng = np.random.default_rng(config.seed)
    width = int(venv.action_space.n)
    observations, episodes = np.asarray(venv.reset(), dtype=np.float32), 0
    played: list[list[tuple[bytes, int]]] = [[] for _ in range(venv.num_envs)]
    high, low = TABULAR_EXPLORATION
    while episodes < config.tabular_episodes:
        epsilon = high + (low - high) * episodes / config.tabular_episodes
        masks = venv.action_masks()
        actions = np.empty(venv.num_envs, dtype=np.int64)
        for row in range(venv.num_envs):
            legal, key = np.flatnonzero(masks[row]), observations[row].tobytes()
            known = values_of.get(key)
            explore = known is None or rng.random() < epsilon
            actions[row] = rng.choice(legal) if explore else legal[int(np.argmax(known[legal]))]  # type: ignore[index]
            played[row].append((key, int(actions[row])))
        observations, rewards, dones, _ = venv.step(actions)
        observations = np.asarray(observations, dtype=np.float32)
        for ended in np.flatnonzero(dones).tolist():
            for key, action in played[ended]:  # every visit of the game is paid its end (gamma 1: the reward comes at the end)
                value, count = values_of.setdefault(key, np.zeros(width)), visits.setdefault(key, np.zeros(width))
                count[action] += 1
                value[action] += (rewards[ended] - value[action]) / count[action]
            played[ended], episodes = [], episodes + 1
    viewer = types.SimpleNamespace(view=view)

    class TabularPolicy(policy.Policy):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
            seen, mask = config.game.seen(state, viewer)
            legal = np.flatnonzero(mask)
            known = values_of.get(np.asarray(seen, dtype=np.float32).tobytes())
            return {int(legal[0] if known is None else legal[int(np.argmax(known[legal]))]): 1.0}

    learner = TabularPolicy(game, list(range(config.players)))
    gains = []
    for seat in range(config.players):
        seated = [learner if s == seat else profile for s in range(config.players)]
        gains.append(float(expected_game_score.policy_value(game.new_initial_state(), seated)[seat]) - values[seat])
    return tuple(gains)


SELFPLAY_SNAPSHOTS = 8  # the pool of past selves a run keeps, one every steps / 8, as a league's pool_size


def network_policy(game: Any, network: Any, view: str, exact_game: ExactGame, best: bool = False) -> Any:
    """A trained network as an OpenSpiel policy: its action distribution over the legal actions (a
    mixed strategy, as it plays in self-play), or with `best` its most likely action."""
    import torch
    from open_spiel.python import policy

    viewer = types.SimpleNamespace(view=view)  # what `seen` asks of an agent: the view it reads

    class NetworkPolicy(policy.Policy):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
            seen, mask = exact_game.seen(state, viewer)
            with torch.no_grad():
                observation, _ = network.obs_to_tensor(seen[None, :])
                chances = network.get_distribution(observation, action_masks=mask[None, :]).distribution.probs[0].numpy()
            legal = [int(a) for a in np.flatnonzero(mask)]
            if best:
                return {legal[int(np.argmax(chances[legal]))]: 1.0}
            return {a: float(chances[a]) for a in legal}

    return NetworkPolicy(game, list(range(game.num_players())))


def selfplay_policy(config: ExactConfig) -> tuple[Any, str, float, int]:
    """Teacher-free self-play PPO on the variant, the game's recipe's learner and view (configs/octopus-v2.yaml,
    configs/default.yaml without its privileged critic), a seat of each of its games against its past
    selves in the others (a snapshot every steps / SELFPLAY_SNAPSHOTS, the pool drawn uniformly, as a
    league's pool; a snapshot at least every rollout); returns the network, the view it plays from,
    the CPU seconds it took and the steps it trained (whole rollouts: at least `selfplay_steps`)."""
    import copy

    from miaui_env.core.policy import PolicyAgent
    from training.config import load_config
    from training.hardware import torch_threads
    from training.ppo import new_learner, ppo_kwargs

    recipe = load_config(config.game.selfplay_recipe, config.game.selfplay_overrides)
    venv = config.game.learner_env(config.variant, config.players, str(recipe.view), config.seed)
    start = time.process_time()
    with torch_threads(1):
        model = new_learner(venv, ppo_kwargs(recipe.ppo), config.seed)
        pool: list[Any] = []
        rollout = model.n_steps * venv.num_envs  # what one call to learn collects at the least
        chunk = max(rollout, config.selfplay_steps // SELFPLAY_SNAPSHOTS)
        for k in range(max(1, round(config.selfplay_steps / chunk))):
            frozen = type(model.policy)(model.observation_space, model.action_space, lambda _: 0.0, **model.policy_kwargs)
            frozen.load_state_dict(copy.deepcopy(model.policy.state_dict()))  # as training/opponents.py's pool
            frozen.set_training_mode(False)
            snapshot = PolicyAgent(frozen, f"self-{k}", view=recipe.view, deterministic=False, seed=config.seed + k)
            pool = [*pool, snapshot][-SELFPLAY_SNAPSHOTS:]
            config.game.seat_pool(venv, pool, config.seed + k)
            model.learn(chunk, reset_num_timesteps=False)
    return model.policy, str(recipe.view), time.process_time() - start, int(model.num_timesteps)


def measure(game: Any, name: str, profile: Any) -> Row:
    """NashConv and the seats' gains of `profile` (every seat), by exact best responses."""
    from open_spiel.python.algorithms import expected_game_score, exploitability

    start = time.process_time()
    result = exploitability.nash_conv(game, profile, return_only_nash_conv=False)
    gains = tuple(float(g) for g in result.player_improvements)
    values = expected_game_score.policy_value(game.new_initial_state(), [profile] * game.num_players())
    return Row(name, float(result.nash_conv), gains, tuple(float(v) for v in values), time.process_time() - start)


def mccfr_row(game: Any, seconds: float, seed: int, iterations: int = 0) -> tuple[Row, int]:
    """External-sampling MCCFR for `iterations` (or, with 0, `seconds` of CPU time), its average policy
    measured; and the iterations it ran."""
    from open_spiel.python.algorithms import external_sampling_mccfr

    np.random.seed(seed)  # OpenSpiel's MCCFR samples with numpy's global generator
    solver = external_sampling_mccfr.ExternalSamplingSolver(game, external_sampling_mccfr.AverageType.SIMPLE)
    start, done = time.process_time(), 0
    while (done < iterations) if iterations else (time.process_time() - start < seconds):
        solver.iteration()
        done += 1
    spent = time.process_time() - start
    row = measure(game, f"MCCFR ({done:,} iterations, {spent:.0f} s)", solver.average_policy())
    return row, done


def run(config: ExactConfig, out: Path | None) -> list[Row]:
    """Every agent's row, then MCCFR's; each printed as it is done, the table written to `out`."""
    if out is not None:
        check_writable(out)  # before any work, not after an hour of it
    game = spiel_game(config)
    rows = []
    agents = [load_exact_agent(config.game, spec) for spec in config.agents]  # every spec loaded (or refused) before any work
    games = {view: spiel_game(config, view) for view in {getattr(agent, "view", "table") for agent in agents}} | {"table": game}
    for spec, agent in zip(config.agents, agents, strict=True):
        seen_in = games[getattr(agent, "view", "table")]  # the same game, observed as the agent observes it
        profile = agent_policy(seen_in, agent, config.game)
        row = measure(seen_in, spec, profile)
        if config.yardstick_steps > 0:
            row = dataclasses.replace(row, trained_gains=trained_gains(game, config, spec, profile, row.values))
        if config.tabular_episodes > 0:
            row = dataclasses.replace(row, tabular_gains=tabular_gains(game, config, spec, profile, row.values))
        rows.append(row)
        print(_line(rows[-1]), flush=True)
    if config.mccfr_seconds > 0 or config.mccfr_iterations > 0:
        row, _ = mccfr_row(game, config.mccfr_seconds, config.seed, config.mccfr_iterations)
        rows.append(row)
        print(_line(row), flush=True)
    if config.selfplay_steps > 0:
        network, view, spent, steps = selfplay_policy(config)
        for best, how in ((False, "its action chances"), (True, "its most likely action")):
            name = f"self-play PPO ({steps:,} steps, {spent:.0f} s), {how}"
            profile = network_policy(game, network, view, config.game, best)
            rows.append(dataclasses.replace(measure(game, name, profile), seconds=spent))
            print(_line(rows[-1]), flush=True)
        row, _ = mccfr_row(game, spent, config.seed)  # the same CPU time
        rows.append(row)
        print(_line(row), flush=True)
    if out is not None:
        record = {"variant": describe(config), "players": config.players, "seed": config.seed, "rows": [vars(r) for r in rows]}
        atomic_write(out / "exact.json", json.dumps(record, indent=2, default=list) + "\n")
        atomic_write(out / "exact.md", table(config, rows))
    return rows


def _line(row: Row) -> str:
    gains = " ".join(f"{g:+.3f}" for g in row.gains)
    trained = "" if row.trained_gains is None else "  yardstick " + " ".join(f"{g:+.3f}" for g in row.trained_gains)
    found = "" if row.found is None else f" ({row.found:.0%} of the exact gain)"
    tabular = "" if row.tabular_gains is None else "  tabular " + " ".join(f"{g:+.3f}" for g in row.tabular_gains)
    tabular += "" if row.tabular_found is None else f" ({row.tabular_found:.0%})"
    return f"{row.name:40s} NashConv {row.nash_conv:.4f}  gains by seat {gains}{trained}{found}{tabular}  ({row.seconds:.0f} s)"


def table(config: ExactConfig, rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    seats = " | ".join(f"seat {s} gain" for s in range(config.players))
    learners = [(f"yardstick's gain ({config.yardstick_steps:,} steps)", "trained_gains")] if config.yardstick_steps > 0 else []
    learners += [(f"tabular gain ({config.tabular_episodes:,} games)", "tabular_gains")] if config.tabular_episodes > 0 else []
    extra = "".join(f" | {title} | share found" for title, _ in learners)
    lines = [f"{describe(config)}, {config.players} players{config.game.length}", "", f"| policy | NashConv | {seats}{extra} | seconds |"]
    lines.append("|---" * (3 + config.players + 2 * len(learners)) + "|")
    for row in rows:
        gains = " | ".join(f"{g:+.4f}" for g in row.gains)
        for _, field in learners:
            found_gains, share = getattr(row, field), row.share(getattr(row, field))
            mean = "n/a" if found_gains is None else f"{sum(found_gains) / len(found_gains):+.4f}"
            gains += f" | {mean} | " + ("n/a" if share is None else f"{share:.0%}")
        lines.append(f"| {row.name} | {row.nash_conv:.4f} | {gains} | {row.seconds:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """The command line: one variant, its agents and MCCFR."""
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=tuple(EXACT_GAMES), default="octopus", help="the game (default octopus)")
    octopus_options = parser.add_argument_group("the octopus game's small variant (OV1-OV3)")
    octopus_options.add_argument("--species", type=positive_int, help="species in play (1-10; default 2)")
    octopus_options.add_argument("--values", help="each species' fish values, as digits: a part of 112234 (default 12)")
    octopus_options.add_argument("--octopuses", type=non_negative_int, help="octopuses in play (0-6; default 1)")
    octopus_options.add_argument("--target", type=positive_int, help="the target (default 1: the game is one session long)")
    miaui_options = parser.add_argument_group("a short Miaui game (MV1-MV3)")
    miaui_options.add_argument("--rounds", type=positive_int, help="rounds, and diver cards 1..rounds in each hand (2-12; default 3)")
    miaui_options.add_argument("--deck", help=f'its 3 x rounds + 1 fish, kind:value[*count] (default "{MIAUI_DECK}")')
    miaui_options.add_argument("--no-fighting", action="store_true", default=None, help="the No Fighting variant (R8)")
    miaui_options.add_argument("--open-baskets", action="store_true", default=None, help="the Open Baskets variant (R11)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4, 5, 6), default=None, help="seats (default 2 octopus, 3 Miaui)")
    parser.add_argument("--agents", nargs="*", default=None, help="agent specs (default: the octopus game's five heuristics; Miaui's five)")
    parser.add_argument("--mccfr-seconds", type=float, default=60.0, help="CPU seconds of MCCFR (0: none)")
    parser.add_argument("--mccfr-iterations", type=non_negative_int, default=0, help="iterations of MCCFR instead (repeatable)")
    parser.add_argument(
        "--yardstick-steps", type=non_negative_int, default=0, help="train the yardstick's best response to each agent this long (0: none)"
    )
    parser.add_argument(
        "--tabular-episodes",
        type=non_negative_int,
        default=0,
        help="games of a tabular best response to each agent (Monte Carlo control in the yardstick's env; 0: none)",
    )
    parser.add_argument(
        "--yardstick-set", dest="yardstick_ppo", action="append", default=[], metavar="KEY=VALUE", help="a ppo.* setting of the yardstick's"
    )
    parser.add_argument(
        "--selfplay-steps", type=non_negative_int, default=0, help="train teacher-free self-play this long, then MCCFR as long (0: none)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for exact.json and exact.md (default results/exact/<variant>)")
    args = parser.parse_args(argv)
    game = EXACT_GAMES[args.game]
    for other in EXACT_GAMES.values():
        given = [f"--{name.replace('_', '-')}" for name in other.options if other is not game and getattr(args, name) is not None]
        if given:
            parser.error(f"{' '.join(given)}: {other.title}'s options, not --game {game.name}'s")
    registered = get_game(game.name)
    players = args.players or registered.min_players
    agents = tuple(args.agents if args.agents is not None else game.agents)
    distinct(parser, "--agents", agents)
    if not registered.min_players <= players <= registered.max_players:
        parser.error(f"--players {players}: {registered.title} seats {registered.min_players}-{registered.max_players}")
    if args.values is not None and not (args.values.isascii() and args.values.isdigit()):
        parser.error(f"--values {args.values!r}: fish values as digits, a part of 112234 (e.g. 12)")
    if not 0 <= args.mccfr_seconds <= 86_400:
        parser.error(f"--mccfr-seconds {args.mccfr_seconds}: from 0 to 86400")

    def exact() -> None:
        config = ExactConfig(
            game.variant(args, players),
            players=players,
            agents=agents,
            mccfr_seconds=args.mccfr_seconds,
            mccfr_iterations=args.mccfr_iterations,
            seed=args.seed,
            yardstick_steps=args.yardstick_steps,
            selfplay_steps=args.selfplay_steps,
            yardstick_ppo=tuple(args.yardstick_ppo),
            tabular_episodes=args.tabular_episodes,
        )
        run(config, args.out or Path("results") / "exact" / variant_name(config))

    run_command(parser.prog, exact)


if __name__ == "__main__":
    main()
