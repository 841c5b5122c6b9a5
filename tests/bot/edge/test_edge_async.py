"""The Discord edge of asynchronous play with real discord.py objects (see test_edge.py):
/marrakech-admin and its run-time permission check, the settings it saves and shows, allowed
channels, server defaults, the AI lobby commands, rejoin (which a turn's button pressed by a
player whose seat the AI took over points to), stats and history answers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot import crashpoints
from bot.edge import replies
from bot.edge.errors import describe
from bot.edge.inflight import HANDLERS
from bot.edge.permissions import MissingPermissionsError
from bot.presentation import community
from bot.presentation.images import Pictures
from bot.presentation.links import message_link
from bot.presentation.messages import text
from bot.presentation.ratings import RatingChart
from bot.storage.guilds import GuildStore
from tests.bot.edge.test_analysis_button import DEFERRED_CHANNEL_MESSAGE
from tests.bot.edge.test_edge import (
    Edge,
    confirm,
    id_of,
    mover_of,
    on_the_gateway,
    only_private_answer,
    private,
    showing_the_move,
    started,
)
from tests.bot.edge.test_edge import edge as edge_fixture  # noqa: F401  (a fixture, used below)
from tests.e2e.fakecord import FakeChannel, FakeUser, permissions
from tests.e2e.fakecord.interaction_payloads import command_data
from tests.e2e.fakecord.interactions import (
    APPLICATION_COMMAND,
    InteractionHandle,
    InteractionInputError,
)
from tests.e2e.fakecord.model import FORUM_CHANNEL
from tests.polling import until


@pytest.fixture
def edge(edge_fixture: Edge) -> Edge:  # noqa: F811  (the imported fixture, by name)
    """The in-process client on the fake Discord API, as in test_edge.py."""
    return edge_fixture


def channel_option(edge: Edge, user: FakeUser, sub: str, option: FakeChannel) -> InteractionHandle:
    """/marrakech-admin <sub> channel:<option>, run in the edge's channel (Edge.slash keeps the
    name `channel` for where a command runs)."""
    guild = edge.channel.guild
    assert guild is not None
    registered = edge.fake.world.commands.find(guild.id, "marrakech-admin")
    assert registered is not None
    data = command_data(
        edge.fake.world, edge.channel, registered, [sub], {"channel": option}, validate=True
    )
    return edge.dispatch(
        edge.fake.interaction_from_payload(APPLICATION_COMMAND, user, edge.channel, data)
    )


def admin_and_another_channel(edge: Edge) -> tuple[FakeUser, FakeChannel]:
    """A new member of the edge's server with Manage Server ("admin"), and a second text
    channel of that server ("elsewhere")."""
    guild = edge.channel.guild
    assert guild is not None
    admin = edge.fake.add_user("admin")
    edge.fake.add_member(guild, admin, permissions=permissions.MANAGE_GUILD)
    other = edge.fake.add_text_channel(guild, "elsewhere")
    return admin, other


async def test_admin_commands_need_manage_server_at_run_time_too(edge: Edge) -> None:
    command = edge.client.tree.get_command("marrakech-admin")
    assert command is not None
    payload = command.to_dict(edge.client.tree)
    assert int(payload["default_member_permissions"]) == permissions.MANAGE_GUILD
    with pytest.raises(InteractionInputError, match="hidden from moderator"):
        edge.slash(edge.moderator, "marrakech-admin", "show")
    # A server may show the command to everyone: the bot checks the permission itself.
    shown_to_all = edge.command(
        edge.moderator, ("marrakech-admin", "show"), edge.channel, {}, validate=False
    )
    refused = await private(shown_to_all)
    assert "Manage Server" in refused
    guild = edge.channel.guild
    assert guild is not None
    admin = edge.fake.add_user("admin")
    edge.fake.add_member(guild, admin, permissions=permissions.MANAGE_GUILD)
    shown = await edge.slash(admin, "marrakech-admin", "show").answer()
    assert shown.ephemeral
    assert "all channels" in shown.embed_text()


async def test_a_settings_change_refused_for_want_of_manage_server_changes_nothing(
    edge: Edge,
) -> None:
    """A moderator (Manage Channels only) and a plain member each send a turn limit and a
    variant, as a forged payload may: each is refused, and the server's settings and the next
    game are as before."""
    admin, _ = admin_and_another_channel(edge)
    for person in (edge.moderator, edge.guest):
        for sub, options in (
            ("turn-limit", {"limit": 3600}),
            ("variant", {"variant": "rotate-after"}),
        ):
            command = edge.command(
                person, ("marrakech-admin", sub), edge.channel, options, validate=False
            )
            assert "Manage Server" in await private(command)
    shown = (await edge.slash(admin, "marrakech-admin", "show").answer()).embed_text()
    assert "no turn time limit" in shown, shown
    assert "standard rules" in shown, shown
    lobby = (await edge.slash(edge.host, "marrakech", "new", seats=2).answer()).embed_text()
    assert "no turn time limit" in lobby
    assert "Assam turns after the rug" not in lobby


@pytest.mark.parametrize(
    ("path", "options", "named"),
    [
        (("marrakech-admin", "turn-limit"), {"limit": 60}, "limit"),
        (("marrakech-admin", "away-days"), {"days": 99}, "days"),
        (("marrakech-mod", "tournament-away-days"), {"days": 99}, "days"),
    ],
    ids=["turn-limit", "away-days", "tournament-away-days"],
)
async def test_a_forged_setting_out_of_range_names_the_option_the_command_has(
    edge: Edge, path: tuple[str, str], options: dict[str, int], named: str
) -> None:
    """Discord offers a setting's choices and range only, but a forged payload may send any
    number: the refusal names the option as the command shows it (`limit`, `days`), not
    another command's, and the settings stay as they were."""
    admin, _ = admin_and_another_channel(edge)
    manager = edge.moderator if path[0] == "marrakech-mod" else admin
    if path[0] == "marrakech-mod":
        await edge.slash(
            edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
        ).answer()
    before = (await edge.slash(admin, "marrakech-admin", "show").answer()).embed_text()
    refused = await private(edge.command(manager, path, edge.channel, options, validate=False))
    assert refused == f"That value is not allowed for `{named}`.", refused
    after = (await edge.slash(admin, "marrakech-admin", "show").answer()).embed_text()
    assert after == before


async def test_defaults_and_allowed_channels_shape_new_games(edge: Edge) -> None:
    admin, other = admin_and_another_channel(edge)

    cleared = await edge.slash(admin, "marrakech-admin", "turn-limit", limit=0).answer()
    assert "Saved" in cleared.content, "0 is the choice of no limit"
    assert "no turn time limit" in cleared.embed_text()
    saved = await edge.slash(admin, "marrakech-admin", "turn-limit", limit=3600).answer()
    assert "Saved" in saved.content
    assert "1 h per turn" in saved.embed_text()
    await edge.slash(admin, "marrakech-admin", "variant", variant="rotate-after").answer()
    allowed = await channel_option(edge, admin, "allow-channel", other).answer()
    assert f"<#{other.id}>" in allowed.embed_text()

    refused = await private(edge.slash(edge.host, "marrakech", "new"))
    assert "not allowed in this channel" in refused
    assert f"<#{other.id}>" in refused
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=other).answer()
    text = lobby.embed_text()
    assert "1 h per turn" in text
    assert "Assam turns after the rug" in text
    game = await edge.store.open_in_channel(other.id)
    assert game is not None
    assert (game.turn_limit_seconds, game.variant) == (3600, "rotate-after")

    await channel_option(edge, admin, "remove-channel", other).answer()
    explicit = await edge.slash(edge.guest, "marrakech", "new", seats=2, turn_limit=0).answer()
    assert "no turn time limit" in explicit.embed_text(), "0 overrides the server default"


@pytest.mark.parametrize(
    ("denied", "named"),
    [
        (permissions.VIEW_CHANNEL, "View Channel"),
        (permissions.SEND_MESSAGES, "Send Messages"),
        (permissions.EMBED_LINKS, "Embed Links"),
        (permissions.ATTACH_FILES, "Attach Files"),
    ],
    ids=["view_channel", "send_messages", "embed_links", "attach_files"],
)
async def test_a_channel_the_bot_cannot_play_in_is_not_allowed_and_what_it_lacks_is_named(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, denied: int, named: str
) -> None:
    """An admin allowing a channel where the bot may not post a game (its board, its buttons)
    would send every player there to a refusal: the admin is told privately which permission
    to grant there, as `/marrakech new` names it, and the list is left as it was. Granted,
    the channel is allowed."""
    admin, other = admin_and_another_channel(edge)
    edge.fake.deny_bot(other, denied)
    async with on_the_gateway(edge, monkeypatch):
        refused = await only_private_answer(channel_option(edge, admin, "allow-channel", other))
        assert refused == MISSING_THERE["en"].format(channel=f"<#{other.id}>", permissions=named)
        shown = (await edge.slash(admin, "marrakech-admin", "show").answer()).embed_text()
        assert f"<#{other.id}>" not in shown, "nothing saved"
        edge.fake.allow_bot(other)
        await until(lambda: _bot_may_post(edge, other.id), "the cache knows the permission granted")
        allowed = await channel_option(edge, admin, "allow-channel", other).answer()
    assert allowed.ephemeral
    assert f"<#{other.id}>" in allowed.embed_text()


async def test_the_channel_an_admin_acts_in_is_checked_by_what_discord_says_there(
    edge: Edge,
) -> None:
    """Allowing the channel the command is typed in needs no cache of the server: Discord
    gives the bot's own permissions there with the command."""
    admin, _ = admin_and_another_channel(edge)
    edge.fake.deny_bot(edge.channel, permissions.EMBED_LINKS)
    refused = await only_private_answer(channel_option(edge, admin, "allow-channel", edge.channel))
    said = MISSING_THERE["en"].format(channel=f"<#{edge.channel.id}>", permissions="Embed Links")
    assert refused == said, refused
    shown = (await edge.slash(admin, "marrakech-admin", "show").answer()).embed_text()
    assert "all channels" in shown, "nothing saved"


async def test_a_forum_is_allowed_only_where_the_bot_may_post_in_its_posts(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forum's games are played in its posts, threads: what the bot needs there is Send
    Messages in Threads. A forum that denies it is not allowed, naming it; granted, the forum
    is allowed."""
    admin, forum = admin_and_another_channel(edge)
    forum.type = FORUM_CHANNEL
    edge.fake.deny_bot(forum, permissions.SEND_MESSAGES_IN_THREADS)
    async with on_the_gateway(edge, monkeypatch):
        refused = await only_private_answer(channel_option(edge, admin, "allow-channel", forum))
        said = MISSING_THERE["en"].format(
            channel=f"<#{forum.id}>", permissions="Send Messages in Threads"
        )
        assert refused == said, refused
        edge.fake.allow_bot(forum)
        await until(lambda: _bot_may_post(edge, forum.id, thread=True), "the cache knows it")
        allowed = await channel_option(edge, admin, "allow-channel", forum).answer()
    assert f"<#{forum.id}>" in allowed.embed_text()


def _bot_may_post(edge: Edge, channel_id: int, *, thread: bool = False) -> bool:
    """Whether the client's cache gives the bot every permission a game needs in the channel
    (`thread`: in its threads, a forum's posts)."""
    channel = edge.client.get_channel(channel_id)
    if channel is None or not hasattr(channel, "permissions_for"):
        return False
    guild = getattr(channel, "guild", None)
    if guild is None or guild.me is None:
        return False
    granted = channel.permissions_for(guild.me)
    sending = granted.send_messages_in_threads if thread else granted.send_messages
    return bool(granted.attach_files and sending and granted.embed_links)


MISSING_THERE = {
    "en": "I cannot play in {channel}: I am missing the {permissions} permission there. Grant "
    "it, then allow the channel again.",
    "fr": "Je ne peux pas jouer dans {channel} : il me manque la permission {permissions} "
    "là-bas. Accordez-la, puis autorisez de nouveau ce salon.",
    "uk": "Я не можу грати в {channel}: там мені бракує дозволу «{permissions}». Надайте його, "
    "а тоді дозвольте канал знову.",  # noqa: RUF001
}


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_a_permission_missing_in_another_channel_is_named_with_it_in_every_language(
    language: str,
) -> None:
    error = MissingPermissionsError(("attach_files",), channel_id=42)
    said = MISSING_THERE[language].format(
        channel="<#42>", permissions=text("permission.attach_files", language)
    )
    assert describe(error, language) == said


async def test_the_settings_saved_and_shown_say_the_server_s_away_days(edge: Edge) -> None:
    admin, _ = admin_and_another_channel(edge)
    saved = await edge.slash(admin, "marrakech-admin", "away-days", days=3).answer()
    assert "Saved" in saved.content
    assert "up to 3 days at once" in saved.embed_text()
    shown = await edge.slash(admin, "marrakech-admin", "show").answer()
    assert "up to 3 days at once" in shown.embed_text()
    await edge.slash(admin, "marrakech-admin", "away-days", days=0).answer()
    shown = await edge.slash(admin, "marrakech-admin", "show").answer()
    assert "Away days: none" in shown.embed_text(), "0 refuses them, and says so"


async def test_the_settings_saved_and_shown_say_the_server_s_variant(edge: Edge) -> None:
    admin, _ = admin_and_another_channel(edge)
    before = await edge.slash(admin, "marrakech-admin", "show").answer()
    assert "standard rules" in before.embed_text(), "standard until a variant is saved"
    saved = await edge.slash(admin, "marrakech-admin", "variant", variant="rotate-after").answer()
    assert "Saved" in saved.content
    assert "Assam turns after the rug" in saved.embed_text(), saved.embed_text()
    shown = (await edge.slash(admin, "marrakech-admin", "show").answer()).embed_text()
    assert "Assam turns after the rug" in shown, shown
    assert "standard rules" not in shown, shown


async def test_a_thread_follows_its_parent_among_the_allowed_channels(edge: Edge) -> None:
    # `new` in a thread hands its parent to the rule: without it, a thread of an allowed
    # channel is refused as a channel of its own.
    admin, other = admin_and_another_channel(edge)
    await channel_option(edge, admin, "allow-channel", edge.channel).answer()

    thread = edge.fake.add_thread(edge.channel, "side game")
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=thread, seats=2).answer()
    assert lobby.channel_id == thread.id
    assert await edge.store.open_in_channel(thread.id) is not None, "its parent allows games"

    elsewhere = edge.fake.add_thread(other, "not here")
    refused = await private(edge.slash(edge.guest, "marrakech", "new", channel=elsewhere))
    assert "not allowed in this channel" in refused
    assert await edge.store.open_in_channel(elsewhere.id) is None


async def allow_channels(edge: Edge, count: int) -> list[FakeChannel]:
    """`count` new text channels of the edge's server, each allowed for games (stored as
    `/marrakech-admin allow-channel` stores them)."""
    guild = edge.channel.guild
    assert guild is not None
    store = GuildStore(edge.store.database)
    channels = [edge.fake.add_text_channel(guild, f"tables-{n}") for n in range(count)]
    for channel in channels:
        await store.allow_channel(guild.id, channel.id)
    return channels


async def test_new_in_a_channel_not_allowed_is_told_why_when_the_server_allows_90_channels(
    edge: Edge,
) -> None:
    """Naming 90 channels takes more than Discord's 2,000 characters, and an answer Discord
    refuses leaves the member with none: the answer names those that fit and counts the rest."""
    allowed = await allow_channels(edge, 90)
    handle = edge.slash(edge.host, "marrakech", "new")
    await handle.wait_for(lambda h: h.acknowledged or bool(h.refusals))
    assert handle.refusals == [], "Discord refused the answer: the member is told nothing"
    refused = await private(handle)
    assert "not allowed in this channel" in refused
    assert f"<#{allowed[0].id}>" in refused
    assert f"<#{allowed[-1].id}>" not in refused
    shown = refused.count("<#")
    assert refused.endswith(f", {text('admin.channels_more', 'en', count=90 - shown)}.")


async def test_the_settings_of_a_server_that_allows_170_channels_are_shown_and_changed(
    edge: Edge,
) -> None:
    """Naming 170 channels takes more than an embed's 4,096 characters, and every settings
    command, taking a channel off the list too, would answer with an error: the settings name
    those that fit and count the rest."""
    admin, _ = admin_and_another_channel(edge)
    allowed = await allow_channels(edge, 170)
    shown = await edge.slash(admin, "marrakech-admin", "show").answer()
    removed = await channel_option(edge, admin, "remove-channel", allowed[0]).answer()
    assert await HANDLERS.drained(30.0), "a command's handler is still running"
    for answer in (shown, removed):
        assert f"<#{allowed[1].id}>" in answer.embed_text()
        assert "more channels" in answer.embed_text()
        assert "Away days" in answer.embed_text(), "the settings after the channels too"
    assert "Saved" in removed.content
    assert f"<#{allowed[0].id}>" not in removed.embed_text()


async def test_ai_seats_from_commands_and_a_game_against_them(edge: Edge) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    assert "Only the host" in await private(edge.slash(edge.guest, "marrakech", "add-ai"))
    added = await private(edge.slash(edge.host, "marrakech", "add-ai", level="easy"))
    assert "An AI (easy) joined" in added
    await edge.fake.wait_until(
        lambda: "AI (easy)" in edge.fake.world.messages[lobby.id].embed_text(),
        what="the lobby lists the AI",
    )
    assert "Only the host" in await private(edge.slash(edge.guest, "marrakech", "remove-ai"))
    assert "full" in await private(edge.slash(edge.guest, "marrakech", "join")), "the AI stays"
    assert "An AI left" in await private(edge.slash(edge.host, "marrakech", "remove-ai"))
    assert "no AI seat" in await private(edge.slash(edge.host, "marrakech", "remove-ai"))
    await edge.click(edge.host, lobby, "Add AI: easy").answer()
    await edge.click(edge.host, edge.fake.world.messages[lobby.id], "Start").answer()

    # Whoever moves first, the human is pinged once the AI (if first) has played.
    turn = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.pinged_user_ids == frozenset({edge.host.id})
    )
    assert turn.enabled_buttons()
    rejoin = await private(edge.slash(edge.host, "marrakech", "rejoin"))
    assert "AI is not playing your seat" in rejoin
    stats = await edge.slash(edge.guest, "marrakech", "stats", member=edge.host).answer()
    assert "has not finished a game" in stats.embed_text()
    history = await edge.slash(edge.guest, "marrakech", "history", server=True).answer()
    assert "**#1**" in history.embed_text()
    assert "running" in history.embed_text()
    assert "is still being played" in await private(
        edge.slash(edge.guest, "marrakech", "replay", game=1)
    )


async def handed_to_the_ai(edge: Edge, user: FakeUser) -> None:
    """Hand the user's seat of game 1 to the AI, as three timeouts in a row do."""
    async with edge.store.database.transaction() as conn:
        await conn.execute(
            "UPDATE seats SET autoplay = 1, timeouts = 3 WHERE game_id = 1 AND user_id = $1",
            user.id,
        )
        await conn.execute("UPDATE games SET rev = rev + 1 WHERE id = 1")
    edge.service.loader.forget(1)


async def test_a_turn_button_of_a_seat_the_ai_took_over_points_its_player_to_rejoin(
    edge: Edge,
) -> None:
    """The mover ran out of time three turns in a row, so the AI plays their seat: their click
    is refused, pointing to `/marrakech rejoin`, and the AI keeps the seat."""
    await edge.bot.scheduler.stop()  # the AI does not play the seat meanwhile
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await handed_to_the_ai(edge, mover)
    seq = (await edge.service.play.look(1)).seq
    assert await HANDLERS.drained(30.0), "a handler is still running"
    shown = edge.fake.world.messages[turn.id].to_payload()

    refused = await only_private_answer(edge.click(mover, turn, "North (straight on)"))
    assert refused == (
        "The AI plays your seat since you ran out of time. Take it back with `/marrakech rejoin`."
    )
    view = await edge.service.play.look(1)
    assert view.seq == seq
    assert [p.autoplay for p in view.players if p.user_id == mover.id] == [True]
    assert edge.fake.world.messages[turn.id].to_payload() == shown, "the turn is as it was"


async def test_a_move_whose_message_failed_is_shown_by_the_scheduler(edge: Edge) -> None:
    # The test drives the scheduler itself: its background loop, woken by the move below,
    # could otherwise find the same work first (it did on a loaded machine).
    await edge.bot.scheduler.stop()
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    (mover,) = turn.pinged_user_ids
    view = await edge.service.play.look(1)
    await edge.service.play.act(1, mover, view.seq, "S")  # committed; its message never went out
    async with edge.store.database.transaction() as conn:  # ...and that was a while ago
        await conn.execute("UPDATE games SET updated_at = '2020-01-01T00:00:00.000+00:00'")
    assert await edge.bot.scheduler.run_due() == 1
    current = edge.fake.latest_with_components(edge.channel)
    assert current.id == turn.id, "a move within the turn: the turn's message is redrawn"
    assert current.pinged_user_ids == frozenset({mover})
    assert all(id_of(b).startswith("mk:1:2:") for b in current.enabled_buttons())
    assert await edge.service.play.behind_on_display() == []


async def test_history_lists_this_channel_s_games_or_with_server_the_whole_server_s(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`server` lists the games of every channel of the server the member can see: a member
    denied View Channel in one of them gets none of its games (their numbers, when they were
    played, who won)."""
    guild = edge.channel.guild
    assert guild is not None
    other = edge.fake.add_text_channel(guild, "elsewhere")
    for channel in (edge.channel, other):  # game #1 here, game #2 in the other channel
        lobby = await edge.slash(edge.host, "marrakech", "new", channel=channel, seats=2).answer()
        await edge.click(edge.host, lobby, "Add AI: easy").answer()
        await edge.click(edge.host, edge.fake.world.messages[lobby.id], "Start").answer()
    edge.fake.set_overwrite(other, edge.outsider, deny=permissions.VIEW_CHANNEL)
    async with on_the_gateway(edge, monkeypatch):
        here = (await edge.slash(edge.guest, "marrakech", "history").answer()).embed_text()
        assert "**#1**" in here
        assert "**#2**" not in here, "this channel's games only"
        # With `server`, no channel narrows the list: game #2 of the other channel is in it.
        everywhere = await edge.slash(edge.guest, "marrakech", "history", server=True).answer()
        assert "**#1**" in everywhere.embed_text()
        assert "**#2**" in everywhere.embed_text(), "the whole server's games"
        unseen = await edge.slash(edge.outsider, "marrakech", "history", server=True).answer()
    assert "**#1**" in unseen.embed_text()
    assert "**#2**" not in unseen.embed_text(), "a game of a channel they cannot see"
    assert str(other.id) not in unseen.embed_text()


async def test_the_stats_are_deferred_before_their_chart_is_drawn(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member with a rated game gets their rating chart, drawn in the workers (as long as
    they are busy): the command is deferred (the bot thinking, in the channel) before the chart
    is asked for. The watchdog that defers a late answer is kept out of it, so the deferral
    seen is the command's own."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    await started(edge)
    await (await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")).answer()
    await edge.fake.wait_until(
        lambda: any("1,586" in m.embed_text() for m in edge.fake.messages(edge.channel)),
        what="the result shows the winner's new rating",
    )
    asking: list[InteractionHandle] = []
    answered: list[list[int | None]] = []
    draw = Pictures.rating_chart

    async def noted(self: Pictures, chart: RatingChart) -> bytes:
        (handle,) = asking
        answered.append([e.response_type for e in handle.events if e.kind == "callback"])
        return await draw(self, chart)

    monkeypatch.setattr(Pictures, "rating_chart", noted)
    asking.append(edge.slash(edge.guest, "marrakech", "stats", member=edge.host))
    stats = await asking[0].answer(timeout=30.0)
    assert answered == [[DEFERRED_CHANNEL_MESSAGE]], "deferred before the chart is drawn"
    assert not stats.ephemeral
    assert [a.filename for a in stats.attachments] == [community.CHART_NAME]


@pytest.mark.parametrize("held", ["_post", "_respond_line"], ids=["post", "answer"])
async def test_a_seat_taken_back_while_the_turn_before_it_ends_is_shown_on_the_new_turn(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, held: str
) -> None:
    """A player takes their seat back from the AI while the click that ends the turn before
    theirs is being shown (its answer, or the post of their turn, held until the rejoin is
    stored, or shown): the ended turn keeps its one line, never drawn back into a live turn,
    and the one message with live buttons is their turn, naming them, not the AI playing for
    them, with one direct message at their turn."""
    await edge.bot.scheduler.stop()  # the AI does not play the seat meanwhile
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    other = edge.guest if mover is edge.host else edge.host
    await handed_to_the_ai(edge, other)
    await edge.slash(other, "marrakech", "notify", state="on").answer()
    await edge.click(mover, turn, "North (straight on)").answer()
    moved = await showing_the_move(edge, turn)
    assert await HANDLERS.drained(30.0), "the facing's handler is still running"

    display = edge.bot.display
    showing = getattr(display, held)
    reached, committed, release = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def held_once(*args: Any, **fields: Any) -> Any:
        if not reached.is_set():  # the click's own, the first one asked for
            reached.set()
            await release.wait()
        return await showing(*args, **fields)

    def reach(point: str) -> None:
        if point == "rejoin.committed":
            committed.set()

    monkeypatch.setattr(display, held, held_once)
    monkeypatch.setattr(crashpoints, "reach", reach)
    placing = edge.click(mover, moved, moved.enabled_buttons()[0].label or "")
    await asyncio.wait_for(reached.wait(), 30)
    rejoin = edge.slash(other, "marrakech", "rejoin")
    await asyncio.wait_for(committed.wait(), 30)
    if held == "_respond_line":  # the rejoin is shown first
        edits = edge.fake.world.messages[turn.id].edit_count
        assert "is back in game #1" in (await rejoin.answer()).content
        await edge.fake.wait_until(
            lambda: edge.fake.world.messages[turn.id].edit_count > edits,
            what="the rejoin shown",
        )
    release.set()
    assert "is back in game #1" in (await rejoin.answer()).content
    await placing.answer()
    assert await HANDLERS.drained(30.0), "a handler is still running"

    ended = edge.fake.world.messages[turn.id]
    assert ended.content.startswith("**Game #1 · turn 1** · "), edge.fake.transcript(edge.channel)
    assert not ended.enabled_buttons(), edge.fake.transcript(edge.channel)
    live = [
        m
        for m in edge.fake.messages(edge.channel)
        if any(id_of(b).startswith("mk:1:") for b in m.enabled_buttons())
    ]
    assert len(live) == 1, edge.fake.transcript(edge.channel)
    assert live[0].content.startswith(f"<@{other.id}>, it is your turn"), live[0].content
    assert "AI for" not in live[0].embed_text(), live[0].embed_text()
    seq = (await edge.service.play.look(1)).seq
    assert all(id_of(b).startswith(f"mk:1:{seq}:") for b in live[0].enabled_buttons())
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    link = message_link(live[0].guild_id, live[0].channel_id, live[0].id)
    told = [m.content for m in edge.fake.messages(edge.fake.dm_channel(other))]
    assert told == [f"It is your turn in Marrakech game #1: {link}"], told


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "is a bot: bots play no games here, so they have no stats."),
        ("fr", "est un bot : les bots ne jouent pas de parties ici, ils n'ont donc pas de"),
        ("uk", "є ботом: боти не грають тут, тож статистики в них немає."),
    ],
)
async def test_the_stats_of_a_bot_are_refused_privately_and_post_nothing(
    edge: Edge, locale: str, said: str
) -> None:
    """`/marrakech stats member:` naming a bot (this one included) posts no empty card in the
    channel: the member alone is told, in their language, why there is nothing to show."""
    posted = [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral]
    edge.guest.locale = locale
    handle = edge.slash(edge.guest, "marrakech", "stats", member=edge.fake.world.bot_user)
    answer = await only_private_answer(handle)
    assert said in answer, answer
    assert f"<@{edge.fake.world.bot_user.id}>" in answer
    assert [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral] == posted
