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
                  "tally" (the whole pile counted, {"kinds": [[kind, count], ...], "value"}; None where
                           the view shows its height only: an opponent's outside Open Baskets, R11),
                  "played" (the diver card of the last reveal, or None)}}
    card = {"kind" (a FishKind name, None for a face-down card the viewer may not see), "value",
            "face_down", "peeker" (the seat that peeked a face-down card, when the viewer knows it)}

A seat's table is read from its observation vector and nothing else (`seat_table`, through the
decoder the text and the pictures use, `miaui_env.games.miaui.display.decode`), so it can show nothing the
seat may not know. A reveal (`reveal_steps`) comes from the round's public record: every card,
catch, theft and triple in it happened face-up on the table (R11), and the env hands the same
records to every seat in its infos.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from miaui_env.core.errors import InvalidConfigError, is_integer
from miaui_env.games.miaui.cards import FISH_KINDS, FishCard
from miaui_env.games.miaui.display.decode import FishTally, decode_observation
from miaui_env.games.miaui.display.text import DEPTH_NAMES
from miaui_env.games.miaui.rules import (
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    Decision,
    GameState,
    RoundRecord,
    SeagullTheft,
    deep_priority,
    kiti_seat,
    score,
    shallow_priority,
)

GAME_OVER = NUM_ROUNDS + 1  # the "round" of a finished game
DIVER_CARDS = range(1, NUM_DIVER_CARDS + 1)


def card_json(card: FishCard, face_down: bool = False, peeker: int | None = None) -> dict[str, Any]:
    """A card the viewer may see: kind and value (and, if it lies face-down, who peeked it)."""
    return {"kind": card.kind.value, "value": card.value, "face_down": face_down, "peeker": peeker}


def _seen_card_json(card: FishCard | None) -> dict[str, Any]:
    """A card slot of a seat's observation: its face if the viewer may see it, else a face-down card."""
    return {"kind": None, "value": None, "face_down": True, "peeker": None} if card is None else card_json(card)


def tally_json(tally: FishTally | None) -> dict[str, Any] | None:
    """A whole pile counted by kind, with its value; None where the viewer sees its height only."""
    if tally is None:
        return None
    return {"kinds": [[kind.value, count] for kind, count in tally.kinds], "value": tally.value}


def seat_table(observation: np.ndarray, seat: int, num_players: int) -> dict[str, Any]:
    """The table as `seat` sees it, read from its observation vector alone (see the module docstring)."""
    table = decode_observation(observation, num_players, "seat_table")
    if not is_integer(seat) or not 0 <= seat < num_players:
        raise InvalidConfigError(f"seat_table takes the seat whose observation it is, 0-{num_players - 1}; got seat {seat!r}")
    n = num_players
    seats = [(seat + k) % n for k in range(n)]  # row k of the observation is the k-th seat to the viewer's left
    round_number = GAME_OVER if table.round is None else table.round
    kiti, deep, shallow = None, [], []
    if table.kiti is not None and table.round is not None:
        row = table.kiti.row
        kiti = [seats[row], seats[(row + 1) % n]]
        deep, shallow = [seats[r] for r in table.kiti.deep_order], [seats[r] for r in table.kiti.shallow_order]

    peekers = table.lantern_peekers()
    lagoon = []
    for depth, space in enumerate(table.lagoon):
        cards = [_seen_card_json(card) for card in space.cards]
        if depth in peekers and cards:
            cards[0] = {**cards[0], "face_down": True, "peeker": seats[peekers[depth]]}
        lagoon.append({"cards": cards, "more": space.more.cards})

    rows = []
    for row, (who, seen) in enumerate(zip(seats, table.seats, strict=True)):
        held: list[int | None]
        if row == 0:
            held = [int(card in table.hand) for card in DIVER_CARDS]
        elif round_number == GAME_OVER:
            held = [0] * NUM_DIVER_CARDS
        elif seen.played:  # Open Baskets and the recall view show every card played
            held = [int(card not in seen.played) for card in DIVER_CARDS]
        elif round_number == 1:  # every hand starts with 1-12
            held = [1] * NUM_DIVER_CARDS
        else:  # the table view shows the last reveal only (R11)
            held = [0 if seen.last is not None and card == seen.last.card else None for card in DIVER_CARDS]
        rows.append(
            {
                "seat": who,
                "hand": held,
                "pile": [_seen_card_json(card) for card in seen.pile],
                "height": seen.height,
                "score": seen.score,  # the table view shows an opponent's pile height only
                "tally": tally_json(seen.tally),
                "played": None if seen.last is None else seen.last.card,
            }
        )
    return {
        "num_players": n,
        "open_baskets": table.open_baskets,
        "no_fighting": table.no_fighting,
        "round": round_number,
        "viewer": seat,
        "kiti": kiti,
        "deep_order": deep,
        "shallow_order": shallow,
        "lagoon": lagoon,
        "seats": rows,
    }


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
            "tally": _whole_pile(state, s),
            "played": None if last is None else last.plays[s],
        }
        for s in range(n)
    ]
    return {
        "num_players": n,
        "open_baskets": config.open_baskets,
        "no_fighting": config.no_fighting,
        "round": min(state.round, GAME_OVER),
        "viewer": None,
        "kiti": kiti,
        "deep_order": deep,
        "shallow_order": shallow,
        "lagoon": lagoon,
        "seats": rows,
    }


def _whole_pile(state: GameState, seat: int) -> dict[str, Any] | None:
    """`seat`'s whole pile counted as `tally_json` counts it, for the spectator who sees every card."""
    if not state.piles[seat]:
        return None
    kinds = [state.card(c).kind for c in state.piles[seat]]
    counts = tuple(kinds.count(kind) for kind in FISH_KINDS)
    return tally_json(FishTally(counts, score(state, seat)))


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
        steps.append(
            {
                "kind": "catch",
                "depth": depth,
                "seat": result.winner,
                "card": result.best_card,
                "contenders": list(result.contenders),
                "kiti": result.decision is Decision.KITI,
                "fish": [card_json(fish) for fish in result.fish],
            }
        )
        for event in record.events:
            if event.seat != result.winner:
                continue
            if isinstance(event, SeagullTheft):
                stolen = None if event.stolen is None else card_json(event.stolen)
                steps.append({"kind": "theft", "depth": depth, "seat": event.seat, "stolen": stolen})
            else:
                steps.append({"kind": "triple", "depth": depth, "seat": event.seat, "cards": [card_json(c) for c in event.cards]})
    return {"round": record.round, "plays": list(record.plays), "steps": steps}
