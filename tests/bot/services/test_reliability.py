"""A person's reliability on a server: the median time they take to play a turn of their own,
the share of their turns that ran out (the AI's moves for someone out of time counted for the
seat whose place in the order of play it was), and the games they left unfinished; read from
the log of their newest games (die rolls left out) in one round trip for a whole lobby, on each
back end."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from bot.presentation.reliability import duration_label, lobby_note, stats_line
from bot.services import GameService, GameStatus, GameView, StatsService
from bot.services.reliability import ENOUGH_TURNS, GAMES, Reliability, reliability_of
from bot.storage import Database, GameStore, StatsStore
from bot.storage.stats import LogEntry
from tests.bot.services.test_async_play import GUILD, ManualClock, Table, two_humans
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_pause import time_out_three_times
from tests.bot.services.test_service import BOB, HOST, choose
from tests.round_trips import counting

ME, YOU, THEY = 7, 8, 9
START = datetime(2026, 3, 1, 12, tzinfo=UTC)


def entry(
    minute: float,
    actor: int | None = None,
    ai_for: str | None = None,
    *,
    kind: str = "action",
    game: int = 1,
    user: int = ME,
    players: int = 2,
    resigned: bool = False,
    left_to_ai: bool = False,
) -> LogEntry:
    return LogEntry(
        user,
        game,
        0,
        players,
        resigned,
        left_to_ai,
        False,
        kind,
        actor,
        ai_for,
        START + timedelta(minutes=minute),
    )


def turn(
    minute: float, actor: int | None = None, ai_for: str | None = None, *, players: int = 2
) -> list[LogEntry]:
    """A turn's two decisions (the die left out), the first at once, the last at `minute`."""
    return [
        entry(minute, actor, ai_for, players=players),
        entry(minute, actor, ai_for, players=players),
    ]


def test_turns_are_timed_from_the_turn_before_and_timeouts_fall_on_the_person_s_seat() -> None:
    log = [
        *turn(0, ME),  # the game's first turn: no start, no time
        *turn(5),  # an AI seat
        *turn(35, ME),  # 30 minutes
        *turn(36),
        *turn(96, None, "timeout"),  # my place in the order: ran out
        *turn(97),
        *turn(107, ME),  # 10 minutes
        *turn(108),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (3, 1)
    assert mine.median_seconds == 20 * 60
    assert mine.ran_out_share == 0.25


def test_another_person_s_timeout_is_not_counted_for_me() -> None:
    log = [
        *turn(0, ME),
        *turn(60, None, "timeout"),  # YOU's place: YOU ran out
        *turn(61, ME),
        *turn(62, YOU),
        *turn(63, ME),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (3, 0)


def test_a_resignation_ends_the_resigner_s_turn_under_way() -> None:
    """A resignation after the first decision of one's turn ends that turn: a decision of
    theirs logged after it starts another turn rather than completing the one cut short."""
    log = [
        *turn(0, YOU),
        entry(10, ME),
        entry(11, ME, kind="resign"),
        entry(20, ME),
    ]
    (mine,) = reliability_of([ME], log)
    assert mine.played == 2
    assert mine.median_seconds == (10 + 9) / 2 * 60


def test_timeouts_of_a_game_i_played_no_turn_in_are_not_mine_when_others_played() -> None:
    """With no turn of my own to place me in the order of play, the game's timeouts may be
    anyone's: they count for me only when no one else played in it."""
    others_played = [
        *turn(0, YOU),
        *turn(60, None, "timeout"),
        *turn(61, YOU),
    ]
    no_one_else = [
        *turn(0, None, "timeout"),
        *turn(1),  # an AI seat
        *turn(60, None, "timeout"),
    ]
    (mine,) = reliability_of([ME], others_played)
    assert (mine.played, mine.ran_out) == (0, 0)
    (mine,) = reliability_of([ME], no_one_else)
    assert (mine.played, mine.ran_out) == (0, 2)


def test_a_resigned_player_leaves_the_order_of_play_for_my_timeouts() -> None:
    """Three players, one resigns: from then on my place comes back every two turns."""
    log = [
        *turn(0, ME, players=3),
        *turn(1, YOU, players=3),
        *turn(2, THEY, players=3),
        entry(3, THEY, kind="resign", players=3),
        *turn(4, ME, players=3),
        *turn(5, YOU, players=3),
        *turn(65, None, "timeout", players=3),  # my place: ran out
        *turn(66, YOU, players=3),
        *turn(67, ME, players=3),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (3, 1)


def test_a_later_resignation_does_not_move_the_timeouts_before_it() -> None:
    """Four players; YOU runs out of time on turns 2, 6 and 10, then a player resigns late: the
    order of play was four long until the resignation, so the timeouts before it are YOU's,
    never ME's, and ME's place comes back every three turns only after it."""
    log = [
        *turn(0, ME, players=4),
        *turn(1, None, "timeout", players=4),  # YOU
        *turn(2, THEY, players=4),
        *turn(3, 99, players=4),
    ] * 1
    for minute in (4, 8):
        log += [
            *turn(minute, ME, players=4),
            *turn(minute + 1, None, "timeout", players=4),  # YOU again
            *turn(minute + 2, THEY, players=4),
            *turn(minute + 3, 99, players=4),
        ]
    log += [
        *turn(12, ME, players=4),
        *turn(13, YOU, players=4),
        entry(14, 99, kind="resign", players=4),
        *turn(15, THEY, players=4),
        *turn(16, ME, players=4),
        *turn(17, YOU, players=4),
        *turn(18, THEY, players=4),
        *turn(19, ME, players=4),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (6, 0)
    you = [dataclasses.replace(e, user_id=YOU) for e in log]
    (yours,) = reliability_of([YOU], you)
    assert (yours.played, yours.ran_out) == (2, 3)


def test_a_turn_begun_then_left_to_the_clock_ran_out_for_the_one_who_began_it() -> None:
    """A click, then the AI finishing the turn for its player out of time, is one turn: it
    ran out for whoever clicked, and the turns after it keep their places."""
    log = [
        *turn(0, ME),
        entry(1, YOU),
        entry(60, None, "timeout"),  # YOU's turn, finished by the AI
        *turn(61, ME),
        *turn(62, None, "timeout"),  # YOU again
        *turn(63, ME),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (3, 0)
    (yours,) = reliability_of([YOU], [dataclasses.replace(e, user_id=YOU) for e in log])
    assert (yours.played, yours.ran_out) == (0, 2)


def test_a_turn_begun_then_left_to_the_clock_is_the_beginner_s_even_on_another_s_place() -> None:
    """THEY goes out of the game without resigning (no dirhams left), so the order of play is
    two long while the game still counts three players: YOU's begun turn then falls where ME's
    place would be, and still ran out for YOU alone."""
    log = [
        *turn(0, ME, players=3),
        *turn(1, YOU, players=3),
        *turn(2, THEY, players=3),  # THEY's last turn: out of the game, not resigned
        *turn(3, ME, players=3),
        *turn(4, YOU, players=3),
        *turn(5, ME, players=3),
        entry(6, YOU, players=3),  # three turns after ME's at 3 ...
        entry(60, None, "timeout", players=3),  # ... finished by the AI for YOU
        *turn(61, ME, players=3),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (4, 0)
    (yours,) = reliability_of([YOU], [dataclasses.replace(e, user_id=YOU) for e in log])
    assert (yours.played, yours.ran_out) == (2, 1)


def test_turns_the_ai_plays_in_a_seat_handed_to_it_count_as_neither_played_nor_run_out() -> None:
    """The turn that hands the seat to the AI ran out; the AI's later turns in the seat
    (`autoplay`) are no turn of the person's at all."""
    log = [
        *turn(0, ME),
        *turn(1, YOU),
        *turn(60, None, "handed-over"),  # my place: ran out, the AI keeps the seat
        *turn(61, YOU),
        *turn(61, None, "autoplay"),
        *turn(62, YOU),
        *turn(62, None, "autoplay"),
    ]
    (mine,) = reliability_of([ME], log)
    assert (mine.played, mine.ran_out) == (1, 1)
    assert mine.ran_out_share == 0.5


def test_games_left_unfinished_count_how_they_were_left() -> None:
    log = [
        entry(0, ME, game=1, resigned=True),
        entry(0, ME, game=2, left_to_ai=True),
        entry(0, ME, game=3),
    ]
    (mine,) = reliability_of([ME, YOU], log)[:1]
    assert (mine.resigned, mine.handed_to_ai, mine.substituted_away) == (1, 1, 0)
    assert mine.unfinished == 2


def test_the_lobby_says_how_fast_only_after_enough_turns() -> None:
    few = Reliability(ME, ENOUGH_TURNS - 1, 0, 3000.0, 0, 0, 0)
    assert lobby_note(few, "en") is None
    enough = Reliability(ME, ENOUGH_TURNS - 1, 1, 2 * 3600 - 1.0, 0, 0, 0)
    assert lobby_note(enough, "en") == "usually plays within 2 h · 10% of turns ran out"
    assert stats_line(few, "en") == (
        "**Reliability**: too few turns yet to say how fast (9 of 10) · 0% of turns ran out · "
        "no game left unfinished"
    )
    assert [duration_label(s, "en") for s in (20, 7 * 60, 23 * 60, 3600, 3 * 86400)] == [
        "1 min",
        "7 min",
        "25 min",
        "1 h",
        "3 days",
    ]


async def game_under_way(database: Database) -> tuple[GameService, GameView]:
    """A game of HOST and BOB on server 9, six turns in: HOST takes 10 min a turn, BOB 1."""
    clock = ManualClock()
    service = GameService(GameStore(database), clock=clock, seeds=lambda: "ab" * 16)
    view = await service.lobby.create_lobby(
        guild_id=9, channel_id=500, host_id=HOST, seats=2, variant="standard"
    )
    await service.lobby.join(view.id, BOB)
    view = await service.lobby.start(view.id, HOST)
    for _ in range(12):
        user = view.user_to_move
        assert user is not None
        clock.advance(300 if user == HOST else 30)
        view = await service.play.act(view.id, user, view.seq, choose(view))
    return service, view


async def test_a_lobby_s_people_are_read_in_one_round_trip(database: Database) -> None:
    await game_under_way(database)
    stats = StatsService(StatsStore(database))
    with counting(database) as trips:
        host, bob = await stats.reliability(9, [HOST, BOB])
    assert trips.count == 1
    assert host.played + bob.played == 6
    assert host.median_seconds == 600
    assert bob.median_seconds == 60
    assert (await stats.reliability(10, [HOST]))[0].turns == 0, "another server's games"


async def test_an_aborted_game_counts_for_no_one_s_reliability(database: Database) -> None:
    service, view = await game_under_way(database)
    stats = StatsService(StatsStore(database))
    host, _ = await stats.reliability(9, [HOST, BOB])
    assert host.played == 3, "a running game counts"
    await service.play.abort(view.id, HOST)
    host, bob = await stats.reliability(9, [HOST, BOB])
    assert (host.turns, bob.turns) == (0, 0), "an aborted game counts for no one"


async def test_a_game_counts_as_left_to_the_ai_only_once_it_ended_with_the_ai_in_the_seat(
    table: Table,
) -> None:
    """While the game runs, its person may still take the seat back (`rejoin`)."""
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    view = await time_out_three_times(table, view, sleeper)
    seat = view.player_at(view.seat_of(sleeper))
    assert seat is not None
    assert seat.autoplay, "the AI plays the seat"
    stats = StatsService(StatsStore(table.database))
    (running,) = await stats.reliability(GUILD, [sleeper])
    assert (running.handed_to_ai, running.unfinished) == (0, 0)
    assert (await table.service.play.resign(view.id, other)).status is GameStatus.OVER
    (over,) = await stats.reliability(GUILD, [sleeper])
    assert (over.handed_to_ai, over.unfinished) == (1, 1)


async def test_only_a_person_s_newest_games_of_the_server_are_read(database: Database) -> None:
    """GAMES of them: a game they resigned counts until that many newer games of theirs
    started on the server, then it is no longer read."""
    service = GameService(GameStore(database), clock=ManualClock(), seeds=lambda: "ab" * 16)
    stats = StatsService(StatsStore(database))

    async def new_game(channel_id: int) -> GameView:
        view = await service.lobby.create_lobby(
            guild_id=9, channel_id=channel_id, host_id=HOST, seats=2, variant="standard"
        )
        await service.lobby.join(view.id, BOB)
        return await service.lobby.start(view.id, HOST)

    resigned = await new_game(500)
    await service.play.resign(resigned.id, HOST)
    for channel_id in range(501, 500 + GAMES):
        await new_game(channel_id)
    (host,) = await stats.reliability(9, [HOST])
    assert host.resigned == 1, f"the oldest of the newest {GAMES}"
    await new_game(500 + GAMES)
    (host,) = await stats.reliability(9, [HOST])
    assert host.resigned == 0, f"no longer among the newest {GAMES}"


async def test_die_rolls_are_left_out_of_the_decisions_read(database: Database) -> None:
    _, view = await game_under_way(database)
    entries = await StatsStore(database).log_of_people(9, [HOST], GAMES)
    assert view.seq > 12, "the log holds the die rolls between the decisions"
    assert len(entries) == 12, "six turns of two decisions each, and nothing else"
    assert {entry.actor_id for entry in entries} == {HOST, BOB}, "no roll: those have no actor"


def test_one_night_s_sleep_does_not_make_a_fast_player_look_slow() -> None:
    log = [*turn(0, ME)]  # the game's first turn: no time
    minute = 0
    for step in range(ENOUGH_TURNS):
        minute += 1
        log += turn(minute)  # an AI seat
        minute += 600 if step == 0 else 10  # a night's sleep, then ten minutes a turn
        log += turn(minute, ME)
    (mine,) = reliability_of([ME], log)
    assert mine.played == ENOUGH_TURNS + 1
    assert mine.median_seconds == 10 * 60
    assert lobby_note(mine, "en") == "usually plays within 10 min"
