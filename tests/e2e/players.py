"""Scripted players and database checks shared by the reliability tests (crash, load, fuzz).

A scripted player reads what the bot shows in a channel (the newest message with live buttons),
picks a button deterministically and clicks it as the right person (a result's Rematch button
is no decision: `decision` leaves it out). The checks read the bot's
SQLite file directly and prove that its action log replays to its stored snapshot, that every
die roll is the one the game's seed gives for that position (so no roll was drawn twice), and
that the file is sound (`PRAGMA integrity_check`).
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import engine
from bot.edge.buttons import ANALYSIS_TEMPLATE, DRILL_TEMPLATE, WATCH_TEMPLATE
from bot.edge.layout import REMATCH
from bot.presentation import messages
from bot.services import dice
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage

CUSTOM_ID = re.compile(r"mk:(?P<game>\d+):(?P<seq>\d+):(?P<action>\w+)")
FINAL_TITLE = re.compile(
    "|".join(
        re.escape(messages.catalogue(language)["end.title"]).replace(r"\{game_id\}", r"\d+")
        for language in ("en", "fr", "uk")
    )
)
"""The title of a game's final message, in any language."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A live game button: the game, the seq it belongs to and its action."""

    game_id: int
    seq: int
    action: str
    custom_id: str


def decision(custom_id: str | None) -> Decision | None:
    """The decision a game button's id offers; None for any other id (Rematch included)."""
    match = CUSTOM_ID.fullmatch(custom_id or "")
    if match is None or custom_id is None or is_rematch(custom_id):
        return None
    return Decision(int(match["game"]), int(match["seq"]), match["action"], custom_id)


def offers_decision_at(message: FakeMessage, seq: int) -> bool:
    """Whether the message still offers a decision of the game at `seq` (an enabled game
    button carrying it): a click there has not been shown on it yet."""
    return any(
        (offered := decision(button.custom_id)) is not None and offered.seq == seq
        for button in message.enabled_buttons()
    )


def is_rematch(custom_id: str | None) -> bool:
    """Whether the id is a finished game's Rematch button."""
    match = CUSTOM_ID.fullmatch(custom_id or "")
    return match is not None and match["action"] == REMATCH


def is_analysis(custom_id: str | None) -> bool:
    """Whether the id is a finished game's Analysis button."""
    return ANALYSIS_TEMPLATE.fullmatch(custom_id or "") is not None


def is_drill(custom_id: str | None) -> bool:
    """Whether the id is a finished game's Learn from your mistakes button."""
    return DRILL_TEMPLATE.fullmatch(custom_id or "") is not None


def is_watch(custom_id: str | None) -> bool:
    """Whether the id is a spectator's button (it acts on their watch, never on the game)."""
    return WATCH_TEMPLATE.fullmatch(custom_id or "") is not None


def live_decisions(fake: FakeDiscord, channel: FakeChannel) -> list[tuple[FakeMessage, Decision]]:
    """Every enabled game button in the channel's public messages."""
    found = []
    for message in fake.messages(channel):
        for button in message.enabled_buttons():
            parsed = decision(button.custom_id)
            if parsed is not None:
                found.append((message, parsed))
    return found


def pick(message: FakeMessage, turn: int) -> Decision:
    """A deterministic choice among the message's turn buttons (varied by `turn`)."""
    choices = [d for b in message.enabled_buttons() if (d := decision(b.custom_id))]
    assert choices, f"no game button on message {message.id}"
    orientations = [d for d in choices if d.action in ("L", "S", "R")]
    if orientations:
        return orientations[turn % len(orientations)]
    return choices[(turn * 7) % len(choices)]


def is_lobby(message: FakeMessage) -> bool:
    """A lobby message: it has a live Join button."""
    return any(
        (d := decision(b.custom_id)) and d.action == "join" for b in message.enabled_buttons()
    )


def is_final(message: FakeMessage) -> bool:
    return any(FINAL_TITLE.fullmatch(str(embed.get("title", ""))) for embed in message.embeds)


@dataclass(frozen=True, slots=True)
class LoggedAction:
    seq: int
    notation: str | None
    actor_id: int | None


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as its row and log say."""

    id: int
    channel_id: int
    status: str
    seq: int
    board_message_id: int | None
    board_message_seq: int | None
    log: tuple[LoggedAction, ...]


def integrity(database: Path) -> str:
    with sqlite3.connect(database) as connection:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])


def stored_games(database: Path) -> dict[int, StoredGame]:
    """Every game, checked: its log replays to its snapshot and every roll is the seeded one."""
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT id, channel_id, status, seq, board_message_id, board_message_seq, config, "
            "position, seed FROM games ORDER BY id"
        ).fetchall()
        games = {}
        for game_id, channel, status, seq, message, shown, config, position, seed in rows:
            log = tuple(
                LoggedAction(*row)
                for row in connection.execute(
                    "SELECT seq, notation, actor_id FROM actions WHERE game_id = ? ORDER BY seq",
                    (game_id,),
                )
            )
            assert [entry.seq for entry in log] == list(range(1, seq + 1)), (game_id, seq, log)
            if config is not None:
                check_replay(game_id, config, position, seed, log)
            games[game_id] = StoredGame(game_id, channel, status, seq, message, shown, log)
    return games


def check_replay(
    game_id: int, config: str, position: str, seed: str, log: tuple[LoggedAction, ...]
) -> None:
    start = engine.record_from_json(json.loads(config))  # the record before the first action
    assert start.actions == (), f"game {game_id}: its config holds actions"
    state = engine.new_game(start.config)
    for entry in log:
        assert entry.notation is not None, "these tests never resign"
        if engine.current_player(state) == engine.CHANCE:
            expected = dice.roll(seed, entry.seq, engine.chance_outcomes(state))
            assert entry.notation == expected, f"game {game_id}: roll {entry.seq} was redrawn"
            assert entry.actor_id is None
        state, _ = engine.apply(state, entry.notation)
    assert json.loads(position) == engine.to_position(state), f"game {game_id}: snapshot != log"


async def settled(database: Path, *, timeout: float = 10.0) -> None:
    """Wait until the bot has recorded every open game's message as showing its current seq
    (it records a message just after Discord accepted it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        with sqlite3.connect(database) as connection:
            behind = connection.execute(
                "SELECT count(*) FROM games WHERE status IN ('lobby', 'running') "
                "AND board_message_seq IS NOT seq"
            ).fetchone()[0]
        if behind == 0:
            return
        assert loop.time() < deadline, f"{behind} games never recorded their message"
        await asyncio.sleep(0.02)


def score_said(user_id: int, score: engine.Score) -> str:
    """How an English final message gives a player's score (singular for one)."""
    points = "point" if score.total == 1 else "points"
    dirhams = "dirham" if score.dirhams == 1 else "dirhams"
    return f"<@{user_id}>: {score.total} {points} ({score.dirhams} {dirhams}"
