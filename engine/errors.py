"""Errors the engine raises: all subclass ValueError and say what is wrong in plain words."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of the engine's errors."""


class IllegalActionError(EngineError):
    """An action that the rules do not allow in this state."""


class FormatError(EngineError):
    """A record, position or notation that does not follow FORMATS.md."""


class ReplayError(EngineError):
    """A record whose actions cannot be replayed; names the action index and notation."""

    def __init__(self, index: int, notation: str, reason: str) -> None:
        super().__init__(f"action {index} {notation!r}: {reason}")
        self.index = index
        self.notation = notation
        self.reason = reason
