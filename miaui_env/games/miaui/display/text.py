"""Plain-text pictures of a game: the whole table for `render()`, round summaries, and what one
seat's observation holds, in words (what human play shows; read through `display.decode`)."""

from __future__ import annotations

import numpy as np

from miaui_env.core.errors import is_integer
from miaui_env.core.render import seat_name
from miaui_env.games.miaui.cards import FishCard
from miaui_env.games.miaui.display.decode import FishTally, ObservationShapeError, decode_observation
from miaui_env.games.miaui.rules import NUM_ROUNDS, Decision, GameState, JellyfishTriple, RoundRecord, SeagullTheft, kiti_seat, score

DEPTH_NAMES = ("bottom", "middle", "top")


def describe_round(record: RoundRecord) -> list[str]:
    """Lines telling what a revealed round did: the cards, each depth's catch, each fish effect."""
    plays = ", ".join(f"{seat_name(s)} {card}" for s, card in enumerate(record.plays))
    lines = [f"round {record.round} reveal: {plays}"]
    for result in record.depths:
        where = DEPTH_NAMES[result.depth]
        if result.winner is None:
            why = (
                "nobody was left"
                if result.decision is Decision.NOBODY_LEFT
                else (f"{', '.join(map(seat_name, result.contenders))} tied on {result.best_card}: nobody catches")
            )
            lines.append(f"  {where}: {why}")
            continue
        how = " (Kiti breaks the tie)" if result.decision is Decision.KITI else ""
        fish = ", ".join(map(str, result.fish))
        lines.append(f"  {where}: {seat_name(result.winner)} with {result.best_card}{how} catches {fish}")
    for event in record.events:
        if isinstance(event, SeagullTheft):
            taken = f"steals {event.stolen}" if event.stolen else "finds an empty pile and flies away hungry"
            lines.append(f"  seagull on {seat_name(event.seat)}: {taken}")
        elif isinstance(event, JellyfishTriple):
            lines.append(f"  {seat_name(event.seat)} holds three jellyfish: {', '.join(map(str, event.cards))} go to the box")
    return lines


def render_table(state: GameState) -> str:
    """The whole table as a spectator with every card turned up would see it."""
    config, n = state.config, state.num_players
    variants = [name for name, on in (("Open Baskets", config.open_baskets), ("No Fighting", config.no_fighting)) if on]
    title = f"Miaui, {n} players{' (' + ', '.join(variants) + ')' if variants else ''}"
    if state.is_over:
        lines = [f"{title}: game over"]
    else:
        lines = [f"{title}: round {state.round} of {config.rounds}"]
        if not config.no_fighting:
            a = kiti_seat(state.round, n)
            lines.append(f"Kiti sits between {seat_name(a)} and {seat_name((a + 1) % n)}")
        for depth, space in zip(DEPTH_NAMES, state.lagoon, strict=True):
            cards = [
                str(state.card(lc.card)) + ("" if lc.peeker is None else f" (face-down, {seat_name(lc.peeker)} peeked)") for lc in space
            ]
            lines.append(f"  lagoon {depth:<6}: {', '.join(cards) or '-'}")
    if state.history:
        lines.extend(describe_round(state.history[-1]))
    width = max(len(" ".join(str(c) for c in range(1, 13))), 4)
    lines.append(f"{'seat':<9} {'hand':<{width}} score  fish pile (top first)")
    for seat in range(n):
        hand = " ".join(str(c) for c in state.legal_cards(seat))
        pile = ", ".join(str(state.card(c)) for c in reversed(state.piles[seat])) or "-"
        lines.append(f"{seat_name(seat):<9} {hand:<{width}} {score(state, seat):>5}  {pile}")
    return "\n".join(lines)


def fish_in_words(fish: FishCard | FishTally | None) -> str:
    """A card (None: one lying face-down, unseen) or a tally of several, in words."""
    if fish is None:
        return "a face-down card"
    if isinstance(fish, FishCard):
        return str(fish)
    if sum(fish.counts) == 1 and not fish.face_down:
        return str(FishCard(fish.kinds[0][0], fish.value))
    if not sum(fish.counts):
        return "a face-down card" if fish.face_down == 1 else (f"{fish.face_down} face-down cards" if fish.face_down else "nothing")
    kinds = ", ".join(f"{count} {kind.value}" for kind, count in fish.kinds)
    hidden = f" and {fish.face_down} face-down" if fish.face_down else ""
    return f"{kinds}{hidden} (worth {fish.value}{' face-up' if fish.face_down else ''})"


def describe_observation(observation: np.ndarray, seat: int, num_players: int) -> str:
    """One seat's observation in words: exactly what the vector holds, nothing from the game itself."""
    table = decode_observation(observation, num_players, "describe_observation")
    n = num_players
    if not is_integer(seat) or not 0 <= seat < n:
        raise ObservationShapeError(f"describe_observation: seat={seat!r:.40} is not at a {n}-player table; seats are 0-{n - 1}")
    name = [f"{seat_name((seat + k) % n)}{' (you)' if k == 0 else ''}" for k in range(n)]
    lines = [f"Round {table.round} of {NUM_ROUNDS}" if table.round else "The game is over"]
    if table.kiti is not None:
        k = table.kiti.row
        lines.append(f"Kiti sits between {name[k]} and {name[(k + 1) % n]}")
        lines.append(f"  ties at the bottom and middle go to: {', '.join(name[r] for r in table.kiti.deep_order)}")
        lines.append(f"  ties at the top go to: {', '.join(name[r] for r in table.kiti.shallow_order)}")
    peekers = table.lantern_peekers()  # R5: who peeked each space's face-down card
    for depth, (where, space) in enumerate(zip(DEPTH_NAMES, table.lagoon, strict=True)):
        shown = [fish_in_words(card) for card in space.cards]
        if depth in peekers and shown:
            shown[0] = (
                f"{shown[0]} (face-down: only you see it, from your Lantern)"
                if peekers[depth] == 0
                else f"a face-down card ({name[peekers[depth]]} peeked it)"
            )
        if space.more.cards:
            shown.append(f"then {fish_in_words(space.more)}")
        lines.append(f"  lagoon {where:<6}: {', '.join(shown) or '-'}")
    lines.append(f"Your hand: {' '.join(map(str, table.hand)) or '-'}")
    for k, row in enumerate(table.seats):
        top = [fish_in_words(card) for card in row.pile]
        words = f"{name[k]}: {row.height} fish" + (f", top first: {', '.join(top)}" if top else "")
        if row.height > len(top) and row.tally is not None:
            words += f"; all of them: {fish_in_words(row.tally)}"
        if row.played:
            words += f"; has played {' '.join(map(str, row.played))}"
        lines.append("  " + words)
        if row.last is not None:
            last = row.last
            note = f"    last round: played {last.card}"
            if last.caught_at is not None:
                note += f", caught {fish_in_words(last.caught)} at the {DEPTH_NAMES[last.caught_at]}"
            if last.thefts > 0:
                note += f", a Seagull took {fish_in_words(last.stolen)}"
            if last.triples > 0:
                note += ", three Jellyfish went to the box"
            lines.append(note)
    return "\n".join(lines)
