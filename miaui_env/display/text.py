"""Plain-text pictures of a game: the whole table for `render()`, round summaries, and one seat's
view read back from its observation (what human play shows)."""

from __future__ import annotations

import numpy as np

from miaui_env.game.cards import FISH_KINDS
from miaui_env.game.rules import (
    NUM_ROUNDS,
    Decision,
    GameState,
    InvalidConfigError,
    JellyfishTriple,
    RoundRecord,
    SeagullTheft,
    kiti_seat,
    score,
)
from miaui_env.observe.observation import COUNT_SCALE, HEIGHT_SCALE, HIDDEN_FEATURE, OBSERVATION_LAYOUT, VALUE_SCALE

DEPTH_NAMES = ("bottom", "middle", "top")
RENDER_MODES = ("human", "ansi", "rgb_array")


def check_render_mode(render_mode: str | None) -> None:
    """Refuse anything but None or a known render mode, naming the modes."""
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in RENDER_MODES):
        raise InvalidConfigError(f"render_mode={render_mode!r} is not allowed; use None, {', '.join(map(repr, RENDER_MODES))}")


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


def _fish_in_words(features: np.ndarray) -> str:
    """A card, or a feature sum of several, in words."""
    counts = np.rint(features[: len(FISH_KINDS)]).astype(int)
    hidden = round(float(features[HIDDEN_FEATURE]))
    value = round(float(features[len(FISH_KINDS)]) * VALUE_SCALE)
    if counts.sum() == 1 and not hidden:
        return f"{FISH_KINDS[int(counts.argmax())].value}:{value}"
    if counts.sum() == 0:
        return "a face-down card" if hidden == 1 else (f"{hidden} face-down cards" if hidden else "nothing")
    kinds = ", ".join(f"{c} {kind.value}" for kind, c in zip(FISH_KINDS, counts, strict=True) if c)
    return f"{kinds}{f' and {hidden} face-down' if hidden else ''} (worth {value}{' face-up' if hidden else ''})"


def describe_view(observation: np.ndarray, seat: int, num_players: int) -> str:
    """One seat's observation in words: exactly what the vector holds, nothing from the game itself."""
    view = OBSERVATION_LAYOUT.view
    name = [f"{seat_name((seat + k) % num_players)}{' (you)' if k == 0 else ''}" for k in range(num_players)]
    round_number = int(view(observation, "round").argmax()) + 1 if view(observation, "round").any() else None
    lines = [f"Round {round_number} of {NUM_ROUNDS}" if round_number else "The game is over"]
    kiti = np.flatnonzero(view(observation, "kiti")[:num_players, 0])
    if kiti.size:
        k = int(kiti[0])
        deep = sorted(range(num_players), key=lambda r: -view(observation, "deep_priority")[r, 0])
        shallow = sorted(range(num_players), key=lambda r: -view(observation, "shallow_priority")[r, 0])
        lines.append(f"Kiti sits between {name[k]} and {name[(k + 1) % num_players]}")
        lines.append(f"  ties at the bottom and middle go to: {', '.join(name[r] for r in deep)}")
        lines.append(f"  ties at the top go to: {', '.join(name[r] for r in shallow)}")
    for depth, where in enumerate(DEPTH_NAMES):
        shown = [_fish_in_words(card) for card in view(observation, "lagoon")[depth] if card.any()]
        rest = view(observation, "lagoon_rest")[depth]
        if rest.any():
            shown.append(f"then {_fish_in_words(rest)}")
        lines.append(f"  lagoon {where:<6}: {', '.join(shown) or '-'}")
    hand = np.flatnonzero(view(observation, "hand")) + 1
    lines.append(f"Your hand: {' '.join(map(str, hand)) or '-'}")
    summary, piles, played = view(observation, "pile_summary"), view(observation, "pile"), view(observation, "played")
    card_played, caught_at, caught = view(observation, "card_played"), view(observation, "caught_at"), view(observation, "caught")
    stolen, thefts, triples = view(observation, "stolen"), view(observation, "thefts"), view(observation, "triples")
    for k in range(num_players):
        height = round(float(summary[k, 0]) * HEIGHT_SCALE)
        top = [_fish_in_words(card) for card in piles[k] if card.any()]
        words = f"{name[k]}: {height} fish" + (f", top first: {', '.join(top)}" if top else "")
        if height > len(top) and summary[k, 1:].any():
            words += f"; all of them: {_fish_in_words(np.append(summary[k, 1:] * COUNT_SCALE, 0.0))}"
        if played[k].any():
            words += f"; has played {' '.join(map(str, np.flatnonzero(played[k]) + 1))}"
        lines.append("  " + words)
        if card_played[k].any():
            note = f"    last round: played {int(card_played[k].argmax()) + 1}"
            if caught_at[k].any():
                note += f", caught {_fish_in_words(caught[k])} at the {DEPTH_NAMES[int(caught_at[k].argmax())]}"
            if thefts[k, 0] > 0:
                note += f", a Seagull took {_fish_in_words(stolen[k])}"
            if triples[k, 0] > 0:
                note += ", three Jellyfish went to the box"
            lines.append(note)
    return "\n".join(lines)
