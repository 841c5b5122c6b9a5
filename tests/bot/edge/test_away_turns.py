"""The turn message of a person away says until when their clock stands still, and stops
saying it once they are back: by `/marrakech back`, or when their days away run out; the game
waiting for their move is told once that they are back; the channel's lines name them without
pinging them, and a channel that refuses the bot keeps no other game's channel from its line;
a lobby is told nothing. Through the in-process client on the fake Discord API
(tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from bot.edge.inflight import HANDLERS
from bot.services.away import HeldNotice
from bot.services.views import GameView, Reminder
from tests.bot.edge.test_edge import Edge, edge, mover_of
from tests.bot.edge.test_edge_faults import Outage, away
from tests.bot.edge.test_notices import handed_to_ai
from tests.bot.edge.test_watch_buttons import play_turn
from tests.e2e.fakecord import FakeChannel, FakeMessage, FakeUser, permissions

__all__ = ["away", "edge"]

AWAY_LINE = "💤 Away until"


async def duel(
    edge: Edge, turn_limit: int | None = None, channel: FakeChannel | None = None
) -> tuple[FakeMessage, FakeUser, FakeUser]:
    """A started game of the host and the guest (with a turn limit, if given; in `channel`,
    by default the edge's): its first turn, its mover and the other player."""
    options: dict[str, int] = {"seats": 2}
    if turn_limit is not None:
        options["turn_limit"] = turn_limit
    where = channel or edge.channel
    lobby = await edge.command(
        edge.host, ("marrakech", "new"), where, options, validate=True
    ).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(where, lambda m: bool(m.pinged_user_ids))
    mover = await mover_of(edge, turn)
    return turn, mover, edge.guest if mover is edge.host else edge.host


def a_day_later(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> datetime:
    """The bot's clock a day and a minute on, past the end of one day away: that moment."""
    over = edge.service.loader.now() + timedelta(days=1, minutes=1)
    monkeypatch.setattr(edge.service.loader, "clock", lambda: over)
    return over


async def days_over(edge: Edge, user: FakeUser, at: datetime) -> None:
    """The bot tells the end of `user`'s days away, as its scheduler does once they run out."""
    guild = edge.channel.guild
    assert guild is not None
    held = edge.bot.held
    assert held is not None
    await held.send(user.id, [HeldNotice(user.id, guild.id, 0, 0, 0, "back", "en-US", at)])


async def test_the_turn_of_someone_back_stops_saying_their_clock_stands_still(
    edge: Edge,
) -> None:
    turn, _, other = await duel(edge, turn_limit=3600)
    await edge.slash(other, "marrakech", "away", days=2).answer()
    theirs = await play_turn(edge, turn)
    assert AWAY_LINE in theirs.content, "their turn began while they were away"
    await edge.slash(other, "marrakech", "back").answer()
    await edge.fake.wait_until(
        lambda: AWAY_LINE not in edge.fake.world.messages[theirs.id].content,
        what="the turn no longer saying their clock stands still",
    )
    assert edge.fake.world.messages[theirs.id].content.startswith(f"<@{other.id}>, it is your turn")


async def test_the_turn_of_someone_whose_days_away_ran_out_stops_saying_their_clock_stands_still(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their clock runs again once the days run out, with no command of theirs: a turn still
    saying it stands still would have its reader wait, and lose the turn to the AI."""
    await edge.bot.scheduler.stop()  # the test hands the days' end to the bot itself
    turn, _, other = await duel(edge, turn_limit=3600)
    await edge.slash(other, "marrakech", "away", days=1).answer()
    theirs = await play_turn(edge, turn)
    assert AWAY_LINE in theirs.content, "their turn began while they were away"
    await days_over(edge, other, a_day_later(edge, monkeypatch))
    told = [m.content for m in edge.fake.messages(edge.channel) if m.content.startswith("▶️")]
    assert len(told) == 1, told
    assert "days away are over: their clock runs again" in told[0], told
    shown = edge.fake.world.messages[theirs.id].content
    assert AWAY_LINE not in shown, shown
    assert shown.startswith(f"<@{other.id}>, it is your turn"), shown


async def test_days_away_that_ran_out_tell_no_channel_once_their_player_went_away_again(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end of days away told by a process that claimed it before its player went away
    again says nothing: the channel has just been told they are away, and a line saying their
    days away are over would have its readers wait for them in vain."""
    await edge.bot.scheduler.stop()  # the test hands the days' end to the bot itself
    _, _, other = await duel(edge, turn_limit=3600)
    await edge.slash(other, "marrakech", "away", days=1).answer()
    over = a_day_later(edge, monkeypatch)
    await edge.slash(other, "marrakech", "away", days=1).answer()  # away again
    await days_over(edge, other, over)  # the first spell's end, claimed before
    told = [m.content for m in edge.fake.messages(edge.channel) if m.content.startswith("▶️")]
    assert told == [], told


async def test_every_game_told_someone_went_away_is_told_they_are_back(edge: Edge) -> None:
    """A game not waiting for the person who comes back early still had its channel told they
    were away until a later day: it is told they are back, or a reader the next day would
    think the game waits for them. A game without a turn limit is never told of a clock."""
    _, _, other = await duel(edge)
    await edge.slash(other, "marrakech", "away", days=2).answer()
    gone = await edge.fake.wait_for_message(edge.channel, lambda m: m.content.startswith("💤"))
    assert gone.content.startswith(f"💤 <@{other.id}> is away until ")
    assert "clock" not in gone.content, "this game has no turn limit"
    await edge.slash(other, "marrakech", "back").answer()
    back = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > gone.id and m.content.startswith("▶️")
    )
    assert back.content == f"▶️ <@{other.id}> is back (game #1)."


async def test_a_channel_s_lines_name_the_player_away_and_back_without_pinging_them(
    edge: Edge,
) -> None:
    """The lines are news for the channel, not a call to the player: a ping would wake them
    for their own going away and coming back."""
    _, _, other = await duel(edge)
    await edge.slash(other, "marrakech", "away", days=2).answer()
    gone = await edge.fake.wait_for_message(edge.channel, lambda m: m.content.startswith("💤"))
    await edge.slash(other, "marrakech", "back").answer()
    back = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > gone.id and m.content.startswith("▶️")
    )
    for line in (gone, back):
        assert f"<@{other.id}>" in line.content, "the player is named"
        assert line.pinged_user_ids == frozenset(), f"nobody pinged by {line.content!r}"


@pytest.mark.invalid_requests(403)
async def test_a_channel_that_refuses_the_bot_keeps_no_other_game_s_channel_from_its_line(
    edge: Edge, caplog: pytest.LogCaptureFixture
) -> None:
    """The person away plays in two channels, and the first now refuses the bot Send
    Messages: its line is one warning, and the other game's channel is told all the same."""
    guild = edge.channel.guild
    assert guild is not None
    other = edge.fake.add_text_channel(guild, "more-games")
    await duel(edge)
    await duel(edge, channel=other)
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES)
    with caplog.at_level(logging.WARNING, logger="bot.edge"):
        answer = await edge.slash(edge.guest, "marrakech", "away", days=2).answer()
        assert answer.ephemeral, answer.content
        assert answer.content.startswith("You are away"), answer.content
        assert await HANDLERS.drained(30.0), "the command's handler is still running"
    told = [m.content for m in edge.fake.messages(other) if m.content.startswith("💤")]
    assert len(told) == 1, told
    assert told[0].startswith(f"💤 <@{edge.guest.id}> is away until "), told
    not_sent = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    refused = "Discord answered 403 Forbidden (error code: 50013): Missing Permissions"
    assert not_sent == [
        f"channel {edge.channel.id}: the line about time away was not sent: {refused}"
    ], not_sent


async def test_a_game_waiting_for_the_move_of_someone_back_early_is_told_so_once(
    edge: Edge,
) -> None:
    """The game waiting for their move is told their clock runs again, and only that: a plain
    "is back" as well, as the games not waiting for them get, would tell it twice."""
    _, mover, _ = await duel(edge, turn_limit=3600)
    await edge.slash(mover, "marrakech", "away", days=2).answer()
    gone = await edge.fake.wait_for_message(edge.channel, lambda m: m.content.startswith("💤"))
    await edge.slash(mover, "marrakech", "back").answer()
    await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > gone.id and "clock runs again" in m.content
    )
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    back = [m.content for m in edge.fake.messages(edge.channel) if m.content.startswith("▶️")]
    assert len(back) == 1, back
    assert back[0].startswith(f"▶️ <@{mover.id}> is back: their clock runs again with "), back


async def test_a_reminder_goes_when_its_player_goes_away_during_their_turn(edge: Edge) -> None:
    """The reminder gave the moment the turn's time runs out; away, the player's clock stops,
    so that moment no longer holds (back, the channel is told the time left): the reminder
    goes, and the turn's message says until when they are away."""
    await edge.bot.scheduler.stop()  # the test sends the reminder itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    await edge.slash(mover, "marrakech", "away", days=1).answer()
    await edge.fake.wait_until(
        lambda: edge.fake.world.messages[reminder.id].deleted, what="the reminder gone"
    )
    assert AWAY_LINE in edge.fake.world.messages[turn.id].content
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id is None


async def test_a_turn_without_a_limit_says_its_player_is_away_and_stops_once_back(
    edge: Edge,
) -> None:
    """A game with no turn limit has no clock to stand still: its turn says only until when its
    player is away, and stops saying it once they are back, though no clock ran again."""
    turn, mover, _ = await duel(edge)
    await edge.slash(mover, "marrakech", "away", days=1).answer()
    await edge.fake.wait_until(
        lambda: AWAY_LINE in edge.fake.world.messages[turn.id].content, what="the away line"
    )
    assert "clock" not in edge.fake.world.messages[turn.id].content
    await edge.slash(mover, "marrakech", "back").answer()
    await edge.fake.wait_until(
        lambda: AWAY_LINE not in edge.fake.world.messages[turn.id].content,
        what="the turn no longer saying they are away",
    )


async def test_a_turn_without_a_limit_stops_saying_its_player_is_away_once_their_days_run_out(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Days away that run out, with no command of theirs, end the away line of a turn without a
    limit too (no clock runs again there): a turn still saying it would have its readers wait
    for a day long past."""
    await edge.bot.scheduler.stop()  # the test hands the days' end to the bot itself
    turn, mover, _ = await duel(edge)
    await edge.slash(mover, "marrakech", "away", days=1).answer()
    await edge.fake.wait_until(
        lambda: AWAY_LINE in edge.fake.world.messages[turn.id].content, what="the away line"
    )
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    await days_over(edge, mover, a_day_later(edge, monkeypatch))
    told = [m.content for m in edge.fake.messages(edge.channel) if m.content.startswith("▶️")]
    assert told == [f"▶️ <@{mover.id}>'s days away are over (game #1)."], told
    shown = edge.fake.world.messages[turn.id].content
    assert AWAY_LINE not in shown, shown
    assert shown.startswith(f"<@{mover.id}>, it is your turn"), shown


async def test_a_turn_whose_redraw_an_outage_cuts_off_stops_saying_its_player_is_away_once_back(
    edge: Edge, away: Outage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away as a turn is drawn again for its player back: the log says
    nothing of the game (the outage's own lines say the database was away), and once it is
    back the turn stops saying they are away, with no other change to draw it."""
    turn, mover, _ = await duel(edge)
    await edge.slash(mover, "marrakech", "away", days=1).answer()
    await edge.fake.wait_until(
        lambda: AWAY_LINE in edge.fake.world.messages[turn.id].content, what="the away line"
    )
    play = edge.bot.display._play
    look = play.look

    async def looking(game_id: int) -> GameView:
        away.refuse()
        return await look(game_id)

    monkeypatch.setattr(play, "look", looking)
    with caplog.at_level(logging.INFO, logger="bot.edge.display"):
        away.fail()
        await edge.slash(mover, "marrakech", "back").answer()
        assert await HANDLERS.drained(30.0), "the command's handler is still running"
        assert AWAY_LINE in edge.fake.world.messages[turn.id].content, "not drawn meanwhile"
        away.end()
        await edge.fake.wait_until(
            lambda: AWAY_LINE not in edge.fake.world.messages[turn.id].content,
            what="the turn no longer saying they are away",
        )
    said = [r.getMessage() for r in caplog.records if r.name == "bot.edge.display"]
    assert said == [], "nothing per game during the outage"


async def test_a_lobby_is_told_nothing_of_its_player_s_time_away(edge: Edge) -> None:
    """Only running games wait at their player's turns: a lobby the person joined is told
    neither that they are away nor that they are back, while their running game is told
    both."""
    guild = edge.channel.guild
    assert guild is not None
    room = edge.fake.add_text_channel(guild, "lobby-room")
    lobby = await edge.command(
        edge.host, ("marrakech", "new"), room, {"seats": 3, "turn_limit": 3600}, validate=True
    ).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await duel(edge, turn_limit=3600)
    await edge.slash(edge.guest, "marrakech", "away", days=2).answer()
    gone = await edge.fake.wait_for_message(edge.channel, lambda m: m.content.startswith("💤"))
    await edge.slash(edge.guest, "marrakech", "back").answer()
    await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > gone.id and m.content.startswith("▶️")
    )
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    told = [m.content for m in edge.fake.messages(room) if m.content.startswith(("💤", "▶️"))]
    assert told == [], told


async def test_a_turn_the_ai_plays_for_someone_away_does_not_say_they_are_away(
    edge: Edge,
) -> None:
    """A seat the AI took over after its person's timeouts is played by the AI, whether or
    not they are away: the turn it plays says nothing of their time away."""
    back = await handed_to_ai(edge)  # the AI plays the seat not to move; nothing plays it yet
    await edge.slash(back, "marrakech", "away", days=1).answer()
    (first,) = [m for m in edge.fake.messages(edge.channel) if m.pinged_user_ids]
    mover = await mover_of(edge, first)
    while buttons := edge.fake.world.messages[first.id].enabled_buttons():
        label = buttons[0].label
        assert label is not None
        await edge.click(mover, edge.fake.world.messages[first.id], label).answer()
    ai_turn = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > first.id and "is playing (game #1)" in m.content
    )
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    assert AWAY_LINE not in edge.fake.world.messages[ai_turn.id].content
