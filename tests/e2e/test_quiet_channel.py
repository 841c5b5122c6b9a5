"""A game that keeps its channel quiet, through the real bot process and the fake Discord API.

Whole games of 2, 3 and 4 seats in both variants, humans and AIs; a game whose every seat ends up
played by the AI (its human, reminded once, ran out of time three turns in a row), which
pauses until she rejoins and ends abandoned when she leaves again; an abort; resignations. A
watcher looks at the channel right after every change the fake makes: it never shows two board
pictures (or two messages with live buttons) at once. Once a turn is over its message is one line
of text, with its own turn number and mover, no picture and no button; after an end, an abort, a
resignation, a timeout or a handover no message but the turn being played calls anyone to play;
and the lobby links to the first turn, then to the result (it is not edited at every turn).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.presentation import messages
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import pick
from tests.e2e.quiet import (
    CALL_KEYS,
    CALLS,
    LANGUAGES,
    ChannelWatch,
    check_lobby,
    check_over,
    check_turn_line,
    confirm,
    final_message,
    game_buttons,
    human_turn,
    left_behind,
    lobby_at_first_turn,
    open_game,
    play_to_the_end,
    turn_lines,
)
from tests.e2e.shifted_clock import shift_clock, with_clock

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
TURN_LIMIT = 300


@pytest.fixture
def bot_env(bot_env: dict[str, str], clock_file: Path) -> dict[str, str]:
    return with_clock(bot_env, clock_file)


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


def table(
    fake: FakeDiscord, *names: str, locale: str = "en-US"
) -> tuple[FakeChannel, tuple[FakeUser, ...]]:
    """A server (speaking `locale`) with a channel to play in and its members (`names`)."""
    guild = fake.add_guild("Souk", preferred_locale=locale)
    channel = fake.add_text_channel(guild, "quiet")
    users = tuple(fake.add_user(name) for name in names)
    for user in users:
        fake.add_member(guild, user)
    return channel, users


def test_every_call_to_play_is_looked_for_in_every_language() -> None:
    """What `left_behind` looks for: the words of each call to play, in each language."""
    assert len(CALLS) == len(CALL_KEYS) * len(LANGUAGES)


@pytest.mark.parametrize(
    ("seats", "variant"),
    [
        (2, "standard"),
        (2, "rotate-after"),
        (3, "standard"),
        (3, "rotate-after"),
        (4, "standard"),
        (4, "rotate-after"),
    ],
)
async def test_a_whole_game_keeps_one_picture_and_one_line_per_finished_turn(
    fake: FakeDiscord, bot: BotProcess, seats: int, variant: str
) -> None:
    channel, (alice, bob) = table(fake, "alice", "bob")
    watch = ChannelWatch(fake, channel)
    ais = ("easy", "medium")[: seats - 2]
    lobby = await open_game(fake, channel, alice, (bob,), ais, variant=variant)

    final = await play_to_the_end(fake, channel, {alice.id: alice, bob.id: bob}, lobby.id)

    watch.check()
    assert (await check_over(fake, channel, lobby.id)).id == final.id
    stats = fake.latency()
    print(f"\n{seats} seats, {variant}: click-to-answer latency {stats.describe()}")
    assert stats.unanswered == 0


@pytest.mark.parametrize(("locale", "variant"), [("fr", "standard"), ("uk", "rotate-after")])
async def test_whole_games_on_a_french_and_a_ukrainian_server_keep_the_channel_quiet(
    fake: FakeDiscord, bot: BotProcess, locale: str, variant: str
) -> None:
    channel, (alice, bob) = table(fake, "alice", "bob", locale=locale)
    watch = ChannelWatch(fake, channel)
    lobby = await open_game(fake, channel, alice, (bob,), ("medium",), variant=variant)

    final = await play_to_the_end(fake, channel, {alice.id: alice, bob.id: bob}, lobby.id)

    watch.check()
    assert (await check_over(fake, channel, lobby.id)).id == final.id
    language = locale[:2]
    assert turn_lines(fake, channel), "finished turns told in the server's language"
    assert all(
        told.startswith(messages.catalogue(language)["story.line"].split("{")[0])
        for told in (message.content for message, _, _ in turn_lines(fake, channel))
    )


async def time_out_three_times(
    fake: FakeDiscord,
    bot: BotProcess,
    clock_file: Path,
    channel: FakeChannel,
    lobby_id: int,
    offset: float,
) -> float:
    """Let the one person of the game run out of time three turns in a row (reminded once),
    checking the channel after each; returns the clock's new shift."""
    reminder = None
    for in_a_row in (1, 2, 3):
        turn = await fake.wait_until(
            lambda: human_turn(fake, channel), timeout=30, what="alice's turn"
        )
        check_lobby(fake, channel, lobby_id, None)
        if in_a_row == 1:  # half of the time gone: a reminder calls alice to play
            await shift_clock(bot, clock_file, offset + TURN_LIMIT / 2 + 1, fake)

            def reminds(m: FakeMessage, t: FakeMessage = turn) -> bool:
                return "half of your time" in m.content and m.id > t.id

            reminder = await fake.wait_for_message(channel, reminds)
        offset += TURN_LIMIT + 2
        await shift_clock(bot, clock_file, offset, fake)

        def retired(t: FakeMessage = turn) -> bool:
            return not fake.world.messages[t.id].enabled_buttons()

        await fake.wait_until(retired, what="the timed-out turn retired")
        check_turn_line(fake.world.messages[turn.id])
        if reminder is not None:

            def reminder_over(r: FakeMessage = reminder) -> bool:
                return "half of your time" not in fake.world.messages[r.id].content

            await fake.wait_until(reminder_over, what="the reminder saying its turn is over")
        if in_a_row < 3:  # the AI seat plays, then it is alice's turn again

            def next_turn(t: FakeMessage = turn) -> FakeMessage | None:
                m = human_turn(fake, channel)
                return m if m is not None and m.id > t.id else None

            current = await fake.wait_until(next_turn, timeout=30, what="alice's next turn")
            assert left_behind(fake, channel, current) == [], fake.transcript(channel)
    return offset


def paused_messages(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.messages(channel) if "is paused" in m.content]


async def test_a_game_no_one_plays_pauses_resumes_on_rejoin_then_ends_abandoned(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path
) -> None:
    channel, (alice,) = table(fake, "alice")
    watch = ChannelWatch(fake, channel)
    lobby = await open_game(fake, channel, alice, (), ("easy",), turn_limit=TURN_LIMIT)

    offset = await time_out_three_times(fake, bot, clock_file, channel, lobby.id, 0)
    # handed over: the AI plays out the round, then the game waits for a person
    (paused,) = await fake.wait_until(
        lambda: paused_messages(fake, channel) or None, timeout=60, what="the pause"
    )
    assert paused.pinged_user_ids == {alice.id}, "alice is told she may take her seat back"
    assert left_behind(fake, channel, paused) == [], fake.transcript(channel)
    notices = [m.content for m in fake.messages(channel) if "ran out of time" in m.content]
    assert len(notices) == 3
    assert "3 turns in a row" in notices[-1]
    assert len(turn_lines(fake, channel)) <= 7, "no more than a round after the handover"

    # alice takes her seat back: the game goes on and calls her again
    await (await fake.slash(alice, channel, "marrakech", "rejoin")).response()
    await fake.wait_until(
        lambda: (m := human_turn(fake, channel)) is not None and "is paused" not in m.content,
        timeout=30,
        what="alice's turn after she rejoined",
    )
    assert "is paused" not in fake.world.messages[paused.id].content, "the pause is over"

    # she leaves again: paused once more, and this time no one comes back
    offset = await time_out_three_times(fake, bot, clock_file, channel, lobby.id, offset)
    await fake.wait_until(
        lambda: len(paused_messages(fake, channel)) == 1,
        timeout=60,
        what="the second pause",
    )
    await shift_clock(bot, clock_file, offset + TURN_LIMIT + 2, fake)
    ended = await fake.wait_for_message(channel, lambda m: "ended as abandoned" in m.embed_text())
    await fake.wait_until(
        lambda: "abandoned" in fake.world.messages[lobby.id].embed_text(),
        what="the lobby saying the game was abandoned",
    )
    await fake.wait_until(
        lambda: not paused_messages(fake, channel), what="the paused turn retired"
    )
    watch.check()
    assert left_behind(fake, channel, None) == [], fake.transcript(channel)
    assert final_message(fake, channel) is None, "no result: the game was not played out"
    assert "stats" in ended.embed_text()


async def test_an_abort_leaves_nothing_that_calls_anyone_to_play(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    channel, (alice, bob) = table(fake, "alice", "bob")
    watch = ChannelWatch(fake, channel)
    lobby = await open_game(fake, channel, alice, (bob,))
    users = {alice.id: alice, bob.id: bob}

    turn = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    (mover,) = turn.pinged_user_ids
    edits = turn.edit_count
    await (await fake.click(users[mover], turn, pick(turn, 0).custom_id)).response()
    await fake.wait_until(lambda: fake.world.messages[turn.id].edit_count > edits)
    assert (await lobby_at_first_turn(fake, channel, lobby.id)).id == turn.id

    await confirm(fake, alice, await fake.slash(alice, channel, "marrakech", "abort"), "abort")
    await fake.wait_until(
        lambda: "aborted" in fake.world.messages[lobby.id].embed_text(), what="the lobby closed"
    )
    await fake.wait_until(
        lambda: "game aborted by" in fake.world.messages[turn.id].content,
        what="the turn retired",
    )
    watch.check()
    check_turn_line(fake.world.messages[turn.id])
    assert left_behind(fake, channel, None) == [], fake.transcript(channel)
    check_lobby(fake, channel, lobby.id, None)
    assert f"<@{alice.id}>" in fake.world.messages[lobby.id].embed_text()


async def test_resignations_retire_the_turn_and_end_the_game(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    channel, (alice, bob, carol) = table(fake, "alice", "bob", "carol")
    watch = ChannelWatch(fake, channel)
    lobby = await open_game(fake, channel, alice, (bob, carol))
    users = {user.id: user for user in (alice, bob, carol)}

    for resigned in (1, 2):
        turn = await fake.wait_until(lambda: human_turn(fake, channel), what="a turn")
        (mover,) = turn.pinged_user_ids
        handle = await fake.slash(users[mover], channel, "marrakech", "resign")
        await confirm(fake, users[mover], handle, "resign")

        def resigned_turn(t: FakeMessage = turn) -> bool:
            return "resigned" in fake.world.messages[t.id].content

        await fake.wait_until(resigned_turn, what="the resigned turn retired")
        check_turn_line(fake.world.messages[turn.id])
        if resigned == 1:  # two are left: the game goes on with the next turn

            def next_turn(t: FakeMessage = turn) -> FakeMessage | None:
                m = human_turn(fake, channel)
                return m if m is not None and m.id > t.id else None

            current = await fake.wait_until(next_turn, what="the next turn")
            assert left_behind(fake, channel, current) == [], fake.transcript(channel)

    await fake.wait_until(lambda: final_message(fake, channel), what="the result")
    await fake.wait_until(
        lambda: "see the result" in fake.world.messages[lobby.id].embed_text(),
        what="the lobby linking to the result",
    )
    watch.check()
    await check_over(fake, channel, lobby.id)


async def test_a_message_left_live_is_retired_by_its_first_click(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    """A turn's message that a process killed at the wrong moment left with its buttons while
    the game moved on (here: its buttons put back by hand) is edited down to its line by the
    first click on it, and the clicker is told privately; the same once the game is over."""
    channel, (alice, bob) = table(fake, "alice", "bob")
    lobby = await open_game(fake, channel, alice, (bob,))
    users = {alice.id: alice, bob.id: bob}
    first = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    live = [dict(component) for component in first.components]

    (mover,) = first.pinged_user_ids
    for step in range(4):  # play the first turn through: it is then retired to its line
        shown = fake.world.messages[first.id]
        if not game_buttons(shown):
            break
        edits = shown.edit_count
        await (await fake.click(users[mover], shown, pick(shown, step).custom_id)).response()

        def edited(e: int = edits) -> bool:
            return fake.world.messages[first.id].edit_count > e

        await fake.wait_until(edited)
    await fake.wait_until(
        lambda: (m := human_turn(fake, channel)) is not None and m.id != first.id,
        what="the second turn",
    )

    for told in ("moved on", "not running"):
        if told == "not running":
            await confirm(
                fake, alice, await fake.slash(alice, channel, "marrakech", "abort"), "abort"
            )
            await fake.wait_until(
                lambda: "aborted" in fake.world.messages[lobby.id].embed_text(),
                what="the game aborted",
            )
        left = fake.world.messages[first.id]
        left.components = [dict(component) for component in live]  # left live by a crash
        assert game_buttons(left)
        handle = await fake.click(users[mover], left, game_buttons(left)[0], validate=False)
        await handle.answer()  # the clicked message, edited down
        (private,) = await handle.followups(1)
        retired = fake.world.messages[first.id]
        assert not retired.enabled_buttons(), told
        check_turn_line(retired)
        assert private.ephemeral, private.content
        assert told in private.content
