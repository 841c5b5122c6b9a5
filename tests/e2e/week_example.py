"""The week-long game of four in three time zones of docs/async.md, played through the real bot
process against the fake Discord with the bot's clock moved forward, and the channel as its
readers see it.

`python -m tests.e2e.week_example [--out FILE]` starts the bot on a fresh database with the
test clock at Monday 7 December 2026 08:55 UTC, and four people play game #1 in #souk with a
24-hour turn limit and the server's default rules of time (clocks pause in quiet hours):
Oksana and Taras in Kyiv (no quiet hours, asleep 00:00-08:00 there), Marc in Paris (quiet
hours 23:30-07:30) and Dana in New York (quiet hours 22:00-07:00). Each plays a while after
their turn begins, once awake; Dana is away from Wednesday 15:00 for two days and comes back
early on Thursday 20:00; Taras is away for a day from Friday 08:00 and his days run out; Marc
forgets his first turn of Saturday: Taras nudges him, the bot reminds him, and the AI plays it
when his time is out. It then prints (and writes to FILE) the channel, oldest message first,
each with the moment (UTC) it appeared: its text and its embeds' titles and descriptions,
without the pictures, people and moments written as Discord shows them (a relative moment as it
read when the message took that text); then each person's direct messages and the private
answers to their commands.

The seats' order and the dice come from the game's random seed, so two runs differ in their
turn lines; the lines about time (away, back, held pings, nudges, reminders) follow the same
plan.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.shifted_clock import shift_clock
from tests.e2e.test_async_play import straight_on

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ("marrakech", "marrakech-mod", "marrakech-admin")
START = datetime(2026, 12, 7, 8, 55, tzinfo=UTC)
DAY_LIMIT = 24 * 3600
STEP = timedelta(minutes=15)
"""How far the clock moves at a time while the game waits for someone who forgot."""


@dataclass
class Person:
    name: str
    zone: str
    night: tuple[time, time]
    """When they sleep, local time (they play only outside it)."""
    delay: timedelta
    """How long after their turn begins (or they wake, or come back) they play."""
    quiet: tuple[str, str] | None = None
    user: FakeUser | None = None
    away_until: datetime | None = None

    def awake_from(self, moment: datetime) -> datetime:
        """The first moment from `moment` on at which they are awake."""
        local = moment.astimezone(ZoneInfo(self.zone))
        start, end = self.night
        now = local.time()
        asleep = start <= now < end if start < end else now >= start or now < end
        if not asleep:
            return moment
        day = local.date() if now < end else local.date() + timedelta(days=1)
        return datetime.combine(day, end, ZoneInfo(self.zone)).astimezone(UTC)


PEOPLE = [
    Person("Oksana", "Europe/Kyiv", (time(0), time(8)), timedelta(hours=1)),
    Person("Taras", "Europe/Kyiv", (time(0), time(8)), timedelta(hours=1)),
    Person(
        "Marc", "Europe/Paris", (time(23, 30), time(7, 30)), timedelta(hours=1), ("23:30", "07:30")
    ),
    Person("Dana", "America/New_York", (time(22), time(7)), timedelta(hours=1), ("22:00", "07:00")),
]


@dataclass
class Week:
    """The run: the fake Discord, the bot, and what the channel showed when."""

    fake: FakeDiscord
    bot: BotProcess
    clock_file: Path
    channel: FakeChannel
    now: datetime = START
    seen: dict[int, datetime] = field(default_factory=dict)
    """When each message was first seen."""
    changed: dict[int, tuple[str, datetime]] = field(default_factory=dict)
    """Each message's text as last seen, and when it was first seen so."""
    private: list[tuple[datetime, str]] = field(default_factory=list)
    """Each private answer to a command, with the moment it came."""

    def person(self, name: str) -> Person:
        return next(p for p in PEOPLE if p.name == name)

    def user(self, name: str) -> FakeUser:
        found = self.person(name).user
        assert found is not None
        return found

    async def move_to(self, moment: datetime) -> None:
        """Move the bot's clock (and the fake's) to `moment`, and let the bot do what fell due."""
        if moment <= self.now:
            return
        self.now = moment
        await shift_clock(self.bot, self.clock_file, self.offset(), self.fake)
        await self.settle()

    def offset(self) -> float:
        return (self.now - datetime.now(UTC)).total_seconds()

    async def settle(self) -> None:
        """Wait until the bot has sent nothing for a moment, then stamp the new messages."""
        count = -1
        while count != len(self.fake.world.requests):
            count = len(self.fake.world.requests)
            await asyncio.sleep(0.4)
        self.stamp()

    def stamp(self) -> None:
        channels = [self.channel, *(self.fake.dm_channel(self.user(p.name)) for p in PEOPLE)]
        for channel in channels:
            for message in self.fake.messages(channel):
                self.seen.setdefault(message.id, self.now)
                text = message.content + message.embed_text()
                if self.changed.get(message.id, ("",))[0] != text:
                    self.changed[message.id] = (text, self.now)

    async def command(self, name: str, *path: str, **options: object) -> None:
        """A slash command of the person; its private answer is kept for the end."""
        answer = await (
            await self.fake.slash(self.user(name), self.channel, *path, options=options)
        ).answer()
        if answer.ephemeral:
            said = " ".join(part for part in (answer.content, answer.embed_text()) if part)
            line = f"[{stamp(self.now)}] {name}: /{' '.join(path)}\n  {said}"
            self.private.append((self.now, line))
        await self.settle()

    def turn(self) -> FakeMessage | None:
        """The message of the turn under way (None: the game is over)."""
        for message in reversed(self.fake.messages(self.channel)):
            if message.enabled_buttons() and "turn" in message.content:
                return message
        return None

    def mover(self, message: FakeMessage) -> Person:
        first = re.search(r"<@(\d+)>", message.content)
        assert first is not None, message.content
        return next(p for p in PEOPLE if p.user is not None and p.user.id == int(first[1]))

    async def play(self, person: Person, message: FakeMessage) -> None:
        """Play the turn: Assam straight on, the first placement offered."""
        user = self.user(person.name)
        await (await self.fake.click(user, message, straight_on(message))).response()
        current = await self.fake.wait_until(
            lambda: next(
                (
                    self.fake.world.messages[message.id]
                    for b in self.fake.world.messages[message.id].enabled_buttons()
                    if (b.label or "").startswith("1 · ")
                ),
                None,
            ),
            what="the placements",
        )
        first = next(b for b in current.enabled_buttons() if (b.label or "").startswith("1 · "))
        assert first.custom_id is not None
        await (await self.fake.click(user, current, first.custom_id)).response()
        await self.settle()


def stamp(moment: datetime) -> str:
    return moment.strftime("%a %-d %b %H:%M")


@dataclass
class Event:
    at: datetime
    name: str
    path: tuple[str, ...]
    options: dict[str, object] = field(default_factory=dict)


EVENTS = [
    Event(datetime(2026, 12, 9, 15, tzinfo=UTC), "Dana", ("marrakech", "away"), {"days": 2}),
    Event(datetime(2026, 12, 10, 20, tzinfo=UTC), "Dana", ("marrakech", "back")),
    Event(datetime(2026, 12, 11, 8, tzinfo=UTC), "Taras", ("marrakech", "away"), {"days": 1}),
]
FORGETS = ("Marc", datetime(2026, 12, 12, tzinfo=UTC))
"""Marc forgets his first turn that begins from this moment on."""
NUDGE_AFTER = timedelta(hours=4)
"""How long Taras waits for Marc's forgotten turn before nudging him."""


def apply(week: Week, event: Event) -> None:
    person = week.person(event.name)
    if event.path[-1] == "away":
        days = event.options["days"]
        assert isinstance(days, int)
        person.away_until = event.at + timedelta(days=days)
    elif event.path[-1] == "back":
        person.away_until = event.at


def moment_to_play(person: Person, began: datetime) -> datetime:
    start = began
    if person.away_until is not None and person.away_until > start:
        start = person.away_until
    moment = person.awake_from(start) + person.delay
    if person.awake_from(moment) != moment:  # fallen asleep meanwhile: after waking, then
        moment = person.awake_from(moment) + person.delay
    return moment


async def play_the_week(week: Week) -> None:
    events = list(EVENTS)
    forgot = False
    while (message := week.turn()) is not None:
        person = week.mover(message)
        began = week.seen.get(message.id, week.now)
        forgets = not forgot and person.name == FORGETS[0] and began >= FORGETS[1]
        while True:
            target = None if forgets else moment_to_play(person, began)
            if events and (target is None or events[0].at <= target):
                event = events.pop(0)
                await week.move_to(event.at)
                apply(week, event)
                await week.command(event.name, *event.path, **event.options)
                continue
            break
        if target is not None:
            for other in PEOPLE:  # the bot's own moment: the end of someone's days away
                if other.away_until is not None and week.now < other.away_until < target:
                    await week.move_to(other.away_until + timedelta(minutes=1))
            await week.move_to(target)
            await week.play(person, message)
            continue
        forgot = True
        nudged = False
        while week.fake.world.messages[message.id].enabled_buttons():
            if not nudged and week.now >= began + NUDGE_AFTER:
                nudger = week.person("Taras")
                await week.move_to(nudger.awake_from(week.now))
                await week.command("Taras", "marrakech", "nudge")
                nudged = True
            await week.move_to(week.now + STEP)


# --- the transcript -----------------------------------------------------------------------------


def relative(when: datetime, now: datetime) -> str:
    """`when` as Discord shows a relative moment (`<t:...:R>`) read at `now`: "in 5 hours",
    "in a day", "2 days ago" (the thresholds of moment.js, which Discord's client follows)."""
    seconds = (when - now).total_seconds()
    distance = abs(seconds)
    minutes, hours, days = distance / 60, distance / 3600, distance / 86400
    if distance < 45:
        words = "a few seconds"
    elif distance < 90:
        words = "a minute"
    elif minutes < 45:
        words = f"{_rounded(minutes)} minutes"
    elif minutes < 90:
        words = "an hour"
    elif hours < 22:
        words = f"{_rounded(hours)} hours"
    elif hours < 36:
        words = "a day"
    elif days < 26:
        words = f"{_rounded(days)} days"
    elif days < 45:
        words = "a month"
    elif days < 320:
        words = f"{_rounded(days / 30.4)} months"
    elif days < 548:
        words = "a year"
    else:
        words = f"{_rounded(days / 365)} years"
    return f"in {words}" if seconds >= 0 else f"{words} ago"


def _rounded(value: float) -> int:
    """Rounded half up, as moment.js rounds."""
    return int(value + 0.5)


def readable(
    text: str, names: dict[int, str], channels: dict[int, str], now: datetime | None = None
) -> str:
    """Mentions, channels and moments as a reader sees them: a moment in UTC, or when it is
    relative (`<t:...:R>`), as it reads at `now` (the moment the message took the text shown;
    None: in UTC too)."""

    def moment(match: re.Match[str]) -> str:
        when = datetime.fromtimestamp(int(match[1]), UTC)
        if match[2] == "R" and now is not None:
            return relative(when, now)
        return when.strftime("%A, %-d %B %Y %H:%M")

    text = re.sub(r"<@!?(\d+)>", lambda m: "@" + names.get(int(m[1]), m[1]), text)
    text = re.sub(r"<#(\d+)>", lambda m: "#" + channels.get(int(m[1]), m[1]), text)
    return re.sub(r"<t:(\d+)(?::(\w))?>", moment, text)


def transcript(week: Week) -> str:
    names = {p.user.id: p.name for p in PEOPLE if p.user is not None}
    channels = {week.channel.id: week.channel.name}
    title = f"#{week.channel.name} at the end, as its readers see it"
    lines = [f"{title}; each message with the moment (UTC) it took the text shown", ""]

    def show(messages: list[FakeMessage]) -> None:
        for message in messages:
            moment = week.changed.get(message.id, ("", week.now))[1]
            parts = [message.content, message.embed_text()]
            body = "\n".join(part for part in parts if part)
            text = readable(body, names, channels, moment).splitlines() or [""]
            lines.append(f"[{stamp(moment)}] {text[0]}")
            lines.extend(f"            {line}" for line in text[1:])

    show(week.fake.messages(week.channel))
    for person in PEOPLE:
        dm = week.fake.messages(week.fake.dm_channel(week.user(person.name)))
        if dm:
            lines += ["", f"{person.name}'s direct messages", ""]
            show(dm)
    lines += ["", "Private answers to commands", ""]
    lines += [readable(line, names, channels, moment) for moment, line in week.private]
    return "\n".join(lines) + "\n"


# --- the run --------------------------------------------------------------------------------------


def environment(fake: FakeDiscord, scratch: Path, clock_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MARRAKECH_"))}
    env.update(
        {
            "DISCORD_TOKEN": "fakecord-week-token",
            "DISCORD_API_BASE_URL": fake.api_base_url,
            "MARRAKECH_DB": str(scratch / "marrakech.sqlite3"),
            "MARRAKECH_TEST_CLOCK_FILE": str(clock_file),
            "LOG_LEVEL": "DEBUG",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
        }
    )
    return env


async def run(scratch: Path) -> str:
    async with FakeDiscord(bot_name="Marrakech") as fake:
        for person in PEOPLE:
            person.user = fake.add_user(person.name)
        oksana = PEOPLE[0].user
        assert oksana is not None
        guild = fake.add_guild("Souk", owner=oksana)
        channel = fake.add_text_channel(guild, "souk")
        for person in PEOPLE:
            assert person.user is not None
            fake.add_member(guild, person.user)
        clock_file = scratch / "clock-offset"
        clock_file.write_text(str((START - datetime.now(UTC)).total_seconds()), encoding="ascii")
        bot = BotProcess(
            [sys.executable, "-m", "bot"],
            environment(fake, scratch, clock_file),
            log_path=scratch / "bot.log",
            cwd=REPO_ROOT,
        )
        try:
            await bot.start_and_wait_ready(fake, commands=COMMANDS, timeout=60)
            week = Week(fake, bot, clock_file, channel)
            await week.move_to(START + timedelta(seconds=1))
            for person in PEOPLE:
                if person.quiet is not None:
                    await week.command(
                        person.name,
                        "marrakech",
                        "quiet-hours",
                        **{"from": person.quiet[0], "to": person.quiet[1], "timezone": person.zone},
                    )
            await week.move_to(datetime(2026, 12, 7, 9, tzinfo=UTC))
            lobby = await (
                await fake.slash(oksana, channel, "marrakech", "new", seats=4, turn_limit=DAY_LIMIT)
            ).answer()
            for person in PEOPLE[1:]:
                assert person.user is not None
                join = lobby.button(label="Join").custom_id
                assert join is not None
                await (await fake.click(person.user, lobby, join)).response()
            current = fake.world.messages[lobby.id]
            start = current.button(label="Start").custom_id
            assert start is not None
            await (await fake.click(oksana, current, start)).response()
            await week.settle()
            try:
                await play_the_week(week)
            except Exception:
                print(transcript(week), file=sys.stderr)  # what the channel showed so far
                raise
            await week.move_to(week.now + timedelta(minutes=5))
            return transcript(week)
        finally:
            await bot.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.week_example", description=__doc__)
    parser.add_argument("--out", type=Path, help="also write the transcript to this file")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="marrakech-week-") as name:
        text = asyncio.run(run(Path(name)))
    print(text, end="")
    if arguments.out is not None:
        arguments.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
