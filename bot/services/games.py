"""GameService: the Discord-free use cases (lobby, AI seats, start, act, resign, abort, rejoin,
the turn clock's reminders and automatic moves, look, record).

Every change to a game runs under that game's asyncio lock and is written in one database
transaction guarded by the game's seq, so two fast clicks (or two processes) can never apply an
action twice. The action log in the database is the source of truth: a game not in memory is
rebuilt by replaying it, and the stored position snapshot is only checked against the replay.

AI seats and timed-out turns are played here too: `due_work` lists what the turn clocks call
for at the injected clock's now, and `remind` / `play_due` do it (the AI thinks in a worker).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import ai
import engine
from bot import worker_jobs
from bot.services import deadlines, dice
from bot.services.clock import Clock, system_clock, timestamp
from bot.services.errors import (
    AlreadySeatedError,
    BadOptionError,
    ChannelHasGameError,
    GameDamagedError,
    GameNotFoundError,
    GameNotRunningError,
    HandedToAiError,
    HostCannotLeaveError,
    HostOnlyError,
    IllegalMoveError,
    LobbyClosedError,
    LobbyFullError,
    NoAiSeatError,
    NoGameHereError,
    NotAReplayError,
    NotEnoughPlayersError,
    NotHandedToAiError,
    NotSeatedError,
    NotYourTurnError,
    StaleBoardError,
)
from bot.services.guilds import check_turn_limit, check_variant
from bot.services.views import AutoTurn, Damage, DueWork, GameView, Player, Reminder
from bot.storage import (
    ActionRow,
    ChannelBusyError,
    EndReason,
    GameRow,
    GameStatus,
    GameStore,
    NewAction,
    NewGame,
    ResultRow,
    SeatControl,
    SeatRow,
    StaleSeqError,
    TurnClock,
)
from bot.worker_pool import Lane, WorkerPool
from engine import GameConfig, GameState, Phase, Variant
from engine.events import Event

log = logging.getLogger(__name__)

CACHE_SIZE = 1000
"""Games kept in memory at most (more than that many are rarely played at the same time)."""

ROLL = "roll"
"""The player's request to roll the die (variant rotate-after); the roll itself is chance."""

AI_TIMEOUT_SECONDS = 30.0
"""The longest an AI decision may run in a worker before the worker is taken to be hung (hard
thinks for at most 0.9 s of CPU; the rest is room for a busy machine)."""
_DISPLAY_PATIENCE = timedelta(seconds=deadlines.DISPLAY_PATIENCE_SECONDS)
AI_LEVELS = ("easy", "medium", "hard")
"""The levels an AI seat can be given in a lobby."""


@dataclass(frozen=True, slots=True)
class _Loaded:
    """A game in memory: its row, players and (once started) state with recent events."""

    game: GameRow
    players: tuple[Player, ...]
    state: GameState | None
    turn_events: tuple[Event, ...] = ()
    previous_turn_events: tuple[Event, ...] = ()

    def view(self, events: Sequence[Event] = ()) -> GameView:
        return GameView(
            game=self.game,
            players=self.players,
            state=self.state,
            events=tuple(events),
            turn_events=self.turn_events,
            previous_turn_events=self.previous_turn_events,
        )

    def due_turn(
        self, seq: int, deadline: str | None, now: datetime
    ) -> tuple[GameState, int] | None:
        """The state and the seat to move if the game is still running at `seq` and `deadline`
        has passed at `now`; None if the game moved on or ended, or nothing is due."""
        state = self.state
        if (
            self.game.status is not GameStatus.RUNNING
            or self.game.seq != seq
            or state is None
            or state.to_move is None
            or not deadlines.is_due(deadline, now)
        ):
            return None
        return state, state.to_move

    def advanced(self, events: Sequence[Event]) -> tuple[tuple[Event, ...], tuple[Event, ...]]:
        """(turn_events, previous_turn_events) after `events` happened."""
        return _split_turns(self.turn_events, self.previous_turn_events, events)


def _split_turns(
    current: tuple[Event, ...], previous: tuple[Event, ...], events: Sequence[Event]
) -> tuple[tuple[Event, ...], tuple[Event, ...]]:
    for event in events:
        if isinstance(event, engine.TurnStarted):
            current, previous = (event,), current
        else:
            current = (*current, event)
    return current, previous


class GameService:
    """The use cases of a Marrakech game, with plain ints for users, channels and guilds."""

    def __init__(
        self,
        store: GameStore,
        *,
        clock: Clock = system_clock,
        seeds: Callable[[], str] = dice.new_seed,
        ai_budget: ai.Budget | None = None,
        workers: WorkerPool | None = None,
    ) -> None:
        """`ai_budget` limits the hard AI's search (None: the engine's default); the AI thinks
        in `workers` (default: threads of this process, for tests and tools)."""
        self._store = store
        self._ai_budget = ai_budget
        self._workers = workers if workers is not None else WorkerPool(workers=0)
        self._clock = clock
        self._seeds = seeds
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: _BoundedCache = _BoundedCache(CACHE_SIZE)
        self._listeners: list[Callable[[], None]] = []
        self._damage_listeners: list[Callable[[Damage], None]] = []
        self._damaged: set[int] = set()

    def on_damage(self, listener: Callable[[Damage], None]) -> None:
        """Call `listener` once per run for each game found damaged on loading it (so the
        edge can tell that channel's moderators)."""
        self._damage_listeners.append(listener)

    def _damage_found(self, damage: Damage) -> None:
        if damage.game_id in self._damaged:
            return
        self._damaged.add(damage.game_id)
        log.error("game %s: %s", damage.game_id, damage.reason)
        for listener in self._damage_listeners:
            listener(damage)

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever a turn clock or a game's display changes (a reminder or an
        automatic move may have become due, or sooner)."""
        self._listeners.append(listener)

    def _schedule_changed(self) -> None:
        for listener in self._listeners:
            listener()

    # --- lobby -------------------------------------------------------------------------------

    async def create_lobby(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        seats: int = 4,
        variant: str = Variant.STANDARD.value,
        turn_limit_seconds: int | None = None,
        locale: str = "en",
    ) -> GameView:
        """Open a lobby in the channel with the host seated; its public messages will be
        written in `locale` (a bot.messages language)."""
        if seats not in engine.PLAYER_COUNTS:
            raise BadOptionError("seats", seats)
        check_variant(variant)
        check_turn_limit(turn_limit_seconds)
        seed = self._seeds()
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            seats_wanted=seats,
            variant=variant,
            turn_limit_seconds=turn_limit_seconds,
            seed=seed,
            seed_sha256=dice.commitment(seed),
            locale=locale,
        )
        try:
            game = await self._store.create(new, self._now())
        except ChannelBusyError:
            existing = await self._store.open_in_channel(channel_id)
            if existing is None:  # closed in between: let the user try again
                raise
            raise ChannelHasGameError(
                existing.id, existing.guild_id, existing.channel_id, existing.board_message_id
            ) from None
        loaded = _Loaded(game, (Player(host_id, None),), None)
        self._cache[game.id] = loaded
        return loaded.view()

    async def join(self, game_id: int, user_id: int) -> GameView:
        async with self._lock(game_id):
            loaded = await self._lobby(game_id)
            if any(player.user_id == user_id for player in loaded.players):
                raise AlreadySeatedError()
            if len(loaded.players) >= loaded.game.seats_wanted:
                raise LobbyFullError()
            seats = await self._store.add_seat(game_id, user_id, self._now())
            return self._remember_lobby(loaded.game, seats).view()

    async def leave(self, game_id: int, user_id: int) -> GameView:
        async with self._lock(game_id):
            loaded = await self._lobby(game_id)
            if user_id == loaded.game.host_id:
                raise HostCannotLeaveError()
            if not any(player.user_id == user_id for player in loaded.players):
                raise NotSeatedError()
            seats = await self._store.remove_seat(game_id, user_id, self._now())
            return self._remember_lobby(loaded.game, seats).view()

    async def add_ai(self, game_id: int, user_id: int, level: str) -> GameView:
        """The host seats an AI of `level` in their lobby."""
        if level not in AI_LEVELS:
            raise BadOptionError("level", level)
        async with self._lock(game_id):
            loaded = await self._lobby(game_id)
            if user_id != loaded.game.host_id:
                raise HostOnlyError()
            if len(loaded.players) >= loaded.game.seats_wanted:
                raise LobbyFullError()
            seats = await self._store.add_ai_seat(game_id, level, self._now())
            return self._remember_lobby(loaded.game, seats).view()

    async def remove_ai(self, game_id: int, user_id: int) -> GameView:
        """The host removes the AI seated last in their lobby."""
        async with self._lock(game_id):
            loaded = await self._lobby(game_id)
            if user_id != loaded.game.host_id:
                raise HostOnlyError()
            rows = await self._store.seats(game_id)
            ai_rows = [row for row in rows if row.ai_level is not None]
            if not ai_rows:
                raise NoAiSeatError()
            seats = await self._store.remove_seat_row(game_id, ai_rows[-1].key, self._now())
            return self._remember_lobby(loaded.game, seats).view()

    async def cancel(self, game_id: int, user_id: int) -> GameView:
        """The host closes their lobby before it starts."""
        async with self._lock(game_id):
            loaded = await self._lobby(game_id)
            if user_id != loaded.game.host_id:
                raise HostOnlyError()
            return await self._end(loaded, EndReason.CANCELLED, user_id)

    async def start(self, game_id: int, user_id: int) -> GameView:
        """Shuffle the seats and deal from the game's seed (R13), then post the first turn."""
        async with self._lock(game_id):
            loaded = await self._lobby(game_id)
            if user_id != loaded.game.host_id:
                raise HostOnlyError()
            if len(loaded.players) < min(engine.PLAYER_COUNTS):
                raise NotEnoughPlayersError(len(loaded.players))
            rng = dice.setup_rng(loaded.game.seed)
            rows = await self._store.seats(game_id)
            rng.shuffle(rows)
            config = engine.deal(len(rows), Variant(loaded.game.variant), rng)
            state = engine.new_game(config)
            players = tuple(
                Player(row.user_id, seat, row.ai_level) for seat, row in enumerate(rows)
            )
            try:
                game = await self._store.start(
                    game_id,
                    [row.key for row in rows],
                    json.dumps(_config_to_json(config)),
                    json.dumps(engine.to_position(state)),
                    self._now(),
                    self._fresh_clock(loaded.game, players, state),
                )
            except StaleSeqError:
                self._cache.pop(game_id, None)
                raise LobbyClosedError() from None
            loaded = _Loaded(game, players, state)
            self._cache[game_id] = loaded
            self._schedule_changed()
            return loaded.view()

    # --- play --------------------------------------------------------------------------------

    async def act(self, game_id: int, user_id: int, seq: int, action: str) -> GameView:
        """Apply the move of the user whose turn it is, then any roll it calls for.

        `seq` is the sequence number the user saw (carried by the button): if the game has moved
        on since, nothing is applied. `action` is a notation, or ROLL in the variant.
        """
        async with self._lock(game_id):
            loaded = await self._running(game_id)
            if seq != loaded.game.seq:
                raise _stale(loaded.game)
            state = loaded.state
            assert state is not None
            seat = _seat_of(loaded, user_id)
            if seat != state.to_move:
                raise NotYourTurnError(_user_at(loaded, state.to_move))
            player = _player_at(loaded, seat)
            if player is not None and player.autoplay:
                raise HandedToAiError()
            controls = []
            if player is not None and seat is not None and player.timeouts:
                controls.append(SeatControl(seat, 0, False))  # they are back: no longer in a row
            entries: list[NewAction] = []
            events: list[Event] = []
            oriented = state.phase is Phase.ORIENT
            if action != ROLL:
                state = _apply(state, action, events)
                entries.append(NewAction(action, user_id))
            elif engine.current_player(state) != engine.CHANCE:
                raise IllegalMoveError("it is not time to roll")
            if (oriented or action == ROLL) and engine.current_player(state) == engine.CHANCE:
                # The die follows an orientation (standard rules) or, in the variant, the
                # player's own request: a turn that begins with a roll waits for that click.
                face = dice.roll(
                    loaded.game.seed,
                    loaded.game.seq + len(entries) + 1,
                    engine.chance_outcomes(state),
                )
                state = _apply(state, face, events)
                entries.append(NewAction(face, None))
            committed = await self._commit(loaded, state, entries, events, controls)
            return committed.view(events)

    async def resign(self, game_id: int, user_id: int) -> GameView:
        """The user leaves the running game, as if eliminated (R9)."""
        async with self._lock(game_id):
            loaded = await self._running(game_id)
            state = loaded.state
            assert state is not None
            seat = _seat_of(loaded, user_id)
            if seat is None or state.is_eliminated(seat):
                raise NotSeatedError()
            try:
                state, events = engine.resign(state, seat)
            except engine.IllegalActionError as error:
                raise IllegalMoveError(str(error)) from None
            entry = NewAction(None, user_id, resigned_seat=seat)
            return (await self._commit(loaded, state, [entry], list(events))).view(events)

    async def abort(self, game_id: int, user_id: int, *, moderator: bool = False) -> GameView:
        """End an open game early: the host's own, or any game for a moderator."""
        async with self._lock(game_id):
            try:
                loaded = await self._load(game_id)
            except GameDamagedError:
                # A damaged game can still be ended: its row is all that takes.
                game = await self._store.get(game_id)
                if game is None:
                    raise GameNotFoundError(game_id) from None
                loaded = _Loaded(game, _players(await self._store.seats(game_id)), None)
            if loaded.game.status not in (GameStatus.LOBBY, GameStatus.RUNNING):
                raise GameNotRunningError()
            if not moderator and user_id != loaded.game.host_id:
                raise HostOnlyError()
            reason = EndReason.ABORTED_BY_MODERATOR if moderator else EndReason.ABORTED_BY_HOST
            return await self._end(loaded, reason, user_id)

    async def rejoin(self, game_id: int, user_id: int) -> GameView:
        """Take back a seat the AI was playing after timeouts; the turn clock starts anew if
        it is that seat's turn."""
        async with self._lock(game_id):
            loaded = await self._running(game_id)
            seat = _seat_of(loaded, user_id)
            player = _player_at(loaded, seat)
            if seat is None or player is None or not player.autoplay:
                raise NotHandedToAiError()
            players = _with_control(loaded.players, SeatControl(seat, 0, False))
            clock = None
            assert loaded.state is not None
            if loaded.state.to_move == seat:
                clock = self._fresh_clock(loaded.game, players, loaded.state)
            game = await self._store.set_clock(
                game_id,
                loaded.game.seq,
                clock or _clock_of(loaded.game),
                [SeatControl(seat, 0, False)],
            )
            updated = replace(loaded, game=game, players=players)
            self._cache[game_id] = updated
            self._schedule_changed()
            return updated.view()

    # --- the turn clock ----------------------------------------------------------------------

    async def due_work(self) -> list[DueWork]:
        """What the turn clocks call for now: reminders to send and turns to play."""
        now = self._clock()
        work = []
        for game in await self._store.due(deadlines.iso(now)):
            kind = DueWork.PLAY if deadlines.is_due(game.due_at, now) else DueWork.REMIND
            work.append(DueWork(game.id, game.seq, kind))
        for game in await self._store.unshown(deadlines.iso(now - _DISPLAY_PATIENCE)):
            work.append(DueWork(game.id, game.seq, DueWork.SHOW))
        return work

    async def next_due(self) -> datetime | None:
        """When the earliest reminder, automatic move or overdue display falls due (None:
        nothing scheduled)."""
        moments = []
        value = await self._store.next_due()
        if value is not None:
            moments.append(deadlines.parse(value))
        unshown = await self._store.oldest_unshown()
        if unshown is not None:
            moments.append(deadlines.parse(unshown) + _DISPLAY_PATIENCE)
        return min(moments, default=None)

    async def remind(self, game_id: int, seq: int) -> Reminder | None:
        """Mark the reminder of the game's current turn as sent and say whom to ping; None if
        the game moved on or the reminder is not due (or was sent)."""
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            game = loaded.game
            turn = loaded.due_turn(seq, game.remind_at, self._clock())
            if turn is None:
                return None
            _, seat = turn
            clock = replace(_clock_of(game), remind_at=None)
            updated = replace(loaded, game=await self._store.set_clock(game_id, seq, clock))
            self._cache[game_id] = updated
            self._schedule_changed()
            assert game.due_at is not None
            user = _user_at(loaded, seat)
            return Reminder(updated.view(), user, deadlines.parse(game.due_at))

    async def play_due(self, game_id: int, seq: int) -> AutoTurn | None:
        """Play the current turn by AI if it is due: an AI seat's turn, a handed-over seat's,
        or (with the medium AI) one whose player ran out of time. None if nothing is due."""
        async with self._lock(game_id):
            loaded = await self._load(game_id)
            game = loaded.game
            turn = loaded.due_turn(seq, game.due_at, self._clock())
            if turn is None:
                return None
            state, seat = turn
            player = _player_at(loaded, seat)
            assert player is not None
            controls = []
            if player.ai_level is not None:
                level, reason = player.ai_level, AutoTurn.AI
            elif player.autoplay:
                level, reason = deadlines.TIMEOUT_LEVEL, AutoTurn.AUTOPLAY
            else:
                level, reason = deadlines.TIMEOUT_LEVEL, AutoTurn.TIMEOUT
                timeouts = player.timeouts + 1
                handed = timeouts >= deadlines.TIMEOUTS_BEFORE_HANDOVER
                controls.append(SeatControl(seat, timeouts, handed))
                if handed:
                    reason = AutoTurn.HANDED_OVER
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
                        timeout=AI_TIMEOUT_SECONDS,
                    )
                state = _apply(state, action, events)
                entries.append(NewAction(action, None))
                if any(isinstance(event, engine.TurnStarted) for event in events):
                    break
            committed = await self._commit(loaded, state, entries, events, controls)
            return AutoTurn(committed.view(events), seat, player.user_id, level, reason)

    # --- looking -----------------------------------------------------------------------------

    async def look(self, game_id: int) -> GameView:
        async with self._lock(game_id):
            return (await self._load(game_id)).view()

    async def open_game_id(self, channel_id: int) -> int:
        """The id of the channel's lobby or running game; NoGameHereError if none."""
        game = await self._store.open_in_channel(channel_id)
        if game is None:
            raise NoGameHereError()
        return game.id

    async def record(self, game_id: int) -> dict[str, Any]:
        """The game record (FORMATS.md) with extras; the seed only once the game is closed."""
        async with self._lock(game_id):
            loaded = await self._load(game_id)
        if loaded.state is None:
            raise GameNotRunningError()
        extras: dict[str, Any] = {
            "game_id": loaded.game.id,
            "seed_sha256": loaded.game.seed_sha256,
            "user_ids": [player.user_id for player in loaded.players],
            "started_at": loaded.game.created_at,
        }
        if loaded.game.status in (GameStatus.OVER, GameStatus.ABORTED):
            extras["seed"] = loaded.game.seed
            extras["end_reason"] = loaded.game.end_reason
        return engine.record_to_json(engine.record_of(loaded.state, **extras))

    async def replay_record(self, game_id: int, guild_id: int) -> dict[str, Any]:
        """The record of a game of this server played to its end (for the replay GIF)."""
        game = await self._store.get(game_id)
        if game is None or game.guild_id != guild_id or game.status is not GameStatus.OVER:
            raise NotAReplayError()
        return await self.record(game_id)

    async def backfill_results(self) -> int:
        """Write the results of finished games that have none (games that ended before this
        version kept results), replayed from their logs; return how many games got them."""
        game_ids = await self._store.finished_without_results()
        done = 0
        for game_id in game_ids:
            async with self._lock(game_id):
                try:
                    loaded = await self._load(game_id)
                except GameDamagedError:
                    continue  # reported; its results cannot be known
                assert loaded.state is not None and loaded.state.is_over
                await self._store.add_results(game_id, _results(loaded.state, loaded.players))
                self._cache.pop(game_id, None)  # finished: no need to keep it in memory
                done += 1
        return done

    async def set_board_message(self, game_id: int, message_id: int, seq: int) -> None:
        """Remember the message that now shows the game at `seq` (for stale-click pointers)."""
        async with self._lock(game_id):
            stored = await self._store.set_board_message(game_id, message_id, seq)
            cached = self._cache.get(game_id)
            if stored and cached is not None:  # mirror the row (the game may have moved on)
                game = replace(cached.game, board_message_id=message_id, board_message_seq=seq)
                self._cache[game_id] = replace(cached, game=game)
        self._schedule_changed()

    async def behind_on_display(self) -> list[GameView]:
        """Games whose message does not show their current seq (after a crash): a turn or a
        final result that was committed but never shown, or a lobby whose message never was."""
        views = []
        for game in await self._store.behind_on_display():
            try:
                views.append(await self.look(game.id))
            except GameDamagedError:
                continue  # reported; the others are caught up all the same
        return views

    # --- internals ---------------------------------------------------------------------------

    def _now(self) -> str:
        return timestamp(self._clock)

    def _fresh_clock(self, game: GameRow, players: Sequence[Player], state: GameState) -> TurnClock:
        """The clock of a turn (of `state`'s mover) beginning now."""
        if state.is_over or state.to_move is None:
            return TurnClock()
        mover = next((p for p in players if p.seat == state.to_move), None)
        ai_plays = mover is not None and mover.ai_plays
        return deadlines.fresh_clock(self._clock(), game.turn_limit_seconds, ai_plays=ai_plays)

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    async def _load(self, game_id: int) -> _Loaded:
        cached = self._cache.get(game_id)
        if cached is not None:
            return cached
        game = await self._store.get(game_id)
        if game is None:
            raise GameNotFoundError(game_id)
        seats = await self._store.seats(game_id)
        if game.config is None:
            loaded = _Loaded(game, _players(seats), None)
        else:
            try:
                loaded, snapshot_problem = _rebuild(game, seats, await self._store.actions(game_id))
            except GameDamagedError as error:
                self._damage_found(
                    Damage(game.id, game.guild_id, game.channel_id, error.reason, game.locale)
                )
                raise
            if snapshot_problem is not None:
                self._damage_found(
                    Damage(
                        game.id,
                        game.guild_id,
                        game.channel_id,
                        snapshot_problem,
                        game.locale,
                        fatal=False,
                    )
                )
        self._cache[game_id] = loaded
        return loaded

    async def _lobby(self, game_id: int) -> _Loaded:
        loaded = await self._load(game_id)
        if loaded.game.status is not GameStatus.LOBBY:
            raise LobbyClosedError()
        return loaded

    async def _running(self, game_id: int) -> _Loaded:
        loaded = await self._load(game_id)
        if loaded.game.status is not GameStatus.RUNNING:
            raise GameNotRunningError()
        return loaded

    def _remember_lobby(self, game: GameRow, seats: list[SeatRow]) -> _Loaded:
        """The lobby after its seats changed: as in its row, its message no longer shows it."""
        loaded = _Loaded(replace(game, board_message_seq=None), _players(seats), None)
        self._cache[game.id] = loaded
        return loaded

    async def _commit(
        self,
        loaded: _Loaded,
        state: GameState,
        entries: list[NewAction],
        events: list[Event],
        controls: Sequence[SeatControl] = (),
    ) -> _Loaded:
        status = GameStatus.OVER if state.is_over else GameStatus.RUNNING
        players = loaded.players
        for control in controls:
            players = _with_control(players, control)
        before = loaded.state
        clock = None
        if (
            before is None
            or before.to_move != state.to_move
            or any(isinstance(event, engine.TurnStarted) for event in events)
        ):
            clock = self._fresh_clock(loaded.game, players, state)
        try:
            game = await self._store.append_actions(
                loaded.game.id,
                loaded.game.seq,
                entries,
                json.dumps(engine.to_position(state)),
                self._now(),
                status=status,
                clock=clock,
                controls=controls,
                results=_results(state, players) if state.is_over else (),
            )
        except StaleSeqError:
            # Another writer (another process on the same file) got there first.
            self._cache.pop(loaded.game.id, None)
            raise _stale(loaded.game) from None
        resigned = {entry.resigned_seat for entry in entries if entry.resigned_seat is not None}
        if resigned:
            players = tuple(
                replace(player, resigned=True) if player.seat in resigned else player
                for player in players
            )
        turn_events, previous_turn_events = loaded.advanced(events)
        updated = _Loaded(game, players, state, turn_events, previous_turn_events)
        self._cache[game.id] = updated
        self._schedule_changed()
        return updated

    async def _end(self, loaded: _Loaded, reason: EndReason, user_id: int) -> GameView:
        try:
            game = await self._store.end(
                loaded.game.id, GameStatus.ABORTED, reason, user_id, self._now()
            )
        except StaleSeqError:
            self._cache.pop(loaded.game.id, None)
            raise GameNotRunningError() from None
        ended = replace(loaded, game=game)
        self._cache[game.id] = ended
        self._schedule_changed()
        return ended.view()


class _BoundedCache(OrderedDict[int, _Loaded]):
    """Games in memory, the least recently stored dropped first beyond `size` (a dropped game
    is rebuilt from its log when it is next used), so months of games never pile up."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __setitem__(self, game_id: int, loaded: _Loaded) -> None:
        super().__setitem__(game_id, loaded)
        self.move_to_end(game_id)
        while len(self) > self.size:
            self.popitem(last=False)


def _apply(state: GameState, action: str, events: list[Event]) -> GameState:
    try:
        state, new_events = engine.apply(state, action)
    except engine.IllegalActionError as error:
        raise IllegalMoveError(str(error)) from None
    events.extend(new_events)
    return state


def _stale(game: GameRow) -> StaleBoardError:
    return StaleBoardError(game.id, game.channel_id, game.guild_id, game.board_message_id)


def _seat_of(loaded: _Loaded, user_id: int) -> int | None:
    for player in loaded.players:
        if player.user_id == user_id and not player.resigned:
            return player.seat
    if loaded.state is not None:
        raise NotSeatedError()
    return None


def _player_at(loaded: _Loaded, seat: int | None) -> Player | None:
    for player in loaded.players:
        if seat is not None and player.seat == seat:
            return player
    return None


def _with_control(players: tuple[Player, ...], control: SeatControl) -> tuple[Player, ...]:
    return tuple(
        replace(player, timeouts=control.timeouts, autoplay=control.autoplay)
        if player.seat == control.seat
        else player
        for player in players
    )


def _clock_of(game: GameRow) -> TurnClock:
    return TurnClock(game.turn_started_at, game.remind_at, game.due_at)


def _results(state: GameState, players: Sequence[Player]) -> list[ResultRow]:
    """Every seat's place, score and colour at the end (ties share a place)."""
    outcome = state.outcome
    assert outcome is not None
    scores = engine.scores(state)
    place_of = {seat: place for place, group in enumerate(outcome.ranking, 1) for seat in group}
    rows = []
    for player in players:
        if player.seat is None:
            continue
        seat = player.seat
        rows.append(
            ResultRow(
                seat=seat,
                user_id=player.user_id,
                ai_level=player.ai_level,
                color=engine.seat_colors(state.players, seat)[0].value,
                score=scores[seat].total,
                dirhams=scores[seat].dirhams,
                place=place_of[seat],
                won=place_of[seat] == 1,
            )
        )
    return rows


def _user_at(loaded: _Loaded, seat: int | None) -> int | None:
    for player in loaded.players:
        if seat is not None and player.seat == seat:
            return player.user_id
    return None


def _players(seats: list[SeatRow]) -> tuple[Player, ...]:
    return tuple(
        Player(s.user_id, s.seat, s.ai_level, s.resigned, s.timeouts, s.autoplay) for s in seats
    )


def _config_to_json(config: GameConfig) -> dict[str, Any]:
    piles = None
    if config.piles is not None:
        piles = [[color.value for color in pile] for pile in config.piles]
    return {
        "players": config.players,
        "variant": config.variant.value,
        "first_player": config.first_player,
        "piles": piles,
    }


def _config_from_json(raw: str) -> GameConfig:
    obj = json.loads(raw)
    piles = None
    if obj["piles"] is not None:
        piles = tuple(tuple(engine.Color(color) for color in pile) for pile in obj["piles"])
    return GameConfig(obj["players"], Variant(obj["variant"]), obj["first_player"], piles)


def _rebuild(
    game: GameRow, seats: list[SeatRow], log_rows: list[ActionRow]
) -> tuple[_Loaded, str | None]:
    """Replay the game's log from its config; the snapshot is only compared, never trusted.

    Returns the game and what is wrong with its snapshot, if anything (the log wins, nothing is
    lost). Raises GameDamagedError if the log itself has gaps or does not replay.
    """
    assert game.config is not None
    seqs = [row.seq for row in log_rows]
    if seqs != list(range(1, game.seq + 1)):
        raise _damaged(game, f"its action log has {len(seqs)} of its {game.seq} entries")
    turn: tuple[Event, ...] = ()
    previous: tuple[Event, ...] = ()
    try:
        state = engine.new_game(_config_from_json(game.config))
        for row in log_rows:
            if row.notation is not None:
                state, events = engine.apply(state, row.notation)
            elif row.resigned_seat is not None:
                state, events = engine.resign(state, row.resigned_seat)
            else:
                raise ValueError(f"entry {row.seq} is neither an action nor a resignation")
            turn, previous = _split_turns(turn, previous, events)
    except (ValueError, KeyError, TypeError) as error:  # IllegalActionError is a ValueError
        raise _damaged(game, f"its action log does not replay ({error})") from None
    loaded = _Loaded(game, _players(seats), state, turn, previous)
    if game.position is None:
        return loaded, None
    try:
        snapshot = json.loads(game.position)
    except ValueError:
        return loaded, "its position snapshot is unreadable; it was rebuilt from the action log"
    if snapshot != engine.to_position(state):
        return loaded, "its position snapshot differs from its action log; the log was used"
    return loaded, None


def _damaged(game: GameRow, reason: str) -> GameDamagedError:
    return GameDamagedError(game.id, game.guild_id, game.channel_id, reason)
