"""What quiet hours held is sent once: the message carries a nonce made from the notices it
sends, the same in every process, so that when a process dies after Discord took the message
but before it marked the notices sent, the process that sends them again makes no second
message (Discord, asked to enforce the nonce, answers with the first); so is the line that
tells a game's channel its player's days away are over (each other game of theirs is told, in
one line, that their days away are over). With direct messages closed, it pings its person once
per server, with that server's games alone, in the channel of the first of them it names; a
direct message that fails another way leaves the notices for the next try. Through the
in-process client on the fake Discord API (tests/bot/edge/test_edge.py), which enforces nonces
as Discord does."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import discord
import pytest

from bot.edge import away as away_edge
from bot.edge.away import HeldMessages, held_nonce
from bot.services.away import AwayService, HeldNotice
from bot.services.time_rules import AwayGame, Resumed, TurnNow
from tests.bot.edge.test_edge import Edge
from tests.bot.edge.test_edge import edge as edge_fixture  # noqa: F401  (a fixture, used below)
from tests.e2e.fakecord import FakeMessage
from tests.polling import WAIT_SECONDS

ENDS = datetime(2026, 12, 8, 6, tzinfo=UTC)


@pytest.fixture
def edge(edge_fixture: Edge) -> Edge:  # noqa: F811  (the imported fixture, by name)
    return edge_fixture


def held(user_id: int, seq: int, kind: str = "turn") -> HeldNotice:
    return HeldNotice(user_id, 1, 500, 7, seq, kind, "en-US", ENDS)


async def test_held_notices_sent_again_after_a_crash_make_one_message(edge: Edge) -> None:
    user = edge.guest.id
    notices = [held(user, 12), held(user, 14, "remind")]
    sender = HeldMessages(edge.client)
    await sender.send(user, notices)
    await HeldMessages(edge.client).send(user, list(reversed(notices)))  # another process
    sent = edge.fake.messages(edge.fake.dm_channel(edge.guest))
    assert len(sent) == 1, [m.content for m in sent]
    assert "Game #7" in sent[0].content


class DaysOver:
    """The service as it answers when the guest's days away ran out: game 7, in the edge's
    channel, waits for their move; no other game of theirs runs."""

    def __init__(self, channel_id: int) -> None:
        self.channel_id = channel_id

    async def days_over(self, notice: HeldNotice) -> list[Resumed]:
        return [Resumed(7, self.channel_id, "en-US", timedelta(minutes=30))]

    async def running_games(
        self, guild_id: int, user_id: int, besides: Sequence[Resumed] = ()
    ) -> list[AwayGame]:
        return []


async def test_the_line_saying_days_away_are_over_sent_again_after_a_crash_makes_one_message(
    edge: Edge,
) -> None:
    """The channel of the game waiting for the guest's move is told their days away are over;
    sent again by another process (the first died before marking it told), the line carries
    the same nonce, and Discord makes one message of it."""
    user = edge.guest.id
    channel = edge.channel
    assert channel.guild is not None
    notice = HeldNotice(user, channel.guild.id, 0, 0, 0, "back", "en-US", ENDS)
    away = DaysOver(channel.id)
    before = len(edge.fake.messages(channel))
    await HeldMessages(edge.client, away).send(user, [notice])  # type: ignore[arg-type]
    await HeldMessages(edge.client, away).send(user, [notice])  # type: ignore[arg-type]
    sent = [m.content for m in edge.fake.messages(channel)[before:]]
    assert len(sent) == 1, sent
    assert "days away are over" in sent[0], sent


class DaysOverElsewhere(DaysOver):
    """As `DaysOver`, and the guest also plays game 8, in `elsewhere`, which does not wait for
    their move."""

    def __init__(self, channel_id: int, elsewhere: int) -> None:
        super().__init__(channel_id)
        self.elsewhere = elsewhere

    async def running_games(
        self, guild_id: int, user_id: int, besides: Sequence[Resumed] = ()
    ) -> list[AwayGame]:
        return [AwayGame(8, self.elsewhere, "en-US")]


async def test_a_game_not_waiting_for_someone_whose_days_away_ran_out_is_told_they_are_over(
    edge: Edge,
) -> None:
    """Each channel told the guest was away gets one line once their days run out: the game
    waiting for their move that their clock runs again, the other that their days away are
    over, not that they came back, which they did not say."""
    user = edge.guest.id
    guild = edge.channel.guild
    assert guild is not None
    channels = (edge.channel, edge.fake.add_text_channel(guild, "elsewhere"))
    notice = HeldNotice(user, guild.id, 0, 0, 0, "back", "en-US", ENDS)
    away = DaysOverElsewhere(channels[0].id, channels[1].id)
    before = [len(edge.fake.messages(channel)) for channel in channels]
    await HeldMessages(edge.client, away).send(user, [notice])  # type: ignore[arg-type]
    waiting, other = (
        [m.content for m in edge.fake.messages(channel)[count:]]
        for channel, count in zip(channels, before, strict=True)
    )
    assert waiting == [
        f"▶️ <@{user}>'s days away are over: their clock runs again with 30 min left (game #7)."
    ], waiting
    assert other == [f"▶️ <@{user}>'s days away are over (game #8)."], other


@pytest.mark.invalid_requests(403)
async def test_a_held_ping_in_the_channel_sent_again_after_a_crash_makes_one_message(
    edge: Edge,
) -> None:
    """Direct messages closed: the list pings its person in the game's channel instead. Sent
    again by another process (the first died before marking it sent), it carries the same
    nonce, and Discord makes one message of it."""
    user = edge.guest.id
    edge.guest.accepts_dms = False
    channel = edge.channel
    assert channel.guild is not None
    notices = [
        HeldNotice(user, channel.guild.id, channel.id, 7, 12, "turn", "en-US", ENDS),
        HeldNotice(user, channel.guild.id, channel.id, 7, 14, "remind", "en-US", ENDS),
    ]
    before = len(edge.fake.messages(channel))
    await HeldMessages(edge.client).send(user, notices)
    await HeldMessages(edge.client).send(user, list(reversed(notices)))  # another process
    sent = edge.fake.messages(channel)[before:]
    assert len(sent) == 1, [m.content for m in sent]
    assert sent[0].pinged_user_ids == {user}


async def test_held_notices_whose_direct_message_fails_otherwise_stay_unsent_and_unpinged(
    edge: Edge,
) -> None:
    """Only closed direct messages send the list to a game's channel: when Discord fails the
    direct message another way (a 503), the send raises, so the notices stay unsent and go
    by direct message at the next try, and nothing is posted in the channel."""
    user = edge.guest.id
    channel = edge.channel
    assert channel.guild is not None
    notices = [HeldNotice(user, channel.guild.id, channel.id, 7, 12, "turn", "en-US", ENDS)]
    dm = edge.fake.dm_channel(edge.guest)
    edge.fake.faults.server_error("POST", f"/channels/{dm.id}/messages", status=503)
    before = len(edge.fake.messages(channel))
    with pytest.raises(discord.HTTPException):
        await HeldMessages(edge.client).send(user, notices)
    public = [m.content for m in edge.fake.messages(channel)[before:]]
    assert public == [], "posted in the channel though direct messages are open"


async def test_held_notices_whose_direct_message_discord_never_takes_stay_unsent_in_time(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord is waited for DISCORD_TIMEOUT_SECONDS at most (shortened here), as for any post:
    the send then raises, so the notices go at the next try, and the turn clock's pass that
    sends them does not wait on one person's message."""
    monkeypatch.setattr(away_edge, "DISCORD_TIMEOUT_SECONDS", 0.2)
    user = edge.guest.id
    dm = edge.fake.dm_channel(edge.guest)
    hung = edge.fake.faults.hang("POST", f"/channels/{dm.id}/messages")
    sending = asyncio.create_task(HeldMessages(edge.client).send(user, [held(user, 12)]))
    try:
        done, _ = await asyncio.wait({sending}, timeout=WAIT_SECONDS)
    finally:
        sending.cancel()
        edge.fake.faults.release_hangs(apply=False)
    assert done, "the send still waits on Discord"
    with pytest.raises(TimeoutError):
        await sending
    assert hung.hits == 1, "the direct message was sent, and never answered"


async def sent_in_channels(
    edge: Edge, away: AwayService | None = None
) -> tuple[list[FakeMessage], list[FakeMessage]]:
    """The guest, whose direct messages are closed, is sent two held turns: game 7's of the
    edge's channel, then game 8's of another channel of the server. The messages each channel
    got, the edge's first."""
    user = edge.guest.id
    edge.guest.accepts_dms = False
    guild = edge.channel.guild
    assert guild is not None
    channels = (edge.channel, edge.fake.add_text_channel(guild, "elsewhere"))
    notices = [  # oldest first, as they are claimed
        HeldNotice(user, guild.id, channels[0].id, 7, 12, "turn", "en-US", ENDS),
        HeldNotice(user, guild.id, channels[1].id, 8, 3, "turn", "en-US", ENDS),
    ]
    before = [len(edge.fake.messages(channel)) for channel in channels]
    await HeldMessages(edge.client, away).send(user, notices)
    first, second = (
        edge.fake.messages(channel)[count:] for channel, count in zip(channels, before, strict=True)
    )
    return first, second


@pytest.mark.invalid_requests(403)
async def test_a_held_ping_in_the_channel_goes_to_the_first_game_the_list_names(
    edge: Edge,
) -> None:
    first, second = await sent_in_channels(edge)  # no game is read: both are named
    assert [len(first), len(second)] == [1, 0], [m.content for m in first + second]
    assert first[0].content.index("Game #7") < first[0].content.index("Game #8")
    assert first[0].pinged_user_ids == {edge.guest.id}


@pytest.mark.invalid_requests(403)
async def test_a_held_ping_in_the_channels_shows_each_server_only_its_own_games(
    edge: Edge,
) -> None:
    """Direct messages closed, a list naming games of two servers is split: each server's
    channel gets one ping with that server's games alone, in the language its own notices
    were held in, and sent again by another process (the first died before marking them
    sent), each post carries the same nonce, so each server still has one."""
    user = edge.guest.id
    edge.guest.accepts_dms = False
    here = edge.channel
    assert here.guild is not None
    other = edge.fake.add_guild("Other server", preferred_locale="fr")
    edge.fake.add_member(other, edge.guest)
    there = edge.fake.add_text_channel(other, "ailleurs")
    notices = [  # oldest first, as they are claimed
        HeldNotice(user, here.guild.id, here.id, 7, 12, "turn", "en-US", ENDS),
        HeldNotice(user, other.id, there.id, 8, 3, "turn", "fr", ENDS),
        HeldNotice(user, here.guild.id, here.id, 7, 14, "remind", "en-US", ENDS),
    ]
    before = [len(edge.fake.messages(channel)) for channel in (here, there)]
    await HeldMessages(edge.client).send(user, notices)
    await HeldMessages(edge.client).send(user, list(reversed(notices)))  # another process
    mine, theirs = (
        [m.content for m in edge.fake.messages(channel)[count:]]
        for channel, count in zip((here, there), before, strict=True)
    )
    assert len(mine) == 1, mine
    assert "Game #7" in mine[0], mine
    assert "Game #8" not in mine[0], "another server's game shown in this server's channel"
    assert f"<#{there.id}>" not in mine[0], mine
    french = (
        f"<@{user}> 🌅 Vos heures calmes sont finies. Pendant ce temps :\n"
        f"• Partie n° 8 : c'est devenu votre tour (<#{there.id}>)."
    )
    assert theirs == [french], theirs
    pinged = [m.pinged_user_ids for m in edge.fake.messages(there)[before[1] :]]
    assert pinged == [{user}]


class PlayedInTheNight:
    """Turns as the service tells them when the guest played game 7's turn during their quiet
    hours, and game 8's still waits for them."""

    async def turns_now(self, notices: Sequence[HeldNotice]) -> dict[int, TurnNow]:
        return {7: TurnNow(7, False), 8: TurnNow(8, True)}


@pytest.mark.invalid_requests(403)
async def test_a_held_ping_in_the_channel_skips_a_game_the_list_no_longer_names(
    edge: Edge,
) -> None:
    """The first notice held is of a turn played since: the list leaves game 7 out, and pings
    its person in the channel of game 8, the first game it names."""
    first, second = await sent_in_channels(edge, PlayedInTheNight())  # type: ignore[arg-type]
    assert first == [], [m.content for m in first]
    assert len(second) == 1, [m.content for m in second]
    assert "Game #8" in second[0].content
    assert "Game #7" not in second[0].content
    assert second[0].pinged_user_ids == {edge.guest.id}


def test_the_nonce_names_the_notices_and_their_person_only() -> None:
    """Each notice is named by its channel, game, turn and kind: a reminder held at the turn
    whose start was sent already is another message, not the same one sent again. What is not
    the notice (the language it was held in, when it was held or is released) changes
    nothing."""
    first = held_nonce(5, [held(5, 12), held(5, 14)])
    assert first == held_nonce(5, [held(5, 14), held(5, 12)]), "in any order"
    assert len(first) == 25, "the longest Discord takes"
    assert first != held_nonce(6, [held(6, 12), held(6, 14)])
    assert first != held_nonce(5, [held(5, 12), held(5, 16)])
    one = held(5, 12)
    alone = held_nonce(5, [one])
    others = [
        replace(one, kind="remind"),
        replace(one, game_id=one.game_id + 1),
        replace(one, channel_id=one.channel_id + 1),
    ]
    for other in others:
        assert held_nonce(5, [other]) != alone, other
    same = [
        replace(one, locale="fr"),
        replace(one, release_at=ENDS + timedelta(hours=1)),
        replace(one, held_at=ENDS - timedelta(hours=8)),
    ]
    for again in same:
        assert held_nonce(5, [again]) == alone, again


class DaysOverInTwoGames(DaysOver):
    """As `DaysOver`, and game 9, in `second`, waits for the guest's move too."""

    def __init__(self, channel_id: int, second: int) -> None:
        super().__init__(channel_id)
        self.second = second

    async def days_over(self, notice: HeldNotice) -> list[Resumed]:
        return [
            *await super().days_over(notice),
            Resumed(9, self.second, "en-US", timedelta(hours=2)),
        ]


async def test_each_channel_s_line_saying_days_away_are_over_has_a_nonce_of_its_own(
    edge: Edge,
) -> None:
    """The nonce of the line telling a game its player's days away are over is made from the
    person, the spell and the channel. Discord may answer a nonce it saw from the same author
    in another channel with that channel's message: a nonce shared by two channels would then
    leave the second untold, its player's clock running again unsaid."""
    user = edge.guest.id
    guild = edge.channel.guild
    assert guild is not None
    channels = (edge.channel, edge.fake.add_text_channel(guild, "second"))
    notice = HeldNotice(user, guild.id, 0, 0, 0, "back", "en-US", ENDS)
    away = DaysOverInTwoGames(channels[0].id, channels[1].id)
    before = [len(edge.fake.messages(channel)) for channel in channels]
    await HeldMessages(edge.client, away).send(user, [notice])  # type: ignore[arg-type]
    first, second = (
        edge.fake.messages(channel)[count:] for channel, count in zip(channels, before, strict=True)
    )
    assert [len(first), len(second)] == [1, 1], [m.content for m in first + second]
    assert "(game #7)" in first[0].content
    assert "(game #9)" in second[0].content
    nonces = [first[0].nonce, second[0].nonce]
    assert None not in nonces, "each line is sent with a nonce, for Discord to enforce"
    assert nonces[0] != nonces[1], "one nonce for two channels' lines"
