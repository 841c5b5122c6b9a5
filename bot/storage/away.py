"""Time away from the games: away spells, quiet hours, a server's rules of time, and the pings
held during quiet hours (the tables of migration 0019; bot.services.away says what they mean).

A change of someone's quiet hours or time away sends NOTIFY on AWAY_CHANNEL on PostgreSQL (in
the write's own transaction), so the other processes read them again (`listen_away`).

A held notice is sent once by one process: `claim_held` takes every due notice no live claim
holds in one guarded statement (on PostgreSQL a second process's statement waits on the rows
and then finds them claimed), the message goes out, and `mark_sent` closes them. A process that
dies between the two leaves a claim whose lease runs out, and another takes the notices then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.storage.database import Connection, Database
from bot.storage.values import time_from_column, time_to_column


@dataclass(frozen=True, slots=True)
class TimeSettings:
    """A server's rules of time: the most days one may be away at once (0: away days refused)
    and whether turn clocks run during a player's quiet hours."""

    guild_id: int
    away_days: int = 7
    clocks_in_quiet: bool = False


@dataclass(frozen=True, slots=True)
class Spell:
    """A time away on a server, from `started_at` to `ends_at` (the end asked for, or the
    moment its person came back)."""

    started_at: datetime
    ends_at: datetime


@dataclass(frozen=True, slots=True)
class Allowance:
    """What decides whether a person may go away on a server, read in the transaction that
    starts their spell (`AwayStore.start_spell`): the server's most days at once, the lowest
    cap of the open tournaments there they play in (None: none caps them), and their spells
    there ending after the moment asked (the first of the month)."""

    away_days: int
    cap: int | None
    spells: tuple[Spell, ...]


@dataclass(frozen=True, slots=True)
class QuietRow:
    """A person's daily quiet hours: 'HH:MM' local times in the IANA zone `timezone`, and the
    language they set them in (None: not known), which what they hold is written in."""

    starts: str
    ends: str
    timezone: str
    locale: str | None = None


@dataclass(frozen=True, slots=True)
class QuietSpan:
    """Quiet hours as they held from `from_at` until `until_at` (None: they hold now)."""

    quiet: QuietRow
    from_at: datetime
    until_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class TimeRules:
    """What decides a person's turn clock on a server since a moment, read in one statement:
    their spells away ending after it, their quiet hours now and as they were since, the
    server's settings and each change since of its choice of clocks in quiet hours."""

    spells: tuple[Spell, ...]
    quiet: QuietRow | None
    settings: TimeSettings
    quiet_spans: tuple[QuietSpan, ...] = ()
    """The quiet hours that held since the moment, oldest first (those in force last)."""
    clock_changes: tuple[tuple[datetime, bool], ...] = ()
    """Each change since the moment of whether clocks run in quiet hours on the server: when,
    and the choice from then on, oldest first (they alternate)."""


@dataclass(frozen=True, slots=True)
class HeldNotice:
    """A ping or direct message held during its person's quiet hours."""

    user_id: int
    guild_id: int | None
    channel_id: int
    game_id: int
    seq: int
    kind: str
    """'turn' (their turn began), 'remind' (half of their time was gone), 'nudge' (a player
    nudged them), 'next' (their turn is next), or 'back' (their days away ran out: told in
    the channels of the games waiting for their move; `game_id` 0, `seq` the spell's start in
    seconds, `release_at` its end)."""
    locale: str
    release_at: datetime
    held_at: datetime | None = None
    """When it was held (None: not known): a notice of a turn held before that game's current
    turn began is about an earlier turn."""


AWAY_CHANNEL = "marrakech_away"
"""The PostgreSQL channel notified when someone's quiet hours or time away change."""
_HELD_COLUMNS = "user_id, guild_id, channel_id, game_id, seq, kind, locale, release_at"
QUIET_PAST_KEPT = timedelta(days=60)
"""How long quiet hours that were replaced are kept: longer than any turn under way lasts."""


class AwayStore:
    """The tables of time away; each method is one statement unless it says otherwise."""

    def __init__(self, database: Database) -> None:
        self._db = database

    # --- a server's settings -----------------------------------------------------------------

    async def settings(self, guild_id: int) -> TimeSettings:
        async with self._db.single_read() as conn:
            row = await conn.fetchrow(
                "SELECT away_days, clocks_in_quiet FROM time_settings WHERE guild_id = $1",
                guild_id,
            )
        if row is None:
            return TimeSettings(guild_id)
        return TimeSettings(guild_id, int(row[0]), bool(row[1]))

    async def set_away_days(self, guild_id: int, days: int, now: datetime) -> TimeSettings:
        """Set the most days one may be away at once on the server, keeping its clocks in
        quiet hours (a change of those at the same moment holds too); the settings after."""
        async with self._db.single_write() as conn:
            row = await conn.fetchrow(
                "INSERT INTO time_settings (guild_id, away_days, updated_at) "
                "VALUES ($1, $2, $3) ON CONFLICT (guild_id) DO UPDATE SET "
                "away_days = excluded.away_days, updated_at = excluded.updated_at "
                "RETURNING away_days, clocks_in_quiet",
                guild_id,
                days,
                time_to_column(now),
            )
        assert row is not None
        return TimeSettings(guild_id, int(row[0]), bool(row[1]))

    async def set_clocks_in_quiet(self, guild_id: int, on: bool, now: datetime) -> TimeSettings:
        """Set whether turn clocks run in quiet hours on the server, keeping its away days (a
        change of those at the same moment holds too), and keep the change with its moment
        (two opposite changes at one moment cancel out); the settings after."""
        async with self._db.transaction() as conn:
            was = await conn.fetchval(
                "SELECT clocks_in_quiet FROM time_settings WHERE guild_id = $1", guild_id
            )
            if bool(was) != on:
                undone = await conn.execute(
                    "DELETE FROM quiet_clock_changes WHERE guild_id = $1 AND changed_at = $2",
                    guild_id,
                    time_to_column(now),
                )
                if not undone:
                    await conn.execute(
                        "INSERT INTO quiet_clock_changes (guild_id, changed_at, clocks_in_quiet) "
                        "VALUES ($1, $2, $3)",
                        guild_id,
                        time_to_column(now),
                        int(on),
                    )
            row = await conn.fetchrow(
                "INSERT INTO time_settings (guild_id, clocks_in_quiet, updated_at) "
                "VALUES ($1, $2, $3) ON CONFLICT (guild_id) DO UPDATE SET "
                "clocks_in_quiet = excluded.clocks_in_quiet, updated_at = excluded.updated_at "
                "RETURNING away_days, clocks_in_quiet",
                guild_id,
                int(on),
                time_to_column(now),
            )
        assert row is not None
        return TimeSettings(guild_id, int(row[0]), bool(row[1]))

    async def set_tournament_away_days(self, tournament_id: int, days: int) -> None:
        """A tournament's own cap on away days (0: refused)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "INSERT INTO tournament_away (tournament_id, away_days) VALUES ($1, $2) "
                "ON CONFLICT (tournament_id) DO UPDATE SET away_days = excluded.away_days",
                tournament_id,
                days,
            )

    async def tournament_cap(self, guild_id: int, user_id: int) -> int | None:
        """The smallest cap on away days of the open tournaments of the server the person
        plays in (None: none caps them)."""
        async with self._db.single_read() as conn:
            return await _tournament_cap(conn, guild_id, user_id)

    # --- away spells -------------------------------------------------------------------------

    async def spells_since(self, guild_id: int, user_id: int, since: datetime) -> list[Spell]:
        """The person's spells on the server that end after `since`, oldest first."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT started_at, ends_at FROM away_spells WHERE guild_id = $1 "
                "AND user_id = $2 AND ends_at > $3 ORDER BY started_at",
                guild_id,
                user_id,
                time_to_column(since),
            )
        return [_spell(row[0], row[1]) for row in rows]

    async def active_spells(self, now: datetime) -> dict[tuple[int, int], datetime]:
        """Per server and person, when their spell away running at `now` ends."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT guild_id, user_id, ends_at FROM away_spells "
                "WHERE started_at <= $1 AND ends_at > $1",
                time_to_column(now),
            )
        return {(int(row[0]), int(row[1])): time_from_column(str(row[2])) for row in rows}

    async def _notify(self, conn: Connection) -> None:
        """Tell the other processes (PostgreSQL) that time away changed, on commit."""
        if self._db.backend == "postgres":
            await conn.fetchval(f"SELECT pg_notify('{AWAY_CHANNEL}', '')")

    async def start_spell(
        self,
        guild_id: int,
        user_id: int,
        spell: Spell,
        locale: str = "en",
        *,
        allowed: Callable[[Allowance], object] | None = None,
        counted_since: datetime | None = None,
    ) -> None:
        """Record a spell away with the notice of its end ('back', told in `locale` where no
        game's own language is known); one transaction: a spell still running is ended at its
        start, unsaid, so a person has one at a time.

        `allowed`, when given, is called first in that transaction with what the person may
        take (their spells ending after `counted_since`, the spell's start if None) and
        refuses the spell by raising, which writes nothing. The transaction begins by taking
        the server's row of settings (written as it is, or made with its defaults), so that
        two spells asked at once on the server, in any process, are allowed one after the
        other: the second counts the first (SQLite's write transactions are one at a time
        already; on PostgreSQL the second waits on that row until the first commits)."""
        async with self._db.transaction() as conn:
            if allowed is not None:
                since = counted_since or spell.started_at
                allowed(await _allowance(conn, guild_id, user_id, since, spell.started_at))
            await self._notify(conn)
            await _drop_back(conn, guild_id, user_id, spell.started_at)
            await conn.execute(
                "UPDATE away_spells SET ends_at = $3 WHERE guild_id = $1 AND user_id = $2 "
                "AND ends_at > $3",
                guild_id,
                user_id,
                time_to_column(spell.started_at),
            )
            await conn.execute(
                "INSERT INTO away_spells (guild_id, user_id, started_at, ends_at) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (guild_id, user_id, started_at) "
                "DO UPDATE SET ends_at = excluded.ends_at",
                guild_id,
                user_id,
                time_to_column(spell.started_at),
                time_to_column(spell.ends_at),
            )
            await conn.execute(
                f"INSERT INTO held_notices ({_HELD_COLUMNS}, created_at) "
                "VALUES ($1, $2, 0, 0, $3, 'back', $4, $5, $6) "
                "ON CONFLICT (user_id, guild_id, seq) WHERE kind = 'back' DO UPDATE SET "
                "locale = excluded.locale, release_at = excluded.release_at, "
                "claimed_by = NULL, claimed_until = NULL, sent_at = NULL",
                user_id,
                guild_id,
                back_seq(spell),
                locale,
                time_to_column(spell.ends_at),
                time_to_column(spell.started_at),
            )

    async def end_spell(self, guild_id: int, user_id: int, now: datetime) -> Spell | None:
        """End the person's spell running at `now` there; the spell as it was asked for, or
        None if they were not away."""
        async with self._db.transaction() as conn:
            row = await conn.fetchrow(
                "SELECT started_at, ends_at FROM away_spells WHERE guild_id = $1 "
                "AND user_id = $2 AND started_at <= $3 AND ends_at > $3",
                guild_id,
                user_id,
                time_to_column(now),
            )
            if row is None:
                return None
            await self._notify(conn)
            await _drop_back(conn, guild_id, user_id, now)
            await conn.execute(
                "UPDATE away_spells SET ends_at = $3 WHERE guild_id = $1 AND user_id = $2 "
                "AND started_at = $4",
                guild_id,
                user_id,
                time_to_column(now),
                row[0],
            )
        return _spell(row[0], row[1])

    # --- quiet hours -------------------------------------------------------------------------

    async def all_quiet(self) -> dict[int, QuietRow]:
        """Everyone's quiet hours (only those who set some have a row)."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT user_id, starts, ends, timezone, locale FROM quiet_hours"
            )
        return {
            int(row[0]): QuietRow(
                str(row[1]), str(row[2]), str(row[3]), None if row[4] is None else str(row[4])
            )
            for row in rows
        }

    async def set_quiet(
        self,
        user_id: int,
        quiet: QuietRow | None,
        now: datetime,
        held_until: datetime | None = None,
    ) -> int:
        """Set the person's quiet hours (None: none), keeping those they replace with the
        moments they held between (and dropping what no turn needs any more); on PostgreSQL
        the other processes are told (AWAY_CHANNEL). In the same transaction, the person's
        unsent held notices (but 'back') are released at `held_until`, the end of the quiet
        hours under way as now set (now, if none is; None: left as they are): how many
        moved."""
        async with self._db.transaction() as conn:
            await self._notify(conn)
            moved = 0
            if held_until is not None:
                moved = await conn.execute(
                    "UPDATE held_notices SET release_at = $2 WHERE user_id = $1 "
                    "AND kind <> 'back' AND sent_at IS NULL AND release_at <> $2",
                    user_id,
                    time_to_column(held_until),
                )
            await conn.execute(
                "INSERT INTO quiet_hours_past (user_id, starts, ends, timezone, from_at, "
                "until_at) SELECT user_id, starts, ends, timezone, updated_at, $2 "
                "FROM quiet_hours WHERE user_id = $1 AND updated_at < $2 "
                "ON CONFLICT (user_id, until_at) DO NOTHING",
                user_id,
                time_to_column(now),
            )
            await conn.execute(
                "DELETE FROM quiet_hours_past WHERE until_at < $1",
                time_to_column(now - QUIET_PAST_KEPT),
            )
            if quiet is None:
                await conn.execute("DELETE FROM quiet_hours WHERE user_id = $1", user_id)
                return moved
            await conn.execute(
                "INSERT INTO quiet_hours (user_id, starts, ends, timezone, updated_at, locale) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (user_id) DO UPDATE SET "
                "starts = excluded.starts, ends = excluded.ends, "
                "timezone = excluded.timezone, updated_at = excluded.updated_at, "
                "locale = excluded.locale",
                user_id,
                quiet.starts,
                quiet.ends,
                quiet.timezone,
                time_to_column(now),
                quiet.locale,
            )
        return moved

    async def listen_away(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever another process changes someone's quiet hours or time
        away, and when the listening connection is (re)opened; run until cancelled.
        PostgreSQL only: on SQLite, which serves one process, it returns at once."""
        from bot.storage.postgres import PostgresDatabase  # only PostgreSQL needs asyncpg

        if isinstance(self._db, PostgresDatabase):
            await self._db.listen(AWAY_CHANNEL, callback)

    # --- what decides a clock ----------------------------------------------------------------

    async def rules(self, guild_id: int | None, user_id: int, since: datetime) -> TimeRules:
        """The person's spells on the server ending after `since`, their quiet hours now and
        as they were since, and the server's settings with each change since of its clocks in
        quiet hours, in one statement."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT 'away', started_at, ends_at, NULL, NULL, NULL FROM away_spells "
                "WHERE guild_id = $1 AND user_id = $2 AND ends_at > $3 "
                "UNION ALL SELECT 'quiet', starts, ends, timezone, locale, updated_at "
                "FROM quiet_hours WHERE user_id = $2 "
                "UNION ALL SELECT 'past', starts, ends, timezone, from_at, until_at "
                "FROM quiet_hours_past WHERE user_id = $2 AND until_at > $3 "
                "UNION ALL SELECT 'settings', CAST(away_days AS TEXT), "
                "CAST(clocks_in_quiet AS TEXT), NULL, NULL, NULL FROM time_settings "
                "WHERE guild_id = $1 "
                "UNION ALL SELECT 'clock', changed_at, CAST(clocks_in_quiet AS TEXT), NULL, NULL, "
                "NULL FROM quiet_clock_changes WHERE guild_id = $1 AND changed_at > $3",
                guild_id,
                user_id,
                time_to_column(since),
            )
        spells = []
        quiet = None
        spans = []
        changes = []
        settings = TimeSettings(guild_id or 0)
        for row in rows:
            if row[0] == "away":
                spells.append(_spell(row[1], row[2]))
            elif row[0] == "quiet":
                locale = None if row[4] is None else str(row[4])
                quiet = QuietRow(str(row[1]), str(row[2]), str(row[3]), locale)
                spans.append(QuietSpan(quiet, time_from_column(str(row[5]))))
            elif row[0] == "past":
                past = QuietRow(str(row[1]), str(row[2]), str(row[3]))
                spans.append(
                    QuietSpan(past, time_from_column(str(row[4])), time_from_column(str(row[5])))
                )
            elif row[0] == "clock":
                changes.append((time_from_column(str(row[1])), row[2] == "1"))
            else:
                settings = TimeSettings(guild_id or 0, int(row[1]), row[2] == "1")
        spells.sort(key=lambda spell: spell.started_at)
        spans.sort(key=lambda span: span.from_at)
        changes.sort()
        return TimeRules(tuple(spells), quiet, settings, tuple(spans), tuple(changes))

    # --- held notices ------------------------------------------------------------------------

    async def hold(self, notice: HeldNotice, now: datetime) -> bool:
        """Keep the notice until its release (nothing if the same one is held already);
        True if it was new."""
        async with self._db.single_write() as conn:
            added = await conn.execute(
                f"INSERT INTO held_notices ({_HELD_COLUMNS}, created_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
                "ON CONFLICT (user_id, game_id, seq, kind) WHERE kind <> 'back' DO NOTHING",
                notice.user_id,
                notice.guild_id,
                notice.channel_id,
                notice.game_id,
                notice.seq,
                notice.kind,
                notice.locale,
                time_to_column(notice.release_at),
                time_to_column(now),
            )
        return added == 1

    async def claim_held(self, now: datetime, owner: str, until: datetime) -> list[HeldNotice]:
        """Claim for `owner` until `until` every unsent notice released by `now` that no live
        claim holds (one guarded statement: of two processes, one gets each notice)."""
        async with self._db.single_write() as conn:
            rows = await conn.fetch(
                "UPDATE held_notices SET claimed_by = $2, claimed_until = $3 "
                "WHERE sent_at IS NULL AND release_at <= $1 "
                "AND (claimed_until IS NULL OR claimed_until <= $1 OR claimed_by = $2) "
                f"RETURNING {_HELD_COLUMNS}, created_at",
                time_to_column(now),
                owner,
                time_to_column(until),
            )
        notices = [
            HeldNotice(
                int(row[0]),
                None if row[1] is None else int(row[1]),
                int(row[2]),
                int(row[3]),
                int(row[4]),
                str(row[5]),
                str(row[6]),
                time_from_column(str(row[7])),
                time_from_column(str(row[8])),
            )
            for row in rows
        ]
        return sorted(  # each person's in the order they were held
            notices, key=lambda n: (n.user_id, n.release_at, n.held_at or n.release_at, n.seq)
        )

    async def mark_sent(self, user_id: int, owner: str, now: datetime) -> int:
        """Mark the person's notices that `owner` claimed as sent; how many."""
        async with self._db.single_write() as conn:
            return await conn.execute(
                "UPDATE held_notices SET sent_at = $3, claimed_by = NULL, claimed_until = NULL "
                "WHERE user_id = $1 AND claimed_by = $2 AND sent_at IS NULL",
                user_id,
                owner,
                time_to_column(now),
            )

    async def give_back(self, user_id: int, owner: str) -> None:
        """Give up `owner`'s claim on the person's notices (their message failed: another
        pass sends them)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "UPDATE held_notices SET claimed_by = NULL, claimed_until = NULL "
                "WHERE user_id = $1 AND claimed_by = $2 AND sent_at IS NULL",
                user_id,
                owner,
            )

    async def next_release(self, now: datetime) -> datetime | None:
        """When the next unsent notice is to go (or a claim on one runs out)."""
        async with self._db.single_read() as conn:
            first = await conn.fetchval(
                "SELECT min(CASE WHEN claimed_until > $1 THEN claimed_until "
                "ELSE release_at END) FROM held_notices WHERE sent_at IS NULL",
                time_to_column(now),
            )
        return time_from_column(None if first is None else str(first))


async def _allowance(
    conn: Connection, guild_id: int, user_id: int, since: datetime, now: datetime
) -> Allowance:
    """What the person may take on the server, read with its row of settings locked until the
    transaction ends (`AwayStore.start_spell`)."""
    away_days = await conn.fetchval(
        "INSERT INTO time_settings (guild_id, updated_at) VALUES ($1, $2) "
        "ON CONFLICT (guild_id) DO UPDATE SET away_days = time_settings.away_days "
        "RETURNING away_days",
        guild_id,
        time_to_column(now),
    )
    cap = await _tournament_cap(conn, guild_id, user_id)
    rows = await conn.fetch(
        "SELECT started_at, ends_at FROM away_spells WHERE guild_id = $1 "
        "AND user_id = $2 AND ends_at > $3 ORDER BY started_at",
        guild_id,
        user_id,
        time_to_column(since),
    )
    return Allowance(
        int(away_days),
        cap,
        tuple(_spell(row[0], row[1]) for row in rows),
    )


async def _tournament_cap(conn: Connection, guild_id: int, user_id: int) -> int | None:
    """The smallest cap on away days of the open tournaments of the server the person plays
    in (None: none caps them)."""
    cap = await conn.fetchval(
        "SELECT min(a.away_days) FROM tournament_away a "
        "JOIN tournaments t ON t.id = a.tournament_id "
        "JOIN tournament_players p ON p.tournament_id = t.id "
        "WHERE t.guild_id = $1 AND t.status IN ('signup', 'running') AND p.user_id = $2",
        guild_id,
        user_id,
    )
    return None if cap is None else int(cap)


def back_seq(spell: Spell) -> int:
    """The `seq` of a spell's 'back' notice: its start, in seconds."""
    return int(spell.started_at.timestamp())


async def _drop_back(conn: Connection, guild_id: int, user_id: int, now: datetime) -> None:
    """Mark the person's unsent 'back' notice on the server sent, unsaid: their spell ended
    early (they came back, or went away anew), and the early end has its own line."""
    await conn.execute(
        "UPDATE held_notices SET sent_at = $3, claimed_by = NULL, claimed_until = NULL "
        "WHERE user_id = $1 AND guild_id = $2 AND kind = 'back' AND sent_at IS NULL",
        user_id,
        guild_id,
        time_to_column(now),
    )


def _spell(started: object, ends: object) -> Spell:
    return Spell(time_from_column(str(started)), time_from_column(str(ends)))
