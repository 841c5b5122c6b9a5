"""How every interaction handler answers: `guarded` runs a handler and turns an error into a
short private answer (expected errors from the error table, anything else logged with a code
the user sees); `tell` answers privately whether or not the interaction was answered already.

`guarded` also notes when the interaction reached the bot (`received_at`), so a handler that
waits for a picture knows how much of Discord's 3 s is left, keeps the interaction answered in
time while the handler runs (`bot.edge.replies`), and tracks the handler as in flight so a
clean stop lets it finish. It counts the interactions turned away because the database was
unavailable (`TURNED_AWAY`), for the line the runtime logs once it is back.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord

from bot.edge import interactions, replies
from bot.edge.errors import describe, report
from bot.edge.incidents import DISCORD_FAILURES, failure_level, why
from bot.edge.inflight import HANDLERS
from bot.edge.interactions import Interaction
from bot.services.availability import DatabaseUnavailableError

log = logging.getLogger(__name__)

T = TypeVar("T")

DISCORD_TIMEOUT_SECONDS = 5.0
"""The longest wait for Discord to take a message (discord.py sets no timeout of its own)."""

_received: contextvars.ContextVar[float] = contextvars.ContextVar("received")
"""When the interaction being handled reached the bot (monotonic clock)."""


class Tally:
    """A count that is read and reset at once."""

    def __init__(self) -> None:
        self.count = 0

    def add(self) -> None:
        self.count += 1

    def take(self) -> int:
        """The count so far; it starts again from 0."""
        count, self.count = self.count, 0
        return count


UNKNOWN_INTERACTION = 10062
"""Discord's code for an interaction it no longer takes an answer to (its 3 s are over)."""
TURNED_AWAY = Tally()
"""Interactions answered that the game is paused: the database was unavailable."""


def received_at() -> float:
    """When the interaction being handled reached the bot (monotonic; now outside a handler)."""
    return _received.get(time.monotonic())


async def guarded(
    interaction: Interaction,
    what: str,
    work: Callable[[], Awaitable[None]],
    *,
    public: bool = False,
) -> None:
    """Run a handler; answer expected errors privately (in the user's language), log unexpected
    ones with a code. `public`: the command's answer is a public message (so is its deferral,
    should the handler be slow: `bot.edge.replies`)."""
    received = time.monotonic()
    _received.set(received)
    with HANDLERS.track(), replies.acknowledging(interaction, public=public, received=received):
        try:
            await work()
        except Exception as error:
            if _answered_too_late(error):  # nor can it be told why: one line says so
                log.warning("%s: answered too late for Discord to take (%s)", what, why(error))
                return
            if isinstance(error, DatabaseUnavailableError):
                TURNED_AWAY.add()
            language = interactions.user_language(interaction)
            message = describe(error, language)
            if message is None:
                message = report(error, what, language)
            await tell(interaction, message)


def _answered_too_late(error: BaseException) -> bool:
    """Whether Discord refused the interaction's answer as unknown: it reached the bot, or
    was answered, after Discord's 3 s (what was stored is shown in the background)."""
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION


async def tell(interaction: Interaction, message: str) -> None:
    """Answer privately: the first answer, or a follow-up when the interaction has one."""
    try:
        await replies.send(interaction, content=message, ephemeral=True)
    except DISCORD_FAILURES as error:
        log.log(
            failure_level(error),
            "could not tell user %s: %s (%s)",
            interaction.user.id,
            message,
            why(error),
        )


async def bounded(request: Awaitable[T]) -> T:
    """What a Discord request answers, waited for at most DISCORD_TIMEOUT_SECONDS (TimeoutError
    after that)."""
    return await asyncio.wait_for(request, DISCORD_TIMEOUT_SECONDS)


def or_missing(view: discord.ui.View | None) -> Any:
    """discord.py wants MISSING, not None, for 'no components' on a new message."""
    return view if view is not None else discord.utils.MISSING
