"""A turn the AI played for someone out of time is told once, by whichever display shows it.

The in-process client on the fake Discord API (tests/bot/edge/test_edge.py). The turn clock
plays a timed-out turn and nothing shows it (the process that stored it was killed); then two
displays catch the game up from what is stored, the second from the game as it read it before
the first had shown anything (another process catching up the same game). The channel tells
the timeout once, in the timed-out turn's own line, before the next turn, in the game's
language. Likewise a game stopped early (aborted by its host, or abandoned) whose end nothing
showed: the two catch-ups tell the end once and leave no button to click, and so do two
showings of it at once by one display; and a seat taken back from the AI whose return nothing
told: the two catch-ups tell it once, and tell the handover before it in its turn's line even
when the seat was taken back before that turn was shown; a return another process told first
still answers the rejoin command, privately. An end or a return whose notice
Discord refused is not recorded as told: the next catch-up tells it, once. A restarted display
waits out what the last run may have used of Discord's window on the channel (5 posts, 5 edits
and 5 reads of its history per 5 s): before it reads the history, the rest of the window after
the last run's start's catch-up of games (a whole one if that never ended, or its record cannot
be read; none if it ended a window ago, or was another process's); before it tells such a
return, the rest of the window after the game's messages were posted or edited last. It never
waits for a window only its own notice opened; a running display's catch-up waits for none.
The turn clock's work just after a start
(an AI's turn, with the bot token) waits for the rest of the window, refused by no bucket,
and so do a start's edit of a lobby left behind and its showing of an abort left untold.
A rated game's result posted before its ratings could be applied is edited to show them
once they are, once: by the process that applied them (the server's next game, a start), else
by the next start's catch-up.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from discord.utils import snowflake_time

from bot.edge import recovery
from bot.edge.display import CHANNEL_WINDOW_SECONDS, GameDisplay
from bot.edge.inflight import HANDLERS
from bot.presentation import messages, presenter
from bot.presentation.links import message_link
from bot.services.availability import DatabaseUnavailableError
from bot.services.catch_ups import CatchUp, CatchUps
from bot.services.ratings import RatingService
from bot.services.views import AutoTurn, Reminder, TurnReason
from bot.storage.games import ShardSet
from bot.storage.ratings import RatingStore
from tests.bot.edge.test_edge import (
    Edge,
    a_window_later,
    clock_moving_waits,
    mover_of,
    over_and_unshown,
    result_ids,
    running_edge,
    started,
)
from tests.bot.edge.test_edge import edge as edge_fixture  # noqa: F401  (a fixture, used below)
from tests.bot.edge.test_edge_async import handed_to_the_ai
from tests.bot.edge.test_edge_faults import started_in
from tests.bot.edge.test_rematch import is_result, resign, result
from tests.e2e.fakecord import FakeMessage, FakeUser
from tests.e2e.fakecord.snowflakes import iso_now
from tests.polling import until
from tests.races import Race

NOTICE = "ran out of time"
A_POST = r"/channels/\d+/messages|/webhooks/\d+/[^/]+"
"""A post in a channel: with the bot token, or as a fresh interaction's follow-up."""
LONG_AGO = "2020-01-01T00:00:00.000+00:00"
MINUS = "\u2212"


@pytest.fixture
def edge(edge_fixture: Edge) -> Edge:  # noqa: F811  (the imported fixture, by name)
    """The in-process client on the fake Discord API, as in test_edge.py."""
    return edge_fixture


async def press(edge: Edge, user: FakeUser, message: FakeMessage, action: str) -> None:
    """Click the lobby button of `action`, whatever the language of its label."""
    message = edge.fake.world.messages[message.id]
    (label,) = [
        b.label for b in message.enabled_buttons() if (b.custom_id or "").endswith(f":{action}")
    ]
    assert label is not None
    await edge.click(user, message, label).answer()


async def timed_out_unshown(
    edge: Edge, timeouts_before: int, *, pinged: str | None = None
) -> tuple[FakeMessage, AutoTurn]:
    """A game of two with a turn limit whose first mover (who ran out of time
    `timeouts_before` turns in a row already, and was `pinged` to play: by the bot's "reminder",
    the other player's "nudge", or "both", the reminder first) runs out of time: the AI's move
    for them is stored and nothing of it is shown. The first turn's message, and the automatic
    turn."""
    await edge.bot.scheduler.stop()  # the test plays the turn clock's part itself
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, turn_limit=300).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    first = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    view = await edge.service.play.look(1)
    assert view.state is not None
    seat = view.state.to_move
    mover = view.player_at(seat)
    assert mover is not None
    if pinged in ("reminder", "both"):
        await edge.bot.display.send_reminder(Reminder(view, mover.user_id, datetime.now(UTC)))
    if pinged in ("nudge", "both"):
        other = edge.guest if mover.user_id == edge.host.id else edge.host
        assert (await edge.slash(other, "marrakech", "nudge").answer()).pinged_user_ids
        view = await edge.service.play.look(1)
    async with edge.store.database.transaction() as conn:
        await conn.execute("UPDATE games SET due_at = $1, rev = rev + 1 WHERE id = 1", LONG_AGO)
        await conn.execute(
            "UPDATE seats SET timeouts = $1 WHERE game_id = 1 AND seat = $2",
            timeouts_before,
            seat,
        )
    turn = await edge.service.turns.play_due(1, view.seq)
    assert isinstance(turn, AutoTurn)
    return first, turn


def told(edge: Edge) -> list[FakeMessage]:
    return [m for m in edge.fake.messages(edge.channel) if NOTICE in m.content]


async def caught_up_twice(edge: Edge) -> None:
    """Two displays catch the game up, the second from the game as read before the first."""
    stale = await edge.service.play.look(1)
    other = GameDisplay(
        edge.client,
        edge.service.play,
        edge.bot.display._pictures,
        edge.service.loader.clock,
        edge.service.catch_ups,
    )
    await edge.bot.display._catch_up(stale)
    await other._catch_up(stale)


@pytest.mark.parametrize(
    ("timeouts_before", "reason", "said"),
    [
        (0, TurnReason.TIMEOUT, "(⏰ ran out of time)"),
        (2, TurnReason.HANDED_OVER, "ran out of time 3 turns in a row"),
    ],
)
async def test_a_timeout_never_shown_is_told_once_by_two_catch_ups(
    edge: Edge, timeouts_before: int, reason: TurnReason, said: str
) -> None:
    first, turn = await timed_out_unshown(edge, timeouts_before)
    assert turn.reason is reason

    await caught_up_twice(edge)

    transcript = edge.fake.transcript(edge.channel)
    assert [m.id for m in told(edge)] == [first.id], transcript
    line = edge.fake.world.messages[first.id].content
    assert said in line, line
    assert f"<@{turn.user_id}>" in line, line
    assert not edge.fake.world.messages[first.id].enabled_buttons()
    current = edge.fake.latest_with_components(edge.channel)
    assert current.id > first.id, "the next turn comes after the line that tells the timeout"
    assert await edge.service.play.behind_on_display() == []


async def test_a_timeout_shown_then_caught_up_again_is_still_told_once(edge: Edge) -> None:
    """The display showed the turn, but its record of that was lost (the process was killed
    before writing it): a catch-up derives the same line again, and posts no second notice."""
    first, turn = await timed_out_unshown(edge, 0)
    before = await edge.service.play.look(1)
    await edge.bot.display.show_auto_turn(turn)
    async with edge.store.database.transaction() as conn:
        await conn.execute(
            "UPDATE games SET board_message_id = $1, board_message_seq = $2 WHERE id = 1",
            before.game.board_message_id,
            before.game.board_message_seq,
        )

    await caught_up_twice(edge)

    assert [m.id for m in told(edge)] == [first.id], edge.fake.transcript(edge.channel)


@pytest.mark.parametrize(("server_locale", "language"), [("fr", "fr"), ("uk", "uk")])
async def test_the_timeout_is_told_in_the_game_s_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_locale: str, language: str
) -> None:
    async with running_edge(tmp_path, monkeypatch, server_locale=server_locale) as edge:
        first, turn = await timed_out_unshown(edge, 0)
        await caught_up_twice(edge)
        print(edge.fake.transcript(edge.channel))
        line = edge.fake.world.messages[first.id].content
        said = messages.text("story.timed_out", language, user=f"<@{turn.user_id}>")
        assert said in line, line


@pytest.mark.parametrize("reason", ["aborted-by-host", "abandoned"])
async def test_an_end_never_shown_is_told_once_by_two_catch_ups(edge: Edge, reason: str) -> None:
    await edge.bot.scheduler.stop()
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    first = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    if reason == "abandoned":  # as the turn clock ends a paused game, nothing of it shown
        async with edge.store.database.transaction() as conn:
            await conn.execute(
                "UPDATE games SET status = 'aborted', end_reason = $1, rev = rev + 1 WHERE id = 1",
                reason,
            )
        edge.service.loader.forget(1)
    else:  # committed, and the process killed before anything was shown
        await edge.service.play.abort(1, edge.host.id)

    await caught_up_twice(edge)

    transcript = edge.fake.transcript(edge.channel)
    notice = presenter.aborted_post(await edge.service.play.look(1)).embed.description
    assert notice is not None
    told = [m.id for m in edge.fake.messages(edge.channel) if notice in m.embed_text()]
    assert len(told) == 1, transcript
    assert told[0] > first.id, transcript
    # the lobby's Watch button goes with the lobby's edit, in the background
    await edge.fake.wait_until(
        lambda: not any(m.enabled_buttons() for m in edge.fake.messages(edge.channel)),
        what="no button left",
    )
    assert await edge.service.play.behind_on_display() == []


async def test_an_end_shown_then_caught_up_again_is_still_told_once(edge: Edge) -> None:
    """The display told the end, but its record of that was lost (the process was killed
    before writing it): the catch-up finds the notice in the channel and posts no second."""
    await edge.bot.scheduler.stop()
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    view = await edge.service.play.abort(1, edge.host.id)
    await edge.bot.display.show_end(view)
    async with edge.store.database.transaction() as conn:
        await conn.execute("UPDATE games SET end_shown = 0 WHERE id = 1")

    await caught_up_twice(edge)

    notice = presenter.aborted_post(view).embed.description
    assert notice is not None
    told = [m.id for m in edge.fake.messages(edge.channel) if notice in m.embed_text()]
    assert len(told) == 1, edge.fake.transcript(edge.channel)
    assert await edge.service.play.behind_on_display() == []


async def test_an_end_shown_twice_at_once_by_one_display_is_told_once(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Two showings of an abort nothing showed yet run at the same moment in one process (the
    abort's answer and a catch-up, say): the display holds the game's lock while it shows the
    end, so the second finds it told, whatever the timing. The first tells it: its notice is
    not held up until Discord's answer is given up on."""
    await edge.bot.scheduler.stop()
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    view = await edge.service.play.abort(1, edge.host.id)  # committed, nothing of it shown
    display = edge.bot.display
    race = Race()
    monkeypatch.setattr(display._showing, "holding", race.lock(display._showing.holding))
    monkeypatch.setattr(display, "_post", race.write(display._post))

    with caplog.at_level(logging.DEBUG, logger="bot.edge.display"):
        await asyncio.gather(race.run(display.show_end(view)), race.run(display.show_end(view)))

    notice = presenter.aborted_post(view).embed.description
    assert notice is not None
    told = [m.id for m in edge.fake.messages(edge.channel) if notice in m.embed_text()]
    assert len(told) == 1, edge.fake.transcript(edge.channel)
    assert await edge.service.play.behind_on_display() == []
    untold = [r.getMessage() for r in caplog.records if "not told" in r.getMessage()]
    assert untold == [], "the first showing told the end"


@pytest.mark.invalid_requests(403)
async def test_an_end_whose_notice_discord_refused_is_told_once_by_the_next_catch_up(
    edge: Edge,
) -> None:
    """The channel refused the abort's notice (a 403): the end stays unshown, and the next
    catch-ups tell it once."""
    await edge.bot.scheduler.stop()
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    view = await edge.service.play.abort(1, edge.host.id)
    refused = edge.fake.faults.forbidden("POST", A_POST)
    await edge.bot.display.show_end(view)
    assert refused.hits == 1
    notice = presenter.aborted_post(view).embed.description
    assert notice is not None
    assert not [m for m in edge.fake.messages(edge.channel) if notice in m.embed_text()]
    assert await edge.service.play.end_not_shown(1), "not told, so not recorded as shown"

    await caught_up_twice(edge)

    told = [m.id for m in edge.fake.messages(edge.channel) if notice in m.embed_text()]
    assert len(told) == 1, edge.fake.transcript(edge.channel)
    assert await edge.service.play.behind_on_display() == []


async def result_without_its_ratings(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> FakeMessage:
    """Game 1, of host and guest, which the guest resigns while applying the ratings fails
    (the database gone for that moment): its result, posted without them, and recorded as
    shown (the resignation's handler has returned, as it has when the bot stops: a start
    finds no end of it still to show)."""

    async def broken(*args: object) -> bool:
        raise OSError("the database went away")

    await started(edge)
    with monkeypatch.context() as patched:
        patched.setattr(RatingStore, "apply", broken)
        await resign(edge, edge.guest)
        first = await result(edge)
        assert await HANDLERS.drained(30.0), "the resignation's handler is still running"
    assert "**Ratings**" not in first.embed_text()
    return first


def shows_game_1_s_ratings(edge: Edge, message_id: int) -> bool:
    """Whether the message shows the ratings game 1 gave: the host's first win and the guest's
    first loss, not what a later game made of them."""
    text = edge.fake.world.messages[message_id].embed_text()
    return (
        f"<@{edge.host.id}> 1,586 (+86, provisional)" in text
        and f"<@{edge.guest.id}> 1,454 ({MINUS}46, provisional)" in text
    )


async def test_a_result_posted_without_its_ratings_shows_them_once_the_next_game_applies_them(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's next game applies the ratings the first game's end could not: the first
    result is edited to show them, with its own game's numbers, and the game as the bot holds
    it in memory has them."""
    first = await result_without_its_ratings(edge, monkeypatch)
    await started(edge)
    await resign(edge, edge.host)
    second = await edge.fake.wait_for_message(
        edge.channel, lambda m: is_result(m) and m.id != first.id
    )
    assert "**Ratings**" in second.embed_text()

    await edge.fake.wait_until(
        lambda: shows_game_1_s_ratings(edge, first.id), what="game 1's ratings in its result"
    )
    assert (await edge.service.play.look(1)).ratings != ()
    await asyncio.wait_for(asyncio.gather(*edge.bot.display._notices), 15)  # shown, recorded

    async def all_recorded() -> bool:  # game 2's result too, once its lobby leads to it
        return await edge.service.play.behind_on_display() == []

    await until(all_recorded, "every result recorded as shown")


async def test_a_result_posted_without_its_ratings_shows_them_after_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No game of the server applied them before the bot stopped: its next start does, and the
    result is edited to show them."""
    first = await result_without_its_ratings(edge, monkeypatch)
    try:
        await edge.bot.before_connect()
        await edge.fake.wait_until(
            lambda: shows_game_1_s_ratings(edge, first.id), what="game 1's ratings in its result"
        )
        await asyncio.wait_for(asyncio.gather(*edge.bot.display._notices), 15)
        assert await edge.service.play.behind_on_display() == []
    finally:
        await edge.bot.stopping()  # the watch and the clock the start began


async def test_ratings_another_process_applied_are_shown_in_the_result_once_by_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process applied the ratings (its start, or the server's next game there) and
    was killed before it showed them: this process, which holds the game in memory without
    them, sees them; the next start's catch-up edits the result to show them, and the
    catch-ups of two more displays edit it no more."""
    first = await result_without_its_ratings(edge, monkeypatch)
    assert await RatingService(RatingStore(edge.store.database)).catch_up() == 1
    assert (await edge.service.play.look(1)).ratings != ()
    clock_moving_waits(edge, monkeypatch)  # the start's wait for the channel's window

    await edge.bot.display.resume_displays()
    await caught_up_twice(edge)

    assert shows_game_1_s_ratings(edge, first.id), edge.fake.transcript(edge.channel)
    assert edge.fake.world.messages[first.id].edit_count == 1
    assert await edge.service.play.behind_on_display() == []


async def handed_to_ai(edge: Edge) -> FakeUser:
    """A game of two whose player not to move had their seat handed to the AI (shown)."""
    await edge.bot.scheduler.stop()
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    first = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    (mover,) = first.pinged_user_ids
    back = edge.guest if mover == edge.host.id else edge.host
    async with edge.store.database.transaction() as conn:  # handed to the AI, and shown
        await conn.execute(
            "UPDATE seats SET autoplay = 1, timeouts = 3 WHERE game_id = 1 AND user_id = $1",
            back.id,
        )
        await conn.execute("UPDATE games SET rev = rev + 1 WHERE id = 1")
    edge.service.loader.forget(1)
    return back


async def rejoin_told_once(edge: Edge, back: FakeUser) -> None:
    view = await edge.service.play.look(1)
    notice = messages.text("rejoin.done", view.game.locale, user=f"<@{back.id}>", game_id=1)
    told = [m.id for m in edge.fake.messages(edge.channel) if m.content == notice]
    assert len(told) == 1, edge.fake.transcript(edge.channel)
    assert await edge.service.play.behind_on_display() == []


async def rejoined_untold(edge: Edge) -> FakeUser:
    """A person who took their seat back from the AI, committed and never told in the channel
    (the process killed before its answer)."""
    back = await handed_to_ai(edge)
    await edge.service.play.rejoin(1, back.id)
    return back


async def test_a_rejoin_never_told_is_told_once_by_two_catch_ups(edge: Edge) -> None:
    """A seat taken back from the AI, committed and the process killed before the channel was
    told: two displays catching the game up tell it once."""
    back = await rejoined_untold(edge)

    await caught_up_twice(edge)

    await rejoin_told_once(edge, back)


@pytest.mark.invalid_requests(403)
async def test_a_rejoin_whose_notice_discord_refused_is_told_once_by_the_next_catch_up(
    edge: Edge,
) -> None:
    """The channel refused the notice of a seat taken back (a 403): the return stays untold,
    and the next catch-ups tell it once."""
    back = await rejoined_untold(edge)
    refused = edge.fake.faults.forbidden("POST", A_POST)
    await edge.bot.display.show_rejoins(await edge.service.play.look(1))
    assert refused.hits == 1
    assert not rejoin_told(edge, back)
    assert back.id in await edge.service.play.rejoins_not_shown(1), "not told, not recorded"

    await caught_up_twice(edge)

    await rejoin_told_once(edge, back)


def rejoin_told(edge: Edge, user: FakeUser) -> bool:
    notice = messages.text("rejoin.done", "en", user=f"<@{user.id}>", game_id=1)
    return any(m.content == notice for m in edge.fake.messages(edge.channel))


def recorded_waits(edge: Edge, monkeypatch: pytest.MonkeyPatch, back: FakeUser) -> list[bool]:
    """Record each wait of the display for a channel's window: whether the rejoin was told by
    then."""
    waits: list[bool] = []

    async def wait(seconds: float) -> None:
        assert 0 < seconds <= CHANNEL_WINDOW_SECONDS
        waits.append(rejoin_told(edge, back))

    monkeypatch.setattr(edge.bot.display, "_sleep", wait)
    return waits


async def test_a_restart_waits_out_the_last_run_s_window_before_telling_a_rejoin(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    back = await rejoined_untold(edge)
    waits = recorded_waits(edge, monkeypatch, back)
    await edge.bot.display.resume_displays()
    assert waits == [False], "one wait, before the notice"
    assert rejoin_told(edge, back)


async def last_run_caught_up(
    edge: Edge,
    monkeypatch: pytest.MonkeyPatch,
    *,
    began: float,
    ended: float | None = None,
    read: float | None = None,
) -> datetime:
    """The last run's start caught games up from `began` seconds before the restart until
    `ended` seconds before it (None: the run was killed before its catch-up ended), its last
    read of a history begun `read` seconds before it (None: it read none), as its record says.
    The restart comes now by the display's clock, which stands still from here but for the
    display's own waits (`clock_moving_waits`); returns that now."""
    now = edge.bot.display._clock()
    monkeypatch.setattr(edge.bot.display, "_clock", lambda: now)

    def ago(seconds: float | None) -> datetime | None:
        return None if seconds is None else now - timedelta(seconds=seconds)

    await edge.service.catch_ups.record(
        CatchUp(now - timedelta(seconds=began), ago(ended), ago(read))
    )
    return now


async def test_a_restart_after_the_window_tells_a_rejoin_without_waiting(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run changed the game's messages, and ended its start's catch-up of games, more
    than a window before the restart: nothing it did is left in Discord's window on the
    channel, and the restart reads the history and tells the return at once."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    await last_run_caught_up(edge, monkeypatch, began=60.0, ended=30.0)
    waits = recorded_waits(edge, monkeypatch, back)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [], "the notice this run posted opens no window to wait for"


async def test_a_restart_waits_out_a_window_the_last_run_s_edit_opened(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every message of the game was posted more than a window ago, but the last run edited the
    turn's message just before it was killed: an edit counts in Discord's window as a post does,
    so the restart waits before it tells the rejoin. Going by the posts' times alone, it would
    not wait, and could meet a 429 on the channel."""
    back = await rejoined_untold(edge)
    waits = recorded_waits(edge, monkeypatch, back)
    a_window_later(edge, monkeypatch)
    turn = edge.fake.latest_with_components(edge.channel)
    edge.fake.world.messages[turn.id].edited_timestamp = iso_now(edge.fake.world.clock_offset)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [False], "one wait, for the window the last run's edit opened"


async def test_a_restart_waits_out_the_window_though_the_game_s_messages_are_older(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every message of the game was posted and edited more than a window before the restart,
    but the last run's start was catching games up until just before it: the restart waits
    the window out before it reads the channel's history, for that catch-up read histories
    within the window, which no message's time tells. Its one wait is all: the notice it posts
    opens no other."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    await last_run_caught_up(edge, monkeypatch, began=1.0, ended=0.5)
    waits = recorded_waits(edge, monkeypatch, back)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [False], "one wait, before the history is read"


async def test_a_restart_waits_only_for_the_rest_of_the_window_the_last_catch_up_left(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run's start ended its catch-up of games 2 s before the restart: the restart
    reads the channel's history once the other 3 s of Discord's window are over, not a whole
    window later."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    await last_run_caught_up(edge, monkeypatch, began=4.0, ended=2.0)
    waits = clock_moving_waits(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [CHANNEL_WINDOW_SECONDS - 2.0], "the rest of the window"


async def test_a_restart_after_a_catch_up_killed_mid_way_waits_out_its_last_read_s_window(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run's start began catching games up an hour ago and was killed during it, its
    last read of a history begun 2 s before the restart: the restart waits the other 3 s of
    Discord's window before its first read, and records its own catch-up, begun at the
    restart, its read, and its end once it is over."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    now = await last_run_caught_up(edge, monkeypatch, began=3600.0, read=2.0)
    waits = clock_moving_waits(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [CHANNEL_WINDOW_SECONDS - 2.0], "the rest of the last read's window"
    over = now + timedelta(seconds=CHANNEL_WINDOW_SECONDS - 2.0)
    assert await edge.service.catch_ups.last() == CatchUp(now, over, over)


async def test_a_restart_after_a_catch_up_killed_before_any_read_waits_for_none(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run's start was killed as it began catching games up, before it read any
    history: it used nothing of Discord's window on a channel's history, and the restart reads
    at once."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    await last_run_caught_up(edge, monkeypatch, began=0.5)
    waits = clock_moving_waits(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [], "no read of the last run's to wait for"


async def test_a_start_s_catch_up_is_recorded_as_under_way_while_it_reads_histories(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a start catches games up, its record says so (begun, not ended), so that a run
    killed in the middle of it leaves the next start a catch-up that never ended; the record
    says when it ended once it did."""
    first, _ = await timed_out_unshown(edge, 0)
    a_window_later(edge, monkeypatch)
    recorded: list[CatchUp | None] = []
    read = recovery.game_messages

    async def reading(*args: Any) -> Any:
        recorded.append(await edge.service.catch_ups.last())
        return await read(*args)

    monkeypatch.setattr(recovery, "game_messages", reading)
    await edge.bot.display.resume_displays()
    assert [m.id for m in told(edge)] == [first.id], edge.fake.transcript(edge.channel)
    began = edge.bot.display._restarted_at
    assert began is not None
    (first_read, *_) = recorded
    assert first_read is not None
    assert (first_read.began, first_read.ended) == (began, None), "under way at its first read"
    assert first_read.read is not None, "the read recorded as it begins"
    assert first_read.read >= began
    last = await edge.service.catch_ups.last()
    assert last is not None
    assert (last.began, last.read) == (began, first_read.read)
    assert last.ended is not None
    assert last.ended >= first_read.read


async def test_a_start_s_catch_up_cut_short_by_a_failure_is_recorded_as_ended(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure the catch-up does not expect ends the start (it is raised on), and with it the
    reads: the record says when, and the next start waits for no more than the rest of a
    window from then. Only a kill leaves a catch-up that never ended."""
    await timed_out_unshown(edge, 0)

    async def failing(*_: object, **__: object) -> None:
        raise RuntimeError("a fault of the catch-up's own")

    monkeypatch.setattr(edge.bot.display, "_catch_up", failing)
    with pytest.raises(RuntimeError, match="own"):
        await edge.bot.display.resume_displays()
    began = edge.bot.display._restarted_at
    assert began is not None
    last = await edge.service.catch_ups.last()
    assert last is not None
    assert last.began == began
    assert last.ended is not None, "ended by the failure"


async def test_a_start_with_no_game_behind_closes_the_catch_up_the_last_run_never_ended(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start with nothing to catch up reads no history and records no catch-up of its own
    (the next start need not wait for it), but a catch-up the last run never ended is over by
    this start, which records it so: a start after it waits at most the rest of a window from
    then, not a whole window every time."""
    assert await edge.service.catch_ups.last() is None, "the first start had nothing behind"
    now = await last_run_caught_up(edge, monkeypatch, began=10.0)
    await edge.bot.display.resume_displays()
    assert await edge.service.catch_ups.last() == CatchUp(now - timedelta(seconds=10), now)


async def test_a_restart_waits_for_no_catch_up_of_a_process_holding_other_shards(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes share the database, each holding half the shards; the other one is
    catching its games up right now. This one, restarted, reads its own record, not the
    other's: it reads the history at once, and records its catch-up under its own shards,
    leaving the other's record as it was."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    mine = CatchUps(edge.store, ShardSet(2, (0,)))
    other = CatchUps(edge.store, ShardSet(2, (1,)))
    monkeypatch.setattr(edge.bot.display, "_catch_ups", mine)
    now = edge.bot.display._clock()
    monkeypatch.setattr(edge.bot.display, "_clock", lambda: now)
    await other.record(CatchUp(now - timedelta(seconds=1)))
    waits = recorded_waits(edge, monkeypatch, back)
    await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    assert waits == [], "the other process's reads are in its own channels"
    assert await other.last() == CatchUp(now - timedelta(seconds=1))
    assert await mine.last() == CatchUp(now, now, now)


@pytest.mark.parametrize("failing", ["read", "write"])
async def test_a_start_whose_catch_up_record_fails_catches_up_all_the_same(
    edge: Edge,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: str,
) -> None:
    """The database fails the record of the start's catch-up. The start goes on and catches
    the game up, with one WARNING line for the record that failed (one for the whole start,
    however many of its writes fail); when the last run's record could not
    be read, it waits a whole window before its first read (it cannot know that the last run
    read no history within it)."""
    back = await rejoined_untold(edge)
    a_window_later(edge, monkeypatch)
    await last_run_caught_up(edge, monkeypatch, began=60.0, ended=30.0)

    async def away(*_: object) -> None:
        raise DatabaseUnavailableError("the database is away")

    monkeypatch.setattr(edge.service.catch_ups, "last" if failing == "read" else "record", away)
    waits = clock_moving_waits(edge, monkeypatch)
    with caplog.at_level(logging.INFO):
        await edge.bot.display.resume_displays()
    assert rejoin_told(edge, back)
    lines = [
        r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING
    ]
    assert all(r.exc_info is None for r in lines), "no traceback"
    said = [r.getMessage() for r in lines]
    if failing == "read":
        assert waits == [CHANNEL_WINDOW_SECONDS], "a whole window, on the safe side"
        unknown = (
            "the last run's catch-up of games is not known "
            "(DatabaseUnavailableError('the database is away')): "
            "a channel's history is read once Discord's window on it is over"
        )
        assert said == [unknown], said
    else:
        assert waits == [], "the last run's catch-up ended long ago"
        assert len(said) == 1, said  # one line for its beginning, its read and its end
        assert all(line.startswith("this start's catch-up of games not recorded") for line in said)


async def test_a_running_display_catching_a_game_up_after_its_own_posts_waits_for_no_window(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every message of the game was posted by this run, within the channel's window: a
    catch-up (a retry in the background, the turn clock's look at a game never shown) shows the
    turn at once, as the rate limits this run follows allow; only a restart, which cannot know
    what the killed run used, waits the window out."""
    first, _ = await timed_out_unshown(edge, 0)
    waits: list[float] = []

    async def wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(edge.bot.display, "_sleep", wait)
    posted = snowflake_time(first.id)  # the window stays open, however slow the machine
    monkeypatch.setattr(edge.bot.display, "_clock", lambda: posted)
    await edge.bot.display.catch_up(1)
    assert [m.id for m in told(edge)] == [first.id], edge.fake.transcript(edge.channel)
    assert await edge.service.play.behind_on_display() == []
    assert waits == [], "no wait for a window this run's own posts opened"


async def test_a_restart_s_turn_clock_waits_out_the_window_the_last_run_may_have_filled(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run posted and edited in the game's channel as much as Discord's window takes
    (5 of each in 5 s), and was killed; the restarted bot knows none of its players' clicks, and
    its turn clock's first pass plays the turn the AI owes at once, with the bot token. It waits
    out the window first, so that neither its edit nor its post is refused: a 429 counts toward
    Discord's ban on invalid requests, and the restart cannot know what the last run used."""
    await edge.bot.scheduler.stop()  # the test plays the turn clock's first pass itself
    turn = await started(edge)
    await handed_to_the_ai(edge, await mover_of(edge, turn))
    async with edge.store.database.transaction() as conn:  # the AI owes the turn now
        await conn.execute("UPDATE games SET due_at = $1, rev = rev + 1 WHERE id = 1", LONG_AGO)
    edge.service.loader.forget(1)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    limits = edge.fake.rest.limits
    channel = f"/channels/{edge.channel.id}/messages"
    for method, path in (("POST", channel), ("PATCH", f"{channel}/{turn.id}")):
        while not limits.check(method, path, "the last run", lambda: None).refused:
            pass
    limits.check("GET", "/users/@me", "the restarted run", lambda: None)  # it logs in
    edge.bot.display._delivery._tokens.clear()  # the restarted run knows no click
    waits: list[float] = []
    clock = edge.bot.display._clock

    async def wait(seconds: float) -> None:  # the display's clock and Discord's move on
        waits.append(seconds)
        edge.fake.shift_clock(edge.fake.world.clock_offset + seconds)
        later = clock() + timedelta(seconds=sum(waits))
        monkeypatch.setattr(edge.bot.display, "_clock", lambda: later)

    monkeypatch.setattr(edge.bot.display, "_sleep", wait)
    await edge.bot.display.resume_displays()
    assert await edge.bot.scheduler.run_due() == 1
    assert not edge.fake.world.messages[turn.id].enabled_buttons(), "the AI's turn is shown"
    refused = [f"{r.method} {r.path}" for r in edge.fake.invalid_requests]
    assert refused == [], refused
    (waited,) = waits
    assert 0 < waited <= CHANNEL_WINDOW_SECONDS, "one wait, for the rest of the window"


def filled_by_the_last_run(edge: Edge, *routes: tuple[str, str]) -> None:
    """The killed run used each of `routes` (method, path) of Discord as much as its window
    takes, and the restarted run logs in: it knows nothing of what the last one used."""
    limits = edge.fake.rest.limits
    for method, path in routes:
        while not limits.check(method, path, "the last run", lambda: None).refused:
            pass
    limits.check("GET", "/users/@me", "the restarted run", lambda: None)
    edge.bot.display._delivery._tokens.clear()  # the restarted run knows no click


def refused_by_limits(edge: Edge) -> list[str]:
    """The requests Discord refused for a full bucket (429), injected faults aside."""
    return [
        f"{r.method} {r.path}"
        for r in edge.fake.invalid_requests
        if r.status == 429 and r.fault is None
    ]


async def test_a_restart_leads_a_lobby_left_behind_once_the_last_run_s_window_is_over(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run posted a game's result and edited its channel's messages as much as
    Discord's window takes (5 edits in 5 s), its edit of the lobby to lead to the result
    refused, and was killed. The restart's edit of that lobby waits out the window first, so
    that Discord does not refuse it (a 429 counts toward its ban on invalid requests)."""
    lobby, view = await over_and_unshown(edge)
    failing = edge.fake.faults.forbidden("PATCH", ".*")
    assert await edge.bot.display.post_current(view)
    await failing.wait_fired()
    edge.fake.faults.clear()
    filled_by_the_last_run(edge, ("PATCH", f"/channels/{edge.channel.id}/messages/{lobby.id}"))
    waits = clock_moving_waits(edge, monkeypatch)

    await edge.bot.display.resume_displays()

    (result,) = result_ids(edge)
    link = message_link(view.game.guild_id, view.game.channel_id, result)
    assert f"[see the result]({link})" in edge.fake.world.messages[lobby.id].embed_text()
    assert refused_by_limits(edge) == []
    (waited,) = waits
    assert 0 < waited <= CHANNEL_WINDOW_SECONDS, "one wait, for the rest of the window"


async def test_a_restart_tells_an_abort_left_untold_once_the_last_run_s_window_is_over(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's abort was committed and the process killed before it was shown, having posted
    and edited in the channel as much as Discord's window takes. The restart's catch-up
    brings the turn down to its line and tells the end once that window is over, refused by
    no bucket, as it shows any other change left behind."""
    await edge.bot.scheduler.stop()
    turn = await started(edge)
    await edge.service.play.abort(1, edge.host.id)
    channel = f"/channels/{edge.channel.id}/messages"
    filled_by_the_last_run(edge, ("POST", channel), ("PATCH", f"{channel}/{turn.id}"))
    waits = clock_moving_waits(edge, monkeypatch)

    await edge.bot.display.resume_displays()

    notice = presenter.aborted_post(await edge.service.play.look(1)).embed.description
    assert notice is not None
    told = [m for m in edge.fake.messages(edge.channel) if notice in m.embed_text()]
    assert len(told) == 1, edge.fake.transcript(edge.channel)
    assert not edge.fake.world.messages[turn.id].enabled_buttons(), "the turn down to its line"
    assert refused_by_limits(edge) == []
    assert 0 < sum(waits) <= CHANNEL_WINDOW_SECONDS, "waited for the rest of the window"


async def test_a_restart_reads_a_channel_s_history_once_the_last_run_s_window_is_over(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run's start was catching games up, reading the channel's history as much as
    Discord's window takes, when it was killed. The restart's catch-up of a turn nothing showed
    reads that history only once the window is over: the last run's record says its catch-up
    never ended and its last read began just before the restart, and a 429 counts toward
    Discord's ban on invalid requests."""
    first, _ = await timed_out_unshown(edge, 0)
    filled_by_the_last_run(edge, ("GET", f"/channels/{edge.channel.id}/messages"))
    await last_run_caught_up(edge, monkeypatch, began=1.0, read=0.0)
    waits = clock_moving_waits(edge, monkeypatch)

    await edge.bot.display.resume_displays()

    assert [m.id for m in told(edge)] == [first.id], edge.fake.transcript(edge.channel)
    assert refused_by_limits(edge) == []
    assert 0 < sum(waits) <= CHANNEL_WINDOW_SECONDS, "waited for the rest of the window"


async def test_a_game_begun_after_the_restart_waits_for_no_window(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run can have used no window of a game that did not exist yet: the turn clock's
    work on a game begun after the restart (its AI seats' turns, right after a start) goes
    ahead at once, where one of a game from before the restart waits the window out."""
    waits: list[float] = []

    async def wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(edge.bot.display, "_sleep", wait)
    await started(edge)
    await edge.bot.display.resume_displays()
    waits.clear()  # the start's own catch-up, if the first game's turn was still on its way
    restarted = edge.bot.display._restarted_at
    assert restarted is not None
    monkeypatch.setattr(edge.bot.display, "_clock", lambda: restarted)  # within the window
    guild = edge.channel.guild
    assert guild is not None
    await started_in(edge, edge.fake.add_text_channel(guild, "later"))
    await edge.bot.display.wait_out_last_run(2)
    assert waits == [], "the game begun after the restart"
    await edge.bot.display.wait_out_last_run(1)
    assert len(waits) == 1, "the game from before it"


async def test_a_rejoin_answered_then_caught_up_is_still_told_once(edge: Edge) -> None:
    """The command's answer tells the rejoin and records it: a later catch-up adds nothing."""
    back = await handed_to_ai(edge)
    await edge.slash(back, "marrakech", "rejoin").answer()

    await caught_up_twice(edge)

    await rejoin_told_once(edge, back)


async def test_a_rejoin_another_process_told_first_still_answers_the_command_privately(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the rejoin's commit and its answer, another process's catch-up told the return
    in the channel and recorded it: the command is still answered, privately, so the person is
    not left at "thinking" with their seat back."""
    back = await handed_to_ai(edge)
    play = edge.bot.display._play
    untold = play.rejoins_not_shown

    async def told_elsewhere(game_id: int) -> list[int]:
        for user_id in await untold(game_id):
            await play.mark_rejoin_shown(game_id, user_id)  # the other process told it
        return []

    monkeypatch.setattr(play, "rejoins_not_shown", told_elsewhere)
    answer = await asyncio.wait_for(edge.slash(back, "marrakech", "rejoin").answer(), timeout=15)
    assert answer.ephemeral
    assert answer.content == messages.text("rejoin.done", "en", user=f"<@{back.id}>", game_id=1), (
        answer.content
    )
    assert not rejoin_told(edge, back), "the channel is not told a second time"


async def test_a_seat_the_ai_never_took_over_is_never_told_as_taken_back(edge: Edge) -> None:
    """A turn that ran out leaves its seat to its player: no return is stored to tell, and
    neither the catch-ups nor a restart tell one."""
    _, turn = await timed_out_unshown(edge, 0)
    assert turn.reason is TurnReason.TIMEOUT
    assert await edge.service.play.rejoins_not_shown(1) == []

    await caught_up_twice(edge)
    await edge.bot.display.resume_displays()

    user = edge.host if turn.user_id == edge.host.id else edge.guest
    assert not rejoin_told(edge, user), edge.fake.transcript(edge.channel)


@pytest.mark.parametrize("restarted", [False, True], ids=["in-memory", "from-the-log"])
async def test_a_handover_taken_back_before_any_display_showed_it_is_still_told(
    edge: Edge, restarted: bool
) -> None:
    """The seat was handed to the AI by a timed-out turn, then taken back (`rejoin`) before any
    display showed that turn (the process was killed between the two): the catch-ups still tell
    the handover in the turn's line, as recorded with the move, and the rejoin once; whether
    the game is the one in memory or read again from its log by a restarted process."""
    first, turn = await timed_out_unshown(edge, 2)
    assert turn.reason is TurnReason.HANDED_OVER
    assert turn.user_id is not None
    await edge.service.play.rejoin(1, turn.user_id)
    if restarted:
        edge.service.loader.forget(1)

    await caught_up_twice(edge)

    line = edge.fake.world.messages[first.id].content
    assert "ran out of time 3 turns in a row" in line, line
    assert f"<@{turn.user_id}>" in line, line
    assert [m.id for m in told(edge)] == [first.id], edge.fake.transcript(edge.channel)
    back = edge.host if turn.user_id == edge.host.id else edge.guest
    await rejoin_told_once(edge, back)


@pytest.mark.parametrize(
    ("timeouts_before", "said"),
    [
        (0, "⏰ Game #1: time ran out on turn 1, and the AI played it for <@{user}>."),
        (
            2,
            (
                "⏰ Game #1: <@{user}> ran out of time 3 turns in a row (the last on turn 1): "
                "the AI plays their seat from now on; `/marrakech rejoin` takes it back."
            ),
        ),
    ],
)
@pytest.mark.parametrize("shown_by", ["the turn clock", "a catch-up"])
@pytest.mark.parametrize(
    ("pinged", "ping_text"), [("reminder", "half of your time"), ("nudge", "nudged")]
)
async def test_a_ping_whose_turn_ran_out_says_what_the_ai_did(
    edge: Edge, timeouts_before: int, said: str, shown_by: str, pinged: str, ping_text: str
) -> None:
    """The player who follows a reminder's or a nudge's ping too late learns there that the AI
    played their turn, or took their seat and how to take it back, whichever display shows it."""
    first, turn = await timed_out_unshown(edge, timeouts_before, pinged=pinged)
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if ping_text in m.content]

    if shown_by == "the turn clock":
        await edge.bot.display.show_auto_turn(turn)
    else:
        await caught_up_twice(edge)

    assert edge.fake.world.messages[reminder.id].content == said.format(user=turn.user_id)
    assert first.id < reminder.id


@pytest.mark.parametrize("shown_by", ["the turn clock", "a catch-up"])
async def test_a_turn_reminded_and_nudged_that_ran_out_says_what_the_ai_did_once(
    edge: Edge, shown_by: str
) -> None:
    """The reminder says what the AI did; the nudge goes, or the channel would show the same
    line twice."""
    _, turn = await timed_out_unshown(edge, 0, pinged="both")
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    (nudge,) = [m for m in edge.fake.messages(edge.channel) if "nudged" in m.content]

    if shown_by == "the turn clock":
        await edge.bot.display.show_auto_turn(turn)
    else:
        await caught_up_twice(edge)

    said = f"⏰ Game #1: time ran out on turn 1, and the AI played it for <@{turn.user_id}>."
    assert edge.fake.world.messages[reminder.id].content == said
    saying = [m.id for m in edge.fake.messages(edge.channel) if m.content == said]
    assert saying == [reminder.id], f"said once: {edge.fake.transcript(edge.channel)}"
    assert edge.fake.world.messages[nudge.id].deleted, "the reminder says it: the nudge goes"
