"""Commands and clicks Discord would not have offered (a forged payload: a moderator's command
from a member without Manage Channels, or the End the tournament click of a moderator's private
question, a game id of another server, a confirmation naming the game of another channel, a
game's button sent from another channel, a finished game's Rematch too, a button of a seq the
game has not reached, a die face in place of the roll, a tournament's from another server, a
command from a direct message) are refused at run time with a short private answer, and change
nothing.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py), with
the payload built without the client's checks, as a forged one would be."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.edge.inflight import HANDLERS
from bot.services.errors import NoGameHereError
from bot.services.tournament_views import TournamentStatus
from bot.storage import GameStatus
from tests.bot.edge.test_edge import (
    Edge,
    edge,
    lobby_with_guest,
    on_the_gateway,
    private,
    started,
)
from tests.bot.edge.test_rematch import resign, result
from tests.e2e.fakecord import FakeChannel, FakeMessage, FakeUser, permissions
from tests.e2e.fakecord.interaction_payloads import command_data, component_data
from tests.e2e.fakecord.interactions import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    InteractionHandle,
)

__all__ = ["edge"]

MODERATORS_ONLY = "Only members with the Manage Channels permission can do that."
NOT_FOUND = "There is no game #1 here."
GUILD_ONLY = "Marrakech games run in server channels, not in direct messages."


def forged_slash(
    edge: Edge, user: FakeUser, channel: FakeChannel, *path: str, **options: Any
) -> InteractionHandle:
    """`/path options` from `user` in `channel`, whatever the command's default permissions."""
    return edge.command(user, path, channel, options, validate=False)


async def refusal(handle: InteractionHandle) -> str:
    answer = await handle.answer()
    assert answer.ephemeral, answer.content
    return answer.content


async def seated(edge: Edge) -> set[int | None]:
    return {player.user_id for player in (await edge.service.play.look(1)).players}


def forged_click(
    edge: Edge, user: FakeUser, channel: FakeChannel, message: FakeMessage, custom_id: str
) -> InteractionHandle:
    """A click of `custom_id` from `user` in `channel`, on `message` as a forged payload may
    show it: with that id as its one button (a copy: the message the fake holds stays as it
    is), so that the click reaches the bot's button and not its answer to an unknown one."""
    button = {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}
    shown = dataclasses.replace(message, components=[{"type": 1, "components": [button]}])
    data = component_data(shown, custom_id, None, validate=True)
    return edge.dispatch(
        edge.fake.interaction_from_payload(MESSAGE_COMPONENT, user, channel, data, message=shown)
    )


async def test_a_member_s_forged_moderator_substitute_is_refused(edge: Edge) -> None:
    await started(edge)
    before = await seated(edge)
    forged = forged_slash(
        edge,
        edge.host,
        edge.channel,
        "marrakech-mod",
        "substitute",
        out=edge.guest,
        **{"in": edge.outsider},
    )
    assert await refusal(forged) == MODERATORS_ONLY
    assert await seated(edge) == before


async def test_a_moderator_cannot_substitute_in_another_server_s_game(edge: Edge) -> None:
    await started(edge)
    before = await seated(edge)
    elsewhere = edge.fake.add_guild("Bazaar", preferred_locale="en-US")
    their_channel = edge.fake.add_text_channel(elsewhere, "games")
    their_moderator = edge.fake.add_user("their-moderator", locale="en-US")
    edge.fake.add_member(elsewhere, their_moderator, permissions=permissions.MANAGE_CHANNELS)
    edge.fake.add_member(elsewhere, edge.outsider)
    forged = forged_slash(
        edge,
        their_moderator,
        their_channel,
        "marrakech-mod",
        "substitute",
        game=1,
        out=edge.guest,
        **{"in": edge.outsider},
    )
    assert await refusal(forged) == NOT_FOUND
    assert await seated(edge) == before


async def test_a_game_s_button_sent_from_another_channel_is_refused(edge: Edge) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    other = edge.fake.add_text_channel(edge.channel.guild, "elsewhere")  # type: ignore[arg-type]
    message = edge.fake.world.messages[lobby.id]
    join = message.button(label="Join").custom_id
    assert join is not None
    data = component_data(message, join, None, validate=True)
    forged = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.guest, other, data, message=message
        )
    )
    assert await refusal(forged) == NOT_FOUND
    assert await seated(edge) == {edge.host.id}


async def test_a_finished_game_s_rematch_sent_from_another_channel_is_refused(edge: Edge) -> None:
    """The channel is checked before any of a game's buttons acts, Rematch included: were it
    checked after, a forged Rematch would open a lobby and post its invitation, with its pings,
    in whatever channel the payload names."""
    await started(edge)
    await resign(edge, edge.guest)
    final = await result(edge)
    rematch = final.button(label="Rematch").custom_id
    assert rematch is not None
    other = edge.fake.add_text_channel(edge.channel.guild, "elsewhere")  # type: ignore[arg-type]
    forged = forged_click(edge, edge.host, other, final, rematch)
    assert await refusal(forged) == NOT_FOUND
    for channel in (edge.channel, other):
        with pytest.raises(NoGameHereError):
            await edge.service.open_game_id(channel.id)
    assert not edge.fake.messages(other), "nothing is posted where the payload says"


async def test_a_forged_confirmation_from_another_channel_or_server_acts_on_nothing(
    edge: Edge,
) -> None:
    """A confirmation acts on the game open in the channel it is clicked in. A moderator who
    asks to abort their own lobby, elsewhere in this server or in another, and clicks the
    question with game 1's id in its place is refused, and game 1 goes on."""
    await started(edge)
    seq = (await edge.service.play.look(1)).seq
    guild = edge.channel.guild
    assert guild is not None
    elsewhere = edge.fake.add_guild("Bazaar", preferred_locale="en-US")
    their_moderator = edge.fake.add_user("their-moderator", locale="en-US")
    edge.fake.add_member(elsewhere, their_moderator, permissions=permissions.MANAGE_CHANNELS)
    askers = [
        (edge.moderator, edge.fake.add_text_channel(guild, "more-games")),
        (their_moderator, edge.fake.add_text_channel(elsewhere, "games")),
    ]
    for game_id, (moderator, channel) in enumerate(askers, start=2):
        await edge.slash(moderator, "marrakech", "new", channel=channel).answer()
        question = await edge.slash(moderator, "marrakech-mod", "abort", channel=channel).answer()
        assert question.button(label="Abort").custom_id == f"mk:confirm:{game_id}:modabort"
        forged = forged_click(edge, moderator, channel, question, "mk:confirm:1:modabort")
        assert await refusal(forged) == "This game is not running."
        assert await HANDLERS.drained(30.0), "a handler is still running"
        game = await edge.store.get(1)
        assert game is not None
        assert game.status is GameStatus.RUNNING, f"game 1 was ended from {channel.name}"
        assert (await edge.service.play.look(1)).seq == seq
        lobby = await edge.store.get(game_id)
        assert lobby is not None
        assert lobby.status is GameStatus.LOBBY


async def test_the_mover_s_button_of_a_seq_the_game_has_not_reached_is_refused_as_stale(
    edge: Edge,
) -> None:
    """A button id carrying the mover's own legal move at a seq ahead of the game's (a forged
    one: Discord only sends ids that are on the message) is refused as a board that moved on,
    and the move is not made: only the game's own seq is taken."""
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    mover = edge.host if mover_id == edge.host.id else edge.guest
    straight = turn.button(label="North (straight on)").custom_id
    assert straight is not None
    game, seq, action = straight.rsplit(":", 2)
    assert (await edge.service.play.look(1)).seq == int(seq)
    logged = await edge.store.actions(1)
    for ahead in (1, 5):
        forged_id = f"{game}:{int(seq) + ahead}:{action}"
        answer = await forged_click(edge, mover, edge.channel, turn, forged_id).answer()
        assert answer.ephemeral, f"{forged_id}: the move was made and shown"
        assert answer.content.startswith("This board has moved on"), answer.content
    assert (await edge.service.play.look(1)).seq == int(seq), "the forged seq made the move"
    assert await edge.store.actions(1) == logged


async def test_a_die_face_forged_onto_the_roll_of_a_rotate_after_turn_rolls_nothing(
    edge: Edge,
) -> None:
    """A turn of rotate-after begins with Roll the die: a button id naming a face instead
    (`mk:1:0:D4`) is refused in a short private answer, and nothing is rolled or stored; the
    die stays the seed's."""
    new = edge.slash(edge.host, "marrakech", "new", seats=2, variant="rotate-after")
    lobby = await new.answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    (mover_id,) = turn.pinged_user_ids
    mover = edge.host if mover_id == edge.host.id else edge.guest
    roll = turn.button(label="Roll the die").custom_id
    assert roll is not None
    game_and_seq = roll.rsplit(":", 1)[0]
    for face in ("D1", "D4"):
        forged = forged_click(edge, mover, edge.channel, turn, f"{game_and_seq}:{face}")
        assert await refusal(forged) == "That move is not allowed."
    assert await HANDLERS.drained(30.0), "a handler is still running"
    assert await edge.store.actions(1) == [], "a die face named by the click was applied"


async def test_a_member_s_forged_tournament_away_days_is_refused(edge: Edge) -> None:
    await lobby_with_guest(edge)
    forged = forged_slash(
        edge, edge.host, edge.channel, "marrakech-mod", "tournament-away-days", days=3
    )
    assert await refusal(forged) == MODERATORS_ONLY


async def test_a_member_s_forged_tournament_away_days_where_a_tournament_is_open_caps_nothing(
    edge: Edge,
) -> None:
    """Refused before the tournament is looked up, and the moderator's cap stands."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    await edge.click(edge.guest, signup, "Join").answer()
    await edge.slash(edge.moderator, "marrakech-mod", "tournament-away-days", days=3).answer()
    guild = edge.channel.guild
    assert guild is not None
    cap = edge.service.away.store.tournament_cap
    assert await cap(guild.id, edge.guest.id) == 3
    forged = forged_slash(
        edge, edge.host, edge.channel, "marrakech-mod", "tournament-away-days", days=0
    )
    assert await refusal(forged) == MODERATORS_ONLY
    assert await cap(guild.id, edge.guest.id) == 3, "the moderator's cap stands"


async def test_a_tournament_s_button_sent_from_another_server_is_refused(edge: Edge) -> None:
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    join = signup.button(label="Join").custom_id
    assert join is not None
    elsewhere = edge.fake.add_guild("Bazaar", preferred_locale="en-US")
    their_channel = edge.fake.add_text_channel(elsewhere, "games")
    edge.fake.add_member(elsewhere, edge.outsider)
    data = component_data(signup, join, None, validate=True)
    forged = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.outsider, their_channel, data, message=signup
        )
    )
    assert await refusal(forged) == "There is no tournament in this channel."
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).entrants == ()


async def test_a_member_s_forged_tournament_is_refused(edge: Edge) -> None:
    forged = forged_slash(
        edge, edge.host, edge.channel, "marrakech-mod", "tournament", name="Cup", format="swiss"
    )
    assert await refusal(forged) == MODERATORS_ONLY
    assert not edge.fake.messages(edge.channel), "no sign-up is posted"


async def test_a_member_s_forged_click_ending_a_tournament_is_refused_and_ends_nothing(
    edge: Edge,
) -> None:
    """The End the tournament button is on the moderator's private question only; its id,
    clicked by a member, is refused, and the tournament and its games go on."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    await edge.click(edge.moderator, edge.fake.world.messages[signup.id], "Start").answer()
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    end = question.button(label="End the tournament").custom_id
    assert end is not None
    forged = forged_click(edge, edge.guest, edge.channel, question, end)
    assert await refusal(forged) == MODERATORS_ONLY
    assert await HANDLERS.drained(30.0), "a handler is still running"
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    view = await tournaments._service.look(1)
    assert view.status is TournamentStatus.RUNNING
    assert not any(table.closed for table in view.tables), "no game of it is aborted"


async def test_a_forged_ai_level_is_refused_and_seats_nobody(edge: Edge) -> None:
    await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    forged = forged_slash(edge, edge.host, edge.channel, "marrakech", "add-ai", level="expert")
    assert await refusal(forged) == "That value is not allowed for `level`."
    assert await seated(edge) == {edge.host.id}


async def test_a_command_sent_from_a_direct_message_is_refused_and_opens_nothing(
    edge: Edge,
) -> None:
    """The commands are offered in servers only; one sent from a direct message with the bot
    all the same is told where games run, and no game is opened."""
    guild = edge.channel.guild
    assert guild is not None
    registered = edge.fake.world.commands.find(guild.id, "marrakech")
    assert registered is not None
    data = command_data(edge.fake.world, edge.channel, registered, ["new"], {}, validate=False)
    dm = edge.fake.dm_channel(edge.host)
    forged = edge.dispatch(
        edge.fake.interaction_from_payload(APPLICATION_COMMAND, edge.host, dm, data)
    )
    assert await refusal(forged) == GUILD_ONLY
    assert not edge.fake.messages(dm), "no lobby is posted"
    with pytest.raises(NoGameHereError):
        await edge.service.open_game_id(dm.id)


def rows_of_every_table(database: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row the bot's SQLite file holds, table by table."""
    with sqlite3.connect(database) as raw:
        names = [
            row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return {name: sorted(raw.execute(f'SELECT * FROM "{name}"'), key=repr) for name in names}


def options_from_a_direct_message(edge: Edge) -> dict[tuple[str, str], dict[str, Any]]:
    """The options each command is sent with: those it needs, and enough of the others that a
    command carried out would change something."""
    users = {"out": edge.guest, "in": edge.outsider}
    tournament = {"name": "Cup", "format": "swiss"}
    quiet = {"from": "23:00", "to": "08:00", "timezone": "Europe/Kyiv"}
    return {
        ("marrakech", "new"): {"seats": 2, "turn_limit": 3600},
        ("marrakech", "add-ai"): {"level": "hard"},
        ("marrakech", "notify"): {"state": "on"},
        ("marrakech", "watch"): {"game": 1},
        ("marrakech", "away"): {"days": 3},
        ("marrakech", "quiet-hours"): quiet,
        ("marrakech", "replay"): {"game": 1},
        ("marrakech", "substitute"): users,
        ("marrakech-mod", "substitute"): {**users, "game": 1},
        ("marrakech-mod", "tournament"): tournament,
        ("marrakech-mod", "tournament-away-days"): {"days": 3},
        ("marrakech-mod", "tournament-withdraw"): {"member": edge.guest},
        ("marrakech-admin", "turn-limit"): {"limit": 3600},
        ("marrakech-admin", "variant"): {"variant": "rotate-after"},
        ("marrakech-admin", "away-days"): {"days": 3},
        ("marrakech-admin", "quiet-clocks"): {"state": "run"},
        ("marrakech-admin", "allow-channel"): {"channel": edge.channel},
        ("marrakech-admin", "remove-channel"): {"channel": edge.channel},
    }


async def test_every_command_sent_from_a_direct_message_is_refused_and_changes_nothing(
    edge: Edge, tmp_path: Path
) -> None:
    """Each command of the three groups, forged from a direct message with the bot by a
    member with every permission, with its options: each is told that games run in server
    channels, and nothing is posted nor written, the person's own settings included (turn
    messages, quiet hours), since Discord never offers a command there."""
    guild = edge.channel.guild
    assert guild is not None
    admin = edge.fake.add_user("admin")
    edge.fake.add_member(guild, admin, permissions=permissions.ADMINISTRATOR)
    await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    dm = edge.fake.dm_channel(admin)
    shown = [m.id for m in edge.fake.world.messages.values() if not m.ephemeral]
    stored = rows_of_every_table(tmp_path / "edge.sqlite3")
    sent = options_from_a_direct_message(edge)
    answers = {}
    for group in ("marrakech", "marrakech-mod", "marrakech-admin"):
        registered = edge.fake.world.commands.find(guild.id, group)
        assert registered is not None
        for command in registered["options"]:
            options = sent.get((group, command["name"]), {})
            data = command_data(
                edge.fake.world,
                edge.channel,
                registered,
                [command["name"]],
                options,
                validate=False,
            )
            forged = edge.dispatch(
                edge.fake.interaction_from_payload(APPLICATION_COMMAND, admin, dm, data)
            )
            answers[f"/{group} {command['name']}"] = await refusal(forged)
    assert await HANDLERS.drained(30.0), "a handler is still running"
    answered_otherwise = [f"{name}: {said}" for name, said in answers.items() if said != GUILD_ONLY]
    assert not answered_otherwise, "\n".join(answered_otherwise)
    assert len(answers) >= 30, f"every command of the three groups, not only {sorted(answers)}"
    public = [m.id for m in edge.fake.world.messages.values() if not m.ephemeral]
    assert public == shown, "nothing is posted, here or anywhere"
    assert rows_of_every_table(tmp_path / "edge.sqlite3") == stored


def moderator_of_another_channel(edge: Edge) -> tuple[FakeUser, FakeChannel]:
    """A member with Manage Channels in a channel of their own only (a channel overwrite), and
    that channel."""
    guild = edge.channel.guild
    assert guild is not None
    theirs = edge.fake.add_text_channel(guild, "their-own")
    member = edge.fake.add_user("x")
    edge.fake.add_member(guild, member)
    edge.fake.set_overwrite(theirs, member, allow=permissions.MANAGE_CHANNELS)
    return member, theirs


async def test_a_tournament_s_button_sent_from_another_channel_of_the_server_is_refused(
    edge: Edge,
) -> None:
    """A tournament's buttons live on its message, in its channel (and its games' threads): a
    click sent from elsewhere is forged, and the permissions Discord gives with it are those
    of the other channel. Someone who moderates only their own channel cannot start (nor
    cancel, nor end) a tournament of this one from there."""
    member, theirs = moderator_of_another_channel(edge)
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    here = edge.fake.world.messages[signup.id]
    assert await refusal(edge.click(member, here, "Start")) == MODERATORS_ONLY
    for label in ("Start", "Cancel"):
        custom_id = here.button(label=label).custom_id
        assert custom_id is not None
        forged = forged_click(edge, member, theirs, here, custom_id)
        assert await refusal(forged) == "There is no tournament in this channel."
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).status is TournamentStatus.SIGNUP


async def test_a_moderator_of_another_channel_hands_over_no_seat_of_a_game_here(
    edge: Edge,
) -> None:
    """`/marrakech-mod substitute game:` from another channel needs Manage Channels in the
    game's channel, not in the one it is typed in: someone who moderates only their own
    channel is refused there as here, and no seat changes hands."""
    member, theirs = moderator_of_another_channel(edge)
    await started(edge)
    before = await seated(edge)
    options: dict[str, Any] = {"out": edge.guest, "in": edge.outsider}
    here = forged_slash(edge, member, edge.channel, "marrakech-mod", "substitute", **options)
    assert await refusal(here) == MODERATORS_ONLY
    there = edge.slash(member, "marrakech-mod", "substitute", channel=theirs, game=1, **options)
    assert await refusal(there) == MODERATORS_ONLY
    assert await seated(edge) == before


async def test_a_moderator_of_the_game_s_channel_alone_hands_its_seat_over_from_another(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/marrakech-mod substitute game:` needs Manage Channels where the game is, not where it
    is typed: a member who holds it in the game's channel only (a channel overwrite), typing it
    in a channel where they do not (a server may show them the command there), hands the seat
    over, the client's cache of the server knowing the game's channel."""
    guild = edge.channel.guild
    assert guild is not None
    member = edge.fake.add_user("x")
    edge.fake.add_member(guild, member)
    edge.fake.set_overwrite(edge.channel, member, allow=permissions.MANAGE_CHANNELS)
    lounge = edge.fake.add_text_channel(guild, "lounge")
    await started(edge)
    options: dict[str, Any] = {"out": edge.guest, "in": edge.outsider, "game": 1}
    async with on_the_gateway(edge, monkeypatch):
        answer = await forged_slash(
            edge, member, lounge, "marrakech-mod", "substitute", **options
        ).answer()
        assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert answer.ephemeral, answer.content
    assert answer.content != MODERATORS_ONLY
    assert await seated(edge) == {edge.host.id, edge.outsider.id}


async def test_a_server_manager_hands_a_seat_over_from_another_channel_before_the_cache_knows_it(
    edge: Edge,
) -> None:
    """In the moments before the client's cache knows the game's channel (the in-process edge
    has no cache), `/marrakech-mod substitute game:` from another channel is taken from a
    member with Manage Server: the seat changes hands."""
    guild = edge.channel.guild
    assert guild is not None
    manager = edge.fake.add_user("manager")
    edge.fake.add_member(guild, manager, permissions=permissions.MANAGE_GUILD)
    lounge = edge.fake.add_text_channel(guild, "lounge")
    await started(edge)
    assert edge.client.get_guild(guild.id) is None, "the cache knows the server already"
    options: dict[str, Any] = {"out": edge.guest, "in": edge.outsider, "game": 1}
    handle = forged_slash(edge, manager, lounge, "marrakech-mod", "substitute", **options)
    answer = await handle.answer()
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert answer.ephemeral, answer.content
    assert answer.content != MODERATORS_ONLY
    assert await seated(edge) == {edge.host.id, edge.outsider.id}


async def refused_changing_nothing(
    edge: Edge, database: Path, user: FakeUser, *path: str, **options: Any
) -> str:
    """The private answer to `/path options`, forged, once its handler returned; no message
    was posted and no row of the database changed."""
    assert await HANDLERS.drained(30.0), "a handler is still running"
    shown = [m.id for m in edge.fake.world.messages.values() if not m.ephemeral]
    stored = rows_of_every_table(database)
    answer = await refusal(forged_slash(edge, user, edge.channel, *path, **options))
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert [m.id for m in edge.fake.world.messages.values() if not m.ephemeral] == shown
    assert rows_of_every_table(database) == stored
    return answer


async def test_a_forged_notify_state_is_refused_and_leaves_the_choice_as_it_was(
    edge: Edge, tmp_path: Path
) -> None:
    """`/marrakech notify` offers on, next and off; any other state is refused and the
    member's turn messages stay on, not turned off."""
    await private(edge.slash(edge.host, "marrakech", "notify", state="on"))
    for state in ("sometimes", "", "ON"):
        answer = await refused_changing_nothing(
            edge, tmp_path / "edge.sqlite3", edge.host, "marrakech", "notify", state=state
        )
        assert answer == "That value is not allowed for `state`.", state


async def test_a_forged_quiet_clocks_state_is_refused_and_leaves_the_setting_as_it_was(
    edge: Edge, tmp_path: Path
) -> None:
    """`/marrakech-admin quiet-clocks` offers pause and run; any other state is refused and
    the clocks keep running in quiet hours, not paused."""
    guild = edge.channel.guild
    assert guild is not None
    manager = edge.fake.add_user("manager")
    edge.fake.add_member(guild, manager, permissions=permissions.MANAGE_GUILD)
    await private(edge.slash(manager, "marrakech-admin", "quiet-clocks", state="run"))
    for state in ("stop", "", "RUN"):
        answer = await refused_changing_nothing(
            edge, tmp_path / "edge.sqlite3", manager, "marrakech-admin", "quiet-clocks", state=state
        )
        assert answer == "That value is not allowed for `state`.", state


async def test_forged_away_days_out_of_range_are_refused_and_change_nothing(
    edge: Edge, tmp_path: Path
) -> None:
    """`/marrakech away` takes 1 to 14 days; a number Discord never lets through (none, fewer,
    more than a date can hold) is refused as a value not allowed, not met with an error
    code, and no time away starts."""
    await started(edge)
    for days in (0, -1, 10**9):
        answer = await refused_changing_nothing(
            edge, tmp_path / "edge.sqlite3", edge.guest, "marrakech", "away", days=days
        )
        assert answer == "That value is not allowed for `days`.", days


async def test_a_forged_time_zone_longer_than_the_option_takes_is_refused_in_a_short_answer(
    edge: Edge, tmp_path: Path
) -> None:
    """`/marrakech quiet-hours timezone:` takes 64 characters; 2,000 of them, which Discord
    never lets through, are told not to be a time zone in an answer Discord takes (not in an
    error code for an answer too long), and no quiet hours are set."""
    options = {"from": "23:00", "to": "08:00", "timezone": "Europe/" + "x" * 1993}
    answer = await refused_changing_nothing(
        edge, tmp_path / "edge.sqlite3", edge.host, "marrakech", "quiet-hours", **options
    )
    assert answer.startswith("“Europe/xxx"), answer
    assert answer.endswith(
        "is not a time zone: pick one from the list, such as Europe/Kyiv. Nothing changed."
    )
    assert len(answer) < 200, len(answer)
