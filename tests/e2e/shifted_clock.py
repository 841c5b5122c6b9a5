"""The bot's clock moved forward, for end-to-end tests of turn time limits.

A test module runs its bot with the test clock hook on by overriding `bot_env` with
`with_clock(bot_env, clock_file)` (`clock_file` is a fixture of tests/e2e/conftest.py, at no
shift); `shift_clock` moves the clock and waits until the bot has read it (SIGUSR1), so a
deadline passes without waiting for it, then moves the fake Discord's clock as far: interaction
tokens age there as the bot thinks they do. The fake follows the bot, never runs ahead of it:
a bot that thinks a token older than Discord does only gives it up sooner.

`pass_while_down` moves the clock of a bot that is not running (it reads the file when it
starts), as if it had been down that long: the killed run's windows on the fake Discord are
over, and what fell due meanwhile is due at once. Before it catches a game up, the restarted
bot measures Discord's window on the channel (`bot.edge.display.CHANNEL_WINDOW_SECONDS`) by its
clock, from the times of the game's messages and from when the killed run's start ended its
catch-up of games or, killed during it, last began to read a history (bot.services.catch_ups),
so it need not wait it out. An end left untold, a lobby left behind and a tournament's channel
still wait a whole window from the restart whatever the clock says
(`GameDisplay.wait_out_restart`).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from tests.e2e.fakecord import FakeDiscord
from tests.e2e.fakecord.process import BotProcess


async def shift_clock(
    bot: BotProcess, clock_file: Path, seconds: float, fake: FakeDiscord | None = None
) -> None:
    """Move the bot's clock to `seconds` ahead of real time and tell it (SIGUSR1), then the
    fake's (if given) as far."""
    await asyncio.to_thread(clock_file.write_text, str(seconds), encoding="ascii")
    lines = len(bot.lines)
    assert bot.pid is not None
    os.kill(bot.pid, signal.SIGUSR1)
    await bot.wait_for_log(r"clock is now shifted by", after=lines)
    if fake is not None:
        fake.shift_clock(seconds)


async def pass_while_down(clock_file: Path, seconds: float, fake: FakeDiscord) -> float:
    """Move the clock of a bot that is not running `seconds` further ahead (no file yet: no
    shift), and the fake's as far; returns the new shift."""
    try:
        text = await asyncio.to_thread(clock_file.read_text, encoding="ascii")
    except FileNotFoundError:
        text = ""
    shifted = float(text or 0) + seconds
    await asyncio.to_thread(clock_file.write_text, str(shifted), encoding="ascii")
    fake.shift_clock(shifted)
    return shifted


def with_clock(bot_env: dict[str, str], clock_file: Path) -> dict[str, str]:
    """The bot's environment with the test clock hook reading `clock_file`."""
    return {**bot_env, "MARRAKECH_TEST_CLOCK_FILE": str(clock_file)}
