"""A table's thread: public (discord.py makes a private one unless told), archived after a week
at most, found again by its name when a run that made it stopped before recording it,
whichever process looks (one that does not hold the server's shard knows none of its threads),
and without Discord's "started a thread" notice left in the tournament's channel (a round's
notices found in as few reads of its history as Discord allows); its welcome
goes once, though a run dies as it records the thread; the welcome and the winner's
announcement ping their players only, whatever the tournament's name."""

from __future__ import annotations

import dataclasses
import logging
from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import AsyncMock, MagicMock

import discord
import pytest

from bot.edge.tournaments import (
    ARCHIVE_MINUTES,
    HISTORY_PAGE,
    NOTICE_LOOKAHEAD,
    TournamentDisplay,
)
from bot.presentation import tournaments as shown
from bot.services.tournament_views import Progress, TournamentStatus
from tests.bot.presentation.test_tournaments import view

BOT = 4242
CHANNEL = view().channel_id


def thread(name: str, owner: int, thread_id: int, parent: int = CHANNEL) -> Any:
    """A thread as `GET /guilds/{id}/threads/active` lists it (ids are strings)."""
    return {"id": str(thread_id), "name": name, "owner_id": str(owner), "parent_id": str(parent)}


def display_over(
    parent: Any,
    *listed: dict[str, object],
    cached: bool = True,
    after_thread: list[dict[str, object]] | None = None,
    recorded: tuple[int, ...] = (),
) -> TournamentDisplay:
    """A display whose client finds `parent` in its cache (a process holding the server's
    shard), or else only by `fetch_channel`; Discord lists `listed` as the active threads, and
    `after_thread` as the channel's messages after a new thread (oldest first); the threads
    `recorded` are recorded as tables' threads."""
    client = SimpleNamespace(
        get_channel=lambda _: parent if cached else None,
        fetch_channel=AsyncMock(return_value=parent),
        user=SimpleNamespace(id=BOT),
        http=SimpleNamespace(
            get_active_threads=AsyncMock(return_value={"threads": list(listed), "members": []}),
            logs_from=AsyncMock(return_value=list(reversed(after_thread or []))),
            delete_message=AsyncMock(return_value=None),
        ),
    )
    service = SimpleNamespace(
        thread_recorded=AsyncMock(side_effect=lambda t: t in recorded),
        look=AsyncMock(return_value=view()),
    )
    nothing = cast(Any, None)
    return TournamentDisplay(cast(discord.Client, client), cast(Any, service), nothing, nothing)


def parent_with(*threads: dict[str, object]) -> MagicMock:
    """The tournament's channel; its cached threads are `threads` (a process that fetched it
    has none)."""
    parent = MagicMock(spec=discord.TextChannel)
    parent.threads = [
        SimpleNamespace(name=t["name"], owner_id=int(str(t["owner_id"])), id=int(str(t["id"])))
        for t in threads
    ]
    parent.create_thread = AsyncMock(return_value=SimpleNamespace(id=555))
    return parent


async def test_a_new_table_gets_a_public_thread_named_after_it() -> None:
    tournament = view()
    table = tournament.tables[2]
    another = thread("another", BOT, 1)
    parent = parent_with(another)
    assert await display_over(parent, another)._thread_for(tournament, table, [another]) == 555
    parent.create_thread.assert_awaited_once_with(
        name=shown.thread_name(tournament, table),
        type=discord.ChannelType.public_thread,
        auto_archive_duration=ARCHIVE_MINUTES,
    )
    assert ARCHIVE_MINUTES == 7 * 24 * 60


@pytest.mark.parametrize("owner", [BOT, 1])
async def test_a_thread_made_but_never_recorded_is_found_again(owner: int) -> None:
    tournament = view()
    table = tournament.tables[2]
    table = dataclasses.replace(table, thread_id=None)
    made = thread(shown.thread_name(tournament, table), owner, 77)
    parent = parent_with(made)
    display = display_over(parent, made, after_thread=[notice(78, 77), notice(556, 555)])
    threads, failed = await display._threads_for(tournament.id, [table])
    (found,) = threads.values()
    assert not failed
    deleted = cast(Any, display)._client.http.delete_message
    if owner == BOT:
        assert found == 77
        parent.create_thread.assert_not_awaited()
        # the notice the run that stopped left behind goes too
        deleted.assert_awaited_once_with(CHANNEL, 78)
    else:  # someone else's thread of the same name is not the table's
        assert found == 555
        deleted.assert_awaited_once_with(CHANNEL, 556)


async def test_a_thread_another_process_made_is_found_by_one_that_fetched_the_channel() -> None:
    """The process does not hold the server's shard: the channel comes from `fetch_channel`,
    with no threads known; the thread another process made (and crashed before recording) is
    found all the same, and no second one is made."""
    tournament = view()
    table = tournament.tables[2]
    made = thread(shown.thread_name(tournament, table), BOT, 77)
    parent = parent_with()  # fetched: its threads are unknown
    found = await display_over(parent, made, cached=False)._thread_for(tournament, table, [made])
    assert found == 77, "a second thread was made for the table"
    parent.create_thread.assert_not_awaited()


async def test_a_thread_an_earlier_tournament_of_the_same_name_played_in_is_not_the_tables() -> (
    None
):
    """A tournament of the same name as one played in the channel last week: the bot's thread
    for that one's round 2, table 1 is still active under the very name of this one's, but it
    is recorded as that table's thread, so this table gets a thread of its own."""
    tournament = view()
    table = tournament.tables[2]
    earlier = thread(shown.thread_name(tournament, table), BOT, 77)
    parent = parent_with(earlier)
    display = display_over(parent, earlier, recorded=(77,))
    assert await display._thread_for(tournament, table, [earlier]) == 555
    parent.create_thread.assert_awaited_once()


async def test_a_thread_of_the_same_name_in_another_channel_is_not_the_tables() -> None:
    tournament = view()
    table = tournament.tables[2]
    elsewhere = thread(shown.thread_name(tournament, table), BOT, 77, parent=CHANNEL + 1)
    parent = parent_with()
    assert await display_over(parent, elsewhere)._thread_for(tournament, table, [elsewhere]) == 555


def notice(message_id: int, thread_id: int) -> dict[str, object]:
    """Discord's "started a thread" message (type 18) in the parent, as the API gives it."""
    reference = {"channel_id": str(thread_id), "guild_id": "1"}
    return {"id": str(message_id), "type": 18, "message_reference": reference}


async def test_the_started_a_thread_notice_of_a_new_table_is_deleted() -> None:
    """The notices of the threads just made (new, or found again) go, in one read of the
    channel after the first of them; another thread's notice stays."""
    tournament = view()
    chat = {"id": "600", "type": 0, "content": "good luck all"}
    after = [notice(556, 555), chat, notice(601, 600), notice(701, 700)]
    display = display_over(parent_with(), after_thread=after)
    await display._drop_thread_notices(tournament, {555, 700})
    http = cast(Any, display)._client.http
    http.logs_from.assert_awaited_once()
    assert http.logs_from.await_args.kwargs["after"] == 555, "looked only after the threads"
    assert http.logs_from.await_args.args[1] == 2 * NOTICE_LOOKAHEAD
    assert [call.args for call in http.delete_message.await_args_list] == [
        (CHANNEL, 701),
        (CHANNEL, 556),
    ]


async def test_the_notices_of_many_tables_are_looked_for_a_page_at_a_time() -> None:
    """More notices than one read of the channel gives: the next read goes on after the
    newest message of the last, until every notice is found."""
    tournament = view()
    threads = range(1000, 1000 + 3 * HISTORY_PAGE, 2)  # each thread, then its notice
    notices = [notice(t + 1, t) for t in threads]
    pages = [notices[:HISTORY_PAGE][::-1], notices[HISTORY_PAGE:][::-1]]  # newest first
    display = display_over(parent_with())
    http = cast(Any, display)._client.http
    http.logs_from.side_effect = pages
    await display._drop_thread_notices(tournament, set(threads))
    assert [call.kwargs["after"] for call in http.logs_from.await_args_list] == [
        threads[0],
        threads[HISTORY_PAGE - 1] + 1,
    ]
    assert http.delete_message.await_count == len(threads)


async def test_a_notice_discord_keeps_stays_and_the_table_is_set_up_all_the_same(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    tournament = view()
    display = display_over(parent_with(), after_thread=[notice(556, 555)])
    http = cast(Any, display)._client.http
    refused = discord.Forbidden(MagicMock(status=403, reason="Forbidden"), "Missing Access")
    http.delete_message.side_effect = refused
    for _ in range(2):  # two rounds
        await display._drop_thread_notices(tournament, {555})
    assert http.delete_message.await_count == 2
    lines = [r.getMessage() for r in caplog.records if "started a thread" in r.getMessage()]
    assert len(lines) == 1, f"one line for the channel, not one per table: {lines}"
    assert "stay" in lines[0]


async def test_a_table_s_players_are_welcomed_once_though_a_run_died_recording_its_thread() -> None:
    """The run setting the table up is killed as it records the thread it made (the recording
    raises): the next run finds the thread again by its name and sets the table up, and its
    players are welcomed there once in all, since the welcome goes only once the thread is
    recorded (docs/reliability.md: lost, not doubled)."""
    tournament = view()
    table = dataclasses.replace(tournament.tables[2], thread_id=None)
    welcomes: list[str] = []

    async def send(content: str, **fields: object) -> None:
        welcomes.append(content)

    thread = SimpleNamespace(send=send)
    client = SimpleNamespace(get_partial_messageable=lambda *_, **__: thread)
    service = SimpleNamespace(
        look=AsyncMock(return_value=tournament),
        set_thread=AsyncMock(side_effect=[RuntimeError("killed"), 77]),
        start_table=AsyncMock(return_value=SimpleNamespace(id=9)),
        resign_withdrawn=AsyncMock(return_value=[]),
    )
    games = SimpleNamespace(post_first_turn=AsyncMock())
    display = TournamentDisplay(
        cast(discord.Client, client), cast(Any, service), cast(Any, games), cast(Any, None)
    )
    with pytest.raises(RuntimeError, match="killed"):
        await display._set_up_table(tournament.id, table, 77)
    await display._set_up_table(tournament.id, table, 77)  # the next run, finding it again
    assert len(welcomes) == 1, welcomes
    games.post_first_turn.assert_awaited_once()


NAME_THAT_PINGS = "@everyone <@&55> <@999> cup"
"""A tournament's name as a moderator may type it: everyone, a role and someone outside."""


def sent_to_channel(sent: list[tuple[str, discord.AllowedMentions]]) -> Any:
    """A channel whose sends are recorded in `sent` as (content, allowed mentions)."""

    async def send(content: str, **fields: Any) -> None:
        sent.append((content, fields["allowed_mentions"]))

    return SimpleNamespace(send=send)


def pings(mentions: discord.AllowedMentions) -> tuple[object, object]:
    """What Discord is told it may ping: the kinds of mention pinging all they name
    ("everyone", "roles", "users") and the users it may ping besides."""
    told = mentions.to_dict()
    return told["parse"], told.get("users")


async def test_a_welcome_pings_its_table_s_players_only_whatever_the_tournament_s_name() -> None:
    """The name is in the welcome, but Discord is told to ping only the table's players."""
    tournament = view(name=NAME_THAT_PINGS)
    table = dataclasses.replace(tournament.tables[2], thread_id=None)
    sent: list[tuple[str, discord.AllowedMentions]] = []
    thread = sent_to_channel(sent)
    client = SimpleNamespace(get_partial_messageable=lambda *_, **__: thread)
    service = SimpleNamespace(
        look=AsyncMock(return_value=tournament),
        set_thread=AsyncMock(return_value=77),
        start_table=AsyncMock(return_value=SimpleNamespace(id=9)),
        resign_withdrawn=AsyncMock(return_value=[]),
    )
    games = SimpleNamespace(post_first_turn=AsyncMock())
    display = TournamentDisplay(
        cast(discord.Client, client), cast(Any, service), cast(Any, games), cast(Any, None)
    )
    await display._set_up_table(tournament.id, table, 77)
    ((content, mentions),) = sent
    assert all(f"<@{user}>" in content for user in table.seats if user is not None)
    assert pings(mentions) == ([], [101, 103])


async def test_the_winner_s_announcement_pings_the_winners_only_whatever_the_name() -> None:
    """The name is in the announcement, but Discord is told to ping only the winners: not
    everyone, not a role, not someone named in it."""
    tournament = view(name=NAME_THAT_PINGS, status=TournamentStatus.OVER)
    assert tournament.winners
    sent: list[tuple[str, discord.AllowedMentions]] = []
    channel = sent_to_channel(sent)
    client = SimpleNamespace(get_partial_messageable=lambda *_, **__: channel)
    nothing = cast(Any, None)
    display = TournamentDisplay(cast(discord.Client, client), nothing, nothing, nothing)
    display.refresh = MagicMock()  # type: ignore[method-assign]  # the message: not here
    await display.show_progress(Progress(tournament, finished=True))
    ((content, mentions),) = sent
    assert "cup" in content, "the name is in the announcement"
    assert pings(mentions) == ([], list(tournament.winners))
