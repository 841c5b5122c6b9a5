"""Abuse of the real bot process: simultaneous clicks, thousands of malformed interactions,
forged button ids, and damaged rows in its database.

- Concurrency: a dozen clicks on the same button at once (by the mover, the other player and
  an outsider) apply the move exactly once; everybody else gets a short private answer. Clicks
  on six games at once apply one move in each.
- Fuzz: 2,000 seeded random interactions (forged and unknown custom_ids, ids of other games and
  channels, stale and future seqs, illegal moves, out-of-range and hostile options, users not
  in the game, unknown subcommands, commands in DMs, in threads and in a channel the bot cannot
  post in).
- Forged ids: clicks on ids whose numbers have every length from 1 digit to the 100-character
  custom_id limit, that fill all 100 characters, or lie at and around 2**63 (past SQLite's
  INTEGER), each on the real message and on a forged copy that carries it as a button. Those the
  bot may not act on get exactly the answer of a button no longer on its message.
- Every fuzzed or forged interaction is answered privately, as a refusal, within Discord's 3 s;
  the bot logs no ERROR line and no traceback, and the database's games, seats and log are
  exactly as before.
- Damage: a game with a truncated log and one with a garbled snapshot are found on first use and
  reported in their channels; the first cannot be played (a moderator can abort it), the second
  goes on from its log, and a third game is untouched throughout.

Benchmark (not part of the test suite): the same hostile interactions in bulk, half forged-id
clicks and half fuzzed, against a bot with its default log level. It prints the interactions
sent, answered and refused, the answer time (p50, p99, worst), the ERROR lines in the bot's log
and whether the database is unchanged, and exits with 1 if anything fell short:

    python -m tests.e2e.test_abuse --count 5000
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import REPO_ROOT
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, permissions
from tests.e2e.fakecord.interaction_payloads import component_data
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.load import bot_environment
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
DANGER = 4
"""Discord's style of a button that does something hard to undo."""
MAX_CUSTOM_ID = 100
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
    assert answer.content, "an empty answer"
    assert "error code" not in answer.content, answer.content
    return str(answer.content)


def refusal(handle: InteractionHandle) -> FakeMessage | None:
    """The private answer `handle` got: its first answer or a follow-up (None: none yet)."""
    for event in handle.events:
        if event.message is not None and event.message.ephemeral and not event.message.loading:
            return event.message
    return None


async def refused_but_one(
    fake: FakeDiscord, clicks: list[InteractionHandle]
) -> list[tuple[InteractionHandle, FakeMessage]]:
    """The clicks at once on one button that were refused privately, once all but one were.

    A losing click is refused as its first answer, or (it was handled after a winning move
    that ended the turn had posted the next turn) after editing the clicked message down to
    the turn's line, as the winning click did already: which one depends on timing."""

    def probe() -> list[tuple[InteractionHandle, FakeMessage]] | None:
        found = [(h, m) for h in clicks if (m := refusal(h)) is not None]
        return found if len(found) == len(clicks) - 1 else None

    return await fake.world.wait_for(probe, what=f"{len(clicks) - 1} private refusals")


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
    assert len(applied) == 1
    assert applied[0].user.id == mover_id
    await applied[0].answer()  # a deferred answer edits the message a moment later
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
            handle = await fake.click(users[mover], current, choice.custom_id)
            batch.append((channel, handle))
    for channel in channels:
        clicks = [h for c, h in batch if c is channel]
        refused = await refused_but_one(fake, clicks)
        (moved,) = [h for h in clicks if all(h is not r for r, _ in refused)]
        assert (await moved.response()).response_type in UPDATED
        for _, answer in refused:
            private(answer)

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


async def abuse_world(fake: FakeDiscord, database: Path) -> dict[str, Any]:
    """The world the bad interactions are aimed at, built on a running bot: a started game,
    a lobby, free, muted and thread channels, two players, two outsiders and their DMs. Waits
    until the bot has shown both games, so the database stays still from then on."""
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
    dm_eve, dm_oscar = fake.dm_channel(eve), fake.dm_channel(oscar)

    def turn() -> FakeMessage:
        return fake.latest_with_components(game_channel)

    def current_id() -> str:
        return next(d.custom_id for b in turn().enabled_buttons() if (d := decision(b.custom_id)))

    def seq() -> int:
        parsed = decision(current_id())
        assert parsed is not None
        return parsed.seq

    await settled(database)
    return {
        "turn": turn,
        "lobby": lobby,
        "lobby_host": carol,
        "current_id": current_id,
        "seq": seq,
        "game_ids": sorted(stored_games(database)),
        "players": [alice, bob],
        "outsiders": [eve, oscar],
        "channels": [game_channel, lobby_channel, free, muted, thread, dm_eve, dm_oscar],
        "guild_channels": [game_channel, lobby_channel, free, muted, thread],
        "dm_channels": [dm_eve, dm_oscar],
        "dm_owner": {dm_eve.id: eve, dm_oscar.id: oscar},
        "free": free,
        "muted": muted,
    }


# --- forged custom_ids ------------------------------------------------------------------------

CUSTOM_ID_SHAPE = re.compile(r"mk:([0-9]+):([0-9]+):([A-Za-z0-9]{1,8})")


def forged_ids() -> list[str]:
    """Custom ids a client could forge, in a fixed order: numbers of every length from 1 digit
    to the 100-character limit (as the game, as the seq, bare and after `mk:`; the smallest and
    the largest of each length), ids that fill all 100 characters, numbers at and around 2**63
    and the other range limits, and numbers written with leading zeros. None of them names the
    lobby's game (2), the one game an outsider's click could change."""
    ids: list[str] = []
    room = MAX_CUSTOM_ID - len("mk::0:L")
    for length in range(1, MAX_CUSTOM_ID + 1):
        largest = "9" * length
        if length <= room:
            for digits in ("1" + "0" * (length - 1), largest):
                ids += [f"mk:{digits}:0:L", f"mk:1:{digits}:L"]
        if length <= MAX_CUSTOM_ID - len("mk:"):
            ids.append(f"mk:{largest}")
        ids.append(largest)
    ids += [
        f"mk:{'7' * room}:0:L",
        f"mk:1:{'7' * room}:L",
        "mk:1:0:" + "A" * (MAX_CUSTOM_ID - len("mk:1:0:")),
        f"mk:{'8' * (MAX_CUSTOM_ID - len('mk:::'))}::",
    ]
    for number in (2**63 - 2, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 1, 2**64, 10**19 - 1):
        ids += [f"mk:{number}:0:{action}" for action in ("L", "aieasy", "roll", "join")]
        ids.append(f"mk:1:{number}:L")
    ids += [
        "mk:0:0:L",
        "mk:0:0:join",
        f"mk:0{2**63 - 1}:0:L",
        "mk:00000000000000000001:0:L",
        "mk:01:0:L",
        "mk:1:00:L",
        "mk:1:999999:L",
        "mk:1:1000000:L",
        "mk:-1:0:L",
        "mk:1:-1:L",
        "mk:\u0661:0:L",  # ARABIC-INDIC DIGIT ONE
    ]
    assert all(len(value) <= MAX_CUSTOM_ID for value in ids)
    return list(dict.fromkeys(ids))


def acceptable(custom_id: str) -> bool:
    """Whether the bot may act on `custom_id` (a click on it is handed to its game): the shape
    `mk:<game>:<seq>:<action>`, a game id SQLite can hold (1 to 2**63-1), a seq of at most 6
    digits, both written without a leading zero. Anything else is an unknown button."""
    match = CUSTOM_ID_SHAPE.fullmatch(custom_id)
    if match is None or len(custom_id) > MAX_CUSTOM_ID:
        return False
    game, seq = match[1], match[2]
    if str(int(game)) != game or str(int(seq)) != seq:
        return False
    return 1 <= int(game) < 2**63 and 0 <= int(seq) <= 999_999


def forged_message(message: FakeMessage, custom_id: str) -> FakeMessage:
    """`message` as a forged payload would show it: one button, with id `custom_id` (never
    stored in the fake, so the bot's answers cannot change the real message)."""
    button = {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}
    return dataclasses.replace(message, components=[{"type": 1, "components": [button]}])


@dataclass(frozen=True, slots=True)
class Sent:
    """A hostile interaction and what its answer must say (None: any private refusal)."""

    handle: InteractionHandle
    text: str | None


class ForgedClicks:
    """Clicks by outsiders on every forged id, each twice: on the real turn or lobby message as
    it is (which seldom has the id as a button) and on a forged copy whose only button has the
    id (so that the click reaches discord.py's dispatch of GameButton). Ids the bot may not act
    on, and ids that are not on the message clicked, must get exactly the answer of a button no
    longer on its message; the others reach their game and are refused there."""

    def __init__(self, fake: FakeDiscord, world: dict[str, Any], unknown: str) -> None:
        self.fake = fake
        self.world = world
        self.unknown = unknown
        self.plan = [(value, on) for value in forged_ids() for on in (False, True)]
        self.sent = 0
        join = decision(world["lobby"].button(label="Join").custom_id)
        assert join is not None
        named = {decision(value) for value, _ in self.plan if acceptable(value)}
        assert join.game_id not in {d.game_id for d in named if d is not None}

    def one(self) -> Sent:
        """The next click of the plan (starting over once it is all sent)."""
        custom_id, on_message = self.plan[self.sent % len(self.plan)]
        w = self.world
        user = w["outsiders"][self.sent % 2]
        message = w["turn"]() if self.sent % 4 < 2 else w["lobby"]
        self.sent += 1
        channel = self.fake.world.channels[message.channel_id]
        if on_message:
            message = forged_message(message, custom_id)
        data = component_data(message, custom_id, None, validate=False)
        handle = self.fake.interaction_from_payload(
            MESSAGE_COMPONENT, user, channel, data, message=message
        )
        self.fake.dispatch_interaction(handle)
        carried = message.find_component(custom_id) is not None
        text = None if carried and acceptable(custom_id) else self.unknown
        return Sent(handle, text)


async def unknown_button_text(fake: FakeDiscord, world: dict[str, Any]) -> str:
    """The bot's answer to a click on a button no longer on its message (the lobby's Join,
    clicked on the game's turn message)."""
    join = world["lobby"].button(label="Join").custom_id
    assert join is not None
    handle = await fake.click(world["outsiders"][0], world["turn"](), join, validate=False)
    return private(await handle.answer())


@dataclass
class Figures:
    """What a run of hostile interactions came to."""

    sent: int = 0
    answered: int = 0
    refusals: int = 0
    read_only: int = 0
    latencies: list[float] = field(default_factory=list)
    error_lines: list[str] = field(default_factory=list)
    database_unchanged: bool = False
    problems: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return (
            self.answered == self.sent == self.refusals + self.read_only
            and not self.error_lines
            and self.database_unchanged
            and not self.problems
        )

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    def report(self) -> str:
        worst = max(self.latencies, default=0.0)
        lines = [
            f"interactions sent: {self.sent}",
            f"answered within {DISCORD_DEADLINE:g} s: {self.answered}",
            (
                f"private answers: {self.refusals + self.read_only} ({self.refusals} refusals, "
                f"{self.read_only} read-only replies such as /marrakech rules)"
            ),
            (
                f"answer time: p50 {self.quantile(0.5) * 1000:.1f} ms, p99 "
                f"{self.quantile(0.99) * 1000:.1f} ms, worst {worst * 1000:.1f} ms"
            ),
            f"ERROR lines in the bot's log: {len(self.error_lines)}",
            f"database unchanged: {'yes' if self.database_unchanged else 'no'}",
        ]
        lines += [f"  {problem}" for problem in (self.error_lines + self.problems)[:10]]
        return "\n".join(lines)


ERROR_LINE = re.compile(r" (ERROR|CRITICAL) |Traceback|Ignoring exception|error [0-9A-F]{6} while")


async def send_in_waves(next_one: Callable[[], Awaitable[Sent]], count: int) -> list[Sent]:
    """Send `count` interactions, `FUZZ_WAVE` at a time, each wave answered before the next."""
    sent: list[Sent] = []
    while len(sent) < count:
        wave = [await next_one() for _ in range(min(FUZZ_WAVE, count - len(sent)))]
        await asyncio.gather(
            *(s.handle.response(timeout=DISCORD_DEADLINE + 2) for s in wave),
            return_exceptions=True,
        )
        sent.extend(wave)
    return sent


async def judge(
    sent: list[Sent], log: Sequence[str], before: dict[str, list[tuple[Any, ...]]], database: Path
) -> Figures:
    """Every interaction answered in time, privately, as a refusal (with the expected text
    where there is one); no error in the bot's log; the database's rows as `before`."""
    figures = Figures(sent=len(sent))
    for item in sent:
        handle = item.handle
        data = handle.payload["data"]
        if handle.refusals or handle.latency is None or handle.latency > DISCORD_DEADLINE:
            figures.problems.append(f"late or refused ({handle.refusals}): {data}")
            continue
        figures.answered += 1
        figures.latencies.append(handle.latency)
        answer = await handle.answer()
        content = str(answer.content)
        if not answer.ephemeral or "error code" in content:
            figures.problems.append(f"not a private refusal: {data} -> {content!r}")
        elif content and answer.enabled_buttons():  # a question (abort?), not a refusal
            figures.problems.append(f"offers a choice: {data} -> {content!r}")
        elif item.text is not None and content != item.text:
            figures.problems.append(f"expected {item.text!r}: {data} -> {content!r}")
        elif content:
            figures.refusals += 1
            figures.kinds[re.sub(r"<[^>]*>|#?\d+|\S*discord\.com\S*", "", content)[:48]] += 1
        elif answer.embeds or answer.attachments:
            figures.read_only += 1  # /marrakech board or rules, shown to the caller alone
        else:
            figures.problems.append(f"an empty answer: {data}")
    figures.error_lines = [line for line in log if ERROR_LINE.search(line)]
    now = database_rows(database)
    figures.database_unchanged = now == before
    for table, rows in before.items():
        changed = [(old, new) for old, new in zip(rows, now[table], strict=False) if old != new]
        if rows != now[table]:
            figures.problems.append(f"a bad interaction changed {table}: {changed[:3]}")
    return figures


async def test_thousands_of_bad_interactions_are_answered_and_change_nothing(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    database = tmp_path / "marrakech.sqlite3"
    world = await abuse_world(fake, database)
    before = database_rows(database)
    fuzzer = Fuzzer(fake, world, seed=20261123)

    async def fuzzed() -> Sent:
        return Sent(await fuzzer.one(), None)

    sent = await send_in_waves(fuzzed, FUZZ_INTERACTIONS)
    figures = await judge(sent, bot.lines, before, database)
    assert figures.ok, figures.report()
    assert len(figures.kinds) >= 12, figures.kinds  # many different refusals, not one catch-all
    assert not live_decisions(fake, world["free"])
    assert not live_decisions(fake, world["muted"])
    print(f"\n{len(sent)} fuzzed interactions: {fake.latency().describe()}")
    for kind, count in figures.kinds.most_common():
        print(f"{count:5} {kind}")


async def test_forged_ids_of_every_length_are_refused_privately(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    database = tmp_path / "marrakech.sqlite3"
    world = await abuse_world(fake, database)
    unknown = await unknown_button_text(fake, world)
    before = database_rows(database)
    clicks = ForgedClicks(fake, world, unknown)
    lengths = {len(match) for value, _ in clicks.plan for match in re.findall(r"[0-9]+", value)}
    assert set(range(1, MAX_CUSTOM_ID + 1)) <= lengths, "a number of every length"
    assert (f"mk:{2**63}:0:aieasy", True) in clicks.plan
    assert not acceptable(f"mk:{2**63}:0:L")

    async def forged() -> Sent:
        return clicks.one()

    sent = await send_in_waves(forged, len(clicks.plan))
    figures = await judge(sent, bot.lines, before, database)
    assert figures.ok, figures.report()
    refused_ids = sum(1 for item in sent if item.text == unknown)
    print(f"\n{len(sent)} forged clicks, {refused_ids} answered as unknown buttons")
    print(figures.report())


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

        def shown(c: FakeChannel = channel) -> bool:
            return len(live_decisions(fake, c)) > 0

        await fake.wait_until(shown)
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

    def moderators_told() -> dict[str, list[str]]:
        return {
            channel.name: [m.content for m in fake.messages(channel) if "Moderators" in m.content]
            for channel in channels
        }

    await fake.wait_until(
        lambda: all(moderators_told()[c.name] for c in channels[:2]) or None,
        what="the damaged games' notices",
    )
    notices = moderators_told()
    assert len(notices["cut"]) == 1
    assert "cannot go on" in notices["cut"][0]
    assert "nothing was lost" in notices["garbled"][0]
    assert notices["sound"] == []
    assert not any(
        m.pinged_user_ids for m in fake.messages(channels[0]) if "Moderators" in m.content
    )

    question = await (await fake.slash(mod, channels[0], "marrakech-mod", "abort")).answer()
    assert question.ephemeral, "a moderator's abort asks first, privately"
    (danger,) = [button for button in question.buttons() if button.style == DANGER]
    assert danger.custom_id is not None
    aborted = await fake.click(mod, question, danger.custom_id)
    (announced,) = await aborted.followups(1)
    assert not announced.ephemeral
    reopened = await fake.slash(alice, channels[0], "marrakech", "new", seats=2)
    assert not (await reopened.answer()).ephemeral, "the channel is free again"
    log = bot.log_text()
    assert f"game {cut}: its action log has 1 of its" in log
    assert not re.search(r"error [0-9A-F]{6} while|Traceback", log)


# --- benchmark (python -m tests.e2e.test_abuse) -----------------------------------------------


async def bench(count: int, seed: int, log_level: str) -> int:
    """Start the bot on a fake Discord, send `count` hostile interactions (forged-id clicks and
    fuzzed interactions, alternately) and print the figures; 0 if all went as required."""
    with tempfile.TemporaryDirectory(prefix="marrakech-abuse-") as name:
        scratch = Path(name)
        async with FakeDiscord(bot_name="Marrakech") as fake:
            database = scratch / "marrakech.sqlite3"
            env = bot_environment(fake, database)
            env["LOG_LEVEL"] = log_level
            bot = BotProcess(
                [sys.executable, "-m", "bot"], env, log_path=scratch / "bot.log", cwd=REPO_ROOT
            )
            try:
                await bot.start_and_wait_ready(fake, commands=COMMANDS, timeout=60)
                world = await abuse_world(fake, database)
                unknown = await unknown_button_text(fake, world)
                before = database_rows(database)
                clicks = ForgedClicks(fake, world, unknown)
                fuzzer = Fuzzer(fake, world, seed)
                turns = itertools.count()

                async def next_one() -> Sent:
                    if next(turns) % 2 == 0:
                        return clicks.one()
                    return Sent(await fuzzer.one(), None)

                began = time.perf_counter()
                sent = await send_in_waves(next_one, count)
                took = time.perf_counter() - began
                figures = await judge(sent, bot.lines, before, database)
            finally:
                await bot.close()
    forged = min(clicks.sent, len(clicks.plan))
    print(
        f"{count} hostile interactions in waves of {FUZZ_WAVE} in {took:.1f} s "
        f"({count / took:.0f}/s): {clicks.sent} forged-id clicks ({forged} of the "
        f"{len(clicks.plan)} planned, the rest again), {count - clicks.sent} fuzzed; "
        f"bot log level {log_level}"
    )
    print(figures.report())
    print(f"result: {'ok' if figures.ok else 'FAILED'}")
    return 0 if figures.ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.test_abuse", description=__doc__)
    parser.add_argument("--count", type=int, default=5000, help="hostile interactions to send")
    parser.add_argument("--seed", type=int, default=20261123, help="seed of the fuzzed ones")
    parser.add_argument("--log-level", default="INFO", help="the bot's LOG_LEVEL")
    arguments = parser.parse_args()
    return asyncio.run(bench(arguments.count, arguments.seed, arguments.log_level))


if __name__ == "__main__":
    sys.exit(main())
