"""Which language the bot speaks, through real discord.py interactions built from payloads:
private answers, and the direct messages asked for, in the acting user's locale; public
messages in the server's locale (kept for the whole game or tournament); English for any
locale the bot does not speak."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.edge.inflight import HANDLERS
from bot.presentation import images, messages
from bot.services.reliability import ENOUGH_TURNS, Reliability
from bot.workers import jobs as worker_jobs
from render import Labels
from tests.bot.edge.test_edge import Edge, confirm, private, running_edge, started
from tests.bot.edge.test_forged_payloads import forged_click
from tests.bot.edge.test_seat_requests import ask_for_the_guest_s_seat
from tests.bot.edge.test_watch_buttons import play_turn
from tests.e2e.fakecord import FakeMessage, FakeUser, permissions
from tests.e2e.fakecord.interaction_payloads import command_data
from tests.e2e.fakecord.interactions import APPLICATION_COMMAND


def french_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, test: pytest.Item | None = None
) -> AbstractAsyncContextManager[Edge]:
    """The edge (running_edge) on a French-speaking server; its members speak Ukrainian (host),
    British English (guest), German (outsider, not a language of the bot) and French
    (moderator)."""
    return running_edge(
        tmp_path,
        monkeypatch,
        server_locale="fr",
        channel_name="jeux",
        user_locales=("uk", "en-GB", "de", "fr"),
        test=test,
    )


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    """The edge on the French-speaking server of french_server."""
    async with french_server(tmp_path, monkeypatch) as running:
        yield running


async def french_game(edge: Edge) -> FakeMessage:
    """Host (uk) opens a 2-seat game in the French server, guest (en-GB) joins, host starts."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await edge.click(edge.guest, lobby, "Rejoindre").answer()
    await edge.click(edge.host, lobby, "Commencer").answer()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


async def french_game_of_three(edge: Edge) -> FakeMessage:
    """Host (uk) opens a 3-seat game in the French server, guest (en-GB) and outsider (de)
    join, host starts: its first turn."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    await edge.click(edge.guest, lobby, "Rejoindre").answer()
    await edge.click(edge.outsider, edge.fake.world.messages[lobby.id], "Rejoindre").answer()
    await edge.click(edge.host, edge.fake.world.messages[lobby.id], "Commencer").answer()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


async def test_the_lobby_speaks_the_server_s_language_whoever_opens_it(edge: Edge) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    assert not lobby.ephemeral
    assert "Marrakech : partie n° 1" in lobby.embed_text()
    assert "`/marrakech rejoindre`" in lobby.embed_text()
    assert [button.label for button in lobby.buttons()] == [
        "Rejoindre",
        "Quitter",
        "Commencer",
        "Annuler",
        "IA facile",
        "IA moyenne",
        "IA difficile",
        "Retirer une IA",
    ]
    joined = await edge.click(edge.guest, lobby, "Rejoindre").answer()
    assert "Joueurs (2/2)" in joined.embed_text(), "a click's edit stays French"
    game = await edge.store.get(1)
    assert game is not None
    assert game.locale == "fr"


async def test_the_lobby_says_how_fast_each_person_plays_in_the_server_s_language(
    edge: Edge,
) -> None:
    """The note beside a name is part of the public lobby: French like the rest of it, though
    its host speaks Ukrainian."""

    async def look(guild_id: int, people: Sequence[int]) -> Sequence[Reliability]:
        return [Reliability(user, ENOUGH_TURNS, 0, 600.0, 0, 0, 0) for user in people]

    edge.bot.display.lobby_reliability(look)
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    host = f"<@{edge.host.id}>"
    (line,) = [line for line in lobby.embed_text().splitlines() if f"{host} ·" in line]
    assert line.endswith(f"{host} · joue d'habitude en moins de 10 min"), line


async def test_the_watch_button_of_a_french_game_is_french(edge: Edge) -> None:
    """Every member of the server sees the Watch button on the game's first message while it
    runs: it speaks the game's language, as the message does."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await edge.click(edge.guest, lobby, "Rejoindre").answer()
    await edge.click(edge.host, lobby, "Commencer").answer()

    def watch_offered() -> list[str] | None:
        labels = [b.label or "" for b in edge.fake.world.messages[lobby.id].enabled_buttons()]
        return labels if {"Regarder", "Watch"} & set(labels) else None

    labels = await edge.fake.wait_until(watch_offered, what="the Watch button, in any language")
    assert "Regarder" in labels, labels


async def test_a_tournament_speaks_the_server_s_language_whoever_opens_it(edge: Edge) -> None:
    """A moderator speaking Ukrainian opens it: its sign-up is French, and the tournament keeps
    French for all it posts later, the games of its tables included."""
    edge.moderator.locale = "uk"
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Coupe", format="swiss"
    ).answer()
    assert not signup.ephemeral
    assert "🏆 Coupe : inscriptions" in signup.embed_text()
    assert "Rejoindre" in [button.label for button in signup.buttons()]
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).locale == "fr"


async def test_ending_a_tournament_is_asked_and_answered_in_the_moderator_s_language(
    edge: Edge,
) -> None:
    """The question before ending the French server's tournament, its buttons and the answer
    once it is ended are the moderator's alone: Ukrainian, their Discord's language. The
    channel is told in the tournament's language, French."""
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Coupe", format="swiss"
    ).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, edge.fake.world.messages[signup.id], "Rejoindre").answer()
    await edge.click(edge.moderator, edge.fake.world.messages[signup.id], "Commencer").answer()
    edge.moderator.locale = "uk"
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    assert question.ephemeral
    assert question.content == messages.text("tournament.abort.question", "uk", name="Coupe")
    assert [b.label for b in question.buttons()] == ["Зупинити турнір", "Грати далі"]
    done = await edge.click(edge.moderator, question, "Зупинити турнір").answer()
    assert done.content == messages.text("tournament.abort.done", "uk", name="Coupe")
    told = messages.text(
        "tournament.announce.aborted", "fr", name="Coupe", user=f"<@{edge.moderator.id}>"
    )
    await edge.fake.wait_for_message(edge.channel, lambda m: m.content == told)


async def test_a_cap_on_a_tournament_s_away_days_is_answered_in_the_moderator_s_language(
    edge: Edge,
) -> None:
    """The cap is told to the moderator alone: Ukrainian, their Discord's language, not the
    French of the server and its tournament."""
    await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Coupe", format="swiss"
    ).answer()
    edge.moderator.locale = "uk"
    capped = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament-away-days", days=3)
    )
    assert capped == messages.text("away.tournament_capped", "uk", days=3)


async def test_keeping_a_tournament_going_is_answered_in_the_moderator_s_language(
    edge: Edge,
) -> None:
    """Keep playing on the question before ending the French server's tournament is answered
    in the moderator's Ukrainian, as the question was."""
    await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Coupe", format="swiss"
    ).answer()
    edge.moderator.locale = "uk"
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    kept = await edge.click(edge.moderator, question, "Грати далі").answer()
    assert kept.content == messages.text("tournament.keep.done", "uk")


async def test_a_command_the_bot_cannot_read_is_answered_in_the_user_s_language(
    edge: Edge,
) -> None:
    """A command unknown to the bot (a stale one, or forged) is answered privately in the
    Ukrainian of the member who used it, not the server's French."""
    guild = edge.channel.guild
    assert guild is not None
    registered = edge.fake.world.commands.find(guild.id, "marrakech")
    assert registered is not None
    data = command_data(edge.fake.world, edge.channel, registered, ["rules"], {}, validate=True)
    data["options"][0]["name"] = "no-such-command"
    handle = edge.dispatch(
        edge.fake.interaction_from_payload(APPLICATION_COMMAND, edge.host, edge.channel, data)
    )
    assert await private(handle) == messages.text("error.bad_command", "uk")


async def test_private_answers_speak_each_user_s_language(edge: Edge) -> None:
    assert (
        "Марракеш коротко"
        in (await edge.slash(edge.host, "marrakech", "rules").answer()).embed_text()
    )
    assert (
        "Marrakech en bref"
        in (await edge.slash(edge.moderator, "marrakech", "rules").answer()).embed_text()
    )
    assert (
        "Marrakech in short"
        in (await edge.slash(edge.outsider, "marrakech", "rules").answer()).embed_text()
    ), "German is not spoken: English"
    assert "немає гри" in await private(edge.slash(edge.host, "marrakech", "board"))
    assert "no Marrakech game" in await private(edge.slash(edge.guest, "marrakech", "board"))
    await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    joined = await private(edge.slash(edge.guest, "marrakech", "join"))
    assert joined == "You joined game #1.", "a French game, an English answer to its English user"
    assert await private(edge.slash(edge.moderator, "marrakech", "join")) == (
        "Vous avez rejoint la partie n° 1."
    )


async def test_seating_an_ai_answers_with_its_level_in_the_host_s_language(edge: Edge) -> None:
    """The host (Ukrainian) seats an AI in a French server's lobby: the private answer names
    its level in Ukrainian, a one-word label an English-fragment check cannot see."""
    await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    added = await private(edge.slash(edge.host, "marrakech", "add-ai", level="hard"))
    assert added == "ШІ (складний) приєднався до гри №1."


def not_your_turn(edge: Edge, user: FakeUser, mover: FakeUser) -> str:
    """What `user` is told on clicking during `mover`'s turn: the host in Ukrainian, the guest
    in English."""
    if user is edge.host:
        return f"Зараз не ваш хід: ходить <@{mover.id}>."
    assert user is edge.guest
    return f"It is not your turn: <@{mover.id}> is to play."


async def test_a_french_game_pings_in_french_and_refuses_each_user_in_theirs(edge: Edge) -> None:
    turn = await french_game(edge)
    (mover_id,) = turn.pinged_user_ids
    assert turn.content == f"<@{mover_id}>, c'est votre tour (partie n° 1)."
    assert [b.label for b in turn.buttons()] == ["Ouest", "Nord (tout droit)", "Est"]
    assert "Marrakech : partie n° 1 · tour 1" in turn.embed_text()
    mover, other = (edge.host, edge.guest) if mover_id == edge.host.id else (edge.guest, edge.host)
    refused = await private(edge.click(other, turn, "Nord (tout droit)"))
    assert refused == not_your_turn(edge, other, mover)
    assert "Vous ne jouez pas" in await private(
        edge.click(edge.moderator, turn, "Nord (tout droit)")
    )
    assert "not playing" in await private(edge.click(edge.outsider, turn, "Nord (tout droit)"))
    assert "не приймає гравців" in await private(edge.slash(edge.host, "marrakech", "join"))

    shown = await edge.click(mover, turn, "Nord (tout droit)").answer()
    assert "Le dé indique" in shown.embed_text()
    first = shown.buttons()[0].label or ""
    assert first.startswith("1 · ")
    await edge.click(mover, shown, first).answer()
    nxt = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > turn.id and bool(m.pinged_user_ids)
    )
    assert "tour 2" in nxt.embed_text()
    assert "c'est votre tour" in (nxt.content or "")
    assert nxt.pinged_user_ids == {other.id}
    refused = await private(edge.click(mover, nxt, nxt.enabled_buttons()[0].label or ""))
    assert refused == not_your_turn(edge, mover, other), "the first mover, refused in turn 2"


async def test_an_absence_is_told_to_its_user_in_theirs_and_to_the_game_in_its_own(
    edge: Edge,
) -> None:
    await french_game(edge)
    started = await private(edge.slash(edge.guest, "marrakech", "away", days=2))
    assert started.startswith("You are away from this server's games until ")
    notice = await edge.fake.wait_for_message(edge.channel, lambda m: "💤" in m.content)
    assert notice.content.startswith(f"💤 <@{edge.guest.id}> est absent jusqu'au ")
    assert notice.content.endswith("(partie n° 1).")


async def test_coming_back_is_answered_in_the_user_s_language_and_told_to_the_game_in_its_own(
    edge: Edge,
) -> None:
    """`/marrakech back` answers privately in the user's language, from someone not away too,
    and the game's channel is told in the game's."""
    await french_game(edge)
    assert await private(edge.slash(edge.host, "marrakech", "back")) == (
        "Ви не відсутні на цьому сервері."
    )
    await private(edge.slash(edge.guest, "marrakech", "away", days=2))
    welcome = await private(edge.slash(edge.guest, "marrakech", "back"))
    assert welcome == "Welcome back: your turn clocks run again.", welcome
    told = await edge.fake.wait_for_message(edge.channel, lambda m: m.content.startswith("▶️"))
    assert told.content.endswith("(partie n° 1)."), told.content


async def test_quiet_hours_keep_what_they_hold_in_the_language_they_were_set_in(
    edge: Edge,
) -> None:
    """The Ukrainian host sets quiet hours around now with `/marrakech quiet-hours` on the
    French server: a turn of a French game held in them is kept to be told in Ukrainian."""
    now = edge.service.loader.now().astimezone(UTC)
    hours: dict[str, Any] = {
        "from": (now - timedelta(hours=1)).strftime("%H:%M"),
        "to": (now + timedelta(hours=2)).strftime("%H:%M"),
        "timezone": "UTC",
    }
    assert await private(edge.slash(edge.host, "marrakech", "quiet-hours", **hours))
    guild = edge.channel.guild
    assert guild is not None
    away = edge.service.away
    held = await away.hold_if_quiet(
        edge.host.id,
        guild_id=guild.id,
        channel_id=edge.channel.id,
        game_id=1,
        seq=1,
        kind="turn",
        locale="fr",  # the game's
    )
    assert held, "in their quiet hours"
    later = now + timedelta(days=1)
    claimed = await away.store.claim_held(later, "test", later + timedelta(minutes=1))
    assert [(n.kind, n.locale) for n in claimed] == [("turn", "uk")]


async def test_a_time_of_day_that_does_not_exist_is_refused_in_the_member_s_language(
    edge: Edge,
) -> None:
    """`to:25:00` is answered in Ukrainian to the host and in French to the moderator, naming
    the option as each one's client shows it, and sets no quiet hours."""
    hours: dict[str, Any] = {"from": "23:00", "to": "25:00", "timezone": "Europe/Paris"}
    ukrainian = await private(edge.slash(edge.host, "marrakech", "quiet-hours", **hours))
    assert ukrainian == (
        "«25:00» не є часом доби для `до`: пишіть ГГ:ХХ, від 00:00 до 23:59, наприклад 23:00."  # noqa: RUF001
        " Нічого не змінено."
    )
    french = await private(edge.slash(edge.moderator, "marrakech", "quiet-hours", **hours))
    assert french == (
        "« 25:00 » n'est pas une heure de la journée pour `à` : écrivez HH:MM, de 00:00 à"
        " 23:59, par exemple 23:00. Rien n'a changé."
    )
    for person in (edge.host, edge.moderator):
        assert await edge.service.away.quiet_hours(person.id) is None


async def test_a_watcher_is_told_each_turn_in_their_own_language_not_the_game_s(
    edge: Edge,
) -> None:
    """The outsider, in Ukrainian, watches the French game and asks on the private view to be
    told each turn: the direct message is Ukrainian."""
    edge.outsider.locale = "uk"
    turn = await french_game(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    assert watching.ephemeral
    await edge.click(edge.outsider, watching, "Повідомляти після ходу").answer()
    await play_turn(edge, turn)
    (told,) = edge.fake.messages(edge.fake.dm_channel(edge.outsider))
    assert told.content.startswith("Гра №1, за якою ви спостерігаєте: "), told.content


async def test_the_host_s_seat_request_is_posted_in_the_game_s_language_not_the_host_s(
    edge: Edge,
) -> None:
    # Every player answers the request in the game's channel: in the Ukrainian host's words,
    # the French players of a French game could not read it.
    await french_game_of_three(edge)
    request = await ask_for_the_guest_s_seat(edge)
    assert not request.ephemeral
    assert request.content.startswith(f"<@{edge.host.id}> demande de confier la place"), (
        request.content
    )
    assert [b.label for b in request.enabled_buttons()] == ["D'accord", "Refuser"]


@pytest.mark.parametrize(
    ("button", "said"),
    [
        ("D'accord", "{incoming} reprend la place de {outgoing} ("),
        ("Refuser", "{user} a refusé : {outgoing} garde sa place dans la partie n° 1."),
    ],
    ids=["agreed", "refused"],
)
async def test_an_answer_to_a_seat_request_is_told_in_the_game_s_language_not_the_presser_s(
    edge: Edge, button: str, said: str
) -> None:
    """The outsider, whose Discord speaks German (English for the bot), answers the French
    game's request: its message, edited in front of every player, stays French, whether it
    tells the hand-over or the refusal."""
    await french_game_of_three(edge)
    request = await ask_for_the_guest_s_seat(edge)
    await edge.click(edge.outsider, request, button).answer()
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    shown = edge.fake.world.messages[request.id]
    expected = said.format(
        incoming=f"<@{edge.moderator.id}>",
        outgoing=f"<@{edge.guest.id}>",
        user=f"<@{edge.outsider.id}>",
    )
    assert shown.content.startswith(expected), shown.content
    assert shown.buttons() == [], [b.label for b in shown.buttons()]


async def test_a_seat_handed_over_on_its_turn_calls_its_new_player_in_the_game_s_language(
    edge: Edge,
) -> None:
    """The seat to move is handed over by agreement, the last Agree pressed by a player whose
    Discord speaks English: the call of the seat's new player is public, French like the rest
    of the French game."""
    turn = await french_game_of_three(edge)
    while edge.host.id in turn.pinged_user_ids:  # the host may not hand their own seat
        turn = await play_turn(edge, turn)
    (mover_id,) = turn.pinged_user_ids
    out, other = (
        (edge.guest, edge.outsider) if mover_id == edge.guest.id else (edge.outsider, edge.guest)
    )
    request = await edge.slash(
        edge.host,
        "marrakech",
        "substitute",
        channel=edge.channel,
        out=out,
        **{"in": edge.moderator},
    ).answer()
    await edge.click(other, request, "D'accord").answer()
    call = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > request.id and m.pinged_user_ids == {edge.moderator.id}
    )
    assert call.content == f"<@{edge.moderator.id}>, c'est votre tour (partie n° 1)."


async def test_a_game_keeps_its_language_when_the_server_changes_its_own(edge: Edge) -> None:
    turn = await french_game(edge)
    guild = edge.channel.guild
    assert guild is not None
    guild.preferred_locale = "uk"
    (mover_id,) = turn.pinged_user_ids
    mover = edge.host if mover_id == edge.host.id else edge.guest
    shown = await edge.click(mover, turn, "Nord (tout droit)").answer()
    assert "Le dé indique" in shown.embed_text(), "edits of a French game stay French"
    resigning = await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")
    assert (await resigning.answer()).content == "You resigned from game #1.", "guest's language"
    final = await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )
    assert f"<@{edge.guest.id}> abandonne" in edge.fake.world.messages[turn.id].content
    assert "est terminée" in final.embed_text()


@pytest.mark.parametrize(
    ("damage", "notice"),
    [
        ("DELETE FROM actions WHERE game_id = 1 AND seq = 2", "notice.game_damaged"),
        ("UPDATE games SET position = '{\"broken' WHERE id = 1", "notice.snapshot_repaired"),
    ],
    ids=["its log cut", "its snapshot garbled"],
)
async def test_the_moderators_are_told_of_a_damaged_game_in_the_game_s_language(
    edge: Edge, damage: str, notice: str
) -> None:
    """The notice is public, like the game's other messages: French, though the player whose
    command found the damage speaks Ukrainian (and is answered in it)."""
    turn = await french_game(edge)
    following = await play_turn(edge, turn)
    async with edge.store.database.transaction() as conn:
        await conn.execute(damage)
    edge.service.loader.forget(1)  # as a restart finds it: read from the database

    answer = await edge.slash(edge.host, "marrakech", "board").answer()
    told = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > following.id and m.content.startswith("⚠️")
    )
    assert told.content == messages.text(notice, "fr", game_id=1)
    assert told.content.startswith("⚠️ Modérateurs : "), told.content
    if notice == "notice.game_damaged":
        assert answer.ephemeral
        assert answer.content == messages.text("error.game_damaged", "uk", game_id=1)


async def test_a_server_in_an_unspoken_language_gets_english(edge: Edge) -> None:
    guild = edge.fake.add_guild("Markt", preferred_locale="de")
    channel = edge.fake.add_text_channel(guild, "spiele")
    for user in (edge.host, edge.guest):
        edge.fake.add_member(guild, user)
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, channel=channel).answer()
    assert "Marrakech: game #1 (lobby)" in lobby.embed_text()
    assert next(button.label for button in lobby.buttons()) == "Join"
    assert "Ви приєдналися" not in await private(
        edge.slash(edge.guest, "marrakech", "join", channel=channel)
    )
    assert "Ви вже граєте" in await private(
        edge.slash(edge.host, "marrakech", "join", channel=channel)
    )


async def test_a_move_the_rules_refuse_is_refused_wholly_in_the_mover_s_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click carrying a move the rules do not allow at the game's own seq (only a forged
    payload carries one) is refused in the mover's language, with no sentence of the engine's
    own English in it: here both players speak Ukrainian, whoever moves first."""
    async with running_edge(tmp_path, monkeypatch, user_locales=("uk", "uk", "de", "fr")) as edge:
        turn = await started(edge)
        (mover_id,) = turn.pinged_user_ids
        mover = edge.host if mover_id == edge.host.id else edge.guest
        straight = turn.button(label="North (straight on)").custom_id
        assert straight is not None
        game, seq, _ = straight.rsplit(":", 2)
        placement = f"{game}:{seq}:a1a2"  # a rug laid before Assam was turned
        answer = await private(forged_click(edge, mover, edge.channel, turn, placement))
        assert re.findall(r"[A-Za-z]{2,}", answer) == []
        assert answer == messages.text("error.illegal", "uk")
        assert (await edge.service.play.look(1)).seq == int(seq), "the move was made"


async def test_missing_permissions_are_named_as_the_user_s_client_names_them(edge: Edge) -> None:
    edge.fake.deny_bot(edge.channel, permissions.ATTACH_FILES)
    assert "«Прикріплювати файли»" in await private(edge.slash(edge.host, "marrakech", "new"))
    assert "Attach Files" in await private(edge.slash(edge.guest, "marrakech", "new"))
    assert "Joindre des fichiers" in await private(edge.slash(edge.moderator, "marrakech", "new"))


async def test_the_synced_commands_carry_their_french_and_ukrainian_names(edge: Edge) -> None:
    guild = edge.channel.guild
    assert guild is not None
    registered = edge.fake.world.commands.find(guild.id, "marrakech")
    assert registered is not None
    assert registered["name_localizations"] == {"fr": "marrakech", "uk": "марракеш"}
    subcommands = {option["name"]: option for option in registered["options"]}
    assert subcommands["join"]["name_localizations"] == {"fr": "rejoindre", "uk": "приєднатися"}
    new_options = {option["name"]: option for option in subcommands["new"]["options"]}
    assert new_options["turn_limit"]["name_localizations"]["uk"] == "час_на_хід"


async def test_public_results_speak_the_server_s_language_and_refusals_the_user_s(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[Labels] = []
    named: list[tuple[str, ...] | None] = []

    def render_replay(
        record: object, *, labels: Labels, names: tuple[str, ...] | None = None
    ) -> bytes:
        drawn.append(labels)
        named.append(names)
        return b"GIF89a"

    monkeypatch.setattr(worker_jobs, "render_replay", render_replay)
    await french_game(edge)
    await (await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")).answer()
    await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )
    replay = await edge.slash(edge.host, "marrakech", "replay", game=1).answer()
    assert not replay.ephemeral
    assert (
        replay.content
        == "La partie n° 1 du début à la fin : l'animation, l'analyse et l'enregistrement de la"
        " partie."
    )
    assert drawn == [images.labels("fr")]
    assert drawn[0].game_over == "Fin de la partie"
    assert [sorted(names or ()) for names in named] == [["guest", "host"]], "the seats' names"
    history = await edge.slash(edge.host, "marrakech", "history").answer()
    assert "Dernières parties de ce salon" in history.embed_text()
    stats = await edge.slash(edge.host, "marrakech", "stats").answer()
    assert "Résultats à Marrakech" in stats.embed_text()
    assert not stats.ephemeral
    leaderboard = await edge.slash(edge.host, "marrakech", "leaderboard").answer()
    assert "Classement de Marrakech" in leaderboard.embed_text()
    assert not leaderboard.ephemeral
    show = ("marrakech-admin", "show")  # shown to all by the server: the bot refuses it
    refused = await private(edge.command(edge.moderator, show, edge.channel, {}, validate=False))
    assert refused.startswith("Seuls les membres ayant la permission Gérer le serveur")
    refused = await private(edge.command(edge.host, show, edge.channel, {}, validate=False))
    assert "«Керувати сервером»" in refused
    guild = edge.channel.guild
    assert guild is not None
    owner = edge.fake.world.users[guild.owner_id]
    owner.locale = "uk"
    settings = await edge.slash(owner, "marrakech-admin", "show").answer()
    assert settings.ephemeral
    assert "Налаштування Марракеш на цьому сервері" in settings.embed_text()


@pytest.mark.invalid_requests(403)  # Discord refuses a message to closed direct messages
async def test_closed_direct_messages_are_told_in_the_game_s_channel_in_the_game_s_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The line in the channel is one of the game's public messages: French in the French
    game, though the player who is told asked for their direct messages in Ukrainian or
    English."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        for user in (edge.host, edge.guest):
            user.accepts_dms = False
            await private(edge.slash(user, "marrakech", "notify", state="on"))
        turn = await french_game(edge)
        (mover_id,) = turn.pinged_user_ids
        told = await edge.fake.wait_for_message(
            edge.channel,
            lambda m: m.id > turn.id and m.content.startswith(f"<@{mover_id}>") and not m.embeds,
        )
    assert told.content == messages.text("turn_dm.closed", "fr", user=f"<@{mover_id}>")
