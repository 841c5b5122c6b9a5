"""A disk that fills up under the running bot and has room again, for the database fault tests.

`small_disk(folder)` mounts a tmpfs of DISK_BYTES at `folder` where the machine allows it (root
with the right to mount, as on the project's CI machines): `fill()` writes a filler file until
the disk refuses it (ENOSPC) and `free()` deletes it, so the bot meets a real full disk, SQLite's
own SQLITE_FULL included. Where mounting is refused, the same switch is a fault-injecting layer:
the bot is started through this module (`python -m tests.e2e.full_disk`, `Disk.command`), which,
while the file FLAG_VAR names exists, fails every SQLite COMMIT as a full disk does (SQLITE_FULL,
then rolled back) and every write of the heartbeat file with ENOSPC. `Disk.real` says which of
the two a test got.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

DISK_BYTES = 16 * 1024 * 1024
"""The small disk's size: room for the bot's database and heartbeat, quick to fill."""
FLAG_VAR = "FULL_DISK_FLAG"
"""With the fault-injecting layer: the file whose presence means the disk is full."""
CHUNK = 4096


@dataclass(frozen=True, slots=True)
class Disk:
    """A folder on a disk a test fills and frees."""

    folder: Path
    real: bool
    """A real small filesystem (else the fault-injecting layer)."""

    @property
    def filler(self) -> Path:
        return self.folder / "filler" if self.real else self.folder.parent / "disk-is-full"

    def command(self, bot_command: Sequence[str]) -> list[str]:
        """How to start the bot so that it meets this disk (`bot_command` on a real disk)."""
        if self.real:
            return list(bot_command)
        return [sys.executable, "-m", "tests.e2e.full_disk"]

    def env(self) -> dict[str, str]:
        """What the bot's environment needs for it (nothing, for a real disk)."""
        return {} if self.real else {FLAG_VAR: str(self.filler)}

    def fill(self) -> None:
        """Leave no room on the disk."""
        if not self.real:
            self.filler.touch()
            return
        with open(self.filler, "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * CHUNK)

    def free(self) -> None:
        """Give the room back."""
        self.filler.unlink()


@contextlib.contextmanager
def small_disk(folder: Path) -> Iterator[Disk]:
    """A small disk at `folder` (created): a tmpfs where mounting is allowed, else the
    fault-injecting layer; unmounted at the end."""
    folder.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(folder)],
            capture_output=True,
            check=False,
        )
        real = mounted.returncode == 0
    except OSError:  # no mount command at all
        real = False
    try:
        yield Disk(folder, real)
    finally:
        if real:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def _fail_writes_while(flag: Path) -> None:
    """The fault-injecting layer: while `flag` exists, SQLite cannot commit and the heartbeat
    file cannot be written, as on a full disk."""
    import aiosqlite

    from bot.runtime import health

    def full() -> bool:
        return flag.exists()  # one stat: nothing beside the commit it stands in front of

    commit = aiosqlite.Connection.commit

    async def commit_unless_full(self: aiosqlite.Connection) -> None:
        if full():
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
            error.sqlite_errorname = "SQLITE_FULL"  # type: ignore[attr-defined]
            raise error
        await commit(self)

    write = health.Heartbeat._write

    def write_unless_full(self: health.Heartbeat) -> None:
        if full():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(self)

    aiosqlite.Connection.commit = commit_unless_full  # type: ignore[method-assign]
    health.Heartbeat._write = write_unless_full  # type: ignore[method-assign]


if __name__ == "__main__":
    _fail_writes_while(Path(os.environ[FLAG_VAR]))
    from bot.__main__ import main

    sys.exit(main())
