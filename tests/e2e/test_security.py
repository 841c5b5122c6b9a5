"""Who may do what, checked against the real bot process (and what it asks of Discord).

Only seated players act, and only on their own turn; only the host or a member with Manage
Channels ends a game; only Manage Server changes the server's settings. Discord hides the
moderator and admin commands from other members, but a server admin can override that (played
here with `validate=False`), so the bot checks again itself. The bot asks for no privileged
intent, and neither its token nor an interaction's shows in its output (at LOG_LEVEL=DEBUG, as
the tests run it).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.fakecord import FakeDiscord, InteractionHandle, InteractionInputError, permissions
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import pick, settled

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod", "marrakech-admin")
DANGER = 4
"""Discord's style of a button that does something hard to undo."""


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


def status(database: Path) -> str:
    with sqlite3.connect(database) as connection:
        return str(connection.execute("SELECT status FROM games").fetchone()[0])


def variant(database: Path, guild_id: int) -> str | None:
    """The server's default variant as stored (None: never set)."""
    with sqlite3.connect(database) as connection:
        row = connection.execute(
            "SELECT variant FROM guild_settings WHERE guild_id = ?", (guild_id,)
        ).fetchone()
    return None if row is None else str(row[0])


async def test_only_the_right_people_act(
    fake: FakeDiscord, bot: BotProcess, bot_token: str, tmp_path: Path
) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "games")
    alice, bob, eve, mod, admin = (
        fake.add_user(name) for name in ("alice", "bob", "eve", "mod", "admin")
    )
    for person in (alice, bob, eve):
        fake.add_member(guild, person)
    fake.add_member(guild, mod, permissions=permissions.MANAGE_CHANNELS)
    fake.add_member(guild, admin, permissions=permissions.MANAGE_GUILD)
    database = tmp_path / "marrakech.sqlite3"

    lobby = await (await fake.slash(alice, channel, "marrakech", "new", seats=2)).answer()

    async def told(handle: InteractionHandle) -> str:
        answer = await handle.answer()
        assert answer.ephemeral, answer.content
        return str(answer.content)

    start = lobby.button(label="Start").custom_id
    assert start is not None
    assert "Only the host" in await told(await fake.click(eve, lobby, start))
    join = lobby.button(label="Join").custom_id
    assert join is not None
    await (await fake.click(bob, lobby, join)).response()
    await (await fake.click(alice, fake.world.messages[lobby.id], start)).response()
    turn = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids), timeout=10)
    await settled(database)
    (mover_id,) = turn.pinged_user_ids
    waiting = bob if mover_id == alice.id else alice
    button = pick(turn, 0).custom_id

    assert "not playing" in await told(await fake.click(eve, turn, button))
    assert "not your turn" in await told(await fake.click(waiting, turn, button))
    assert "Only the host" in await told(await fake.slash(bob, channel, "marrakech", "abort"))
    hosts = await (await fake.slash(alice, channel, "marrakech", "abort")).answer()
    assert hosts.ephemeral, "the host's abort asks first, privately"
    assert [button.style for button in hosts.enabled_buttons()].count(DANGER) == 1, hosts.content

    with pytest.raises(InteractionInputError):
        await fake.slash(eve, channel, "marrakech-mod", "abort")  # hidden from her
    forged = await fake.slash(eve, channel, "marrakech-mod", "abort", validate=False)
    assert "Manage Channels" in await told(forged)
    for person in (eve, mod):
        settings = await fake.slash(
            person, channel, "marrakech-admin", "variant", variant="rotate-after", validate=False
        )
        assert "Manage Server" in await told(settings)
    assert variant(database, guild.id) is None, "a refused change of settings changes nothing"
    allowed = await (
        await fake.slash(admin, channel, "marrakech-admin", "variant", variant="rotate-after")
    ).answer()
    assert allowed.ephemeral
    assert allowed.content == "Saved."
    assert "Assam turns after the rug" in allowed.embed_text(), "the settings as saved"
    assert variant(database, guild.id) == "rotate-after"
    assert status(database) == "running"

    question = await (await fake.slash(mod, channel, "marrakech-mod", "abort")).answer()
    assert question.ephemeral, "a moderator's abort asks first, privately"
    assert status(database) == "running"
    (danger,) = [button for button in question.buttons() if button.style == DANGER]
    assert danger.custom_id is not None
    ended = await fake.click(mod, question, danger.custom_id)
    (announced,) = await ended.followups(1)
    assert not announced.ephemeral
    assert status(database) == "aborted"

    assert fake.session is not None
    assert fake.session.privileged_intents == 0
    log = bot.log_text()
    assert bot_token not in log
    # The bot runs at LOG_LEVEL=DEBUG here: discord.py's gateway stays at INFO, so no
    # interaction is written out with the token that answers as the bot for 15 minutes.
    tokens = list(fake.world.interactions_by_token)
    assert tokens
    assert [token for token in tokens if token in log] == [], "interaction tokens in the log"
    clicks = re.findall(r"DEBUG +bot\.edge\.client: interaction \d+ \(component\) .*: mk:", log)
    assert clicks, "each interaction is noted at DEBUG by the bot itself, without its token"
