"""Tournaments as use cases: opening one, signing up, the start, pairing each round as soon as
the previous one is over, setting each table's game up, the standings, the end, and a
moderator cancelling or aborting one. Nothing here knows Discord: the edge makes the threads
and shows the messages, and tells this service what it made.

A tournament's games are ordinary games (bot.services.games), started as a table is set up:
they are played, timed, resigned, aborted and ended like any other, and each tells this service
when it closed (`game_closed`). Whatever happens to a game happens inside the tournament.

Several processes may run the same tournament. The store keeps them apart (bot.storage
.tournaments): a round is paired by one insert that only the first process gets in, a table is
set up by the process that claimed it, and the end is one guarded update. Everything this
service decides (the seeding, the pairings, the standings) is a pure function of what is
stored, so whichever process does it gets the same result, before and after a restart.

A player may withdraw once the tournament runs (`withdraw`): they are paired in no later round
(a Swiss round pairs the others, a round-robin's schedule seats the AI in their place), their
game still being played is resigned for them, and they keep their line in the standings. The
withdrawal and a round's pairing each take the tournament's row, so they come one after the
other; whichever of the withdrawal and a table's set-up is stored second resigns the player
from that table's game (`resign_withdrawn`).

Each step reads what it decides from once, in one snapshot (bot.storage.tournaments): an
advance reads the tournament, its players and its tables in one read, and builds the view it
returns from that read and what it wrote; setting a table up reads that table alone.

The pairing runs off the event loop, in the worker pool (bot.workers.pool, its slow lane): a
Swiss round at 64 players takes up to half a second of CPU and a round-robin's schedule up to
a second and a half, which on the loop would stall every game of the process. The pool rather
than a thread (`asyncio.to_thread`), because a thread of this process holds the interpreter
while it computes: the loop gets it back only at each switch interval, and later still on a
busy machine, so every game of the process would still answer tens of milliseconds late
(docs/performance.md, "Loop lag while pairing", measures both). The pairing is a pure function
of plain data (`swiss_round` of a snapshot, `pairing.round_robin_schedule`), so a worker
process gives the same tables as the bot would, and a round is still stored once, by the
guarded insert. The round-robin's schedule is worked out once, at the start, and stored with
the tournament.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import engine
from bot import crashpoints
from bot.services import deadlines, dice, pairing, records, standings
from bot.services.errors import (
    AlreadyEnteredError,
    BadOptionError,
    ChannelHasTournamentError,
    GameError,
    GameNotRunningError,
    InvisibleNameError,
    NotEnoughPlayersError,
    NotEnteredError,
    NoTournamentHereError,
    TournamentClosedError,
    TournamentCreatorOnlyError,
    TournamentFullError,
    WithdrawError,
)
from bot.services.guilds import check_turn_limit, check_variant
from bot.services.lobby import seat_name, shows_something
from bot.services.locks import KeyedLocks
from bot.services.tournament_views import (
    BYE_LEVEL,
    Entrant,
    Progress,
    TableView,
    TournamentFormat,
    TournamentStatus,
    TournamentView,
    Withdrawal,
)
from bot.services.views import GameView, Player
from bot.storage import tournaments as stored
from bot.storage.kinds import GameStatus
from bot.storage.tournaments import (
    NewTableGame,
    NewTournament,
    TableResultRow,
    TableRow,
    TableSeat,
    TableSnapshot,
    TournamentRow,
    TournamentSnapshot,
    TournamentStore,
)
from bot.workers.pool import Lane, WorkerPool
from engine import Variant

if TYPE_CHECKING:
    from bot.services.games import GameService

MAX_PLAYERS = 64
"""The most players a tournament takes."""
MAX_ROUNDS = 20
"""The most rounds a Swiss tournament may be given."""
NAME_LIMIT = 100
_T = TypeVar("_T")
PAIRING_LIMIT = 60.0
"""Seconds a pairing may run in a worker before it counts as hung (it takes a second or two at
most: the search is bounded)."""
CLAIM_LEASE_SECONDS = 60
"""How long a claim on setting a table up holds (making a thread and a game takes seconds)."""


class TournamentService:
    """Tournaments for one bot process (see the module)."""

    def __init__(
        self,
        store: TournamentStore,
        games: GameService,
        *,
        seeds: Callable[[], str] = dice.new_seed,
        workers: WorkerPool | None = None,
    ) -> None:
        """Games are started through `games` (its loader: the clock, the process's name in
        claims, the games in memory); `seeds` makes each game's and tournament's secret seed;
        the rounds are paired in `workers` (default: threads of this process, for tests and
        tools)."""
        self._store = store
        self._workers = workers if workers is not None else WorkerPool(workers=0)
        self._games = games
        self._loader = games.loader
        self._seeds = seeds
        self._locks = KeyedLocks()

    # --- sign-up -----------------------------------------------------------------------------

    async def open(
        self,
        *,
        guild_id: int,
        channel_id: int,
        moderator_id: int,
        name: str,
        format: str,
        seats: int,
        rounds: int | None,
        variant: str,
        turn_limit_seconds: int | None,
        locale: str,
    ) -> TournamentView:
        """Open a tournament for sign-up in the channel (`rounds`: Swiss only, None for the
        default, worked out at the start from the number of players)."""
        kept = " ".join(name.split())[:NAME_LIMIT].rstrip()
        if not shows_something(kept):
            raise InvisibleNameError(name)  # blank, or only invisible characters
        if format not in {value.value for value in TournamentFormat}:
            raise BadOptionError("format", format)
        if seats not in engine.PLAYER_COUNTS:
            raise BadOptionError("seats", seats)
        if format == TournamentFormat.ROUND_ROBIN:
            rounds = None
        elif rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
            raise BadOptionError("rounds", rounds)
        check_variant(variant)
        check_turn_limit(turn_limit_seconds)
        new = NewTournament(
            guild_id=guild_id,
            channel_id=channel_id,
            name=kept,
            format=format,
            seats=seats,
            rounds=rounds,
            variant=variant,
            turn_limit_seconds=turn_limit_seconds,
            locale=locale,
            created_by=moderator_id,
            seed=self._seeds(),
        )
        try:
            row = await self._store.create(new, self._loader.now())
        except stored.ChannelHasTournamentError:
            existing = await self._store.open_at(channel_id)
            message = existing.message_id if existing is not None else None
            raise ChannelHasTournamentError(guild_id, channel_id, message) from None
        return _view(TournamentSnapshot(row, (), ()))

    async def look(self, tournament_id: int) -> TournamentView:
        return _view(await self._snapshot(tournament_id))

    async def open_at(self, channel_id: int) -> TournamentView:
        """The tournament signing up or running in the channel, or played in the thread;
        NoTournamentHereError if none."""
        row = await self._store.open_at(channel_id)
        if row is None:
            raise NoTournamentHereError()
        return await self.look(row.id)

    async def join(self, tournament_id: int, user_id: int, name: str | None) -> TournamentView:
        """Sign the user up (shown by `name`); the cap is counted in the write that signs them
        up, so two sign-ups for the last place, in any processes, take it once."""
        async with self._locks.holding(tournament_id):
            snapshot = await self._snapshot(tournament_id)
            if snapshot.row.status != stored.SIGNUP:
                raise TournamentClosedError()
            if len(snapshot.entrants) >= MAX_PLAYERS:
                raise TournamentFullError()
            try:
                joined = await self._store.join(
                    tournament_id, user_id, seat_name(name), self._loader.now(), most=MAX_PLAYERS
                )
            except stored.AlreadyEnteredError:
                raise AlreadyEnteredError() from None
            except stored.TournamentFullError:
                raise TournamentFullError() from None
            if not joined:
                raise TournamentClosedError()
            return await self.look(tournament_id)

    async def leave(self, tournament_id: int, user_id: int) -> TournamentView:
        async with self._locks.holding(tournament_id):
            await self._signing_up(tournament_id)
            if not await self._store.leave(tournament_id, user_id, self._loader.now()):
                if (await self._row(tournament_id)).status != stored.SIGNUP:
                    raise TournamentClosedError()
                raise NotEnteredError()
            return await self.look(tournament_id)

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        """Remember the tournament's message: its sign-up, which shows the standings later."""
        await self._store.set_message(tournament_id, message_id)

    async def cancel(self, tournament_id: int, user_id: int, *, moderator: bool) -> TournamentView:
        """Close the sign-up without playing (its creator or a moderator)."""
        await self._end_early(tournament_id, user_id, stored.CANCELLED, moderator=moderator)
        return await self.look(tournament_id)

    async def start(self, tournament_id: int, user_id: int, *, moderator: bool) -> Progress:
        """Close the sign-up, draw the seeding, and pair the first round (its creator or a
        moderator); at least two players are needed. The seeding is of the players signed up
        when the start is written: one who joined or left (in another process) after they were
        read makes it read them again and draw again."""
        async with self._locks.holding(tournament_id):
            while True:
                snapshot = await self._snapshot(tournament_id)
                row = snapshot.row
                _may_run(row, user_id, moderator=moderator)
                if row.status != stored.SIGNUP:
                    raise TournamentClosedError()
                if len(snapshot.entrants) < pairing.MIN_TABLE:
                    raise NotEnoughPlayersError(len(snapshot.entrants))
                seeding = seeded(row.seed, [entrant.user_id for entrant in snapshot.entrants])
                schedule = None
                if row.format == TournamentFormat.ROUND_ROBIN:
                    schedule = await self._off_the_loop(
                        pairing.round_robin_schedule, seeding, row.seats
                    )
                    rounds = len(schedule)
                else:
                    rounds = row.rounds or pairing.swiss_rounds(len(seeding), row.seats)
                now = self._loader.now()
                try:
                    started = await self._store.start(tournament_id, seeding, rounds, now, schedule)
                except stored.EntrantsChangedError:
                    continue
                if not started:
                    raise TournamentClosedError()
                return await self._advance(tournament_id)

    # --- the rounds ----------------------------------------------------------------------------

    async def game_closed(self, game_id: int) -> Progress | None:
        """A game ended (finished or aborted): if it is a tournament's and its round is over,
        pair the next round, or end the tournament after its last. None for other games."""
        tournament_id = await self._store.of_game(game_id)
        if tournament_id is None:
            return None
        return await self.advance(tournament_id)

    async def advance(self, tournament_id: int) -> Progress:
        """Move the running tournament on if it can: pair its first round if it has none, the
        next one once every game of the last is over, or end it after its last round."""
        async with self._locks.holding(tournament_id):
            return await self._advance(tournament_id)

    async def _advance(self, tournament_id: int) -> Progress:
        """`advance`, the tournament's lock held. A round is paired from the players still in
        when its pairing is written: one who withdrew meanwhile, in another process, makes it
        read the tournament again and pair again. Fewer than two people still in end the
        tournament, as its last round does."""
        while True:
            snapshot = await self._snapshot(tournament_id, schedule=True)
            row, tables = snapshot.row, snapshot.tables
            if row.status != stored.RUNNING:
                return Progress(_view(snapshot))
            last = max((table.round for table in tables), default=0)
            if last and not all(_closed(table) for table in tables if table.round == last):
                return Progress(_view(snapshot))
            assert row.rounds is not None
            crashpoints.reach("tournament.round_over")
            now = self._loader.now()
            out = withdrawn(snapshot)
            if last >= row.rounds or len(snapshot.entrants) - len(out) < pairing.MIN_TABLE:
                break
            paired = await self._round_tables(snapshot, last + 1)
            try:
                if not await self._store.pair_round(tournament_id, last + 1, paired, now, out):
                    # another process paired it (or ended the tournament) meanwhile
                    return Progress(await self.look(tournament_id))
            except stored.WithdrawalsChangedError:
                continue
            return Progress(_view(_with_round(snapshot, last + 1, paired)), last + 1)
        if not await self._store.end(tournament_id, stored.OVER, None, now, was=stored.RUNNING):
            return Progress(await self.look(tournament_id))
        over = dataclasses.replace(row, status=stored.OVER, ended_by=None)
        return Progress(_view(dataclasses.replace(snapshot, row=over)), finished=True)

    async def _round_tables(
        self, snapshot: TournamentSnapshot, round_no: int
    ) -> Sequence[pairing.Table]:
        """The tables of round `round_no`: the round-robin's stored schedule (worked out and
        stored now for a tournament started without it), the seats of the players who withdrew
        given to the AI, or a Swiss pairing of the standings after the rounds before, of the
        players still in, worked out off the loop."""
        row = snapshot.row
        if row.format != TournamentFormat.ROUND_ROBIN:
            return await self._off_the_loop(swiss_round, snapshot, round_no)
        schedule: Sequence[Sequence[pairing.Table]] | None = snapshot.schedule
        if schedule is None:
            seeding = [entrant.user_id for entrant in snapshot.entrants]
            schedule = await self._off_the_loop(
                functools.partial(pairing.round_robin_schedule, search=False), seeding, row.seats
            )
            await self._store.set_schedule(row.id, schedule)
        return pairing.without(schedule[round_no - 1], withdrawn(snapshot))

    async def running(self) -> list[int]:
        """The running tournaments (to catch up on after a restart)."""
        return [row.id for row in await self._store.running()]

    async def ended_within(self, period: timedelta) -> list[int]:
        """The tournaments played to their end within `period` (their message may have been left
        unfinished by a process that ended them and died before it drew the end)."""
        return [row.id for row in await self._store.ended_since(self._loader.now() - period)]

    # --- setting the tables up -----------------------------------------------------------------

    async def claim_tables(self, tournament_id: int) -> list[TableView]:
        """Claim for this process the tables still to set up (no game yet) that no other
        process holds; release each (`release_table`) once done, or after a failure."""
        now = self._loader.now()
        until = now + timedelta(seconds=CLAIM_LEASE_SECONDS)
        claimed = set(await self._store.claim_tables(tournament_id, now, self._loader.owner, until))
        view = await self.look(tournament_id)
        return [table for table in view.tables if (table.round, table.number) in claimed]

    async def release_table(self, tournament_id: int, table: TableView) -> None:
        await self._store.release_table(
            tournament_id, table.round, table.number, self._loader.owner
        )

    async def set_thread(self, tournament_id: int, table: TableView, thread_id: int) -> int:
        """Record the thread the table is played in, unless it has one; the thread it has."""
        return await self._store.set_thread(tournament_id, table.round, table.number, thread_id)

    async def thread_recorded(self, thread_id: int) -> bool:
        """Whether the thread is already a table's (of this tournament or another): a thread
        made for a table but never recorded is not."""
        return await self._store.thread_recorded(thread_id)

    async def start_table(self, tournament_id: int, table: TableView) -> GameView:
        """Start the table's game in its thread (once: a table with a game gets that game): the
        seats shuffled and the game dealt from the game's own secret seed, as a lobby's start
        does (R13), an AI in each seat of a bye. TournamentClosedError if the tournament no
        longer runs (aborted while the table was being set up): no game is started."""
        async with self._locks.holding(tournament_id):
            found = await self._table(tournament_id, table)
            row, current = found.row, found.table
            if current.thread_id is None:
                raise GameNotRunningError()
            if current.game_id is not None:
                return await self._games.play.look(current.game_id)
            seats = [
                TableSeat(seat, None, found.names.get(seat))
                if seat is not None
                else TableSeat(None, BYE_LEVEL, None)
                for seat in current.seats
            ]
            seed = self._seeds()
            rng = dice.setup_rng(seed)
            rng.shuffle(seats)
            config = engine.deal(len(seats), Variant(row.variant), rng)
            state = engine.new_game(config)
            players = [
                Player(seat.user_id, index, seat.ai_level, name=seat.display_name)
                for index, seat in enumerate(seats)
            ]
            mover = players[state.to_move] if state.to_move is not None else players[0]
            now = self._loader.now()
            clock = deadlines.fresh_clock(now, row.turn_limit_seconds, ai_plays=mover.ai_plays)
            new = NewTableGame(
                guild_id=row.guild_id,
                channel_id=current.thread_id,
                host_id=row.created_by,
                variant=row.variant,
                turn_limit_seconds=row.turn_limit_seconds,
                seed=seed,
                seed_sha256=dice.commitment(seed),
                locale=row.locale,
                seats=tuple(seats),
                config=records.config_json(config),
                position=engine.to_position(state),
                clock=clock,
            )
            game_id = await self._store.create_table_game(
                tournament_id, table.round, table.number, new, now
            )
            if game_id is None:  # another process started it, or the tournament ended, meanwhile
                game_id = (await self._table(tournament_id, table)).table.game_id
                if game_id is None:
                    raise TournamentClosedError()
            self._loader.schedule_changed()
            return await self._games.play.look(game_id)

    # --- withdrawing ------------------------------------------------------------------------

    async def check_withdraw(self, tournament_id: int, user_id: int, *, by: int) -> TournamentView:
        """Raise what `withdraw` would raise now (WithdrawError: the tournament does not run,
        the user does not play in it or withdrew already); change nothing. The tournament as
        it is: the edge asks before it withdraws anyone."""
        snapshot = await self._snapshot(tournament_id)
        _may_withdraw(snapshot, user_id, own=user_id == by)
        return _view(snapshot)

    async def withdraw(self, tournament_id: int, user_id: int, *, by: int) -> Withdrawal:
        """Withdraw the player from the running tournament (asked by `by`: themselves, or a
        moderator the edge checked): they are paired in no later round and keep their points
        and place in the standings; each game of theirs still being played is resigned for
        them (`resign_withdrawn`). The withdrawal and a round's pairing in another process come
        one after the other (bot.storage.tournaments): the player is in that round, and
        resigned from its game, or out of it."""
        own = user_id == by
        async with self._locks.holding(tournament_id):
            _may_withdraw(await self._snapshot(tournament_id), user_id, own=own)
            after = await self._store.withdraw(tournament_id, user_id, self._loader.now())
            if after is None:  # changed meanwhile, in another process: says what
                _may_withdraw(await self._snapshot(tournament_id), user_id, own=own)
                raise WithdrawError("over", user_id, own=own)
        resigned = await self.resign_withdrawn(tournament_id)
        return Withdrawal(await self.look(tournament_id), after, tuple(resigned))

    async def resign_withdrawn(self, tournament_id: int) -> list[tuple[GameView, GameView]]:
        """Resign every player who withdrew from each game of the tournament they still play
        in (their seat at a table paired before the withdrawal, whose game was set up before or
        after it), as `/marrakech resign` would: each game before and after. A seat already out
        (resigned, handed over) is left as it is."""
        snapshot = await self._snapshot(tournament_id)
        out = withdrawn(snapshot)
        resigned = []
        for table in snapshot.tables:
            if table.game_id is None or table.game_status != GameStatus.RUNNING.value:
                continue
            for seat in table.seats:
                if seat is None or seat not in out:
                    continue
                try:
                    before = await self._games.play.look(table.game_id)
                    resigned.append((before, await self._games.play.resign(table.game_id, seat)))
                except GameError:  # out already, or the game ended meanwhile
                    continue
        return resigned

    # --- the end -------------------------------------------------------------------------------

    async def abort(
        self, tournament_id: int, user_id: int, *, moderator: bool
    ) -> tuple[TournamentView, list[GameView]]:
        """End the tournament early (its creator or a moderator): one still signing up is
        cancelled (nothing was played), a running one aborted with every game of it still
        being played. The tournament and the games it aborted."""
        if (await self._row(tournament_id)).status == stored.SIGNUP:
            try:
                return await self.cancel(tournament_id, user_id, moderator=moderator), []
            except TournamentClosedError:
                if (await self._row(tournament_id)).status != stored.RUNNING:
                    raise
                # Started meanwhile (by another process): it is aborted as a running one.
        await self._end_early(tournament_id, user_id, stored.ABORTED, moderator=moderator)
        aborted = []
        for table in (await self._snapshot(tournament_id)).tables:
            if table.game_id is None or _closed(table):
                continue
            try:
                aborted.append(await self._games.play.abort(table.game_id, user_id, moderator=True))
            except GameNotRunningError:
                continue  # it ended meanwhile
        return await self.look(tournament_id), aborted

    async def _end_early(
        self, tournament_id: int, user_id: int, status: str, *, moderator: bool
    ) -> None:
        """Cancel the sign-up (`status` cancelled) or abort the running tournament (aborted),
        for its creator or a moderator; TournamentClosedError if it is past that stage."""
        was = stored.SIGNUP if status == stored.CANCELLED else stored.RUNNING
        async with self._locks.holding(tournament_id):
            _may_run(await self._row(tournament_id), user_id, moderator=moderator)
            if not await self._store.end(
                tournament_id, status, user_id, self._loader.now(), was=was
            ):
                raise TournamentClosedError()

    # --- reading -------------------------------------------------------------------------------

    async def _row(self, tournament_id: int) -> TournamentRow:
        row = await self._store.get(tournament_id)
        if row is None:
            raise NoTournamentHereError()
        return row

    async def _snapshot(self, tournament_id: int, *, schedule: bool = False) -> TournamentSnapshot:
        snapshot = await self._store.snapshot(tournament_id, schedule=schedule)
        if snapshot is None:
            raise NoTournamentHereError()
        return snapshot

    async def _table(self, tournament_id: int, table: TableView) -> TableSnapshot:
        found = await self._store.table_snapshot(tournament_id, table.round, table.number)
        if found is None:
            raise GameNotRunningError()
        return found

    async def _off_the_loop(self, function: Callable[..., _T], *args: Any) -> _T:
        """`function(*args)` in a worker, the event loop free meanwhile (see the module)."""
        return await self._workers.run(Lane.SLOW, function, *args, limit=PAIRING_LIMIT)

    async def _signing_up(self, tournament_id: int) -> TournamentRow:
        row = await self._row(tournament_id)
        if row.status != stored.SIGNUP:
            raise TournamentClosedError()
        return row


def _view(snapshot: TournamentSnapshot) -> TournamentView:
    """The tournament as the snapshot saw it, with its standings."""
    row, entrants, tables = snapshot.row, snapshot.entrants, snapshot.tables
    lines: tuple[standings.Standing, ...] = ()
    if row.status != stored.SIGNUP and row.rounds is not None:
        rounds = row.rounds
        if row.status == stored.OVER:  # ended early once too few were left: nothing to play
            rounds = min(rounds, max((table.round for table in tables), default=0))
        out = {
            entrant.user_id: entrant.withdrew_after
            for entrant in entrants
            if entrant.withdrew_after is not None
        }
        lines = tuple(
            standings.standings(
                [entrant.user_id for entrant in entrants], _outcomes(tables), rounds, out
            )
        )
    return TournamentView(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        name=row.name,
        format=TournamentFormat(row.format),
        seats=row.seats,
        rounds=row.rounds,
        variant=row.variant,
        turn_limit_seconds=row.turn_limit_seconds,
        locale=row.locale,
        status=TournamentStatus(row.status),
        created_by=row.created_by,
        ended_by=row.ended_by,
        message_id=row.message_id,
        created_at=row.created_at,
        entrants=tuple(Entrant(entrant.user_id, entrant.display_name) for entrant in entrants),
        tables=tuple(_table_view(table) for table in tables),
        standings=lines,
    )


def _with_round(
    snapshot: TournamentSnapshot, round_no: int, tables: Sequence[pairing.Table]
) -> TournamentSnapshot:
    """The snapshot with round `round_no` as `pair_round` just stored it (its tables have no
    thread or game yet), without reading it again."""
    added = tuple(
        TableRow(round_no, number, tuple(seats), None, None, None)
        for number, seats in enumerate(tables, start=1)
    )
    return dataclasses.replace(snapshot, tables=snapshot.tables + added)


def seeded(seed: str, players: list[int]) -> list[int]:
    """The seeding: the players (in sign-up order) shuffled from the tournament's seed, so
    every process draws the same order."""
    digest = hashlib.sha256(f"marrakech-tournament:{seed}:seeding".encode()).digest()
    order = list(players)
    random.Random(int.from_bytes(digest, "big")).shuffle(order)
    return order


def withdrawn(snapshot: TournamentSnapshot) -> frozenset[int]:
    """The players who withdrew from the tournament."""
    return frozenset(
        entrant.user_id for entrant in snapshot.entrants if entrant.withdrew_after is not None
    )


def _may_withdraw(snapshot: TournamentSnapshot, user_id: int, *, own: bool) -> None:
    """WithdrawError unless the user is a player still in the running tournament."""
    status = snapshot.row.status
    if status == stored.SIGNUP:
        raise WithdrawError("signing_up", user_id, own=own)
    if status != stored.RUNNING:
        raise WithdrawError("over", user_id, own=own)
    entrant = next((e for e in snapshot.entrants if e.user_id == user_id), None)
    if entrant is None:
        raise WithdrawError("not_player", user_id, own=own)
    if entrant.withdrew_after is not None:
        raise WithdrawError("already", user_id, own=own)


def _may_run(row: TournamentRow, user_id: int, *, moderator: bool) -> None:
    """Only the tournament's creator or a moderator starts, cancels or aborts it."""
    if not moderator and user_id != row.created_by:
        raise TournamentCreatorOnlyError()


def _closed(table: TableRow) -> bool:
    return table.game_status in (GameStatus.OVER.value, GameStatus.ABORTED.value)


def _outcomes(tables: Sequence[TableRow]) -> list[standings.TableOutcome]:
    return [
        standings.TableOutcome(
            round=table.round,
            seats=table.seats,
            closed=_closed(table),
            results=tuple(_seat_result(result) for result in table.results)
            if table.game_status == GameStatus.OVER.value
            else (),
        )
        for table in tables
    ]


def _seat_result(result: TableResultRow) -> standings.SeatResult:
    """A seat's result as the standings count it. A seat handed to a substitute counts for the
    person who left it as if they had resigned then, at the place the ratings give them (every
    seat's place is read so), with no score or dirhams: the seat's at the end are partly the
    substitute's making (docs/tournaments.md)."""
    if result.handed_over:
        return standings.SeatResult(result.user_id, result.place, 0, 0)
    return standings.SeatResult(result.user_id, result.place, result.score, result.dirhams)


def _table_view(table: TableRow) -> TableView:
    return TableView(
        round=table.round,
        number=table.table_no,
        seats=table.seats,
        thread_id=table.thread_id,
        game_id=table.game_id,
        game_status=GameStatus(table.game_status) if table.game_status is not None else None,
    )


def swiss_round(snapshot: TournamentSnapshot, round_no: int) -> list[pairing.Table]:
    """The tables of a Swiss tournament's round `round_no`: the seeding for the first, else a
    pairing of the standings after the rounds before, of the players who have not withdrawn
    (a pure function of the snapshot, run off the loop)."""
    row, tables = snapshot.row, snapshot.tables
    seeding = [entrant.user_id for entrant in snapshot.entrants]
    assert row.rounds is not None
    lines = standings.standings(seeding, _outcomes(tables), row.rounds)
    out = withdrawn(snapshot)
    ranked = [
        player
        for player in (standings.ranking(lines) if round_no > 1 else seeding)
        if player not in out
    ]
    seat_lists = [table.seats for table in tables]
    byes: dict[int, int] = {}
    for seats in seat_lists:
        if None in seats:
            for seat in seats:
                if seat is not None:
                    byes[seat] = byes.get(seat, 0) + 1
    return pairing.swiss_tables(ranked, row.seats, pairing.meetings(seat_lists), byes)


__all__ = ["Entrant", "Progress", "TableView", "TournamentService", "TournamentView"]
