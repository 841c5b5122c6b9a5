"""Time away from the games: away days, quiet hours, and the pings held while quiet hours last.

The rules (docs/async.md):
- **Away days.** A person may be away from a server's games for up to the server's number of
  days at once (`TimeSettings.away_days`, DEFAULT_AWAY_DAYS; 0 refuses them) and at most
  MONTHLY_AWAY_DAYS days in a calendar month (UTC), counted from the days asked for, less what
  coming back early gives back. While they are away their turn clocks stop in every game of
  that server: a turn's time runs only outside their spells away.
- **Quiet hours.** Daily hours, in the person's IANA time zone, in which no ping and no direct
  message reaches them: what would have is held (`hold`) and sent as one message when the
  hours end, as they are then (`set_quiet_hours` moves what they held to their new end).
  Unless the server lets clocks run then (`TimeSettings.clocks_in_quiet`), their turn clocks
  stop during those hours too.

A turn's clock is the time it has run, not the time that passed (bot.services.time_rules):
it stands still over the moments its player is away or quiet (`pauses`), each by the rules
that held at the time: quiet hours set, changed or turned off, and a server's switch of its
clocks in quiet hours, count from the moment they were made (the storage keeps what they
replaced). The game's row keeps the clock's moments as they were when the turn began
(bot.services.deadlines); a pause only ever moves them later, so the turn clock checks them
when they fall due (`AwayService.due_check`: one read) and sets them later when a pause came
meanwhile. Coming back early, and a change of those rules, set them at once to what they now
are (`AwayService.come_back`, `set_quiet_hours`, `set_clocks_in_quiet`). A turn costs nothing
more than before while no one is away or quiet. So what the clock stands at follows from what
is stored, across restarts and processes.

What other services ask: `AwayService.availability(guild_id, user_id)` says whether the
person is away (and until when, on that server) or in quiet hours (and until when) now.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, time, timedelta

from bot.services.errors import (
    BadOptionError,
    GameDamagedError,
    GameNotFoundError,
    StaleBoardError,
)
from bot.services.loader import GameLoader
from bot.services.seat_errors import Unreachable
from bot.services.time_rules import (
    MONTHLY_AWAY_DAYS,
    MOST_AWAY_DAYS_SETTING,
    TURN_NOTICES,
    Availability,
    AwayGame,
    AwayRefusedError,
    DueCheck,
    Interval,
    NotAwayError,
    QuietHours,
    Resumed,
    TurnNow,
    running,
    turn_clock,
)
from bot.services.views import GameInfo
from bot.storage.away import (
    Allowance,
    AwayStore,
    QuietRow,
    Spell,
    TimeRules,
    TimeSettings,
)
from bot.storage.away import HeldNotice as HeldNotice  # the edge and presentation name it here
from bot.storage.game_rows import GameRow
from bot.storage.kinds import GameStatus


def quiet_of(row: QuietRow) -> QuietHours:
    """Quiet hours as stored."""
    return QuietHours(time.fromisoformat(row.starts), time.fromisoformat(row.ends), row.timezone)


def row_of(quiet: QuietHours, locale: str | None = None) -> QuietRow:
    return QuietRow(
        quiet.starts.strftime("%H:%M"), quiet.ends.strftime("%H:%M"), quiet.timezone, locale
    )


def pauses(rules: TimeRules, since: datetime) -> Iterator[Interval]:
    """The moments after `since` in which the person's turn clock stops, in order: their
    spells away and their quiet hours, each as they were at the time (quiet hours changed
    since apply from their change on), while the server let clocks stop in them."""
    streams: list[Iterator[Interval]] = [
        iter([(spell.started_at, spell.ends_at) for spell in rules.spells])
    ]
    stopping = _quiet_stops_clocks(rules, since)
    for span in rules.quiet_spans:
        hours = quiet_of(span.quiet)
        for start, end in stopping:
            low = max(start, span.from_at)
            high = _earlier(end, span.until_at)
            if high is None or low < high:
                streams.append(_within(hours.windows(low), low, high))
    return heapq.merge(*streams)


def _quiet_stops_clocks(
    rules: TimeRules, since: datetime
) -> list[tuple[datetime, datetime | None]]:
    """The stretches from `since` on in which the server let quiet hours stop clocks (an end
    None: still)."""
    changes = rules.clock_changes
    runs = not changes[0][1] if changes else rules.settings.clocks_in_quiet
    stretches: list[tuple[datetime, datetime | None]] = []
    start = since
    for moment, runs_after in changes:
        if not runs:
            stretches.append((start, moment))
        start, runs = moment, runs_after
    if not runs:
        stretches.append((start, None))
    return stretches


def _earlier(first: datetime | None, second: datetime | None) -> datetime | None:
    """The earlier of two ends, None being no end."""
    if first is None:
        return second
    return first if second is None else min(first, second)


def _within(
    windows: Iterator[Interval], low: datetime, high: datetime | None
) -> Iterator[Interval]:
    """The parts of the windows (in order) between `low` and `high` (None: no end)."""
    for start, end in windows:
        if high is not None and start >= high:
            return
        start, end = max(start, low), end if high is None else min(end, high)
        if start < end:
            yield start, end


# --- the service ---------------------------------------------------------------------------


class AwayService:
    """Away days, quiet hours and the notices held for them (see the module)."""

    def __init__(self, loader: GameLoader, store: AwayStore) -> None:
        self._loader = loader
        self._store = store
        self.store = store
        """The tables of time away (the turn clock claims and marks the held notices there)."""
        self._held: list[Callable[[datetime], None]] = []
        self._quiet: dict[int, QuietRow] | None = None
        """Everyone's quiet hours, as last read (None: to read again), so that a turn's ping
        costs no round trip; another process's change empties it (`changed_elsewhere`)."""
        self._spells: dict[tuple[int, int], datetime] | None = None
        """Per server and person, when their spell away running now ends, as last read (None:
        to read again)."""
        self._reads = 0

    def on_held(self, listener: Callable[[datetime], None]) -> None:
        """Call `listener` with the release moment of each notice held here (the turn clock
        sends it then)."""
        self._held.append(listener)

    # --- what others ask -------------------------------------------------------------------

    async def availability(self, guild_id: int | None, user_id: int) -> Availability:
        """Whether the person is away on the server or in quiet hours now, and until when (one
        read)."""
        now = self._loader.now()
        return _availability(await self._store.rules(guild_id, user_id, now), now)

    async def unreachable(self, guild_id: int | None, user_id: int) -> Unreachable | None:
        """Why a ping cannot reach the person now, away on the server first, then in their
        quiet hours, with until when; None when it can (a nudge's check, one read)."""
        now_is = await self.availability(guild_id, user_id)
        if now_is.away_until is not None:
            return Unreachable("away", now_is.away_until)
        if now_is.quiet_until is not None:
            return Unreachable("quiet", now_is.quiet_until)
        return None

    async def quiet_until(self, user_id: int) -> datetime | None:
        """Until when the person's quiet hours hold a direct message to them (None: one may
        reach them now; from everyone's quiet hours as last read: no round trip)."""
        row = await self._quiet_of(user_id)
        return None if row is None else quiet_of(row).until(self._loader.now())

    async def due_check(self, game: GameRow, user_id: int) -> DueCheck:
        """For the turn clock, as the game's reminder or end falls due: the turn's real clock
        if a pause moved it later (one read)."""
        now = self._loader.now()
        started = game.turn_started_at
        rules = await self._store.rules(game.guild_id, user_id, started or now)
        available = _availability(rules, now)
        held_locale = None if rules.quiet is None else rules.quiet.locale
        limit = game.turn_limit_seconds
        if started is None or limit is None or game.due_at is None:
            return DueCheck(None, available, held_locale)
        real = turn_clock(
            started, limit, lambda: pauses(rules, started), remind=game.remind_at is not None
        )
        assert real.due_at is not None
        if real.due_at == started + timedelta(seconds=limit):
            return DueCheck(None, available, held_locale)  # nothing stopped this turn's clock
        later = real.due_at > game.due_at or (
            game.remind_at is not None
            and real.remind_at is not None
            and real.remind_at > game.remind_at
        )
        return DueCheck(real if later else None, available, held_locale)

    # --- away days -------------------------------------------------------------------------

    async def settings(self, guild_id: int) -> TimeSettings:
        return await self._store.settings(guild_id)

    async def set_away_days(self, guild_id: int, days: int) -> TimeSettings:
        if not 0 <= days <= MOST_AWAY_DAYS_SETTING:
            raise BadOptionError("days", days)
        return await self._store.set_away_days(guild_id, days, self._loader.now())

    async def set_tournament_away_days(self, tournament_id: int, days: int) -> None:
        """Cap the away days of a tournament's players while it is open (0: refused)."""
        if not 0 <= days <= MOST_AWAY_DAYS_SETTING:
            raise BadOptionError("days", days)
        await self._store.set_tournament_away_days(tournament_id, days)

    async def set_clocks_in_quiet(self, guild_id: int, on: bool) -> TimeSettings:
        """Let turn clocks run in quiet hours on the server, or stop in them, from now on: the
        clocks of the turns under way there are set to what they now are."""
        settings = await self._store.set_clocks_in_quiet(guild_id, on, self._loader.now())
        for game_id in await self._loader.store.timed_games(guild_id, None):
            await self._resume(game_id)
        return settings

    async def go_away(
        self, guild_id: int, user_id: int, days: int, locale: str = "en"
    ) -> tuple[datetime, list[AwayGame]]:
        """Start `days` days away on the server; when they end, and the running games there
        (to tell their channels). Their end is held as a notice ('back'), so the turn clock
        tells the games waiting for the person's move, once, when the days run out.
        AwayRefusedError beyond the allowance, BadOptionError for days the command never
        offers (under 1, over MOST_AWAY_DAYS_SETTING), changing nothing. The allowance is
        counted in the transaction that writes the spell, the server's settings row held:
        of two commands at once (in one process or two), the second counts the first's days."""
        if not 1 <= days <= MOST_AWAY_DAYS_SETTING:
            raise BadOptionError("days", days)
        now = self._loader.now()
        until = now + timedelta(days=days)
        asked = Spell(now, until)
        month = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        await self._store.start_spell(
            guild_id,
            user_id,
            asked,
            locale,
            allowed=lambda allowance: _refuse_beyond(allowance, asked, days, month),
            counted_since=month,
        )
        if self._spells is not None:
            self._spells[guild_id, user_id] = until
        for listener in self._held:
            listener(until)
        return until, await self.running_games(guild_id, user_id)

    async def running_games(
        self, guild_id: int, user_id: int, besides: Sequence[Resumed] = ()
    ) -> list[AwayGame]:
        """The person's running games on the server (but those `besides`, told otherwise) that
        wait at their turns: not one whose seat of theirs went out (out of dirhams) or that the
        AI plays after their timeouts. The channels told when they go away and when they are
        back."""
        rows = await self._loader.store.open_games_of(guild_id, user_id)
        told = {game.game_id for game in besides}
        games = []
        for row in rows:
            if row.status is not GameStatus.RUNNING or row.id in told:
                continue
            if not await self._waits_at_turns_of(row.id, user_id):
                continue
            games.append(
                AwayGame(row.id, row.channel_id, row.locale, row.turn_limit_seconds is not None)
            )
        return games

    async def _waits_at_turns_of(self, game_id: int, user_id: int) -> bool:
        """Whether the game waits at the person's turns: their seat is still in it, and they
        play it themselves (a game that cannot be read counts, told as it always was)."""
        try:
            loaded = await self._loader.load(game_id)
        except (GameDamagedError, GameNotFoundError):
            return True
        state = loaded.state
        return state is None or any(
            player.user_id == user_id
            and player.seat is not None
            and not player.autoplay
            and not state.is_eliminated(player.seat)
            for player in loaded.players
        )

    async def come_back(self, guild_id: int, user_id: int) -> list[Resumed]:
        """End the person's time away on the server now: each game waiting for their move
        gets its clock back with the time it had left. NotAwayError if they were not away."""
        now = self._loader.now()
        spell = await self._store.end_spell(guild_id, user_id, now)
        if self._spells is not None:
            self._spells.pop((guild_id, user_id), None)
        if spell is None:
            raise NotAwayError()
        return await self._resume_all(guild_id, user_id)

    async def turns_now(self, notices: Sequence[HeldNotice]) -> dict[int, TurnNow]:
        """For each game whose held notices speak of the person's turn ('turn', 'remind',
        'nudge'), whether it waits for their move now, since when and until when (their own
        pauses counted, as the turn clock counts them: the deadline stored is moved later only
        when it falls due), and whether their last turn ran out of time. A turn played since,
        or whose time ran out (the AI plays it), no longer waits. A game that cannot be read is
        left out (its notices go as they are)."""
        now = self._loader.now()
        found = {}
        for game_id in dict.fromkeys(n.game_id for n in notices if n.kind in TURN_NOTICES):
            user_id = next(n.user_id for n in notices if n.game_id == game_id)
            try:
                loaded = await self._loader.load(game_id)
            except (GameDamagedError, GameNotFoundError):
                continue
            game, state = loaded.game, loaded.state
            mine = next((p for p in loaded.players if p.user_id == user_id), None)
            timed_out = mine is not None and mine.timeouts > 0
            mover = None
            if state is not None and state.to_move is not None:
                mover = loaded.player_at(state.to_move)
            if (
                game.status is not GameStatus.RUNNING
                or mover is None
                or mover.user_id != user_id
                or mover.ai_plays
            ):
                found[game_id] = TurnNow(game_id, False, timed_out=timed_out)
                continue
            started, limit, ends_at = game.turn_started_at, game.turn_limit_seconds, None
            if started is not None and limit is not None and game.due_at is not None:
                ends_at = await self._real_end(game, user_id, started, limit)
            waits = ends_at is None or ends_at > now
            found[game_id] = TurnNow(
                game_id, waits, ends_at if waits else None, started, timed_out or not waits
            )
        return found

    async def _real_end(
        self, game: GameRow, user_id: int, started: datetime, limit: int
    ) -> datetime | None:
        """When the turn of `user_id` begun at `started` really ends, their pauses counted."""
        rules = await self._store.rules(game.guild_id, user_id, started)
        clock = turn_clock(
            started, limit, lambda: pauses(rules, started), remind=game.remind_at is not None
        )
        return clock.due_at

    async def days_over(self, notice: HeldNotice) -> list[Resumed] | None:
        """The person's days away (`notice`, kind 'back') ran out: each game waiting for their
        move, with the time its clock has left, its clock set to what it really is, but a turn
        whose time ran out meanwhile (the AI plays it, and its line says so). None while they
        are away on the server again: no game is to be told their days away are over."""
        if notice.guild_id is None:
            return []
        if (await self.availability(notice.guild_id, notice.user_id)).away_until is not None:
            return None
        resumed = await self._resume_all(notice.guild_id, notice.user_id)
        return [game for game in resumed if game.left > timedelta()]

    async def _resume_all(self, guild_id: int, user_id: int) -> list[Resumed]:
        resumed = []
        for row in await self._loader.store.open_games_of(guild_id, user_id):
            if row.status is GameStatus.RUNNING:
                found = await self._resume(row.id, user_id)
                if found is not None:
                    resumed.append(found)
        return resumed

    async def _resume(self, game_id: int, user_id: int | None = None) -> Resumed | None:
        """Set the clock of the game's turn, if it is the person's (`user_id`; None: whoever's
        it is), to what it really is now that their spell ended or the rules of their pauses
        changed. Another process that moved the game on meanwhile (a move, a resignation out
        of turn) leaves the turn to look at again: read again, it is set once more."""
        try:
            async with self._loader.locked(game_id):
                try:
                    return await self._resume_locked(game_id, user_id)
                except StaleBoardError:  # another process moved the game on since it was read
                    return await self._resume_locked(game_id, user_id)
        except (GameDamagedError, GameNotFoundError):
            return None

    async def _resume_locked(self, game_id: int, user_id: int | None) -> Resumed | None:
        """`_resume`, under the game's lock."""
        loaded = await self._loader.load(game_id)
        game, state = loaded.game, loaded.state
        if state is None or state.to_move is None or game.status is not GameStatus.RUNNING:
            return None
        player = loaded.player_at(state.to_move)
        if player is None or player.user_id is None or player.ai_plays:
            return None
        if user_id is not None and player.user_id != user_id:
            return None
        started, limit = game.turn_started_at, game.turn_limit_seconds
        if started is None or limit is None or game.due_at is None:
            return None  # no clock: nothing to start again
        rules = await self._store.rules(game.guild_id, player.user_id, started)
        clock = turn_clock(
            started,
            limit,
            lambda: pauses(rules, started),
            remind=game.remind_at is not None,
        )
        if (clock.remind_at, clock.due_at) != (game.remind_at, game.due_at):
            await self._loader.set_clock(loaded, clock)
        now = self._loader.now()
        left = timedelta(seconds=limit) - running(started, now, pauses(rules, started))
        return Resumed(game.id, game.channel_id, game.locale, max(left, timedelta()))

    # --- quiet hours -----------------------------------------------------------------------

    async def quiet_hours(self, user_id: int) -> QuietHours | None:
        row = await self._quiet_of(user_id)
        return None if row is None else quiet_of(row)

    async def set_quiet_hours(
        self, user_id: int, quiet: QuietHours | None, locale: str | None = None
    ) -> None:
        """Set the person's quiet hours (None: none); they hold in every server. `locale`: the
        language they asked in, which what the hours hold is written in. What the hours held
        goes at the end of the quiet hours under way as now set, or at once if none is."""
        row = None if quiet is None else row_of(quiet, locale)
        now = self._loader.now()
        release = (None if quiet is None else quiet.until(now)) or now
        if await self._store.set_quiet(user_id, row, now, release):
            for listener in self._held:
                listener(release)
        if self._quiet is not None:
            if row is None:
                self._quiet.pop(user_id, None)
            else:
                self._quiet[user_id] = row
        for game_id in await self._loader.store.timed_games(None, user_id):
            await self._resume(game_id, user_id)  # from now on: sooner or later than it was

    def changed_elsewhere(self) -> None:
        """Someone's quiet hours or time away changed in another process (or may have: the
        listening connection was opened again): read them again when next needed."""
        self._quiet = self._spells = None
        self._reads += 1

    async def _quiet_of(self, user_id: int) -> QuietRow | None:
        """The person's quiet hours, from everyone's as last read (a read when none is)."""
        if self._quiet is None:
            reads = self._reads
            everyone = await self._store.all_quiet()
            if reads == self._reads:  # no change was told while it was read
                self._quiet = everyone
            return everyone.get(user_id)
        return self._quiet.get(user_id)

    async def away_until(self, guild_id: int | None, user_id: int) -> datetime | None:
        """When the person's time away from the server's games ends (None: not away), from
        what was last read (a read when nothing is): for the turn message and `mygames`."""
        if guild_id is None:
            return None
        now = self._loader.now()
        spells = self._spells
        if spells is None:
            reads = self._reads
            spells = await self._store.active_spells(now)
            if reads == self._reads:
                self._spells = spells
        until = spells.get((guild_id, user_id))
        return until if until is not None and until > now else None

    async def hold_if_quiet(
        self,
        user_id: int,
        *,
        guild_id: int | None,
        channel_id: int,
        game_id: int,
        seq: int,
        kind: str,
        locale: str,
    ) -> bool:
        """True if the person is in quiet hours now: the notice (`kind` 'turn' or 'remind' of
        the game at `seq`) is then held, once, for the end of those hours (one read, and one
        write when held)."""
        row = await self._quiet_of(user_id)
        until = None if row is None else quiet_of(row).until(self._loader.now())
        if until is None:
            return False
        language = row.locale if row is not None and row.locale is not None else locale
        await self.hold(
            HeldNotice(user_id, guild_id, channel_id, game_id, seq, kind, language, until)
        )
        return True

    async def reachable(self, game: GameInfo, seq: int, users: Sequence[int]) -> tuple[int, ...]:
        """Of the people a turn message of the game at `seq` would ping, those it may: the
        others are in quiet hours, and their ping is held (a read per person)."""
        reached = []
        for user_id in users:
            held = await self.hold_if_quiet(
                user_id,
                guild_id=game.guild_id,
                channel_id=game.channel_id,
                game_id=game.id,
                seq=seq,
                kind="turn",
                locale=game.locale,
            )
            if not held:
                reached.append(user_id)
        return tuple(reached)

    async def hold(self, notice: HeldNotice) -> None:
        """Keep the notice for its release (a second of the same is dropped). Its locale is
        the one its person set their quiet hours in, where known (`hold_if_quiet`,
        `DueCheck.held_locale`): the one message that brings what was held is theirs,
        whichever game it names first."""
        await self._store.hold(notice, self._loader.now())
        for listener in self._held:
            listener(notice.release_at)


def _availability(rules: TimeRules, now: datetime) -> Availability:
    away = next(
        (spell.ends_at for spell in rules.spells if spell.started_at <= now < spell.ends_at), None
    )
    quiet = None if rules.quiet is None else quiet_of(rules.quiet).until(now)
    return Availability(away, quiet)


def _refuse_beyond(allowance: Allowance, asked: Spell, days: int, month: datetime) -> None:
    """Raise AwayRefusedError if the spell `asked` (`days` days, begun in the month that
    begins at `month`) passes what `allowance` leaves: the days at once that the server, or a
    tournament of the person's there, allows, or the days left in a month it falls in. Called
    in the transaction that starts the spell, so the spells it counts are all there are."""
    now = asked.started_at
    cap, server = allowance.cap, allowance.away_days
    allowed = server if cap is None else min(cap, server)
    spells = [  # a spell running now ends now, as the new one starts
        Spell(spell.started_at, min(spell.ends_at, now)) for spell in allowance.spells
    ]
    lefts = []  # per month the days asked fall in: its days left, and whether they do
    for start in _months(month, asked.ends_at):
        end = _month_after(start)
        left = MONTHLY_AWAY_DAYS - sum(_days(spell, start, end) for spell in spells)
        lefts.append((max(0, left), _days(asked, start, end) <= left))
    over = next((k for k, (_, fits) in enumerate(lefts) if not fits), None)
    if days > allowed or over is not None:
        by_month = over if days <= allowed else None  # past the days at once: this month's
        raise AwayRefusedError(
            days,
            allowed,
            lefts[by_month or 0][0],
            by_tournament=days > allowed and allowed < server,
            next_month=bool(by_month),
        )


def _days(spell: Spell, month: datetime, month_end: datetime) -> int:
    """The days a spell counts in the month from `month` to `month_end`: whole days begun of
    its part in that month."""
    length = min(spell.ends_at, month_end) - max(spell.started_at, month)
    if length <= timedelta():
        return 0
    return -(-length // timedelta(days=1))


def _month_after(month: datetime) -> datetime:
    """The first moment of the month after the one `month` begins."""
    return (month + timedelta(days=32)).replace(day=1)


def _months(month: datetime, until: datetime) -> Iterator[datetime]:
    """The first moments of the months from `month`'s to the one `until` falls in."""
    while month < until:
        yield month
        month = _month_after(month)
