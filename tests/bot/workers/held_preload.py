"""A module the worker pool's fork server loads in
`test_starting_the_workers_leaves_the_event_loop_free` (tests/bot/workers/test_pool.py): as a
fork server slow to load, it leaves the file HELD_PRELOAD_WAITING names and waits until the
file HELD_PRELOAD_RELEASE names exists (two minutes at most)."""

from __future__ import annotations

import os
import time
from pathlib import Path

_waiting = os.environ.get("HELD_PRELOAD_WAITING")
_release = os.environ.get("HELD_PRELOAD_RELEASE")
if _waiting and _release:
    Path(_waiting).touch()
    _deadline = time.monotonic() + 120
    while not Path(_release).exists() and time.monotonic() < _deadline:
        time.sleep(0.01)
