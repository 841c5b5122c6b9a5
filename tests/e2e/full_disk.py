"""A disk that fills up under the running bot and has room again, for the database fault tests.

`small_disk(folder)` mounts a tmpfs of DISK_BYTES at `folder`: `fill()` writes a filler file
until the disk refuses it (ENOSPC) and `free()` deletes it, so the bot meets a real full disk,
SQLite's own SQLITE_FULL on whichever statement finds no room included. Mounting takes root
with the right to mount (the project's CI machines have it). Where it is refused the test is
skipped, saying why, except under CI (the environment variable CI set, as CI services do): there
a refused mount fails the test, so that a CI run never passes without the real case.

No stand-in is offered: a layer that fakes a full disk by failing some calls lets through the
writes it does not foresee, and then the test proves nothing about them.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

DISK_BYTES = 16 * 1024 * 1024
"""The small disk's size: room for the bot's database and heartbeat, quick to fill."""
CHUNK = 4096


@dataclass(frozen=True, slots=True)
class Disk:
    """A folder on a small tmpfs that a test fills and frees."""

    folder: Path

    @property
    def filler(self) -> Path:
        return self.folder / "filler"

    def fill(self) -> None:
        """Leave no room on the disk."""
        with open(self.filler, "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * CHUNK)

    def free(self) -> None:
        """Give the room back."""
        self.filler.unlink()


def under_ci(env: Mapping[str, str] = os.environ) -> bool:
    """Whether this run is CI's (CI set to anything but empty, 0 or false)."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false")


def mount_refused(folder: Path, why: str, env: Mapping[str, str] = os.environ) -> NoReturn:
    """End the test that needed a small disk at `folder`: skipped, or failed under CI."""
    reason = f"no tmpfs could be mounted at {folder} ({why}); the full-disk case needs root"
    if under_ci(env):
        pytest.fail(f"{reason}, and CI must run it")
    pytest.skip(reason)


@contextlib.contextmanager
def small_disk(folder: Path) -> Iterator[Disk]:
    """A tmpfs of DISK_BYTES at `folder` (created), unmounted at the end; skips the test where
    mounting is refused (fails it under CI)."""
    folder.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(folder)],
            capture_output=True,
            check=False,
            text=True,
        )
    except OSError as error:  # no mount command at all
        mount_refused(folder, str(error))
    if mounted.returncode != 0:
        mount_refused(folder, mounted.stderr.strip() or f"mount exited {mounted.returncode}")
    try:
        yield Disk(folder)
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)
