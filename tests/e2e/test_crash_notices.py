"""A turn the AI played for someone out of time, and a resignation, are told once, even when
the bot is killed between storing them and telling them.

The real bot process and the fake Discord API, on SQLite and on PostgreSQL. A game of two
people with a turn limit (moved past with the test clock, MARRAKECH_TEST_CLOCK_FILE), whose
first mover lets the time run out: the bot dies (SIGKILL, crash point `auto.committed`) right
after the AI's move for them is committed, before anything of it reaches Discord. After the
restart the channel tells the timeout exactly once, in its place: the timed-out turn's own
line says who ran out of time, before the next turn calls the other player, in the server's
language (English, French, Ukrainian); the same for the turn that hands a seat to the AI
after three in a row. A game of three
in which someone resigns out of turn: the bot dies right after the resignation is committed
(`resign.committed`). After the restart one message tells it: the turn being played, redrawn
in place, not the turn posted a second time. A game its host aborts: the bot dies right after
the abort is committed (`end.committed`), or once the end is told but before that is recorded
(`end.told`). After the restart the end is told once (found in the channel's history in the
second case) and the last turn's message is down to its line, with no button left to click. A
seat taken back from the AI (`/marrakech rejoin`): the bot dies right after the rejoin is
committed (`rejoin.committed`), before its answer, or once it is told but before that is
recorded (`rejoin.told`). After the restart the channel tells it once.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.edge.display import CHANNEL_WINDOW_SECONDS
from bot.presentation import messages
from bot.storage import open_database
from bot.storage.database import BACKENDS, Backend
from tests.e2e.conftest import told_its_shards
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import check_turn_line, left_behind
from tests.e2e.shifted_clock import pass_while_down, shift_clock, with_clock
from tests.postgres import create_database, drop_database

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
CRASH_VAR = "MARRAKECH_CRASH_AT"
TURN_LIMIT = 300


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    name: Backend = request.param
    return name


@pytest.fixture
async def target(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[str]:
    """The bot's database: an SQLite file, or a PostgreSQL database of its own."""
    if backend == "sqlite":
        yield str(tmp_path / "marrakech.sqlite3")
        return
    server: str = request.getfixturevalue("postgres_server")
    url = await create_database(server)
    try:
        yield url
    finally:
        await drop_database(server, url)


@pytest.fixture
def crash_at() -> str:
    """Where the bot dies (each test names its point)."""
    raise NotImplementedError("parametrize crash_at")


@pytest.fixture
def bot_env(
    bot_env: dict[str, str], clock_file: Path, target: str, crash_at: str, tmp_path: Path
) -> dict[str, str]:
    """The bot on `target`, with the test clock, armed to die at `crash_at`; its heartbeat in
    the test's folder (on PostgreSQL it would default to the working folder's data/)."""
    return {
        **with_clock(told_its_shards(bot_env), clock_file),
        "MARRAKECH_DB": target,
        "MARRAKECH_HEARTBEAT": str(tmp_path / "heartbeat"),
        CRASH_VAR: crash_at,
    }


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def restarted(fake: FakeDiscord, bot: BotProcess, clock_file: Path, point: str) -> None:
    """Wait for the bot to die at `point`, then start it again, disarmed, its clock moved on by
    Discord's window on a channel's posts, as if the restart had taken that long."""
    await bot.wait_for_log(rf"crash point {re.escape(point)}:\d+ reached", timeout=30)
    await bot.wait_exit(timeout=30)
    await pass_while_down(clock_file, CHANNEL_WINDOW_SECONDS, fake)
    bot.env.pop(CRASH_VAR)
    identifies = fake.gateway.identifies
    await bot.start()
    await bot.wait_ready(
        fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
    )


async def press(fake: FakeDiscord, user: FakeUser, message: FakeMessage, action: str) -> None:
    """Click the lobby button of `action`, whatever the language of its label."""
    message = fake.world.messages[message.id]
    (custom_id,) = [
        b.custom_id for b in message.enabled_buttons() if (b.custom_id or "").endswith(action)
    ]
    assert custom_id is not None
    await (await fake.click(user, message, custom_id)).response()


async def game_of_two(
    fake: FakeDiscord, *, locale: str = "en-US", turn_limit: int | None = None
) -> tuple[FakeChannel, FakeMessage, FakeUser, FakeUser]:
    """A game of two people (alice hosts, bob joins) started on a server of `locale`, with
    `turn_limit` if given: its channel, the first turn's message, alice and bob."""
    guild = fake.add_guild("Souk", preferred_locale=locale)
    channel = fake.add_text_channel(guild, "table")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for person in (alice, bob):
        fake.add_member(guild, person)
    limit = {} if turn_limit is None else {"turn_limit": turn_limit}
    lobby = await (
        await fake.slash(alice, channel, "marrakech", "new", options=limit, seats=2)
    ).answer()
    await press(fake, bob, lobby, ":join")
    await press(fake, alice, lobby, ":start")
    first = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids))
    return channel, first, alice, bob


async def slow_game(fake: FakeDiscord, locale: str) -> tuple[FakeChannel, FakeMessage, int, int]:
    """A game of two with a turn limit: its channel, the first turn's message, who moves first
    and the other."""
    channel, first, alice, bob = await game_of_two(fake, locale=locale, turn_limit=TURN_LIMIT)
    (mover,) = first.pinged_user_ids
    (other,) = {alice.id, bob.id} - {mover}
    return channel, first, mover, other


@pytest.mark.parametrize("crash_at", ["auto.committed:1"])
@pytest.mark.parametrize(("locale", "language"), [("en-US", "en"), ("fr", "fr"), ("uk", "uk")])
async def test_a_timeout_cut_off_by_a_kill_is_told_once_in_its_turn_line(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path, locale: str, language: str
) -> None:
    channel, first, mover, other = await slow_game(fake, locale)

    await shift_clock(bot, clock_file, TURN_LIMIT + 2, fake)
    await restarted(fake, bot, clock_file, "auto.committed")
    nxt = await fake.wait_for_message(
        channel, lambda m: m.id > first.id and m.pinged_user_ids == {other}, timeout=30
    )

    print(fake.transcript(channel))
    notice = messages.text("story.timed_out", language, user=f"<@{mover}>")
    told = [m for m in fake.messages(channel) if "⏰" in m.content]
    assert [m.id for m in told] == [first.id], fake.transcript(channel)
    line = told[0].content
    assert notice in line, line
    header = messages.text("story.line", language, game_id=1, turn=1, story="")
    assert line.startswith(header), line
    assert not fake.world.messages[first.id].enabled_buttons(), "the timed-out turn is final"
    assert nxt.enabled_buttons()


@pytest.mark.parametrize("crash_at", ["auto.committed:5"])
async def test_a_handover_cut_off_by_a_kill_is_told_once_in_its_turn_line(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path
) -> None:
    channel, latest, mover, other = await slow_game(fake, "en-US")

    # Both let their time run out; the mover's third turn in a row hands their seat to the
    # AI: the fifth automatic turn, where the bot dies before telling anything of it.
    for shift in range(1, 5):
        await shift_clock(bot, clock_file, shift * (TURN_LIMIT + 2), fake)
        after = latest.id

        def pings(m: FakeMessage, after: int = after) -> bool:
            return m.id > after and bool(m.pinged_user_ids)

        latest = await fake.wait_for_message(channel, pings, timeout=30)
    await shift_clock(bot, clock_file, 5 * (TURN_LIMIT + 2), fake)
    await restarted(fake, bot, clock_file, "auto.committed")
    await fake.wait_for_message(
        channel, lambda m: m.id > latest.id and m.pinged_user_ids == {other}, timeout=30
    )

    notice = messages.text("story.handed_over", "en", user=f"<@{mover}>", count=3)
    told = [m for m in fake.messages(channel) if notice in m.content]
    assert [m.id for m in told] == [latest.id], fake.transcript(channel)
    assert not fake.world.messages[latest.id].enabled_buttons(), "the handed-over turn is final"


def live_seqs(messages: list[FakeMessage]) -> set[int]:
    """The seqs of the game decisions the messages' live buttons offer."""
    return {
        int(custom_id.split(":")[2])
        for message in messages
        for button in message.enabled_buttons()
        if (custom_id := button.custom_id or "").startswith("mk:1:")
    }


@pytest.mark.parametrize("crash_at", ["resign.committed:1"])
async def test_a_resignation_cut_off_by_a_kill_is_told_once(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path
) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "three")
    people = {user.id: user for user in map(fake.add_user, ("alice", "bob", "carol"))}
    for person in people.values():
        fake.add_member(guild, person)
    alice, bob, carol = people.values()
    lobby = await (await fake.slash(alice, channel, "marrakech", "new", seats=3)).answer()
    for guest in (bob, carol):
        current = fake.world.messages[lobby.id]
        join = current.button(label="Join").custom_id
        assert join is not None
        await (await fake.click(guest, current, join)).response()
    current = fake.world.messages[lobby.id]
    start = current.button(label="Start").custom_id
    assert start is not None
    await (await fake.click(alice, current, start)).response()
    first = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids))
    (mover,) = first.pinged_user_ids
    quitter = next(user for user in people.values() if user.id != mover)
    (seq,) = live_seqs([first])

    question = await (await fake.slash(quitter, channel, "marrakech", "resign")).answer()
    (go,) = [b for b in question.enabled_buttons() if (b.custom_id or "").endswith(":resign")]
    assert go.custom_id is not None
    await fake.click(quitter, question, go.custom_id)  # never answered: the bot dies first
    await restarted(fake, bot, clock_file, "resign.committed")

    await fake.wait_until(
        lambda: live_seqs(fake.messages(channel)) == {seq + 1},
        timeout=30,
        what="the turn being played shown as it is after the resignation",
    )
    told = [m.id for m in fake.messages(channel) if "resigned" in m.content + m.embed_text()]
    assert told == [first.id], fake.transcript(channel)


@pytest.mark.parametrize("crash_at", ["end.committed:1", "end.told:1"])
async def test_an_abort_cut_off_by_a_kill_is_told_once_and_leaves_no_button(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path, crash_at: str
) -> None:
    channel, first, alice, _ = await game_of_two(fake)

    question = await (await fake.slash(alice, channel, "marrakech", "abort")).answer()
    (go,) = [b for b in question.enabled_buttons() if (b.custom_id or "").endswith(":abort")]
    assert go.custom_id is not None
    await fake.click(alice, question, go.custom_id)  # the bot dies before the end is recorded
    await restarted(fake, bot, clock_file, crash_at.split(":")[0])

    notice = messages.text("abort.done", "en", game_id=1, user=f"<@{alice.id}>")
    await fake.wait_until(
        lambda: any(notice in m.embed_text() for m in fake.messages(channel)),
        timeout=30,
        what="the end of the aborted game told",
    )
    await fake.wait_until(
        lambda: not live_seqs(fake.messages(channel)),
        timeout=30,
        what="the last turn's buttons gone",
    )
    print(fake.transcript(channel))
    told = [m.id for m in fake.messages(channel) if notice in m.embed_text()]
    assert len(told) == 1, fake.transcript(channel)
    check_turn_line(fake.world.messages[first.id])
    assert left_behind(fake, channel, None) == [], fake.transcript(channel)


@pytest.mark.parametrize("crash_at", ["rejoin.committed:1", "rejoin.told:1"])
async def test_a_rejoin_cut_off_by_a_kill_is_told_once(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path, target: str, crash_at: str
) -> None:
    channel, first, alice, bob = await game_of_two(fake)
    (mover,) = first.pinged_user_ids
    back = bob if mover == alice.id else alice  # not to move: the AI does not play meanwhile
    db = await open_database(target)
    try:  # the seat handed to the AI (as after three timeouts)
        async with db.transaction() as conn:
            await conn.execute(
                "UPDATE seats SET autoplay = 1, timeouts = 3 WHERE game_id = 1 AND user_id = $1",
                back.id,
            )
            await conn.execute("UPDATE games SET rev = rev + 1 WHERE id = 1")
    finally:
        await db.close()

    await fake.slash(back, channel, "marrakech", "rejoin")  # the bot dies before it is recorded
    await restarted(fake, bot, clock_file, crash_at.split(":")[0])

    notice = messages.text("rejoin.done", "en", user=f"<@{back.id}>", game_id=1)
    await fake.wait_until(
        lambda: any(m.content == notice for m in fake.messages(channel)),
        timeout=30,
        what="the rejoin told",
    )
    told = [m.id for m in fake.messages(channel) if m.content == notice]
    assert len(told) == 1, fake.transcript(channel)
