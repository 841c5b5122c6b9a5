"""The gateway websocket: HELLO, IDENTIFY/READY, heartbeats, dispatches, RESUME with replay.

Sharding works as on Discord: each connection identifies as one shard `[shard_id, num_shards]`
(no `shard` means `[0, 1]`), and a guild's events go only to the session of the shard
`(guild_id >> 22) % num_shards`; DMs go to shard 0. `shard_count` is the count Discord
recommends and requires: fewer shards is refused with close code 4011 (sharding required), an
id outside `0..num_shards-1` with 4010 (invalid shard).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

Json = dict[str, Any]

log = logging.getLogger(__name__)

DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
RESUME = 6
RECONNECT = 7
INVALID_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

GUILDS_INTENT = 1 << 0
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_PRESENCES_INTENT = 1 << 8
MESSAGE_CONTENT_INTENT = 1 << 15
INVALID_SHARD = 4010
SHARDING_REQUIRED = 4011
PRIVILEGED_INTENTS = GUILD_MEMBERS_INTENT | GUILD_PRESENCES_INTENT | MESSAGE_CONTENT_INTENT
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12

REPLAY_LIMIT = 20_000


class NoGatewaySessionError(RuntimeError):
    """Raised when something must be dispatched but no bot has identified yet."""


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that gets a guild's events (DMs, guild None, go to shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


@dataclass(slots=True)
class Frame:
    """A dispatch with its sequence number; ``sent_at`` is set when first written."""

    seq: int
    event: str
    text: str
    on_sent: Callable[[float], None] | None = None
    sent_at: float | None = None

    def mark_sent(self) -> None:
        if self.sent_at is None:
            self.sent_at = time.perf_counter()
            if self.on_sent is not None:
                self.on_sent(self.sent_at)


class Connection:
    """One websocket: an ordered outbound queue written by a single writer task."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request, compress: str | None):
        self.ws = ws
        self.request = request
        self.compress = compress
        self._compressor = zlib.compressobj() if compress == "zlib-stream" else None
        self._queue: asyncio.Queue[str | Frame] = asyncio.Queue()
        self.writer = asyncio.get_running_loop().create_task(self._write_forever())
        self.close_code: int | None = None

    def send(self, item: Json | Frame) -> None:
        self._queue.put_nowait(item if isinstance(item, Frame) else json.dumps(item))

    async def _write_forever(self) -> None:
        while True:
            item = await self._queue.get()
            text = item.text if isinstance(item, Frame) else item
            try:
                if self._compressor is not None:
                    data = self._compressor.compress(text.encode())
                    await self.ws.send_bytes(data + self._compressor.flush(zlib.Z_SYNC_FLUSH))
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
            if isinstance(item, Frame):
                item.mark_sent()

    def stop(self) -> None:
        self.writer.cancel()


@dataclass(slots=True)
class GatewaySession:
    """A gateway session: its sequence, every dispatch (for replay) and its live connection."""

    session_id: str
    token: str
    intents: int
    shard_id: int = 0
    shard_count: int = 1
    seq: int = 0
    frames: list[Frame] = field(default_factory=list)
    connection: Connection | None = None
    resumes: int = 0
    replayed: int = 0
    invalidated: bool = False
    identified_at: float = field(default_factory=time.perf_counter)

    @property
    def connected(self) -> bool:
        return self.connection is not None

    @property
    def shard(self) -> tuple[int, int]:
        """``(shard_id, num_shards)`` as IDENTIFY gave it."""
        return self.shard_id, self.shard_count

    def holds(self, guild_id: int | None) -> bool:
        """Whether the shard this connection identified as gets the guild's events (None: a DM)."""
        return shard_of(guild_id, self.shard_count) == self.shard_id

    @property
    def privileged_intents(self) -> int:
        """The privileged intent bits (members, presences, message content) IDENTIFY asked for."""
        return self.intents & PRIVILEGED_INTENTS

    def dispatch(self, event: str, data: Any, on_sent: Callable[[float], None] | None) -> Frame:
        self.seq += 1
        text = json.dumps({"op": DISPATCH, "t": event, "s": self.seq, "d": data})
        frame = Frame(self.seq, event, text, on_sent)
        self.frames.append(frame)
        if len(self.frames) > REPLAY_LIMIT:
            del self.frames[: len(self.frames) - REPLAY_LIMIT]
        if self.connection is not None:
            self.connection.send(frame)
        return frame

    def missed_since(self, seq: int) -> list[Frame] | None:
        """Frames after ``seq``, or None when they are no longer all kept."""
        if self.frames and self.frames[0].seq > seq + 1:
            return None
        return [f for f in self.frames if f.seq > seq]


ReadyBuilder = Callable[[GatewaySession], tuple[Json, list[Json]]]


class Gateway:
    """Accepts discord.py's gateway connections and routes dispatches to the live session."""

    def __init__(
        self,
        ready_builder: ReadyBuilder,
        on_change: Callable[[], None],
        *,
        heartbeat_interval_ms: int = 41_250,
        shard_count: int = 1,
    ) -> None:
        self._ready_builder = ready_builder
        self._on_change = on_change
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.shard_count = shard_count
        """The shard count ``GET /gateway/bot`` recommends, and the fewest IDENTIFY may use."""
        self.sessions: dict[str, GatewaySession] = {}
        self.current: GatewaySession | None = None
        """The session identified last (with one shard: the bot's only session)."""
        self.shards: dict[tuple[int, int], GatewaySession] = {}
        """The live session of each ``(shard_id, num_shards)`` (a newer IDENTIFY replaces it)."""
        self.undelivered: list[tuple[str, int | None]] = []
        """``(event, guild_id)`` of dispatches no session's shard held: lost, as on Discord."""
        self.rejected: list[int] = []
        """Close codes IDENTIFYs were refused with (4004 token, 4010 / 4011 shards)."""
        self.connections: list[Connection] = []
        self.identifies = 0
        self.heartbeats = 0
        self.errors: list[str] = []
        self.expected_token: str | None = None
        self.url = ""

    @property
    def connected(self) -> bool:
        return self.current is not None and self.current.connected

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The session whose shard gets the guild's events (None: a DM), identified last."""
        held = [s for s in self.shards.values() if s.holds(guild_id)]
        return max(held, key=lambda s: s.identified_at, default=None)

    def shard_session(self, shard_id: int) -> GatewaySession | None:
        """The session of shard ``shard_id`` (of any count), identified last."""
        held = [s for s in self.shards.values() if s.shard_id == shard_id]
        return max(held, key=lambda s: s.identified_at, default=None)

    def dispatch(
        self,
        event: str,
        data: Any,
        *,
        guild_id: int | None = None,
        on_sent: Callable[[float], None] | None = None,
    ) -> Frame | None:
        """Queue a dispatch on the session of the guild's shard (sent now, or replayed on
        RESUME). None when no session holds that shard: the event is lost (`undelivered`)."""
        if self.current is None:
            raise NoGatewaySessionError(f"cannot dispatch {event}: no bot has identified")
        session = self.session_for(guild_id)
        if session is None:
            self.undelivered.append((event, guild_id))
            self._on_change()
            return None
        return session.dispatch(event, data, on_sent)

    def dispatch_if_session(
        self, event: str, data: Any, intent: int = GUILDS_INTENT, *, guild_id: int | None = None
    ) -> None:
        """Dispatch a state event when the guild's shard has a session that asked for the
        intent."""
        session = self.session_for(guild_id)
        if session is not None and session.intents & intent:
            session.dispatch(event, data, None)

    def _live(self, shard_id: int | None) -> GatewaySession | None:
        """The session of ``shard_id`` (None: the one identified last)."""
        return self.current if shard_id is None else self.shard_session(shard_id)

    async def drop(self, code: int | None = 4000, *, shard_id: int | None = None) -> None:
        """Close the live connection (None: abort TCP, no close frame); the session survives.
        ``shard_id`` picks the shard's connection (default: the session identified last)."""
        session = self._live(shard_id)
        if session is None or session.connection is None:
            raise NoGatewaySessionError("no live gateway connection to drop")
        connection = session.connection
        session.connection = None
        connection.stop()
        if code is None:
            transport = connection.request.transport
            if transport is not None:
                transport.abort()
        else:
            await connection.ws.close(code=code, message=b"fakecord drop")
        self._on_change()

    def send_reconnect(self, *, shard_id: int | None = None) -> None:
        """Send op 7 RECONNECT: the client closes and resumes."""
        session = self._live(shard_id)
        if session is None or session.connection is None:
            raise NoGatewaySessionError("no live gateway connection")
        session.connection.send({"op": RECONNECT, "d": None})

    def invalidate(self, *, shard_id: int | None = None) -> None:
        """Send op 9 (not resumable): the client identifies again with a new session."""
        session = self._live(shard_id)
        if session is None or session.connection is None:
            raise NoGatewaySessionError("no live gateway connection")
        session.invalidated = True
        session.connection.send({"op": INVALID_SESSION, "d": False})

    async def close_all(self) -> None:
        for connection in list(self.connections):
            connection.stop()
            if not connection.ws.closed:
                await connection.ws.close(code=1001, message=b"fakecord shutting down")

    async def handle(self, request: web.Request) -> web.StreamResponse:
        compress = request.query.get("compress")
        ws = web.WebSocketResponse(max_msg_size=0, heartbeat=None)
        await ws.prepare(request)
        connection = Connection(ws, request, compress)
        self.connections.append(connection)
        if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
            self.errors.append(f"unsupported gateway query {dict(request.query)}")
            await ws.close(code=4000, message=b"fakecord speaks json with zlib-stream or none")
            return ws
        connection.send({"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
        session: GatewaySession | None = None
        try:
            async for message in ws:
                if message.type is not WSMsgType.TEXT:
                    continue
                session = self._receive(connection, json.loads(message.data)) or session
        finally:
            connection.stop()
            self.connections.remove(connection)
            if session is not None and session.connection is connection:
                session.connection = None
            self._on_change()
        return ws

    def _receive(self, connection: Connection, payload: Json) -> GatewaySession | None:
        op = payload.get("op")
        data: Json = payload.get("d") or {}
        if op == HEARTBEAT:
            self.heartbeats += 1
            connection.send({"op": HEARTBEAT_ACK})
            return None
        if op == IDENTIFY:
            return self._identify(connection, data)
        if op == RESUME:
            return self._resume(connection, data)
        return None

    def _identify(self, connection: Connection, data: Json) -> GatewaySession | None:
        token = str(data.get("token", ""))
        if self.expected_token is not None and token != self.expected_token:
            self._reject(connection, 4004, "Authentication failed.")
            return None
        shard = self._shard(data.get("shard"))
        if isinstance(shard, int):
            reason = "Invalid shard." if shard == INVALID_SHARD else "Sharding required."
            self._reject(connection, shard, reason)
            return None
        self.identifies += 1
        session = GatewaySession(
            secrets.token_hex(16), token, int(data.get("intents", 0)), shard[0], shard[1]
        )
        previous = self.shards.get(session.shard)
        if previous is not None and previous.connection is not None:
            previous.connection.stop()
        self.sessions[session.session_id] = session
        self.shards[session.shard] = session
        self.current = session
        session.connection = connection
        ready, guilds = self._ready_builder(session)
        if "shard" in data:
            ready["shard"] = list(session.shard)
        session.dispatch("READY", ready, None)
        if session.intents & GUILDS_INTENT:
            for guild in guilds:
                session.dispatch("GUILD_CREATE", guild, None)
        self._on_change()
        return session

    def _shard(self, value: Any) -> tuple[int, int] | int:
        """IDENTIFY's ``shard`` as ``(shard_id, num_shards)``, or the close code refusing it."""
        if value is None:
            value = [0, 1]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in value)
            or not 0 <= value[0] < value[1]
        ):
            return INVALID_SHARD
        if value[1] < self.shard_count:
            return SHARDING_REQUIRED
        return value[0], value[1]

    def _reject(self, connection: Connection, code: int, reason: str) -> None:
        self.rejected.append(code)
        asyncio.get_running_loop().create_task(
            connection.ws.close(code=code, message=reason.encode())
        )
        self._on_change()

    def _resume(self, connection: Connection, data: Json) -> GatewaySession | None:
        session = self.sessions.get(str(data.get("session_id")))
        missed = None
        if (
            session is not None
            and not session.invalidated
            and session is self.shards.get(session.shard)
        ):
            missed = session.missed_since(int(data.get("seq") or 0))
        if session is None or missed is None:
            connection.send({"op": INVALID_SESSION, "d": False})
            return None
        if session.connection is not None:
            session.connection.stop()
        session.resumes += 1
        session.replayed += len(missed)
        for frame in missed:
            connection.send(frame)
        session.connection = connection
        session.dispatch("RESUMED", {"_trace": ["fakecord"]}, None)
        self._on_change()
        return session
