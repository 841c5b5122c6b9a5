"""Hooks for the end-to-end tests, kept apart from the settings an admin reads.

The tests run the real bot against a local fake of Discord, move its clock past turn deadlines,
fix the dice of the games it starts (so a whole game, and what the coach says of it, is the
same at every run) and (in `bot.crashpoints`) kill it at exact places. Those switches are
environment variables too, but none is an admin's setting: they are not in `Settings`, the
README's settings table or `.env.example`, and the bot logs a WARNING at start-up naming each
one that is on.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.runtime.settings import SettingsError

API_BASE_URL_VAR = "DISCORD_API_BASE_URL"
TEST_CLOCK_VAR = "MARRAKECH_TEST_CLOCK_FILE"
TEST_SEED_VAR = "MARRAKECH_TEST_SEED"
HOOK_NAMES = (API_BASE_URL_VAR, TEST_CLOCK_VAR, TEST_SEED_VAR)
"""The test hooks read here (the crash hook, MARRAKECH_CRASH_AT, is read by bot.crashpoints)."""


@dataclass(frozen=True, slots=True)
class TestHooks:
    """The test hooks that are on (all off for a real bot)."""

    __test__ = False  # not a pytest test class, whatever its name

    api_base_url: str | None = None
    """A fake Discord HTTP API to talk to instead of Discord, e.g. http://127.0.0.1:8080/api/v10."""
    clock_file: Path | None = None
    """A file holding seconds added to the bot's clock, re-read on SIGUSR1."""
    seed: str | None = None
    """Where the secret seeds of the games (and tournaments) this process starts come from:
    the n-th is derived from it and n, so anyone who knows it knows every die roll."""

    @property
    def active(self) -> tuple[str, ...]:
        """The names of the hooks that are on."""
        values = {
            API_BASE_URL_VAR: self.api_base_url,
            TEST_CLOCK_VAR: self.clock_file,
            TEST_SEED_VAR: self.seed,
        }
        return tuple(name for name, value in values.items() if value is not None)

    def seeds(self) -> Callable[[], str] | None:
        """The fixed seeds, one per call, or None when the hook is off (fresh secret seeds)."""
        if self.seed is None:
            return None
        counter = itertools.count()
        base = self.seed
        return lambda: hashlib.sha256(f"{base}:{next(counter)}".encode()).hexdigest()[:32]


def load_test_hooks(environ: Mapping[str, str]) -> TestHooks:
    """Read the test hooks; raise SettingsError (one line) for a malformed one."""
    seed = environ.get(TEST_SEED_VAR, "").strip() or None
    return TestHooks(
        api_base_url=_api_base_url(environ), clock_file=_clock_file(environ), seed=seed
    )


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
