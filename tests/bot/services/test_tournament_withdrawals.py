"""Withdrawing from a running tournament through the service, on each back end: a player who
withdrew is paired in no later round (a Swiss round pairs the others, a round-robin gives their
seats to the `medium` AI and plays no table left without a person), their game still being
played is resigned for them, they keep their points and place, and a tournament left with fewer
than two players still in ends after its round. A withdrawal and a round's pairing in two
processes come one after the other: the player is in that round and resigned from its game,
or out of it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from bot.services import GameService, GameStatus, GameView, pairing
from bot.services.errors import WithdrawError
from bot.services.standings import SeatResult, TableOutcome, standings
from bot.services.tournament_views import TournamentStatus, TournamentView
from bot.services.tournaments import TournamentService
from bot.storage import Database, open_database
from bot.storage.database import Connection
from tests.bot.services.test_tournaments import (
    MOD,
    PLAYERS,
    end_by_resignations,
    opened,
    services,
    set_up,
)


async def play_round(
    games: GameService, tournaments: TournamentService, tournament_id: int
) -> TournamentView:
    """Set up the round's tables still to set up, end every game of it still being played
    (resignations), and move the tournament on after each: the tournament then."""
    await set_up(tournaments, tournament_id)
    view = await tournaments.look(tournament_id)
    for table in view.round_tables(view.current_round):
        if table.game_id is None or table.closed:
            continue
        game = await games.play.look(table.game_id)
        if game.status is GameStatus.RUNNING:
            await end_by_resignations(games, game)
        await tournaments.game_closed(table.game_id)
    return await tournaments.look(tournament_id)


def seat_of(game: GameView, user_id: int) -> int:
    seat = next(player.seat for player in game.players if player.user_id == user_id)
    assert seat is not None
    return seat


async def test_a_swiss_round_pairs_only_the_players_still_in_who_keep_their_points(
    database: Database,
) -> None:
    """Five at 2-seat tables over three rounds. A winner of round 1 withdraws in round 2: their
    running game is resigned for them (their opponent wins it), they keep the point of round 1
    and their place in the ranking, and round 3 pairs the four others, without a bye."""
    games, tournaments = services(database)
    view = await opened(tournaments)
    await tournaments.start(view.id, MOD, moderator=True)
    after_one = await play_round(games, tournaments, view.id)
    assert after_one.current_round == 2
    await set_up(tournaments, view.id)
    after_one = await tournaments.look(view.id)
    winner = next(
        line.user_id
        for line in after_one.standings
        if line.half_points == 2
        and any(
            line.user_id in table.humans and None not in table.seats
            for table in after_one.round_tables(2)
        )
    )
    (table,) = [t for t in after_one.round_tables(2) if winner in t.humans]
    assert table.game_id is not None

    withdrawal = await tournaments.withdraw(view.id, winner, by=winner)

    assert withdrawal.after == 2
    ((before, resigned),) = withdrawal.resigned
    assert before.id == resigned.id == table.game_id
    assert resigned.status is GameStatus.OVER, "a 2-seat game ends with its resignation"
    assert resigned.state is not None
    assert resigned.state.is_eliminated(seat_of(resigned, winner))
    line = next(line for line in withdrawal.view.standings if line.user_id == winner)
    assert (line.half_points, line.withdrew_after, line.left) == (2, 2, 0)
    await tournaments.game_closed(table.game_id)
    third = await play_round(games, tournaments, view.id)
    assert third.current_round == 3
    round_three = third.round_tables(3)
    assert [len(t.humans) for t in round_three] == [2, 2], "four players, no bye"
    assert winner not in {seat for t in round_three for seat in t.seats}
    withdrew = next(line for line in third.standings if line.user_id == winner)
    assert (withdrew.half_points, withdrew.withdrew_after) == (2, 2), "points kept"


def test_a_withdrawn_player_keeps_their_points_place_and_tie_breaks() -> None:
    """The standings of a round with and without a withdrawal differ only in the mark and the
    games left: the same points, Buchholz, score, dirhams and rank for everyone."""
    tables = [
        TableOutcome(1, (1, 2), True, (SeatResult(1, 1, 60, 20), SeatResult(2, 2, 50, 30))),
        TableOutcome(1, (3, 4), True, (SeatResult(3, 1, 70, 25), SeatResult(4, 2, 40, 10))),
        TableOutcome(2, (1, 3), False),
        TableOutcome(2, (2, 4), False),
    ]
    kept = standings([1, 2, 3, 4], tables, 3)
    marked = standings([1, 2, 3, 4], tables, 3, {3: 2})
    assert [replace(line, withdrew_after=None, left=0) for line in marked] == [
        replace(line, left=0) for line in kept
    ]
    (out,) = [line for line in marked if line.user_id == 3]
    assert (out.rank, out.withdrew_after, out.left) == (1, 2, 0)
    assert [line.left for line in marked if line.user_id != 3] == [2, 2, 2]


async def test_a_round_robin_gives_a_withdrawn_player_s_seats_to_the_medium_ai(
    database: Database,
) -> None:
    """Five at 2-seat tables, round-robin: a player withdraws in round 1. Every later round is
    its stored schedule, their seat at a table given to the `medium` AI and their bye's table,
    left without a person, not played."""
    games, tournaments = services(database)
    view = await opened(tournaments, format="round-robin", rounds=None)
    begun = await tournaments.start(view.id, MOD, moderator=True)
    out = begun.view.round_tables(1)[0].humans[0]
    await set_up(tournaments, view.id)
    await tournaments.withdraw(view.id, out, by=MOD)
    snapshot = await tournaments._store.snapshot(view.id, schedule=True)
    assert snapshot is not None
    assert snapshot.schedule is not None
    schedule = snapshot.schedule
    view = await play_round(games, tournaments, view.id)
    for round_no in range(2, len(schedule) + 1):
        assert view.current_round == round_no
        tables = [t.seats for t in view.round_tables(round_no)]
        assert tables == pairing.without(schedule[round_no - 1], {out})
        assert all(t.humans for t in view.round_tables(round_no)), "no table without a person"
        assert out not in {seat for seats in tables for seat in seats}
        met = [t for t in schedule[round_no - 1] if out in t and None not in t]
        if met:  # their opponent plays the AI in their seat
            (opponent,) = [seat for seat in met[0] if seat != out]
            games_of_round = await set_up(tournaments, view.id)
            (game,) = [g for g in games_of_round if opponent in [p.user_id for p in g.players]]
            assert [p.ai_level for p in game.players if p.user_id is None] == ["medium"]
        view = await play_round(games, tournaments, view.id)
    assert view.status is TournamentStatus.OVER


def test_a_round_without_the_withdrawn_seats_the_ai_and_drops_a_table_left_empty() -> None:
    tables = [(1, 2), (3, 4), (5, None)]
    assert pairing.without(tables, {2, 5}) == [(1, None), (3, 4)]
    assert pairing.without([(1, 2, 3), (4, 5, 6)], {4, 5, 6}) == [(1, 2, 3)]
    assert pairing.without(tables, ()) == tables


async def test_fewer_than_two_players_still_in_end_the_tournament_after_its_round(
    database: Database,
) -> None:
    """Three at 2-seat tables over three rounds; the two at the human table both withdraw in
    round 1: once the bye's game is over the tournament ends, final standings and winner, with
    no game left to anyone."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:3])
    begun = await tournaments.start(view.id, MOD, moderator=True)
    (pair,) = [t.humans for t in begun.view.round_tables(1) if None not in t.seats]
    await set_up(tournaments, view.id)
    for player in pair:
        withdrawal = await tournaments.withdraw(view.id, player, by=player)
        for _, game in withdrawal.resigned:
            assert game.status is GameStatus.OVER
            assert await tournaments.game_closed(game.id) is not None
    assert (await tournaments.look(view.id)).status is TournamentStatus.RUNNING
    (bye,) = [t for t in (await tournaments.look(view.id)).round_tables(1) if None in t.seats]
    assert bye.game_id is not None
    await end_by_resignations(games, await games.play.look(bye.game_id))
    progress = await tournaments.game_closed(bye.game_id)

    assert progress is not None
    assert progress.finished
    assert progress.paired is None
    final = await tournaments.look(view.id)
    assert final.status is TournamentStatus.OVER
    assert final.current_round == 1
    assert all(line.left == 0 for line in final.standings)
    assert final.winners


async def test_a_withdrawal_is_refused_where_it_cannot_be_and_changes_nothing(
    database: Database,
) -> None:
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:3])
    with pytest.raises(WithdrawError) as signing_up:
        await tournaments.withdraw(view.id, PLAYERS[0], by=PLAYERS[0])
    assert (signing_up.value.code, signing_up.value.own) == ("signing_up", True)
    await tournaments.start(view.id, MOD, moderator=True)
    with pytest.raises(WithdrawError) as stranger:
        await tournaments.withdraw(view.id, 42, by=MOD)
    assert (stranger.value.code, stranger.value.own) == ("not_player", False)
    await tournaments.withdraw(view.id, PLAYERS[0], by=PLAYERS[0])
    with pytest.raises(WithdrawError) as again:
        await tournaments.check_withdraw(view.id, PLAYERS[0], by=MOD)
    assert (again.value.code, again.value.own) == ("already", False)
    await tournaments.abort(view.id, MOD, moderator=True)
    with pytest.raises(WithdrawError) as over:
        await tournaments.withdraw(view.id, PLAYERS[1], by=PLAYERS[1])
    assert over.value.code == "over"
    lines = (await tournaments.look(view.id)).standings
    assert [line.user_id for line in lines if line.withdrew_after is not None] == [PLAYERS[0]]


@pytest.mark.parametrize("first", ["withdrawal", "pairing"])
async def test_a_withdrawal_while_another_process_pairs_the_next_round_is_in_it_or_out(
    database_target: str, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """Four at 2-seat tables. Round 1 over, one process pairs round 2 while a player withdraws
    in another. `withdrawal`: the withdrawal is written after the pairing read the tournament,
    before it wrote the round: the round is paired again, without the player. `pairing`: the
    round is written after the withdrawal read the tournament, before it wrote the withdrawal:
    the player withdrew after round 2, sits at its table, and is resigned from its game once
    the game is set up. Never paired in a round they withdrew before."""
    first_db = await open_database(database_target)
    second_db = await open_database(database_target)
    try:
        games, one = services(first_db, "one")
        _, two = services(second_db, "two")
        view = await opened(one, PLAYERS[:4])
        await one.start(view.id, MOD, moderator=True)
        await set_up(one, view.id)
        played = await one.look(view.id)
        for table in played.round_tables(1):
            assert table.game_id is not None
            await end_by_resignations(games, await games.play.look(table.game_id))
        leaving = PLAYERS[0]
        reader, writer = (first_db, second_db) if first == "withdrawal" else (second_db, first_db)
        read, written = asyncio.Event(), asyncio.Event()
        held, other = reader.transaction, writer.transaction

        @contextlib.asynccontextmanager
        async def once_the_other_wrote() -> AsyncIterator[Connection]:
            read.set()
            await written.wait()
            async with held() as conn:
                yield conn

        @contextlib.asynccontextmanager
        async def once_the_other_read() -> AsyncIterator[Connection]:
            await read.wait()
            try:
                async with other() as conn:
                    yield conn
            finally:
                written.set()

        monkeypatch.setattr(reader, "transaction", once_the_other_wrote)
        monkeypatch.setattr(writer, "transaction", once_the_other_read)
        game_id = played.round_tables(1)[0].game_id
        assert game_id is not None
        progress, withdrawal = await asyncio.gather(
            one.game_closed(game_id), two.withdraw(view.id, leaving, by=leaving)
        )
        monkeypatch.undo()
        assert progress is not None
        assert progress.paired == 2
        await set_up(one, view.id)
        now = await one.look(view.id)
        round_two = now.round_tables(2)
        seated = {seat for table in round_two for seat in table.humans}
        if first == "withdrawal":
            assert withdrawal.after == 1
            assert leaving not in seated
            assert sorted(seated) == sorted(PLAYERS[1:4])
        else:
            assert withdrawal.after == 2
            assert leaving in seated
            resigned = await one.resign_withdrawn(view.id)
            ((_, game),) = resigned
            assert game.state is not None
            assert game.state.is_eliminated(seat_of(game, leaving))
            assert await one.resign_withdrawn(view.id) == [], "resigned once"
        line = next(line for line in now.standings if line.user_id == leaving)
        assert line.withdrew_after == withdrawal.after
    finally:
        await first_db.close()
        await second_db.close()
