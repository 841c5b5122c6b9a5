"""Who redraws a tournament's message when several processes run the bot: the process holding
the shard of the tournament's server draws at once; another leaves it to that one for
OWNER_GRACE_SECONDS, then draws only if the message does not show the latest yet (its owner is
down). A channel's edit limit counts every process while each knows only its own use of it, so
two processes drawing the same message get 429s. Once stopped, the display starts no work. A
round whose moving on a database outage cut off moves on once the database is back, the
tables Discord refused are still tried again after an outage cut a try, a redraw and a start's
catch-up an outage cut off run again."""

from __future__ import annotations

import asyncio
import errno
import inspect
import logging
from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import AsyncMock

import discord
import pytest

from bot.edge import answers, tournaments
from bot.edge.tournaments import TournamentDisplay
from bot.presentation import tournaments as shown
from bot.services.availability import Availability
from bot.services.tournament_views import Progress, TableView, TournamentStatus
from tests.bot.presentation.test_tournaments import view
from tests.polling import WAIT_SECONDS, until

PNG = b"\x89PNG\r\n\x1a\n"
TOURNAMENT = view()
SHARD = (TOURNAMENT.guild_id >> 22) % 2
"""The shard of the tournament's server, of two."""
GRACE = 0.2
"""OWNER_GRACE_SECONDS in the tests that wait it out."""


class Scene:
    """A display in a process holding `shards` of two, the message as Discord shows it, and
    how often the display waited for the owner: not at all, unless `grace`, where it waits the
    real OWNER_GRACE_SECONDS."""

    def __init__(
        self,
        shards: list[int],
        shown_now: discord.Message | Any,
        *,
        grace: bool = False,
        availability: Availability | None = None,
    ) -> None:
        self.message = SimpleNamespace(edit=AsyncMock())
        channel = SimpleNamespace(
            get_partial_message=lambda _: self.message,
            fetch_message=AsyncMock(return_value=shown_now),
        )
        self.channel = channel
        client = SimpleNamespace(
            shard_count=2,
            shard_ids=shards,
            get_partial_messageable=lambda *_, **__: channel,
            wait_until_ready=AsyncMock(),
        )
        service = SimpleNamespace(
            look=AsyncMock(return_value=TOURNAMENT),
            running=AsyncMock(return_value=[]),
            ended_within=AsyncMock(return_value=[TOURNAMENT.id]),
        )
        pictures = SimpleNamespace(standings_png=AsyncMock(return_value=PNG))
        nothing = cast(Any, None)
        self.display = TournamentDisplay(
            cast(discord.Client, client),
            cast(Any, service),
            nothing,
            cast(Any, pictures),
            availability=availability,
        )
        self.waits = 0
        real_wait = self.display._wait_for_owner

        async def wait_for_owner() -> None:
            self.waits += 1
            if grace:
                await real_wait()

        self.display._wait_for_owner = wait_for_owner  # type: ignore[method-assign]

    def owner_draws_after(self, seconds: float) -> None:
        """The owner draws the latest `seconds` from now, by the event loop's clock: Discord
        shows the message as it was until then, the latest from then on."""
        loop = asyncio.get_running_loop()
        drawn_at = loop.time() + seconds
        before = self.channel.fetch_message.return_value
        self.channel.fetch_message.side_effect = lambda *_: (
            LATEST if loop.time() >= drawn_at else before
        )

    async def redraw(self) -> None:
        """Ask for a redraw and wait until the display is done with it."""
        self.display.refresh(TOURNAMENT.id)
        await self.display._drawing[TOURNAMENT.id]


def on_discord(embed: discord.Embed, *files: str) -> Any:
    """The message as Discord gives it back: its embed and its attachments' names."""
    back = discord.Embed.from_dict(embed.to_dict())
    return SimpleNamespace(embeds=[back], attachments=[SimpleNamespace(filename=f) for f in files])


LATEST = on_discord(shown.standings_post(TOURNAMENT).embed, shown.STANDINGS_NAME)
STALE = on_discord(shown.signup_post(view(status=TournamentStatus.SIGNUP)).embed)


def another_process_whose_owner_draws_within_its_grace(monkeypatch: pytest.MonkeyPatch) -> Scene:
    """A process that does not own the tournament, finding its message stale; the owner draws
    it halfway through the (shortened, real) grace the other gives it."""
    monkeypatch.setattr(tournaments, "OWNER_GRACE_SECONDS", GRACE)
    scene = Scene([1 - SHARD], STALE, grace=True)
    scene.owner_draws_after(GRACE / 2)
    return scene


async def test_another_process_leaves_the_message_its_owner_drew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scene = another_process_whose_owner_draws_within_its_grace(monkeypatch)
    await scene.redraw()
    assert scene.message.edit.await_count == 0, "the owner was not given its grace"
    assert scene.waits == 1


@pytest.mark.parametrize(
    "left",
    [STALE, on_discord(shown.standings_post(TOURNAMENT).embed)],
    ids=["older text", "no picture"],
)
async def test_another_process_draws_what_its_owner_left_undrawn(left: Any) -> None:
    scene = Scene([1 - SHARD], left)
    await scene.redraw()
    assert scene.waits == 1
    scene.message.edit.assert_awaited_once()
    assert [f.filename for f in scene.message.edit.await_args.kwargs["attachments"]] == [
        shown.STANDINGS_NAME
    ]


async def test_the_owner_draws_at_once_without_asking_discord() -> None:
    scene = Scene([SHARD], LATEST)
    await scene.redraw()
    assert scene.waits == 0
    scene.channel.fetch_message.assert_not_awaited()
    scene.message.edit.assert_awaited_once()


async def test_the_owner_draws_again_what_another_process_stored_while_it_drew() -> None:
    """Another process changes the tournament while the owner draws what it read before, and
    tells this one nothing: the owner reads it again after its edit, so the message ends on
    what is stored."""
    scene = Scene([SHARD], LATEST)
    older = [view(status=TournamentStatus.SIGNUP)]  # the read the owner draws

    async def look(*_: Any) -> Any:
        return older.pop() if older else TOURNAMENT

    cast(Any, scene.display._service).look = look
    await scene.redraw()
    while TOURNAMENT.id in scene.display._drawing:
        await scene.display._drawing[TOURNAMENT.id]
    assert scene.message.edit.await_count == 2, scene.message.edit.await_args_list
    assert [f.filename for f in scene.message.edit.await_args.kwargs["attachments"]] == [
        shown.STANDINGS_NAME
    ], "the last edit draws the stored standings"


async def test_a_redraw_an_outage_cut_off_is_drawn_once_the_database_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database goes away as the standings are read for a redraw: once it is back the
    message is drawn from what is stored, without waiting for the tournament's next change,
    and the log has no traceback (the watch logs the outage)."""
    availability = Availability()
    scene = Scene([SHARD], LATEST, availability=availability)
    reads: list[int] = []

    async def look(tournament_id: int) -> Any:
        reads.append(tournament_id)
        if len(reads) == 1:
            raise availability.failed(OSError(errno.EIO, "disk I/O error"))
        return TOURNAMENT

    cast(Any, scene.display._service).look = look
    with caplog.at_level(logging.INFO, logger="bot.edge.tournaments"):
        scene.display.refresh(TOURNAMENT.id)
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await until(lambda: TOURNAMENT.id not in scene.display._drawing, "the draw over")
    await scene.display.stop()

    scene.message.edit.assert_awaited_once()
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []


async def test_an_edit_discord_never_answers_is_given_up_and_the_next_change_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Discord is waited for DISCORD_TIMEOUT_SECONDS at most (shortened here), as for any post:
    an edit it never answers leaves the message as it was, and the next change draws it, rather
    than waiting behind that edit for good."""
    monkeypatch.setattr(answers, "DISCORD_TIMEOUT_SECONDS", 0.2)
    scene = Scene([SHARD], LATEST)

    async def edit(**fields: Any) -> None:
        if scene.message.edit.await_count == 1:
            await asyncio.Event().wait()  # Discord never answers the first

    scene.message.edit.side_effect = edit
    for change in ("first", "next"):
        scene.display.refresh(TOURNAMENT.id)
        drawing = scene.display._drawing[TOURNAMENT.id]
        try:
            done, _ = await asyncio.wait({drawing}, timeout=WAIT_SECONDS)
        finally:
            drawing.cancel()
        assert done, f"the {change} change's draw still waits on Discord"
    assert scene.message.edit.await_count == 2
    assert [f.filename for f in scene.message.edit.await_args.kwargs["attachments"]] == [
        shown.STANDINGS_NAME
    ], "the next change draws the standings"


@pytest.mark.parametrize("shards", [[SHARD], [1 - SHARD]], ids=["owner", "another"])
async def test_a_start_draws_an_end_its_message_does_not_show(shards: list[int]) -> None:
    # The process that ended the tournament died before it drew the end.
    scene = Scene(shards, STALE)
    await scene.display.resume()
    scene.message.edit.assert_awaited_once()


async def test_a_start_leaves_an_end_its_message_shows() -> None:
    scene = Scene([SHARD], LATEST)
    await scene.display.resume()
    scene.message.edit.assert_not_awaited()


async def test_another_process_at_start_leaves_an_end_its_owner_draws_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Both processes start at once: the owner draws the end while the other waits for it.
    scene = another_process_whose_owner_draws_within_its_grace(monkeypatch)
    await scene.display.resume()
    assert scene.message.edit.await_count == 0, "the end was not left to the owner for its grace"
    assert scene.waits == 1


async def test_work_asked_for_once_the_display_stopped_never_starts() -> None:
    """The database closes after the stop: a game that ends meanwhile moves no tournament on (the
    next start does), and its work is closed, not left to a task or never awaited."""
    display = Scene([SHARD], STALE).display
    await display.stop()

    async def after_game() -> None:
        raise AssertionError("work ran after the stop")

    work = after_game()
    display.in_background(work, "tournament-game-1")
    assert inspect.getcoroutinestate(work) == inspect.CORO_CLOSED, "the work is to run"


async def test_a_round_an_outage_kept_from_moving_on_moves_on_once_the_database_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The last game of a round ends and the database goes away before the next round is
    paired: once the database is back the tournament moves on by itself, with no restart, and
    the outage (the watch's to log) leaves no traceback here."""
    availability = Availability()
    asked: list[int] = []
    moved_on: list[Progress] = []

    async def game_closed(game_id: int) -> Progress:
        asked.append(game_id)
        if len(asked) == 1:
            raise availability.failed(OSError(errno.ENOSPC, "No space left on device"))
        return Progress(TOURNAMENT, paired=2)

    nothing = cast(Any, None)
    service = cast(Any, SimpleNamespace(game_closed=game_closed))
    display = TournamentDisplay(nothing, service, nothing, nothing, availability=availability)

    async def show_progress(progress: Progress) -> None:
        moved_on.append(progress)

    display.show_progress = show_progress  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="bot.edge.tournaments"):
        display.game_closed(7)
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await until(lambda: bool(moved_on), "the round moved on")
    await display.stop()

    assert asked == [7, 7]
    assert [progress.paired for progress in moved_on] == [2]
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []


async def test_a_round_paired_as_the_database_went_gets_its_tables_once_it_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The next round is paired, then the database goes away before its tables are set up:
    once it is back the moving on runs again, finds the round paired already (the store says
    so), and still sets its tables up, with no restart and no traceback."""
    availability = Availability()
    set_up: list[int] = []

    async def game_closed(game_id: int) -> Progress:
        return Progress(TOURNAMENT, paired=None if set_up else 2)

    async def setting_up(tournament_id: int) -> None:
        set_up.append(tournament_id)
        if len(set_up) == 1:
            raise availability.failed(OSError(errno.ENOSPC, "No space left on device"))

    nothing = cast(Any, None)
    service = cast(Any, SimpleNamespace(game_closed=game_closed))
    display = TournamentDisplay(nothing, service, nothing, nothing, availability=availability)
    display.set_up = setting_up  # type: ignore[method-assign]
    display.refresh = lambda tournament_id: None  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="bot.edge.tournaments"):
        display.game_closed(7)
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await until(lambda: not display._tasks, "the moving on done")
    await display.stop()

    assert set_up == [TOURNAMENT.id, TOURNAMENT.id], "its tables set up once it is back"
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []


async def test_tables_to_set_up_again_are_set_up_though_an_outage_cuts_a_retry(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A table whose set-up Discord failed is tried again in the background; a database outage
    during a try does not end the retries (the table would wait for a restart), nor spend one
    of their pauses: the try is made again once the database is back, here where the one try
    allowed was the one cut off, and the log has no traceback for it."""
    monkeypatch.setattr(tournaments, "RETRY_DELAYS_SECONDS", (0.0,))
    availability = Availability()
    table = TableView(2, 2, (102, None))
    claims: list[int] = []

    async def claim_tables(tournament_id: int) -> list[TableView]:
        claims.append(tournament_id)
        if len(claims) == 2:
            raise availability.failed(OSError(errno.ENOSPC, "No space left on device"))
        return [table] if len(claims) == 1 else []

    async def look(tournament_id: int) -> Any:
        raise discord.DiscordServerError(cast(Any, SimpleNamespace(status=503, reason="")), "")

    service = SimpleNamespace(claim_tables=claim_tables, look=look, release_table=AsyncMock())
    nothing = cast(Any, None)
    display = TournamentDisplay(
        nothing, cast(Any, service), nothing, nothing, availability=availability
    )
    display.refresh = lambda tournament_id: None  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="bot.edge.tournaments"):
        await display.set_up(TOURNAMENT.id)
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await until(
            lambda: len(claims) == 3 or any(r.levelno >= logging.ERROR for r in caplog.records),
            "the try after the outage, or giving up",
        )
    await display.stop()

    assert len(claims) == 3, "tried again once the database is back"
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []


async def test_the_start_s_catch_up_an_outage_cuts_off_runs_again_once_the_database_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database goes away while a start catches up the running tournaments (one already
    read): the catch-up waits for it, then runs again over every running tournament, with no
    traceback (the watch logs the outage) and no restart."""
    availability = Availability()
    advanced: list[int] = []
    set_up: list[int] = []

    async def running() -> list[int]:
        return [1, 2]

    async def advance(tournament_id: int) -> Progress:
        if tournament_id == 2 and availability.up and len(advanced) == 1:
            raise availability.failed(OSError(errno.ENOSPC, "No space left on device"))
        advanced.append(tournament_id)
        return Progress(TOURNAMENT)

    async def ended_within(_: object) -> list[int]:
        return []

    async def shown(progress: Progress) -> None:
        del progress

    async def setting_up(tournament_id: int) -> None:
        set_up.append(tournament_id)

    client = cast(Any, SimpleNamespace(wait_until_ready=AsyncMock()))
    service = SimpleNamespace(
        running=running,
        advance=advance,
        ended_within=ended_within,
        resign_withdrawn=AsyncMock(return_value=[]),
    )
    nothing = cast(Any, None)
    display = TournamentDisplay(
        client, cast(Any, service), nothing, nothing, availability=availability
    )
    display.show_progress = shown  # type: ignore[method-assign]
    display.set_up = setting_up  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="bot.edge.tournaments"):
        display.in_background(display.resume(), "tournaments-resume")
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await until(lambda: set_up[-2:] == [1, 2], "every tournament caught up")
    await display.stop()

    assert advanced == [1, 1, 2]
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []


@pytest.mark.parametrize("cut", ["reading the ended", "drawing an end"])
async def test_the_start_s_catch_up_of_ended_tournaments_an_outage_cuts_off_runs_again(
    cut: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away as a start looks for the tournaments that ended lately, or as
    it draws one's end: once it is back the end is drawn all the same, with no traceback (the
    watch logs the outage) and no restart."""
    availability = Availability()
    drawn: list[int] = []
    failed: list[str] = []

    def fails(where: str) -> None:
        if cut == where and not failed:
            failed.append(where)
            raise availability.failed(OSError(errno.EIO, "disk I/O error"))

    async def running() -> list[int]:
        return []

    async def ended_within(_: object) -> list[int]:
        fails("reading the ended")
        return [TOURNAMENT.id]

    async def show_end(tournament_id: int) -> None:
        fails("drawing an end")
        drawn.append(tournament_id)

    client = cast(Any, SimpleNamespace(wait_until_ready=AsyncMock()))
    service = SimpleNamespace(running=running, ended_within=ended_within)
    nothing = cast(Any, None)
    display = TournamentDisplay(
        client, cast(Any, service), nothing, nothing, availability=availability
    )
    display.show_end = show_end  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="bot.edge.tournaments"):
        display.in_background(display.resume(), "tournaments-resume")
        await until(lambda: not availability.up, "the outage")
        availability.restored()
        await until(lambda: TOURNAMENT.id in drawn, "the ended tournament drawn")
    await display.stop()

    assert [record.getMessage() for record in caplog.records if record.exc_info] == []
