"""Hooks for the end-to-end tests, kept apart from the settings an admin reads.

The tests run the real bot against a local fake of Discord, move its clock past turn deadlines
and (in `bot.crashpoints`) kill it at exact places. Those switches are environment variables
too, but none is an admin's setting: they are not in `Settings`, the README's settings table
or `.env.example`, and the bot logs a WARNING at start-up naming each one that is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.runtime.settings import SettingsError

API_BASE_URL_VAR = "DISCORD_API_BASE_URL"
TEST_CLOCK_VAR = "MARRAKECH_TEST_CLOCK_FILE"
HOOK_NAMES = (API_BASE_URL_VAR, TEST_CLOCK_VAR)
"""The test hooks read here (the crash hook, MARRAKECH_CRASH_AT, is read by bot.crashpoints)."""


@dataclass(frozen=True, slots=True)
class TestHooks:
    """The test hooks that are on (all off for a real bot)."""

    __test__ = False  # not a pytest test class, whatever its name

    api_base_url: str | None = None
    """A fake Discord HTTP API to talk to instead of Discord, e.g. http://127.0.0.1:8080/api/v10."""
    clock_file: Path | None = None
    """A file holding seconds added to the bot's clock, re-read on SIGUSR1."""

    @property
    def active(self) -> tuple[str, ...]:
        """The names of the hooks that are on."""
        values = {API_BASE_URL_VAR: self.api_base_url, TEST_CLOCK_VAR: self.clock_file}
        return tuple(name for name, value in values.items() if value is not None)


def load_test_hooks(environ: Mapping[str, str]) -> TestHooks:
    """Read the test hooks; raise SettingsError (one line) for a malformed one."""
    return TestHooks(api_base_url=_api_base_url(environ), clock_file=_clock_file(environ))


def _api_base_url(environ: Mapping[str, str]) -> str | None:
    value = environ.get(API_BASE_URL_VAR, "").strip()
    if not value:
        return None
    if not value.startswith(("http://", "https://")):
        raise SettingsError(
            f"{API_BASE_URL_VAR} (for testing only) must be an http(s) URL such as "
            f"http://127.0.0.1:8080/api/v10; got {value!r}"
        )
    return value.rstrip("/")


def _clock_file(environ: Mapping[str, str]) -> Path | None:
    value = environ.get(TEST_CLOCK_VAR, "").strip()
    return Path(value) if value else None
