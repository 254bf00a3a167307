"""Plain-text pictures of a game: the whole table for `render()`, and round summaries."""

from __future__ import annotations

from miaui_env.rules import (
    NUM_ROUNDS,
    Decision,
    GameState,
    JellyfishTriple,
    RoundRecord,
    SeagullTheft,
    kiti_seat,
    score,
)

DEPTH_NAMES = ("bottom", "middle", "top")


def seat_name(seat: int) -> str:
    """The PettingZoo agent name of a seat."""
    return f"player_{seat}"


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
        lines = [f"{title}: round {state.round} of {NUM_ROUNDS}"]
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
