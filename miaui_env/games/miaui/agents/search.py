"""A search agent: regret matching over the round about to be played, in sampled worlds, scored by playouts.

At every decision `RegretMatchingSearchAgent`:

1. **samples worlds**: `worlds` whole games consistent with what its seat knows
   (`miaui_env.games.miaui.belief.SeatKnowledge`: perfect recall of its own observations, the unseen cards
   dealt from the deal's posterior). Every hand is known from the reveals; only fish are hidden.
2. **solves the round as a simultaneous-move game** by regret matching, one strategy per seat,
   its own and every opponent's, over the cards in that seat's hand, for `iterations` iterations
   of external sampling (Lanctot, Waugh, Zinkevich & Bowling 2009, "Monte Carlo sampling for
   regret minimization in extensive games"): in each world the seats' cards are drawn from their
   current strategies, then every seat tries every card of its hand against the others' draws, and
   each such joint play is resolved and **played out to the end of the game** on the batched
   engine by the `rollout` agent at every seat. A seat's regret for a card grows by how much more
   it scored (its `utility`) than its current strategy did (Hart & Mas-Colell 2000). Regrets start
   from the `prior` agent's play in the same worlds, worth `prior_weight` points (warm starting,
   Brown & Sandholm 2016, "Strategy-based warm starting for regret minimization in games"), so
   the search begins from a sensible model of every seat and moves where the playouts say to.
3. plays its **average strategy**, iterations weighted by their number (linear averaging, Brown &
   Sandholm 2019, "Solving imperfect-information games via discounted regret minimization"): a
   card drawn from it (`play="sample"`, the default: a mixed strategy is what a game of hidden
   simultaneous bids calls for) or its most likely card (`play="best"`).

It is Monte Carlo search over determinized worlds (Cowling, Powley & Whitehouse 2012) with a
regret-matching rule at the simultaneous decision, the family Lanctot, Lisy & Winands (2014, on
Goofspiel) found strongest and least exploitable. The `counter` heuristic is the default rollout
and prior; with a trained policy as the prior (`search+miaui-ppo-v0` as an agent spec) it is
"policy + search".

**Budget and cost.** A decision plays `worlds * iterations * seats * cards in hand` playouts, each
the rest of the game at every seat (the rollout agent's cost on top of the engine's). All the rows
of one call (the arena hands over all its games at once) share every engine step, in batches of up
to `max_games` playouts; README's "The search agent" gives the measured cost per decision.

**What it reads.** Only its own seat's observations, one per decision from round 1 on, in order
(the arena, the envs and human play give exactly those). Everything it remembers it remembered
from them; the worlds it searches are drawn from that memory and its own random generator. A
game it joins after round 1 it cannot know, so its prior agent plays that game's cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from miaui_env.core.agents import Agent, Policy, as_policy, check_agent, reset_agent
from miaui_env.core.errors import InvalidConfigError, check_reward, finite_real, is_integer
from miaui_env.core.seeding import check_seed, seed_children, seed_generator, seed_int
from miaui_env.games.miaui.agents import checked_batch
from miaui_env.games.miaui.belief import SeatKnowledge, observed_round
from miaui_env.games.miaui.observation import table_view
from miaui_env.games.miaui.rules import NUM_ROUNDS, GameConfig
from miaui_env.games.miaui.vector import EngineSnapshot, GameArrays, Reveal, VectorMiaui

PLAY_MODES = ("sample", "best")


def _draw(strategies: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """A card from each strategy (last axis) by inverse transform; a card of chance 0 is never drawn."""
    cumulative = np.cumsum(strategies, axis=-1)
    cumulative /= cumulative[..., -1:]  # exactly 1 from the last card with a chance on: rounding cannot reach past it
    return np.asarray((uniforms >= cumulative).sum(axis=-1))


def _repeated(snapshot: EngineSnapshot, games: int, times: int, size: int) -> EngineSnapshot:
    """A snapshot of `size` games: each of the first `games` of `snapshot` `times` times in a row,
    then copies of the first (padding). Cheaper than loading every copy."""

    def repeat(array: np.ndarray) -> np.ndarray:
        copies = np.repeat(array[:games], times, axis=0)
        return np.concatenate([copies, np.repeat(array[:1], size - len(copies), axis=0)])

    return EngineSnapshot(snapshot.round, GameArrays(*map(repeat, snapshot.game)), Reveal(*map(repeat, snapshot.reveal)), snapshot.config)


MAX_WORLDS = 1024  # 128 times the default: 73,728 playout games (about 2.5 GiB) for a 6-player round-1 decision


class RegretMatchingSearchAgent:
    """Regret-matching search over the current round in sampled worlds; see the module docstring.

    `utility` is what a playout pays each seat (a reward mode: "margin", own score less the best
    other's, gives the search the most signal per playout), `prior_weight` how many of its points
    the prior's card starts ahead with; `seed` seeds the worlds, the draws and the default rollout.
    """

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        worlds: int = 8,
        iterations: int = 2,
        rollout: Agent | Policy | None = None,
        prior: Agent | Policy | None = None,
        prior_weight: float = 10.0,
        play: str = "sample",
        utility: str = "margin",
        max_games: int = 4096,
    ):
        for label, value in (("worlds", worlds), ("iterations", iterations), ("max_games", max_games)):
            if not is_integer(value) or value < 1:
                raise InvalidConfigError(f"{label}={value!r} is not allowed; it must be an integer >= 1")
        if worlds > MAX_WORLDS:
            raise InvalidConfigError(
                f"worlds={worlds!r} is not allowed; it must be at most {MAX_WORLDS} (each world is played out at every seat "
                f"and card: at 6 players a round-1 decision holds worlds x 72 playout games at once)"
            )
        weight = finite_real(prior_weight)
        if weight is None or weight < 0:
            raise InvalidConfigError(f"prior_weight={prior_weight!r} is not allowed; it must be a finite number >= 0 (not a bool)")
        if play not in PLAY_MODES:
            raise InvalidConfigError(f"play={play!r} is not allowed; play modes are {', '.join(map(repr, PLAY_MODES))}")
        check_reward(utility)
        seed = check_seed(seed)
        own, rollout_seed = seed_children(seed, 2) if seed is not None else (None, None)
        self.rng = seed_generator(own)
        if rollout is None:
            from miaui_env.games.miaui.agents.heuristics import CountingAgent

            rollout = CountingAgent(None if rollout_seed is None else seed_int(rollout_seed))
        self.rollout = check_agent(rollout, "rollout")
        self.prior = self.rollout if prior is None else check_agent(prior, "prior")
        self.worlds, self.iterations = int(worlds), int(iterations)
        self.prior_weight = weight
        self.play, self.utility, self.max_games = play, utility, int(max_games)
        # The rollout plays from the recall view unless it says it plays from the table view: a
        # playout starts mid-game, and recall shows every card already played to an agent that
        # counts them (R11: recall only adds what was once public).
        self._views = {id(agent): getattr(agent, "view", "recall") for agent in (self.rollout, self.prior)}
        self._knowledge: list[SeatKnowledge] = []
        self._engines: dict[tuple[Any, ...], VectorMiaui] = {}

    def reset(self) -> None:
        """Forget every game (new games begin)."""
        self._knowledge = []

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A card for every row, chosen by search over worlds drawn from that row's game."""
        observations, masks = checked_batch(observations, masks, "the search agent")
        rows = observations.shape[0]
        if len(self._knowledge) != rows:
            self._knowledge = [SeatKnowledge() for _ in range(rows)]
        groups: dict[tuple[Any, ...], list[int]] = {}
        actions: np.ndarray = np.argmax(masks, axis=1)  # a finished game's row (no decision) keeps any legal card
        unfollowed = []
        for row in range(rows):
            knowledge, round_number = self._knowledge[row], observed_round(observations[row])
            if round_number == 0:
                continue
            if not knowledge.can_follow(round_number):
                unfollowed.append(row)
                continue
            knowledge.observe(observations[row])
            assert knowledge.state is not None
            config = knowledge.state.config
            groups.setdefault((config.num_players, config.open_baskets, config.no_fighting, knowledge.round), []).append(row)
        for (num_players, _, _, round_number), members in groups.items():
            branches = self.worlds * num_players * (NUM_ROUNDS + 1 - round_number)  # playout games per row
            chunk = max(1, self.max_games // branches)
            for start in range(0, len(members), chunk):
                part = members[start : start + chunk]
                actions[part] = self._search(part)
        if unfollowed:  # games it joined after round 1: it cannot know them, so its prior agent plays them
            actions[unfollowed] = as_policy(self.prior)(observations[unfollowed], masks[unfollowed])
        return actions

    # -- the search ---------------------------------------------------------------------------------
    def _search(self, rows: list[int]) -> np.ndarray:
        """The cards of a batch of rows whose games share a table and a round."""
        knowledge = [self._knowledge[row] for row in rows]
        worlds = [k.sample(self.rng).state for k in knowledge for _ in range(self.worlds)]
        config, k, w = worlds[0].config, len(rows), self.worlds
        n, m = config.num_players, int(worlds[0].hands[0].sum())  # every hand holds the same number of cards
        hands = np.stack([worlds[i * w].hands for i in range(k)]).astype(bool)  # (k, n, 12): every hand is known
        cards_in_hand = np.nonzero(hands)[2].reshape(k, n, m)  # each seat's cards, in order
        # Every (world, seat, card) branch is one game of the playout engine: (k, w, n, m) of them,
        # then copies of the first to fill the engine (its size is one of a few, built once). The
        # worlds are loaded once each and their arrays repeated for every branch.
        worlds_engine = self._engine(config, k * w)
        observations, masks = worlds_engine.load_states(worlds + worlds[:1] * (worlds_engine.num_envs - k * w))
        branches = k * w * n * m
        engine = self._engine(config, branches)
        start = _repeated(worlds_engine.snapshot(), k * w, n * m, engine.num_envs)
        # Warm start (Brown & Sandholm 2016): every seat's regrets begin as `prior_weight` times
        # the prior agent's play in these worlds, so regret matching starts from the prior's play
        # and the playouts move it where they show better cards.
        reset_agent(self.prior)  # its games start anew, mid-game (it plays from the recall view)
        prior = self._cards(self.prior, observations[: k * w], masks[: k * w]).reshape(k, w, n, 1) == cards_in_hand[:, None]
        regrets = self.prior_weight * prior.mean(axis=1)  # (k, n, m)
        strategy_sum = np.zeros((k, n, m))
        seat_index, card_index = np.arange(n)[:, None], np.arange(m)[None, :]
        for iteration in range(self.iterations):
            positive = np.maximum(regrets, 0.0)
            total = positive.sum(axis=2, keepdims=True)
            strategy = np.where(total > 0, positive / np.where(total > 0, total, 1.0), 1.0 / m)
            strategy_sum += (iteration + 1) * strategy  # linear averaging: later, better-informed iterations count more
            # External sampling: the other seats' cards drawn from their strategies, one joint
            # play per world; each seat then tries every card of its hand against it.
            drawn = np.take_along_axis(cards_in_hand[:, None], _draw(strategy[:, None], self.rng.random((k, w, n, 1)))[..., None], axis=3)
            joint = np.broadcast_to(drawn[..., 0][:, :, None, None, :], (k, w, n, m, n)).copy()
            joint[:, :, seat_index, card_index, seat_index] = cards_in_hand[:, None]
            engine.restore(start, observe=False)  # the first step plays the drawn cards and writes the observations
            padded = np.concatenate([joint.reshape(-1, n), np.broadcast_to(joint.reshape(-1, n)[:1], (engine.num_envs - branches, n))])
            payoff = self._playout(engine, padded)[:branches].reshape(k, w, n, m, n)
            values = payoff[:, :, seat_index, card_index, seat_index].mean(axis=1)  # (k, n, m): each seat's own payoff
            regrets += values - (strategy * values).sum(axis=2, keepdims=True)
        seats = np.array([seat_knowledge.seat for seat_knowledge in knowledge])
        average = strategy_sum[np.arange(k), seats]
        average /= average.sum(axis=1, keepdims=True)
        own_cards = cards_in_hand[np.arange(k), seats]
        choice = np.argmax(average, axis=1) if self.play == "best" else _draw(average, self.rng.random((k, 1)))
        chosen: np.ndarray = own_cards[np.arange(k), choice]
        return chosen

    def _cards(self, agent: Agent | Policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """`agent`'s cards (games * n,) for the engine's recall-view observations (games, n, D) and masks."""
        games, n = masks.shape[:2]
        seen = observations.reshape(games * n, -1)
        if self._views[id(agent)] == "table":
            seen = table_view(seen)
        return np.asarray(as_policy(agent)(seen, masks.reshape(games * n, -1)))

    def _playout(self, engine: VectorMiaui, first_cards: np.ndarray) -> np.ndarray:
        """Play the round with `first_cards` (games, n), then the rollout agent at every seat to the end; final payoffs."""
        obs, masks, rewards, dones, _ = engine.step(first_cards)
        reset_agent(self.rollout)  # a rollout's games start anew each playout
        while not dones.all():
            obs, masks, rewards, dones, _ = engine.step(self._cards(self.rollout, obs, masks).reshape(first_cards.shape))
        return np.asarray(rewards, dtype=np.float64)

    def _engine(self, config: GameConfig, games: int) -> VectorMiaui:
        """A batched engine for at least `games` playouts of this table: the smallest power of two
        from 256 up to `max_games` that holds them, built once and kept."""
        size = min(max(256, 1 << (games - 1).bit_length()), max(self.max_games, games))
        key = (config.num_players, config.open_baskets, config.no_fighting, size)
        if key not in self._engines:
            self._engines[key] = VectorMiaui(
                size,
                seed=0,
                num_players=config.num_players,
                open_baskets=config.open_baskets,
                no_fighting=config.no_fighting,
                view="recall",
                reward=self.utility,
            )
        return self._engines[key]
