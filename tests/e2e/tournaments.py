"""A tournament's scene on the fake Discord, shared by the tournament tests: a server with a
tournament channel, a moderator and players; opening and starting a tournament; finding each
round's threads (by their names) and the players a table's welcome pinged; resigning a game.
"""

from __future__ import annotations

import re

from bot.presentation.messages import text
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, permissions
from tests.e2e.players import is_final

ROUND = re.compile(r"· \w+ (?P<round>\d+) · \w+ (?P<table>\d+)$")
"""A table's thread name, in any language: "… · round 2 · table 1", "… · тур 2 · стіл 1"."""
NAMES = ("ana", "ben", "cat", "dan", "eve", "fay", "gus")


class Scene:
    """A server with a tournament channel, a moderator and players."""

    def __init__(
        self, fake: FakeDiscord, players: int, *, shard: int | None = None, language: str = "en"
    ) -> None:
        """`players` of NAMES (seven at most), on a server of `shard` (any if None) whose
        preferred language is `language` (its public messages' buttons are read in it)."""
        self.fake = fake
        self.language = language
        locale = "en-US" if language == "en" else language
        self.guild = fake.add_guild("Souk", shard=shard, preferred_locale=locale)
        self.channel = fake.add_text_channel(self.guild, "tournament")
        self.mod = fake.add_user("mod")
        fake.add_member(self.guild, self.mod, permissions=permissions.MANAGE_CHANNELS)
        self.players = [fake.add_user(name) for name in NAMES[:players]]
        for player in self.players:
            fake.add_member(self.guild, player)
        self.people = {user.id: user for user in [self.mod, *self.players]}
        self.signup = ""

    async def open(self, **options: object) -> FakeMessage:
        """Open the tournament, sign every player up, and start it: its message (the sign-up's
        text with every player signed up is kept in `signup`)."""
        fake = self.fake
        handle = await fake.slash(
            self.mod, self.channel, "marrakech-mod", "tournament", options=options
        )
        signup = await handle.answer()
        self.signup = signup.embed_text()
        assert text("button.join", self.language) in [b.label for b in signup.buttons()]
        for player in self.players:
            current = fake.world.messages[signup.id]
            join = current.button(label=text("button.join", self.language)).custom_id
            assert join is not None
            joined = await fake.click(player, current, join)
            await joined.response()
        current = fake.world.messages[signup.id]
        self.signup = current.embed_text()
        assert all(f"<@{p.id}>" in self.signup for p in self.players)
        start = current.button(label=text("button.start", self.language)).custom_id
        assert start is not None
        refused = await (await fake.click(self.players[0], current, start)).answer()
        assert refused.ephemeral
        assert "Manage Channels" in refused.content
        assert start is not None
        started = await fake.click(self.mod, current, start)
        await started.answer()  # deferred while the picture is drawn, then the standings
        return fake.world.messages[signup.id]

    def round_threads(self, round_no: int) -> list[FakeChannel]:
        found = []
        for thread in self.fake.threads(self.channel):
            match = ROUND.search(thread.name)
            if match and int(match["round"]) == round_no:
                found.append(thread)

        def table(thread: FakeChannel) -> int:
            match = ROUND.search(thread.name)
            assert match is not None
            return int(match["table"])

        return sorted(found, key=table)

    async def round_ready(self, round_no: int, tables: int) -> list[FakeChannel]:
        """Wait until the round's `tables` threads exist, each with its game's first message."""

        def ready() -> list[FakeChannel] | None:
            threads = self.round_threads(round_no)
            if len(threads) != tables:
                return None
            if not all(turn_message(self.fake, thread) for thread in threads):
                return None
            return threads

        return await self.fake.wait_until(ready, timeout=30, what=f"round {round_no}")

    def seated(self, thread: FakeChannel) -> list[FakeUser]:
        """The players a thread's welcome pinged."""
        welcome = next(m for m in self.fake.messages(thread) if m.pinged_user_ids)
        return [self.people[user] for user in sorted(welcome.pinged_user_ids)]

    async def resign(self, user: FakeUser, thread: FakeChannel) -> None:
        """`/marrakech resign` in the thread, and Resign on the question."""
        question = await (await self.fake.slash(user, thread, "marrakech", "resign")).answer()
        button = question.button(label="Resign")
        assert button.custom_id is not None
        done = await (await self.fake.click(user, question, button.custom_id)).answer()
        assert "You resigned" in done.content, done.content
        await self.fake.wait_until(
            lambda: any(is_final(m) for m in self.fake.messages(thread)), what="the game's end"
        )


def turn_message(fake: FakeDiscord, thread: FakeChannel) -> FakeMessage | None:
    """The thread's game message: a turn with buttons, or its end."""
    for message in reversed(fake.messages(thread)):
        if message.enabled_buttons() or is_final(message):
            return message
    return None


def to_move(fake: FakeDiscord, thread: FakeChannel) -> FakeMessage | None:
    """The turn message waiting for a human (it pings them and has buttons)."""
    for message in reversed(fake.messages(thread)):
        if message.enabled_buttons() and message.pinged_user_ids and not is_final(message):
            return message
    return None
