"""Fixtures for end-to-end tests: a fake Discord on loopback and the bot as a real subprocess.

- ``fake``: a started :class:`FakeDiscord` (REST + gateway on 127.0.0.1, a free port).
- ``bot_command``: the bot's command line, ``python -m bot`` unless the E2E_BOT_COMMAND
  environment variable (shell syntax) or a module overriding this fixture says otherwise.
- ``bot_env``: the environment it gets (DISCORD_TOKEN, DISCORD_API_BASE_URL, MARRAKECH_DB in
  tmp_path, LOG_LEVEL=DEBUG); override it to add settings such as MARRAKECH_DEV_GUILDS.
- ``bot_ready_commands``: command names to wait for before a test starts (default: any sync).
- ``bot_process``: a :class:`BotProcess` not yet started (start it after building the world).
- ``bot``: the same, started and ready (identified on the gateway, commands synced).
- ``postgres_server``, ``postgres_url``: a PostgreSQL server, and an empty database on it, for a
  test that runs the bot on PostgreSQL (tests/postgres.py).
"""

from __future__ import annotations

import os
import secrets
import shlex
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_asyncio

from tests.e2e.fakecord import FakeDiscord
from tests.e2e.fakecord.process import BotProcess
from tests.postgres import postgres_server as postgres_server  # the fixtures
from tests.postgres import postgres_url as postgres_url

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRUBBED_PREFIXES = ("DISCORD_", "MARRAKECH_")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives the whole bot against a local fake of the Discord API"
    )


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(bot_name="Marrakech") as server:
        yield server


@pytest.fixture
def bot_command() -> Sequence[str]:
    configured = os.environ.get("E2E_BOT_COMMAND")
    if configured:
        return shlex.split(configured)
    return [sys.executable, "-m", "bot"]


@pytest.fixture
def bot_token() -> str:
    return "fakecord-token-" + secrets.token_hex(12)


@pytest.fixture
def bot_env(fake: FakeDiscord, tmp_path: Path, bot_token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env.update(
        {
            "DISCORD_TOKEN": bot_token,
            "DISCORD_API_BASE_URL": fake.api_base_url,
            "MARRAKECH_DB": str(tmp_path / "marrakech.sqlite3"),
            "LOG_LEVEL": "DEBUG",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
        }
    )
    return env


@pytest.fixture
def bot_ready_commands() -> Sequence[str]:
    return ()


@pytest_asyncio.fixture
async def bot_process(
    bot_command: Sequence[str], bot_env: dict[str, str], tmp_path: Path
) -> AsyncIterator[BotProcess]:
    process = BotProcess(bot_command, bot_env, log_path=tmp_path / "bot.log", cwd=REPO_ROOT)
    try:
        yield process
    finally:
        await process.close()


@pytest_asyncio.fixture
async def bot(
    fake: FakeDiscord, bot_process: BotProcess, bot_ready_commands: Sequence[str]
) -> BotProcess:
    await bot_process.start_and_wait_ready(fake, commands=bot_ready_commands)
    return bot_process


@pytest.fixture
def clock_file(tmp_path: Path) -> Path:
    """A test clock file at no shift (see tests/e2e/shifted_clock.py)."""
    path = tmp_path / "clock-offset"
    path.write_text("0", encoding="ascii")
    return path
