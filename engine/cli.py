"""What the command-line entry points share: those of the engine (`engine.replay`,
`engine.vectors`, `engine.bench`), of the AI's tools (`ai.arena`, `ai.calibrate`, ...) and of
the pictures' (`render.demo`, `render.bench`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def run_cli(main: Callable[[], int]) -> int:
    """`main()` for `python -m`: its exit status, or 1 when the reader of the output goes away
    (e.g. `| head`), which then ends quietly instead of with a traceback. The output is flushed
    here, so an output still in the buffer meets a closed pipe here too and not at exit."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's flush at exit would fail again: what is left goes nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status
