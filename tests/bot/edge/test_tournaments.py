"""Opening a tournament with `/marrakech-mod tournament` (bot/edge/tournaments.py): tables of
2 when seats are left out; the turn limit and variant a moderator leaves out are the server's
defaults, as for `/marrakech new`; a name of blanks, a channel that is not a text channel and
one the server does not allow games in are refused at once; a player's Leave on the sign-up
takes them off it; a player signs up by their server nickname; a Start or an end pressed too
late for Discord to take its answer still sets up the first round, or tells the end.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.edge.errors import describe
from bot.edge.inflight import HANDLERS
from bot.edge.tournaments import TournamentDisplay
from bot.presentation.messages import LANGUAGES
from bot.services.errors import InvisibleNameError, NoTournamentHereError
from bot.services.tournaments import TournamentService
from bot.services.views import GameStatus, GameView
from tests.bot.edge.test_edge import Edge, edge, late_click, private
from tests.bot.edge.test_edge_async import admin_and_another_channel, channel_option
from tests.e2e.fakecord import FakeMessage
from tests.e2e.fakecord.model import VOICE_CHANNEL
from tests.e2e.fakecord.threads import is_system
from tests.polling import until

__all__ = ["edge"]


async def cup_signed_up(edge: Edge) -> FakeMessage:
    """A Swiss tournament, Cup, opened by the moderator, the host and the guest signed up: its
    sign-up message."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    return signup


async def first_round_playing(edge: Edge) -> int:
    """Once the first round's table has its game set up and running: that game's id."""
    tournaments = edge.bot.tournaments
    assert tournaments is not None

    async def table() -> int | None:
        tables = (await tournaments._service.look(1)).tables
        running = [t for t in tables if t.game_status is GameStatus.RUNNING]
        return running[0].game_id if running and len(running) == len(tables) else None

    async def playing() -> bool:
        return await table() is not None

    await until(playing, "the first round's game set up and running")
    game_id = await table()
    assert game_id is not None
    return game_id


async def test_a_tournament_opened_without_a_turn_limit_gets_the_server_s_default(
    edge: Edge,
) -> None:
    """A limit left out is the server's; 0 chosen is none, as for a game."""
    admin, other = admin_and_another_channel(edge)
    await edge.slash(admin, "marrakech-admin", "turn-limit", limit=3600).answer()
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    assert "1 h per turn" in signup.embed_text(), signup.embed_text()
    none = await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "tournament",
        channel=other,
        name="Plate",
        format="swiss",
        turn_limit=0,
    ).answer()
    assert "no turn time limit" in none.embed_text(), none.embed_text()


async def test_a_tournament_opened_without_seats_plays_at_tables_of_two(edge: Edge) -> None:
    """`seats` left out is 2 a table, as docs/tournaments.md says: the sign-up shows it, and
    the tables are drawn with it."""
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    assert "2 seats a table" in signup.embed_text(), signup.embed_text()
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).seats == 2


async def test_a_tournament_opened_without_a_variant_gets_the_server_s_default(
    edge: Edge,
) -> None:
    """A variant left out is the server's; one chosen wins over it, as for a game."""
    admin, other = admin_and_another_channel(edge)
    await edge.slash(admin, "marrakech-admin", "variant", variant="rotate-after").answer()
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    assert "variant: Assam turns after the rug" in signup.embed_text(), signup.embed_text()
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).variant == "rotate-after"
    chosen = await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "tournament",
        channel=other,
        name="Plate",
        format="swiss",
        variant="standard",
    ).answer()
    assert "standard rules" in chosen.embed_text(), chosen.embed_text()
    assert (await tournaments._service.look(2)).variant == "standard"


@pytest.mark.parametrize(
    "name", ["   ", "\u3164\u3164", "\u200b\u0301\u202e"], ids=["blanks", "fillers", "invisible"]
)
async def test_a_tournament_named_only_with_blanks_is_refused_by_name_and_posts_nothing(
    edge: Edge, name: str
) -> None:
    """Discord lets a name of spaces, Hangul fillers or zero-width characters through its 1 to
    100 characters; the moderator is told privately that the name shows nothing and what to
    type instead, and no sign-up is posted."""
    refused = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament", name=name, format="swiss")
    )
    assert refused == INVISIBLE_NAME["en"], refused
    assert edge.fake.messages(edge.channel) == [], "no sign-up was posted"
    with pytest.raises(NoTournamentHereError):
        await edge.bot.tournaments._service.open_at(edge.channel.id)  # type: ignore[union-attr]


INVISIBLE_NAME = {
    "en": "That name shows nothing (only blanks or invisible characters): put at least one "
    "letter or digit in `name`.",
    "fr": "Ce nom n'affiche rien (seulement des espaces ou des caractères invisibles) : mettez "
    "au moins une lettre ou un chiffre dans `nom`.",
    "uk": "Ця назва нічого не показує (лише пробіли чи невидимі символи): вкажіть у `назва` "  # noqa: RUF001
    "хоча б одну літеру чи цифру.",  # noqa: RUF001
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_name_that_shows_nothing_is_said_so_in_every_language(language: str) -> None:
    assert describe(InvisibleNameError("\u3164"), language) == INVISIBLE_NAME[language]


async def test_a_tournament_is_refused_in_a_channel_that_is_not_a_text_channel(
    edge: Edge,
) -> None:
    """Its tables' games need threads, which a voice channel's chat cannot hold: the moderator
    is told at once, privately, and no tournament is opened there."""
    guild = edge.channel.guild
    assert guild is not None
    voice = edge.fake.add_text_channel(guild, "lounge")
    voice.type = VOICE_CHANNEL
    refused = await private(
        edge.slash(
            edge.moderator, "marrakech-mod", "tournament", channel=voice, name="Cup", format="swiss"
        )
    )
    assert refused == (
        "Open a tournament in a text channel: each of its games gets a thread of its own there."
    ), refused
    assert edge.fake.messages(voice) == [], "no sign-up was posted"


async def test_a_player_signed_up_takes_it_back_with_the_sign_up_s_leave_button(
    edge: Edge,
) -> None:
    """Until the start, the sign-up's Leave takes its clicker off the list: the message shown
    to the channel no longer names them, and the other player alone is signed up."""
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    left = await edge.click(edge.guest, signup, "Leave").answer()
    assert not left.ephemeral, f"answered privately: {left.content}"
    assert f"<@{edge.guest.id}>" not in left.embed_text(), left.embed_text()
    assert f"<@{edge.host.id}>" in left.embed_text(), left.embed_text()
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    entrants = (await tournaments._service.look(1)).entrants
    assert [entrant.user_id for entrant in entrants] == [edge.host.id]


async def test_a_player_signs_up_by_their_server_nickname_else_their_name(edge: Edge) -> None:
    """The standings and the tables' games name each entrant as the server showed them when
    they pressed Join, as a game's lobby does."""
    guild = edge.channel.guild
    assert guild is not None
    guild.members[edge.host.id].nick = "Le Patron"
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    entrants = (await tournaments._service.look(1)).entrants
    assert [(entrant.user_id, entrant.name) for entrant in entrants] == [
        (edge.host.id, "Le Patron"),
        (edge.guest.id, "guest"),
    ]


async def test_a_tournament_is_refused_in_a_channel_the_server_does_not_allow_games_in(
    edge: Edge,
) -> None:
    """The channels `/marrakech-admin allow-channel` lists are where games may be opened, a
    tournament's tables too: elsewhere the moderator is told privately which channels allow
    them, and no tournament is opened; in a listed one it opens."""
    admin, other = admin_and_another_channel(edge)
    await channel_option(edge, admin, "allow-channel", other).answer()
    refused = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss")
    )
    assert "not allowed in this channel" in refused, refused
    assert f"<#{other.id}>" in refused, refused
    assert edge.fake.messages(edge.channel) == [], "no sign-up was posted"
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    with pytest.raises(NoTournamentHereError):
        await tournaments._service.open_at(edge.channel.id)
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", channel=other, name="Cup", format="swiss"
    ).answer()
    assert not signup.ephemeral, signup.content
    assert (await tournaments._service.open_at(other.id)).channel_id == other.id


async def test_a_tournament_started_by_a_press_answered_too_late_sets_up_its_first_round(
    edge: Edge,
) -> None:
    """A moderator's Start that reaches the bot after Discord's 3 s: Discord refuses its
    answer, but the start is stored, so its first round's table is set up all the same (its
    game running in its thread) and the sign-up becomes the standings, offering no Start."""
    signup = await cup_signed_up(edge)
    late = late_click(edge, edge.moderator, signup, "Start")
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the press's answer"
    await first_round_playing(edge)
    await until(
        lambda: "Start" not in [b.label for b in edge.fake.world.messages[signup.id].buttons()],
        "the sign-up drawn as the standings",
    )


async def test_a_tournament_ended_by_a_press_answered_too_late_is_told_all_the_same(
    edge: Edge,
) -> None:
    """A moderator's End the tournament that reaches the bot after Discord's 3 s: Discord
    refuses its answer, but the tournament and its game are ended, so the game's thread is
    told so and its turn offers no button any more."""
    signup = await cup_signed_up(edge)
    await edge.click(edge.moderator, edge.fake.world.messages[signup.id], "Start").answer()
    game_id = await first_round_playing(edge)
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    late = late_click(edge, edge.moderator, question, "End the tournament")
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the press's answer"
    game = (await edge.service.play.look(game_id)).game

    def told() -> bool:
        thread = [m for m in edge.fake.world.messages.values() if m.channel_id == game.channel_id]
        return any("aborted" in m.embed_text() for m in thread) and not any(
            m.enabled_buttons() and m.id == game.board_message_id for m in thread
        )

    await until(told, "the game's thread told of the abort, its turn offering no button")


@pytest.mark.parametrize("abort_first", [True, False], ids=["abort first", "turn first"])
async def test_a_tournament_aborted_as_its_first_turn_is_posted_leaves_no_live_turn(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, abort_first: bool
) -> None:
    """A moderator ends the tournament just as a table's game has started and its first turn
    is on its way to the thread: whichever comes first, the thread says the game was aborted
    and offers no button to play it."""
    started, release = asyncio.Event(), asyncio.Event()
    start_table = TournamentService.start_table

    async def held(self: TournamentService, *args: Any) -> GameView:
        game = await start_table(self, *args)
        started.set()
        await release.wait()  # the first turn not posted yet
        return game

    monkeypatch.setattr(TournamentService, "start_table", held)
    set_up, table_done = TournamentDisplay._set_up_table, asyncio.Event()

    async def setting_up(self: TournamentDisplay, *args: Any) -> None:
        try:
            await set_up(self, *args)
        finally:
            table_done.set()

    monkeypatch.setattr(TournamentDisplay, "_set_up_table", setting_up)
    display = edge.bot.display
    after_abort = type(display).after_abort

    async def after_the_turn(self: Any, view: GameView, *args: Any) -> None:
        release.set()  # the turn goes out as the abort is being shown
        await until(lambda: bool(thread_messages()), "the first turn posted")
        await after_abort(self, view, *args)

    if not abort_first:
        monkeypatch.setattr(type(display), "after_abort", after_the_turn)
    signup = await cup_signed_up(edge)
    await edge.click(edge.moderator, edge.fake.world.messages[signup.id], "Start").answer()
    await started.wait()
    game_id = await first_round_playing(edge)
    thread_id = (await edge.service.play.look(game_id)).game.channel_id

    def thread_messages() -> list[FakeMessage]:
        return [
            m
            for m in edge.fake.world.messages.values()
            if m.channel_id == thread_id and m.author.id == edge.fake.world.bot_user.id
        ]

    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    await edge.click(edge.moderator, question, "End the tournament").answer()
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    release.set()
    await asyncio.wait_for(table_done.wait(), 30.0)
    await until(
        lambda: any("aborted" in m.embed_text() for m in thread_messages()),
        "the thread told of the abort",
    )
    live = [m.id for m in thread_messages() if m.enabled_buttons()]
    assert live == [], "no turn of the aborted game offers a button"


async def test_a_round_s_tables_cost_one_read_of_the_channel_s_history_and_one_thread_list(
    edge: Edge,
) -> None:
    """A round of four tables: each table's thread leaves Discord's "started a thread" notice
    in the tournament's channel, and every one is deleted, found in one read of the channel's
    history for the whole round (Discord takes 5 reads of a channel's history in 5 s: one a
    table kept a round of 32 tables waiting half a minute); the server's active threads, where
    a thread a stopped run made is found again, are listed once for the round too."""
    guild = edge.channel.guild
    assert guild is not None
    players = [edge.host, edge.guest, edge.outsider]
    for n in range(5):
        player = edge.fake.add_user(f"player{n}")
        edge.fake.add_member(guild, player)
        players.append(player)
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for player in players:
        await edge.click(player, signup, "Join").answer()
    await edge.click(edge.moderator, edge.fake.world.messages[signup.id], "Start").answer()
    await first_round_playing(edge)
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    tables = (await tournaments._service.look(1)).tables
    assert len(tables) == 4
    threads = {table.thread_id for table in tables}
    notices = [  # deleted ones too
        m
        for m in edge.fake.world.messages.values()
        if m.channel_id == edge.channel.id and is_system(m)
    ]
    assert {int((m.message_reference or {})["channel_id"]) for m in notices} == threads
    await until(lambda: all(m.deleted for m in notices), "every table's notice deleted")
    history = f"/channels/{edge.channel.id}/messages"
    reads = [r for r in edge.fake.requests_to("GET", history) if r.path == history]
    assert len(reads) == 1, [r.describe() for r in reads]
    listings = edge.fake.requests_to("GET", f"/guilds/{guild.id}/threads/active")
    assert len(listings) == 1, [r.describe() for r in listings]
