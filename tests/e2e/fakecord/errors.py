"""Discord's JSON error answers, raised inside handlers and turned into responses."""

from __future__ import annotations

from typing import Any


class DiscordError(Exception):
    """An error answer: HTTP status, Discord's numeric code and message (plus extra fields)."""

    def __init__(self, status: int, code: int, message: str, **extra: Any) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.body: dict[str, Any] = {"message": message, "code": code, **extra}


def unknown(kind: str, code: int) -> DiscordError:
    return DiscordError(404, code, f"Unknown {kind}")


UNKNOWN_CHANNEL = 10003
UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_MESSAGE = 10008
UNKNOWN_WEBHOOK = 10015
UNKNOWN_USER = 10013
UNKNOWN_APPLICATION_COMMAND = 10063
UNKNOWN_INTERACTION = 10062
CHANNEL_WRITE_RATE_LIMITED = 20028
CANNOT_EDIT_OTHERS_MESSAGE = 50005
EMPTY_MESSAGE = 50006
CANNOT_SEND_TO_USER = 50007
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
INVALID_WEBHOOK_TOKEN = 50027
REQUEST_ENTITY_TOO_LARGE = 40005
ALREADY_ACKNOWLEDGED = 40060
INVALID_FORM_BODY = 50035
INVALID_JSON = 50109


def missing_permissions(names: list[str]) -> DiscordError:
    """403 Missing Permissions; the fake adds which ones, Discord itself does not say."""
    return DiscordError(403, MISSING_PERMISSIONS, "Missing Permissions", fakecord_missing=names)
