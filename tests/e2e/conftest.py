"""Fixtures for end-to-end tests: a fake Discord on loopback and the bot as a real subprocess.

- ``fake``: a started :class:`FakeDiscord` (REST + gateway on 127.0.0.1, a free port).
- ``bot_command``: the bot's command line, ``python -m bot`` unless the E2E_BOT_COMMAND
  environment variable (shell syntax) or a module overriding this fixture says otherwise.
- ``bot_env``: the environment it gets (DISCORD_TOKEN, DISCORD_API_BASE_URL, MARRAKECH_DB in
  tmp_path, LOG_LEVEL=DEBUG, no certificate authorities: `NO_CERTIFICATES`); override it to
  add settings such as MARRAKECH_DEV_GUILDS.
- ``bot_ready_commands``: command names to wait for before a test starts (default: any sync).
- ``bot_process``: a :class:`BotProcess` not yet started (start it after building the world).
- ``bot``: the same, started and ready (identified on the gateway, commands synced).
- ``postgres_server``, ``postgres_url``: a PostgreSQL server, and an empty database on it, for a
  test that runs the bot on PostgreSQL (tests/postgres.py).
- ``bytecode_cache`` (for every test here): where Python is kept from writing bytecode, the bot
  processes keep theirs in a folder of the test run instead, compiled once before the first test
  (`with_bytecode_cache`), not at each of their hundreds of starts.

A failed test's report ends with what the bots it ran logged (the tail of each ``*.log``
under its tmp_path, without the libraries' DEBUG lines), so that a failure seen only in CI can
be read there.

Every test that uses a fake Discord ends by checking that the bot made no invalid request (an
answer of 401, 403 or 429: Discord bans an address after too many) but those the test provoked:
its injected faults, and the statuses a test marked `invalid_requests(403, ...)` expects (a bot
denied a permission on purpose), beside the one 429 a process restarted after a kill may meet
in each bucket its predecessor spent, which it cannot know of; that Discord refused no
request it sent as malformed (400 or 413: the player never sees that message) but those a
test marked `refused_requests(50035, ...)` provokes (an answer refused for coming late,
10062, is left out: on a busy machine it depends on the load); and that no embed it sent
points at `attachment://NAME` while its message has no such file (Discord shows it without its
picture), unless the test is marked `missing_attachments` (it sends one on purpose): the
checks of tests/e2e/fake_checks.py. A test that starts a fake Discord of its own (a second one,
or one with several shards) runs the same checks on it with `check_fake_after_test`.
"""

from __future__ import annotations

import os
import secrets
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator, Generator, Iterator, Sequence
from pathlib import Path

import pluggy
import pytest
import pytest_asyncio

from tests.e2e.fake_checks import (
    check_attachments,
    check_invalid_requests,
    check_refused_requests,
)
from tests.e2e.fakecord import FakeDiscord
from tests.e2e.fakecord.process import BotProcess
from tests.postgres import postgres_server as postgres_server  # the fixtures
from tests.postgres import postgres_url as postgres_url

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRUBBED_PREFIXES = ("DISCORD_", "MARRAKECH_")
NO_CERTIFICATES = {"SSL_CERT_FILE": os.devnull}
"""In a bot process's environment: no certificate authorities to trust. The bots under test
reach the fake Discord over plain HTTP and never verify a TLS peer, and aiohttp makes its TLS
contexts as it loads, reading the system's authorities into each: a tenth of a start's CPU."""


BYTECODE_PREFIX_VAR = "PYTHONPYCACHEPREFIX"
NO_BYTECODE_VAR = "PYTHONDONTWRITEBYTECODE"
_bytecode_cache: dict[str, str] = {}
"""In a bot process's environment, while the e2e tests of this test process run with Python
kept from writing bytecode (PYTHONDONTWRITEBYTECODE, as some CI images set): where the bot
processes keep their compiled modules (`bytecode_cache`). Empty otherwise."""
WARM_IMPORTS = "import bot.__main__, bot.runtime.app, bot.workers.warm"
"""What a bot process and its workers' fork server load, compiled once before the first test."""


def with_bytecode_cache(env: dict[str, str]) -> dict[str, str]:
    """A bot process's environment with its compiled modules kept in this test run's cache
    (`bytecode_cache`), where the environment keeps Python from writing them beside the
    sources: else every start of a bot compiles its modules anew, and its fork server the
    workers' ones, a third of a second of CPU at each of the hundreds of starts."""
    if not _bytecode_cache:
        return env
    return {**{k: v for k, v in env.items() if k != NO_BYTECODE_VAR}, **_bytecode_cache}


@pytest.fixture(scope="session", autouse=True)
def bytecode_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Where Python writes no bytecode: a folder of this test run for the bot processes' (the
    same sources, the same interpreter), filled once here, before any test starts a bot."""
    if not sys.dont_write_bytecode:
        yield
        return
    _bytecode_cache[BYTECODE_PREFIX_VAR] = str(tmp_path_factory.mktemp("bot-bytecode"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    subprocess.run(
        [sys.executable, "-c", WARM_IMPORTS],
        env=with_bytecode_cache({**env, **NO_CERTIFICATES}),
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    try:
        yield
    finally:
        _bytecode_cache.clear()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives the whole bot against a local fake of the Discord API"
    )


LOG_TAIL_LINES = 80
"""How many of a bot's last log lines a failed test's report shows (of the DEBUG lines, only
the bot's own: not every request and every statement)."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Add the bots' logs to the report of a test that failed."""
    outcome = yield
    report = outcome.get_result()
    tmp_path = getattr(item, "funcargs", {}).get("tmp_path")
    if not report.failed or not isinstance(tmp_path, Path):
        return
    for log in sorted(tmp_path.rglob("*.log")):
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        told = [line for line in lines if " DEBUG " not in line or " DEBUG    bot" in line]
        told = told[-LOG_TAIL_LINES:]
        name = log.relative_to(tmp_path)
        report.sections.append((f"{name} ({call.when}), last lines", "\n".join(told)))


@pytest.fixture(autouse=True)
def no_invalid_requests(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test with a fake Discord: no 401, 403 or 429 but those it provoked, and those a
    restarted process cannot avoid (`check_invalid_requests`)."""
    if "fake" not in request.fixturenames:
        yield
        return
    server: FakeDiscord = request.getfixturevalue("fake")
    yield
    check_invalid_requests(server, request.node)


@pytest.fixture(autouse=True)
def no_refused_requests(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test with a fake Discord: no request refused as malformed or too late but those
    it provoked (`check_refused_requests`)."""
    if "fake" not in request.fixturenames:
        yield
        return
    server: FakeDiscord = request.getfixturevalue("fake")
    yield
    check_refused_requests(server, request.node)


@pytest.fixture(autouse=True)
def no_missing_attachments(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test with a fake Discord: no embed named an attachment its message lacked."""
    if "fake" not in request.fixturenames:
        yield
        return
    server: FakeDiscord = request.getfixturevalue("fake")
    yield
    check_attachments(server, request.node)


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
            **NO_CERTIFICATES,
        }
    )
    return with_bytecode_cache(env)


def told_its_shards(bot_env: dict[str, str]) -> dict[str, str]:
    """The bot's environment with its shard count set (one shard, as the fake recommends), for
    a test that restarts it often: a bot told its count does not ask `GET /gateway/bot` at each
    start, which Discord takes only twice in 5 s (a quick third start would wait for it)."""
    return {**bot_env, "MARRAKECH_SHARD_COUNT": "1"}


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
