"""The two conversions between the values the stores take and return and what their columns
hold.

Times cross the storage interface as timezone-aware datetimes and are stored as ISO 8601 text
in UTC with milliseconds (`2026-01-02T03:04:05.678+00:00`): text of one fixed form sorts as the
moments do, so SQL compares and orders it directly on every back end. JSON crosses as the
parsed value and is stored as `json.dumps` text with its default settings, the form the
copy-db digests and snapshot comparisons have always seen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, overload


@dataclass(frozen=True, slots=True)
class UnreadableJson:
    """A JSON column whose text does not parse (a damaged row): what it holds, and why."""

    text: str
    error: str


@overload
def time_to_column(moment: datetime) -> str: ...
@overload
def time_to_column(moment: None) -> None: ...
def time_to_column(moment: datetime | None) -> str | None:
    """The stored form of a moment (None stays None)."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


@overload
def time_from_column(value: str) -> datetime: ...
@overload
def time_from_column(value: str | None) -> datetime | None: ...
def time_from_column(value: str | None) -> datetime | None:
    """The moment a time column holds, in UTC (None stays None)."""
    if value is None:
        return None
    moment = datetime.fromisoformat(str(value))
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def json_to_column(value: Any) -> str:
    """The stored form of a JSON value."""
    return json.dumps(value)


def json_from_column(value: str) -> Any:
    """The JSON value a column holds, or UnreadableJson if its text does not parse."""
    try:
        return json.loads(value)
    except ValueError as error:
        return UnreadableJson(value, str(error))
