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
position, so a restart or a second process makes the same choice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import ai
import engine
from bot.services import deadlines, dice, pause
from bot.services.loaded import LoadedGame, apply_action
from bot.services.loader import GameLoader
from bot.services.views import Abandoned, AutoTurn, DueKind, DueWork, Reminder, TurnReason
from bot.storage.games import NewAction, SeatControl
from bot.storage.kinds import EndReason, GameStatus
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from engine import GameState
from engine.events import Event

AI_TIMEOUT_SECONDS = 30.0
"""The longest an AI decision may run in a worker before the worker is taken to be hung (hard
thinks for at most 0.9 s of CPU; the rest is room for a busy machine)."""
_DISPLAY_PATIENCE = timedelta(seconds=deadlines.DISPLAY_PATIENCE_SECONDS)
CLAIM_LIMIT = 32
"""The most games whose due work one pass claims (the rest is left to the next pass, or to
another process)."""


class TurnClockService:
    """Reminders and automatic turns, when their time has come."""

    def __init__(
        self, loader: GameLoader, *, ai_budget: ai.Budget | None, workers: WorkerPool
    ) -> None:
        """`ai_budget` limits the hard AI's search (None: the engine's default); the AI thinks
        in `workers`."""
        self._loader = loader
        self._store = loader.store
        self._ai_budget = ai_budget
        self._workers = workers

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever a turn clock or a game's display changes."""
        self._loader.on_schedule_change(listener)

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
        )
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
        return work

    async def release(self, work: DueWork) -> None:
        """Give up this process's claim on the work's game (its work was done, or failed and
        is retried later)."""
        await self._loader.release(work.game_id)

    async def next_due(self) -> datetime | None:
        """When the earliest reminder, automatic move or overdue display falls due, or a claim
        another process holds on one runs out (None: nothing scheduled)."""
        now = self._loader.clock()
        owner = self._loader.owner
        moments = []
        value = await self._store.next_due(now, owner)
        if value is not None:
            moments.append(value)
        unshown = await self._store.oldest_unshown(now, owner)
        if unshown is not None:
            moments.append(unshown + _DISPLAY_PATIENCE)
        lease_end = await self._store.next_lease_end(now, owner)
        if lease_end is not None:
            moments.append(lease_end)
        return min(moments, default=None)

    async def remind(self, game_id: int, seq: int) -> Reminder | None:
        """Mark the reminder of the game's current turn as sent and say whom to ping; None if
        the game moved on or the reminder is not due (or was sent)."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
            game = loaded.game
            turn = _due_turn(loaded, seq, game.remind_at, self._loader.clock())
            if turn is None:
                return None
            _, seat = turn
            updated = await self._loader.mark_reminded(loaded)
            if updated is None:  # another process sent it
                return None
            assert game.due_at is not None
            return Reminder(updated.view(), loaded.user_at(seat), game.due_at)

    async def play_due(self, game_id: int, seq: int) -> AutoTurn | Abandoned | None:
        """Play the current turn by AI if it is due: an AI seat's turn, a handed-over seat's,
        or (with the medium AI) one whose player ran out of time. A paused game whose wait is
        over ends as abandoned instead (bot.services.pause). None if nothing is due."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
            game = loaded.game
            turn = _due_turn(loaded, seq, game.due_at, self._loader.clock())
            if turn is None:
                return None
            state, seat = turn
            if pause.is_paused(loaded.players, state):
                ended = await self._loader.end(loaded, EndReason.ABANDONED, None)
                return Abandoned(ended.view())
            player = loaded.player_at(seat)
            assert player is not None
            controls = []
            if player.ai_level is not None:
                level, reason = player.ai_level, TurnReason.AI
            elif player.autoplay:
                level, reason = deadlines.TIMEOUT_LEVEL, TurnReason.AUTOPLAY
            else:
                level, reason = deadlines.TIMEOUT_LEVEL, TurnReason.TIMEOUT
                timeouts = player.timeouts + 1
                handed = timeouts >= deadlines.TIMEOUTS_BEFORE_HANDOVER
                controls.append(SeatControl(seat, timeouts, handed))
                if handed:
                    reason = TurnReason.HANDED_OVER
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
                entries.append(NewAction(action, None))
                if any(isinstance(event, engine.TurnStarted) for event in events):
                    break
            committed = await self._loader.commit(loaded, state, entries, events, controls)
            return AutoTurn(committed.view(events), seat, player.user_id, level, reason)


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
