"""What the browser app sends the page: a table as JSON, read from one seat's observation or from
the whole game for a spectator, and a reveal as the steps it happened in.

Both sources give one schema, so the page draws them with one function:

    table = {"num_players", "open_baskets", "no_fighting", "round" (1-12; 13 once the game is over),
             "viewer" (the seat whose view this is; None for the spectator),
             "kiti" ([seat a, seat a+1]: Kiti sits between them; None in No Fighting or at the end),
             "deep_order", "shallow_order" (who wins ties at the bottom and middle, and at the top),
             "lagoon" (bottom, middle, top: {"cards": [card, ...] oldest first, "more": further cards}),
             "seats" (the viewer first, then each seat to the left; the spectator's from player_0):
                 {"seat", "hand" (12 entries: 1 held, 0 played, None unknown to the viewer),
                  "pile" ([card, ...] top first), "height", "score" (None if the viewer cannot know it),
                  "played" (the diver card of the last reveal, or None)}}
    card = {"kind" (a FishKind name, None for a face-down card the viewer may not see), "value",
            "face_down", "peeker" (the seat that peeked a face-down card, when the viewer knows it)}

A seat's table is read from its observation vector and nothing else (`seat_table`), so it can
show nothing the seat may not know. A reveal (`reveal_steps`) comes from the round's public
record: every card, catch, theft and triple in it happened face-up on the table (R11), and the
env hands the same records to every seat in its infos.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from miaui_env.display.text import DEPTH_NAMES
from miaui_env.game.cards import FISH_KINDS, FishCard, FishKind
from miaui_env.game.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    Decision,
    GameState,
    InvalidConfigError,
    RoundRecord,
    SeagullTheft,
    deep_priority,
    kiti_seat,
    score,
    shallow_priority,
)
from miaui_env.observe.observation import COUNT_SCALE, HEIGHT_SCALE, HIDDEN_FEATURE, OBSERVATION_LAYOUT, VALUE_SCALE

GAME_OVER = NUM_ROUNDS + 1  # the "round" of a finished game
_VALUE = len(FISH_KINDS)  # a card's features: one-hot kind, value / VALUE_SCALE, then the face-down flag
_LANTERN = FISH_KINDS.index(FishKind.LANTERN)
_PILE_VALUE_SCALE = COUNT_SCALE * VALUE_SCALE


def card_json(card: FishCard, face_down: bool = False, peeker: int | None = None) -> dict[str, Any]:
    """A card the viewer may see: kind and value (and, if it lies face-down, who peeked it)."""
    return {"kind": card.kind.value, "value": card.value, "face_down": face_down, "peeker": peeker}


def _hidden_card(peeker: int | None) -> dict[str, Any]:
    return {"kind": None, "value": None, "face_down": True, "peeker": peeker}


def _card_from_features(features: np.ndarray) -> dict[str, Any]:
    """One card slot of an observation: its face if the viewer may see it, else a face-down card."""
    kinds = features[:_VALUE]
    if not kinds.any():
        return _hidden_card(None)
    return {"kind": FISH_KINDS[int(kinds.argmax())].value, "value": round(float(features[_VALUE]) * VALUE_SCALE),
            "face_down": False, "peeker": None}  # fmt: skip


def seat_table(observation: np.ndarray, seat: int, num_players: int) -> dict[str, Any]:
    """The table as `seat` sees it, read from its observation vector alone (see the module docstring)."""
    obs = np.asarray(observation, dtype=np.float32)
    if obs.shape != (OBSERVATION_LAYOUT.size,) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS or not 0 <= seat < num_players:
        raise InvalidConfigError(
            f"seat_table takes one observation ({OBSERVATION_LAYOUT.size},), a seat and a table of "
            f"{MIN_PLAYERS}-{MAX_PLAYERS}; got {obs.shape}, seat {seat}, {num_players} players"
        )
    view = OBSERVATION_LAYOUT.view
    n = num_players
    seats = [(seat + k) % n for k in range(n)]  # row k of the observation is the k-th seat to the viewer's left
    round_piece = view(obs, "round")
    round_number = int(round_piece.argmax()) + 1 if round_piece.any() else GAME_OVER
    open_baskets, no_fighting = (bool(flag) for flag in view(obs, "variant"))

    kiti_rows = np.flatnonzero(view(obs, "kiti")[:n, 0])
    kiti, deep, shallow = None, [], []
    if kiti_rows.size and round_number <= NUM_ROUNDS:
        row = int(kiti_rows[0])
        kiti = [seats[row], seats[(row + 1) % n]]
        deep = [seats[r] for r in sorted(range(n), key=lambda r: -float(view(obs, "deep_priority")[r, 0]))]
        shallow = [seats[r] for r in sorted(range(n), key=lambda r: -float(view(obs, "shallow_priority")[r, 0]))]

    # R5: a Lantern's catcher peeks at the card that restocks its space, which lies face-down. The
    # last reveal shows who caught a Lantern where, so every seat knows who peeked which card.
    caught_at, caught, card_played = view(obs, "caught_at"), view(obs, "caught"), view(obs, "card_played")
    peekers = {
        int(caught_at[row].argmax()): seats[row]
        for row in range(n)
        if round_number <= NUM_ROUNDS and caught_at[row].any() and caught[row, _LANTERN] > 0
    }
    lagoon = []
    for depth in range(len(DEPTH_NAMES)):
        cards = [_card_from_features(features) for features in view(obs, "lagoon")[depth] if features.any()]
        if depth in peekers and cards:
            cards[0] = {**cards[0], "face_down": True, "peeker": peekers[depth]}
        rest = view(obs, "lagoon_rest")[depth]
        lagoon.append({"cards": cards, "more": round(float(rest[:_VALUE].sum() + rest[HIDDEN_FEATURE]))})

    hand, played = view(obs, "hand"), view(obs, "played")
    summary, piles = view(obs, "pile_summary"), view(obs, "pile")
    rows = []
    for row, who in enumerate(seats):
        held: list[int | None]
        if row == 0:
            held = [int(h) for h in hand]
        elif round_number == GAME_OVER:
            held = [0] * NUM_DIVER_CARDS
        elif played[row].any():  # Open Baskets and the recall view show every card played
            held = [0 if played[row, c] else 1 for c in range(NUM_DIVER_CARDS)]
        elif round_number == 1:  # every hand starts with 1-12
            held = [1] * NUM_DIVER_CARDS
        else:  # the table view shows the last reveal only (R11)
            held = [0 if card_played[row, c] else None for c in range(NUM_DIVER_CARDS)]
        height = round(float(summary[row, 0]) * HEIGHT_SCALE)
        known = height == 0 or bool(summary[row, 1:].any())  # the table view shows an opponent's pile height only
        rows.append(
            {
                "seat": who,
                "hand": held,
                "pile": [_card_from_features(features) for features in piles[row] if features.any()],
                "height": height,
                "score": round(float(summary[row, -1]) * _PILE_VALUE_SCALE) if known else None,
                "played": int(card_played[row].argmax()) + 1 if card_played[row].any() else None,
            }
        )
    return {"num_players": n, "open_baskets": open_baskets, "no_fighting": no_fighting, "round": round_number, "viewer": seat,
            "kiti": kiti, "deep_order": deep, "shallow_order": shallow, "lagoon": lagoon, "seats": rows}  # fmt: skip


def spectator_table(state: GameState) -> dict[str, Any]:
    """The whole table as a spectator with every card turned up sees it (face-down cards flagged)."""
    config, n = state.config, state.num_players
    kiti, deep, shallow = None, [], []
    if not config.no_fighting and not state.is_over:
        a = kiti_seat(state.round, n)
        kiti, deep, shallow = [a, (a + 1) % n], list(deep_priority(state.round, n)), list(shallow_priority(state.round, n))
    lagoon = []
    for space in state.lagoon:
        cards = [card_json(state.card(lc.card), lc.peeker is not None, lc.peeker) for lc in space]
        lagoon.append({"cards": cards[:3], "more": max(len(cards) - 3, 0)})
    last = state.history[-1] if state.history else None
    rows = [
        {
            "seat": s,
            "hand": [int(h) for h in state.hands[s]],
            "pile": [card_json(state.card(c)) for c in reversed(state.piles[s][-3:])],
            "height": len(state.piles[s]),
            "score": score(state, s),
            "played": None if last is None else last.plays[s],
        }
        for s in range(n)
    ]
    return {"num_players": n, "open_baskets": config.open_baskets, "no_fighting": config.no_fighting,
            "round": min(state.round, GAME_OVER), "viewer": None, "kiti": kiti, "deep_order": deep, "shallow_order": shallow,
            "lagoon": lagoon, "seats": rows}  # fmt: skip


def reveal_steps(record: RoundRecord) -> dict[str, Any]:
    """One round's reveal in the order it happened: the cards, then each depth (bottom, middle,
    top) with its catch, each followed by what its fish did on landing (Seagull thefts, Jellyfish
    triples). A seat catches at one depth a round at most, so a depth's effects are its catcher's."""
    steps: list[dict[str, Any]] = []
    for result in record.depths:
        depth = DEPTH_NAMES[result.depth]
        if result.winner is None:
            kind = "nobody_left" if result.decision is Decision.NOBODY_LEFT else "tie"
            steps.append({"kind": kind, "depth": depth, "card": result.best_card, "contenders": list(result.contenders)})
            continue
        steps.append({"kind": "catch", "depth": depth, "seat": result.winner, "card": result.best_card,
                      "contenders": list(result.contenders), "kiti": result.decision is Decision.KITI,
                      "fish": [card_json(fish) for fish in result.fish]})  # fmt: skip
        for event in record.events:
            if event.seat != result.winner:
                continue
            if isinstance(event, SeagullTheft):
                stolen = None if event.stolen is None else card_json(event.stolen)
                steps.append({"kind": "theft", "depth": depth, "seat": event.seat, "stolen": stolen})
            else:
                steps.append({"kind": "triple", "depth": depth, "seat": event.seat, "cards": [card_json(c) for c in event.cards]})
    return {"round": record.round, "plays": list(record.plays), "steps": steps}
