"""WatchService: a member follows a running game of their server; a game of another server or
one not running is refused and changes nothing; each finished turn is told to a watcher who
asked once, whichever process looks (claimed in the database), several turns together when
they come at once or were held, and the AI's with the next turn a person plays; a finished
or stopped game's watchers go with its last message, those who asked for no message too
(untold), one held from it then once the gate lets it go."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.presentation import story
from bot.presentation.watch import finished_turns, news_text
from bot.services import GameService, GameStatus, GameView
from bot.services.errors import GameNotRunningError, NotWatchingError, OtherServerGameError
from bot.services.watch import WatchService
from bot.storage import Database
from bot.storage.watchers import WatchStore
from tests.bot.services.test_async_play import Table, human_vs_ai, play_turn, run_until_quiet
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_service import BOB, CAROL, HOST, play_out, service_on, started, step
from tests.polling import WAIT_SECONDS

GUILD = 9
WATCHER = 2001
SILENT = 2002
"""A second watcher, who never asks for direct messages."""
QUIET_ENDS = datetime(2026, 1, 1, 8, tzinfo=UTC)
"""When the watcher's quiet hours end, for a gate that holds them."""


def watch_of(service: GameService, database: Database) -> WatchService:
    return WatchService(service.loader, WatchStore(database))


async def watched_with_messages(
    database: Database,
) -> tuple[GameService, WatchService, GameView]:
    """A game of two people, watched by WATCHER with a direct message at each finished turn."""
    service = service_on(database)
    watch = watch_of(service, database)
    view = await started(service, (HOST, BOB))
    await watch.watch(GUILD, view.id, WATCHER)
    await watch.set_dms(GUILD, view.id, WATCHER, True)
    return service, watch, view


async def test_a_game_of_another_server_or_not_running_is_refused_and_changes_nothing(
    database: Database,
) -> None:
    service = service_on(database)
    watch = watch_of(service, database)
    view = await started(service, (HOST, BOB))
    with pytest.raises(OtherServerGameError):
        await watch.watch(GUILD + 1, view.id, WATCHER)
    with pytest.raises(OtherServerGameError):
        await watch.look(GUILD + 1, view.id, WATCHER)
    assert await WatchStore(database).get(view.id, WATCHER) is None
    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=778, host_id=CAROL, seats=2, variant="standard"
    )
    with pytest.raises(GameNotRunningError):
        await watch.watch(GUILD, lobby.id, WATCHER)
    with pytest.raises(NotWatchingError):
        await watch.set_dms(GUILD, view.id, WATCHER, True)
    with pytest.raises(NotWatchingError):
        await watch.unwatch(GUILD, view.id, WATCHER)
    await service.play.resign(view.id, HOST)  # a game that is over
    with pytest.raises(GameNotRunningError):
        await watch.watch(GUILD, view.id, WATCHER)
    assert await WatchStore(database).get(view.id, WATCHER) is None


async def test_each_finished_turn_is_told_once_whichever_process_looks(
    database: Database,
) -> None:
    service = service_on(database)
    read = 0
    both_read = asyncio.Event()

    async def gate(_user_id: int) -> datetime | None:
        """Between each process's read of who is behind and its claim: both read first."""
        nonlocal read
        read += 1
        if read == 2:
            both_read.set()
        await both_read.wait()
        return None

    watch = WatchService(service.loader, WatchStore(database), gate)
    other_process = WatchService(service_on(database).loader, WatchStore(database), gate)
    view = await started(service, (HOST, BOB))
    watched = await watch.watch(GUILD, view.id, WATCHER)
    assert watched.watcher is not None
    assert not watched.watcher.dms
    assert (await watch.watch(GUILD, view.id, WATCHER)).watcher == watched.watcher, "once"
    await watch.set_dms(GUILD, view.id, WATCHER, True)
    assert await watch.news(view) == [], "nothing happened since"

    while len(finished_turns(view)) < 1:
        view = await step(service, view)
    await other_process.start()
    assert await other_process.games_behind() == [], "no message shows this turn yet"
    async with asyncio.timeout(WAIT_SECONDS):  # each process reads it due, or this fails
        here, there = await asyncio.gather(watch.news(view), other_process.news(view))
    told = [(news.user_id, news.told_seq) for news in here + there]
    assert len(told) == 1, f"both read it was due, one process claimed it: {told}"
    (news,) = here + there
    assert (news.user_id, news.told_seq) == (WATCHER, watched.game.seq)
    assert await watch.news(view) == []
    assert await other_process.news(view) == [], "claimed once, in the database"
    text = news_text(news, {})
    assert story.turn_line(view, 1) in text


async def test_held_turns_come_together_in_the_next_message_that_may_go(
    database: Database,
) -> None:
    service = service_on(database)
    held = True

    async def gate(_user_id: int) -> datetime | None:
        return QUIET_ENDS if held else None

    watch = WatchService(service.loader, WatchStore(database), gate)
    view = await started(service, (HOST, BOB))
    first = await watch.watch(GUILD, view.id, WATCHER)
    await watch.set_dms(GUILD, view.id, WATCHER, True)
    lines: dict[int, str] = {}
    while len(finished_turns(view)) < 3:
        view = await step(service, view)
        turns = finished_turns(view)
        if turns:
            lines[turns[-1]] = story.turn_line(view, turns[-1])
        assert await watch.news(view) == [], "held"
    held = False
    (news,) = await watch.news(view)
    assert news.told_seq == first.game.seq
    text = news_text(news, lines)
    for turn in (1, 2, 3):
        assert lines[turn] in text, turn
    assert text.index(lines[1]) < text.index(lines[2]) < text.index(lines[3])


async def test_the_ai_s_turns_are_told_with_the_next_turn_a_person_plays(table: Table) -> None:
    """Nothing is told while the AI is to move: its turn comes in the same message as the
    person's turn before it, once the person is to move again (not one message per turn)."""
    watch = watch_of(table.service, table.database)
    view = await human_vs_ai(table, "easy")
    await watch.watch(GUILD, view.id, WATCHER)
    await watch.set_dms(GUILD, view.id, WATCHER, True)
    if view.user_to_move != HOST:  # the AI opens: its turn is told as the host is to move
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
        await watch.news(view)
    told_before = view.seq
    view = await play_turn(table, view, HOST)
    assert view.ai_to_move
    hosts_turn = finished_turns(view)[-1]
    lines = {hosts_turn: story.turn_line(view, hosts_turn)}
    assert await watch.news(view) == [], "the AI is to move: its turn comes with the next"
    await run_until_quiet(table)
    view = await table.service.play.look(view.id)
    assert view.user_to_move == HOST
    (news,) = await watch.news(view)
    assert news.told_seq == told_before
    text = news_text(news, lines)
    assert lines[hosts_turn] in text, text
    assert f"· turn {hosts_turn + 1}**" in text, text


async def test_the_end_is_told_and_the_watchers_go(database: Database) -> None:
    service, watch, view = await watched_with_messages(database)
    over = await play_out(service, view)
    assert over.status is GameStatus.OVER
    (news,) = await watch.news(over)
    assert "is over" in news_text(news, {})
    assert await WatchStore(database).get(view.id, WATCHER) is None
    with pytest.raises(GameNotRunningError):
        await watch.watch(GUILD, view.id, WATCHER)
    assert (await watch.look(GUILD, view.id, WATCHER)).watcher is None


async def test_the_end_is_told_only_to_the_watchers_who_asked_for_messages(
    database: Database,
) -> None:
    """A watcher without direct messages was promised "No message comes to you but this
    one.": the end another watcher is told does not reach them."""
    service, watch, view = await watched_with_messages(database)
    await watch.watch(GUILD, view.id, SILENT)
    over = await play_out(service, view)
    assert over.status is GameStatus.OVER
    told = await watch.news(over)
    assert [news.user_id for news in told] == [WATCHER]


async def ended(service: GameService, view: GameView, end: str) -> GameView:
    """The game played out to its result ("finished") or aborted by its host ("stopped")."""
    if end == "finished":
        over = await play_out(service, view)
        assert over.status is GameStatus.OVER
        return over
    return await service.play.abort(view.id, HOST)


@pytest.mark.parametrize("end", ["finished", "stopped"])
async def test_a_game_s_end_ends_the_watches_of_those_who_asked_for_no_messages_too(
    database: Database, end: str
) -> None:
    """Watchers go with the game whether they asked for direct messages or not: none is kept
    for a game that will never run again."""
    service = service_on(database)
    watch = watch_of(service, database)
    view = await started(service, (HOST, BOB))
    await watch.watch(GUILD, view.id, SILENT)
    last = await ended(service, view, end)
    assert await watch.news(last) == [], "no message asked for, none sent"
    assert await WatchStore(database).get(view.id, SILENT) is None, "the watch is over"


async def test_a_restarted_process_ends_the_watches_without_messages_of_a_game_that_ends(
    database: Database,
) -> None:
    """The process that tells the end learnt at its start of the watchers it did not see
    come, those without direct messages too."""
    service = service_on(database)
    view = await started(service, (HOST, BOB))
    await watch_of(service, database).watch(GUILD, view.id, SILENT)
    restarted = watch_of(service_on(database), database)
    await restarted.start()
    over = await play_out(service, view)
    assert await restarted.news(over) == []
    assert await WatchStore(database).get(view.id, SILENT) is None, "the watch is over"


async def test_a_game_stopped_before_its_end_cannot_be_watched(database: Database) -> None:
    """An aborted game is refused as a game that is over is: no watch is stored, and a watcher
    kept from before cannot ask for messages of it."""
    service = service_on(database)
    watch = watch_of(service, database)
    view = await started(service, (HOST, BOB))
    await watch.watch(GUILD, view.id, WATCHER)
    await service.play.abort(view.id, HOST)
    with pytest.raises(GameNotRunningError):
        await watch.watch(GUILD, view.id, SILENT)
    assert await WatchStore(database).get(view.id, SILENT) is None
    with pytest.raises(GameNotRunningError):
        await watch.set_dms(GUILD, view.id, WATCHER, True)


async def test_a_game_s_end_held_for_two_watchers_is_told_as_each_one_s_quiet_hours_end(
    database: Database,
) -> None:
    """The game is shown to its watchers again when the first quiet hours end, not the last:
    the watcher who wakes first is told then, the other stays held until theirs end."""
    service = service_on(database)
    now = service.loader.now()
    ends = {WATCHER: now + timedelta(hours=1), SILENT: now + timedelta(hours=5)}
    held = set(ends)

    async def gate(user_id: int) -> datetime | None:
        return ends[user_id] if user_id in held else None

    watch = WatchService(service.loader, WatchStore(database), gate)
    view = await started(service, (HOST, BOB))
    for user in ends:
        await watch.watch(GUILD, view.id, user)
        await watch.set_dms(GUILD, view.id, user, True)
    over = await play_out(service, view)
    assert await watch.news(over) == [], "both held"
    assert watch.end_held(over.id) == timedelta(hours=1), "until the first hours end"
    held.discard(WATCHER)
    assert [news.user_id for news in await watch.news(over)] == [WATCHER]
    assert watch.end_held(over.id) == timedelta(hours=5), "the other is still held"
    assert await WatchStore(database).get(view.id, SILENT) is not None
    held.discard(SILENT)
    assert [news.user_id for news in await watch.news(over)] == [SILENT]
    assert watch.end_held(over.id) is None


async def test_a_game_s_end_held_in_quiet_hours_is_told_once_they_end(database: Database) -> None:
    """The end waits, and the watch with it, until the gate lets a message reach the watcher:
    the game stays watched, so the edge's next look at it tells them (docs/watching.md)."""
    service = service_on(database)
    held = True

    async def gate(_user_id: int) -> datetime | None:
        return QUIET_ENDS if held else None

    watch = WatchService(service.loader, WatchStore(database), gate)
    view = await started(service, (HOST, BOB))
    await watch.watch(GUILD, view.id, WATCHER)
    await watch.set_dms(GUILD, view.id, WATCHER, True)
    over = await play_out(service, view)
    assert await watch.news(over) == [], "held"
    assert watch.end_held(over.id) == QUIET_ENDS - service.loader.now(), "until they end"
    assert await WatchStore(database).get(view.id, WATCHER) is not None, "kept for its end"
    assert await watch.news(over) == [], "still held"
    held = False
    (news,) = await watch.news(over)
    told = news_text(news, {}).splitlines()
    assert told[-1] == f"Game #{view.id} is over; you no longer watch it.", told
    assert watch.end_held(over.id) is None
    assert await WatchStore(database).get(view.id, WATCHER) is None, "then the watch is over"
    assert await watch.news(over) == [], "told once"


async def test_a_restart_tells_what_the_game_s_message_shows_and_was_not_told(
    database: Database,
) -> None:
    service, _, view = await watched_with_messages(database)
    while len(finished_turns(view)) < 2:
        view = await step(service, view)
    await service.play.set_board_message(view.id, 4242, view.seq)  # shown; then the run died

    restarted = watch_of(service_on(database), database)
    await restarted.start()
    (behind,) = await restarted.games_behind()
    assert behind.seq == view.seq
    (news,) = await restarted.news(behind)
    assert news.user_id == WATCHER
    told = news_text(news, {})
    assert "· turn 1**" in told
    assert "· turn 2**" in told
    await restarted.start()
    assert await restarted.games_behind() == [], "told once"


async def test_a_game_stopped_by_a_process_unaware_of_the_watch_is_told_at_the_next_start(
    database: Database,
) -> None:
    """A process that started before the watch began stops the game (an abandoned game is
    anyone's due work): it knows no watcher of it, so it tells none, without a round trip.
    The stop moves no seq, yet the next start finds the game and tells the watcher, once."""
    _, _, view = await watched_with_messages(database)
    unaware = service_on(database)
    stopped = await unaware.play.abort(view.id, HOST)
    assert await watch_of(unaware, database).news(stopped) == [], "it knows of no watcher"

    restarted = watch_of(service_on(database), database)
    await restarted.start()
    (behind,) = await restarted.games_behind()
    assert behind.status is GameStatus.ABORTED
    (news,) = await restarted.news(behind)
    assert news.user_id == WATCHER
    told = news_text(news, {}).splitlines()
    assert told[-1] == f"Game #{view.id} was stopped before its end; you no longer watch it."
    assert await WatchStore(database).get(view.id, WATCHER) is None, "the watch is over"
    await restarted.start()
    assert await restarted.games_behind() == [], "told once"


async def test_a_watcher_s_messages_are_in_the_language_they_asked_for_them_in(
    database: Database,
) -> None:
    """An English-speaking member watches a French game: their direct messages are in
    English, the language of their click; a watcher kept without one gets the game's."""
    service = service_on(database)
    watch = watch_of(service, database)
    view = await started(service, (HOST, BOB))
    assert view.game.locale == "en"
    await watch.watch(GUILD, view.id, WATCHER, "uk")
    await watch.set_dms(GUILD, view.id, WATCHER, True, "uk")
    while len(finished_turns(view)) < 1:
        view = await step(service, view)
    (news,) = await watch.news(view)
    assert news.locale == "uk"
    assert news_text(news, {}).startswith("Гра №"), news_text(news, {})
