"""The Analysis button of a finished game through the real bot process and the fake Discord
API: pressed before a restart and after one (SIGKILL, then a start on the same database, so
nothing the first process kept in memory is left), it gives the same picture, privately."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import told_its_shards
from tests.e2e.fakecord import FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import final_message, open_game
from tests.e2e.test_ratings import resign_the_mover, server

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
DEFERRED_CHANNEL_MESSAGE = 5


@pytest.fixture
def bot_env(bot_env: dict[str, str]) -> dict[str, str]:
    return told_its_shards(bot_env)  # it is restarted


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def analysis(fake: FakeDiscord, user: FakeUser, result: FakeMessage) -> bytes:
    """Press Analysis on the result as `user`: the picture of the private answer."""
    button = fake.world.messages[result.id].button(label="Analysis")
    assert button.custom_id == "mk:analysis:1"
    handle = await fake.click(user, result, button.custom_id)
    deferred = await handle.response()
    assert deferred.response_type == DEFERRED_CHANNEL_MESSAGE, "the press is deferred at once"
    answer = await handle.answer(timeout=60.0)
    assert answer.ephemeral
    assert answer.visible_to == user.id
    assert answer.content.startswith("Game #1: each player's chance of winning")
    (picture,) = answer.attachments
    assert picture.filename == "marrakech-analysis-1.png"
    assert picture.data.startswith(b"\x89PNG")
    return bytes(picture.data)


async def test_the_analysis_button_works_after_a_restart(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    channel, alice, bob = server(fake)
    await open_game(fake, channel, alice, (bob,))
    await resign_the_mover(fake, channel, {alice.id: alice, bob.id: bob})
    result = final_message(fake, channel)
    assert result is not None
    public = [message.id for message in fake.messages(channel)]
    assert public[-1] == result.id
    before = await analysis(fake, alice, result)
    await bot.restart(fake, commands=COMMANDS, sync=False)
    after = await analysis(fake, bob, result)
    assert after == before, "the same record gives the same analysis, in any process"
    # A clean stop waits for the interactions being handled: bob's press is done with.
    assert await bot.stop() == 0
    assert [m.id for m in fake.messages(channel)] == public, "the channel stays quiet"
