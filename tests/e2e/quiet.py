"""What a game's channel must look like, at every moment and once the game moved on: at most one
board picture (the turn being played, or the result), every finished turn a single line of text
with no picture and no button, no message left calling anyone to play, and a lobby that links
to the game's first turn, then to its result, without being edited at every turn. Shared by the
end-to-end tests of a quiet channel.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from typing import Any

import engine
from bot.presentation import messages
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionHandle
from tests.e2e.fakecord.interactions import CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE
from tests.e2e.players import (
    decision,
    is_analysis,
    is_drill,
    is_final,
    is_rematch,
    is_watch,
    offers_decision_at,
    pick,
)

LANGUAGES = ("en", "fr", "uk")
"""The languages whose games these checks read."""


def template_pattern(key: str, language: str, groups: dict[str, str]) -> str:
    """The catalogue text `key` as a regular expression: each placeholder named in `groups`
    becomes that group, any other any text."""
    pattern = ""
    for literal, field, _, _ in string.Formatter().parse(messages.catalogue(language)[key]):
        pattern += re.escape(literal)
        if field is not None:
            pattern += groups.get(field, ".+?")
    return pattern


TURN_LINE = re.compile(
    "|".join(
        template_pattern(
            "story.line",
            language,
            {
                "game_id": rf"(?P<game_{language}>\d+)",
                "turn": rf"(?P<turn_{language}>\d+)",
                "story": rf"(?P<story_{language}>.+)",
            },
        )
        for language in LANGUAGES
    )
)
"""A finished turn's message, in any language."""
AI_PLAYING_FOR = tuple(
    messages.catalogue(language)["ai.playing_for"].split("{user}")[0] for language in LANGUAGES
)
"""How a seat the AI plays for a person begins (before the person's mention)."""
LOBBY_TITLE_ENDS = tuple(
    messages.catalogue(language)["lobby.title"].rsplit("}", 1)[1] for language in LANGUAGES
)
"""The end of an open lobby's title (" (lobby)"), in each language."""
CALL_KEYS = (
    "turn.ping",
    "turn.prompt.orient",
    "turn.prompt.roll",
    "turn.prompt.place",
    "turn.prompt.rotate",
    "turn.must_lay",
    "turn.ai_thinking",
    "turn.prompt.ai",
    "turn.seat_line_to_move",
    "timer.reminder",
    "turn.paused",
    "turn.paused_ping",
)
"""The catalogue's texts that call someone to play (only the turn being played may say them)."""


CALL_WORDS_AT_LEAST = 5
"""The shortest call word kept (Ukrainian's "думає", of "{player} думає…", is 5 letters): a
shorter piece could match ordinary text."""


def calls_to_play() -> tuple[str, ...]:
    """The words of each call to play (its longest piece without placeholders), in every
    language."""
    found = []
    for language in LANGUAGES:
        for key in CALL_KEYS:
            template = messages.catalogue(language).get(key)
            if template is None:
                continue
            pieces = [part[0].strip(" .,:;·!?…#()") for part in string.Formatter().parse(template)]
            longest = max(pieces, key=len)
            if len(longest) >= CALL_WORDS_AT_LEAST:
                found.append(longest)
    return tuple(found)


CALLS = calls_to_play()


def text_of(message: FakeMessage) -> str:
    return f"{message.content}\n{message.embed_text()}"


def has_picture(message: FakeMessage) -> bool:
    """A board picture: an image attached, or drawn in an embed."""
    images = (".png", ".gif", ".jpg", ".webp")
    return any(a.filename.endswith(images) for a in message.attachments) or any(
        "image" in embed for embed in message.embeds
    )


def game_buttons(message: FakeMessage) -> list[str]:
    """The custom_ids of the message's live game buttons."""
    return [
        button.custom_id
        for button in message.enabled_buttons()
        if button.custom_id is not None and decision(button.custom_id) is not None
    ]


class ChannelWatch:
    """Looks at a channel right after every change the fake makes (`FakeDiscord.observe`): the
    most board pictures and the most messages with live buttons it ever showed at once."""

    def __init__(self, fake: FakeDiscord, channel: FakeChannel) -> None:
        self.fake = fake
        self.channel = channel
        self.most_pictures = 0
        self.most_live = 0
        self.crowded: str | None = None
        """The channel the first time it showed two pictures (or two live messages)."""
        fake.observe(self._look)

    def _look(self) -> None:
        shown = self.fake.messages(self.channel)
        pictures = sum(has_picture(message) for message in shown)
        live = sum(bool(game_buttons(message)) for message in shown)
        if (pictures > 1 or live > 1) and self.crowded is None:
            self.crowded = self.fake.transcript(self.channel, include_ephemeral=False)
        self.most_pictures = max(self.most_pictures, pictures)
        self.most_live = max(self.most_live, live)

    def check(self) -> None:
        assert self.most_pictures <= 1, f"two pictures at once:\n{self.crowded}"
        assert self.most_live <= 1, f"two messages with live buttons at once:\n{self.crowded}"


def left_behind(
    fake: FakeDiscord, channel: FakeChannel, current: FakeMessage | None
) -> list[tuple[int, str]]:
    """Every message but `current` that still calls someone to play, offers a live button or
    shows a board picture (the result may keep its picture and its Rematch, Analysis and Learn
    from your mistakes buttons; a running game's lobby its Watch button, which acts on no
    game): (message id, what)."""
    found: list[tuple[int, str]] = []
    for message in fake.messages(channel):
        if current is not None and message.id == current.id:
            continue
        said = text_of(message)
        found.extend((message.id, call) for call in CALLS if call in said)
        kept = [
            b
            for b in message.enabled_buttons()
            if is_rematch(b.custom_id) or is_analysis(b.custom_id) or is_drill(b.custom_id)
        ]
        live = [b for b in message.enabled_buttons() if not is_watch(b.custom_id)]
        if len(live) > (len(kept) if is_final(message) else 0):
            found.append((message.id, "live buttons"))
        if has_picture(message) and not is_final(message):
            found.append((message.id, "a picture"))
    return found


@dataclass(frozen=True, slots=True)
class TurnLine:
    """A finished turn's message read back: its game, its turn and what it tells."""

    game: int
    turn: int
    story: str


def read_turn_line(content: str) -> TurnLine | None:
    """The finished turn a message's text tells, in any language; None if it is not one."""
    line = TURN_LINE.fullmatch(content)
    if line is None:
        return None
    parts = {name.rsplit("_", 1)[0]: value for name, value in line.groupdict().items() if value}
    return TurnLine(int(parts["game"]), int(parts["turn"]), parts["story"])


def turn_lines(fake: FakeDiscord, channel: FakeChannel) -> list[tuple[FakeMessage, int, str]]:
    """The finished turns' messages, oldest first: (message, turn number, story)."""
    found = []
    for message in fake.messages(channel):
        line = read_turn_line(message.content)
        if line is not None:
            found.append((message, line.turn, line.story))
    return found


def check_turn_line(message: FakeMessage) -> None:
    """A finished turn: one line of text, nothing else."""
    assert "\n" not in message.content, message.content
    assert not message.embeds, message.content
    assert not message.attachments, message.content
    assert not message.buttons(), message.content


@dataclass(frozen=True, slots=True)
class Played:
    """What a game's record says: who played each turn (by seat) and the users of the seats."""

    movers: tuple[int, ...]
    user_ids: tuple[int | None, ...]


def played(final: FakeMessage) -> Played:
    """Replay the record attached to the result."""
    name = next(a.filename for a in final.attachments if a.filename.endswith(".json"))
    record_json = json.loads(final.file(name))
    record = engine.record_from_json(record_json)
    movers = [record.first_player]
    for _, events in engine.replay_events(record):
        movers.extend(e.seat for e in events if isinstance(e, engine.TurnStarted))
    return Played(tuple(movers), tuple(record_json["user_ids"]))


async def check_over(fake: FakeDiscord, channel: FakeChannel, lobby_id: int) -> FakeMessage:
    """The game is over: every turn it played is one line, numbered and played as the record
    says, the result keeps the only picture, nothing calls anyone to play and the lobby links
    to the result (it is edited in the background). Returns the result."""
    final = next(m for m in fake.messages(channel) if is_final(m))
    await fake.wait_until(
        lambda: f"/{final.id})" in fake.world.messages[lobby_id].embed_text(),
        what="the lobby linking to the result",
    )
    assert has_picture(final), "the result keeps the final board"
    record = played(final)
    lines = turn_lines(fake, channel)
    assert [turn for _, turn, _ in lines] == list(range(1, len(record.movers) + 1)), [
        turn for _, turn, _ in lines
    ]
    for (message, _, told), seat in zip(lines, record.movers, strict=True):
        check_turn_line(message)
        who = told.split(" ", 1)[1]  # after the seat's colours
        user = record.user_ids[seat]
        if user is None:
            assert who.startswith("🤖"), told
        else:
            helped = tuple(f"{start}<@{user}>" for start in AI_PLAYING_FOR)
            assert who.startswith((f"<@{user}>", *helped)), told
    assert left_behind(fake, channel, None) == [], fake.transcript(channel)
    check_lobby(fake, channel, lobby_id, final)
    return final


def check_lobby(
    fake: FakeDiscord, channel: FakeChannel, lobby_id: int, current: FakeMessage | None
) -> None:
    """The lobby of a started game: titled no longer a lobby, linking to `current`, with no
    button but Watch while the game runs, and none once it is over."""
    lobby = fake.world.messages[lobby_id]
    title = str(lobby.embeds[0].get("title", ""))
    assert not title.endswith(LOBBY_TITLE_ENDS), title
    buttons = lobby.enabled_buttons()
    assert all(is_watch(button.custom_id) for button in buttons), buttons
    if current is not None and is_final(current):
        assert not buttons, "a finished game is not watched"
    if current is not None:
        assert lobby_link(fake, channel, lobby_id) == current.id, lobby.embed_text()


def lobby_link(fake: FakeDiscord, channel: FakeChannel, lobby_id: int) -> int | None:
    """The message of the channel the lobby links to, if it links to one."""
    found = re.search(rf"/{channel.id}/(\d+)\)", fake.world.messages[lobby_id].embed_text())
    return int(found[1]) if found is not None else None


def first_turn(fake: FakeDiscord, channel: FakeChannel, lobby_id: int) -> FakeMessage | None:
    """The game's first turn: the first message after its lobby, once it shows turn 1 (being
    played, or down to its line)."""
    after = [message for message in fake.messages(channel) if message.id > lobby_id]
    if not after:
        return None
    line = read_turn_line(after[0].content)
    playing = game_buttons(after[0]) or has_picture(after[0])
    return after[0] if (line is not None and line.turn == 1) or playing else None


async def lobby_at_first_turn(
    fake: FakeDiscord, channel: FakeChannel, lobby_id: int
) -> FakeMessage:
    """Wait until the lobby of a game that started links to its first turn; return that."""

    def linked() -> FakeMessage | None:
        first = first_turn(fake, channel, lobby_id)
        if first is not None and lobby_link(fake, channel, lobby_id) == first.id:
            return first
        return None

    return await fake.wait_until(linked, what="the lobby linking to the first turn")


def human_turn(fake: FakeDiscord, channel: FakeChannel) -> FakeMessage | None:
    """The newest message with live game buttons (a human's turn), if any."""
    for message in reversed(fake.messages(channel)):
        if game_buttons(message):
            return message
    return None


def final_message(fake: FakeDiscord, channel: FakeChannel) -> FakeMessage | None:
    return next((m for m in fake.messages(channel) if is_final(m)), None)


async def open_game(
    fake: FakeDiscord,
    channel: FakeChannel,
    host: FakeUser,
    guests: tuple[FakeUser, ...],
    ais: tuple[str, ...] = (),
    **options: Any,
) -> FakeMessage:
    """Open a lobby, seat the guests and the AIs (levels), start it; return the lobby."""
    seats = 1 + len(guests) + len(ais)
    handle = await fake.slash(host, channel, "marrakech", "new", seats=seats, **options)
    lobby = await handle.answer()
    for guest in guests:
        await click_action(fake, guest, lobby.id, "join")
    for level in ais:
        await click_action(fake, host, lobby.id, f"ai{level}")
    await click_action(fake, host, lobby.id, "start")
    return lobby


async def click_action(fake: FakeDiscord, user: FakeUser, message_id: int, action: str) -> None:
    """Click the message's game button for `action` and wait for the answer."""
    message = fake.world.messages[message_id]
    (custom_id,) = [c for c in game_buttons(message) if c.endswith(f":{action}")]
    await (await fake.click(user, message, custom_id)).response()


async def confirm(
    fake: FakeDiscord, user: FakeUser, handle: InteractionHandle, choice: str
) -> None:
    """Click the go-ahead of the private confirmation a command answered with."""
    asked = await handle.answer()
    assert asked.ephemeral, asked.content
    (button,) = [b for b in asked.enabled_buttons() if (b.custom_id or "").endswith(f":{choice}")]
    assert button.custom_id is not None
    await (await fake.click(user, asked, button.custom_id)).response()


async def play_to_the_end(
    fake: FakeDiscord,
    channel: FakeChannel,
    humans: dict[int, FakeUser],
    lobby_id: int,
    *,
    max_clicks: int = 800,
) -> FakeMessage:
    """Click for the humans until the game is over (the AI seats play by themselves). At every
    human turn nothing else calls anyone to play, and the lobby links to the first turn as it
    did once the game started, not edited since. Returns the result."""
    first = await lobby_at_first_turn(fake, channel, lobby_id)
    lobby_edits = fake.world.messages[lobby_id].edit_count
    for clicks in range(max_clicks):
        shown = await fake.wait_until(
            lambda: final_message(fake, channel) or human_turn(fake, channel),
            timeout=60,
            what="a human's turn or the end",
        )
        if is_final(shown):
            return shown
        current = shown
        check_lobby(fake, channel, lobby_id, first)
        assert fake.world.messages[lobby_id].edit_count == lobby_edits, "the lobby was edited"
        assert left_behind(fake, channel, current) == [], fake.transcript(channel)
        await play_turn_click(fake, humans, current, clicks)
    raise AssertionError("the game did not end")


EDIT_SECONDS = 30.0
"""How long a click's edit of its turn message may take to show: the click itself is answered
within Discord's 3 s (`handle.response()`); the edit follows in the background, and a loaded
machine running a test of several bot processes beside this one may take more than 5 s."""


async def play_turn_click(
    fake: FakeDiscord, humans: dict[int, FakeUser], current: FakeMessage, clicks: int
) -> None:
    """The pinged human clicks the `clicks`-th pick on the turn message `current`; returns
    once the message has left the decision clicked (shows the next one, or became a line).
    Any other edit of it meanwhile (a redraw after a seat changed hands, its picture) does
    not count: the next click must be on the decision the game is at."""
    (mover,) = current.pinged_user_ids
    chosen = pick(current, clicks)
    handle = await fake.click(humans[mover], current, chosen.custom_id)
    answer = await handle.response()
    assert answer.response_type not in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE), (
        f"the click {chosen.custom_id} on message {current.id} was answered with a message: "
        f"{answer.message.content if answer.message else answer}"
    )

    await fake.wait_until(
        lambda: not offers_decision_at(fake.world.messages[current.id], chosen.seq),
        timeout=EDIT_SECONDS,
        what="the click answered",
    )
