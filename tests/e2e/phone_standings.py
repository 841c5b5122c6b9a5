"""A tournament's standings: the picture at full width, and the whole message as a phone 390 px
wide shows it (the embed's text, then the picture scaled to the width), in the dark theme of
tests/e2e/phone_picture.py.

`python -m tests.e2e.phone_standings docs/standings.png docs/standings-phone.png` writes both,
for a Swiss tournament of five after its second round of three. `sample_view()` is that
tournament; `compose()` gives the phone picture, which must fit a phone's screen (844 px).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from PIL import Image, ImageDraw

from bot.presentation import tournaments as shown
from bot.services.standings import SeatResult, TableOutcome, standings
from bot.services.tournament_views import (
    Entrant,
    TableView,
    TournamentFormat,
    TournamentStatus,
    TournamentView,
)
from bot.storage.kinds import GameStatus
from bot.workers.jobs import standings_png
from tests.e2e.phone_picture import (
    BACKGROUND,
    EMBED,
    GAP,
    LINE_HEIGHT,
    MARGIN,
    SCREEN_HEIGHT,
    TEXT,
    WIDTH,
    _font,
    _text_lines,
    _wrap,
)

NAMES = {101: "Amina", 102: "Bartek", 103: "Chloé", 104: "Dmytro", 105: "Eve"}
THREADS = {
    301: "Spring cup · round 3 · table 1",
    302: "Spring cup · round 3 · table 2",
    303: "Spring cup · round 3 · table 3",
}
__all__ = ["SCREEN_HEIGHT", "compose", "sample_view"]


def _finished(round_no: int, *results: tuple[int | None, int, int, int]) -> TableOutcome:
    return TableOutcome(
        round_no,
        tuple(user for user, *_ in results),
        True,
        tuple(SeatResult(*result) for result in results),
    )


def sample_view() -> TournamentView:
    """A Swiss tournament of five at 2-seat tables, its third and last round being played."""
    played = [
        _finished(1, (101, 1, 71, 31), (102, 2, 58, 22)),
        _finished(1, (103, 1, 66, 27), (104, 2, 60, 30)),
        _finished(1, (105, 1, 64, 25), (None, 2, 52, 18)),
        _finished(2, (101, 1, 69, 29), (103, 2, 61, 24)),
        _finished(2, (102, 1, 63, 26), (105, 2, 55, 21)),
        _finished(2, (104, 1, 59, 23), (None, 2, 49, 17)),
        _finished(3, (103, 1, 70, 33), (105, 2, 57, 20)),
    ]
    playing = [TableOutcome(3, (101, 104), False), TableOutcome(3, (102, None), False)]
    seeding = list(NAMES)
    lines = tuple(standings(seeding, [*played, *playing], rounds=3))
    tables = [
        *(
            TableView(table.round, number, table.seats, game_status=GameStatus.OVER)
            for number, table in enumerate(played[:-1], start=1)
        ),
        TableView(3, 1, (101, 104), 301, 11, GameStatus.RUNNING),
        TableView(3, 2, (103, 105), 302, 12, GameStatus.OVER),
        TableView(3, 3, (102, None), 303, 13, GameStatus.RUNNING),
    ]
    return TournamentView(
        id=1,
        guild_id=1,
        channel_id=2,
        name="Spring cup",
        format=TournamentFormat.SWISS,
        seats=2,
        rounds=3,
        variant="standard",
        turn_limit_seconds=24 * 3600,
        locale="en",
        status=TournamentStatus.RUNNING,
        created_by=100,
        ended_by=None,
        message_id=5,
        created_at=datetime(2026, 3, 1, tzinfo=UTC),
        entrants=tuple(Entrant(user, name) for user, name in NAMES.items()),
        tables=tuple(tables),
        standings=lines,
    )


def _as_shown(text: str) -> str:
    """Mentions as a Discord client shows them: @name, #thread."""
    text = re.sub(r"<@(\d+)>", lambda match: f"@{NAMES.get(int(match[1]), 'mod')}", text)
    return re.sub(r"<#(\d+)>", lambda match: f"#{THREADS[int(match[1])]}", text)


def picture() -> bytes:
    """The standings picture at its full width."""
    post = shown.standings_post(sample_view())
    assert post.picture is not None
    return standings_png(post.picture)


def compose() -> Image.Image:
    """The standings message as a phone shows it."""
    post = shown.standings_post(sample_view())
    inner = WIDTH - 2 * MARGIN
    regular, bold = _font(), _font(bold=True)
    rows: list[tuple[str, bool]] = []
    for text, strong in _text_lines(post.embed, post.content):
        wrapped = _wrap(_as_shown(text), bold if strong else regular, inner - 16)
        rows.extend((line, strong) for line in wrapped)
    footer = _wrap(str(post.embed.footer.text), regular, inner - 16)
    table = Image.open(io.BytesIO(picture())).convert("RGB")
    table = table.resize(
        (inner, round(table.height * inner / table.width)), Image.Resampling.LANCZOS
    )
    height = MARGIN + (len(rows) + len(footer)) * LINE_HEIGHT + 2 * GAP + table.height + MARGIN
    phone = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(phone)
    draw.rectangle((MARGIN, MARGIN, WIDTH - MARGIN, height - MARGIN), fill=EMBED)
    y = MARGIN
    for line, strong in rows:
        draw.text((MARGIN + 8, y + 2), line, font=bold if strong else regular, fill=TEXT)
        y += LINE_HEIGHT
    y += GAP
    phone.paste(table, (MARGIN, y))
    y += table.height + GAP
    for line in footer:
        draw.text((MARGIN + 8, y + 2), line, font=regular, fill=TEXT)
        y += LINE_HEIGHT
    return phone


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.e2e.phone_standings",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("full", metavar="FULL.png", help="the picture at full width")
    parser.add_argument("phone", metavar="PHONE.png", help="the message on a phone")
    arguments = parser.parse_args(argv)
    with open(arguments.full, "wb") as full:
        full.write(picture())
    phone = compose()
    phone.save(arguments.phone, optimize=True)
    print(f"{arguments.full}: full width; {arguments.phone}: {phone.width}x{phone.height} px")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
