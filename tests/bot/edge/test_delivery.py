"""Delivery (bot/edge/delivery.py): a game's messages go out through its players' fresh
interactions, the least recently used first, and are edited through the interaction that may
edit them; without one, or once Discord refuses a token, with the bot token. GlobalPace
(bot/edge/pacing.py): the bot token's requests keep to the process's share of the global limit.
"""

from __future__ import annotations

import asyncio
import io
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot.edge import delivery as delivery_module
from bot.edge.delivery import TOKEN_USE_SECONDS, TOKENS_PER_GAME, Delivery
from bot.edge.interactions import Interaction
from bot.edge.pacing import GlobalPace, share_of

NOW = datetime(2026, 1, 1, tzinfo=UTC)
GAME = 7


class Refusal(discord.HTTPException):
    def __init__(self, status: int) -> None:
        self.status = status
        self.code = 0
        self.text = ""
        Exception.__init__(self, f"{status}")


class Unknown(discord.NotFound):
    def __init__(self) -> None:
        self.status = 404
        self.code = 10015
        self.text = "Unknown Webhook"
        Exception.__init__(self, "404")


@dataclass
class Sent:
    id: int


def read_files(fields: dict[str, Any]) -> list[bytes]:
    """What the request would upload of each file, read as discord.py reads them."""
    return [file.fp.read() for file in [*fields.get("files", []), *fields.get("attachments", [])]]


@dataclass
class Followup:
    owner: FakeInteraction
    refusal: Exception | None = None

    async def send(self, **fields: Any) -> Sent:
        read_files(fields)  # read before Discord answers, as discord.py does
        if self.refusal is not None:
            raise self.refusal
        self.owner.log.append(("followup", self.owner.name, fields.get("content")))
        message = Sent(self.owner.next_id())
        return message

    async def edit_message(self, message_id: int, **fields: Any) -> None:
        read_files(fields)
        if self.refusal is not None:
            raise self.refusal
        self.owner.log.append(("edit_followup", self.owner.name, message_id))


@dataclass
class Response:
    done: bool = True

    def is_done(self) -> bool:
        return self.done


@dataclass
class FakeInteraction:
    name: str
    log: list[tuple[str, str, Any]]
    created_at: datetime = NOW
    message: Sent | None = None
    response: Response = field(default_factory=Response)
    ids: list[int] = field(default_factory=lambda: [1000])
    followup: Followup = field(init=False)

    def __post_init__(self) -> None:
        self.followup = Followup(self)

    def next_id(self) -> int:
        self.ids[0] += 1
        return self.ids[0]

    async def edit_original_response(self, **fields: Any) -> None:
        self.log.append(("edit_original", self.name, self.message.id if self.message else None))


@dataclass
class Channel:
    log: list[tuple[str, str, Any]]
    uploads: list[bytes] = field(default_factory=list)

    async def send(self, **fields: Any) -> Sent:
        self.uploads.extend(read_files(fields))
        self.log.append(("bot_post", "bot", fields.get("nonce")))
        return Sent(1)


@dataclass
class Message:
    id: int
    log: list[tuple[str, str, Any]]
    uploads: list[bytes] = field(default_factory=list)

    async def edit(self, **fields: Any) -> None:
        self.uploads.extend(read_files(fields))
        self.log.append(("bot_edit", "bot", self.id))


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


class Sender:
    """A Delivery, handed this file's fakes where it takes discord.py's objects."""

    def __init__(self, clock: Clock) -> None:
        self.delivery = Delivery(discord.Client(intents=discord.Intents.none()), clock)

    def opened(self, game_id: int, interaction: FakeInteraction) -> None:
        self.delivery.opened(game_id, cast(Interaction, interaction))

    async def post(self, game_id: int, channel: Channel, /, **fields: Any) -> discord.Message:
        return await self.delivery.post(game_id, cast(discord.abc.Messageable, channel), **fields)

    async def edit(self, game_id: int, message: Message, /, **fields: Any) -> None:
        await self.delivery.edit(game_id, cast(discord.PartialMessage, message), **fields)


def delivery(clock: Clock) -> Sender:
    return Sender(clock)


async def test_posts_go_through_fresh_clicks_least_recently_used_first(clock: Clock) -> None:
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    first = FakeInteraction("first", log, message=Sent(10))
    second = FakeInteraction("second", log, message=Sent(20))
    sender.opened(GAME, first)
    sender.opened(GAME, second)
    channel = Channel(log)

    posted = [await sender.post(GAME, channel, content=f"turn {n}", nonce="n") for n in range(3)]
    assert [entry[1] for entry in log] == ["first", "second", "first"]

    await sender.edit(GAME, Message(posted[1].id, log))
    await sender.edit(GAME, Message(10, log))
    await sender.edit(GAME, Message(99, log))
    assert log[3:] == [
        ("edit_followup", "second", posted[1].id),
        ("edit_original", "first", 10),
        ("bot_edit", "bot", 99),
    ]
    assert await sender.post(8, channel, content="x", nonce="n")
    assert log[-1] == ("bot_post", "bot", "n"), "another game has no click of its own"


async def test_a_game_keeps_its_newest_clicks(clock: Clock) -> None:
    """Past TOKENS_PER_GAME clicks the oldest is let go: the newest click still edits its own
    message, the oldest one's is edited with the bot token."""
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    clicks = [
        FakeInteraction(f"click {n}", log, message=Sent(10 + n)) for n in range(TOKENS_PER_GAME + 1)
    ]
    for click in clicks:
        sender.opened(GAME, click)
    await sender.edit(GAME, Message(10 + TOKENS_PER_GAME, log))
    await sender.edit(GAME, Message(10, log))
    assert log == [
        ("edit_original", f"click {TOKENS_PER_GAME}", 10 + TOKENS_PER_GAME),
        ("bot_edit", "bot", 10),
    ]


async def test_a_click_not_answered_or_too_old_is_not_used(clock: Clock) -> None:
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    waiting = FakeInteraction("waiting", log, response=Response(done=False))
    sender.opened(GAME, waiting)
    await sender.post(GAME, Channel(log), content="x")
    assert log == [("bot_post", "bot", None)]

    sender.opened(GAME, FakeInteraction("old", log, message=Sent(10)))
    clock.now = NOW + timedelta(seconds=TOKEN_USE_SECONDS)
    await sender.post(GAME, Channel(log), content="x")
    await sender.edit(GAME, Message(10, log))
    assert log[1:] == [("bot_post", "bot", None), ("bot_edit", "bot", 10)]


async def test_another_game_s_click_keeps_a_game_whose_newest_click_is_still_fresh(
    clock: Clock,
) -> None:
    """A game is let go once its newest click is stale, not as soon as its oldest one is: a
    game clicked 2 minutes ago still posts through that click, not with the bot token, though
    its click before was made 14 minutes ago."""
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    sender.opened(GAME, FakeInteraction("old", log, message=Sent(10)))
    clock.now = NOW + timedelta(minutes=12)
    sender.opened(GAME, FakeInteraction("new", log, created_at=clock.now, message=Sent(20)))
    clock.now = NOW + timedelta(minutes=14)
    sender.opened(GAME + 1, FakeInteraction("other", log, created_at=clock.now, message=Sent(30)))

    await sender.post(GAME, Channel(log), content="next turn")
    assert log == [("followup", "new", "next turn")]


async def test_past_games_kept_the_game_clicked_longest_ago_posts_with_the_bot_token(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However fresh their clicks, at most GAMES_KEPT games keep theirs, the games clicked last:
    the memory they take stays bounded."""
    monkeypatch.setattr(delivery_module, "GAMES_KEPT", 1)
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    sender.opened(GAME, FakeInteraction("first", log, message=Sent(10)))
    sender.opened(GAME + 1, FakeInteraction("second", log, message=Sent(20)))

    await sender.post(GAME, Channel(log), content="x", nonce="n")
    await sender.post(GAME + 1, Channel(log), content="y")
    assert log == [("bot_post", "bot", "n"), ("followup", "second", "y")]


async def test_a_token_discord_refuses_is_dropped_but_a_403_is_not_retried(
    clock: Clock,
) -> None:
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    expired = FakeInteraction("expired", log)
    expired.followup.refusal = Refusal(401)
    sender.opened(GAME, expired)
    channel = Channel(log)
    await sender.post(GAME, channel, content="x")
    await sender.post(GAME, channel, content="y")
    assert log == [("bot_post", "bot", None)] * 2

    unknown = FakeInteraction("unknown", log)
    unknown.followup.refusal = Unknown()
    sender.opened(GAME, unknown)
    await sender.post(GAME, channel, content="z")
    assert log[-1] == ("bot_post", "bot", None)

    refused = FakeInteraction("refused", log)
    refused.followup.refusal = Refusal(403)
    sender.opened(GAME, refused)
    with pytest.raises(discord.HTTPException):
        await sender.post(GAME, channel, content="w")


async def test_a_token_discord_refuses_on_an_edit_is_dropped_for_the_game_s_later_edits(
    clock: Clock,
) -> None:
    """Once Discord refuses an interaction's token on an edit of the message it posted (an
    expired token gets 401), that edit and every later one go with the bot token: the refused
    token is not tried again, each try being one more invalid request toward Discord's ban."""
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    click = FakeInteraction("click", log)
    sender.opened(GAME, click)
    posted = await sender.post(GAME, Channel(log), content="turn")
    assert log == [("followup", "click", "turn")]
    tried: list[int] = []

    async def refused(message_id: int, **fields: Any) -> None:
        tried.append(message_id)
        raise Refusal(401)

    click.followup.edit_message = refused  # type: ignore[method-assign]
    for _ in range(3):
        await sender.edit(GAME, Message(posted.id, log), content="its line")
    assert log[1:] == [("bot_edit", "bot", posted.id)] * 3
    assert tried == [posted.id], "the refused token was tried again"


def test_a_process_paces_itself_to_its_share_of_the_global_limit() -> None:
    assert share_of(None, None) == 1.0
    assert share_of(4, (0, 1)) == 0.5
    assert GlobalPace().per_second == 45
    assert GlobalPace(share_of(3, (2,))).per_second == 15
    assert GlobalPace(0.001).per_second == 1


async def test_the_pace_holds_bot_token_requests_and_leaves_interactions_alone() -> None:
    """The hook on the HTTP session waits for the pace before a request made with the bot's
    token; an interaction's callback or follow-up (its own token, no bot authorisation, or an
    interaction path) is not paced: Discord exempts them from the global limit."""
    pace = GlobalPace()
    waited: list[str] = []

    async def wait() -> None:
        waited.append("waited")

    pace.wait = wait  # type: ignore[method-assign]
    (hook,) = pace.trace().on_request_start

    def start(path: str, *, token: bool = True) -> SimpleNamespace:
        headers = {"Authorization": "Bot x"} if token else {}
        url = SimpleNamespace(path="/api/v10" + path)
        return SimpleNamespace(method="POST", url=url, headers=headers)

    await hook(None, SimpleNamespace(), start("/channels/1/messages"))  # type: ignore[arg-type]
    assert waited == ["waited"], "a bot-token post to a channel is paced"
    await hook(None, SimpleNamespace(), start("/interactions/1/tok/callback"))  # type: ignore[arg-type]
    await hook(None, SimpleNamespace(), start("/webhooks/1/tok", token=False))  # type: ignore[arg-type]
    assert waited == ["waited"], "interaction endpoints are not"


async def test_the_pace_lets_a_second_s_worth_start_then_waits_for_the_oldest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))
        now[0] += seconds

    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    monkeypatch.setattr(asyncio, "sleep", sleep)
    pace = GlobalPace(share=3 / 45)  # 3 a second
    for _ in range(3):
        await pace.wait()
        now[0] += 0.1
    assert slept == []
    await pace.wait()
    assert slept == [0.7], "the fourth starts a second after the first"
    now[0] += 5.0
    await asyncio.gather(pace.wait(), pace.wait())
    assert slept == [0.7]


async def test_a_picture_sent_again_with_the_bot_token_is_sent_whole(clock: Clock) -> None:
    """The refused follow-up read the picture's file; the bot token's request sends it from
    its start again, not an empty file."""
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    unknown = FakeInteraction("unknown", log, message=Sent(5))
    unknown.followup.refusal = Unknown()
    sender.opened(GAME, unknown)
    channel = Channel(log)
    picture = b"\x89PNG board"
    await sender.post(GAME, channel, files=[discord.File(io.BytesIO(picture), "board.png")])
    assert channel.uploads == [picture]

    stale = FakeInteraction("stale", log, message=Sent(5))
    stale.followup.refusal = Unknown()
    sender.opened(GAME, stale)
    stale_token = sender.delivery._usable(GAME)[-1]
    stale_token.posted.add(9)
    message = Message(9, log)
    await sender.edit(GAME, message, attachments=[discord.File(io.BytesIO(picture), "board.png")])
    assert message.uploads == [picture]


async def test_a_game_whose_only_click_discord_refused_lets_other_games_clicks_be_kept(
    clock: Clock,
) -> None:
    """Discord refuses the one click a game had (its token unknown, or its message deleted):
    the game is left with no click, and the clicks of the games played after it are still
    kept and used, not refused with an error because the first game has none left."""
    log: list[tuple[str, str, Any]] = []
    sender = delivery(clock)
    refused = FakeInteraction("refused", log, message=Sent(10))
    refused.followup.refusal = Unknown()
    sender.opened(GAME, refused)
    await sender.post(GAME, Channel(log), content="turn")
    assert log == [("bot_post", "bot", None)]

    sender.opened(GAME + 1, FakeInteraction("other", log, message=Sent(20)))
    await sender.post(GAME + 1, Channel(log), content="next turn")
    assert log[1:] == [("followup", "other", "next turn")]
