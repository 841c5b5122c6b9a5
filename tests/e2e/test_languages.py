"""Languages through the real bot process and the fake Discord API: in a server whose
preferred locale is French, the game's public messages are French (and stay French after a
restart), while a member whose Discord speaks Ukrainian gets private answers in Ukrainian."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import pytest

from tests.e2e.conftest import told_its_shards
from tests.e2e.fakecord import FakeDiscord, FakeMessage, FakeUser, InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import pick

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")


@pytest.fixture
def bot_env(bot_env: dict[str, str]) -> dict[str, str]:
    return told_its_shards(bot_env)  # it is restarted


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def click(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, label: str
) -> InteractionHandle:
    button = fake.world.messages[message.id].button(label=label)
    assert button.custom_id is not None
    return await fake.click(user, fake.world.messages[message.id], button.custom_id)


async def private_text(handle: InteractionHandle) -> str:
    answer = await handle.answer()
    assert answer.ephemeral, f"expected a private answer, got {answer.content!r}"
    return str(answer.content or "") + answer.embed_text()


async def test_a_french_server_and_a_ukrainian_member(
    fake: FakeDiscord, bot_process: BotProcess
) -> None:
    guild = fake.add_guild("Souk", preferred_locale="fr")
    channel = fake.add_text_channel(guild, "jeux")
    olena = fake.add_user("olena", locale="uk")
    camille = fake.add_user("camille", locale="fr")
    for user in (olena, camille):
        fake.add_member(guild, user)
    await bot_process.start_and_wait_ready(fake, commands=COMMANDS)

    registered = fake.world.commands.find(guild.id, "marrakech")
    assert registered is not None
    assert registered["name_localizations"] == {"fr": "marrakech", "uk": "марракеш"}

    rules = await private_text(await fake.slash(olena, channel, "marrakech", "rules"))
    assert "Марракеш коротко" in rules
    assert "капці" in rules

    lobby = await (await fake.slash(olena, channel, "marrakech", "new", seats=2)).answer()
    assert not lobby.ephemeral
    assert "Marrakech : partie n° 1" in lobby.embed_text()
    await (await click(fake, camille, lobby, "Rejoindre")).response()
    joined_again = await fake.slash(olena, channel, "marrakech", "join")
    assert "Ви вже граєте в цій грі." in await private_text(joined_again)
    await (await click(fake, olena, lobby, "Commencer")).response()

    turn = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids))
    (mover_id,) = turn.pinged_user_ids
    mover, other = (olena, camille) if mover_id == olena.id else (camille, olena)
    assert turn.content == f"<@{mover_id}>, c'est votre tour (partie n° 1)."
    assert "Marrakech : partie n° 1 · tour 1" in turn.embed_text()
    refused = await private_text(await click(fake, other, turn, "Nord (tout droit)"))
    expected = "Зараз не ваш хід" if other is olena else "Ce n'est pas votre tour"
    assert expected in refused

    identifies = fake.gateway.identifies
    await bot_process.kill()
    await bot_process.start()
    await bot_process.wait_ready(
        fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
    )
    shown = await (await click(fake, mover, turn, "Nord (tout droit)")).answer()
    assert "Le dé indique" in shown.embed_text(), "after a restart the game still speaks French"
    board = await private_text(await fake.slash(olena, channel, "marrakech", "board"))
    assert "Гра №1: поле зараз" in board

    theirs = turn  # a turn of Camille's: Olena's click on it is refused in Ukrainian
    if mover is olena:  # she plays her turn to its end first
        placement = pick(fake.world.messages[turn.id], 0)
        await (
            await fake.click(olena, fake.world.messages[turn.id], placement.custom_id)
        ).response()
        theirs = await fake.wait_for_message(
            channel, lambda m: m.id > turn.id and m.pinged_user_ids == {camille.id}
        )
    choice = pick(theirs, 0)
    refused = await private_text(await fake.click(olena, theirs, choice.custom_id))
    assert "Зараз не ваш хід" in refused, refused
