"""Abuse of the real bot process: simultaneous clicks, thousands of malformed interactions,
and damaged rows in its database.

- Concurrency: a dozen clicks on the same button at once (by the mover, the other player and
  an outsider) apply the move exactly once; everybody else gets a short private answer. Clicks
  on six games at once apply one move in each.
- Fuzz: 2,000 seeded random interactions (forged and unknown custom_ids, ids of other games and
  channels, stale and future seqs, illegal moves, out-of-range and hostile options, users not
  in the game, unknown subcommands, commands in DMs, in threads and in a channel the bot cannot
  post in). Every one is answered within Discord's 3 s, the bot logs no unexpected error, and
  the database's games, seats and log are exactly as before.
- Damage: a game with a truncated log and one with a garbled snapshot are found on first use and
  reported in their channels; the first cannot be played (a moderator can abort it), the second
  goes on from its log, and a third game is untouched throughout.
"""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, permissions
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import (
    decision,
    integrity,
    live_decisions,
    pick,
    settled,
    stored_games,
)

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
FUZZ_INTERACTIONS = 2000
FUZZ_WAVE = 50
DISCORD_DEADLINE = 3.0
UPDATED = (6, 7)
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
HOSTILE = (
    "'; DROP TABLE games; --",
    '" OR 1=1 --',
    "Robert'); DELETE FROM actions;--",
    "\x00\x01\x02",
    "\U0001d578\U0001d586\U0001d597" * 40,  # fraktur letters
    "%s%s%s{0}{game_id}",
    "a" * 5000,
)


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def open_game(
    fake: FakeDiscord, channel: FakeChannel, host: FakeUser, guest: FakeUser
) -> FakeMessage:
    """A started 2-player game in `channel`; returns its first turn message."""
    lobby = await (await fake.slash(host, channel, "marrakech", "new", seats=2)).answer()
    join = lobby.button(label="Join").custom_id
    assert join is not None
    assert (await (await fake.click(guest, lobby, join)).response()).response_type in UPDATED
    start = fake.world.messages[lobby.id].button(label="Start").custom_id
    assert start is not None
    await (await fake.click(host, lobby, start)).response()
    return await fake.wait_for_message(
        channel, lambda m: bool(m.pinged_user_ids) and bool(m.enabled_buttons()), timeout=10
    )


def database_rows(database: Path) -> dict[str, list[tuple[Any, ...]]]:
    with sqlite3.connect(database) as connection:
        return {
            table: connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("games", "seats", "actions")
        }


def private(answer: FakeMessage) -> str:
    assert answer.ephemeral, f"expected a private answer, got {answer.content!r}"
    assert answer.content and "error code" not in answer.content, answer.content
    return str(answer.content)


async def test_simultaneous_clicks_apply_each_move_once(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    guild = fake.add_guild("Souk")
    channels = [fake.add_text_channel(guild, f"table-{n}") for n in range(6)]
    alice, bob, eve = (fake.add_user(name) for name in ("alice", "bob", "eve"))
    for person in (alice, bob, eve):
        fake.add_member(guild, person)
    users = {alice.id: alice, bob.id: bob}
    firsts = await asyncio.gather(*(open_game(fake, c, alice, bob) for c in channels))
    database = tmp_path / "marrakech.sqlite3"
    before = {game.channel_id: game.seq for game in stored_games(database).values()}

    # One button, twelve clicks at once: six by the mover, three by the other, three by eve.
    message = firsts[0]
    (mover_id,) = message.pinged_user_ids
    other = bob if mover_id == alice.id else alice
    chosen = pick(message, 0)
    clickers = [users[mover_id]] * 6 + [other] * 3 + [eve] * 3
    handles = [await fake.click(user, message, chosen.custom_id) for user in clickers]
    answers = [await handle.response() for handle in handles]
    applied = [h for h, a in zip(handles, answers, strict=True) if a.response_type in UPDATED]
    assert len(applied) == 1 and applied[0].user.id == mover_id
    for handle in handles:
        if handle is not applied[0]:
            private(await handle.answer())

    # Six games, each clicked three times at once by its mover.
    rest = [fake.latest_with_components(channel) for channel in channels]
    batch: list[tuple[FakeChannel, InteractionHandle]] = []
    for channel, current in zip(channels, rest, strict=True):
        (mover,) = current.pinged_user_ids
        choice = pick(current, 1)
        for _ in range(3):
            batch.append((channel, await fake.click(users[mover], current, choice.custom_id)))
    for channel in channels:
        kinds = sorted([(await h.response()).response_type for c, h in batch if c is channel])
        assert kinds[0] == 4 and kinds[1] == 4 and kinds[2] in UPDATED, kinds

    after = stored_games(database)  # also replays every log and checks every roll
    for game in after.values():
        moves = [entry for entry in game.log if entry.actor_id is not None]
        expected = 2 if game.channel_id == channels[0].id else 1
        assert len(moves) == expected, (game.id, moves)
        assert game.seq > before[game.channel_id]
    assert integrity(database) == "ok"
    assert not re.search(r"error [0-9A-F]{6} while", bot.log_text())


class Fuzzer:
    """Seeded random interactions that must change nothing."""

    def __init__(self, fake: FakeDiscord, world: dict[str, Any], seed: int) -> None:
        self.fake = fake
        self.world = world
        self.random = random.Random(seed)

    def junk(self) -> str:
        r = self.random
        alphabet = "mk:0123456789abcdefghijklmnopqrstuvwxyzLSR_-/ é🎲\n"
        return "".join(r.choice(alphabet) for _ in range(r.randint(0, 110)))

    def forged_id(self, game_ids: Sequence[int], seq: int) -> str:
        r = self.random
        game = r.choice([*game_ids, 0, 999_999, 2**63 - 1, 10**19 - 1])
        action = r.choice(
            [
                "zz",
                "a0a0",
                "h9h9",
                "99",
                "roll",
                "X",
                "start",
                "cancel",
                "leave",
                "aieasy",
                "airemove",
                "ABCDEFGH",
            ]
        )
        return f"mk:{game}:{r.choice([seq, seq - 1, seq + 5, 0, 999_999])}:{action}"

    async def one(self) -> InteractionHandle:
        r = self.random
        w = self.world
        kind = r.random()
        if kind < 0.45:
            message = r.choice([w["turn"](), w["lobby"]])
            user = r.choice(w["outsiders"] + w["players"])
            seq = w["seq"]()
            custom_id = r.choice(
                [
                    self.junk(),
                    self.forged_id(w["game_ids"], seq),
                    w["current_id"](),
                ]
            )
            if custom_id == w["current_id"]() and user in w["players"]:
                user = r.choice(w["outsiders"])  # the right click by the wrong person
            if message is w["lobby"] and custom_id.endswith(":join"):
                custom_id = custom_id[:-4] + "leave"
            if user is w["lobby_host"] and message is w["lobby"]:
                user = w["outsiders"][0]
            return await self.fake.click(user, message, custom_id, validate=False)
        if kind < 0.85:
            return await self.slash()
        return self.raw_command()

    async def slash(self) -> InteractionHandle:
        r = self.random
        w = self.world
        channel = r.choice(w["channels"])
        user = r.choice(w["outsiders"])
        if channel in w["dm_channels"]:
            user = w["dm_owner"][channel.id]
        # not join: anyone may join a lobby, which would change it
        name = r.choice(["new", "leave", "start", "board", "rules", "resign", "abort"])
        if r.random() < 0.2:
            return await self.fake.slash(user, channel, "marrakech-mod", "abort", validate=False)
        if name != "new":
            return await self.fake.slash(user, channel, "marrakech", name, validate=False)
        seats = r.choice([-1, 0, 1, 5, 99, 2**40, "4", None])
        options: dict[str, Any] = {"seats": seats} if seats is not None else {}
        if r.random() < 0.7 or seats is None:
            options["variant"] = r.choice([*HOSTILE, "", "Standard", "rotate_after"])
        if r.random() < 0.3:
            options["turn_limit"] = r.choice([-5, 1, 10**12, "x"])
        return await self.fake.slash(
            user, channel, "marrakech", "new", options=options, validate=False
        )

    def raw_command(self) -> InteractionHandle:
        """A command payload no client would send: unknown subcommand, or unknown command."""
        r = self.random
        w = self.world
        channel = r.choice(w["guild_channels"])
        user = r.choice(w["outsiders"])
        registered = self.fake.world.commands.find(channel.guild.id, "marrakech")
        assert registered is not None
        name = r.choice(["frobnicate", "new'--", "", "x" * 40])
        data = {
            "id": str(registered["id"]) if r.random() < 0.7 else "1234",
            "name": r.choice(["marrakech", "marrakech-evil", "'; DROP TABLE games;--"]),
            "type": 1,
            "options": [{"type": 1, "name": name, "options": []}],
        }
        handle = self.fake.interaction_from_payload(APPLICATION_COMMAND, user, channel, data)
        return self.fake.dispatch_interaction(handle)


async def test_thousands_of_bad_interactions_are_answered_and_change_nothing(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    guild = fake.add_guild("Souk")
    game_channel = fake.add_text_channel(guild, "game")
    lobby_channel = fake.add_text_channel(guild, "lobby")
    free = fake.add_text_channel(guild, "free")
    muted = fake.add_text_channel(guild, "muted")
    fake.deny_bot(muted, permissions.SEND_MESSAGES)
    thread = fake.add_thread(free, "side")
    alice, bob, carol, eve, oscar = (
        fake.add_user(name) for name in ("alice", "bob", "carol", "eve", "oscar")
    )
    for person in (alice, bob, carol, eve, oscar):
        fake.add_member(guild, person)
    await open_game(fake, game_channel, alice, bob)
    lobby = await (await fake.slash(carol, lobby_channel, "marrakech", "new", seats=3)).answer()
    database = tmp_path / "marrakech.sqlite3"
    games = stored_games(database)
    dm_eve, dm_oscar = fake.dm_channel(eve), fake.dm_channel(oscar)

    def turn() -> FakeMessage:
        return fake.latest_with_components(game_channel)

    def current_id() -> str:
        return next(b.custom_id for b in turn().enabled_buttons() if decision(b.custom_id))

    def seq() -> int:
        parsed = decision(current_id())
        assert parsed is not None
        return parsed.seq

    world: dict[str, Any] = {
        "turn": turn,
        "lobby": lobby,
        "lobby_host": carol,
        "current_id": current_id,
        "seq": seq,
        "game_ids": sorted(games),
        "players": [alice, bob],
        "outsiders": [eve, oscar],
        "channels": [game_channel, lobby_channel, free, muted, thread, dm_eve, dm_oscar],
        "guild_channels": [game_channel, lobby_channel, free, muted, thread],
        "dm_channels": [dm_eve, dm_oscar],
        "dm_owner": {dm_eve.id: eve, dm_oscar.id: oscar},
    }
    await settled(database)
    before = database_rows(database)
    fuzzer = Fuzzer(fake, world, seed=20261123)
    handles: list[InteractionHandle] = []
    for _ in range(FUZZ_INTERACTIONS // FUZZ_WAVE):
        wave = [await fuzzer.one() for _ in range(FUZZ_WAVE)]
        await asyncio.gather(*(handle.response(timeout=DISCORD_DEADLINE + 2) for handle in wave))
        handles.extend(wave)

    late = [h for h in handles if h.refusals or (h.latency or 0.0) > DISCORD_DEADLINE]
    assert not late, f"{len(late)} answered late or refused"
    kinds: Counter[str] = Counter()
    for handle in handles:
        answer = await handle.answer()
        assert answer.ephemeral, (handle.payload["data"], answer.content)
        kinds[re.sub(r"<[^>]*>|#?\d+|\S*discord\.com\S*", "", str(answer.content))[:48]] += 1
    assert len(kinds) >= 12, kinds  # many different refusals, not one catch-all
    log = bot.log_text()
    assert not re.search(r"error [0-9A-F]{6} while|Traceback|Ignoring exception", log)
    after = database_rows(database)
    for table, rows in before.items():
        changed = [(old, new) for old, new in zip(rows, after[table], strict=False) if old != new]
        assert rows == after[table], f"a bad interaction changed {table}: {changed}"
    assert not live_decisions(fake, free) and not live_decisions(fake, muted)
    stats = fake.latency()
    print(f"\n{len(handles)} fuzzed interactions: {stats.describe()}")
    for kind, count in kinds.most_common():
        print(f"{count:5} {kind}")


async def test_damaged_rows_are_reported_and_other_games_go_on(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    guild = fake.add_guild("Souk")
    channels = [fake.add_text_channel(guild, name) for name in ("cut", "garbled", "sound")]
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    mod = fake.add_user("mod")
    fake.add_member(guild, alice)
    fake.add_member(guild, bob)
    fake.add_member(guild, mod, permissions=permissions.MANAGE_CHANNELS)
    users = {alice.id: alice, bob.id: bob}
    for channel in channels:
        await open_game(fake, channel, alice, bob)
        current = fake.latest_with_components(channel)
        (mover,) = current.pinged_user_ids
        await (await fake.click(users[mover], current, pick(current, 0).custom_id)).response()
        await fake.wait_until(lambda c=channel: len(live_decisions(fake, c)) > 0)
    await bot.stop()
    database = tmp_path / "marrakech.sqlite3"
    ids = {game.channel_id: game.id for game in stored_games(database).values()}
    cut, garbled = (ids[channel.id] for channel in channels[:2])
    with sqlite3.connect(database) as connection:
        connection.execute("DELETE FROM actions WHERE game_id = ? AND seq = 2", (cut,))
        connection.execute("UPDATE games SET position = '{\"broken' WHERE id = ?", (garbled,))
    await bot.restart(fake, commands=COMMANDS, sync=False)

    for channel in channels:
        current = fake.latest_with_components(channel)
        (mover,) = current.pinged_user_ids
        handle = await fake.click(users[mover], current, pick(current, 1).custom_id)
        answer = await handle.answer()
        if channel is channels[0]:
            assert "damaged" in private(answer)
        else:
            assert not answer.ephemeral, answer.content
    notices = {
        channel.name: [m.content for m in fake.messages(channel) if "Moderators" in m.content]
        for channel in channels
    }
    await fake.wait_until(lambda: all(notices[c.name] for c in channels[:2]) or None)
    assert len(notices["cut"]) == 1 and "cannot go on" in notices["cut"][0]
    assert "nothing was lost" in notices["garbled"][0]
    assert notices["sound"] == []
    assert not any(
        m.pinged_user_ids for m in fake.messages(channels[0]) if "Moderators" in m.content
    )

    aborted = await fake.slash(mod, channels[0], "marrakech-mod", "abort")
    assert not (await aborted.answer()).ephemeral
    reopened = await fake.slash(alice, channels[0], "marrakech", "new", seats=2)
    assert not (await reopened.answer()).ephemeral, "the channel is free again"
    log = bot.log_text()
    assert f"game {cut}: its action log has 1 of its" in log
    assert not re.search(r"error [0-9A-F]{6} while|Traceback", log)
