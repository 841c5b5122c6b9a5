"""What the command-line entry points (`engine.replay`, `engine.vectors`, `engine.bench`) share."""

from __future__ import annotations

import sys
from collections.abc import Callable


def run_cli(main: Callable[[], int]) -> int:
    """`main()` for `python -m`: its exit status, or 1 when the reader of the output goes away
    (e.g. `| head`), which then ends quietly instead of with a traceback."""
    try:
        return main()
    except BrokenPipeError:
        sys.stderr.close()
        return 1
