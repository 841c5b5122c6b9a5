"""What the running event loop reports to its exception handler during part of a test.

asyncio reports there what nobody took: a task's failure never retrieved ("Task exception was
never retrieved", which it logs with a traceback), a callback that raised. A test of code that
leaves work running in the background checks that nothing of the kind comes of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def loop_reports() -> Iterator[list[str]]:
    """The messages reported inside the block, with the garbage collected at its end first (a
    failure never retrieved is reported when its task is collected, so the block drops its own
    references to such a task), and the loop's own handler put back after."""
    loop = asyncio.get_running_loop()
    reported: list[str] = []
    handler = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: reported.append(str(context["message"])))
    try:
        yield reported
        gc.collect()
    finally:
        loop.set_exception_handler(handler)
