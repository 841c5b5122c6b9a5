"""The conversions between the stores' values and their columns: times as ISO 8601 text in UTC
with milliseconds (the form the columns have always held, so text order is time order), JSON
as `json.dumps` text, and a JSON column that does not parse as UnreadableJson."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from bot.storage.values import (
    UnreadableJson,
    json_from_column,
    json_to_column,
    time_from_column,
    time_to_column,
)


def test_a_time_is_stored_in_utc_with_milliseconds_and_read_back_in_utc() -> None:
    paris = timezone(timedelta(hours=1))
    moment = datetime(2026, 1, 1, 1, 2, 3, 456789, tzinfo=paris)
    stored = time_to_column(moment)
    assert stored == "2026-01-01T00:02:03.456+00:00"
    assert time_from_column(stored) == datetime(2026, 1, 1, 0, 2, 3, 456000, tzinfo=UTC)
    assert time_from_column(stored).tzinfo is UTC
    assert time_to_column(None) is None
    assert time_from_column(None) is None


def test_older_text_without_milliseconds_or_zone_reads_as_utc() -> None:
    assert time_from_column("2026-01-01T00:00:00+00:00") == datetime(2026, 1, 1, tzinfo=UTC)
    assert time_from_column("2026-01-01T00:00:00") == datetime(2026, 1, 1, tzinfo=UTC)


def test_a_time_written_with_another_offset_reads_back_in_utc() -> None:
    """A column holding a moment at another offset reads as that moment in UTC, so what is
    shown of it (a game record's started_at among them) is written in UTC."""
    moment = time_from_column("2026-01-01T01:02:03.456+01:00")
    assert moment.utcoffset() == timedelta(0)
    assert moment.isoformat(timespec="milliseconds") == "2026-01-01T00:02:03.456+00:00"


def test_stored_times_sort_as_the_moments_do() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    moments = [start + timedelta(milliseconds=step * 997) for step in range(200)]
    assert sorted(time_to_column(m) for m in moments) == [time_to_column(m) for m in moments]


def test_json_is_stored_as_json_dumps_writes_it() -> None:
    value = {"players": 2, "piles": None, "name": "Zoë"}
    assert json_to_column(value) == '{"players": 2, "piles": null, "name": "Zo\\u00eb"}'
    assert json_from_column(json_to_column(value)) == value


def test_a_json_column_that_does_not_parse_is_unreadable() -> None:
    unreadable = json_from_column('{"broken')
    assert isinstance(unreadable, UnreadableJson)
    assert unreadable.text == '{"broken'
    assert unreadable.error
