"""Promises of docs/tournaments.md held through the service on a real database (each back end)
and through the pure standings: the 64-player cap (two sign-ups at once for the last place
too), the default number of Swiss rounds at 3-seat tables, finished tournament games in the
stats, and an aborted game's players counting as having met, for Buchholz and for the pairing
of the next round."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from bot.services import pairing
from bot.services.errors import TournamentClosedError, TournamentFullError
from bot.services.standings import SeatResult, TableOutcome, standings
from bot.services.stats import StatsService
from bot.services.tournament_views import TournamentStatus, TournamentView
from bot.storage import Database, StatsStore, open_database
from bot.storage.database import Connection
from tests.bot.services.test_tournaments import (
    GUILD,
    MOD,
    PLAYERS,
    end_by_resignations,
    opened,
    services,
    set_up,
)
from tests.races import Race

DOCUMENTED_CAP = 64
"""The cap docs/tournaments.md states ("at most 64 players")."""


async def test_a_tournament_takes_at_most_64_players(database: Database) -> None:
    _, tournaments = services(database)
    players = tuple(range(6000, 6000 + DOCUMENTED_CAP))
    view = await opened(tournaments, players)
    assert len(view.entrants) == DOCUMENTED_CAP
    with pytest.raises(TournamentFullError):
        await tournaments.join(view.id, 7000, "one too many")
    await tournaments.leave(view.id, players[0])
    view = await tournaments.join(view.id, 7000, "a freed place")
    assert len(view.entrants) == DOCUMENTED_CAP


async def test_two_sign_ups_at_once_for_the_64th_place_take_it_once(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people press Sign up at the same moment for the last place: the first takes it, the
    other is told the tournament is full, and it holds 64 players."""
    _, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6000 + DOCUMENTED_CAP - 1)))
    race = Race()
    locks = tournaments._locks
    store = tournaments._store
    monkeypatch.setattr(locks, "holding", race.lock(locks.holding))
    monkeypatch.setattr(store, "join", race.write(store.join))
    results = await asyncio.gather(
        race.run(tournaments.join(view.id, 7000, "one")),
        race.run(tournaments.join(view.id, 7001, "other")),
        return_exceptions=True,
    )
    assert [type(result) for result in results] == [TournamentView, TournamentFullError], results
    entrants = (await tournaments.look(view.id)).entrants
    assert len(entrants) == DOCUMENTED_CAP
    assert 7001 not in [entrant.user_id for entrant in entrants]


async def test_two_sign_ups_for_the_64th_place_in_two_processes_take_it_once(
    database_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people press Sign up for the last place at the same moment, each click answered by
    another process (a database of its own each, no lock in common): the first is held in the
    write that signs it up until the other has read the tournament and comes to write. The
    other counts the first: it is told the tournament is full, and it holds 64 players."""
    first_db = await open_database(database_target)
    second_db = await open_database(database_target)
    try:
        _, one = services(first_db, "one")
        _, two = services(second_db, "two")
        view = await opened(one, tuple(range(6000, 6000 + DOCUMENTED_CAP - 1)))
        other_came, first_done = asyncio.Event(), asyncio.Event()
        first_writes, other_writes = first_db.transaction, second_db.transaction

        @contextlib.asynccontextmanager
        async def held_in_its_write() -> AsyncIterator[Connection]:
            async with first_writes() as conn:
                await other_came.wait()
                yield conn

        @contextlib.asynccontextmanager
        async def after_the_first() -> AsyncIterator[Connection]:
            other_came.set()
            await first_done.wait()
            async with other_writes() as conn:
                yield conn

        monkeypatch.setattr(first_db, "transaction", held_in_its_write)
        monkeypatch.setattr(second_db, "transaction", after_the_first)

        async def first() -> TournamentView:
            try:
                return await one.join(view.id, 7000, "one")
            finally:
                first_done.set()

        async def other() -> TournamentView:
            try:
                return await two.join(view.id, 7001, "other")
            finally:
                other_came.set()

        results = await asyncio.gather(first(), other(), return_exceptions=True)
        monkeypatch.undo()
        entrants = (await one.look(view.id)).entrants
    finally:
        await first_db.close()
        await second_db.close()
    assert [type(result) for result in results] == [TournamentView, TournamentFullError], results
    assert len(entrants) == DOCUMENTED_CAP
    assert 7001 not in [entrant.user_id for entrant in entrants]


@pytest.mark.parametrize("change", ["join", "leave"])
async def test_a_sign_up_change_while_another_process_starts_is_in_the_seeding_or_refused(
    database_target: str, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """A round-robin of three at 2-seat tables: Start pressed in one process, which reads the
    players, while a fourth joins (or one leaves) in another before the start is written. The
    start draws its seeding and schedule from the players signed up when it is written, so
    every player of the tournament sits at a table of round 1, and nobody else does."""
    first_db = await open_database(database_target)
    second_db = await open_database(database_target)
    late = PLAYERS[3]
    try:
        _, one = services(first_db, "one")
        _, two = services(second_db, "two")
        view = await opened(one, PLAYERS[:3], format="round-robin")
        start_read, changed = asyncio.Event(), asyncio.Event()
        start_writes, other_writes = first_db.transaction, second_db.transaction

        @contextlib.asynccontextmanager
        async def after_the_change() -> AsyncIterator[Connection]:
            start_read.set()
            await changed.wait()
            async with start_writes() as conn:
                yield conn

        @contextlib.asynccontextmanager
        async def once_the_start_read() -> AsyncIterator[Connection]:
            await start_read.wait()
            async with other_writes() as conn:
                yield conn

        monkeypatch.setattr(first_db, "transaction", after_the_change)
        monkeypatch.setattr(second_db, "transaction", once_the_start_read)

        async def sign_up_change() -> TournamentView:
            try:
                if change == "join":
                    return await two.join(view.id, late, "late")
                return await two.leave(view.id, PLAYERS[2])
            finally:
                changed.set()

        results = await asyncio.gather(
            one.start(view.id, MOD, moderator=True), sign_up_change(), return_exceptions=True
        )
        monkeypatch.undo()
        started = await one.look(view.id)
    finally:
        await first_db.close()
        await second_db.close()
    assert not any(isinstance(result, BaseException) for result in results), results
    entrants = {entrant.user_id for entrant in started.entrants}
    expected = {*PLAYERS[:3], late} if change == "join" else set(PLAYERS[:2])
    assert entrants == expected
    seated = [seat for table in started.round_tables(1) for seat in table.humans]
    assert sorted(seated) == sorted(entrants), started.round_tables(1)
    assert started.rounds == len(entrants) - 1 + len(entrants) % 2


@pytest.mark.parametrize(
    ("players", "rounds"), [(2, 1), (3, 1), (4, 2), (9, 2), (10, 3), (27, 3), (28, 4), (64, 4)]
)
def test_the_default_number_of_swiss_rounds_at_three_seats_is_log3(
    players: int, rounds: int
) -> None:
    assert pairing.swiss_rounds(players, 3) == rounds


async def test_a_swiss_tournament_at_three_seats_left_without_rounds_plays_log3_rounds(
    database: Database,
) -> None:
    _, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6010)), seats=3, rounds=None)
    await tournaments.start(view.id, MOD, moderator=True)
    assert (await tournaments.look(view.id)).rounds == 3, "10 players: log3(10) is 2.1"


def test_an_aborted_game_s_players_count_as_met_for_buchholz() -> None:
    a, b, c = 1, 2, 3
    aborted = TableOutcome(1, (a, b), closed=True)
    b_beats_c = TableOutcome(
        2, (b, c), closed=True, results=(SeatResult(b, 1, 40, 20), SeatResult(c, 2, 30, 10))
    )
    lines = {line.user_id: line for line in standings([a, b, c], [aborted, b_beats_c], 2)}
    assert lines[b].half_points == 2
    assert lines[a].half_buchholz == 2, "a met b in the aborted game: b's point counts"
    assert lines[a].half_points == 0


async def test_an_aborted_game_s_players_are_not_paired_again_when_others_can_be(
    database: Database,
) -> None:
    """Round 1 of six: the first table's game is aborted, the two others are played out. The
    standings then rank the aborted pair last and side by side, so a pairing that forgot they
    had met would seat them together again."""
    games, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6006)), rounds=2)
    await tournaments.start(view.id, MOD, moderator=True)
    aborted, *played = await set_up(tournaments, view.id)
    for game in played:
        await end_by_resignations(games, game)
        await tournaments.game_closed(game.id)
    await games.play.abort(aborted.id, MOD, moderator=True)
    progress = await tournaments.game_closed(aborted.id)
    assert progress is not None
    assert progress.paired == 2
    pair = {player.user_id for player in aborted.players}
    second_round = [set(t.seats) for t in progress.view.tables if t.round == 2]
    assert len(second_round) == 3
    assert pair not in second_round, "the aborted game's players have met"


async def test_finished_tournament_games_count_in_the_stats(database: Database) -> None:
    games, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6004)), rounds=2)
    await tournaments.start(view.id, MOD, moderator=True)
    first, _ = await set_up(tournaments, view.id)
    over = await end_by_resignations(games, first)
    stats = StatsService(StatsStore(database))
    for player in over.players:
        assert player.user_id is not None
        mine = await stats.player(GUILD, player.user_id)
        assert mine.games == 1
    assert sum([(await stats.player(GUILD, p.user_id or 0)).wins for p in over.players]) == 1


async def test_a_table_whose_tournament_is_aborted_while_it_is_set_up_gets_no_game(
    database: Database,
) -> None:
    """A table claimed and its thread made while the tournament runs, then the moderator ends
    the tournament before its game is created (making a thread and posting the welcome take
    Discord seconds): the abort ends every game of the tournament still being played, and
    starts none after it, so the table is refused its game and no game of the tournament
    runs."""
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:2], rounds=1)
    await tournaments.start(view.id, MOD, moderator=True)
    [table] = await tournaments.claim_tables(view.id)
    await tournaments.set_thread(view.id, table, 880001)
    [table] = (await tournaments.look(view.id)).round_tables(1)
    _, aborted = await tournaments.abort(view.id, MOD, moderator=True)
    assert aborted == []
    with pytest.raises(TournamentClosedError):
        await tournaments.start_table(view.id, table)
    after = await tournaments.look(view.id)
    assert after.status is TournamentStatus.ABORTED
    assert [t.game_id for t in after.tables] == [None]
