"""Pressing Start on a tournament's sign-up, through the real bot and the fake Discord: the
sign-up becomes the standings with their picture in that same edit, so that the message never
names a picture it lacks (the fake fails any test where it does, tests/e2e/conftest.py) and
keeps it even when none of the redraws that follow gets through."""

from __future__ import annotations

import pytest

from tests.e2e.fakecord import ErrorResponse, FakeDiscord
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.tournaments import Scene

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod", "marrakech-admin")


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def test_the_standings_come_with_their_picture_though_every_redraw_fails(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    scene = Scene(fake, 4)
    redraws = fake.faults.add(
        "PATCH",
        f"/channels/{scene.channel.id}/messages/{{message_id}}",
        ErrorResponse(404, 10008, "Unknown Message"),
        times=None,
    )

    message = await scene.open(name="Cup", format="swiss", seats=2)
    await scene.round_ready(1, 2)
    await redraws.wait_fired()

    shown = fake.world.messages[message.id]
    assert "round 1 of" in shown.embed_text(), fake.transcript(scene.channel)
    (picture,) = shown.attachments
    assert picture.filename == "standings.png"
    assert picture.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert shown.embeds[0]["image"]["url"] == "attachment://standings.png"
