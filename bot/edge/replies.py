"""How a handler answers an interaction, always within Discord's 3 s.

Discord fails an interaction that is not answered within 3 s of its creation: the user sees
"The application did not respond" and every later answer is refused, although what they asked
for may well be done. A handler usually answers in milliseconds, but a busy database, a
process catching up after a restart or an overloaded host can hold it longer. So while a
handler runs, a watchdog (`acknowledging`) acknowledges the interaction itself once
`ACKNOWLEDGE_AFTER_SECONDS` have gone since Discord created it and no answer has been given: a
click is deferred without a visible change (the clicked message is edited later), a command
shows the bot thinking, privately unless the command's answer is a public one.

Every answer of a handler goes through this module (`send`, `edit`, `defer`), which takes the
place of discord.py's `interaction.response` and turns into the right call whatever was sent
before: the first answer, the filling of a deferred ("thinking") answer, a follow-up, or an
edit of the clicked message after a deferral. A lock per interaction orders the watchdog and
the handler, so an interaction is never answered twice (Discord refuses a second first answer).

A deferred answer shown privately cannot become public (nor the reverse): an answer of the
other kind replaces it (the deferred one is deleted and the answer sent as a follow-up).

A handler that waits on slow work before it answers (a picture drawn in the workers) waits
through `in_time`, which defers the interaction when the work is late and cancels the work
if the handler stops waiting first.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord

from bot.edge.incidents import DISCORD_FAILURES, failure_level, why

Interaction = discord.Interaction[Any]
"""An interaction of this bot's client (as in `bot.edge.interactions`, which this module does
not import: it sits below the rest of the edge)."""

log = logging.getLogger(__name__)

T = TypeVar("T")

ACKNOWLEDGE_AFTER_SECONDS = 2.0
"""How long after Discord created an interaction its handler may take to answer before the
watchdog acknowledges it (Discord's limit is 3 s; the rest is for the request to get there)."""

_CLOCK_SKEW_SECONDS = 3.0
"""The most an interaction's age read from its id (Discord's clock) is trusted for."""


@dataclass
class _Answering:
    """Where the answer of one interaction stands."""

    interaction: Interaction
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    loading: bool | None = None
    """A deferred "thinking" answer waits to be filled: whether it is private (None: none)."""
    answered: bool = False
    """The handler has shown something: a message sent, or a message edited."""


_current: contextvars.ContextVar[_Answering | None] = contextvars.ContextVar(
    "answering", default=None
)
"""The interaction being handled (tasks a handler starts inherit it)."""


def _state(interaction: Interaction) -> _Answering:
    """The answering state of `interaction`: the handled one's, or a fresh one outside a
    handler (nothing else answers it then, so nothing needs ordering)."""
    current = _current.get()
    if current is not None and current.interaction is interaction:
        return current
    return _Answering(interaction)


def answered(interaction: Interaction) -> bool:
    """Whether the handler has answered with something shown (a deferral does not count)."""
    return _state(interaction).answered


@dataclass(frozen=True, slots=True)
class Sent:
    """A message sent in answer."""

    message_id: int | None
    """Its id (None: Discord did not say; `interaction.original_response()` finds it)."""
    original: bool
    """Whether it is the interaction's own reply (edited through its original response), not
    a follow-up."""


async def send(interaction: Interaction, *, ephemeral: bool = False, **fields: Any) -> Sent:
    """Answer with a message (`fields` as for discord.py's `send_message`): the first answer,
    the filling of a deferred one, or a follow-up."""
    state = _state(interaction)
    async with state.lock:
        state.answered = True
        if not interaction.response.is_done():
            sent = await interaction.response.send_message(ephemeral=ephemeral, **fields)
            return Sent(sent.message_id if sent is not None else None, original=True)
        loading, state.loading = state.loading, None
        if loading is not None and loading != ephemeral:
            await _drop_deferred(interaction)
            loading = None
        message = await interaction.followup.send(wait=True, ephemeral=ephemeral, **fields)
        return Sent(message.id, original=loading is not None)


async def edit(interaction: Interaction, **fields: Any) -> None:
    """Answer a click by editing the message it is on (`fields` as for discord.py's
    `edit_message`), before or after a deferral."""
    state = _state(interaction)
    async with state.lock:
        state.answered = True
        if interaction.response.is_done():
            await interaction.edit_original_response(**fields)
        else:
            await interaction.response.edit_message(**fields)


async def defer(
    interaction: Interaction, *, ephemeral: bool = False, thinking: bool | None = None
) -> None:
    """Acknowledge now and answer later (`send` or `edit`); nothing if acknowledged already.
    `thinking`: show that the bot is working on an answer (privately if `ephemeral`); by
    default a command does, a click does not (its message is edited later)."""
    await _defer(_state(interaction), ephemeral=ephemeral, thinking=thinking)


async def _defer(state: _Answering, *, ephemeral: bool, thinking: bool | None) -> bool:
    """`defer` on the interaction of `state`; whether this call acknowledged it."""
    interaction = state.interaction
    if thinking is None:
        thinking = interaction.type is not discord.InteractionType.component
    async with state.lock:
        if interaction.response.is_done():
            return False
        await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
        if thinking:
            state.loading = ephemeral
        return True


async def in_time(
    interaction: Interaction, work: Awaitable[T], patience: float, *, ephemeral: bool = False
) -> T:
    """The result of `work` (a picture being drawn, say), deferring `interaction` if it is not
    ready within `patience` seconds (none: at once). If the handler stops waiting first (it is
    cancelled, or the deferral fails), the work is cancelled with it: nobody would show its
    result, and a failure of it would be left for nobody to take (asyncio would log it with a
    traceback)."""
    task = asyncio.ensure_future(work)
    try:
        try:
            return await asyncio.wait_for(asyncio.shield(task), max(0.0, patience))
        except TimeoutError:
            await defer(interaction, ephemeral=ephemeral)
            return await task
    finally:
        task.cancel()  # nothing once it is done


def elapsed(interaction: Interaction, received: float) -> float:
    """Seconds of Discord's 3 s gone: since Discord made `interaction` (its age read from its
    id, trusted up to `_CLOCK_SKEW_SECONDS` in case the clocks disagree), or since it reached
    the bot (`received`, monotonic clock) if that is longer."""
    waited = time.monotonic() - received
    age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    return max(waited, min(age, _CLOCK_SKEW_SECONDS))


@contextlib.contextmanager
def acknowledging(interaction: Interaction, *, public: bool, received: float) -> Iterator[None]:
    """Handle `interaction` inside this block with the watchdog on (see the module).
    `public`: a command's answer is a public message, so its deferral shows publicly.
    `received`: when the interaction reached the bot (monotonic clock)."""
    state = _Answering(interaction)
    token = _current.set(state)
    watchdog = asyncio.create_task(_acknowledge_when_late(state, public, received))
    try:
        yield
    finally:
        watchdog.cancel()
        _current.reset(token)


async def _acknowledge_when_late(state: _Answering, public: bool, received: float) -> None:
    interaction = state.interaction
    await asyncio.sleep(max(0.0, ACKNOWLEDGE_AFTER_SECONDS - elapsed(interaction, received)))
    try:
        if not await _defer(state, ephemeral=not public, thinking=None):
            return  # answered in time
    except DISCORD_FAILURES as error:
        log.log(
            failure_level(error, logging.INFO),
            "interaction %s not acknowledged in time: %s",
            interaction.id,
            why(error),
        )
        return
    log.info(
        "interaction %s (user %s) was slow to answer: acknowledged, answer to follow",
        interaction.id,
        interaction.user.id,
    )


async def _drop_deferred(interaction: Interaction) -> None:
    """Delete a deferred answer about to be replaced by one of the other visibility."""
    with contextlib.suppress(discord.HTTPException):
        await interaction.delete_original_response()
