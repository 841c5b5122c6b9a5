"""Interactions the fake dispatched: handles that record the answers, and latency figures."""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .model import FakeChannel, FakeMessage, FakeUser
from .world import WAIT_SECONDS, World

Json = dict[str, Any]

APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3

PONG = 1
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

INTERACTION_TOKEN_LIFETIME = 15 * 60


class InteractionInputError(ValueError):
    """A test asked for an interaction no Discord client could send (unknown option, ...)."""


@dataclass(frozen=True, slots=True)
class InteractionEvent:
    """Something the bot did with an interaction: its callback, a follow-up, an edit, ..."""

    kind: str
    """"callback", "followup", "edit_original", "edit_followup", "delete"."""
    at: float
    response_type: int | None = None
    message: FakeMessage | None = None
    """The live message (later edits show); ``snapshot`` is how it looked at this event."""
    data: Json | None = None
    snapshot: Json | None = None


@dataclass(slots=True)
class InteractionHandle:
    """One dispatched interaction; await its answer with ``response()`` / ``answer()``."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    payload: Json
    world: World = field(repr=False)
    created_at: float = field(default_factory=time.perf_counter)
    """When it was made, on the fake's clock (World.now): its token lasts 15 minutes."""
    queued_at: float | None = None
    """perf_counter time the fake queued INTERACTION_CREATE (when Discord made it): the 3 s for
    its first callback run from then, even when the frame reaches the bot later (replayed on
    RESUME)."""
    dispatched_at: float | None = None
    """perf_counter time the INTERACTION_CREATE frame was written to the bot's socket."""
    responded_at: float | None = None
    """perf_counter time the first accepted callback request reached the fake."""
    callback_type: int | None = None
    original_message_id: int | None = None
    source_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    events: list[InteractionEvent] = field(default_factory=list)
    callback_attempts: int = 0
    refusals: list[int] = field(default_factory=list)
    """Discord error codes the fake answered callbacks with (10062 late, 40060 twice, ...)."""
    undelivered: bool = False
    """No gateway session held the guild's shard: the bot never got it (lost, as on Discord)."""

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to the first accepted callback (None if not answered)."""
        if self.dispatched_at is None or self.responded_at is None:
            return None
        return self.responded_at - self.dispatched_at

    def mark_dispatched(self, at: float) -> None:
        self.dispatched_at = at
        self.world.notify()

    def record(self, event: InteractionEvent) -> None:
        if event.message is not None and event.snapshot is None:
            event = dataclasses.replace(event, snapshot=event.message.to_payload())
        self.events.append(event)
        self.world.notify()

    async def response(self, timeout: float = WAIT_SECONDS) -> InteractionEvent:
        """The initial callback (any type), once it has arrived."""
        return await self.world.wait_for(
            lambda: next((e for e in self.events if e.kind == "callback"), None),
            timeout=timeout,
            what=f"a callback for interaction {self.id}",
        )

    async def answer(self, timeout: float = WAIT_SECONDS) -> FakeMessage:
        """The message the user finally sees in answer: the reply, or the deferred one's edit."""
        return await self.world.wait_for(
            self._visible_answer, timeout=timeout, what=f"an answer to interaction {self.id}"
        )

    def _visible_answer(self) -> FakeMessage | None:
        callback = next((e for e in self.events if e.kind == "callback"), None)
        if callback is None:
            return None
        if callback.response_type in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
            return callback.message
        for event in self.events:
            if event.kind in ("edit_original", "followup") and event.message is not None:
                return event.message
        return None

    def followups_besides_answer(self) -> list[FakeMessage]:
        """The follow-ups sent so far other than the visible answer (after a deferral, the
        answer may be a follow-up itself): what the user was shown after it."""
        answer = self._visible_answer()
        return [
            event.message
            for event in self.events
            if event.kind == "followup"
            and event.message is not None
            and (answer is None or event.message.id != answer.id)
        ]

    async def followups(self, count: int = 1, timeout: float = WAIT_SECONDS) -> list[FakeMessage]:
        """The first ``count`` follow-up messages (a follow-up replacing a deferral counts)."""

        def probe() -> list[FakeMessage] | None:
            found = [e.message for e in self.events if e.kind == "followup" and e.message]
            return found[:count] if len(found) >= count else None

        return await self.world.wait_for(probe, timeout=timeout, what=f"{count} follow-ups")

    async def wait_for(
        self, predicate: Callable[[InteractionHandle], bool], timeout: float = WAIT_SECONDS
    ) -> InteractionHandle:
        """Wait until ``predicate(self)`` holds (for example, two edits have arrived)."""
        return await self.world.wait_for(
            lambda: self if predicate(self) else None, timeout=timeout, what="interaction predicate"
        )

    def original_message(self) -> FakeMessage | None:
        if self.original_message_id is None:
            return None
        return self.world.messages.get(self.original_message_id)


@dataclass(frozen=True, slots=True)
class LatencyStats:
    """Dispatch-to-callback latency over answered interactions, in seconds."""

    count: int
    unanswered: int
    median: float
    worst: float
    p99: float

    def describe(self) -> str:
        return (
            f"{self.count} answered ({self.unanswered} unanswered): median "
            f"{self.median * 1000:.1f} ms, p99 {self.p99 * 1000:.1f} ms, worst "
            f"{self.worst * 1000:.1f} ms"
        )


def latency_stats(handles: list[InteractionHandle]) -> LatencyStats:
    latencies = sorted(h.latency for h in handles if h.latency is not None)
    unanswered = sum(1 for h in handles if h.latency is None)
    if not latencies:
        return LatencyStats(0, unanswered, 0.0, 0.0, 0.0)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return LatencyStats(
        len(latencies), unanswered, statistics.median(latencies), latencies[-1], p99
    )
