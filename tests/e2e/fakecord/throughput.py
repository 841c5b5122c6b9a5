"""How much the fake (with the sample bot) carries: ``python -m tests.e2e.fakecord.throughput``.

Starts a fake, runs sample_bot.py against it, then in every round sends one slash command in
each of N channels at once and clicks the button of every answer. Prints interactions per
second and the dispatch-to-callback latency. It measures the harness, not the Marrakech bot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from .process import BotProcess
from .server import FakeDiscord

SAMPLE_BOT = Path(__file__).with_name("sample_bot.py")


async def measure(channels: int, rounds: int) -> str:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Throughput")
        rooms = [fake.add_text_channel(guild, f"room-{i}") for i in range(channels)]
        player = fake.add_user("player")
        fake.add_member(guild, player)
        env = dict(os.environ, DISCORD_TOKEN="throughput", DISCORD_API_BASE_URL=fake.api_base_url)
        env["LOG_LEVEL"] = "WARNING"
        with tempfile.TemporaryDirectory() as folder:
            bot = BotProcess(
                [sys.executable, str(SAMPLE_BOT)], env, log_path=Path(folder) / "bot.log"
            )
            await bot.start_and_wait_ready(fake, commands=("sample",))
            started = time.perf_counter()
            for _ in range(rounds):
                greetings = await asyncio.gather(
                    *(fake.slash(player, room, "sample", "hello", name="x") for room in rooms)
                )
                answers = await asyncio.gather(*(h.answer(timeout=60) for h in greetings))
                clicks = await asyncio.gather(
                    *(fake.click(player, m, "sample:count:0") for m in answers)
                )
                await asyncio.gather(*(h.answer(timeout=60) for h in clicks))
            elapsed = time.perf_counter() - started
            await bot.stop()
        count = len(fake.world.interactions)
        return (
            f"{count} interactions in {elapsed:.2f} s ({count / elapsed:.0f}/s), "
            f"{channels} at once; latency: {fake.latency().describe()}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.e2e.fakecord.throughput",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--channels", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(asyncio.run(measure(args.channels, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
