"""Board pictures for messages (and a game's animated replay), drawn in the worker pool so the
event loop never waits for Pillow.

A picture goes to a worker as a `BoardPicture`: the game's record, the events to mark and the
panel's words. The few words in a picture's panel (headings, "Turn", "Game over") come from the
message catalogue's `image.*` keys, in the language of the message the picture goes with.
"""

from __future__ import annotations

import dataclasses
import io
from functools import cache
from typing import Any

import discord

import engine
from bot.presentation.messages import text
from bot.presentation.presenter import IMAGE_NAME, BoardImage
from bot.workers import jobs as worker_jobs
from bot.workers.jobs import BoardPicture
from bot.workers.pool import Lane, WorkerPool
from render import Labels

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


def picture_of(image: BoardImage) -> BoardPicture:
    """What a worker needs to draw `image`: plain data, no live objects."""
    return BoardPicture(
        record=engine.record_of(image.state),
        events=image.events,
        numbered=image.numbered,
        final=image.final,
        labels=labels(image.language),
    )


class Pictures:
    """Draws the pictures of messages in the worker pool."""

    def __init__(self, workers: WorkerPool) -> None:
        self._workers = workers

    @property
    def busy(self) -> bool:
        """Whether a picture asked for now would wait for a free worker."""
        return self._workers.busy

    async def png(self, image: BoardImage) -> bytes:
        """The PNG for `image`."""
        return await self._workers.run(
            Lane.QUICK, worker_jobs.board_png, picture_of(image), limit=BOARD_TIMEOUT_SECONDS
        )

    async def replay_gif(self, record: dict[str, Any], language: str) -> bytes:
        """The animated GIF of a whole game from its record (FORMATS.md), its panel in
        `language`."""
        return await self._workers.run(
            Lane.SLOW,
            worker_jobs.replay_gif,
            engine.record_from_json(record),
            labels(language),
            limit=REPLAY_TIMEOUT_SECONDS,
        )


def as_file(png: bytes, name: str = IMAGE_NAME) -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)
