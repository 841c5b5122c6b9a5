"""Whether a process exists, by its number: kept apart from the pool so that a light command
(the container's healthcheck, every half minute) asks it without loading the pool's asyncio and
multiprocessing."""

from __future__ import annotations

import os


def process_alive(pid: int) -> bool:
    """Whether a process `pid` exists (one this user may not signal counts: it exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, but not ours to signal
    return True
