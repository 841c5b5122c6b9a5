"""The bot under test as a real subprocess: start, wait until ready, SIGKILL, restart, logs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from .server import FakeDiscord

T = TypeVar("T")

READ_CHUNK = 1 << 16


class BotExitedError(RuntimeError):
    """The bot process ended while a test was waiting for it."""


class BotProcess:
    """One bot command line, run (and re-run with the same environment) as a subprocess.

    Its stdout and stderr go to ``log_path`` and are scanned line by line, so tests can await a
    log line instead of sleeping.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        *,
        log_path: Path,
        cwd: Path | None = None,
    ) -> None:
        self.argv = list(argv)
        self.env = dict(env)
        self.cwd = cwd
        self.log_path = log_path
        self.lines: list[str] = []
        self.runs = 0
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._line_added = asyncio.Event()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self) -> None:
        if self.running:
            raise RuntimeError("the bot is already running")
        self.runs += 1
        self._append(f"----- fakecord: start #{self.runs}: {' '.join(self.argv)}")
        self._process = await asyncio.create_subprocess_exec(
            *self.argv,
            env=self.env,
            cwd=self.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        self._reader = asyncio.get_running_loop().create_task(self._read(self._process))

    async def start_and_wait_ready(
        self,
        fake: FakeDiscord,
        *,
        commands: Sequence[str] = (),
        sync: bool = True,
        timeout: float = 20.0,
    ) -> None:
        """Start, then wait until the bot identified anew and (with ``sync``) synced again."""
        identifies = fake.gateway.identifies
        syncs = fake.world.commands.syncs + (1 if sync else 0)
        await self.start()
        await self.wait_ready(
            fake, identifies=identifies + 1, syncs=syncs, commands=commands, timeout=timeout
        )

    async def wait_ready(
        self,
        fake: FakeDiscord,
        *,
        identifies: int,
        syncs: int,
        commands: Sequence[str] = (),
        timeout: float = 20.0,
    ) -> None:
        """Wait for ``identifies`` IDENTIFYs and ``syncs`` command syncs; fail if the bot dies."""

        async def ready() -> None:
            await fake.wait_until_connected(identifies=identifies, timeout=timeout)
            await fake.wait_for_commands(*commands, syncs=syncs, timeout=timeout)

        await self._unless_exit(ready(), "getting ready")

    async def wait_for_log(self, pattern: str, *, timeout: float = 10.0, after: int = 0) -> str:
        """The first log line (from index ``after``) matching the regex ``pattern``."""
        regex = re.compile(pattern)

        async def find() -> str:
            index = after
            while True:
                while index < len(self.lines):
                    if regex.search(self.lines[index]):
                        return self.lines[index]
                    index += 1
                added = self._line_added
                await added.wait()

        try:
            return await self._unless_exit(
                asyncio.wait_for(find(), timeout), f"a log line matching {pattern!r}"
            )
        except BotExitedError:
            # A bot may write the line and end at once (a crash point): by now every line it
            # wrote has been read, so the line is there if it was ever written.
            found = next((line for line in self.lines[after:] if regex.search(line)), None)
            if found is None:
                raise
            return found

    async def kill(self) -> int:
        """SIGKILL the bot (no clean-up at all) and return its exit status."""
        process = self._require_process()
        if process.returncode is None:
            # It may have died on its own already, not yet reaped (a test crash point).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        return await self._reap(process)

    async def wait_exit(self, *, timeout: float = 10.0) -> int:
        """Wait until the bot ends on its own and return its exit status."""
        process = self._require_process()
        await asyncio.wait_for(process.wait(), timeout)
        return await self._reap(process)

    async def stop(self, *, timeout: float = 5.0) -> int:
        """SIGTERM, wait ``timeout`` seconds for a clean exit, then SIGKILL."""
        process = self._require_process()
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), timeout)
            except TimeoutError:
                os.killpg(process.pid, signal.SIGKILL)
        return await self._reap(process)

    async def restart(
        self,
        fake: FakeDiscord,
        *,
        commands: Sequence[str] = (),
        sync: bool = True,
        timeout: float = 20.0,
    ) -> None:
        """Kill (if still running) and start again with the same command and environment."""
        if self.running:
            await self.kill()
        await self.start_and_wait_ready(fake, commands=commands, sync=sync, timeout=timeout)

    def log_text(self) -> str:
        """Everything the bot printed over all runs (runs separated by a marker line)."""
        return "\n".join(self.lines)

    def _require_process(self) -> asyncio.subprocess.Process:
        if self._process is None:
            raise RuntimeError("the bot was never started")
        return self._process

    async def _reap(self, process: asyncio.subprocess.Process) -> int:
        code = await process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # children the bot left behind, if any
        if self._reader is not None:
            await self._reader
        self._append(f"----- fakecord: exited with {code}")
        return code

    async def _unless_exit(self, waiting: Awaitable[T], what: str) -> T:
        """Await ``waiting``, but raise BotExitedError (with the log tail) if the bot ends."""
        process = self._require_process()
        task = asyncio.ensure_future(waiting)
        exited = asyncio.ensure_future(process.wait())
        try:
            await asyncio.wait({task, exited}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await task
        if self._reader is not None:
            await self._reader
        tail = "\n".join(self.lines[-40:])
        raise BotExitedError(
            f"the bot exited with {process.returncode} while waiting for {what}; log tail:\n{tail}"
        )

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        """Split the output into lines by chunks, so that no line is too long to read."""
        assert process.stdout is not None
        pending = b""
        while chunk := await process.stdout.read(READ_CHUNK):
            *complete, pending = (pending + chunk).split(b"\n")
            for raw in complete:
                self._append(raw.decode(errors="replace"))
        if pending:
            self._append(pending.decode(errors="replace"))

    def _append(self, line: str) -> None:
        self.lines.append(line)
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(line + "\n")
        self._line_added.set()
        self._line_added = asyncio.Event()

    async def close(self) -> None:
        """Stop the bot if it runs (used by fixtures at teardown)."""
        if self.running:
            await self.stop()
        elif self._reader is not None and not self._reader.done():
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
