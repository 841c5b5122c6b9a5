"""Board pictures for messages, rendered in a worker thread so the event loop never waits."""

from __future__ import annotations

import asyncio
import io

import discord

import engine
from bot.presenter import IMAGE_NAME, BoardImage
from render import render_board, render_game_over


def _png(image: BoardImage) -> bytes:
    if image.final:
        return render_game_over(image.state, events=image.events)
    return render_board(image.state, events=image.events, show_candidates=image.numbered)


async def render_png(image: BoardImage) -> bytes:
    """The PNG for `image`, drawn off the event loop."""
    return await asyncio.to_thread(_png, image)


async def warm_up() -> None:
    """Draw one board at start-up so fonts and cached layers are ready for the first click."""
    state = engine.new_game(engine.deal(3, engine.Variant.STANDARD, first_player=0))
    await render_png(BoardImage(state, ()))


def as_file(png: bytes, name: str = IMAGE_NAME) -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)
