"""WatchStore on both back ends: a second Watch changes nothing, turning direct messages on
again keeps what is owed, the messages come in the language they were asked for in, a watcher
told up to a seq is not told again at it, and a watcher without direct messages is never among
those to tell nor claimed for a message, though their game is among those whose end ends a
watch."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.storage import Database, EndReason, GameStatus, GameStore
from bot.storage.watchers import Watcher, WatchStore
from tests.bot.storage.test_store_methods import started

T0 = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
T1 = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
WATCHER = 2001
QUIET = 2002


async def test_a_second_watch_changes_nothing_and_says_so(db: Database) -> None:
    """Watching a game already watched answers False and keeps the seq the watcher was told."""
    game_id = await started(GameStore(db), 10)
    watchers = WatchStore(db)
    assert await watchers.watch(game_id, WATCHER, 3, T0) is True
    assert await watchers.watch(game_id, WATCHER, 7, T1) is False
    assert await watchers.get(game_id, WATCHER) == Watcher(game_id, WATCHER, False, 3)


async def test_turning_direct_messages_on_again_keeps_the_turns_owed(db: Database) -> None:
    """Direct messages turned on start from the seq then; turning them on while on already
    keeps the seq told, so turns not yet sent are still owed."""
    game_id = await started(GameStore(db), 10)
    watchers = WatchStore(db)
    await watchers.watch(game_id, WATCHER, 1, T0)
    assert await watchers.set_dms(game_id, WATCHER, True, 4) is True
    assert await watchers.get(game_id, WATCHER) == Watcher(game_id, WATCHER, True, 4)
    assert await watchers.set_dms(game_id, WATCHER, True, 9) is True
    assert await watchers.get(game_id, WATCHER) == Watcher(game_id, WATCHER, True, 4)


async def test_direct_messages_come_in_the_language_the_watcher_asked_for_them_in(
    db: Database,
) -> None:
    """Message me each turn, pressed in another language than Watch was, replaces the
    language of the messages; turned off without one (Discord refusing a message, say), they
    keep it."""
    game_id = await started(GameStore(db), 10)
    watchers = WatchStore(db)
    await watchers.watch(game_id, WATCHER, 1, T0, "en")
    assert await watchers.set_dms(game_id, WATCHER, True, 2, "uk") is True
    assert await watchers.get(game_id, WATCHER) == Watcher(game_id, WATCHER, True, 2, "uk")
    assert await watchers.set_dms(game_id, WATCHER, False, 3) is True
    assert await watchers.get(game_id, WATCHER) == Watcher(game_id, WATCHER, False, 2, "uk")


async def two_games_watched(db: Database) -> tuple[int, int]:
    """Game A, shown at seq 5, watched by WATCHER with direct messages (told up to 1) and by
    QUIET without; game B, shown at seq 5, watched by QUIET only."""
    games = GameStore(db)
    watchers = WatchStore(db)
    game_a = await started(games, 10)
    game_b = await started(games, 11)
    for game_id in (game_a, game_b):
        assert await games.set_board_message(game_id, 500 + game_id, 5) is not None
        await watchers.watch(game_id, QUIET, 1, T0)
    await watchers.watch(game_a, WATCHER, 1, T0)
    await watchers.set_dms(game_a, WATCHER, True, 1)
    return game_a, game_b


async def test_a_watcher_without_direct_messages_is_not_behind(db: Database) -> None:
    """Of a game's watchers told less than a seq, only those who asked for direct messages
    are to be told."""
    game_a, _ = await two_games_watched(db)
    behind = await WatchStore(db).behind(game_a, 5)
    assert behind == [Watcher(game_a, WATCHER, True, 1)]


async def test_a_watcher_told_up_to_a_seq_is_not_behind_at_it(db: Database) -> None:
    """A watcher claimed up to the seq the game's message shows is not among those to tell at
    that seq again (the message shown once more has nothing new), only at a later one."""
    game_a, _ = await two_games_watched(db)
    watchers = WatchStore(db)
    [read] = await watchers.behind(game_a, 5)
    assert await watchers.claim(read, 5) is True
    assert await watchers.behind(game_a, 5) == []
    assert await watchers.behind(game_a, 6) == [Watcher(game_a, WATCHER, True, 5)]


async def test_only_games_with_a_watcher_asking_for_messages_are_watched_or_behind(
    db: Database,
) -> None:
    """A game whose only watcher has direct messages off is neither among the watched games
    nor among those a restart catches up, though that watcher was told less than its
    message shows."""
    game_a, _ = await two_games_watched(db)
    watchers = WatchStore(db)
    assert [game for game, messages in await watchers.watched_games() if messages] == [game_a]
    assert await watchers.games_behind() == [game_a]


async def test_a_game_stopped_before_its_end_is_behind_for_a_watcher_told_all_its_turns(
    db: Database,
) -> None:
    """A stop moves no seq: a watcher asking for messages told up to what the game's message
    shows is still owed the stop, so a restart catches the game up; a stopped game watched
    only without messages is not behind."""
    game_a, game_b = await two_games_watched(db)
    games, watchers = GameStore(db), WatchStore(db)
    [read] = await watchers.behind(game_a, 5)
    assert await watchers.claim(read, 5) is True
    assert await watchers.games_behind() == [], "told all it shows"
    for game_id in (game_a, game_b):
        await games.end(game_id, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, 100, T1)
    assert await watchers.games_behind() == [game_a]


async def test_every_game_with_a_watcher_is_known_whether_they_asked_for_messages_or_not(
    db: Database,
) -> None:
    """The games whose end must end a watch: a game whose only watcher has direct messages
    off is among them, and a game of two watchers is named once."""
    game_a, game_b = await two_games_watched(db)
    watched = await WatchStore(db).watched_games()
    assert watched == [(game_a, True), (game_b, False)]


async def test_a_watcher_who_turned_direct_messages_off_is_not_claimed(db: Database) -> None:
    """A claim made from a read taken while direct messages were on fails once they are off,
    and moves nothing."""
    game_a, _ = await two_games_watched(db)
    watchers = WatchStore(db)
    [read] = await watchers.behind(game_a, 5)
    assert await watchers.set_dms(game_a, WATCHER, False, 5) is True
    assert await watchers.claim(read, 5) is False
    assert await watchers.get(game_a, WATCHER) == Watcher(game_a, WATCHER, False, 1)


async def test_unwatching_a_game_keeps_the_watcher_s_other_games(db: Database) -> None:
    """Unwatching takes the user off that game only; a second unwatch answers False."""
    games = GameStore(db)
    watchers = WatchStore(db)
    game_a = await started(games, 10)
    game_b = await started(games, 11)
    await watchers.watch(game_a, WATCHER, 1, T0)
    await watchers.watch(game_b, WATCHER, 2, T0)
    assert await watchers.unwatch(game_a, WATCHER) is True
    assert await watchers.unwatch(game_a, WATCHER) is False
    assert await watchers.get(game_a, WATCHER) is None
    assert await watchers.get(game_b, WATCHER) == Watcher(game_b, WATCHER, False, 2)


async def test_ending_a_game_takes_only_its_watchers_in_user_order(db: Database) -> None:
    """The end of a game hands back its watchers, ordered by user, and leaves another game's
    watchers in place."""
    game_a, game_b = await two_games_watched(db)
    watchers = WatchStore(db)
    assert await watchers.end(game_a) == [
        Watcher(game_a, WATCHER, True, 1),
        Watcher(game_a, QUIET, False, 1),
    ]
    assert await watchers.get(game_a, WATCHER) is None
    assert await watchers.get(game_b, QUIET) == Watcher(game_b, QUIET, False, 1)
