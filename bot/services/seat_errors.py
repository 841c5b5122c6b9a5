"""What substitutes and nudges refuse (bot.services.substitutes, bot.services.nudges), and why
a person cannot be pinged now: apart from those services, so the edge's table of answers
reads them without loading the services."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.services.errors import GameError


class SubstituteError(GameError):
    """A hand-over refused; `code` names why (the edge words it), nothing changed."""

    def __init__(self, code: str, user_id: int | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.user_id = user_id


@dataclass(frozen=True, slots=True)
class Unreachable:
    """Why a person cannot be pinged now: `reason` ("away", "quiet" or another word the
    presentation knows) and, when known, until when."""

    reason: str
    until: datetime | None = None


class NudgeError(GameError):
    """A nudge refused, nothing changed: `code` names why ("yourself", "nobody", "too_soon",
    "unreachable"), with when it will be possible (`until`) and the person (`user_id`)."""

    def __init__(
        self,
        code: str,
        *,
        user_id: int | None = None,
        until: datetime | None = None,
        why: Unreachable | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.user_id = user_id
        self.until = until
        self.why = why
