"""Everything the presenter, the buttons, the error table and the image labels write comes out
in the language asked for: a French or Ukrainian game shows no English sentence anywhere."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import dataclasses
import random
import re
import string
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import discord
import pytest

import engine
from bot.edge import errors
from bot.edge.guide import guide_buttons
from bot.edge.layout import decision_buttons, lobby_buttons
from bot.edge.permissions import GAME_PERMISSIONS, MissingPermissionsError
from bot.presentation import community, guide, images, messages, narration, presenter, story
from bot.presentation.presenter import Post
from bot.services import GameInfo, GameStatus, GameView, Player, Reminder
from bot.services import errors as service_errors
from bot.services.actions import AI_LEVELS
from bot.services.views import (
    AiRecord,
    Leaderboard,
    PastGame,
    PlayerRating,
    PlayerSummary,
    RatedPlayer,
    RatedResult,
    RatingChange,
    ServerSettings,
)
from bot.workers.pool import WorkerPool
from engine import Color, Facing, Phase
from render import ENGLISH as RENDER_ENGLISH
from render import Labels
from render import panel as render_panel
from render.rating_chart import CHART_ENGLISH, ChartLabels
from render.text import draw_text
from tests.bot.presentation.lookups import asked_in_another_language, texts_looked_up
from tests.bot.presentation.test_presentation import ERROR_ARGUMENTS

TRANSLATED = ("fr", "uk")


def game_row(locale: str, status: GameStatus = GameStatus.RUNNING, **changes: object) -> GameInfo:
    row = GameInfo(
        id=12,
        guild_id=1,
        channel_id=2,
        host_id=100,
        status=status,
        seats_wanted=3,
        variant="standard",
        turn_limit_seconds=3600,
        seed_sha256="f" * 64,
        seq=7,
        board_message_id=None,
        board_message_seq=None,
        end_reason=None,
        ended_by=100,
        locale=locale,
    )
    return dataclasses.replace(row, **changes)  # type: ignore[arg-type]


def english_fragments() -> set[str]:
    """Pieces of English sentences (several words, no placeholders) from the catalogue."""
    found = set()
    for template in messages.ENGLISH.values():
        for literal, _, _, _ in string.Formatter().parse(template):
            for piece in re.split(r"[`*~\n()]", literal):
                piece = piece.strip(" .,:;·!?-")
                if len(piece) >= 8 and " " in piece:
                    found.add(piece)
    return found


ENGLISH_FRAGMENTS = english_fragments()
ENGLISH_SENTENCE = re.compile(
    r"(?<!\w)(?:"
    + "|".join(map(re.escape, sorted(ENGLISH_FRAGMENTS, key=len, reverse=True)))
    + r")(?!\w)"
)
"""Any of the fragments, as whole words ("/marrakech rejoin" is not in "... rejoindre")."""


def english_in(line: str) -> list[str]:
    return ENGLISH_SENTENCE.findall(line)


def post_texts(post: Post) -> Iterator[str]:
    embed = post.embed
    yield from (embed.title or "", embed.description or "", embed.footer.text or "")
    for field in embed.fields:
        yield field.name or ""
        yield field.value or ""
    if post.content:
        yield post.content


def button_labels(view: discord.ui.View | None) -> list[str]:
    if view is None:
        return []
    labels = []
    for child in view.children:
        button = child.item if isinstance(child, discord.ui.DynamicItem) else child
        assert isinstance(button, discord.ui.Button)
        labels.append(button.label or "")
    return labels


def played_views(locale: str, players: int, variant: str) -> Iterator[GameView]:
    """A view of every decision of a whole deterministic game, then of its end."""
    state = engine.new_game(engine.deal(players, variant, random.Random(players), first_player=0))
    seated = (
        Player(100, 0),
        Player(None, 1, ai_level="hard"),
        *(Player(100 + seat, seat, autoplay=True) for seat in range(2, players)),
    )
    turn_events: tuple[engine.events.Event, ...] = ()
    previous: tuple[engine.events.Event, ...] = ()
    while True:
        over = state.is_over
        status = GameStatus.OVER if over else GameStatus.RUNNING
        yield GameView(game_row(locale, status), seated, state, (), turn_events, previous)
        if over:
            return
        actions = engine.legal_actions(state)
        state, events = engine.apply(state, actions[len(actions) // 3])
        if any(isinstance(event, engine.TurnStarted) for event in events):
            previous, turn_events = turn_events + tuple(events), ()
        else:
            turn_events += tuple(events)


def rare_events() -> tuple[engine.events.Event, ...]:
    """Events a short game may not produce: a short payment, an elimination, a resignation."""
    return (
        engine.AssamRotated(seat=1, rotation="L", facing=Facing.W),
        engine.AssamRotated(seat=1, rotation="R", facing=Facing.E),
        engine.TaxPaid(payer=0, payee=1, owed=5, paid=2, color=Color.BLUE, region=frozenset()),
        engine.TaxPaid(payer=1, payee=0, owed=1, paid=1, color=Color.RED, region=frozenset()),
        engine.PlayerEliminated(seat=0, rugs_lost=3),
        engine.PlayerEliminated(seat=2, rugs_lost=0, resigned=True),
    )


def everything_written(locale: str) -> list[str]:
    """Every text a game in `locale` writes, public and private, in one list."""
    written: list[str] = []
    lobby = GameView(game_row(locale, GameStatus.LOBBY, seq=0), (Player(100, None),))
    written += post_texts(presenter.lobby_post(lobby))
    written += button_labels(lobby_buttons(lobby))
    cancelled = GameView(game_row(locale, GameStatus.ABORTED), (Player(100, None),))
    written += post_texts(presenter.lobby_post(cancelled, closed_by=100))
    for variant in ("standard", "rotate-after"):
        for players in (2, 3):
            views = list(played_views(locale, players, variant))
            for view in views[:-1]:
                written += post_texts(presenter.turn_post(view, ping=True))
                written += button_labels(decision_buttons(view))
            for view in views[1:]:
                written.append(story.turn_line(view, story.finished_turn(view)))
            written += post_texts(presenter.final_post(views[-1]))
            written += post_texts(presenter.final_post(rated(views[-1])))
            casual = dataclasses.replace(
                views[-1], game=dataclasses.replace(views[-1].game, casual=True)
            )
            written += post_texts(presenter.final_post(casual))
            written += post_texts(presenter.board_post(views[-2], locale))
    some_view = next(played_views(locale, 3, "standard"))
    written += narration.narrate(some_view, rare_events(), locale)
    rare = dataclasses.replace(some_view, turn_events=rare_events())
    written.append(story.turn_line(rare, 1))
    written += started_lobbies(some_view)
    written += post_texts(presenter.aborted_post(some_view))
    written += guide_texts(locale)
    written += around_games(some_view, locale)
    for kind, arguments in error_samples():
        answer = errors.describe(kind(*arguments), locale)
        assert answer is not None, kind
        written.append(answer)
    written.append(errors.report(ZeroDivisionError(), "testing", locale))
    return written


def rated(view: GameView) -> GameView:
    """The finished game with what it did to each seat's rating (every other one still
    provisional)."""
    changes = tuple(
        RatingChange(
            player.seat or 0,
            player.user_id,
            player.ai_level,
            1500,
            1480 + 20 * index,
            index % 2 == 0,
        )
        for index, player in enumerate(view.players)
    )
    return dataclasses.replace(view, ratings=changes)


def sample_rating(games: int = 12) -> PlayerRating:
    return PlayerRating(
        user_id=100,
        points=1586,
        games=games,
        provisional=games < 10,
        history=(1500, 1586, 1540, 1586)[: games + 1],
        best=RatedResult(1, 1, 3, 86) if games else None,
        worst=RatedResult(2, 3, 4, -46) if games > 1 else None,
        against_ai=(AiRecord("medium", 2, 1, 3), AiRecord("hard", 0, 0, 1)) if games else (),
        provisional_games=10,
    )


def started_lobbies(view: GameView) -> list[str]:
    """The lobby once its game started (linking to the turn being played), ended (linking to
    the result) and aborted, and the turn line of an aborted game."""
    link = "https://discord.com/channels/1/2/3"
    over = dataclasses.replace(view, game=dataclasses.replace(view.game, status=GameStatus.OVER))
    aborted = dataclasses.replace(
        view, game=dataclasses.replace(view.game, status=GameStatus.ABORTED)
    )
    written: list[str] = []
    for shown in (view, over, aborted):
        written += post_texts(presenter.lobby_post(shown, link=link))
    written += post_texts(presenter.lobby_post(view))
    written.append(story.turn_line(aborted, 1))
    return written


def guide_texts(locale: str) -> list[str]:
    """Every page of the rules guide, its buttons, and the confirmations before resigning or
    ending a game (their questions, buttons and answers)."""
    written: list[str] = []
    for page in range(guide.PAGE_COUNT):
        post = guide.guide_post(page, locale)
        written += post_texts(Post(embed=post.embed))
        written += button_labels(guide_buttons(post, locale))
    for key in ("confirm.resign", "confirm.abort"):
        for part in ("question", "done"):
            written.append(messages.text(f"{key}.{part}", locale, game_id=12))
        written.append(messages.text(f"{key}.button", locale))
    written.append(messages.text("confirm.keep.button", locale))
    written.append(messages.text("confirm.keep.done", locale, game_id=12))
    return written


def around_games(view: GameView, locale: str) -> list[str]:
    """The turn clock's public notices (a timeout is told in its turn's line), and stats,
    leaderboard, history and settings."""
    written = [presenter.reminder_text(Reminder(view, 100, datetime(2026, 1, 1, tzinfo=UTC)))]
    written.append(messages.text("story.timed_out", locale, user="<@100>"))
    written.append(messages.text("story.handed_over", locale, user="<@100>", count=3))
    written.append(messages.text("timer.ran_out", locale, game_id=1, turn=7, user="<@100>"))
    written.extend(
        messages.text("timer.handed_over", locale, game_id=1, turn=7, user="<@100>", count=n)
        for n in (3, 5)
    )
    written.extend(
        messages.text(
            f"substitute.closed.{why}",
            locale,
            host="<@100>",
            outgoing="<@101>",
            incoming="<@102>",
            game_id=1,
        )
        for why in ("ended", "expired", "failed")
    )
    best = PlayerSummary(
        100, games=4, wins=1, average_score=51.5, best_score=70, favourite_color="red"
    )
    nobody = dataclasses.replace(best, games=0, wins=0)
    for rating in (sample_rating(12), sample_rating(2), sample_rating(0)):
        written += post_texts(community.stats_post(best, rating, locale).post)
    written += post_texts(community.stats_post(nobody, None, locale).post)
    players = (RatedPlayer(100, None, 1720, 14, False), RatedPlayer(101, None, 1586, 2, True))
    references = (RatedPlayer(None, "easy", 1380, 40, False),)
    written += post_texts(community.leaderboard_post(Leaderboard(players, references, 10), locale))
    written += post_texts(community.leaderboard_post(Leaderboard((), (), 10), locale))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        PastGame(1, 2, "over", "finished", 3, now, now, (100, None), (None, "easy")),
        PastGame(2, 2, "running", None, 3, now, now, (), ()),
        PastGame(3, 2, "aborted", "cancelled", 3, now, now, (), ()),
        PastGame(4, 2, "aborted", "aborted-by-host", 3, now, now, (), ()),
    ]
    for server in (False, True):
        written += post_texts(community.history_post(rows, server=server, language=locale))
    written += post_texts(community.history_post([], server=False, language=locale))
    for settings in (ServerSettings(1), ServerSettings(1, 86400 * 3, "rotate-after", (5, 6))):
        written += post_texts(presenter.settings_post(settings, locale))
    return written


def error_samples() -> list[tuple[type[Exception], tuple[object, ...]]]:
    arguments = {**ERROR_ARGUMENTS, MissingPermissionsError: (GAME_PERMISSIONS,)}
    kinds: list[type[Exception]] = [
        *service_errors.GameError.__subclasses__(),
        MissingPermissionsError,
        errors.ModeratorsOnlyError,
        errors.ManagersOnlyError,
        errors.GuildOnlyError,
    ]
    return [(kind, arguments.get(kind, ())) for kind in kinds]


@pytest.mark.parametrize("locale", TRANSLATED)
def test_a_game_in_another_language_writes_no_english(locale: str) -> None:
    """No English sentence shows, and no text, a one-word button label included, was looked up
    in English."""
    with texts_looked_up() as looked_up:
        written = everything_written(locale)
    assert len(written) > 500
    leaked = {(fragment, line) for line in written for fragment in english_in(line)}
    assert leaked == set()
    assert len(looked_up) > 500
    assert asked_in_another_language(looked_up, locale) == set()


def test_the_check_finds_english_in_an_english_game() -> None:
    written = everything_written("en")
    assert any(english_in(line) for line in written)


def test_a_french_turn_speaks_french() -> None:
    views = list(played_views("fr", 3, "standard"))
    placing = next(view for view in views if view.state and view.state.phase is Phase.PLACE)
    post = presenter.turn_post(placing, ping=True)
    description = post.embed.description or ""
    assert "Le dé indique" in description
    assert "posez votre tapis rouge" in description
    assert "<@100> · c'est son tour" in (post.embed.fields[0].value or "")
    assert post.content == "<@100>, c'est votre tour (partie n° 12)."
    assert post.image is not None
    assert post.image.language == "fr"


def test_a_ukrainian_turn_speaks_ukrainian() -> None:
    views = list(played_views("uk", 3, "standard"))
    post = presenter.turn_post(views[0], ping=True)
    table = post.embed.fields[0].value or ""
    assert "<@100> · зараз ходить" in table
    assert "дирхам" not in table, "the numbers are in the picture's panel"
    assert button_labels(decision_buttons(views[0])) == ["Захід", "Північ (прямо)", "Схід"]
    final = presenter.final_post(views[-1])
    assert final.embed.title == "Марракеш: гра №12 завершилася"


def test_a_private_board_follows_the_asker_not_the_game() -> None:
    view = list(played_views("fr", 3, "standard"))[3]
    assert presenter.board_post(view, "uk").embed.title == "Гра №12: поле зараз"
    assert presenter.board_post(view, "en").embed.title == "Game #12: the board now"
    lobby = GameView(game_row("fr", GameStatus.LOBBY, seq=0), (Player(100, None),))
    assert presenter.lobby_post(lobby, language="uk").embed.title == (
        "Марракеш: гра №12 (набір гравців)"
    )
    assert (presenter.lobby_post(lobby).embed.title or "").startswith("Marrakech : partie")


@pytest.mark.parametrize("asker", ["en", "uk"])
def test_a_private_board_s_picture_speaks_the_asker_s_language_like_its_embed(
    asker: str,
) -> None:
    view = list(played_views("fr", 3, "standard"))[3]
    post = presenter.board_post(view, asker)
    assert post.image is not None
    assert post.image.language == asker
    assert images.picture_of(post.image).labels == images.labels(asker), "not the game's French"


@pytest.mark.parametrize("locale", ["en", *TRANSLATED])
def test_the_image_labels_cover_every_word_render_draws(locale: str) -> None:
    labels = images.labels(locale)
    image_keys = {key for key in messages.ENGLISH if key.startswith("image.")}
    assert image_keys == {f"image.{field.name}" for field in dataclasses.fields(Labels)}
    for field in dataclasses.fields(Labels):
        word = getattr(labels, field.name)
        assert word == messages.catalogue(locale)[f"image.{field.name}"]
        assert ("{n}" in word) == ("{n}" in getattr(RENDER_ENGLISH, field.name)), field.name
    if locale == "en":
        assert labels == RENDER_ENGLISH


@pytest.mark.parametrize("locale", ["en", *TRANSLATED])
def test_the_chart_labels_cover_every_word_the_rating_chart_draws(locale: str) -> None:
    labels = images.chart_labels(locale)
    chart_keys = {key for key in messages.ENGLISH if key.startswith("chart.")}
    assert chart_keys == {f"chart.{field.name}" for field in dataclasses.fields(ChartLabels)}
    for field in dataclasses.fields(ChartLabels):
        assert getattr(labels, field.name) == messages.catalogue(locale)[f"chart.{field.name}"]
    if locale == "en":
        assert labels == CHART_ENGLISH


@pytest.mark.parametrize("locale", TRANSLATED)
async def test_pictures_draw_in_the_game_s_language(
    locale: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel's words, caught on their way to drawing: a turn's picture and the result's
    draw their column names and title in the game's language, and none of the English ones."""
    drawn: list[str] = []

    def recording(image: Any, xy: tuple[float, float], words: str, **how: Any) -> None:
        drawn.append(words)
        draw_text(image, xy, words, **how)

    monkeypatch.setattr(render_panel, "draw_text", recording)
    views = list(played_views(locale, 3, "standard"))
    pictures = images.Pictures(WorkerPool(workers=0))
    words, english = images.labels(locale), images.labels("en")
    names = [field.name for field in dataclasses.fields(Labels)]
    fixed = [name for name in names if "{n}" not in getattr(english, name)]
    english_only = {getattr(english, name) for name in fixed} - {
        getattr(words, name) for name in fixed
    }
    for post, title in (
        (presenter.turn_post(views[5]), words.turn.split("{n}")[0]),
        (presenter.final_post(views[-1]), words.game_over),
    ):
        assert post.image is not None
        assert post.image.language == locale
        drawn.clear()
        png = await pictures.png(post.image)
        assert png.startswith(b"\x89PNG")
        picture = images.picture_of(post.image)
        assert picture.labels == words, "the panel's words, in the game's language"
        assert picture.labels != english
        assert {words.dirhams, words.rugs, words.visible, words.score} <= set(drawn), drawn
        assert any(text.startswith(title) for text in drawn), (title, drawn)
        assert not english_only & set(drawn), drawn
        assert not any(text.startswith(english.turn.split("{n}")[0]) for text in drawn), drawn


@pytest.mark.parametrize("locale", TRANSLATED)
def test_a_lobby_names_its_variant_as_the_catalogue_does(locale: str) -> None:
    """The lobby's options name the rules chosen: a rotate-after lobby says the variant's own
    words, never the standard rules' (a translation copied from the standard text would read
    as plain French or Ukrainian, and no check of the language would see it)."""
    named = {}
    for variant in ("standard", "rotate-after"):
        lobby = GameView(
            game_row(locale, GameStatus.LOBBY, seq=0, variant=variant), (Player(100, None),)
        )
        options = presenter.lobby_post(lobby).embed.fields[1].value or ""
        named[variant] = options.splitlines()[0].split(" · ")[1]
        assert named[variant] == messages.text(f"variant.{variant}", locale), options
    assert named["rotate-after"] != named["standard"], named


@pytest.mark.parametrize("locale", ["en", *TRANSLATED])
def test_a_level_or_format_picked_from_a_command_s_choices_is_named_as_the_bot_then_names_it(
    locale: str,
) -> None:
    """The AI level a host picks in `add-ai` is the one the lobby then seats and names, and a
    tournament's format the one its sign-up names: two choices' names swapped in one language
    would seat the hard AI for a host who picked easy, and nothing on screen would say so."""
    for level in AI_LEVELS:
        picked = messages.text(f"choice.ai_level.{level}", locale)
        assert picked == messages.text(f"ai.level.{level}", locale), (level, picked)
    for tournament_format in ("swiss", "round-robin"):
        picked = messages.text(f"choice.format.{tournament_format}", locale)
        shown = messages.text(f"tournament.format.{tournament_format}", locale)
        assert picked == shown, (tournament_format, picked)


def test_a_bad_option_is_named_as_the_user_s_client_names_it() -> None:
    bad = service_errors.BadOptionError("seats", 9)
    assert errors.describe(bad, "fr") == "Cette valeur n'est pas permise pour `joueurs`."
    assert errors.describe(bad, "uk") == "Таке значення не підходить для `кількість_гравців`."
    assert errors.describe(bad, "en") == "That value is not allowed for `seats`."
    unnamed = service_errors.BadOptionError("colour", "green")
    assert errors.describe(unnamed, "fr") == "Cette valeur n'est pas permise pour `colour`."


def test_ukrainian_counts_days_after_do_in_the_genitive() -> None:
    """«до» takes the genitive: до 1 дня, до 3 днів, до 7 днів."""
    for days, expected in ((1, "до 1 дня"), (3, "до 3 днів"), (7, "до 7 днів")):
        texts = " ".join(
            post_texts(presenter.settings_post(ServerSettings(1, away_days=days), "uk"))
        )
        assert f"{expected} за раз" in texts, texts


@pytest.mark.parametrize("locale", ["en", *TRANSLATED])
def test_the_lobby_shows_the_dice_commitment_and_every_turn_s_footer_its_start(locale: str) -> None:
    """The lobby shows the whole SHA-256 of the secret seed, and each turn's footer its first 16
    digits, so that a player sees the dice were committed to before the first roll and that
    every turn keeps that commitment (R13)."""
    sha = "0123456789abcdef" + "f" * 31 + "e" * 17
    lobby = GameView(
        game_row(locale, GameStatus.LOBBY, seq=0, seed_sha256=sha), (Player(100, None),)
    )
    assert any(f"`{sha}`" in line for line in post_texts(presenter.lobby_post(lobby)))
    for view in list(played_views(locale, 3, "standard"))[:-1]:
        shown = dataclasses.replace(view, game=dataclasses.replace(view.game, seed_sha256=sha))
        footer = presenter.turn_post(shown, ping=False).embed.footer.text or ""
        assert footer.endswith(f" {sha[:16]}"), footer


def test_a_turn_s_footer_counts_actions_not_moves_beside_the_turn_number() -> None:
    """The footer's count is the log's (every action, the die's too), for checking the dice;
    called a move ("coup"), it read as a second, different count of turns."""
    footers = {}
    for locale in ("en", "fr", "uk"):
        view = list(played_views(locale, 2, "standard"))[3]
        footers[locale] = presenter.turn_post(view, ping=False).embed.footer.text or ""
    assert footers["en"].startswith(
        f"Game #12 · action {list(played_views('en', 2, 'standard'))[3].seq} ·"
    )
    assert " · action " in footers["fr"]
    assert " · дія " in footers["uk"]
