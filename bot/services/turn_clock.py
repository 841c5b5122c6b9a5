"""The turn clock's use cases: what is due, when the next thing falls due, reminders, and the
turns the AI plays by itself.

`due_work` lists what the turn clocks call for at the injected clock's now (bot.runtime.scheduler
sleeps until `next_due` and hands each piece to the edge); `remind` and `play_due` do it. Several
processes may share the database: `due_work` returns only the work this process claimed in it
(bot.services.loader, `release` gives a claim up once the work is done), any game's, whichever
process holds its shard, so each piece is done once; `remind` marks the reminder sent with one
guarded update, so of two processes racing one only sends it. The
AI plays AI seats, seats handed to it after timeouts, and turns whose player ran out of time;
it thinks in a worker (bot.workers.pool), from a seed derived from the game's seed and the log
position, so a restart or a second process makes the same choice. The moves it makes for a
person are logged with why (ran out of time, the how-many-th turn in a row, handed over), in the
same transaction as the move, so the turn's line tells it whatever the seat becomes later.

A person's clock stops while they are away or, unless their server lets it run, in their
quiet hours (bot.services.away): as a reminder or an automatic move of theirs falls due, one
read says whether it stood still meanwhile, and if so the clock is set later and nothing is
done now, unless the reminder is still due (a pause still to come moved only the turn's end:
it goes now, giving that end). A reminder due in their quiet hours is held; the held notices
whose hours ended are claimed with the pass's other work (one statement, when the last look
saw some due) and go to each person as one message (DueKind.RELEASE).

The scheduler is told of a change in this process only when it must look sooner than it
planned to: each change comes with the game's row as it left it (bot.services.loader), which
says when that game next has work (`_next_moment`). The service remembers when the scheduler
plans to look next (the last `next_due`); a change whose work comes at that moment or later
tells it nothing, work due now wakes it at once, and work due sooner than planned (a change not
yet shown, due for a catch-up if it never is) wakes it at that moment, unless a later change of
the same game takes that work back first (the change shown). So a click, which changes its game
twice (the move, then the message that shows it), costs the scheduler nothing.
Changes made by other processes wake it through the database (bot.storage.games, `listen`).

Each process holds some of Discord's shards, and a channel's limits (a few posts and edits
every few seconds) are shared by every process of the bot, while each knows only its own use
of them. So a game's due work is its own process's first (the one holding its server's shard,
which also answers its clicks): another takes it only once it is SHARD_GRACE overdue (that
process is down, or far behind).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from enum import Enum
from typing import Protocol

import ai
import engine
from bot.services import deadlines, dice, pause
from bot.services.errors import StaleBoardError
from bot.services.loaded import LoadedGame, apply_action
from bot.services.loader import GameLoader
from bot.services.time_rules import DueCheck
from bot.services.views import Abandoned, AutoTurn, DueKind, DueWork, Reminder, TurnReason
from bot.storage.away import AwayStore, HeldNotice
from bot.storage.due_work import DueWorkStore
from bot.storage.game_rows import (
    ALL_SHARDS,
    GameRow,
    NewAction,
    SeatControl,
    SeatHolder,
    ShardSet,
)
from bot.storage.kinds import AiFor, EndReason, GameStatus, TurnClock
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from engine import GameState
from engine.events import Event

AI_TIMEOUT_SECONDS = 30.0
"""The longest an AI decision may run in a worker before the worker is taken to be hung (hard
thinks for at most 0.9 s of CPU; the rest is room for a busy machine)."""
_DISPLAY_PATIENCE = timedelta(seconds=deadlines.DISPLAY_PATIENCE_SECONDS)
SHARD_GRACE = timedelta(seconds=5)
"""How long a game's due work waits for its own process before another may take it."""
CLAIM_LIMIT = 32
"""The most games whose due work one pass claims (the rest is left to the next pass, or to
another process)."""


class Absences(Protocol):
    """Who is away or in quiet hours (bot.services.away.AwayService), as the turn clock asks."""

    store: AwayStore

    def on_held(self, listener: Callable[[datetime], None]) -> None: ...
    async def due_check(self, game: GameRow, user_id: int) -> DueCheck: ...
    async def hold(self, notice: HeldNotice) -> None: ...


class _Unplanned(Enum):
    """The scheduler has not said yet when it looks next (it has not asked `next_due`)."""

    UNPLANNED = "unplanned"


UNPLANNED = _Unplanned.UNPLANNED


def _reminder_after_away(game: GameRow, check: DueCheck) -> TurnClock | None:
    """The clock to set as the game's reminder falls due (None: it stays as it is): the one
    the pauses make it, and while its player is away (the reminder fell due before they went
    and was not sent yet), its reminder put off until they are back, when it goes."""
    away_until = check.availability.away_until
    if away_until is None:
        return check.clock
    clock = check.clock or TurnClock(game.turn_started_at, game.remind_at, game.due_at)
    if clock.remind_at is None or clock.remind_at >= away_until:
        return check.clock
    return replace(clock, remind_at=away_until)


class TurnClockService:
    """Reminders and automatic turns, when their time has come."""

    def __init__(
        self,
        loader: GameLoader,
        *,
        ai_budget: ai.Budget | None,
        workers: WorkerPool,
        shards: ShardSet = ALL_SHARDS,
        away: Absences | None = None,
    ) -> None:
        """`ai_budget` limits the hard AI's search (None: the engine's default); the AI thinks
        in `workers`; `shards` are the Discord shards this process holds (its games' work is
        its own first); `away` stops the clocks of people away or in quiet hours, and holds
        their reminders (None: clocks always run)."""
        self._shards = shards
        self._away = away
        self._held_store = None if away is None else away.store
        self._held_at: datetime | None = None
        """When the last `next_due` saw the next held notice due."""
        self._held: dict[int, list[HeldNotice]] = {}
        """The held notices the last `due_work` claimed, per person."""
        if away is not None:
            away.on_held(self._notice_held)
        self._loader = loader
        self._store: DueWorkStore = loader.store
        self._ai_budget = ai_budget
        self._workers = workers
        self._listeners: list[Callable[[], None]] = []
        self._planned: datetime | _Unplanned | None = UNPLANNED
        """When the scheduler looks next: the last `next_due` (None: only when woken)."""
        self._sooner: dict[int | None, datetime] = {}
        """The work changes brought before `_planned` since, at its moment: per game (its
        earliest, as its newest row says), and for the held notices (None). A timer wakes the
        scheduler at the earliest; a game whose work no longer comes before the planned look
        (its move was shown, say) is taken out, and with it the timer it needed."""
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: datetime | None = None
        self._collecting: list[list[GameRow | None]] = []
        """Per `next_due` reading the database now, the changes made meanwhile."""
        self._claimed: dict[int, GameRow] = {}
        """The rows of the games the last `due_work` claimed, as the claim returned them: the
        work's load checks the game in memory against it rather than reading it again."""
        loader.on_game_change(self._game_changed)

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever a change in this process makes work due sooner than the
        last `next_due` said: at once for work due now, at its moment for work due later."""
        self._listeners.append(listener)

    def _game_changed(self, game: GameRow | None) -> None:
        """A game changed in this process (`game`: its row now; None: not known)."""
        for changes in self._collecting:
            changes.append(game)
        if game is None:
            self._wake()
            return
        moment = _next_moment(game)
        now = self._loader.clock()
        planned = self._planned
        if moment is not None and (moment <= now or planned is UNPLANNED):
            self._wake()
            return
        if moment is None or (
            isinstance(planned, datetime) and planned > now and moment >= planned
        ):
            # no work of this game, or none before the scheduler looks anyway
            self._sooner.pop(game.id, None)
        else:
            self._sooner[game.id] = moment
        self._set_timer(now)

    def _notice_held(self, release_at: datetime) -> None:
        """A notice was held here until `release_at`: look then (sooner than planned)."""
        now = self._loader.clock()
        if self._held_at is None or release_at < self._held_at:
            self._held_at = release_at
        planned = self._planned
        if planned is UNPLANNED or release_at <= now:
            self._wake()
        elif planned is None or release_at < planned:
            held = self._sooner.get(None)
            if held is None or release_at < held:
                self._sooner[None] = release_at
            self._set_timer(now)

    def _set_timer(self, now: datetime) -> None:
        """Wake the scheduler at the earliest work sooner than planned (no timer: none)."""
        first = min(self._sooner.values(), default=None)
        if first == self._timer_at:
            return
        self._stop_timer()
        if first is not None:
            delay = (first - now).total_seconds()
            self._timer = asyncio.get_running_loop().call_later(delay, self._wake)
            self._timer_at = first

    def _wake(self) -> None:
        self._stop_timer()
        self._sooner.clear()  # the scheduler looks now, and reads them all
        for listener in self._listeners:
            listener()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._timer_at = None

    async def due_work(self) -> list[DueWork]:
        """What the turn clocks call for now, claimed for this process (work another process
        holds is left to it): turns to play and reminders to send, the earliest first, then
        changes to show again. Release each claim (`release`) once its work is done."""
        now = self._loader.clock()
        claimed = await self._store.claim_due(
            now,
            now - _DISPLAY_PATIENCE,
            self._loader.owner,
            self._loader.lease_end(),
            CLAIM_LIMIT,
            self._shards,
            now - SHARD_GRACE,
        )
        self._claimed = {game.id: game for game in claimed}
        timed = []
        unshown = []
        for game in claimed:
            if game.board_message_seq != game.seq:
                unshown.append(game)
            else:
                first = min(moment for moment in (game.due_at, game.remind_at) if moment)
                timed.append((first, game))
        timed.sort(key=lambda pair: (pair[0], pair[1].id))
        unshown.sort(key=lambda game: (game.updated_at, game.id))
        work = []
        for _, game in timed:
            kind = DueKind.PLAY if deadlines.is_due(game.due_at, now) else DueKind.REMIND
            work.append(DueWork(game.id, game.seq, kind))
        work.extend(DueWork(game.id, game.seq, DueKind.SHOW) for game in unshown)
        work.extend(await self._claim_held(now))
        return work

    async def _claim_held(self, now: datetime) -> list[DueWork]:
        """Claim the held notices whose quiet hours ended, one piece of work per person (their
        notices go as one message), when the last look saw some due."""
        if self._held_store is None or self._held_at is None or self._held_at > now:
            return []
        notices = await self._held_store.claim_held(
            now, self._loader.owner, self._loader.lease_end()
        )
        self._held = {}
        for notice in notices:
            self._held.setdefault(notice.user_id, []).append(notice)
        return [DueWork(0, user_id, DueKind.RELEASE) for user_id in sorted(self._held)]

    def held(self, work: DueWork) -> list[HeldNotice]:
        """The notices of a RELEASE piece of work (its `seq` is their person's id), oldest
        first."""
        return self._held.get(work.seq, [])

    async def held_sent(self, work: DueWork) -> None:
        """The notices of a RELEASE piece of work went out: mark them sent."""
        assert self._held_store is not None
        self._held.pop(work.seq, None)
        await self._held_store.mark_sent(work.seq, self._loader.owner, self._loader.clock())

    async def release(self, work: DueWork) -> None:
        """Give up this process's claim on the work's game (its work was done, or failed and
        is retried later)."""
        if work.kind is DueKind.RELEASE:
            if self._held.pop(work.seq, None) is not None and self._held_store is not None:
                await self._held_store.give_back(work.seq, self._loader.owner)
            return
        self._claimed.pop(work.game_id, None)
        await self._loader.release(work.game_id)

    async def next_due(self) -> datetime | None:
        """When the earliest reminder, automatic move or overdue display falls due, or a claim
        another process holds on one runs out (None: nothing scheduled); the scheduler looks
        again then, and is told of changes in this process only if they bring work sooner."""
        now = self._loader.clock()
        changes: list[GameRow | None] = []
        self._collecting.append(changes)  # a change made while the database is read
        try:
            found = await self._store.next_moments(now, self._loader.owner, self._shards)
        finally:
            self._collecting.remove(changes)
        moments = [moment for moment in (found.due, found.lease_end) if moment is not None]
        if found.due_elsewhere is not None:
            moments.append(found.due_elsewhere + SHARD_GRACE)
        if found.oldest_unshown is not None:
            moments.append(found.oldest_unshown + _DISPLAY_PATIENCE)
        self._held_at = found.held if self._away is not None else None
        if self._held_at is not None:
            moments.append(self._held_at)
        if found.unshown_elsewhere is not None:  # its own process has it first
            moments.append(found.unshown_elsewhere + _DISPLAY_PATIENCE + SHARD_GRACE)
        moments.extend(
            moment for game in changes if game is not None and (moment := _next_moment(game))
        )
        first = min(moments, default=None)
        self._stop_timer()  # the scheduler looks at `first` at the latest
        self._sooner.clear()
        self._planned = UNPLANNED if None in changes else first
        return first

    async def remind(self, game_id: int, seq: int) -> Reminder | None:
        """Mark the reminder of the game's current turn as sent and say whom to ping; None if
        the game moved on or the reminder is not due (or was sent)."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id, self._claimed.pop(game_id, None))
            game = loaded.game
            turn = _due_turn(loaded, seq, game.remind_at, self._loader.clock())
            if turn is None:
                return None
            _, seat = turn
            user_id = loaded.user_at(seat)
            player = loaded.player_at(seat)
            quiet_until = None
            language = game.locale
            if self._away is not None and user_id is not None and player is not None:
                check = await self._away.due_check(game, user_id)
                clock = _reminder_after_away(game, check)
                if clock is not None:  # they were away or quiet: the clock stood still
                    try:
                        loaded = await self._loader.set_clock(loaded, clock)
                    except StaleBoardError:  # another process moved the game on meanwhile
                        return None
                    game = loaded.game
                    if not deadlines.is_due(game.remind_at, self._loader.clock()):
                        return None  # the reminder moved later with it
                    # only the turn's end moved (the pause is still to come): remind now
                quiet_until = check.availability.quiet_until
                language = check.held_locale or game.locale
            updated = await self._loader.mark_reminded(loaded)
            if updated is None:  # another process sent it
                return None
            if quiet_until is not None and self._away is not None and user_id is not None:
                notice = HeldNotice(
                    user_id,
                    game.guild_id,
                    game.channel_id,
                    game.id,
                    game.seq,
                    "remind",
                    language,
                    quiet_until,
                )
                await self._away.hold(notice)  # sent when their quiet hours end
                return None
            assert game.due_at is not None
            return Reminder(updated.view(), user_id, game.due_at)

    async def play_due(self, game_id: int, seq: int) -> AutoTurn | Abandoned | None:
        """Play the current turn by AI if it is due: an AI seat's turn, a handed-over seat's,
        or (with the medium AI) one whose player ran out of time. A paused game whose wait is
        over ends as abandoned instead (bot.services.pause). None if nothing is due;
        StaleBoardError if another process moved the game on meanwhile, or took the person's
        seat back or handed it over (the move, or the end, is dropped: a person plays)."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id, self._claimed.pop(game_id, None))
            game = loaded.game
            turn = _due_turn(loaded, seq, game.due_at, self._loader.clock())
            if turn is None:
                return None
            state, seat = turn
            if pause.is_paused(loaded.players, state):
                ended = await self._loader.end(
                    loaded, EndReason.ABANDONED, None, seats_as_loaded=True
                )
                return Abandoned(ended.view())
            player = loaded.player_at(seat)
            assert player is not None
            if self._away is not None and player.user_id is not None and not player.ai_plays:
                check = await self._away.due_check(game, player.user_id)
                if check.clock is not None:  # they were away or quiet: the clock stood still
                    await self._loader.set_clock(loaded, check.clock)
                    return None
            controls = []
            ai_for = None
            if player.ai_level is not None:
                level, reason = player.ai_level, TurnReason.AI
            elif player.autoplay:
                level, reason = deadlines.TIMEOUT_LEVEL, TurnReason.AUTOPLAY
                # counted on: the turn that handed the seat over is the one at the threshold
                controls.append(SeatControl(seat, player.timeouts + 1, True))
            else:
                level, reason = deadlines.TIMEOUT_LEVEL, TurnReason.TIMEOUT
                timeouts = player.timeouts + 1
                handed = timeouts >= deadlines.TIMEOUTS_BEFORE_HANDOVER
                controls.append(SeatControl(seat, timeouts, handed))
                if handed:
                    reason = TurnReason.HANDED_OVER
            if controls:  # the moves keep why the AI made them, whatever the seat becomes
                ai_for = AiFor(reason.value, controls[0].timeouts)
            events: list[Event] = []
            entries: list[NewAction] = []
            while not state.is_over and state.to_move == seat:
                position = game.seq + len(entries) + 1
                if engine.current_player(state) == engine.CHANCE:
                    action = dice.roll(game.seed, position, engine.chance_outcomes(state))
                else:
                    action = await self._workers.run(
                        Lane.SLOW,
                        worker_jobs.choose_action,
                        engine.record_of(state),
                        level,
                        dice.ai_seed(game.seed, position),
                        self._ai_budget,
                        limit=AI_TIMEOUT_SECONDS,
                    )
                state = apply_action(state, action, events)
                entries.append(NewAction(action, None, ai_for=ai_for))
                if any(isinstance(event, engine.TurnStarted) for event in events):
                    break
            holder = None
            if player.user_id is not None:  # a rejoin or a hand-over elsewhere moves no seq
                holder = SeatHolder(seat, player.user_id, player.timeouts, player.autoplay)
            committed = await self._loader.commit(
                loaded, state, entries, events, controls, holder=holder
            )
            return AutoTurn(committed.view(events), seat, player.user_id, level, reason)


def _next_moment(game: GameRow) -> datetime | None:
    """When the game next has work for the turn clock, as its row says (None: none): its
    reminder or automatic move once its message shows it, else the catch-up of a change not
    shown (the moments `next_moments` reads in the database, for one game)."""
    if game.status not in (GameStatus.RUNNING, GameStatus.OVER):
        return None
    if game.board_message_seq != game.seq:
        return game.updated_at + _DISPLAY_PATIENCE
    if game.status is not GameStatus.RUNNING:
        return None
    return min((moment for moment in (game.due_at, game.remind_at) if moment), default=None)


def _due_turn(
    loaded: LoadedGame, seq: int, deadline: datetime | None, now: datetime
) -> tuple[GameState, int] | None:
    """The state and the seat to move if the game is still running at `seq` and `deadline`
    has passed at `now`; None if the game moved on or ended, or nothing is due."""
    state = loaded.state
    if (
        loaded.game.status is not GameStatus.RUNNING
        or loaded.game.seq != seq
        or state is None
        or state.to_move is None
        or not deadlines.is_due(deadline, now)
    ):
        return None
    return state, state.to_move
