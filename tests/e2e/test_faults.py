"""Discord faults through the fake API: the game goes on and shows exactly what it is.

One game in one bot run meets, turn after turn (each new message or edit faulted whichever way
it goes: through a fresh interaction's webhook, or with the bot token): a 429 with retry-after
on the next turn's post
and on a click's answer, a 502 on the post and on a lobby edit, a 403 on a lobby edit (shown
again a second later), a post Discord never answers (the bot gives up after its own timeout,
then shows the turn once), a connection cut under the post, a 403 on the post (the player is
told which permissions are missing, and the turn appears once they are back), and a gateway
disconnect with a click sent meanwhile (replayed on RESUME, answered). After each, the one live
message of the game shows its current seq, and the log replays to the snapshot.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import decision, live_decisions, settled, stored_games
from tests.e2e.quiet import has_picture, read_turn_line

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
POST = r"/channels/\d+/messages|/webhooks/\d+/[^/]+"
"""A new message: a follow-up of the click (what the bot uses while it is fresh), or a post
with the bot token."""
CALLBACK = "/interactions/{interaction_id}/{token}/callback"
EDIT = r"/channels/\d+/messages/\d+|/webhooks/\d+/[^/]+/messages/[^/]+"
"""An edit, through an interaction's webhook or with the bot token."""
UPDATED = (6, 7)


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


class Table:
    def __init__(self, fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser]) -> None:
        self.fake = fake
        self.channel = channel
        self.users = {user.id: user for user in users}
        self.turn = 0

    def current(self) -> FakeMessage:
        return self.fake.latest_with_components(self.channel)

    async def orient(self) -> FakeMessage:
        """Click an orientation if the turn waits for one; return the message to place on."""
        message = self.current()
        buttons = [d for b in message.enabled_buttons() if (d := decision(b.custom_id))]
        if any(d.action in ("L", "S", "R") for d in buttons):
            (mover,) = message.pinged_user_ids
            choice = next(d for d in buttons if d.action == "LSR"[self.turn % 3])
            handle = await self.fake.click(self.users[mover], message, choice.custom_id)
            assert (await handle.response()).response_type in UPDATED
            await self.fake.wait_until(
                lambda: any(d.seq > choice.seq for _, d in live_decisions(self.fake, self.channel))
            )
        return self.current()

    async def place(self, message: FakeMessage) -> InteractionHandle:
        """Lay a rug (ends the turn); returns the click's handle."""
        self.turn += 1
        (mover,) = message.pinged_user_ids
        buttons = [d for b in message.enabled_buttons() if (d := decision(b.custom_id))]
        choice = buttons[self.turn % len(buttons)]
        return await self.fake.click(self.users[mover], message, choice.custom_id)

    async def next_turn_shown(self, after: FakeMessage, timeout: float = 10) -> FakeMessage:
        return await self.fake.wait_for_message(
            self.channel,
            lambda m: m.id > after.id and bool(m.pinged_user_ids) and bool(m.enabled_buttons()),
            timeout=timeout,
        )

    def consistent(self, database: Path) -> None:
        """One live game message, at the game's current seq; the log replays."""
        (game,) = stored_games(database).values()
        live = live_decisions(self.fake, self.channel)
        assert {d.seq for _, d in live} == {game.seq}, (game.seq, live)
        assert len({message.id for message, _ in live}) == 1
        turn_messages = [m for m in self.fake.messages(self.channel) if m.pinged_user_ids]
        assert len(turn_messages) == len({shown_turn(m) for m in turn_messages})
        pictured = [m for m in self.fake.messages(self.channel) if has_picture(m)]
        assert [m.id for m in pictured] == [m.id for m, _ in live][:1], "one picture, live"


def answered_502(fake: FakeDiscord, since: int) -> int:
    """How many requests, from the `since`-th the fake recorded on, an injected fault answered
    with a 502."""
    return sum(1 for r in fake.world.requests[since:] if r.fault and r.status == 502)


def shown_turn(message: FakeMessage) -> int:
    """The turn a turn message shows: a finished one's line, or the live one's title."""
    line = read_turn_line(message.content)
    if line is not None:
        return line.turn
    title = re.fullmatch(r".* turn (\d+)", str(message.embeds[0]["title"]))
    assert title is not None, message.embeds[0]
    return int(title[1])


async def test_the_game_survives_discord_faults(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "faults")
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    for person in (alice, bob, carol):
        fake.add_member(guild, person)
    table = Table(fake, channel, [alice, bob, carol])
    database = tmp_path / "marrakech.sqlite3"

    lobby = await (await fake.slash(alice, channel, "marrakech", "new", seats=3)).answer()
    since = len(fake.world.requests)
    edit_fails = fake.faults.server_error("PATCH", EDIT, status=502)
    joined = await fake.slash(bob, channel, "marrakech", "join")
    assert (await joined.answer()).ephemeral
    await edit_fails.wait_fired()
    await fake.wait_until(lambda: f"<@{bob.id}>" in fake.world.messages[lobby.id].embed_text())
    assert answered_502(fake, since) == 1, "the lobby's edit was answered 502"
    edit_refused = fake.faults.forbidden("PATCH", EDIT)  # the lobby is edited again later
    assert (await (await fake.slash(carol, channel, "marrakech", "join")).answer()).ephemeral
    await edit_refused.wait_fired()
    await fake.wait_until(
        lambda: f"<@{carol.id}>" in fake.world.messages[lobby.id].embed_text(), timeout=10
    )
    start = fake.world.messages[lobby.id].button(label="Start").custom_id
    assert start is not None
    await (await fake.click(alice, lobby, start)).response()
    first = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids), timeout=10)
    await settled(database)

    # 429 with retry-after on the next turn's post, and on the answer to the click
    message = await table.orient()
    limited = fake.faults.rate_limit("POST", POST, retry_after=0.2)
    answer_limited = fake.faults.rate_limit("POST", CALLBACK, retry_after=0.2)
    handle = await table.place(message)
    assert (await handle.response()).response_type in UPDATED
    shown = await table.next_turn_shown(message)
    assert limited.hits == 1
    assert answer_limited.hits == 1
    await settled(database)
    table.consistent(database)

    # 502 on the post: discord.py tries again a second later
    message = await table.orient()
    since = len(fake.world.requests)
    failing = fake.faults.server_error("POST", POST, status=502)
    await table.place(message)
    shown = await table.next_turn_shown(message)
    assert failing.hits == 1
    assert answered_502(fake, since) == 1, "the post was answered 502"
    await settled(database)
    table.consistent(database)

    # 502 five times on the post: discord.py's pauses (1, 3, 5, 7 s) outlast the bot's wait,
    # whether the click's answer posts the turn (5 s) or a catch-up does (10 s), and the one
    # log line names what Discord answered, not only that the wait ran out
    message = await table.orient()
    lines = len(bot.lines)
    since = len(fake.world.requests)
    failing = fake.faults.server_error("POST", POST, status=502, times=5)
    await table.place(message)
    shown = await table.next_turn_shown(message, timeout=40)
    assert failing.hits == 5
    assert answered_502(fake, since) == 5, "the post was answered 502 five times"
    line = await bot.wait_for_log(
        r"its current message was not posted|showing it again failed", after=lines
    )
    assert "502 Bad Gateway" in line, line
    await settled(database)
    table.consistent(database)

    # Discord never answers the post: the bot stops waiting, then shows the turn once
    message = await table.orient()
    lines = len(bot.lines)
    hanging = fake.faults.hang("POST", POST)
    handle = await table.place(message)
    assert (await handle.response()).response_type in UPDATED
    await hanging.wait_fired()
    shown = await table.next_turn_shown(message, timeout=20)
    fake.faults.release_hangs(apply=False)  # the held post never reaches the channel
    await bot.wait_for_log(r"its current message is shown", timeout=10, after=lines)
    await settled(database)
    table.consistent(database)

    # the connection is cut under the post (discord.py does not retry that): shown once later
    message = await table.orient()
    cut = fake.faults.disconnect("POST", POST)
    await table.place(message)
    shown = await table.next_turn_shown(message, timeout=15)
    assert cut.hits == 1
    await settled(database)
    table.consistent(database)

    # 403 on the post: the player is told what is missing; the turn appears once it is back
    message = await table.orient()
    refused = fake.faults.forbidden("POST", POST)  # then the private answer may go out
    handle = await table.place(message)
    told = await handle.followups(1, timeout=10)
    assert told[0].ephemeral, told[0].content
    assert "Send Messages" in told[0].content, told[0].content
    assert refused.hits >= 1
    fake.faults.clear()
    shown = await table.next_turn_shown(message, timeout=15)
    await settled(database)
    table.consistent(database)

    # the gateway drops; a click sent meanwhile is replayed on RESUME and answered
    assert fake.session is not None
    resumes = fake.session.resumes
    await fake.drop_gateway(code=4000)
    message = table.current()
    buttons = [d for b in message.enabled_buttons() if (d := decision(b.custom_id))]
    (mover,) = message.pinged_user_ids
    away = await fake.click(table.users[mover], message, buttons[0].custom_id)
    await fake.wait_for_resume()
    assert fake.session is not None
    assert fake.session.resumes == resumes + 1
    assert (await away.response(timeout=10)).response_type in UPDATED
    await fake.wait_until(
        lambda: any(d.seq > buttons[0].seq for _, d in live_decisions(fake, channel)),
        timeout=10,
    )
    await settled(database)
    table.consistent(database)
    assert first.id < shown.id
    log = bot.log_text()
    assert "Traceback" not in log
