"""Both games as OpenSpiel games: `pyspiel.load_game("python_miaui", {...})` and `"python_octopus"`.

    import pyspiel
    import miaui_env.integrations.openspiel  # registers both games with OpenSpiel

    game = pyspiel.load_game("python_miaui", {"players": 4, "view": "recall"})
    octopus = pyspiel.load_game("python_octopus", {"players": 3})
    turn_based = pyspiel.convert_to_turn_based(game)  # for algorithms that need sequential games

Needs the `openspiel` extra (`pip install "miaui-rl[openspiel]"`). Both games are Python games
(Lanctot et al. 2019, "OpenSpiel: a framework for reinforcement learning in games"), played by the
project's own reference rules, so OpenSpiel's algorithms (CFR and MCCFR, NFSP, PSRO, exact best
responses and NashConv where a tree is small enough) run on exactly the game the envs play.

**Miaui** (`python_miaui`) is a simultaneous-move game with explicit chance nodes. Parameters:
`players` (3-6, default 4), `open_baskets`, `no_fighting` (the variants, default false), `view`
("table" or "recall", what the observation shows; default "table"), `reward` ("win", "score"
or "margin"; default "win", a constant-sum game whose winners share 1), and `rounds` (2-12) with
`deck` (a deck list of 3 x rounds + 1 fish, `parse_deck`'s cards separated by spaces; "" is the
37-card deck) for a short game (MV1-MV2), small enough for exact best responses.

- Chance deals the fish one card at a time, each outcome a deck index (0-36, `GameConfig.deck`;
  identical cards are one outcome, the first undealt one standing for them all):
  first the card put back in the box unseen (R3, uniform over the 37), then the three cards of
  round 1, each uniform over the undealt cards that are not Seagulls (R4: a Seagull drawn in round
  1 is replaced and shuffled back, so the card that lands is uniform over the remaining non-Seagulls
  and the rest of the deck stays uniformly shuffled), then after each round's joint play the three
  cards of the next round, bottom space first, each uniform over the undealt cards. These are the
  probabilities of the envs' shuffle (the envs' bound on reinserted Seagulls, one deal in about
  10^11, is the one difference).
- Each player's action is a diver card: action `a` plays card `a + 1`, as in the envs. The cards are
  revealed after the next round's fish are dealt and the round is resolved (R7-R9) with the next
  round's restock (R4/R5); round 12's play is forced (R6), so a game has 11 joint moves (a short
  game, rounds - 1).
- Returns are the envs' final rewards (R10); nothing is paid before the end.
- The observation tensor and string are the envs' observation in `view` (R11) and its words
  (`describe_observation`): the same vector the AEC env gives the seat on the same deal.
- The information state is perfect recall: its tensor stacks the seat's table-view observation of
  every round so far (11 rows of 620, a short game's rounds - 1; later rows zero), its string lists,
  round by round, the lagoon as the seat saw it (a face-down card it did not peek is `?`, R5) and
  every public reveal, then its own card while the round's fish are dealt (chosen, not yet
  revealed).

**The octopus game** (`python_octopus`) is a sequential game with explicit chance nodes.
Parameters: `players` (2-4, default 2), `view`, `reward` and `max_sessions` (O12's cap, default
30 as in the env; a capped game is paid from the totals then, as the env pays it).

- Chance flips each card (an outcome is a card id 0-65, uniform over the cards not yet flipped in
  the session: the shuffle of O2 dealt one card at a time), rolls the die (outcomes 66-69 for the
  faces -1, 1, 2, 3, with chances 1/6, 2/6, 1/6, 2/6, O1) and draws the cards a theft moves (one
  card at a time, an outcome the card id, uniform over the cards left in the collection, O5).
- A player's action is the env's action index (`miaui_env.games.octopus.rules.NUM_ACTIONS` = 12: stop,
  flip, no theft, then thefts by seat offset and count). Forced moves are the engine's (O10).
- Returns are the env's final rewards.
- The observation tensor is the env's observation in `view` (O4). Every card that moves is shown to
  everyone (O4), so a seat's information state is the public record: the string is the game's
  event log (and the seat's own decision while chance plays it out); the tensor is the recall
  view, which holds every card ever shown but not the order of past turns (tabular algorithms key
  on the string).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from miaui_env.core.errors import DeckError, InvalidConfigError, final_rewards, is_integer
from miaui_env.games.miaui.cards import DEFAULT_DECK, FishKind, parse_deck
from miaui_env.games.miaui.display.text import describe_observation
from miaui_env.games.miaui.encoder import Encoder
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import (
    MIN_ROUNDS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    GameConfig,
    GameState,
    LagoonCard,
    RoundRecord,
    check_plays,
    new_hands,
    play_checked_round,
    scores,
)
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.octopus import observation as octopus_observation
from miaui_env.games.octopus import rules as octopus

MIAUI_GAME = "python_miaui"
OCTOPUS_GAME = "python_octopus"
DECISION_ROUNDS = NUM_ROUNDS - 1  # round 12's card is forced (R6)
MIAUI_PARAMETERS = {
    "players": 4,
    "open_baskets": False,
    "no_fighting": False,
    "view": "table",
    "reward": "win",
    "rounds": NUM_ROUNDS,
    "deck": "",
}
"""Miaui's parameters and defaults: the full game; `rounds` below 12 and `deck` (a deck list,
`parse_deck`: "" is the 37-card deck of R2) make a short game (MV1-MV2)."""
OCTOPUS_PARAMETERS = {
    "players": 2,
    "view": "table",
    "reward": "win",
    "max_sessions": 30,
    "species": octopus.NUM_SPECIES,
    "values": int("".join(map(str, octopus.FISH_VALUES))),
    "octopuses": octopus.NUM_OCTOPUSES,
    "target": octopus.TARGET,
}
"""The octopus game's parameters and defaults: the full game; `species`, `values` (the values' digits
as one integer, a part of 112234: 12 keeps a 1 and a 2 of each species; a game's string holds no
lists), `octopuses` and `target` make a small variant (rules.Variant, OV1-OV3)."""
DIE_OUTCOMES = (-1, 1, 2, 3)  # O1's faces; chance action NUM_CARDS + i rolls DIE_OUTCOMES[i]
DIE_CHANCES = tuple(octopus.DIE_FACES.count(face) / len(octopus.DIE_FACES) for face in DIE_OUTCOMES)


class OpenSpielError(InvalidConfigError):
    """A parameter, observer or chance outcome the OpenSpiel games do not have or cannot take."""


def _settings(params: object, defaults: dict[str, Any], game: str) -> dict[str, Any]:
    if params is not None and not isinstance(params, Mapping):
        raise OpenSpielError(f"{game}'s parameters are a dict of {', '.join(defaults)}; got {params!r:.60}")
    given = dict(params or {})
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise OpenSpielError(f"{game} has no parameter(s) {', '.join(unknown)}; its parameters are {', '.join(defaults)}")
    return {**defaults, **given}


def check_player(player: object, players: int, game: str) -> int:
    """`player` as a seat of a `players`-seat table; OpenSpielError naming the seats otherwise."""
    if not is_integer(player) or not 0 <= player < players:
        raise OpenSpielError(f"player {player!r:.40} is not a seat of this {game} table; seats are 0-{players - 1}")
    return int(player)


def checked_legal_actions(state: Any, player: Any, players: int, game: str) -> list[int]:
    """`pyspiel.State.legal_actions(player)` for a seat of the table or chance; OpenSpielError naming
    the seats for any other player (OpenSpiel answers [] without asking the game)."""
    if player is None:
        return list(pyspiel.State.legal_actions(state))
    if player != int(pyspiel.PlayerId.CHANCE):
        check_player(player, players, game)
    return list(pyspiel.State.legal_actions(state, int(player)))


def _game_type(
    short_name: str, long_name: str, dynamics: Any, utility: Any, players: tuple[int, int], parameters: dict[str, Any]
) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        min_num_players=players[0],
        max_num_players=players[1],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def _utility(reward: str) -> Any:
    """Winners share 1 (R10, O9): a constant-sum game; a score or a margin is general-sum."""
    return pyspiel.GameType.Utility.CONSTANT_SUM if reward == "win" else pyspiel.GameType.Utility.GENERAL_SUM


def _grouped(candidates: Sequence[int], name_of: Any) -> list[tuple[int, float]]:
    """Equally likely candidates as outcomes, cards of one name merged: the first of each name stands
    for them all, with their summed chance (identical cards play alike; an outcome's string is unique)."""
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    for card in candidates:
        name = name_of(card)
        first.setdefault(name, int(card))
        count[name] = count.get(name, 0) + 1
    return [(first[name], count[name] / len(candidates)) for name in first]


def _check_observer(iig_obs_type: Any, params: Any, game: str) -> bool:
    """Whether the observer asked for is the information state (else the observation); refuses the rest."""
    if not isinstance(iig_obs_type, pyspiel.IIGObservationType):
        raise OpenSpielError(f"{game}'s observer takes a pyspiel.IIGObservationType or None, got {iig_obs_type!r:.60}")
    if params:
        raise OpenSpielError(f"{game}'s observers take no parameters, got {params!r:.80}")
    if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
        raise OpenSpielError(
            f"{game} observes for one player, public and private information together "
            "(IIGObservationType(perfect_recall=...)); public-only and all-player observers are not provided"
        )
    return bool(iig_obs_type.perfect_recall)


def _observed_seat(state: object, kind: type, player: object, players: int, game: str) -> int:
    """`player` as a seat of `state`, which an observer of `game` reads only if it is a `kind`; OpenSpielError otherwise."""
    if not isinstance(state, kind):
        raise OpenSpielError(f"a {game} observer reads {game} states, got {type(state).__name__}")
    return check_player(player, players, game)


# ---- Miaui ------------------------------------------------------------------------------------


def _miaui_utility_bounds(reward: str, config: GameConfig) -> tuple[float, float]:
    """The lowest and highest return `reward` pays (R9: a pile never keeps three Jellyfish)."""
    if reward == "win":
        return 0.0, 1.0
    values = sorted(card.value for card in config.deck)
    lowest = sum(v for v in values[:2] if v < 0)  # R9: a third Jellyfish sends all three to the box
    highest = sum(v for v in values if v > 0)
    if reward == "score":
        return float(lowest), float(highest)
    return float(lowest - highest), float(highest - lowest)


class MiauiGame(pyspiel.Game):  # type: ignore[misc]
    """Miaui for OpenSpiel; the module docstring says how it is dealt, played and observed."""

    def __init__(self, params: dict[str, Any] | None = None):
        settings = _settings(params, MIAUI_PARAMETERS, MIAUI_GAME)
        self.table_spec = TableSpec.of(
            num_players=settings["players"],
            open_baskets=settings["open_baskets"],
            no_fighting=settings["no_fighting"],
            view=settings["view"],
            reward=settings["reward"],
        )
        self.config = _short_game(self.table_spec.game, settings["rounds"], settings["deck"])
        self.decisions = self.config.rounds - 1  # the last round's card is forced (R6)
        low, high = _miaui_utility_bounds(self.table_spec.reward, self.config)
        super().__init__(
            _game_type(
                MIAUI_GAME,
                MIAUI_LONG_NAME,
                pyspiel.GameType.Dynamics.SIMULTANEOUS,
                _utility(self.table_spec.reward),
                (3, 6),
                MIAUI_PARAMETERS,
            ),
            pyspiel.GameInfo(
                num_distinct_actions=NUM_DIVER_CARDS,
                max_chance_outcomes=len(self.config.deck),
                num_players=self.config.num_players,
                min_utility=low,
                max_utility=high,
                utility_sum=1.0 if self.table_spec.reward == "win" else None,
                max_game_length=self.decisions,
            ),
            settings,
        )
        # One encoder each for every state of this game: a state refreshes it with its own game
        # before each read, so reads are correct one at a time (not from several threads at once).
        self.encoder = Encoder(self.config, self.table_spec.view)
        self.table_encoder = Encoder(self.config, "table")  # the rounds of the information state
        self.seagulls = np.array([card.kind is FishKind.SEAGULL for card in self.config.deck])

    def new_initial_state(self) -> MiauiState:
        """The state before the deal: a chance node for the card put back unseen (R3)."""
        return MiauiState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> MiauiObserver:
        """The env's observation, or with `perfect_recall` the information state."""
        return MiauiObserver(self, pyspiel.IIGObservationType(perfect_recall=False) if iig_obs_type is None else iig_obs_type, params)


MIAUI_LONG_NAME = "Miaui (Miaui RL's reference rules)"


def _short_game(full: GameConfig, rounds: object, deck_list: object) -> GameConfig:
    """The table's game with `rounds` and the deck `deck_list` names ("": R2's deck), checked (MV1-MV2)."""
    if not isinstance(deck_list, str):
        raise OpenSpielError(f'{MIAUI_GAME}\'s deck is a deck list (cards kind:value[*count]) or "", got {deck_list!r:.60}')
    if "," in deck_list or "=" in deck_list or "(" in deck_list or ")" in deck_list:
        # a game's string, name(key=value,...), must load again: OpenSpiel splits it at these
        raise OpenSpielError(f"{MIAUI_GAME}'s deck {deck_list!r:.60}: separate its cards by spaces (no commas, '=' or brackets)")
    if not deck_list.strip() and rounds in range(MIN_ROUNDS, NUM_ROUNDS):  # (rounds outside 2-12: GameConfig names them)
        example = "emperor_tuna:10*6 jellyfish:-10*4"
        raise OpenSpielError(f"a short game of {rounds!r:.20} rounds needs a deck of its own (MV2): the deck parameter, e.g. {example!r}")
    try:
        deck = parse_deck(deck_list) if deck_list.strip() else DEFAULT_DECK
    except DeckError as error:
        raise OpenSpielError(f"{MIAUI_GAME}'s deck: {error}") from None
    return GameConfig(full.num_players, full.open_baskets, full.no_fighting, deck, rounds)  # type: ignore[arg-type]


class MiauiState(pyspiel.State):  # type: ignore[misc]
    """One Miaui game being dealt and played; the rules' `GameState` is made once round 1 is dealt."""

    def __init__(self, game: MiauiGame):
        super().__init__(game)
        self._config, self._reward = game.config, game.table_spec.reward
        self._undealt = np.ones(len(self._config.deck), dtype=bool)
        self._round_one: list[int] = []  # the put-back card, then round 1's three (R3/R4)
        self.game: GameState | None = None  # the rules' state, once round 1 is dealt
        self._pending: tuple[int, ...] | None = None  # a joint play waiting for the next round's fish
        self._incoming: list[int] = []  # the next round's fish dealt so far, bottom space first
        self._seen: list[np.ndarray] = []  # per round played, every seat's table-view observation then
        self._lagoons: list[list[str]] = []  # per round played, every seat's lagoon as it saw it (R5)

    # -- the pyspiel.State interface ---------------------------------------------------------------
    def current_player(self) -> int:
        """Chance while fish are dealt, everyone at once while a round is chosen, then terminal."""
        if self.game is None or self._pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def legal_actions(self, player: Any = None) -> list[int]:
        """The legal actions of the player to move, or of `player` (a seat, or chance); OpenSpielError for another player."""
        return checked_legal_actions(self, player, self._config.num_players, MIAUI_GAME)

    def _legal_actions(self, player: int) -> list[int]:
        if player == int(pyspiel.PlayerId.SIMULTANEOUS):
            n = self._config.num_players
            raise OpenSpielError(f"every seat chooses at once here: legal_actions(seat) for seats 0-{n - 1}, then apply_actions")
        seat = check_player(player, self._config.num_players, MIAUI_GAME)
        if self.game is None or self._pending is not None or self.game.is_over:
            return []
        return [int(a) for a in np.flatnonzero(self.game.hands[seat])]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The fish the next card may be (a deck index for each), as likely as the undealt cards make them (R3/R4)."""
        if self.game is None and len(self._round_one) == 0:
            candidates = np.flatnonzero(self._undealt)  # the put-back card
        elif self.game is None:
            candidates = np.flatnonzero(self._undealt & ~self.current_game().seagulls)  # R4: round 1 skips Seagulls
        elif self._pending is not None:
            candidates = np.flatnonzero(self._undealt)
        else:
            return []
        deck = self._config.deck
        return _grouped(candidates.tolist(), lambda card: str(deck[card]))

    def _apply_action(self, action: int) -> None:
        if not self.is_chance_node():
            raise OpenSpielError(
                f"apply_action({action!r}) is not allowed now: the seats choose together, apply_actions([a card per seat])"
            )
        if action not in {card for card, _ in self.chance_outcomes()}:
            allowed = [card for card, _ in self.chance_outcomes()]
            raise OpenSpielError(f"chance outcome {action!r} is not a fish that can be dealt now; allowed deck indices: {allowed}")
        self._undealt[action] = False
        if self.game is None:
            self._round_one.append(int(action))
            if len(self._round_one) == 1 + 3:
                self._start(self._round_one[0], self._round_one[1:])
            return
        self._incoming.append(int(action))
        if len(self._incoming) == 3:
            assert self._pending is not None
            self.game.deck = self._incoming
            play_checked_round(self.game, self._pending)  # the restock takes the three just dealt (R4/R5)
            self._pending, self._incoming = None, []
            if not self.game.is_over:
                self._note_round()

    def _apply_actions(self, actions: Sequence[int]) -> None:
        if self.current_player() != pyspiel.PlayerId.SIMULTANEOUS:
            where = "the game is over" if self.is_terminal() else "chance is dealing fish: apply_action(one of chance_outcomes())"
            raise OpenSpielError(f"apply_actions({list(actions)!r:.60}) is not allowed now: {where}")
        assert self.game is not None
        for seat, action in enumerate(actions):
            if isinstance(action, (int, np.integer)) and not 0 <= action < self._config.rounds:
                last = self._config.rounds - 1  # 11, or a short game's rounds - 1 (MV1)
                raise OpenSpielError(f"seat {seat}'s action {action} is no diver card; actions are 0-{last} (card a + 1)")
        self._pending = check_plays(self.game, [int(a) + 1 for a in actions])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < len(self._config.deck):
                raise OpenSpielError(f"chance outcome {action!r} is no fish; outcomes are the deck indices 0-{len(self._config.deck) - 1}")
            return f"deal {self._config.deck[action]}"
        check_player(player, self._config.num_players, MIAUI_GAME)
        if not 0 <= action < NUM_DIVER_CARDS:
            raise OpenSpielError(f"action {action!r} is no diver card; actions are 0-{NUM_DIVER_CARDS - 1} (card a + 1)")
        return f"play diver card {action + 1}"

    def is_terminal(self) -> bool:
        """Whether the last round (12, or a short game's) has been resolved."""
        return self.game is not None and self.game.is_over

    def returns(self) -> list[float]:
        """The envs' final rewards (R10), zeros before the end."""
        if not self.is_terminal():
            return [0.0] * self._config.num_players
        assert self.game is not None
        return [float(r) for r in final_rewards(np.array(scores(self.game)), self._reward)]

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: {', '.join(str(self._config.deck[c]) for c in self._round_one)}"
        lagoon = "; ".join(",".join(str(self._config.deck[lc.card]) for lc in space) or "-" for space in self.game.lagoon)
        piles = "; ".join(",".join(str(self._config.deck[c]) for c in pile) or "-" for pile in self.game.piles)
        return f"round {self.game.round}; lagoon {lagoon}; piles {piles}; scores {list(scores(self.game))}"

    # -- what the seats see -------------------------------------------------------------------------
    def current_game(self) -> MiauiGame:
        """The MiauiGame this state belongs to."""
        game: MiauiGame = self.get_game()
        return game

    def _start(self, put_back: int, first_round: list[int]) -> None:
        n = self._config.num_players
        self.game = GameState(
            config=self._config,
            round=1,
            deck=[],
            put_back=put_back,
            lagoon=[[LagoonCard(card)] for card in first_round],
            hands=new_hands(self._config),
            piles=[[] for _ in range(n)],
            played=[[] for _ in range(n)],
        )
        self._note_round()

    def _note_round(self) -> None:
        """Keep what every seat sees as a round begins: its perfect-recall record."""
        assert self.game is not None
        encoder = self.current_game().table_encoder
        encoder.refresh(self.game, new_game=True)
        self._seen.append(np.stack([encoder.observe(seat) for seat in range(self._config.num_players)]))
        deck = self._config.deck
        self._lagoons.append(
            [
                " / ".join(
                    ",".join(str(deck[lc.card]) if lc.peeker in (None, seat) else "?" for lc in space) or "-" for space in self.game.lagoon
                )
                for seat in range(self._config.num_players)
            ]
        )

    def seat_observation(self, seat: int) -> np.ndarray:
        """What the AEC env shows `seat` now in the game's view (zeros while round 1 is dealt)."""
        if self.game is None:
            return np.zeros(OBSERVATION_LAYOUT.size, dtype=np.float32)
        encoder = self.current_game().encoder
        encoder.refresh(self.game, new_game=True)
        return encoder.observe(seat)

    def seat_information_rows(self, seat: int) -> np.ndarray:
        """(decisions, 620): `seat`'s table-view observation as each round began, later rows zero
        (11 rows; a short game's rounds - 1)."""
        decisions = self.current_game().decisions
        rows = np.zeros((decisions, OBSERVATION_LAYOUT.size), dtype=np.float32)
        for k, seen in enumerate(self._seen[:decisions]):
            rows[k] = seen[seat]
        return rows

    def seat_information(self, seat: int) -> str:
        """`seat`'s perfect-recall record: round by round, the lagoon as it saw it and the reveal."""
        lines = [f"player_{seat}"]
        history = [] if self.game is None else self.game.history
        for k, lagoons in enumerate(self._lagoons):
            lines.append(f"round {k + 1}: hand {_hand_text(self._seen[k][seat])}; lagoon {lagoons[seat]}")
            if k < len(history):
                lines.append(_reveal_text(history[k]))
        lines.extend(_reveal_text(record) for record in history[len(self._lagoons) :])  # the last round, forced
        if self._pending is not None:  # chosen, not yet revealed: the seat knows its own card only
            lines.append(f"  you chose diver card {self._pending[seat]}")
        return "\n".join(lines)


def _hand_text(observation: np.ndarray) -> str:
    hand = OBSERVATION_LAYOUT.view(observation, "hand")
    return " ".join(str(card + 1) for card in np.flatnonzero(hand))


def _reveal_text(record: RoundRecord) -> str:
    """A round's reveal, all public (R6, R7, R9)."""
    depths = "; ".join(
        f"{result.depth.name.lower()}: "
        + ("nobody" if result.winner is None else f"player_{result.winner} caught {','.join(map(str, result.fish)) or '-'}")
        for result in record.depths
    )
    events = "".join(f"; {event}" for event in record.events)
    return f"  plays {list(record.plays)}; {depths}{events}"


class MiauiObserver:
    """OpenSpiel's PyObserver for Miaui: the env's observation, or the perfect-recall information state."""

    def __init__(self, game: MiauiGame, iig_obs_type: Any, params: Any):
        self.num_players = game.config.num_players
        self.perfect_recall = _check_observer(iig_obs_type, params, MIAUI_GAME)
        if self.perfect_recall:
            self.tensor = np.zeros(game.decisions * OBSERVATION_LAYOUT.size, np.float32)
            self.dict: dict[str, np.ndarray] = {"rounds": self.tensor.reshape(game.decisions, OBSERVATION_LAYOUT.size)}
        else:
            self.tensor = np.zeros(OBSERVATION_LAYOUT.size, np.float32)
            self.dict = {"observation": self.tensor}

    def _check(self, state: object, player: object) -> int:
        return _observed_seat(state, MiauiState, player, self.num_players, MIAUI_GAME)

    def set_from(self, state: MiauiState, player: int) -> None:
        """Write `player`'s view of `state` into `tensor`."""
        player = self._check(state, player)
        if self.perfect_recall:
            self.dict["rounds"][:] = state.seat_information_rows(player)
        else:
            self.tensor[:] = state.seat_observation(player)

    def string_from(self, state: MiauiState, player: int) -> str:
        """`player`'s view of `state` in words."""
        player = self._check(state, player)
        if self.perfect_recall:
            return state.seat_information(player)
        if state.game is None:
            return f"player_{player}: the fish are being dealt"
        return describe_observation(state.seat_observation(player), player, self.num_players)


# ---- the octopus game ---------------------------------------------------------------------------


class _ChanceUndecidedError(Exception):
    """Raised inside an engine step at a die roll or a theft's draw that chance has not decided yet."""


class _ScriptedChance:
    """The generator an engine step sees while the bridge replays it: the die faces and theft draws
    chance has decided, in order; anything further stops the step (`_ChanceUndecidedError`)."""

    def __init__(self, dice: list[int], draws: list[tuple[int, ...]]):
        self.dice, self.draws = list(dice), list(draws)

    def random(self, size: int | None = None) -> Any:
        """A die roll (no size) or a theft's draw of `size` cards, as the engine reads them (O11)."""
        if size is None:
            if not self.dice:
                raise _ChanceUndecidedError
            return (octopus.DIE_FACES.index(self.dice.pop(0)) + 0.5) / len(octopus.DIE_FACES)
        if not self.draws:
            raise _ChanceUndecidedError
        uniforms = np.ones(size)
        uniforms[list(self.draws.pop(0))] = 0.0  # the stable argsort puts the drawn positions first
        return uniforms


class OctopusChance(NamedTuple):
    """The chance node a state is at: what is decided and among which outcomes."""

    kind: str  # "flip", "next_session_flip", "die" or "draw"
    outcomes: tuple[int, ...]  # card ids for flips and draws; die outcomes are NUM_CARDS + index
    source: int = -1  # a draw: the seat whose collection it takes from
    draw_size: int = 0  # a draw: how many cards it takes


class OctopusSettings(NamedTuple):
    """One octopus table's parameters, as every state keeps its own copy (a copied state needs no game object)."""

    players: int
    view: str
    reward: str
    max_sessions: int
    variant: octopus.Variant


def _variant(settings: Mapping[str, Any]) -> octopus.Variant:
    """The rules.Variant the parameters name; OpenSpielError naming the parameter otherwise."""
    given = settings["values"]
    if isinstance(given, bool) or not isinstance(given, int) or given <= 0:
        raise OpenSpielError(
            f"values={given!r:.40} is not allowed; it is the fish values' digits as one integer, a part of 112234 (e.g. 12)"
        )
    values = tuple(int(v) for v in str(given))
    try:
        return octopus.Variant(settings["species"], values, settings["octopuses"], settings["target"])
    except octopus.InvalidConfigError as error:
        raise OpenSpielError(str(error)) from None


class OctopusGame(pyspiel.Game):  # type: ignore[misc]
    """The octopus fishing game for OpenSpiel; the module docstring says how it is played and observed."""

    def __init__(self, params: dict[str, Any] | None = None):
        settings = _settings(params, OCTOPUS_PARAMETERS, OCTOPUS_GAME)
        players, view, reward, cap = (settings[k] for k in ("players", "view", "reward", "max_sessions"))
        if isinstance(players, bool) or not isinstance(players, int) or not octopus.MIN_PLAYERS <= players <= octopus.MAX_PLAYERS:
            raise OpenSpielError(f"players={players!r} is not allowed; the octopus game is played by 2, 3 or 4 players (O1)")
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise OpenSpielError(f"max_sessions={cap!r} is not allowed; it is an integer >= 1 (O12's cap)")
        octopus_observation.check_view(view)
        if reward not in ("win", "score", "margin"):
            raise OpenSpielError(f"reward={reward!r} is not allowed; rewards are 'win', 'score', 'margin'")
        variant = _variant(settings)
        self.settings = OctopusSettings(players, view, reward, cap, variant)
        top = cap * variant.species * max(variant.values)  # every session's best possible score
        low, high = {"win": (0.0, 1.0), "score": (0.0, float(top)), "margin": (float(-top), float(top))}[reward]
        super().__init__(
            _game_type(OCTOPUS_GAME, OCTOPUS_LONG_NAME, pyspiel.GameType.Dynamics.SEQUENTIAL, _utility(reward), (2, 4), OCTOPUS_PARAMETERS),
            pyspiel.GameInfo(
                num_distinct_actions=octopus.NUM_ACTIONS,
                max_chance_outcomes=octopus.NUM_CARDS + len(DIE_OUTCOMES),
                num_players=players,
                min_utility=low,
                max_utility=high,
                utility_sum=1.0 if reward == "win" else None,
                max_game_length=cap * len(variant.cards),  # at most one decision a flip
            ),
            settings,
        )

    def new_initial_state(self) -> OctopusSpielState:
        """The state before session 1's first flip: a chance node (O2, O3)."""
        return OctopusSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> OctopusObserver:
        """The env's observation, or with `perfect_recall` the information state."""
        return OctopusObserver(self, pyspiel.IIGObservationType(perfect_recall=False) if iig_obs_type is None else iig_obs_type, params)


OCTOPUS_LONG_NAME = "The octopus fishing game (Miaui RL's reference rules)"


class OctopusSpielState(pyspiel.State):  # type: ignore[misc]
    """One octopus game. The engine (`miaui_env.games.octopus.rules`) plays every move; chance's outcomes
    are handed to it by replaying the step from the last decision with the outcomes decided so far
    (the deck stacked, the die and the draws scripted) until the step reaches the next decision."""

    def __init__(self, game: OctopusGame):
        super().__init__(game)
        self.settings: OctopusSettings = game.settings
        self.state: octopus.OctopusState | None = None  # the engine at the last decision (None before the first)
        self._decision: octopus.Decision | None = None  # the decision being played out
        self._flips: list[int] = []  # this session's next flips, decided
        self._next_flips: list[int] = []  # the next session's first flips, decided
        self._dice: list[int] = []
        self._draws: list[tuple[int, ...]] = []  # positions in the collection drawn from, per draw
        self._drawing: list[int] = []  # the draw under way: positions decided so far
        self.chance: OctopusChance | None = None
        self._advance()

    # -- playing the engine with chance's outcomes -------------------------------------------------
    def _attempt(self) -> tuple[octopus.OctopusState, bool]:
        """The step from the last decision with what chance decided; whether it stopped for chance."""
        s = self.settings
        if self.state is None:
            rest = [c for c in s.variant.cards if c not in self._flips]
            deck = [*self._flips, *rest]
            played = octopus.new_game(s.players, np.random.default_rng(0), deck=deck, max_sessions=s.max_sessions, variant=s.variant)
            return played, False  # no die or draw can come before the first decision: nobody holds a card
        played = self.state.clone()
        queued = set(self._flips)
        played.deck = [c for c in sorted(played.deck) if c not in queued] + self._flips[::-1]  # deck[-1] flips next
        fresh = [c for c in s.variant.cards if c not in self._next_flips]
        played.stacked_decks = [(*self._next_flips, *fresh)]
        played.rng = _ScriptedChance(self._dice, self._draws)  # type: ignore[assignment]
        assert self._decision is not None
        try:
            octopus.step(played, self._decision)
        except _ChanceUndecidedError:
            return played, True
        return played, False

    def _advance(self) -> None:
        """Play on from the last decision: to the next decision, or to the chance node that comes first."""
        before = 0 if self.state is None else len(self.state.events)
        played, stopped = self._attempt()
        chance = self._first_undecided_flip(played, before)
        if chance is None and stopped:
            chance = self._stopped_at(played)
        if chance is not None:
            self.chance = chance
            return
        played.rng = np.random.default_rng(0)  # a real generator again, for clone() (chance decides the rest)
        played.stacked_decks = []
        self.state, self._decision, self.chance = played, None, None
        self._flips, self._next_flips, self._dice, self._draws = [], [], [], []

    def _first_undecided_flip(self, played: octopus.OctopusState, before: int) -> OctopusChance | None:
        """The first flip of this step that chance has not decided (its filler card stands in), if any."""
        cards = self.settings.variant.cards
        flips, session_flipped, next_session = 0, set(), False
        if self.state is not None:
            session_flipped = {c for c in cards if c not in self.state.deck}
        for event in played.events[before:]:
            if isinstance(event, octopus.SessionStart) and self.state is not None:
                flips, session_flipped, next_session = 0, set(), True
            elif isinstance(event, octopus.Flipped):
                decided = self._next_flips if next_session else self._flips
                if flips == len(decided):
                    outcomes = tuple(c for c in cards if c not in session_flipped and c not in decided)
                    return OctopusChance("next_session_flip" if next_session else "flip", outcomes)
                flips += 1
        return None

    @staticmethod
    def _stopped_at(played: octopus.OctopusState) -> OctopusChance:
        """The chance node a step stopped at: the die, or a theft's draw (O5) after its roll."""
        last = played.events[-1]
        if not isinstance(last, octopus.Rolled):
            return OctopusChance("die", tuple(octopus.NUM_CARDS + i for i in range(len(DIE_OUTCOMES))))
        source, count = (last.target, last.k) if last.face >= last.k else (last.seat, 1)
        return OctopusChance("draw", tuple(played.collections[source]), source, count)

    # -- the pyspiel.State interface ---------------------------------------------------------------
    def current_player(self) -> int:
        """Chance at a flip, a roll or a draw; else the seat to decide; terminal once the game ends."""
        if self.chance is not None:
            return int(pyspiel.PlayerId.CHANCE)
        assert self.state is not None
        if self.state.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.state.active

    def legal_actions(self, player: Any = None) -> list[int]:
        """The legal actions of the player to move, or of `player` (a seat, or chance); OpenSpielError for another player."""
        return checked_legal_actions(self, player, self.settings.players, OCTOPUS_GAME)

    def _legal_actions(self, player: int) -> list[int]:
        check_player(player, self.settings.players, OCTOPUS_GAME)
        if self.chance is not None or self.state is None or self.state.is_over or player != self.state.active:
            return []
        return [int(a) for a in np.flatnonzero(octopus.action_mask(self.state))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the chance node: a uniform flip or draw, or the die (O1, O2, O5)."""
        chance = self.chance
        if chance is None:
            return []
        if chance.kind == "die":
            return list(zip(chance.outcomes, DIE_CHANCES, strict=True))
        if chance.kind == "draw":
            return _grouped([c for k, c in enumerate(chance.outcomes) if k not in self._drawing], octopus.card_name)
        return _grouped(chance.outcomes, octopus.card_name)

    def _apply_action(self, action: int) -> None:
        chance = self.chance
        if chance is None:
            assert self.state is not None
            legal = self._legal_actions(self.state.active)
            if action not in legal:
                raise OpenSpielError(f"action {action!r} is not legal for player_{self.state.active} now; legal actions: {legal}")
            self._decision = octopus.decision_of(self.state, action)
            self._advance()
            return
        allowed = [c for c, _ in self.chance_outcomes()]
        if action not in allowed:
            raise OpenSpielError(f"chance outcome {action!r} cannot happen now ({chance.kind}); allowed: {allowed}")
        if chance.kind == "flip":
            self._flips.append(action)
        elif chance.kind == "next_session_flip":
            self._next_flips.append(action)
        elif chance.kind == "die":
            self._dice.append(DIE_OUTCOMES[action - octopus.NUM_CARDS])
        else:
            self._drawing.append(next(k for k, c in enumerate(chance.outcomes) if c == action and k not in self._drawing))
            if len(self._drawing) < chance.draw_size:
                return
            self._draws.append(tuple(sorted(self._drawing)))
            self._drawing = []
        self._advance()

    def _apply_actions(self, actions: Sequence[int]) -> None:
        raise OpenSpielError(
            f"apply_actions({list(actions)!r:.60}) is not allowed: {OCTOPUS_GAME} is played one seat at a time, apply_action(a)"
        )

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < octopus.NUM_CARDS + len(DIE_OUTCOMES):
                raise OpenSpielError(f"chance outcome {action!r} is none: cards are 0-{octopus.NUM_CARDS - 1}, die faces 66-69")
            if action >= octopus.NUM_CARDS:
                return f"die {DIE_OUTCOMES[action - octopus.NUM_CARDS]}"
            return f"card {octopus.card_name(action)}"
        check_player(player, self.settings.players, OCTOPUS_GAME)
        if not 0 <= action < octopus.NUM_ACTIONS:
            raise OpenSpielError(f"action {action!r} is none; actions are 0-{octopus.NUM_ACTIONS - 1}")
        names = ("stop", "flip", "no theft")
        if action < len(names):
            return names[action]
        offset, k = divmod(action - len(names), octopus.MAX_STEAL)
        return f"steal {k + 1} from the seat {offset + 1} to the left"

    def is_terminal(self) -> bool:
        """Whether the game has ended (O9, or O12's cap)."""
        return self.chance is None and self.state is not None and self.state.is_over

    def returns(self) -> list[float]:
        """The env's final rewards, zeros before the end."""
        settings = self.settings
        if not self.is_terminal():
            return [0.0] * settings.players
        assert self.state is not None
        return [float(r) for r in final_rewards(np.array(self.state.totals), settings.reward)]

    def __str__(self) -> str:
        if self.state is None:
            return "before the first flip"
        s = self.state
        return (
            f"session {s.session}; player_{s.active} {s.phase.value}; row {[octopus.card_name(c) for c in s.row]}; "
            f"deck {len(s.deck)}; collections {[len(c) for c in s.collections]}; totals {s.totals}"
        )

    # -- what the seats see -------------------------------------------------------------------------
    def seat_observation(self, seat: int, view: str) -> np.ndarray:
        """What the env shows `seat` in `view` at the last decision (zeros before the first)."""
        if self.state is None:
            return np.zeros(octopus_observation.OBSERVATION_LAYOUT.size, dtype=np.float32)
        return octopus_observation.observe(self.state, seat, view)

    def seat_information(self, seat: int) -> str:
        """`seat`'s information: every event so far, all of them shown to everyone (O4)."""
        events = [] if self.state is None else self.state.events
        lines = [f"player_{seat}", *map(str, events)]
        if self._decision is not None and self.state is not None and self.state.active == seat:
            lines.append(f"you decided {self._decision}")  # chance is playing it out
        return "\n".join(lines)

    def seat_words(self, seat: int, view: str) -> str:
        """What `seat` sees at the last decision, in words (O4)."""
        if self.state is None:
            return f"player_{seat}: before the first flip"
        s = self.state
        lines = [
            f"player_{seat}; session {s.session}; player_{s.active} to {s.phase.value}; totals {s.totals}",
            f"row: {', '.join(map(octopus.card_name, s.row)) or '-'}; deck {len(s.deck)}; discard pile {len(s.discard)}",
            f"own collection: {', '.join(map(octopus.card_name, s.collections[seat])) or '-'}",
        ]
        for offset in range(1, s.num_players):
            other = (seat + offset) % s.num_players
            cards = s.collections[other]
            shown = f": {', '.join(map(octopus.card_name, cards)) or '-'}" if view == "recall" else ""
            lines.append(f"player_{other}: {len(cards)} cards{shown}")
        if view == "recall":
            lines.append(f"discard pile: {', '.join(map(octopus.card_name, s.discard)) or '-'}")
        return "\n".join(lines)


class OctopusObserver:
    """OpenSpiel's PyObserver for the octopus game: the env's observation, or the information state."""

    def __init__(self, game: OctopusGame, iig_obs_type: Any, params: Any):
        self.view, self.players = game.settings.view, game.settings.players
        self.perfect_recall = _check_observer(iig_obs_type, params, OCTOPUS_GAME)
        self.tensor = np.zeros(octopus_observation.OBSERVATION_LAYOUT.size, np.float32)
        self.dict = {"recall" if self.perfect_recall else "observation": self.tensor}

    def _check(self, state: object, player: object) -> int:
        return _observed_seat(state, OctopusSpielState, player, self.players, OCTOPUS_GAME)

    def set_from(self, state: OctopusSpielState, player: int) -> None:
        """Write `player`'s view of `state` into `tensor` (the recall view for the information state)."""
        player = self._check(state, player)
        self.tensor[:] = state.seat_observation(player, "recall" if self.perfect_recall else self.view)

    def string_from(self, state: OctopusSpielState, player: int) -> str:
        """`player`'s view of `state` in words; the information state is the event log."""
        player = self._check(state, player)
        if self.perfect_recall:
            return state.seat_information(player)
        return state.seat_words(player, self.view)


def _register() -> None:
    """Register both games with OpenSpiel, once (importing this module again changes nothing)."""
    registered = set(pyspiel.registered_names())
    for name, long_name, dynamics, players, parameters, game in (
        (MIAUI_GAME, MIAUI_LONG_NAME, pyspiel.GameType.Dynamics.SIMULTANEOUS, (3, 6), MIAUI_PARAMETERS, MiauiGame),
        (OCTOPUS_GAME, OCTOPUS_LONG_NAME, pyspiel.GameType.Dynamics.SEQUENTIAL, (2, 4), OCTOPUS_PARAMETERS, OctopusGame),
    ):
        if name not in registered:
            game_type = _game_type(name, long_name, dynamics, pyspiel.GameType.Utility.CONSTANT_SUM, players, parameters)
            pyspiel.register_game(game_type, game)


_register()

__all__ = [
    "MIAUI_GAME",
    "OCTOPUS_GAME",
    "MiauiGame",
    "MiauiObserver",
    "MiauiState",
    "OctopusGame",
    "OctopusObserver",
    "OctopusSpielState",
    "OpenSpielError",
]
