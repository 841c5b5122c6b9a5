"""Ratings through the real bot process and the fake Discord API: a rated game's result gives
each player's new rating and change, `/marrakech stats` shows the rating with its chart and the
leaderboard lists the players under the line for provisional ratings; a game opened with
`casual:True` says so in its lobby and its result, and changes no rating; a person who resigns
against AI seats is rated last once they have played the game out."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import confirm, final_message, human_turn, open_game

pytestmark = pytest.mark.e2e

MINUS = "\u2212"


def server(fake: FakeDiscord) -> tuple[FakeChannel, FakeUser, FakeUser]:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "rated")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for user in (alice, bob):
        fake.add_member(guild, user)
    return channel, alice, bob


async def resign_the_mover(
    fake: FakeDiscord, channel: FakeChannel, users: dict[int, FakeUser]
) -> FakeUser:
    """The player to move resigns from the 2-player game, which ends; the one who stayed."""
    turn = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    (mover,) = turn.pinged_user_ids
    handle = await fake.slash(users[mover], channel, "marrakech", "resign")
    await confirm(fake, users[mover], handle, "resign")
    await fake.wait_until(lambda: final_message(fake, channel), what="the result")
    return next(user for user_id, user in users.items() if user_id != mover)


async def test_a_rated_game_then_a_casual_one(fake: FakeDiscord, bot: BotProcess) -> None:
    channel, alice, bob = server(fake)
    users = {alice.id: alice, bob.id: bob}
    await open_game(fake, channel, alice, (bob,))
    winner = await resign_the_mover(fake, channel, users)
    loser = bob if winner is alice else alice
    result = final_message(fake, channel)
    assert result is not None
    text = result.embed_text()
    assert "**Ratings**" in text
    assert f"<@{winner.id}> 1,586 (+86, provisional)" in text
    assert f"<@{loser.id}> 1,454 ({MINUS}46, provisional)" in text

    stats = await (await fake.slash(winner, channel, "marrakech", "stats")).answer(timeout=30)
    assert "Rating: **1,586**, provisional (1 of 10 rated games)" in stats.embed_text()
    assert "Best result: **+86** in game #1 (place 1 of 2)" in stats.embed_text()
    chart = Image.open(io.BytesIO(stats.file("rating.png")))
    assert chart.format == "PNG"
    assert chart.width >= 390
    board = await (await fake.slash(loser, channel, "marrakech", "leaderboard")).answer()
    assert str(board.embeds[0].get("description")).splitlines() == [
        "Provisional, fewer than 10 rated games:",
        f"**1.** <@{winner.id}>: **1,586** · 1 rated game",
        f"**2.** <@{loser.id}>: **1,454** · 1 rated game",
    ]

    lobby = await open_game(fake, channel, loser, (winner,), casual=True)
    assert "casual, not rated" in lobby.embed_text()
    await fake.wait_until(
        lambda: (m := human_turn(fake, channel)) is not None and m.id > lobby.id,
        what="the casual game's first turn",
    )
    turn = human_turn(fake, channel)
    assert turn is not None
    (mover,) = turn.pinged_user_ids
    await confirm(
        fake, users[mover], await fake.slash(users[mover], channel, "marrakech", "resign"), "resign"
    )
    casual = await fake.wait_until(
        lambda: next(
            (m for m in fake.messages(channel) if m.id > turn.id and "is over" in m.embed_text()),
            None,
        ),
        what="the casual game's result",
    )
    assert "A casual game: no rating changed." in casual.embed_text()
    again = await (await fake.slash(winner, channel, "marrakech", "stats")).answer(timeout=30)
    assert "Rating: **1,586**, provisional (1 of 10 rated games)" in again.embed_text()


async def test_a_person_who_resigns_against_the_ai_loses_rating_as_the_ai_plays_it_out(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    """No one is left who could take a seat back: the game is not abandoned (which would
    make resigning a way out of a loss), the AI seats play it to its end, and the result
    rates the resignation as the last place."""
    channel, alice, _ = server(fake)
    await open_game(fake, channel, alice, (), ("easy", "easy"))
    turn = await fake.wait_until(lambda: human_turn(fake, channel), what="alice's turn")
    assert turn.pinged_user_ids == {alice.id}
    await confirm(fake, alice, await fake.slash(alice, channel, "marrakech", "resign"), "resign")
    result = await fake.wait_until(
        lambda: final_message(fake, channel), timeout=60, what="the result, played out"
    )
    text = result.embed_text()
    assert "abandoned" not in text
    (alice_rating,) = [line for line in text.splitlines() if line.startswith(f"<@{alice.id}> ")]
    assert f"({MINUS}" in alice_rating, text
    ranking = [
        line for line in text.splitlines() if line.startswith(("**1.**", "**2.**", "**3.**"))
    ]
    assert len(ranking) == 3, text
    assert f"<@{alice.id}>: out of the game" in ranking[-1], text
