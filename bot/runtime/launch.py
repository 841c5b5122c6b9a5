"""The `marrakech-bot` command's first code: with no command it runs the bot, and keeps the stop
signals from here on, before the bot's modules load.

In a container the bot is process 1, and the kernel drops any signal that process 1 has no
handler for. Loading the command line alone (asyncio, the storage, the settings) takes a tenth
of a second to a second, so a `docker stop` that came meanwhile would be lost and the bot
killed 10 s later. This module loads nothing but `early_signals` before it holds them; the
other commands (`healthcheck`, `migrate`, ...) keep Python's own handling.
"""

from __future__ import annotations

import sys

from bot.runtime import early_signals


def main() -> int:
    """Run `marrakech-bot` with the process's arguments; return the exit code."""
    if len(sys.argv) > 1:
        from bot.__main__ import main as command

        return command()
    with early_signals.held():
        from bot.__main__ import main as command

        return command()
