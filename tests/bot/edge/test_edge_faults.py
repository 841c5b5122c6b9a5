"""The Discord edge while the database is unavailable, with the failures injected in the store
as a server gone or a full disk raises them (tests/e2e/test_database_faults.py stops a real
server and fills a real disk): a click is answered at once, privately and in the player's
language, that the game is paused, with nothing logged for it but its count in the line that
ends the outage (each outage counts its own); a move that was stored but not shown is answered
that it counts, and shown as soon as the database is back, as is a resignation; a heartbeat the
disk refuses is tried again, each spell of refusals logged once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.edge import display
from bot.edge.answers import TURNED_AWAY
from bot.edge.client import MarrakechClient
from bot.edge.incidents import DISCORD
from bot.edge.inflight import HANDLERS
from bot.presentation import messages
from bot.runtime import outage
from bot.runtime import scheduler as scheduler_module
from bot.runtime.health import Heartbeat, read_heartbeat
from bot.storage.away import AwayStore, QuietRow
from bot.storage.judgements import JudgementStore
from tests.bot.edge.test_edge import Edge, confirm, private, started
from tests.bot.edge.test_edge import edge as edge_fixture  # noqa: F401  (a fixture, used below)
from tests.e2e.fakecord import Disconnect, FakeChannel, FakeMessage, FakeUser, ServerError
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.polling import until

UPDATED = (6, 7)
"""A click answered with the game moved on: deferred (a slow picture), or the message edited."""


def only_the_outage_s_warning(caplog: pytest.LogCaptureFixture) -> None:
    """Of all that was logged at WARNING or above, only the database outage's own line: no
    line for any game or click."""
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1, f"the outage's own line alone: {said}"
    assert said[0].startswith("the database is unavailable"), said


class Outage:
    """Makes the edge's database unavailable: the store methods named fail as they would with
    the server gone, and the watch's probes fail too, until `end`."""

    def __init__(self, edge: Edge, monkeypatch: pytest.MonkeyPatch) -> None:
        self.edge = edge
        self.on = False
        database = edge.store.database
        probe = database.probe

        async def probed(now: str) -> None:
            self.refuse()
            await probe(now)

        monkeypatch.setattr(database, "probe", probed)
        self.monkeypatch = monkeypatch

    def refuse(self) -> None:
        if self.on:
            error = ConnectionRefusedError(111, "Connect call failed")
            raise self.edge.store.database.availability.failed(error)

    def fail(self, *methods: str) -> None:
        """Start the outage, failing the store's `methods` while it lasts."""
        self.on = True
        store = self.edge.store
        for name in methods:
            method = getattr(store, name)
            self.monkeypatch.setattr(store, name, self._failing(method))

    def fail_in(self, owner: type, name: str) -> None:
        """While the outage lasts, fail the method `name` of every instance of `owner` (a store
        the edge's controllers hold copies of), from now on."""
        self.monkeypatch.setattr(owner, name, self._failing(getattr(owner, name)))

    def fail_everything(self) -> None:
        """Start the outage, refusing every statement and transaction of the database while it
        lasts (as a server gone does), whatever store asks."""
        self.on = True
        database = self.edge.store.database
        for name in ("transaction", "reading", "single_write", "single_read"):
            self.monkeypatch.setattr(database, name, self._refusing(getattr(database, name)))

    def _refusing(
        self, opening: Callable[[], AbstractAsyncContextManager[Any]]
    ) -> Callable[[], AbstractAsyncContextManager[Any]]:
        @contextlib.asynccontextmanager
        async def refusing() -> AsyncIterator[Any]:
            self.refuse()
            async with opening() as conn:
                yield conn

        return refusing

    def _failing(self, method: Callable[..., Any]) -> Callable[..., Any]:
        async def failing(*args: Any, **kwargs: Any) -> Any:
            self.refuse()
            return await method(*args, **kwargs)

        return failing

    def end(self) -> None:
        self.on = False

    async def told_while_away(
        self, press: Callable[[], InteractionHandle], caplog: pytest.LogCaptureFixture
    ) -> str:
        """The private answer to `press`, made with the database away altogether, which comes
        back just after; the log meanwhile holds no traceback, and no warning but the outage's
        own."""
        with caplog.at_level(logging.INFO):
            self.fail_everything()
            told = await private(press())
            self.end()
            await until(lambda: self.edge.store.database.availability.up, "the database back")
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
        warned = [r.name for r in caplog.records if r.levelno >= logging.WARNING]
        assert set(warned) <= {"bot.runtime.outage"}, warned
        return told


async def judgement_kept(edge: Edge, game_id: int) -> bool:
    """Whether the finished game's judgement is kept (the stats' job judges each game that
    ends, in the background)."""
    return await JudgementStore(edge.store.database).judgement(game_id) is not None


@pytest.fixture
def edge(edge_fixture: Edge) -> Edge:  # noqa: F811  (the imported fixture, by name)
    """The in-process client on the fake Discord API, as in test_edge.py."""
    return edge_fixture


@pytest.fixture
def away(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> Outage:
    """An outage to start on the edge's database; the watch probes every few milliseconds."""
    monkeypatch.setattr(outage, "PROBE_SECONDS", 0.001)
    monkeypatch.setattr(outage, "PROBE_MAX_SECONDS", 0.01)
    monkeypatch.setattr(outage, "STEADY_SECONDS", 0.01)
    monkeypatch.setattr(TURNED_AWAY, "count", 0)  # none left by another test's outage
    return Outage(edge, monkeypatch)


async def shown(edge: Edge) -> bool:
    """Whether game 1 is recorded as shown as it is."""
    game = await edge.store.get(1)
    return game is not None and game.board_message_seq == game.seq


async def started_turn(edge: Edge) -> tuple[FakeMessage, FakeUser]:
    """A two-player game's first turn, shown and recorded, and the player to move."""
    turn = await started(edge)
    await until(lambda: shown(edge), "the first turn recorded")
    (mover_id,) = turn.pinged_user_ids
    return turn, edge.host if mover_id == edge.host.id else edge.guest


async def test_a_click_while_the_database_is_away_is_told_the_game_is_paused(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    turn, mover = await started_turn(edge)
    with caplog.at_level(logging.INFO):
        away.fail("get", "append_actions")
        for _ in range(2):
            answer = await private(edge.click(mover, turn, "North (straight on)"))
            assert "The game is paused for a moment" in answer
            assert "unchanged" not in answer
        away.end()
        await until(lambda: edge.store.database.availability.up, "the database back")
        await until(lambda: "the database is back" in caplog.text, "the line saying so")
    said = [(r.levelname, r.name, r.getMessage()) for r in caplog.records if r.levelno > 10]
    outages = [(level, line) for level, name, line in said if name == "bot.runtime.outage"]
    reason = "ConnectionRefusedError: [Errno 111] Connect call failed"
    assert outages[0] == (
        "WARNING",
        f"the database is unavailable ({reason}); games are paused until it is back",
    )
    assert [level for level, _ in outages] == ["WARNING", "INFO"]
    assert outages[1][1].endswith("; 2 clicks and commands were turned away")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    played = await edge.click(mover, turn, "North (straight on)").response()
    assert played.response_type in UPDATED, "played as soon as it is back"


async def test_clicks_turned_away_are_logged_only_in_the_outage_s_two_lines(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/reliability.md, The database and the disk: one WARNING when the database goes, one
    INFO when it is back, and nothing per click (an outage's hundreds of clicks would bury
    where it starts and ends)."""
    turn, mover = await started_turn(edge)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        away.fail("get", "append_actions")
        for _ in range(3):
            await private(edge.click(mover, turn, "North (straight on)"))
        away.end()
        await until(lambda: "the database is back" in caplog.text, "the line saying so")
    said = [(r.levelname, r.name, r.getMessage()) for r in caplog.records]
    assert [(level, name) for level, name, _ in said] == [
        ("WARNING", "bot.runtime.outage"),
        ("INFO", "bot.runtime.outage"),
    ], said
    assert said[1][2].endswith("; 3 clicks and commands were turned away"), said


async def test_a_click_while_the_database_is_away_is_told_so_in_the_player_s_language(
    edge: Edge, away: Outage
) -> None:
    """The private answer speaks the clicking player's language, not the server's."""
    turn, mover = await started_turn(edge)
    mover.locale = "fr"  # the server speaks English
    away.fail("get", "append_actions")
    answer = await private(edge.click(mover, turn, "North (straight on)"))
    away.end()
    assert answer == messages.text("error.database_paused", "fr")
    assert answer != messages.text("error.database_paused", "en")


async def test_each_outage_s_line_counts_only_the_clicks_turned_away_during_it(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The count starts again from nothing once an outage's line has said it: without that,
    the second outage's line would count the first one's clicks again."""
    turn, mover = await started_turn(edge)

    def back_lines() -> list[str]:
        said = [record.getMessage() for record in caplog.records]
        return [line for line in said if line.startswith("the database is back")]

    async def turning_away(clicks: int) -> None:
        """An outage that turns `clicks` clicks away, until the line saying it is over."""
        ended = len(back_lines()) + 1
        away.fail("get", "append_actions")
        for _ in range(clicks):
            answer = await private(edge.click(mover, turn, "North (straight on)"))
            assert "The game is paused for a moment" in answer
        away.end()
        await until(lambda: len(back_lines()) == ended, "the line saying the outage is over")

    with caplog.at_level(logging.INFO, logger="bot.runtime.outage"):
        await turning_away(2)
        await turning_away(1)
    counts = [
        re.search(r"; (\d+) clicks and commands were turned away", line) for line in back_lines()
    ]
    assert [int(found[1]) if found else None for found in counts] == [2, 1], back_lines()


async def test_a_move_stored_but_not_shown_counts_and_is_shown_once_the_database_is_back(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    turn, mover = await started_turn(edge)
    with caplog.at_level(logging.INFO):
        away.fail("set_board_message")
        handle = edge.click(mover, turn, "North (straight on)")
        assert (await handle.response()).response_type in UPDATED
        (told,) = await handle.followups(1)
        assert told.ephemeral
        assert told.content.startswith("Your move counts: it is saved.")
        assert not await shown(edge), "not recorded as shown"
        away.end()
        await until(lambda: shown(edge), "the game shown again")
        await until(lambda: "game 1: its current message is shown" in caplog.text, "the log")
        await until(lambda: "the database is back" in caplog.text, "the outage's end")
    game = await edge.store.get(1)
    assert game is not None
    assert game.board_message_id == turn.id, "the message the click edited, adopted"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "; 0 clicks and commands were turned away" in caplog.text, "the move was taken"


async def test_a_move_whose_next_turn_an_outage_cuts_off_as_it_is_drawn_logs_nothing_per_game(
    edge: Edge, away: Outage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away as the next turn's message is drawn (the read of who may be
    pinged), before Discord is asked: the turn played is answered by its line, the log says
    nothing of the game (the outage's own lines say the database was away, and Discord failed
    nothing), and the next turn is shown once the database is back."""
    turn, mover = await started_turn(edge)
    quiet = AwayStore.all_quiet

    async def reading(self: AwayStore) -> dict[int, QuietRow]:
        away.refuse()
        return await quiet(self)

    monkeypatch.setattr(AwayStore, "all_quiet", reading)
    edge.bot.service.away.changed_elsewhere()  # the next ping reads everyone's quiet hours
    with caplog.at_level(logging.INFO):
        away.fail()
        while buttons := edge.fake.world.messages[turn.id].enabled_buttons():
            label = buttons[0].label
            assert label is not None
            await edge.click(mover, edge.fake.world.messages[turn.id], label).answer()
        assert not await shown(edge), "not shown during the outage"
        away.end()
        await until(lambda: shown(edge), "the game shown once the database is back")
        await until(lambda: "the database is back" in caplog.text, "the outage's end")
    only_the_outage_s_warning(caplog)


async def test_a_move_stored_but_not_shown_is_told_it_counts_in_the_mover_s_language(
    edge: Edge, away: Outage
) -> None:
    """The private answer that the move counts speaks the mover's language, not the
    server's."""
    turn, mover = await started_turn(edge)
    mover.locale = "uk"  # the server speaks English
    away.fail("set_board_message")
    handle = edge.click(mover, turn, "North (straight on)")
    assert (await handle.response()).response_type in UPDATED
    (told,) = await handle.followups(1)
    away.end()
    assert told.ephemeral
    assert told.content == messages.text("error.move_saved", "uk")
    await until(lambda: shown(edge), "the game shown again")


async def test_a_move_stored_whose_showing_fails_unexpectedly_counts_and_names_the_error_s_code(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A failure that is not the database's (a bug, a worker's failure) while showing a stored
    move: the answer still says the move counts, with the code of the error logged, and does
    not ask to try again."""
    turn, mover = await started_turn(edge)
    before = await edge.store.get(1)
    assert before is not None

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug while recording the game's message")

    monkeypatch.setattr(edge.store, "set_board_message", broken)
    with caplog.at_level(logging.ERROR):
        handle = edge.click(mover, turn, "North (straight on)")
        assert (await handle.response()).response_type in UPDATED
        (told,) = await handle.followups(1)
    assert told.ephemeral
    assert told.content.startswith("Your move counts: it is saved."), told.content
    assert "try again" not in told.content
    said = [record.getMessage() for record in caplog.records]
    (code,) = [
        line.split()[1] for line in said if line.endswith("while showing game 1 after a move")
    ]
    assert f"error code {code}" in told.content, "the code of the error logged"
    after = await edge.store.get(1)
    assert after is not None
    assert after.seq > before.seq, "the move is stored"


async def test_a_move_left_unshown_through_a_long_outage_is_shown_as_soon_as_it_ends(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outage outlasts the first pause before the game is tried again, and the pause after
    it would be an hour: the game is shown all the same as soon as the database is back, since
    each try waits for the database rather than failing against it."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    availability = edge.store.database.availability
    back = availability.back
    tries_waiting: list[str] = []

    async def waited_for() -> None:
        task = asyncio.current_task()
        if task is not None and task.get_name().startswith("redisplay-"):
            tries_waiting.append(task.get_name())
        await back()

    monkeypatch.setattr(availability, "back", waited_for)
    turn, mover = await started_turn(edge)
    with caplog.at_level(logging.INFO):
        away.fail("set_board_message")
        handle = edge.click(mover, turn, "North (straight on)")
        assert (await handle.response()).response_type in UPDATED
        await handle.followups(1)
        await until(
            lambda: bool(tries_waiting) or "showing it again failed" in caplog.text,
            "the first try after the first pause, while the database is away",
        )
        assert not await shown(edge)
        away.end()
        await until(lambda: shown(edge), "shown as soon as the database is back", timeout=5.0)


async def test_a_resignation_stored_but_not_shown_is_shown_once_the_database_is_back(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The resignation is stored and the confirmation says so; the result cannot be recorded
    as shown while the database is away: it is, as soon as it is back (not after the turn
    clock's long patience for a change never shown)."""
    _, mover = await started_turn(edge)
    with caplog.at_level(logging.INFO):
        away.fail("set_board_message")
        handle = await confirm(edge, mover, "marrakech", "resign", button="Resign")
        answer = await handle.answer()
        assert answer.content == "You resigned from game #1.", "the confirmation says so"
        (told,) = await handle.followups(1)  # the channel is told by the game's messages
        assert told.ephemeral
        assert "paused" in told.content
        assert "unchanged" not in told.content
        assert not await shown(edge), "not recorded as shown"
        away.end()
        await until(lambda: shown(edge), "the game shown again")
    game = await edge.store.get(1)
    assert game is not None
    assert game.status == "over"
    final = edge.fake.world.messages[game.board_message_id or 0]
    assert "is over" in final.embed_text(), "the result, adopted rather than posted again"
    results = [m for m in edge.fake.messages(edge.channel) if "game record" in m.embed_text()]
    assert len(results) == 1, edge.fake.transcript(edge.channel)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_heartbeat_the_disk_refuses_is_written_again_once_there_is_room(
    edge: Edge, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the heartbeat's folder should be", encoding="ascii")
    client = MarrakechClient(heartbeat=Heartbeat(blocked / "heartbeat"), store=edge.store)
    with caplog.at_level(logging.INFO, logger="bot.edge.client"):
        await client._beat()
        await client._beat()  # logged once
        blocked.unlink()
        await client._beat()
    assert [(r.levelname, r.getMessage()[:32]) for r in caplog.records] == [
        ("WARNING", "cannot write the heartbeat file "),
        ("INFO", "the heartbeat file is written ag"),
    ]
    record = read_heartbeat(blocked / "heartbeat")
    assert record is not None
    assert record.beaten_at is not None


async def test_each_spell_of_refused_heartbeats_is_logged_once_as_it_starts_and_once_as_it_ends(
    edge: Edge, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Good beats after the file is written again log nothing, and a later full disk is
    warned about again."""
    blocked = tmp_path / "blocked"
    client = MarrakechClient(heartbeat=Heartbeat(blocked / "heartbeat"), store=edge.store)
    with caplog.at_level(logging.INFO, logger="bot.edge.client"):
        for _ in range(2):
            blocked.write_text("a file where the heartbeat's folder should be", encoding="ascii")
            await client._beat()
            await client._beat()
            blocked.unlink()
            await client._beat()
            await client._beat()
            for written in blocked.iterdir():
                written.unlink()
            blocked.rmdir()
    assert [(r.levelname, r.getMessage()[:32]) for r in caplog.records] == [
        ("WARNING", "cannot write the heartbeat file "),
        ("INFO", "the heartbeat file is written ag"),
    ] * 2


async def test_the_turn_clock_looks_again_as_soon_as_the_database_is_back(
    edge: Edge, away: Outage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass of the turn clock meets the outage and would wait an hour to try again; the
    database coming back wakes it at once, so timeouts and reminders due meanwhile follow."""
    monkeypatch.setattr(scheduler_module, "BACKOFF_SECONDS", 3600.0)
    monkeypatch.setattr(scheduler_module, "BACKOFF_MAX_SECONDS", 3600.0)
    turns = edge.service.turns
    passes = {"failed": 0, "ok": 0}
    plain = turns.due_work

    async def due_work() -> Any:
        try:
            found = await plain()
        except Exception:
            passes["failed"] += 1
            raise
        passes["ok"] += 1
        return found

    monkeypatch.setattr(turns, "due_work", due_work)
    away.fail("claim_due")
    edge.bot.scheduler.wake()
    await until(lambda: passes["failed"] >= 1, "a pass that met the outage")
    ok = passes["ok"]
    away.end()
    await until(lambda: passes["ok"] > ok, "a pass once the database is back")


async def started_in(edge: Edge, channel: FakeChannel) -> tuple[FakeMessage, FakeUser]:
    """A two-player game of host and guest started in `channel`: its first turn's message,
    posted and recorded, and the player to move."""
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=channel, seats=2).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids))
    game_id = int((turn.enabled_buttons()[0].custom_id or "").split(":")[1])
    await until(lambda: shown_game(edge, game_id), "the first turn recorded, the lobby led to it")
    (mover_id,) = turn.pinged_user_ids
    return turn, edge.host if mover_id == edge.host.id else edge.guest


async def test_a_discord_outage_over_several_games_is_one_warning_and_one_info(
    edge: Edge, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/reliability.md, Discord's faults: Discord answers 503 to every request while three
    games are played, each click's answer and each game's display failing, and the display
    trying each game again more times than its tries allow. The operator reads one WARNING as
    Discord starts failing and one INFO once it answers again, nothing per game or per click
    above DEBUG; the outage spends no try, so once Discord is back every game shows its
    current turn, once."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 0.01))
    monkeypatch.setattr(outage, "STEADY_SECONDS", 0.01)
    edge.fake.rest.limits.enabled = False  # tries a hundredth of a second apart
    guild = edge.channel.guild
    assert guild is not None
    channels = [edge.channel, *(edge.fake.add_text_channel(guild, f"more-{n}") for n in (2, 3))]
    turns = [await started_in(edge, channel) for channel in channels]
    # no request of the starts still on its way, to come back answered in the outage
    assert await HANDLERS.drained(30.0), "a start's handler is still running"
    tries: dict[int, int] = {}

    def tried(record: logging.LogRecord) -> bool:
        said = re.match(
            r"game (\d+): (showing it again failed|its current message was not)",
            record.getMessage(),
        )
        if said:
            tries[int(said[1])] = tries.get(int(said[1]), 0) + 1
        return True

    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="bot"):
        caplog.handler.addFilter(tried)
        faults = edge.fake.faults
        # discord.py tries an interaction's answer again after a 5xx for 25 s: the answers'
        # connections are cut instead, and every other request is answered 503
        down = [
            faults.add(None, r"/(interactions|webhooks)/.*", Disconnect(), times=None),
            faults.add(None, r".*", ServerError(503), times=None),
        ]
        for turn, mover in turns:
            edge.click(mover, turn, "North (straight on)")
        more = len(display.REDISPLAY_DELAYS_SECONDS) + 2  # the click's post, then the tries
        await until(
            lambda: (
                all(tries.get(game_id, 0) >= more for game_id in (1, 2, 3))
                or "gave up" in caplog.text
            ),
            "every game tried again more times than its tries",
        )
        for rule in down:
            rule.times = rule.hits  # Discord answers again
        for game_id in (1, 2, 3):
            await until(partial(shown_game, edge, game_id), f"game {game_id} shown")
        await until(lambda: "Discord answers again" in caplog.text, "the line saying so")
        assert await HANDLERS.drained(30.0), "a click's handler is still running"
    said = [
        (record.levelname, record.name, record.getMessage())
        for record in caplog.records
        if record.levelno > logging.DEBUG and record.name.startswith("bot")
    ]
    assert [(level, name) for level, name, _ in said] == [
        ("WARNING", "bot.runtime.outage"),
        ("INFO", "bot.runtime.outage"),
    ], said
    assert said[0][2].startswith("Discord is failing ("), said
    assert re.fullmatch(
        r"Discord answers again after \d+\.\d s; \d+ requests failed meanwhile", said[1][2]
    ), said
    for game_id, channel in enumerate(channels, start=1):
        view = await edge.service.play.look(game_id)
        assert view.seq > 1, f"game {game_id}: the move stands"
        current = [
            m.id
            for m in edge.fake.messages(channel)
            if any(
                (b.custom_id or "").startswith(f"mk:{game_id}:{view.seq}:")
                for b in m.enabled_buttons()
            )
        ]
        assert current == [view.game.board_message_id], f"game {game_id}: its turn shown once"


async def test_a_try_discord_failed_spends_none_though_another_request_found_it_back(
    edge: Edge, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord answers 503 to the game's every try, and after each a request sent before the
    outage comes back answered, which finds Discord back for a moment (as one in flight when
    it went would): each try was still cut off by Discord, so none is spent, and once Discord
    serves again the game is shown, never given up until a restart."""
    monkeypatch.setattr(display, "REDISPLAY_DELAYS_SECONDS", (0.0, 0.01))
    edge.fake.rest.limits.enabled = False  # tries a hundredth of a second apart
    turn, mover = await started_in(edge, edge.channel)
    try_showing = display.GameDisplay._try_showing
    tries = 0

    async def then_an_earlier_request_answers(self: display.GameDisplay, game_id: int) -> bool:
        nonlocal tries
        shown = await try_showing(self, game_id)
        if not shown:
            tries += 1
            DISCORD.answered()  # a request from before the outage, answered now
        return shown

    monkeypatch.setattr(display.GameDisplay, "_try_showing", then_an_earlier_request_answers)
    faults = edge.fake.faults
    down = [
        faults.add(None, r"/(interactions|webhooks)/.*", Disconnect(), times=None),
        faults.add(None, r".*", ServerError(503), times=None),
    ]
    with caplog.at_level(logging.DEBUG, logger="bot"):
        edge.click(mover, turn, "North (straight on)")
        more = len(display.REDISPLAY_DELAYS_SECONDS) + 2
        await until(lambda: tries >= more or "gave up" in caplog.text, "more tries than allowed")
        for rule in down:
            rule.times = rule.hits  # Discord answers again
        await until(partial(shown_game, edge, 1), "the game shown once Discord is back")
        assert await HANDLERS.drained(30.0), "the click's handler is still running"
    assert "gave up" not in caplog.text


async def shown_game(edge: Edge, game_id: int) -> bool:
    """Whether the game is recorded as shown as it is."""
    game = await edge.store.get(game_id)
    return game is not None and game.board_message_seq == game.seq
