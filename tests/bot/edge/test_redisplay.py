"""Posting a game's current message, and showing it again in the background when that failed.

Only Discord's part of a post is bounded by its timeout: the picture is drawn first. A game shown
again (GameDisplay.retry_display) is tried after short pauses that grow, and a new failure while
it waits cuts the pause short, so a game is never left for a long pause an older failure set;
each failed try is one warning line saying why, with no traceback. A try a database outage
cuts off is no failed try: it is made again once the database is back, with no line."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot.edge import display
from bot.edge.display import GameDisplay
from bot.edge.permissions import MissingPermissionsError
from bot.services.availability import Availability
from bot.services.views import GameStatus
from tests.polling import until


class ShownLater:
    """A game that is behind on display until `catch_up` succeeds; each catch-up fails (with
    `error`, Discord gone by default) while `failures` are left."""

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        self.failures = failures
        self.error = error or ConnectionResetError("Discord went away")
        self.tries = 0
        self.shown = False
        self.events: list[tuple[object, ...]] = []

    async def look(self, game_id: int) -> Any:
        game = SimpleNamespace(board_message_seq=5 if self.shown else 4)
        return SimpleNamespace(id=game_id, seq=5, game=game)

    async def catch_up(self, view: Any, *, restarted: bool = False) -> None:
        self.tries += 1
        self.events.append(("try",))
        if self.failures:
            self.failures -= 1
            raise self.error
        self.shown = True


def shown_later(
    failures: int, error: Exception | None = None, availability: Availability | None = None
) -> tuple[GameDisplay, ShownLater]:
    game = ShownLater(failures, error)
    shower = GameDisplay(
        cast(Any, SimpleNamespace()),
        cast(Any, game),
        cast(Any, SimpleNamespace()),
        clock=cast(Any, None),
        catch_ups=cast(Any, None),
        availability=availability,
    )
    shower._catch_up = game.catch_up  # type: ignore[method-assign]
    return shower, game


async def test_a_game_is_tried_again_until_it_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 0.0, 0.0))
    shower, game = shown_later(failures=2)

    shower.retry_display(7)
    (task,) = shower._retrying.values()
    await asyncio.wait_for(task, 10)

    assert (game.tries, game.shown) == (3, True)
    assert not shower._retrying
    assert not shower._retry_soon


async def test_a_new_failure_cuts_a_long_pause_short_and_the_pauses_start_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new failure while the next try waits an hour ends the wait; that try fails too, and
    the pause after it is the shortest again (none here), not the hour the count had reached."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    shower, game = shown_later(failures=2)

    shower.retry_display(7)
    (task,) = shower._retrying.values()
    await until(lambda: game.tries == 1, "the first try, which fails")
    shower.retry_display(7)  # a new failure while the next try waits an hour
    await asyncio.wait_for(task, 10)

    assert (game.tries, game.shown) == (3, True)
    assert not shower._retrying


class PausesPass:
    """Stands in for the display module's asyncio: every pause the redisplay takes is noted
    and ends at once, as if its time had passed; a timed wait that an event ends first is noted
    as cut short. Everything else is asyncio's own."""

    def __init__(self, events: list[tuple[object, ...]]) -> None:
        self.events = events

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float) -> None:
        self.events.append(("pause", delay, "in full"))
        await asyncio.sleep(0)

    @contextlib.asynccontextmanager
    async def timeout(self, delay: float) -> AsyncIterator[asyncio.Timeout]:
        passed = asyncio.timeout(0)  # its time is up as soon as the block waits
        try:
            async with passed:
                yield passed
        finally:
            self.events.append(("pause", delay, "in full" if passed.expired() else "cut short"))


async def test_requests_during_the_first_pause_are_one_try(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A failure that asks twice (the post, then the handler that called it) costs one try, and
    the try after it waits its whole pause."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (1.0, 5.0, 30.0))
    shower, game = shown_later(failures=1)
    monkeypatch.setattr(display, "asyncio", PausesPass(game.events))

    shower.retry_display(7)
    shower.retry_display(7)
    (task,) = shower._retrying.values()
    await asyncio.wait_for(task, 10)

    assert game.events == [
        ("pause", 1.0, "in full"),
        ("try",),  # fails
        ("pause", 5.0, "in full"),
        ("try",),
    ]
    assert game.shown


async def test_a_try_that_fails_as_a_post_does_waits_its_whole_pause_and_gives_up_at_last(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The try's own post, failing, asks for the game to be shown again, as every failed post
    does: that is no new failure cutting the pause short. A channel that refuses the bot is
    tried after 1, 5 and 30 s, then given up, not once a second for as long as the bot runs
    (each try an invalid request Discord counts against the whole bot)."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (1.0, 5.0, 30.0))
    refused = MissingPermissionsError(("send_messages",))
    shower, game = shown_later(failures=5, error=refused)
    monkeypatch.setattr(display, "asyncio", PausesPass(game.events))

    async def posted_and_refused(view: Any, *, restarted: bool = False) -> None:
        shower.retry_display(view.id)  # what post_current does before it raises
        await game.catch_up(view, restarted=restarted)

    shower._catch_up = posted_and_refused  # type: ignore[method-assign]
    shower.retry_display(7)
    (task,) = shower._retrying.values()
    await asyncio.wait_for(task, 10)

    assert game.events == [
        ("pause", 1.0, "in full"),
        ("try",),
        ("pause", 5.0, "in full"),
        ("try",),
        ("pause", 30.0, "in full"),
        ("try",),
    ]
    assert "game 7: gave up showing its current message until a restart" in caplog.text


async def test_it_gives_up_after_the_last_pause(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 0.0))
    shower, game = shown_later(failures=5)

    shower.retry_display(7)
    (task,) = shower._retrying.values()
    await asyncio.wait_for(task, 10)

    assert (game.tries, game.shown) == (2, False)
    assert "game 7: gave up showing its current message until a restart" in caplog.text


async def test_each_try_a_channel_refuses_is_one_warning_line_saying_why_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A channel that refuses the bot refuses every try: each is one line naming the
    permissions, and the log gets no traceback per try (nor at the end)."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 0.0, 0.0))
    refused = MissingPermissionsError(("send_messages",))
    shower, game = shown_later(failures=3, error=refused)

    with caplog.at_level(logging.INFO, logger="bot.edge.display"):
        shower.retry_display(7)
        (task,) = shower._retrying.values()
        await asyncio.wait_for(task, 10)

    line = (
        "game 7: showing it again failed "
        "(the channel refuses the bot (it needs Send Messages there))"
    )
    tries = [r for r in caplog.records if "showing it again failed" in r.getMessage()]
    assert [(r.levelno, r.getMessage()) for r in tries] == [(logging.WARNING, line)] * 3
    assert game.tries == 3
    assert [r.getMessage() for r in caplog.records if r.exc_info] == [], "no traceback"


async def test_a_try_an_outage_cuts_off_is_made_again_once_it_is_back_spending_no_try(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away during the only try left: once it is back the game is tried
    again and shown, not given up, and the log says nothing about the game (the outage's own
    lines say the database was away)."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0,))
    availability = Availability()
    shower, game = shown_later(failures=0, availability=availability)

    async def cut_off_once(view: Any, *, restarted: bool = False) -> None:
        if not game.tries:
            game.tries += 1
            raise availability.failed(ConnectionRefusedError(111, "Connect call failed"))
        await game.catch_up(view, restarted=restarted)

    shower._catch_up = cut_off_once  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="bot.edge.display"):
        shower.retry_display(7)
        (task,) = shower._retrying.values()
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await asyncio.wait_for(task, 10)

    assert (game.tries, game.shown) == (2, True)
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert said == [], "nothing per game during the outage"


class Recorder:
    def __init__(self) -> None:
        self.recorded: list[tuple[int, int, int]] = []

    async def set_board_message(
        self,
        game_id: int,
        message_id: int,
        seq: int,
        *,
        end_shown: bool = False,
        lobby_linked: bool | None = None,
    ) -> None:
        self.recorded.append((game_id, message_id, seq))


async def test_a_slow_picture_does_not_count_against_discords_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Discord's time to take a message is bounded; drawing its picture first is not part of it
    (the workers bound that): a busy pool makes a message late, never abandoned."""
    monkeypatch.setattr(display, "DISCORD_TIMEOUT_SECONDS", 0.01)
    store = Recorder()
    shower = GameDisplay(
        cast(Any, SimpleNamespace()),
        cast(Any, store),
        cast(Any, SimpleNamespace()),
        clock=cast(Any, None),
        catch_ups=cast(Any, None),
    )

    async def drawn_slowly(view: Any) -> dict[str, Any]:
        await asyncio.sleep(0.2)
        return {"content": "your turn"}

    async def posted(game: Any, /, **fields: Any) -> Any:
        return SimpleNamespace(id=99)

    shower._current_message = drawn_slowly  # type: ignore[method-assign]
    shower._post = posted  # type: ignore[method-assign]
    game = SimpleNamespace(lobby_message_id=None)
    view = SimpleNamespace(id=7, seq=5, status=GameStatus.OVER, game=game, state=None, ratings=())

    await shower.post_current(cast(Any, view))

    assert store.recorded == [(7, 99, 5)]
    assert not shower._retrying
