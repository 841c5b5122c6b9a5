"""The gateway websocket: HELLO, IDENTIFY/READY, heartbeats, dispatches, RESUME with replay."""

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
PRIVILEGED_INTENTS = GUILD_MEMBERS_INTENT | GUILD_PRESENCES_INTENT | MESSAGE_CONTENT_INTENT
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12

REPLAY_LIMIT = 20_000


class NoGatewaySessionError(RuntimeError):
    """Raised when something must be dispatched but no bot has identified yet."""


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
    ) -> None:
        self._ready_builder = ready_builder
        self._on_change = on_change
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.sessions: dict[str, GatewaySession] = {}
        self.current: GatewaySession | None = None
        self.connections: list[Connection] = []
        self.identifies = 0
        self.heartbeats = 0
        self.errors: list[str] = []
        self.expected_token: str | None = None
        self.url = ""

    @property
    def connected(self) -> bool:
        return self.current is not None and self.current.connected

    def dispatch(
        self, event: str, data: Any, *, on_sent: Callable[[float], None] | None = None
    ) -> Frame:
        """Queue a dispatch on the current session (sent now, or replayed on RESUME)."""
        if self.current is None:
            raise NoGatewaySessionError(f"cannot dispatch {event}: no bot has identified")
        return self.current.dispatch(event, data, on_sent)

    def dispatch_if_session(self, event: str, data: Any, intent: int = GUILDS_INTENT) -> None:
        """Dispatch a state event when a session exists and asked for the intent."""
        if self.current is not None and self.current.intents & intent:
            self.current.dispatch(event, data, None)

    async def drop(self, code: int | None = 4000) -> None:
        """Close the live connection (None: abort TCP, no close frame); the session survives."""
        session = self.current
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

    def send_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes and resumes."""
        if self.current is None or self.current.connection is None:
            raise NoGatewaySessionError("no live gateway connection")
        self.current.connection.send({"op": RECONNECT, "d": None})

    def invalidate(self) -> None:
        """Send op 9 (not resumable): the client identifies again with a new session."""
        if self.current is None or self.current.connection is None:
            raise NoGatewaySessionError("no live gateway connection")
        self.current.invalidated = True
        self.current.connection.send({"op": INVALID_SESSION, "d": False})

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
            asyncio.get_running_loop().create_task(
                connection.ws.close(code=4004, message=b"Authentication failed.")
            )
            return None
        self.identifies += 1
        session = GatewaySession(secrets.token_hex(16), token, int(data.get("intents", 0)))
        if self.current is not None and self.current.connection is not None:
            self.current.connection.stop()
        self.sessions[session.session_id] = session
        self.current = session
        session.connection = connection
        ready, guilds = self._ready_builder(session)
        if isinstance(data.get("shard"), list):
            ready["shard"] = data["shard"]
        session.dispatch("READY", ready, None)
        if session.intents & GUILDS_INTENT:
            for guild in guilds:
                session.dispatch("GUILD_CREATE", guild, None)
        self._on_change()
        return session

    def _resume(self, connection: Connection, data: Json) -> GatewaySession | None:
        session = self.sessions.get(str(data.get("session_id")))
        missed = None
        if session is not None and not session.invalidated and session is self.current:
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
