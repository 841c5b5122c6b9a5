"""The games in memory and the one way in and out of the database for them.

`GameLoader` is shared by the lobby, play and turn-clock services. It holds:

- a lock per game: every change runs under its game's asyncio lock, and a lock lives only
  while someone holds it or waits for it (games played once do not leave locks behind);
- a bounded cache of games, the least recently used dropped first, never trusted blindly:
  several processes may share the database, so each load reads the game's row (one query by
  its key) and uses the copy in memory only while it matches the row (and its seats' `rev`);
  a game another process moved on is rebuilt, and a click on its current turn is accepted;
- claims: the id of this process (`owner`) and the claims it takes on games' due work
  (bot.storage.games), for CLAIM_LEASE_SECONDS, so that of several processes one does it;
- loading: the action log is the source of truth, so a game not in memory is rebuilt by
  replaying its log as an engine record (bot.services.records), and the stored position
  snapshot is only checked against that replay (each turn the AI played for a person keeps
  why, as its entries record it); damage found on the way is reported once per run to the
  `on_damage` listeners;
- the writes: every change is one database transaction guarded by the game's seq, so two fast
  clicks (or two processes on one file) never apply an action twice, and each tells the
  `on_game_change` listeners the game's row as the change left it (a turn clock or a display
  may have changed), and the `on_schedule_change` listeners that something did;
- the ratings (bot.services.ratings): the write that ends a rated game queues it for its
  server's ratings, which are applied right after; a finished game carries what it did to
  each seat's rating, read again when it is used while it has none (applied later, by the
  server's next game or a start, here or in another process).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeVar

import engine
from bot.services import deadlines, pause, records
from bot.services.clock import Clock
from bot.services.errors import (
    GameDamagedError,
    GameNotFoundError,
    GameNotRunningError,
    StaleBoardError,
)
from bot.services.loaded import (
    LoadedGame,
    players_of,
    results_of,
    split_turns,
    with_ai_moves,
    with_control,
)
from bot.services.locks import KeyedLocks
from bot.services.ratings import RatingService, rated_in
from bot.services.views import AiMove, Damage, Player
from bot.storage.game_rows import (
    ActionRow,
    GameRow,
    NewAction,
    SeatControl,
    SeatHolder,
    SeatRow,
    StaleSeqError,
)
from bot.storage.games import GameStore
from bot.storage.kinds import EndReason, GameStatus, TurnClock
from bot.storage.values import UnreadableJson
from engine import GameState
from engine.events import Event

log = logging.getLogger(__name__)

CACHE_SIZE = 1000
"""Games kept in memory at most (more than that many are rarely played at the same time)."""
_BEFORE_PLAY = frozenset({GameStatus.LOBBY, GameStatus.ABORTED})
"""The statuses of a game that may have no config: a lobby, and a lobby cancelled (a game that
was started and lost its config is damaged)."""
CLAIM_LEASE_SECONDS = 60
"""How long a claim on a game's due work holds: longer than the work takes (an AI decision
gives up after 30 s, a message post sooner), short enough that the work of a process killed
while doing it is taken over soon by another."""


def process_owner() -> str:
    """An id for this process among all those sharing the database: host, pid and a random
    part (a pid is reused after a restart)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class GameLoader:
    """Locks, caches, loads and writes games for the services (see the module's text)."""

    def __init__(
        self,
        store: GameStore,
        clock: Clock,
        owner: str | None = None,
        ratings: RatingService | None = None,
    ) -> None:
        """`owner` names this process in the claims it takes (default: `process_owner()`);
        `ratings` applies the rated games that end (None: no game is rated)."""
        self.store = store
        self.clock = clock
        self.owner = owner if owner is not None else process_owner()
        self.ratings = ratings
        self._locks = KeyedLocks()
        self._cache = _BoundedCache(CACHE_SIZE)
        self._listeners: list[Callable[[], None]] = []
        self._game_listeners: list[Callable[[GameRow | None], None]] = []
        self._damage_listeners: list[Callable[[Damage], None]] = []
        self._closed_listeners: list[Callable[[int], None]] = []
        self._left_listeners: list[Callable[[int], None]] = []
        self._damaged: set[int] = set()

    # --- listeners ---------------------------------------------------------------------------

    def on_damage(self, listener: Callable[[Damage], None]) -> None:
        """Call `listener` once per run for each game found damaged on loading it (so the
        edge can tell that channel's moderators)."""
        self._damage_listeners.append(listener)

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever a turn clock or a game's display changes (a reminder or an
        automatic move may have become due, or sooner)."""
        self._listeners.append(listener)

    def on_game_closed(self, listener: Callable[[int], None]) -> None:
        """Call `listener` with a game's id once this process closed it (played to its end,
        aborted, cancelled or abandoned), right after the write (so a tournament can move on)."""
        self._closed_listeners.append(listener)

    def _closed(self, game_id: int) -> None:
        for listener in self._closed_listeners:
            listener(game_id)

    def on_seat_left(self, listener: Callable[[int], None]) -> None:
        """Call `listener` with a game's id once a person left it by resigning in this process
        and it goes on without them, right after the write (so a seat request waiting for them
        can close)."""
        self._left_listeners.append(listener)

    def seat_left(self, game_id: int) -> None:
        """Tell the listeners that a person left the running game `game_id`."""
        for listener in self._left_listeners:
            listener(game_id)

    def on_game_change(self, listener: Callable[[GameRow | None], None]) -> None:
        """Call `listener` with a game's row as a change left it, whenever a turn clock or a
        game's display changes (None: a change to a game whose row is not known)."""
        self._game_listeners.append(listener)

    def schedule_changed(self, game: GameRow | None = None) -> None:
        """Tell the listeners of a change to `game` (its row as the change left it)."""
        for game_listener in self._game_listeners:
            game_listener(game)
        for listener in self._listeners:
            listener()

    def _damage_found(self, damage: Damage) -> None:
        if damage.game_id in self._damaged:
            return
        self._damaged.add(damage.game_id)
        log.error("game %s: %s", damage.game_id, damage.reason)
        for listener in self._damage_listeners:
            listener(damage)

    # --- locks and memory --------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's lock; the lock is dropped once nobody holds or awaits it."""
        async with self._locks.holding(game_id):
            yield

    @property
    def locks_in_use(self) -> int:
        """How many games have a lock now (held or awaited)."""
        return len(self._locks)

    @property
    def games_in_memory(self) -> int:
        return len(self._cache)

    def keep(self, loaded: LoadedGame) -> LoadedGame:
        """Remember the game as it is now (it was just written)."""
        self._cache[loaded.game.id] = loaded
        return loaded

    def in_memory(self, game_id: int) -> LoadedGame | None:
        """The game as it is in memory, if it is, unchecked against its row (for what never
        changes, such as its channel)."""
        return self._cache.get(game_id)

    def forget(self, game_id: int) -> None:
        """Drop the game from memory (it is read again from the database when next used)."""
        self._cache.pop(game_id, None)

    # --- reading -----------------------------------------------------------------------------

    def now(self) -> datetime:
        return self.clock()

    async def load(self, game_id: int, row: GameRow | None = None) -> LoadedGame:
        """The game, from memory while it matches its row, or rebuilt from its log; call it
        under the game's lock. `row` is the game's row as the caller has just read it (a claim
        returns it): when the game in memory matches it exactly, the row is not read again (a
        write made since by another process is still refused by the seq guarding every write).

        Raises GameNotFoundError, or GameDamagedError if its log cannot be replayed.
        """
        cached = self._cache.get(game_id)
        if cached is not None and row is not None and cached.game == row:
            return await self._rated_since(cached)
        game = await self.store.get(game_id)
        if game is None:
            self.forget(game_id)
            raise GameNotFoundError(game_id)
        if cached is not None:
            if cached.game == game:
                return await self._rated_since(cached)
            if _same_play(cached.game, game):  # only its clock or its messages changed
                return await self._rated_since(self.keep(replace(cached, game=game)))
        snapshot = await self.store.snapshot(game_id)
        if snapshot is None:
            self.forget(game_id)
            raise GameNotFoundError(game_id)
        game, seats, log_rows = snapshot
        if game.config is None and game.status in _BEFORE_PLAY:
            return self.keep(LoadedGame(game, players_of(seats), None))
        try:
            loaded, snapshot_problem = _rebuild(game, seats, log_rows)
        except GameDamagedError as error:
            self._damage_found(_damage(game, error.reason))
            raise
        if snapshot_problem is not None:
            self._damage_found(_damage(game, snapshot_problem, fatal=False))
        if game.status is GameStatus.OVER and not game.casual and self.ratings is not None:
            loaded = replace(loaded, ratings=await self.ratings.of_game(game_id))
        return self.keep(loaded)

    async def _rated_since(self, loaded: LoadedGame) -> LoadedGame:
        """The finished rated game in memory, with the rating changes applied since it was
        kept without them (applying failed at its end; the server's next game or a start,
        in this process or another, applied them): applying changes no game row, so they are
        read again while the game has none."""
        if (
            loaded.ratings
            or self.ratings is None
            or loaded.game.status is not GameStatus.OVER
            or rated_in(loaded.game, loaded.players) is None
        ):
            return loaded
        ratings = await self.ratings.of_game(loaded.game.id)
        return self.keep(replace(loaded, ratings=ratings)) if ratings else loaded

    async def load_unplayable(self, game_id: int) -> LoadedGame:
        """The game's row and seats only, without its state (a damaged game can still be
        ended: that takes nothing else)."""
        game = await self.store.get(game_id)
        if game is None:
            raise GameNotFoundError(game_id)
        return LoadedGame(game, players_of(await self.store.seats(game_id)), None)

    # --- claims ------------------------------------------------------------------------------

    def lease_end(self) -> datetime:
        """When a claim taken now runs out."""
        return self.clock() + timedelta(seconds=CLAIM_LEASE_SECONDS)

    async def claim(self, game_id: int) -> bool:
        """Claim the game's due work for this process (False: another process holds it)."""
        return await self.store.claim(game_id, self.now(), self.owner, self.lease_end())

    async def release(self, game_id: int) -> None:
        """Give up this process's claim on the game's due work."""
        await self.store.release_claim(game_id, self.owner)

    # --- writing -----------------------------------------------------------------------------

    def fresh_clock(self, game: GameRow, players: Sequence[Player], state: GameState) -> TurnClock:
        """The clock of a turn (of `state`'s mover) beginning now."""
        if state.is_over or state.to_move is None:
            return TurnClock()
        if pause.is_paused(players, state):
            return pause.pause_clock(self.clock(), game.turn_limit_seconds)
        mover = next((p for p in players if p.seat == state.to_move), None)
        ai_plays = mover is not None and mover.ai_plays
        return deadlines.fresh_clock(self.clock(), game.turn_limit_seconds, ai_plays=ai_plays)

    async def commit(
        self,
        loaded: LoadedGame,
        state: GameState,
        entries: Sequence[NewAction],
        events: Sequence[Event],
        controls: Sequence[SeatControl] = (),
        holder: SeatHolder | None = None,
    ) -> LoadedGame:
        """Append `entries` (which led from `loaded` to `state`, causing `events`) to the log,
        with the new snapshot, the turn's clock, seat controls and, at the end, the results
        (and, for a rated game, its ratings, applied just after). StaleBoardError if another
        writer got there first, or if the person's seat the entries were played for is no
        longer as `holder` read it (another process's rejoin or hand-over moves no seq)."""
        players = loaded.players
        for control in controls:
            players = with_control(players, control)
        before = loaded.state
        clock = None
        if (
            before is None
            or before.to_move != state.to_move
            or any(isinstance(event, engine.TurnStarted) for event in events)
            or pause.is_paused(players, state) != pause.is_paused(loaded.players, before)
        ):
            clock = self.fresh_clock(loaded.game, players, state)
        rated = None
        if state.is_over and self.ratings is not None:
            rated = rated_in(loaded.game, players)
        try:
            game = await self.store.append_actions(
                loaded.game.id,
                loaded.game.seq,
                entries,
                engine.to_position(state),
                self.now(),
                status=GameStatus.OVER if state.is_over else GameStatus.RUNNING,
                clock=clock,
                controls=controls,
                results=results_of(state, players) if state.is_over else (),
                rated_in=rated,
                holder=holder,
            )
        except StaleSeqError:
            # Another writer (another process on the same file) got there first.
            self.forget(loaded.game.id)
            raise loaded.stale() from None
        resigned = {entry.resigned_seat for entry in entries if entry.resigned_seat is not None}
        if resigned:
            players = tuple(
                replace(player, resigned=True) if player.seat in resigned else player
                for player in players
            )
        turn_events, previous = split_turns(loaded.turn_events, loaded.previous_turn_events, events)
        starts = loaded.turn_starts or (0,)
        if any(isinstance(event, engine.TurnStarted) for event in events):
            starts = (*starts, game.seq)  # a turn begins after the entries that ended the last
        history = (*loaded.history, *events)
        ai_moves = loaded.ai_moves
        if loaded.state is not None:  # the entries are moves of the turn they began in
            ai_moves = with_ai_moves(ai_moves, loaded.state.turn, entries)
        updated = self.keep(
            LoadedGame(
                game, players, state, turn_events, previous, starts, history, ai_moves=ai_moves
            )
        )
        self.schedule_changed(game)
        if rated is not None and self.ratings is not None:
            changes = await self.ratings.settle(rated, game.id)
            if not changes:  # not applied now: read again when next used
                self.forget(game.id)
            updated = replace(updated, ratings=changes)
            if changes:
                self.keep(updated)
        if state.is_over:
            self._closed(game.id)
        return updated

    async def end(
        self,
        loaded: LoadedGame,
        reason: EndReason,
        user_id: int | None,
        *,
        seats_as_loaded: bool = False,
    ) -> LoadedGame:
        """Close an open game early (aborted by `user_id`, a cancelled lobby, or abandoned:
        no user); GameNotRunningError if it closed meanwhile. `seats_as_loaded`: only while its
        seats are as `loaded` has them, StaleBoardError otherwise (a rejoin or a hand-over in
        another process moves no seq)."""
        try:
            game = await self.store.end(
                loaded.game.id,
                GameStatus.ABORTED,
                reason,
                user_id,
                self.now(),
                expected_rev=loaded.game.rev if seats_as_loaded else None,
            )
        except StaleSeqError:
            self.forget(loaded.game.id)
            if seats_as_loaded:
                raise loaded.stale() from None
            raise GameNotRunningError() from None
        ended = self.keep(replace(loaded, game=game))
        self.schedule_changed(game)
        self._closed(game.id)
        return ended

    async def set_clock(
        self,
        loaded: LoadedGame,
        clock: TurnClock,
        controls: Sequence[SeatControl] = (),
    ) -> LoadedGame:
        """Change the running game's clock (and seat controls) at its current seq;
        StaleBoardError if another writer moved the game on since it was read."""
        try:
            game = await self.store.set_clock(loaded.game.id, loaded.game.seq, clock, controls)
        except StaleSeqError:
            self.forget(loaded.game.id)
            raise loaded.stale() from None
        players = loaded.players
        for control in controls:
            players = with_control(players, control)
        updated = self.keep(replace(loaded, game=game, players=players))
        self.schedule_changed(game)
        return updated

    async def mark_reminded(self, loaded: LoadedGame) -> LoadedGame | None:
        """Mark the reminder of the game's current turn as sent; None if it was already (by
        another process) or the game moved on."""
        game = await self.store.mark_reminded(loaded.game.id, loaded.game.seq)
        if game is None:
            self.forget(loaded.game.id)
            return None
        updated = self.keep(replace(loaded, game=game))
        self.schedule_changed(game)
        return updated

    async def set_board_message(
        self,
        game_id: int,
        message_id: int,
        seq: int,
        *,
        end_shown: bool = False,
        lobby_linked: bool | None = None,
        lobby: bool = False,
    ) -> None:
        """Remember the message that now shows the game at `seq` (for stale-click pointers);
        `end_shown`: it is the finished game's result with its rating changes; `lobby_linked`:
        for a message the lobby leads to, whether its edit to lead there went through;
        `lobby`: it is the lobby's message, recorded only while the game is a lobby."""
        async with self.locked(game_id):
            game = await self.store.set_board_message(
                game_id,
                message_id,
                seq,
                end_shown=end_shown,
                lobby_linked=lobby_linked,
                lobby=lobby,
            )
            if game is None:
                return  # a newer message is recorded: nothing changed
            cached = self._cache.get(game_id)
            if cached is not None and _same_play(cached.game, game):
                self._cache[game_id] = replace(cached, game=game)  # the row as it is now
            # else the game moved on elsewhere: its next load sees the row and rebuilds it
        self.schedule_changed(game)

    async def set_reminder_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the reminder sent for the game's turn being played (None: none is out)."""
        async with self.locked(game_id):
            await self.store.set_reminder_message(game_id, message_id)
            self._cached_game(game_id, lambda game: replace(game, reminder_message_id=message_id))

    async def set_nudge_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the ping of a nudge for the game's turn being played (None: none is out)."""
        async with self.locked(game_id):
            await self.store.set_nudge_message(game_id, message_id)
            self._cached_game(game_id, lambda game: replace(game, nudge_message_id=message_id))

    async def take_hint(self, game_id: int, user_id: int, allowance: int) -> int | None:
        """Count one more hint used by the person in the game (bot.storage.hints): how many
        they have used with it, or None (nothing counted) when they had used `allowance`."""
        async with self.locked(game_id):
            used = await self.store.take_hint(game_id, user_id, allowance)
            if used is not None:
                self._hints_used(game_id, user_id, used)
            return used

    async def give_back_hint(self, game_id: int, user_id: int) -> int | None:
        """Count one hint fewer used by the person in the game: how many they have used now,
        or None (nothing changed) when they had used none."""
        async with self.locked(game_id):
            used = await self.store.give_back_hint(game_id, user_id)
            if used is not None:
                self._hints_used(game_id, user_id, used)
            return used

    def _hints_used(self, game_id: int, user_id: int, used: int) -> None:
        """The game in memory, if it is, learns the person's count as stored, and the `rev` the
        write moved on by one. Under the game's lock, nothing of this process reloaded it
        since the write: the copy matches the row again only if it matched it before (had
        another process changed the seats, the row's `rev` is ahead of the copy's still)."""
        cached = self._cache.get(game_id)
        if cached is not None:
            players = tuple(
                replace(player, hints_used=used) if player.user_id == user_id else player
                for player in cached.players
            )
            game = replace(cached.game, rev=cached.game.rev + 1)
            self._cache[game_id] = replace(cached, game=game, players=players)

    def _cached_game(self, game_id: int, change: Callable[[GameRow], GameRow]) -> None:
        """The game in memory, if it is, with its row changed as it was stored."""
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache[game_id] = replace(cached, game=change(cached.game))


class _BoundedCache(OrderedDict[int, LoadedGame]):
    """Games in memory, the least recently stored dropped first beyond `size` (a dropped game
    is rebuilt from its log when it is next used), so months of games never pile up."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __setitem__(self, game_id: int, loaded: LoadedGame) -> None:
        super().__setitem__(game_id, loaded)
        self.move_to_end(game_id)
        while len(self) > self.size:
            self.popitem(last=False)


def _same_play(cached: GameRow, row: GameRow) -> bool:
    """Whether the game in memory is still the game its row describes, but for its clock and
    its messages: the same log (seq), status, snapshot, config and seats."""
    return (
        cached.seq == row.seq
        and cached.status is row.status
        and cached.rev == row.rev
        and cached.position == row.position
        and cached.config == row.config
    )


def _rebuild(
    game: GameRow, seats: list[SeatRow], log_rows: list[ActionRow]
) -> tuple[LoadedGame, str | None]:
    """Replay the game's log from its config; the snapshot is only compared, never trusted.

    Returns the game and what is wrong with its snapshot, if anything (the log wins, nothing is
    lost). Raises GameDamagedError if the log itself has gaps or does not replay.
    """
    if game.config is None:
        raise _damaged(game, "it was started but its config is missing")
    seqs = [row.seq for row in log_rows]
    if seqs != list(range(1, game.seq + 1)):
        raise _damaged(game, f"its action log has {len(seqs)} of its {game.seq} entries")
    turn: tuple[Event, ...] = ()
    previous: tuple[Event, ...] = ()
    starts = [0]
    history: list[Event] = []
    ai_moves: tuple[AiMove, ...] = ()
    try:
        record = records.game_record(game.config, log_rows)
        state = engine.new_game(record.config)
        for seq, (after, events) in enumerate(engine.replay_events(record), start=1):
            ai_moves = with_ai_moves(ai_moves, state.turn, log_rows[seq - 1 : seq])
            state = after
            turn, previous = split_turns(turn, previous, events)
            history.extend(events)
            if any(isinstance(event, engine.TurnStarted) for event in events):
                starts.append(seq)
    except (ValueError, KeyError, TypeError) as error:  # the engine's errors are ValueErrors
        raise _damaged(game, f"its action log does not replay ({error})") from None
    seated = sorted(seat.seat for seat in seats if seat.seat is not None)
    if seated != list(range(state.config.players)):
        raise _damaged(game, f"it has {len(seated)} of its {state.config.players} seats")
    loaded = LoadedGame(
        game,
        players_of(seats),
        state,
        turn,
        previous,
        tuple(starts),
        tuple(history),
        ai_moves=ai_moves,
    )
    if game.position is None:
        return loaded, None
    if isinstance(game.position, UnreadableJson):
        return loaded, "its position snapshot is unreadable; it was rebuilt from the action log"
    expected = engine.to_position(state)
    if isinstance(game.position, dict) and engine.ELIMINATED_ORDER not in game.position:
        # An optional extra a snapshot may be without (the same position read back).
        expected.pop(engine.ELIMINATED_ORDER, None)
    if game.position != expected:
        return loaded, "its position snapshot differs from its action log; the log was used"
    return loaded, None


def _damaged(game: GameRow, reason: str) -> GameDamagedError:
    return GameDamagedError(game.id, game.guild_id, game.channel_id, reason)


def _damage(game: GameRow, reason: str, *, fatal: bool = True) -> Damage:
    return Damage(game.id, game.guild_id, game.channel_id, reason, game.locale, fatal=fatal)


_T = TypeVar("_T")


async def again_if_moved_on(attempt: Callable[[], Awaitable[_T]]) -> _T:
    """Run `attempt` (a read of the game, then a write guarded by its seq); once more if
    another process moved the game on between the two: read again, it is made, or refused,
    as the game now stands."""
    try:
        return await attempt()
    except StaleBoardError:
        return await attempt()
