"""The stop and report signals that arrive while the bot starts, kept for its event loop.

Loading discord.py and the bot takes about a second before the event loop runs and handles
SIGTERM, SIGINT and SIGUSR2 itself. Meanwhile their default actions would kill the bot
(SIGTERM, SIGUSR2) or end it with a traceback (SIGINT), where `docker stop` or
`systemctl stop` at that moment asks for a clean stop and SIGUSR2 for the lag figures.
`held()`, entered first thing, keeps each such signal instead; the event loop, once it handles
them, `take()`s the kept ones and acts on each as on one it received. Leaving `held()` puts back
the handlers it found (those of a test runner that runs the bot in its own process). The
console script holds them first of all (bot.runtime.launch); a `held()` inside another is the
outer one's.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""The signals that stop the bot cleanly."""
REPORT_SIGNALS = (signal.SIGUSR2,)
"""The signal that logs the event loop's lag figures."""

_kept: list[int] = []
_holding = False


@contextmanager
def held() -> Iterator[None]:
    """Meanwhile, keep SIGTERM, SIGINT and SIGUSR2 for `take()` instead of acting on them
    (until an event loop handles them itself); then put back the handlers found. Inside
    another `held()` it changes nothing: the outer one puts them back."""
    global _holding
    if _holding:
        yield
        return
    found = {signum: signal.signal(signum, _keep) for signum in (*STOP_SIGNALS, *REPORT_SIGNALS)}
    _holding = True
    try:
        yield
    finally:
        _holding = False
        for signum, handler in found.items():
            if handler is not None:  # None: one set outside Python, which cannot be put back
                signal.signal(signum, handler)
        take()


def take() -> list[int]:
    """The signals kept since `held()` was entered or the last call, in the order they came
    (each is given once)."""
    kept = _kept[:]
    del _kept[: len(kept)]
    return kept


def _keep(signum: int, frame: FrameType | None) -> None:
    _kept.append(signum)
