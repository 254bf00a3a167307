"""Pictures of the table for `render_mode="rgb_array"`: the whole table as a spectator sees it, or
one seat's view drawn from nothing but its observation. Drawn with Pillow, the optional extra
`render` (`pip install "miaui-rl[render]"`); without it, `MissingExtraError` says so.

Both pictures share one layout: the round and Kiti's place with the tie orders at the top, the
lagoon's three spaces (bottom, middle, top) as cards, then one row per seat: its hand (the cards
still held, or what that seat may know of them), its fish pile (the top cards, the height), its
score, and what the last reveal did for it (the card played, the catch, a Seagull's theft, a
Jellyfish triple). A card is coloured by kind and shows its value; a face-down card is dark: in
the spectator's picture it shows its face with the peeker's name, in a seat's picture only the
seat that peeked it sees its face.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from miaui_env.display.text import DEPTH_NAMES, describe_round, seat_name
from miaui_env.game.cards import FISH_KINDS, FishKind
from miaui_env.game.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    GameState,
    InvalidConfigError,
    deep_priority,
    kiti_seat,
    score,
    shallow_priority,
)
from miaui_env.observe.observation import COUNT_SCALE, HEIGHT_SCALE, HIDDEN_FEATURE, OBSERVATION_LAYOUT, VALUE_SCALE

EXTRA = 'pip install "miaui-rl[render]"'
WIDTH, HEADER, SPACE_ROW, SEAT_ROW, FOOTER = 1000, 70, 64, 66, 150
CARD_W, CARD_H, SMALL_W = 46, 56, 22
KIND_COLOURS = {
    FishKind.KITTENFISH: (246, 178, 107),
    FishKind.TIGERFISH: (230, 145, 56),
    FishKind.EMPEROR_TUNA: (111, 168, 220),
    FishKind.LANTERN: (255, 217, 102),
    FishKind.JELLYFISH: (180, 167, 214),
    FishKind.SEAGULL: (204, 204, 204),
}
KIND_LABELS = {
    FishKind.KITTENFISH: "kitten",
    FishKind.TIGERFISH: "tiger",
    FishKind.EMPEROR_TUNA: "tuna",
    FishKind.LANTERN: "lantern",
    FishKind.JELLYFISH: "jelly",
    FishKind.SEAGULL: "gull",
}
SEA, INK, FACE_DOWN, PALE = (18, 64, 99), (20, 20, 20), (40, 40, 70), (235, 240, 245)


class MissingExtraError(ImportError):
    """Pillow, which draws the pictures, is not installed."""


def require_pillow() -> None:
    """MissingExtraError naming the extra unless Pillow can be imported."""
    try:
        import PIL  # noqa: F401
    except ImportError as missing:
        raise MissingExtraError(f"render_mode='rgb_array' draws with Pillow, which is not installed: {EXTRA}") from missing


@dataclass
class Card:
    """A card as drawn: its kind and value when known, and whether it lies face-down (and who peeked)."""

    kind: FishKind | None = None
    value: int = 0
    face_down: bool = False
    note: str = ""


@dataclass
class SeatRow:
    """What the picture shows of one seat."""

    name: str
    held: list[int | None]  # per diver card 1-12: 1 held, 0 played, None not known to the viewer
    pile: list[Card]  # top first
    height: int
    score: int | None
    last: str = ""


@dataclass
class Table:
    """Everything one picture shows, from either source."""

    title: str
    round_line: str
    kiti_lines: list[str]
    lagoon: list[list[Card]]
    seats: list[SeatRow]
    reveal: list[str] | None = None  # the last reveal in words (the spectator's picture), room kept before the first


def table_picture(game: GameState) -> np.ndarray:
    """The whole table as a spectator with every card turned up sees it: (H, W, 3) uint8."""
    return _draw(spectator_table(game))


def seat_picture(observation: np.ndarray, num_players: int) -> np.ndarray:
    """One seat's view drawn from its observation alone (what R11 and its view let it see): (H, W, 3) uint8."""
    return _draw(seat_table(observation, num_players))


def table_as_dict(table: Table) -> dict[str, Any]:
    """A `Table` as JSON-able data (kinds by name): what the browser app draws."""
    data: dict[str, Any] = asdict(table)
    for card in [card for space in data["lagoon"] for card in space] + [card for seat in data["seats"] for card in seat["pile"]]:
        card["kind"] = None if card["kind"] is None else card["kind"].value
    return data


def spectator_table(game: GameState) -> Table:
    """What the spectator's picture shows, every card turned up."""
    n, config = game.num_players, game.config
    names = [seat_name(s) for s in range(n)]
    kiti: list[str] = []
    if not config.no_fighting and not game.is_over:
        a = kiti_seat(game.round, n)
        kiti = [
            f"Kiti sits between {names[a]} and {names[(a + 1) % n]}",
            f"ties at the bottom and middle: {', '.join(names[s] for s in deep_priority(game.round, n))}",
            f"ties at the top: {', '.join(names[s] for s in shallow_priority(game.round, n))}",
        ]
    lagoon = [
        [
            _card_of(game, lc.card, face_down=lc.peeker is not None, note="" if lc.peeker is None else f"{names[lc.peeker]} peeked")
            for lc in space
        ]
        for space in game.lagoon
    ]
    seats = []
    last = game.history[-1] if game.history else None
    for s in range(n):
        pile = [_card_of(game, c) for c in reversed(game.piles[s][-3:])]
        seats.append(
            SeatRow(names[s], [int(h) for h in game.hands[s]], pile, len(game.piles[s]), score(game, s), _last_words(last, s, game))
        )
    return Table(_title(n, config.open_baskets, config.no_fighting), _round_line(game.round), kiti, lagoon, seats, _reveal(game))


def seat_table(observation: np.ndarray, num_players: int) -> Table:
    """What one seat's picture shows, read from its observation alone."""
    observation = np.asarray(observation, dtype=np.float32)
    if observation.shape != (OBSERVATION_LAYOUT.size,) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        given = f"{observation.shape}, {num_players}"
        raise InvalidConfigError(f"seat_picture takes one observation ({OBSERVATION_LAYOUT.size},) and 3-6 players; got {given}")
    view = OBSERVATION_LAYOUT.view
    names = ["you"] + [f"{k} to your left" for k in range(1, num_players)]
    round_piece = view(observation, "round")
    round_number = int(round_piece.argmax()) + 1 if round_piece.any() else NUM_ROUNDS + 1
    kiti_rows = np.flatnonzero(view(observation, "kiti")[:num_players, 0])
    kiti = []
    if kiti_rows.size:
        k = int(kiti_rows[0])
        deep = sorted(range(num_players), key=lambda r: -view(observation, "deep_priority")[r, 0])
        shallow = sorted(range(num_players), key=lambda r: -view(observation, "shallow_priority")[r, 0])
        kiti = [
            f"Kiti sits between {names[k]} and {names[(k + 1) % num_players]}",
            f"ties at the bottom and middle: {', '.join(names[r] for r in deep)}",
            f"ties at the top: {', '.join(names[r] for r in shallow)}",
        ]
    lagoon = []
    for depth in range(3):
        space = [_card_of_features(card) for card in view(observation, "lagoon")[depth] if card.any()]
        rest = view(observation, "lagoon_rest")[depth]
        if rest.any():
            space.append(Card(note=f"+{round(rest[: len(FISH_KINDS)].sum() + rest[HIDDEN_FEATURE])} more"))
        lagoon.append(space)
    hand = view(observation, "hand")
    summary, piles, played = view(observation, "pile_summary"), view(observation, "pile"), view(observation, "played")
    seats = []
    for k in range(num_players):
        if k == 0:
            held: list[int | None] = [int(h) for h in hand]
        elif played[k].any() or round_number == 1:  # every hand starts 1-12; Open Baskets and recall show what was played
            held = [0 if played[k, c] else 1 for c in range(NUM_DIVER_CARDS)]
        else:  # the table view forgets what she played (R11)
            held = [None] * NUM_DIVER_CARDS
        height = round(float(summary[k, 0]) * HEIGHT_SCALE)
        value_sum = float(summary[k, -1]) * COUNT_SCALE * VALUE_SCALE
        known_score = round(value_sum) if summary[k, 1:].any() or height == 0 else None
        pile = [_card_of_features(card) for card in piles[k] if card.any()]
        seats.append(SeatRow(names[k], held, pile, height, known_score, _last_from_observation(observation, k)))
    open_baskets, no_fighting = (bool(flag) for flag in view(observation, "variant"))
    title = _title(num_players, open_baskets, no_fighting) + ": one seat's view"
    return Table(title, _round_line(round_number), kiti, lagoon, seats)


# -- reading the sources -----------------------------------------------------------------------
def _title(n: int, open_baskets: bool, no_fighting: bool) -> str:
    variants = [name for name, on in (("Open Baskets", open_baskets), ("No Fighting", no_fighting)) if on]
    return f"Miaui, {n} players" + (f" ({', '.join(variants)})" if variants else "")


def _round_line(round_number: int) -> str:
    return "game over" if round_number > NUM_ROUNDS else f"round {round_number} of {NUM_ROUNDS}"


def _card_of(game: GameState, index: int, face_down: bool = False, note: str = "") -> Card:
    card = game.card(index)
    return Card(card.kind, card.value, face_down, note)


def _card_of_features(features: np.ndarray) -> Card:
    """A card slot of an observation: its face if the viewer may see it, else face-down."""
    kinds = features[: len(FISH_KINDS)]
    if features[HIDDEN_FEATURE] > 0 and not kinds.any():
        return Card(face_down=True)
    return Card(FISH_KINDS[int(kinds.argmax())], round(float(features[len(FISH_KINDS)]) * VALUE_SCALE))


def _last_words(record: Any, seat: int, game: GameState) -> str:
    """What the last reveal did for `seat`, in a few words."""
    if record is None:
        return ""
    words = [f"played {record.plays[seat]}"]
    for result in record.depths:
        if result.winner == seat:
            words.append(f"caught {', '.join(map(str, result.fish))} ({DEPTH_NAMES[result.depth]})")
    return "; ".join(words)


def _last_from_observation(observation: np.ndarray, k: int) -> str:
    view = OBSERVATION_LAYOUT.view
    card_played = view(observation, "card_played")[k]
    if not card_played.any():
        return ""
    words = [f"played {int(card_played.argmax()) + 1}"]
    caught_at = view(observation, "caught_at")[k]
    if caught_at.any():
        words.append(f"caught at the {DEPTH_NAMES[int(caught_at.argmax())]}")
    if view(observation, "thefts")[k, 0] > 0:
        words.append("robbed by a Seagull")
    if view(observation, "triples")[k, 0] > 0:
        words.append("three Jellyfish to the box")
    return "; ".join(words)


def _reveal(game: GameState) -> list[str]:
    return describe_round(game.history[-1]) if game.history else []


# -- drawing ---------------------------------------------------------------------------------
def _draw(table: Table) -> np.ndarray:
    """The picture of `table`, drawn with Pillow."""
    require_pillow()
    from PIL import Image, ImageDraw, ImageFont

    n = len(table.seats)
    height = HEADER + 3 * SPACE_ROW + 28 + n * SEAT_ROW + (8 if table.reveal is None else FOOTER)  # one size a game: frames of a video
    image = Image.new("RGB", (WIDTH, height), SEA)
    draw = ImageDraw.Draw(image)
    big, font, small = (ImageFont.load_default(size=size) for size in (22, 15, 12))
    draw.text((16, 10), table.title, fill=PALE, font=big)
    draw.text((16, 40), table.round_line, fill=PALE, font=font)
    for i, line in enumerate(table.kiti_lines):
        draw.text((470, 8 + 19 * i), line, fill=PALE, font=small if i else font)

    top = HEADER
    for depth, space in enumerate(table.lagoon):
        y = top + depth * SPACE_ROW
        draw.text((16, y + 20), f"lagoon {DEPTH_NAMES[depth]}", fill=PALE, font=font)
        for i, card in enumerate(space):
            _card(draw, 150 + i * (CARD_W + 110), y, card, font, small)
        if not space:
            draw.text((150, y + 20), "empty", fill=PALE, font=small)

    top += 3 * SPACE_ROW + 8
    for x, label in ((16, "seat"), (150, "hand (1-12)"), (450, "fish pile, top first"), (660, "score"), (715, "last reveal")):
        draw.text((x, top), label, fill=PALE, font=small)
    top += 20
    for k, seat in enumerate(table.seats):
        y = top + k * SEAT_ROW
        draw.rectangle((8, y - 2, WIDTH - 8, y + SEAT_ROW - 8), outline=(60, 100, 135))
        draw.text((16, y + 18), seat.name, fill=PALE, font=font)
        for c, held in enumerate(seat.held):
            box = (150 + c * SMALL_W, y + 14, 150 + c * SMALL_W + SMALL_W - 3, y + 40)
            fill = {1: PALE, 0: (70, 90, 110), None: (30, 52, 80)}[held]
            draw.rectangle(box, fill=fill)
            draw.text((box[0] + 3, box[1] + 6), str(c + 1), fill=INK if held == 1 else (150, 165, 180), font=small)
        for i, card in enumerate(seat.pile):
            _card(draw, 450 + i * (CARD_W + 6), y + 2, card, font, small, compact=True)
        draw.text((450 + 3 * (CARD_W + 6) + 4, y + 20), f"{seat.height} fish", fill=PALE, font=small)
        draw.text((660, y + 18), "?" if seat.score is None else str(seat.score), fill=PALE, font=font)
        draw.text((715, y + 18), seat.last, fill=PALE, font=small)

    y = top + n * SEAT_ROW + 4
    for i, line in enumerate((table.reveal or [])[: FOOTER // 17]):
        draw.text((16, y + 17 * i), line, fill=PALE, font=small)
    return np.asarray(image, dtype=np.uint8)


def _card(draw: Any, x: int, y: int, card: Card, font: Any, small: Any, compact: bool = False) -> None:
    """One card at (x, y): kind colour, value and kind name; dark when face-down."""
    h = CARD_H - (8 if compact else 0)
    if card.kind is None and not card.face_down:  # a note (a stack's further cards)
        draw.text((x, y + h // 2 - 7), card.note, fill=PALE, font=small)
        return
    fill = FACE_DOWN if card.face_down else KIND_COLOURS[card.kind]  # type: ignore[index]
    draw.rounded_rectangle((x, y, x + CARD_W, y + h), radius=6, fill=fill, outline=PALE if card.face_down else INK, width=2)
    colour = PALE if card.face_down else INK
    if card.kind is None:
        draw.text((x + CARD_W // 2 - 4, y + h // 2 - 9), "?", fill=colour, font=font)
    else:
        draw.text((x + 6, y + 4), str(card.value), fill=colour, font=font)
        draw.text((x + 4, y + h - 16), KIND_LABELS[card.kind], fill=colour, font=small)
    if card.note and not compact:
        draw.text((x + CARD_W + 6, y + h // 2 - 7), card.note, fill=PALE, font=small)
