"""Pictures of the table for `render_mode="rgb_array"`: the whole table as a spectator sees it, or
one seat's view drawn from nothing but its observation (read through `display.decode`). Drawn with Pillow, the optional extra
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

from dataclasses import dataclass
from typing import Any

import numpy as np

from miaui_env.core.errors import InvalidConfigError
from miaui_env.core.render import require_pillow, seat_name
from miaui_env.games.miaui.cards import FishCard, FishKind
from miaui_env.games.miaui.compact import expand_observations
from miaui_env.games.miaui.display.decode import LastReveal, ObservationShapeError, ObservedTable, decode_observation
from miaui_env.games.miaui.display.text import DEPTH_NAMES, describe_round
from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT
from miaui_env.games.miaui.rules import (
    MIN_PLAYERS,
    NUM_DIVER_CARDS,
    NUM_ROUNDS,
    GameState,
    RoundRecord,
    deep_priority,
    kiti_seat,
    score,
    shallow_priority,
)

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


@dataclass(frozen=True)
class DrawnCard:
    """A card as drawn: its kind and value when known, and whether it lies face-down (and who
    peeked); with neither kind nor face-down, only its note is drawn (a stack's further cards)."""

    kind: FishKind | None = None
    value: int = 0
    face_down: bool = False
    note: str = ""


@dataclass(frozen=True)
class SceneSeat:
    """What a picture shows of one seat."""

    name: str
    held: tuple[int | None, ...]  # per diver card 1-12: 1 held, 0 played, None not known to the viewer
    pile: tuple[DrawnCard, ...]  # top first
    height: int
    score: int | None
    last: str = ""


@dataclass(frozen=True)
class Scene:
    """Everything one picture shows, from either source: the spectator's game or a seat's observation."""

    title: str
    round_line: str
    kiti_lines: tuple[str, ...]
    lagoon: tuple[tuple[DrawnCard, ...], ...]
    seats: tuple[SceneSeat, ...]
    reveal: tuple[str, ...] | None = None  # the last reveal in words (the spectator's picture), room kept before the first


def table_picture(game: GameState) -> np.ndarray:
    """The whole table as a spectator with every card turned up sees it: (H, W, 3) uint8."""
    if not isinstance(game, GameState):
        raise InvalidConfigError(f"table_picture takes a GameState (an env's `game`, or rules.new_game's); got {type(game).__name__}")
    return _draw(spectator_scene(game))


def seat_picture(observation: np.ndarray, num_players: int) -> np.ndarray:
    """One seat's view drawn from its observation alone (what R11 and its view let it see): (H, W, 3) uint8."""
    return _draw(seat_scene(decode_observation(_float_observation(observation, num_players), num_players, "seat_picture")))


def _float_observation(observation: Any, num_players: Any) -> Any:
    """`observation` with uint8 codes expanded to the floats they stand for (drawn raw, a code of 30
    would read as a value of 30); ObservationShapeError if it is of another table size than `num_players`."""
    obs = np.asarray(observation)
    if obs.shape != (OBSERVATION_LAYOUT.size,):
        return observation  # the decoder names the shape it takes
    if obs.dtype == np.uint8:
        obs = expand_observations(obs)
    table_size = OBSERVATION_LAYOUT.view(obs, "num_players")
    if np.count_nonzero(table_size) == 1 and int(np.argmax(table_size)) + MIN_PLAYERS != num_players:
        seen = int(np.argmax(table_size)) + MIN_PLAYERS
        raise ObservationShapeError(f"seat_picture: this observation is of a {seen}-player table, not num_players={num_players!r}")
    return obs


def spectator_scene(game: GameState) -> Scene:
    """What the spectator's picture shows, every card turned up."""
    n, config = game.num_players, game.config
    names = [seat_name(s) for s in range(n)]
    kiti: tuple[str, ...] = ()
    if not config.no_fighting and not game.is_over:
        a = kiti_seat(game.round, n)
        kiti = (
            f"Kiti sits between {names[a]} and {names[(a + 1) % n]}",
            f"ties at the bottom and middle: {', '.join(names[s] for s in deep_priority(game.round, n))}",
            f"ties at the top: {', '.join(names[s] for s in shallow_priority(game.round, n))}",
        )
    lagoon = tuple(
        tuple(
            _game_card(game, lc.card, face_down=lc.peeker is not None, note="" if lc.peeker is None else f"{names[lc.peeker]} peeked")
            for lc in space
        )
        for space in game.lagoon
    )
    last = game.history[-1] if game.history else None
    seats = tuple(
        SceneSeat(
            names[s],
            tuple(int(h) for h in game.hands[s]),
            tuple(_game_card(game, c) for c in reversed(game.piles[s][-3:])),
            len(game.piles[s]),
            score(game, s),
            _last_words(last, s),
        )
        for s in range(n)
    )
    reveal = tuple(describe_round(last)) if last is not None else ()
    return Scene(_title(n, config.open_baskets, config.no_fighting), _round_line(game.round, config.rounds), kiti, lagoon, seats, reveal)


def seat_scene(table: ObservedTable) -> Scene:
    """What one seat's picture shows, read from its decoded observation alone."""
    n = table.num_players
    names = ["you"] + [f"{k} to your left" for k in range(1, n)]
    round_number = NUM_ROUNDS + 1 if table.round is None else table.round
    kiti: tuple[str, ...] = ()
    if table.kiti is not None:
        k = table.kiti.row
        kiti = (
            f"Kiti sits between {names[k]} and {names[(k + 1) % n]}",
            f"ties at the bottom and middle: {', '.join(names[r] for r in table.kiti.deep_order)}",
            f"ties at the top: {', '.join(names[r] for r in table.kiti.shallow_order)}",
        )
    lagoon = tuple(
        tuple(_seen_card(card) for card in space.cards) + ((DrawnCard(note=f"+{space.more.cards} more"),) if space.more.cards else ())
        for space in table.lagoon
    )
    seats = []
    for k, row in enumerate(table.seats):
        held: tuple[int | None, ...]
        if k == 0:
            held = tuple(int(card in table.hand) for card in range(1, NUM_DIVER_CARDS + 1))
        elif row.played or round_number == 1:  # every hand starts 1-12; Open Baskets and recall show what was played
            held = tuple(int(card not in row.played) for card in range(1, NUM_DIVER_CARDS + 1))
        else:  # the table view forgets what she played (R11)
            held = (None,) * NUM_DIVER_CARDS
        seats.append(SceneSeat(names[k], held, tuple(_seen_card(card) for card in row.pile), row.height, row.score, _last_seen(row.last)))
    title = _title(n, table.open_baskets, table.no_fighting) + ": one seat's view"
    return Scene(title, _round_line(round_number, NUM_ROUNDS), kiti, lagoon, tuple(seats))  # (an observation names no short game)


# -- reading the sources -----------------------------------------------------------------------
def _title(n: int, open_baskets: bool, no_fighting: bool) -> str:
    variants = [name for name, on in (("Open Baskets", open_baskets), ("No Fighting", no_fighting)) if on]
    return f"Miaui, {n} players" + (f" ({', '.join(variants)})" if variants else "")


def _round_line(round_number: int, rounds: int) -> str:
    return "game over" if round_number > rounds else f"round {round_number} of {rounds}"


def _game_card(game: GameState, index: int, face_down: bool = False, note: str = "") -> DrawnCard:
    card = game.card(index)
    return DrawnCard(card.kind, card.value, face_down, note)


def _seen_card(card: FishCard | None) -> DrawnCard:
    """A card of a seat's observation: its face if the viewer may see it, else face-down."""
    return DrawnCard(face_down=True) if card is None else DrawnCard(card.kind, card.value)


def _last_words(record: RoundRecord | None, seat: int) -> str:
    """What the last reveal did for `seat`, in a few words."""
    if record is None:
        return ""
    words = [f"played {record.plays[seat]}"]
    for result in record.depths:
        if result.winner == seat:
            words.append(f"caught {', '.join(map(str, result.fish))} ({DEPTH_NAMES[result.depth]})")
    return "; ".join(words)


def _last_seen(last: LastReveal | None) -> str:
    """What the last reveal did for a seat, as its row of the observation tells it."""
    if last is None:
        return ""
    words = [f"played {last.card}"]
    if last.caught_at is not None:
        words.append(f"caught at the {DEPTH_NAMES[last.caught_at]}")
    if last.thefts > 0:
        words.append("robbed by a Seagull")
    if last.triples > 0:
        words.append("three Jellyfish to the box")
    return "; ".join(words)


# -- drawing ---------------------------------------------------------------------------------
def _draw(scene: Scene) -> np.ndarray:
    """The picture of `scene`, drawn with Pillow."""
    require_pillow()
    from PIL import Image, ImageDraw, ImageFont

    n = len(scene.seats)
    height = HEADER + 3 * SPACE_ROW + 28 + n * SEAT_ROW + (8 if scene.reveal is None else FOOTER)  # one size a game: frames of a video
    image = Image.new("RGB", (WIDTH, height), SEA)
    draw = ImageDraw.Draw(image)
    big, font, small = (ImageFont.load_default(size=size) for size in (22, 15, 12))
    draw.text((16, 10), scene.title, fill=PALE, font=big)
    draw.text((16, 40), scene.round_line, fill=PALE, font=font)
    for i, line in enumerate(scene.kiti_lines):
        draw.text((470, 8 + 19 * i), line, fill=PALE, font=small if i else font)

    top = HEADER
    for depth, space in enumerate(scene.lagoon):
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
    for k, seat in enumerate(scene.seats):
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
    for i, line in enumerate((scene.reveal or ())[: FOOTER // 17]):
        draw.text((16, y + 17 * i), line, fill=PALE, font=small)
    return np.asarray(image, dtype=np.uint8)


def _card(draw: Any, x: int, y: int, card: DrawnCard, font: Any, small: Any, compact: bool = False) -> None:
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
