"""Ratings through the services on a real database (each back end): which games count and how
(2 to 4 seats, resignations, AI levels, a seat the AI plays for a person), which never count
(aborted, abandoned, casual), the result that carries each seat's change, the place after a
shared one as the stats show it, a rebuild giving the very same numbers as applying games one by
one, games ending at once in two processes, and the catch-up of games whose ratings were not
applied when they ended: the game then has them in every process's memory, and its result,
posted without them, is to be shown again."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from bot.presentation import community
from bot.services import EndReason, GameService, GameStatus, GameView
from bot.services.rating_model import PROVISIONAL_GAMES, START, rate
from bot.services.ratings import RatingService, fold, rated_in
from bot.services.stats import StatsService
from bot.services.views import Player, RatedResult, RatingChange
from bot.storage import Database, GameRow, open_database
from bot.storage.database import DatabaseUnavailableError
from bot.storage.ratings import (
    AiRecord,
    ChangeRow,
    RatedGame,
    RatedSeat,
    RatingRow,
    RatingStore,
)
from bot.storage.stats import StatsStore
from tests.bot.services.test_async_play import (
    BOB,
    CAROL,
    GUILD,
    HOST,
    LIMIT,
    Table,
    human_vs_ai,
    play_turn,
    run_until_quiet,
    two_humans,
)
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_pause import time_out_three_times
from tests.bot.services.test_service import play_out, service_on, step

DAVE = 1004
OTHER_GUILD = 10


async def tables(database: Database) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """Every row of the ratings' tables, in a fixed order (to compare two states exactly)."""
    queries = {
        "rating_guilds": "SELECT guild_id, games, applied FROM rating_guilds ORDER BY guild_id",
        "rated_games": "SELECT guild_id, number, game_id FROM rated_games "
        "ORDER BY guild_id, number",
        "ratings": "SELECT guild_id, user_id, ai_level, mu, sigma, games FROM ratings "
        "ORDER BY guild_id, user_id, ai_level",
        "rating_changes": "SELECT game_id, seat, guild_id, number, user_id, ai_level, place, "
        "mu_before, sigma_before, mu_after, sigma_after, games FROM rating_changes "
        "ORDER BY game_id, seat",
    }
    found: list[tuple[str, list[tuple[Any, ...]]]] = []
    async with database.reading() as conn:
        for name, query in queries.items():
            found.append(
                (
                    name,
                    [tuple(cast(Iterable[Any], row)) for row in await conn.fetch(query)],
                )
            )
    return found


async def opened(
    service: GameService,
    users: tuple[int, ...],
    *,
    channel: int,
    guild: int = GUILD,
    ais: tuple[str, ...] = (),
    casual: bool = False,
) -> GameView:
    """A started game of `users` (the first hosts) and AI seats of `ais`."""
    view = await service.lobby.create_lobby(
        guild_id=guild,
        channel_id=channel,
        host_id=users[0],
        seats=len(users) + len(ais),
        casual=casual,
    )
    for user in users[1:]:
        await service.lobby.join(view.id, user)
    for level in ais:
        await service.lobby.add_ai(view.id, users[0], level)
    return await service.lobby.start(view.id, users[0])


async def resign_all_but(service: GameService, view: GameView, keeper: int) -> GameView:
    """Everyone but `keeper` resigns, in seat order: the game ends with `keeper` first and the
    others ranked by when they went out (the last out second)."""
    for player in sorted(view.players, key=lambda p: p.seat or 0):
        if player.user_id not in (None, keeper) and view.status is GameStatus.RUNNING:
            view = await service.play.resign(view.id, player.user_id)
    return view


# --- the model and the fold ------------------------------------------------------------------


def test_a_newcomer_starts_at_1500_and_places_order_the_changes() -> None:
    assert START.points == 1500
    four = rate([START] * 4, [1, 2, 3, 4])
    assert four[0].mu > four[1].mu > four[2].mu > four[3].mu
    assert four[0].points > 1500 > four[3].points
    two = rate([START, START], [1, 2])
    assert two[0].mu - 25 == pytest.approx(25 - two[1].mu), "a 2-player game moves both alike"
    assert rate([START, START], [1, 2]) == two, "the same game gives the same numbers"


def test_tied_seats_move_alike_and_as_the_orders_they_tie_between() -> None:
    tied_first = rate([START] * 4, [1, 1, 2, 3])
    strict = rate([START] * 4, [1, 2, 3, 4])
    assert tied_first[0] == tied_first[1]
    assert tied_first[0].mu == pytest.approx((strict[0].mu + strict[1].mu) / 2)
    assert tied_first[2].mu < tied_first[0].mu, "a lone second gains less than tied winners"
    assert tied_first[3].mu == pytest.approx(strict[3].mu)
    everyone = rate([START] * 3, [1, 1, 1])
    assert [skill.mu for skill in everyone] == pytest.approx([25.0] * 3)
    assert everyone[0].sigma < START.sigma, "a tie still tells the model something"


def test_a_rated_game_needs_two_entries_with_places() -> None:
    with pytest.raises(ValueError, match="two entries or more"):
        rate([START], [1])
    with pytest.raises(ValueError, match="each with its place"):
        rate([START, START], [1])


def test_an_ai_level_seated_twice_takes_the_mean_and_one_game() -> None:
    """Easy sits first and last, so its two seats end with different ratings, both their
    means and their spreads (sigma): the level takes the mean of each, and counts one game."""
    game = RatedGame(
        1,
        50,
        (
            RatedSeat(0, None, "easy", 1),
            RatedSeat(1, HOST, None, 2),
            RatedSeat(2, BOB, None, 3),
            RatedSeat(3, None, "easy", 4),
        ),
    )
    changes, ratings = fold((), [game])
    easy = next(row for row in ratings if row.ai_level == "easy")
    seats = rate([START] * 4, [1, 2, 3, 4])
    assert easy.games == 1
    assert easy.mu == pytest.approx((seats[0].mu + seats[3].mu) / 2)
    assert seats[0].sigma != pytest.approx(seats[3].sigma), "the two seats' spreads differ"
    assert easy.sigma == pytest.approx((seats[0].sigma + seats[3].sigma) / 2)
    assert [(c.seat, c.mu_after) for c in changes if c.ai_level] == [(0, easy.mu), (3, easy.mu)]
    assert [c.mu_before for c in changes] == [START.mu] * 4


def test_the_fold_starts_from_the_ratings_it_is_given() -> None:
    known = RatingRow(HOST, None, 30.0, 3.0, 20)
    game = RatedGame(21, 7, (RatedSeat(0, HOST, None, 2), RatedSeat(1, BOB, None, 1)))
    changes, ratings = fold([known], [game])
    host = next(row for row in ratings if row.user_id == HOST)
    assert (changes[0].mu_before, changes[0].sigma_before, host.games) == (30.0, 3.0, 21)
    assert host.mu < 30.0
    assert next(row for row in ratings if row.user_id == BOB).games == 1


def game_row(guild_id: int | None, *, casual: bool = False) -> GameRow:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return GameRow(
        1, guild_id, 2, HOST, GameStatus.OVER, 2, "standard", None, None, "s", "h", 0, None,
        None, None, None, None, moment, moment, casual=casual,
    )  # fmt: skip


def test_which_games_are_rated() -> None:
    people = (Player(HOST, 0), Player(None, 1, "easy"))
    machines = (Player(None, 0, "easy"), Player(None, 1, "hard"))
    assert rated_in(game_row(GUILD), people) == GUILD
    assert rated_in(game_row(GUILD, casual=True), people) is None
    assert rated_in(game_row(None), people) is None, "outside a server"
    assert rated_in(game_row(GUILD), machines) is None, "no person in it"


# --- games that count ------------------------------------------------------------------------


async def test_a_two_player_resignation_rates_both_and_the_result_shows_it(
    database: Database,
) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=1)
    over = await service.play.resign(view.id, BOB)
    assert over.status is GameStatus.OVER
    changes = {change.user_id: change for change in over.ratings}
    assert (changes[HOST].before, changes[BOB].before) == (1500, 1500)
    assert changes[HOST].after > 1500 > changes[BOB].after
    assert changes[HOST].provisional
    assert changes[BOB].provisional
    assert (await service.play.look(view.id)).ratings == over.ratings
    service.loader.forget(view.id)
    assert (await service.play.look(view.id)).ratings == over.ratings, "read back from storage"
    mine = await service.ratings.player(GUILD, HOST)
    assert (mine.points, mine.games, mine.provisional) == (changes[HOST].after, 1, True)
    assert mine.history == (1500, changes[HOST].after)
    assert mine.best == mine.worst
    assert mine.best is not None
    assert (mine.best.game_id, mine.best.place, mine.best.seats) == (view.id, 1, 2)


async def test_a_rating_is_provisional_until_its_tenth_game_and_keeps_its_best_and_worst(
    database: Database,
) -> None:
    service = service_on(database)
    for played in range(1, PROVISIONAL_GAMES + 1):
        view = await opened(service, (HOST, BOB), channel=100 + played)
        over = await service.play.resign(view.id, BOB if played % 2 else HOST)
        (change,) = [change for change in over.ratings if change.user_id == HOST]
        mine = await service.ratings.player(GUILD, HOST)
        provisional = played < PROVISIONAL_GAMES
        assert (mine.games, mine.provisional, change.provisional) == (
            played,
            provisional,
            provisional,
        )
    assert mine.best is not None
    assert mine.worst is not None
    assert mine.best.change > 0 > mine.worst.change, "a win at best, a loss at worst"
    assert mine.best.place == 1
    assert mine.worst.place == 2


class _RatedGames:
    """The ratings' store of a member whose rated games are `games`: each one's points before
    and after (sigma 0, so the points are 1500 + 25 mu), its place and its number of seats."""

    def __init__(self, games: list[tuple[int, int, int, int]]) -> None:
        self._history = [
            (
                ChangeRow(
                    game_id=20 + number,
                    seat=0,
                    number=number,
                    user_id=HOST,
                    ai_level=None,
                    place=place,
                    mu_before=(before - 1500) / 25,
                    sigma_before=0.0,
                    mu_after=(after - 1500) / 25,
                    sigma_after=0.0,
                    games=number,
                ),
                seats,
            )
            for number, (before, after, place, seats) in enumerate(games, start=1)
        ]

    async def rating(self, guild_id: int, user_id: int) -> RatingRow:
        last = self._history[-1][0]
        return RatingRow(user_id, None, last.mu_after, last.sigma_after, last.games)

    async def history(self, guild_id: int, user_id: int) -> list[tuple[ChangeRow, int]]:
        return self._history

    async def ai_records(self, guild_id: int, user_id: int) -> list[AiRecord]:
        return []


async def test_the_best_result_is_the_largest_gain_and_the_worst_the_largest_loss() -> None:
    """The stats' best result is the game that raised the rating most, whatever its place (a
    second place among four strong players can give more than a win), and the worst the game
    that lowered it most (a second place of three can cost more than a last of four)."""
    games = [
        (1500, 1530, 1, 2),  # a win: +30
        (1530, 1580, 2, 4),  # second of four: +50, the largest gain
        (1580, 1540, 2, 3),  # second of three: -40, the largest loss
        (1540, 1535, 4, 4),  # last of four: -5
    ]
    service = RatingService(cast(RatingStore, _RatedGames(games)))
    mine = await service.player(GUILD, HOST)
    assert mine.history == (1500, 1530, 1580, 1540, 1535)
    assert mine.best == RatedResult(22, 2, 4, 50)
    assert mine.worst == RatedResult(23, 2, 3, -40)
    shown = community.rating_lines(mine, "en")
    assert "Best result: **+50** in game #22 (place 2 of 4)" in shown
    assert "Worst result: **\u221240** in game #23 (place 2 of 3)" in shown


SHARED_FIRST = f"{0x10B:032x}"
"""A seed whose game of three people, played out by `play_out`, ends with two seats sharing
first place."""


async def test_a_place_after_a_shared_first_reads_in_the_stats_as_counting_both_above(
    database: Database,
) -> None:
    service = service_on(database, SHARED_FIRST)
    view = await play_out(service, await opened(service, (HOST, BOB, CAROL), channel=1))
    assert view.state is not None
    assert view.state.outcome is not None
    first, (third_seat,) = view.state.outcome.ranking
    assert len(first) == 2, "the seed's game ends with first place shared"
    third = view.user_at(third_seat)
    assert third is not None
    mine = await service.ratings.player(GUILD, third)
    assert mine.worst is not None
    assert (mine.worst.place, mine.worst.seats) == (3, 3), "third, as the final message says"
    summary = await StatsService(StatsStore(database)).player(GUILD, third)
    shown = community.stats_post(summary, mine, "en").post.embed.description or ""
    assert f"in game #{view.id} (place 3 of 3)" in shown


async def test_a_result_against_the_ai_reads_in_the_stats_with_the_ai_s_seat_counted(
    database: Database,
) -> None:
    """The stats' "place P of N" counts the seats the final message ranks, AI seats too."""
    service = service_on(database)
    view = await opened(service, (HOST,), channel=1, ais=("easy",))
    over = await service.play.resign(view.id, HOST)
    assert over.status is GameStatus.OVER
    assert len(over.players) == 2, "the final message ranks two seats"
    mine = await service.ratings.player(GUILD, HOST)
    assert mine.worst is not None
    assert (mine.worst.place, mine.worst.seats) == (2, 2)
    summary = await StatsService(StatsStore(database)).player(GUILD, HOST)
    shown = community.stats_post(summary, mine, "en").post.embed.description or ""
    assert f"in game #{view.id} (place 2 of 2)" in shown


async def test_three_and_four_seats_with_eliminations_count_the_places_they_gave(
    database: Database,
) -> None:
    service = service_on(database)
    three = await opened(service, (HOST, BOB, CAROL), channel=1)
    three = await resign_all_but(service, three, HOST)
    places = {change.user_id: change for change in three.ratings}
    out_first = next(
        p.user_id for p in sorted(three.players, key=lambda p: p.seat or 0) if p.user_id != HOST
    )
    out_last = ({BOB, CAROL} - {out_first}).pop()
    assert places[HOST].after > places[out_last].after > places[out_first].after, (
        "the last one out placed second"
    )
    four = await opened(service, (HOST, BOB, CAROL, DAVE), channel=2)
    four = await play_out(service, four)
    assert four.status is GameStatus.OVER
    assert len(four.ratings) == 4
    assert {change.before for change in four.ratings if change.user_id == DAVE} == {1500}
    state = four.state
    assert state is not None
    assert state.outcome is not None
    winners = set(state.outcome.ranking[0])
    best = max(four.ratings, key=lambda change: change.change)
    assert best.seat in winners


async def test_ai_levels_are_rated_as_reference_players(database: Database) -> None:
    service = service_on(database)
    easy = await opened(service, (HOST,), channel=1, ais=("easy",))
    over = await service.play.resign(easy.id, HOST)
    assert over.status is GameStatus.OVER
    assert {change.ai_level for change in over.ratings} == {None, "easy"}
    medium = await opened(service, (HOST, BOB), channel=2, ais=("medium",))
    over = await resign_all_but(service, medium, 0)  # the AI is the last one in
    assert over.status is GameStatus.OVER
    assert {change.ai_level for change in over.ratings} == {None, "medium"}
    hard = await opened(service, (HOST,), channel=3, ais=("hard",))
    assert (await service.play.resign(hard.id, HOST)).status is GameStatus.OVER
    board = await service.ratings.leaderboard(GUILD)
    assert {player.user_id for player in board.players} == {HOST, BOB}
    levels = [(ref.ai_level, ref.games) for ref in board.references]
    assert levels == [("easy", 1), ("medium", 1), ("hard", 1)], "from the weakest level up"
    assert all(ref.points > 1500 for ref in board.references)
    mine = await service.ratings.player(GUILD, HOST)
    assert [(r.level, r.wins, r.ties, r.losses) for r in mine.against_ai] == [
        ("easy", 0, 0, 1),
        ("medium", 0, 0, 1),
        ("hard", 0, 0, 1),
    ]


async def test_an_ai_level_s_rating_on_a_server_goes_on_from_game_to_game(
    database: Database,
) -> None:
    """A level's reference rating is built over every game it plays on the server: each game
    starts it where the one before left it, and a rebuild gives the same numbers. A level rated
    afresh at each game would stay a newcomer, no reference to measure against."""
    service = service_on(database)
    easy: list[RatingChange] = []
    for channel in (1, 2):
        game = await opened(service, (HOST,), channel=channel, ais=("easy",))
        over = await service.play.resign(game.id, HOST)
        easy += [change for change in over.ratings if change.ai_level == "easy"]
    first, second = easy
    assert second.before == first.after, "the second game starts where the first left it"
    board = await service.ratings.leaderboard(GUILD)
    assert [(ref.ai_level, ref.games, ref.points) for ref in board.references] == [
        ("easy", 2, second.after)
    ]
    applied = await tables(database)
    await service.ratings.rebuild(GUILD)
    assert await tables(database) == applied


async def test_ratings_are_kept_per_server(database: Database) -> None:
    service = service_on(database)
    here = await opened(service, (HOST, BOB), channel=1)
    await service.play.resign(here.id, BOB)
    there = await opened(service, (HOST, BOB), channel=2, guild=OTHER_GUILD)
    await service.play.resign(there.id, HOST)
    assert (await service.ratings.player(GUILD, HOST)).points > 1500
    assert (await service.ratings.player(OTHER_GUILD, HOST)).points < 1500
    assert (await service.ratings.player(OTHER_GUILD, HOST)).games == 1


async def test_an_ai_level_s_rating_is_kept_per_server(database: Database) -> None:
    """A level's reference rating is the server's own: its first game on a server starts at
    1500, whatever it played elsewhere, and each server's footer counts only its own games."""
    service = service_on(database)
    there = await opened(service, (HOST,), channel=1, guild=OTHER_GUILD, ais=("easy",))
    there = await service.play.resign(there.id, HOST)
    (elsewhere,) = [change for change in there.ratings if change.ai_level == "easy"]
    here = await opened(service, (HOST,), channel=2, ais=("easy",))
    here = await service.play.resign(here.id, HOST)
    (change,) = [change for change in here.ratings if change.ai_level == "easy"]
    assert change.before == 1500, "the first easy game here starts from another server's easy"
    board = await service.ratings.leaderboard(GUILD)
    assert [(ref.ai_level, ref.games, ref.points) for ref in board.references] == [
        ("easy", 1, change.after)
    ]
    board = await service.ratings.leaderboard(OTHER_GUILD)
    assert [(ref.ai_level, ref.games, ref.points) for ref in board.references] == [
        ("easy", 1, elsewhere.after)
    ]


async def test_a_member_s_rating_history_and_best_and_worst_are_this_server_s_only(
    database: Database,
) -> None:
    """The stats' chart and best and worst results come from the server's own games: a win
    here and a loss on another server are each only where they were played."""
    service = service_on(database)
    here = await opened(service, (HOST, BOB), channel=1)
    here = await service.play.resign(here.id, BOB)
    there = await opened(service, (HOST, BOB), channel=2, guild=OTHER_GUILD)
    there = await service.play.resign(there.id, HOST)
    for guild, game in ((GUILD, here), (OTHER_GUILD, there)):
        mine = await service.ratings.player(guild, HOST)
        (change,) = [change for change in game.ratings if change.user_id == HOST]
        assert mine.history == (1500, change.after), guild
        assert mine.best is not None
        assert mine.worst is not None
        assert mine.best.game_id == mine.worst.game_id == game.id, guild


async def test_a_seat_handed_to_the_ai_after_timeouts_is_still_its_person_s(table: Table) -> None:
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    view = await time_out_three_times(table, view, sleeper)
    while view.status is GameStatus.RUNNING:
        if view.user_to_move == other:
            view = await play_turn(table, view, other)
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
    assert view.status is GameStatus.OVER
    assert {change.user_id for change in view.ratings} == {HOST, BOB}
    assert (await table.service.ratings.player(GUILD, sleeper)).games == 1
    stats = StatsService(StatsStore(table.database))
    assert (await stats.player(GUILD, sleeper)).games == 1, "and counts in their stats"


# --- games that never count ------------------------------------------------------------------


async def test_aborted_cancelled_and_casual_games_are_not_rated(database: Database) -> None:
    service = service_on(database)
    aborted = await opened(service, (HOST, BOB), channel=1)
    await step(service, aborted)
    assert (await service.play.abort(aborted.id, HOST)).status is GameStatus.ABORTED
    lobby = await service.lobby.create_lobby(guild_id=GUILD, channel_id=2, host_id=HOST, seats=2)
    await service.lobby.cancel(lobby.id, HOST)
    casual = await opened(service, (HOST, BOB), channel=3, casual=True)
    assert casual.game.casual
    over = await service.play.resign(casual.id, BOB)
    assert over.status is GameStatus.OVER
    assert over.ratings == ()
    rematch, _ = await service.lobby.rematch(casual.id, BOB)
    assert rematch.game.casual, "a rematch keeps the game casual"
    assert await service.ratings.leaderboard(GUILD) == dataclasses.replace(
        await service.ratings.leaderboard(GUILD), players=(), references=()
    )
    assert (await service.ratings.player(GUILD, HOST)).games == 0
    assert [row for name, row in await tables(database) if name != "ratings"] == [[], [], []]


async def test_an_abandoned_game_is_not_rated(table: Table) -> None:
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    view = await time_out_three_times(table, view, HOST)
    table.clock.advance(LIMIT)
    await table.scheduler.run_due()
    (abandoned,) = table.abandoned
    assert abandoned.view.game.end_reason is EndReason.ABANDONED
    assert abandoned.view.ratings == ()
    assert (await table.service.ratings.leaderboard(GUILD)).references == ()
    assert (await table.service.ratings.player(GUILD, HOST)).games == 0


async def test_a_rated_game_s_rematch_is_rated(database: Database) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=1)
    await service.play.resign(view.id, BOB)
    rematch, others = await service.lobby.rematch(view.id, HOST)
    assert not rematch.game.casual
    assert others == (BOB,)


# --- rebuild and concurrency -----------------------------------------------------------------


async def several_games(service: GameService) -> None:
    """Rated games of 2 and 3 seats (one played out), with AI seats, resignations, in two
    servers, and a casual one; the resigned ones end in the reverse of the order they began.
    (A game of people and AIs goes on while two seats are in, so the games with an AI end
    with the AI the last one in.)"""
    plans: list[tuple[tuple[int, ...], tuple[str, ...], int, int]] = [
        ((HOST, BOB), (), HOST, GUILD),
        ((BOB, CAROL, DAVE), (), CAROL, GUILD),
        ((HOST, CAROL), ("medium",), 0, GUILD),  # the AI is the last one in
        ((DAVE, HOST), ("easy",), 0, GUILD),
        ((HOST, BOB), (), BOB, OTHER_GUILD),
        ((CAROL, HOST, BOB), (), HOST, GUILD),
    ]
    views = [
        await opened(service, users, channel=channel, ais=ais, guild=guild)
        for channel, (users, ais, _, guild) in enumerate(plans, start=1)
    ]
    # they end in another order than they began: a rating follows the order games end in
    for view, (_, _, keeper, _) in reversed(list(zip(views, plans, strict=True))):
        await resign_all_but(service, view, keeper)
    played = await opened(service, (HOST, BOB, CAROL), channel=20)
    assert (await play_out(service, played)).ratings
    casual = await opened(service, (HOST, DAVE), channel=21, casual=True)
    await service.play.resign(casual.id, HOST)


async def test_a_rebuild_gives_exactly_the_numbers_applied_game_by_game(
    database: Database,
) -> None:
    service = service_on(database)
    await several_games(service)
    applied = await tables(database)
    assert dict(applied)["rating_guilds"] == [(GUILD, 6, 6), (OTHER_GUILD, 1, 1)]
    rebuilt = await service.ratings.rebuild()
    assert (rebuilt.guilds, rebuilt.games) == (2, 7)
    assert await tables(database) == applied
    async with database.transaction() as conn:  # ratings lost or damaged: a rebuild restores
        await conn.execute("DELETE FROM ratings WHERE guild_id = $1 AND user_id = $2", GUILD, HOST)
        await conn.execute(
            "UPDATE rating_changes SET mu_after = 0 WHERE guild_id = $1 AND user_id = $2",
            GUILD,
            BOB,
        )
    assert await tables(database) != applied
    await service.ratings.rebuild(GUILD)
    assert await tables(database) == applied


async def test_a_rebuild_gives_the_same_numbers_for_a_game_a_substitute_finished(
    database: Database,
) -> None:
    """Bob hands his seat to Dave, who plays it out: the game rates Bob as out when he left and
    the others at places other than those the game ended with. A rebuild rates every seat at
    those same rated places."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=700)
    for _ in range(6):
        view = await step(service, view)
    await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    view = await play_out(service, await service.play.look(view.id))
    assert view.status is GameStatus.OVER
    async with database.reading() as conn:
        places = await conn.fetch(
            "SELECT place, rated_place FROM results WHERE game_id = $1", view.id
        )
    assert any(row[1] is not None and row[1] != row[0] for row in places), (
        "some seat is rated at another place than it finished at"
    )
    applied = await tables(database)
    await service.ratings.rebuild()
    assert await tables(database) == applied


async def test_games_ending_at_once_in_two_processes_are_each_applied_once(
    database: Database, database_target: str
) -> None:
    other_database = await open_database(database_target)
    try:
        one, two = service_on(database), service_on(other_database)
        players = [
            (HOST, BOB),
            (CAROL, DAVE),
            (HOST, CAROL),
            (BOB, DAVE),
            (HOST, DAVE),
            (BOB, CAROL),
        ]
        views = []
        for channel, users in enumerate(players, start=1):
            views.append(await opened(one if channel % 2 else two, users, channel=channel))
        ended = await asyncio.gather(
            *(
                (one if index % 2 else two).play.resign(view.id, view.players[0].user_id or 0)
                for index, view in enumerate(views)
            )
        )
        assert all(view.status is GameStatus.OVER for view in ended)
        applied = dict(await tables(database))
        assert applied["rating_guilds"] == [(GUILD, 6, 6)]
        assert sorted(number for _, number, _ in applied["rated_games"]) == [1, 2, 3, 4, 5, 6]
        assert len(applied["rating_changes"]) == 12, "every seat of every game, once"
        for view in ended:  # each result shows its game as the ratings applied it
            stored = await one.ratings.of_game(view.id)
            assert view.ratings == stored
        before = await tables(database)
        await one.ratings.rebuild()
        assert await tables(database) == before, "applied in their order, as a rebuild does"
    finally:
        await other_database.close()


async def test_many_appliers_at_once_apply_each_game_once(
    database: Database, database_target: str
) -> None:
    service = service_on(database)
    for channel in range(1, 5):
        view = await opened(service, (HOST, BOB), channel=channel)
        await service.play.resign(view.id, BOB if channel % 2 else HOST)
    async with database.transaction() as conn:  # as if none of them had been applied yet
        await conn.execute("DELETE FROM rating_changes")
        await conn.execute("DELETE FROM ratings")
        await conn.execute("UPDATE rating_guilds SET applied = 0")
    others = [await open_database(database_target) for _ in range(3)]
    try:
        services = [RatingService(RatingStore(db)) for db in (database, *others)]
        applied = await asyncio.gather(*(s.apply_pending(GUILD) for s in services * 2))
        assert sum(applied) == 4, "each game applied by exactly one of them"
    finally:
        for db in others:
            await db.close()
    after = await tables(database)
    await service.ratings.rebuild()
    assert await tables(database) == after


# --- applied later ---------------------------------------------------------------------------


async def resigned_unrated(
    service: GameService,
    game_id: int,
    user: int,
    monkeypatch: pytest.MonkeyPatch,
    failure: Exception | None = None,
) -> GameView:
    """The game ended by `user`'s resignation while applying ratings failed (with `failure`,
    an unexpected error unless given): its end is kept, queued for the server's next game or a
    start to apply."""

    async def broken(*args: object) -> bool:
        raise failure or OSError("the database went away")

    with monkeypatch.context() as patched:
        patched.setattr(RatingStore, "apply", broken)
        return await service.play.resign(game_id, user)


async def test_a_game_whose_ratings_failed_is_applied_by_the_next_game_or_at_start(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = service_on(database)
    first = await opened(service, (HOST, BOB), channel=1)
    over = await resigned_unrated(service, first.id, BOB, monkeypatch)
    assert over.status is GameStatus.OVER, "the game's end is kept"
    assert over.ratings == ()
    assert dict(await tables(database))["rating_guilds"] == [(GUILD, 1, 0)]
    assert await service.ratings.catch_up() == 1
    assert await service.ratings.catch_up() == 0
    assert (await service.play.look(first.id)).ratings != ()

    second = await opened(service, (HOST, BOB), channel=2)
    await resigned_unrated(service, second.id, HOST, monkeypatch)
    third = await opened(service, (HOST, BOB), channel=3)
    over = await service.play.resign(third.id, HOST)
    assert over.ratings != (), "the next game of the server applies both, in order"
    assert dict(await tables(database))["rating_guilds"] == [(GUILD, 3, 3)]
    assert (await service.play.look(second.id)).ratings != ()


async def test_ratings_an_outage_holds_up_are_one_info_line_without_a_traceback(
    database: Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A game that ends as the database goes away (the turn clock's AI playing the last turn,
    a click) leaves its ratings for later: one INFO line saying they wait for the database,
    no traceback (the watch logs the outage itself)."""
    service = service_on(database)
    game = await opened(service, (HOST, BOB), channel=1)
    outage = DatabaseUnavailableError("the database is unavailable (disk I/O error)")
    with caplog.at_level(logging.INFO, logger="bot.services.ratings"):
        over = await resigned_unrated(service, game.id, BOB, monkeypatch, outage)
    assert over.status is GameStatus.OVER
    assert over.ratings == ()
    lines = [r for r in caplog.records if r.name == "bot.services.ratings"]
    assert [(r.levelno, r.exc_info) for r in lines] == [(logging.INFO, None)]
    assert f"game {game.id}: its ratings wait for the database" in lines[0].getMessage()


async def test_a_game_in_memory_without_its_ratings_has_them_once_another_process_applies_them(
    database: Database, database_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Applying failed as the game ended, and this process read the game since (its result's
    record, a look): it holds it in memory without ratings. Once the server's next game,
    ended in another process, applies them, the game as this process shows it has them."""
    other_database = await open_database(database_target)
    try:
        one, two = service_on(database), service_on(other_database)
        first = await opened(one, (HOST, BOB), channel=1)
        await resigned_unrated(one, first.id, BOB, monkeypatch)
        assert (await one.play.look(first.id)).ratings == ()
        second = await opened(two, (HOST, BOB), channel=2)
        await two.play.resign(second.id, HOST)
        applied = await one.ratings.of_game(first.id)
        assert applied != ()
        assert (await one.play.look(first.id)).ratings == applied
    finally:
        await other_database.close()


async def test_a_result_posted_without_its_ratings_is_shown_again_once_they_are_applied(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A result posted while its game's ratings were not applied has nothing to show again
    until they are; then its end reads as not shown (a start's catch-up edits it) until it is
    marked. A result posted with them is shown in full."""
    service = service_on(database)
    first = await opened(service, (HOST, BOB), channel=1)
    over = await resigned_unrated(service, first.id, BOB, monkeypatch)
    await service.play.set_board_message(first.id, 501, over.seq)  # its result, without them
    assert not await service.play.end_not_shown(first.id), "nothing more to show yet"
    second = await opened(service, (HOST, BOB), channel=2)
    over = await service.play.resign(second.id, HOST)
    await service.play.set_board_message(second.id, 502, over.seq, end_shown=True)

    assert await service.play.end_not_shown(first.id)
    assert [view.id for view in await service.play.behind_on_display()] == [first.id]
    assert not await service.play.end_not_shown(second.id), "posted with its ratings"
    assert await service.play.mark_end_shown(first.id)
    assert await service.play.behind_on_display() == []


async def test_the_catch_up_rates_games_queued_before_ratings_applied_them(
    database: Database,
) -> None:
    """At start the bot applies what is queued (games finished before ratings were kept, for
    one): the ratings are then those applying them one by one gives."""
    service = service_on(database)
    for channel in range(1, 4):
        view = await opened(service, (HOST, BOB, CAROL), channel=channel)
        await resign_all_but(service, view, (HOST, BOB, CAROL)[channel - 1])
    applied = await tables(database)
    async with database.transaction() as conn:
        await conn.execute("DELETE FROM rating_changes")
        await conn.execute("DELETE FROM ratings")
        await conn.execute("UPDATE rating_guilds SET applied = 0")
    assert await service.ratings.catch_up() == 3
    assert await tables(database) == applied


async def test_the_tenth_rated_game_settles_the_rating_on_the_leaderboard(
    database: Database,
) -> None:
    """After exactly PROVISIONAL_GAMES rated games a rating is no longer provisional, on the
    leaderboard as in the stats."""
    service = service_on(database)
    for played in range(1, PROVISIONAL_GAMES + 1):
        view = await opened(service, (HOST, BOB), channel=100 + played)
        await service.play.resign(view.id, BOB if played % 2 else HOST)
    board = await service.ratings.leaderboard(GUILD)
    assert [(p.user_id, p.games, p.provisional) for p in board.players] == [
        (p.user_id, PROVISIONAL_GAMES, False) for p in board.players
    ]
    assert len(board.players) == 2
