"""Board pictures for messages (and a game's animated replay), rendered in a worker thread so
the event loop never waits.

The few words in a picture's panel (headings, "Turn", "Game over") come from the message
catalogue's `image.*` keys, in the language of the message the picture goes with.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import io
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

import discord

import engine
from bot.messages import text
from bot.presenter import IMAGE_NAME, BoardImage
from render import Labels, render_board, render_game_over, render_replay

IMAGE_LABEL_PREFIX = "image."


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


def _png(image: BoardImage) -> bytes:
    words = labels(image.language)
    if image.final:
        return render_game_over(image.state, events=image.events, labels=words)
    return render_board(
        image.state, events=image.events, show_candidates=image.numbered, labels=words
    )


RENDER_THREADS = 2
"""Pictures drawn at once: more threads than cores draw no faster, and every picture being
drawn holds its canvases in memory (six at once, the default pool's size on two cores, took
the bot's peak memory from about 140 MB to over 250 MB in the load benchmark)."""
_renderer = ThreadPoolExecutor(max_workers=RENDER_THREADS, thread_name_prefix="render")


async def render_png(image: BoardImage) -> bytes:
    """The PNG for `image`, drawn off the event loop."""
    return await asyncio.get_running_loop().run_in_executor(_renderer, _png, image)


async def render_replay_gif(record: dict[str, Any], language: str) -> bytes:
    """The animated GIF of a whole game from its record (FORMATS.md), drawn off the event
    loop, its panel in `language`."""
    replay = functools.partial(
        render_replay, engine.record_from_json(record), labels=labels(language)
    )
    return await asyncio.get_running_loop().run_in_executor(_renderer, replay)


async def warm_up() -> None:
    """Draw one board at start-up so fonts and cached layers are ready for the first click."""
    state = engine.new_game(engine.deal(3, engine.Variant.STANDARD, first_player=0))
    await render_png(BoardImage(state, ()))


def as_file(png: bytes, name: str = IMAGE_NAME) -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)
