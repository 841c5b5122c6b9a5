"""Board pictures for messages (and a game's animated replay, the rules guide's scenes and a
player's rating chart), drawn in the worker pool so the event loop never waits for Pillow.

A picture goes to a worker as a `BoardPicture`: the game's record, the events to mark and the
panel's words. The few words in a picture's panel (headings, "Turn", "Game over") come from the
message catalogue's `image.*` keys, in the language of the message the picture goes with.
The panel shows each seat by name (`seat_names`): a human by the name stored with their seat,
an AI by its localised name ("AI (hard)"); a seat without a name keeps render's seat label.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Sequence
from functools import cache
from typing import Any

import discord

import engine
from bot.presentation.messages import GROUP_SEPARATORS, text
from bot.presentation.names import ai_name
from bot.presentation.presenter import IMAGE_NAME, BoardImage
from bot.presentation.ratings import RatingChart
from bot.services.views import Player
from bot.workers import jobs as worker_jobs
from bot.workers.jobs import BoardPicture, ChartPicture
from bot.workers.pool import Lane, WorkerPool
from render import Labels
from render.rating_chart import ChartLabels
from render.standings import StandingsTable

IMAGE_LABEL_PREFIX = "image."
BOARD_TIMEOUT_SECONDS = 30.0
"""The longest a board picture (a few milliseconds of work) may take in a worker."""
REPLAY_TIMEOUT_SECONDS = 300.0
"""The longest a replay GIF (about a second for a long game) may take in a worker."""


@cache
def labels(language: str) -> Labels:
    """The panel's words in `language`: field `seat` from key `image.seat`, and so on.

    Templates keep their `{n}` placeholder for render to fill.
    """
    words = {
        field.name: text(IMAGE_LABEL_PREFIX + field.name, language, n="{n}")
        for field in dataclasses.fields(Labels)
    }
    return Labels(**words)


@cache
def chart_labels(language: str) -> ChartLabels:
    """The rating chart's words in `language` (keys `chart.title`, `chart.games`, ...)."""
    words = {
        field.name: text(f"chart.{field.name}", language)
        for field in dataclasses.fields(ChartLabels)
    }
    return ChartLabels(**words)


def seat_names(players: Sequence[Player], seats: int, language: str) -> tuple[str, ...] | None:
    """What the panel calls each of the `seats` seats, in seat order: an AI seat by its name in
    `language` ("🤖 AI (hard)": render drops the emoji), a human by the name stored with their
    seat. A seat with no name gets "", which render shows as its seat label; None (seat labels
    throughout) when no seat has a name."""
    by_seat = {player.seat: player for player in players if player.seat is not None}
    names = []
    for seat in range(seats):
        player = by_seat.get(seat)
        if player is None:
            names.append("")
        elif player.ai_level is not None:
            names.append(ai_name(player.ai_level, language))
        else:
            names.append(player.name or "")
    return tuple(names) if any(names) else None


def picture_of(image: BoardImage) -> BoardPicture:
    """What a worker needs to draw `image`: plain data, no live objects."""
    return BoardPicture(
        record=engine.record_of(image.state),
        events=image.events,
        numbered=image.numbered,
        final=image.final,
        labels=labels(image.language),
        names=seat_names(image.players, image.state.players, image.language),
        show_choices=image.show_choices,
        panel_turn=image.panel_turn,
    )


class Pictures:
    """Draws the pictures of messages in the worker pool."""

    def __init__(self, workers: WorkerPool) -> None:
        self._workers = workers
        self._guide: dict[str, bytes] = {}
        """The rules guide's pictures drawn so far, by scene (they never change)."""

    @property
    def busy(self) -> bool:
        """Whether a picture asked for now would wait for a free worker."""
        return self._workers.busy

    async def png(self, image: BoardImage) -> bytes:
        """The PNG for `image`."""
        return await self._workers.run(
            Lane.QUICK, worker_jobs.board_png, picture_of(image), limit=BOARD_TIMEOUT_SECONDS
        )

    async def guide_png(self, scene: str) -> bytes:
        """The PNG of a rules guide's scene (render.guide): drawn once, then kept."""
        png = self._guide.get(scene)
        if png is None:
            png = await self._workers.run(
                Lane.QUICK, worker_jobs.guide_png, scene, limit=BOARD_TIMEOUT_SECONDS
            )
            self._guide[scene] = png
        return png

    async def rating_chart(self, chart: RatingChart) -> bytes:
        """The PNG of a member's rating chart, its words and numbers in its language."""
        picture = ChartPicture(
            points=chart.points,
            provisional=chart.provisional,
            labels=chart_labels(chart.language),
            separator=GROUP_SEPARATORS.get(chart.language, ","),
            accuracy=chart.accuracy,
        )
        return await self._workers.run(
            Lane.QUICK, worker_jobs.rating_chart_png, picture, limit=BOARD_TIMEOUT_SECONDS
        )

    async def standings_png(self, table: StandingsTable) -> bytes:
        """The PNG of a tournament's standings."""
        return await self._workers.run(
            Lane.QUICK, worker_jobs.standings_png, table, limit=BOARD_TIMEOUT_SECONDS
        )

    async def replay_gif(
        self, record: dict[str, Any], language: str, players: Sequence[Player] = ()
    ) -> bytes:
        """The animated GIF of a whole game from its record (FORMATS.md), its panel in
        `language`, its seats named after `players` (as in `seat_names`)."""
        parsed = engine.record_from_json(record)
        return await self._workers.run(
            Lane.SLOW,
            worker_jobs.replay_gif,
            parsed,
            labels(language),
            seat_names(players, parsed.players, language),
            limit=REPLAY_TIMEOUT_SECONDS,
        )


def as_file(png: bytes, name: str = IMAGE_NAME) -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)
