"""Tests of bot.runtime.early_signals: the signals kept while the bot loads."""

from __future__ import annotations

import signal

from bot.runtime import early_signals


def test_signals_are_kept_in_order_while_held_and_the_handlers_found_put_back() -> None:
    found = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGUSR2)}
    with early_signals.held():
        signal.raise_signal(signal.SIGUSR2)
        signal.raise_signal(signal.SIGTERM)
        assert early_signals.take() == [signal.SIGUSR2, signal.SIGTERM]
        assert early_signals.take() == [], "each is given once"
        signal.raise_signal(signal.SIGUSR2)
    assert early_signals.take() == [], "none is left for a later start"
    for signum, handler in found.items():
        assert signal.getsignal(signum) is handler


def test_a_hold_inside_another_leaves_the_signals_to_the_outer_one() -> None:
    """The console script holds them before the bot loads, and the bot's start again."""
    found = signal.getsignal(signal.SIGTERM)
    with early_signals.held():
        kept = signal.getsignal(signal.SIGTERM)
        with early_signals.held():
            signal.raise_signal(signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is kept, "still held"
        assert early_signals.take() == [signal.SIGTERM], "still there for the event loop"
    assert signal.getsignal(signal.SIGTERM) is found
