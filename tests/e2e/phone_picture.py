"""A turn message as a phone 390 px wide shows it, drawn in a Discord-like dark theme.

`python -m tests.e2e.phone_picture docs/phone-turn.png [PLAYERS]` writes the picture: the
message's text (the ping, then the embed's title, text and fields), the bot's real board PNG for
the turn scaled to the width, and the rows of buttons as `bot/edge/layout.py` lays them out, with
their labels from the catalogue. `compose(players)` gives the picture; its height must fit a
phone's screen (844 px), which a test holds for 2, 3 and 4 players.
"""

from __future__ import annotations

import argparse
import io
import random
import re
import sys
from collections.abc import Sequence

import discord
from PIL import Image, ImageDraw, ImageFont

import engine
from bot.edge.layout import decision_buttons
from bot.presentation import presenter
from bot.presentation.images import picture_of
from bot.services import GameInfo, GameStatus, GameView, Player
from bot.workers.jobs import board_png
from render.fonts import covers, font

WIDTH = 390
SCREEN_HEIGHT = 844
MARGIN = 12
BACKGROUND = (49, 51, 56)
EMBED = (43, 45, 49)
TEXT = (219, 222, 225)
MUTED = (148, 155, 164)
BUTTON = (88, 101, 242)
BUTTON_HEIGHT = 32
GAP = 8
FONT_SIZE = 14
LINE_HEIGHT = 19


def turn_view(players: int) -> GameView:
    """A game whose mover (seat 0) must lay a rug: the turn with the most buttons."""
    rng = random.Random(players)
    state = engine.new_game(engine.deal(players, "standard", rng, first_player=0))
    state, _ = engine.apply(state, "S")
    state, events = engine.apply(state, "D1")
    info = GameInfo(
        id=12,
        guild_id=1,
        channel_id=2,
        host_id=100,
        status=GameStatus.RUNNING,
        seats_wanted=players,
        variant="standard",
        turn_limit_seconds=None,
        seed_sha256="f" * 64,
        seq=2,
    )
    seated = tuple(Player(100 + seat, seat, name=f"Player {seat + 1}") for seat in range(players))
    return GameView(info, seated, state, events, events)


def _font(bold: bool = False) -> ImageFont.FreeTypeFont:
    return font(FONT_SIZE, bold=bold)


def _shown(text: str) -> str:
    """As Discord shows it: a mention as @name; what the bundled font cannot draw (the colour
    emoji) left out."""
    text = re.sub(r"<@(\d+)>", lambda match: f"@Player {int(match[1]) - 99}", text)
    return "".join(char for char in text.replace("**", "") if char == "\n" or covers(char)).strip()


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    lines: list[str] = []
    for paragraph in _shown(text).split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}".strip()
            if line and font.getlength(candidate) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def _text_lines(embed: discord.Embed, content: str | None) -> list[tuple[str, bool]]:
    parts: list[tuple[str, bool]] = []
    if content:
        parts.append((content, False))
    if embed.title:
        parts.append((embed.title, True))
    if embed.description:
        parts.append((embed.description, False))
    for field in embed.fields:
        parts.append((str(field.name), True))
        parts.append((str(field.value), False))
    return parts


def compose(players: int) -> Image.Image:
    """The turn message of a game of `players` as a phone shows it."""
    view = turn_view(players)
    post = presenter.turn_post(view, ping=True)
    assert post.image is not None
    inner = WIDTH - 2 * MARGIN
    regular, bold = _font(), _font(bold=True)
    rows: list[tuple[str, bool]] = []
    for text, strong in _text_lines(post.embed, post.content):
        rows.extend((line, strong) for line in _wrap(text, bold if strong else regular, inner - 16))
    png = board_png(picture_of(post.image))
    return draw_message(rows, png, decision_buttons(view))


def draw_message(
    rows: list[tuple[str, bool]], png: bytes, buttons: discord.ui.View | None
) -> Image.Image:
    """A message as a phone shows it: its text `rows` (each a line and whether it is bold) in
    an embed, the picture `png` scaled to the width, then the rows of `buttons`."""
    inner = WIDTH - 2 * MARGIN
    regular, bold = _font(), _font(bold=True)
    board = Image.open(io.BytesIO(png)).convert("RGB")
    board = board.resize(
        (inner, round(board.height * inner / board.width)), Image.Resampling.LANCZOS
    )
    button_rows: dict[int, list[str]] = {}
    for item in buttons.children if buttons is not None else []:
        button = item.item if isinstance(item, discord.ui.DynamicItem) else item
        assert isinstance(button, discord.ui.Button)
        button_rows.setdefault(button.row or 0, []).append(button.label or "")
    lines = [
        line for _, labels in sorted(button_rows.items()) for line in _flow(labels, regular, inner)
    ]
    height = (
        MARGIN
        + len(rows) * LINE_HEIGHT
        + GAP
        + board.height
        + GAP
        + len(lines) * (BUTTON_HEIGHT + GAP)
        + MARGIN
    )
    picture = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(picture)
    y = MARGIN
    draw.rectangle((MARGIN, y, WIDTH - MARGIN, y + len(rows) * LINE_HEIGHT), fill=EMBED)
    for text, strong in rows:
        draw.text((MARGIN + 8, y + 2), text, font=bold if strong else regular, fill=TEXT)
        y += LINE_HEIGHT
    y += GAP
    picture.paste(board, (MARGIN, y))
    y += board.height + GAP
    for line in lines:
        x = MARGIN
        for label, width in line:
            draw.rounded_rectangle((x, y, x + width, y + BUTTON_HEIGHT), radius=4, fill=BUTTON)
            draw.text((x + BUTTON_PADDING, y + 8), label, font=regular, fill=TEXT)
            x += width + GAP
        y += BUTTON_HEIGHT + GAP
    return picture


BUTTON_PADDING = 12
"""Space each side of a button's label."""


def _flow(
    labels: list[str], font: ImageFont.FreeTypeFont, inner: int
) -> list[list[tuple[str, int]]]:
    """One action row's buttons as a phone lays them out: each as wide as its label, wrapped
    onto a new line when the next one does not fit (labels are never cut)."""
    lines: list[list[tuple[str, int]]] = [[]]
    used = 0
    for label in labels:
        width = min(inner, round(font.getlength(label)) + 2 * BUTTON_PADDING)
        if lines[-1] and used + GAP + width > inner:
            lines.append([])
            used = 0
        used += (GAP if lines[-1] else 0) + width
        lines[-1].append((label, width))
    return lines


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.e2e.phone_picture",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("out", metavar="OUT.png", help="the picture to write")
    parser.add_argument(
        "players",
        metavar="PLAYERS",
        type=int,
        nargs="?",
        choices=(2, 3, 4),
        default=4,
        help="the game's players: 2, 3 or 4 (default 4)",
    )
    arguments = parser.parse_args(argv)
    picture = compose(arguments.players)
    picture.save(arguments.out, optimize=True)
    print(f"{arguments.out}: {picture.width}x{picture.height} px")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
