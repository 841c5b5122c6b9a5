"""Which texts were looked up, and in which language, while a block of code ran.

A check for English words in a translated text cannot see a one-word label ("Join", "Pts"):
the same word may be a fine French one. Recording the lookups instead shows a label asked in
the wrong language, whatever its length.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from bot.presentation import messages


@contextmanager
def texts_looked_up() -> Iterator[list[tuple[str, str]]]:
    """Every (key, language) that `messages.text` looked up while the block ran, in order."""
    looked_up: list[tuple[str, str]] = []
    real = messages.translation

    def recorded(key: str, language: str) -> str | None:
        looked_up.append((key, language))
        return real(key, language)

    with mock.patch.object(messages, "translation", recorded):
        yield looked_up


def asked_in_another_language(looked_up: list[tuple[str, str]], language: str) -> set[str]:
    """The keys of `looked_up` asked in a language other than `language`."""
    return {key for key, asked in looked_up if asked != language}
