"""Pausing the coverage tracer around work whose lines other tests measure.

Under coverage (CI: `--cov`) every Python call and line pays the tracer, about three times the
plain run for a search such as the coach's judge or the Swiss pairing's. Where a test only
reads what such work gives (a game's judgement, a round's tables), and the work's own tests
measure its lines (tests/ai/test_ai_judge*.py, tests/bot/services/test_pairing.py), the tracer
is paused around it: the same calls, the same answers, checked the same way.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


@contextlib.contextmanager
def untraced() -> Iterator[None]:
    """Pause the tracer of this thread (coverage's, if one runs) for the block."""
    tracer = sys.gettrace()
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(tracer)


def untraced_calls(function: Callable[P, T]) -> Callable[P, T]:
    """`function`, each call of it run with the tracer of its thread paused (`untraced`)."""

    @functools.wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        with untraced():
            return function(*args, **kwargs)

    return call
