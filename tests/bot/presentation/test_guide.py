"""The rules guide's pages in every language: each exists, fits Discord's embed limits, names
its picture, and tells the scene its picture shows (the squares and sums render.guide drew)."""

from __future__ import annotations

import random
import re

import discord
import pytest

import engine
from bot.edge.buttons import GuideButton, GuideStep
from bot.edge.guide import guide_buttons, page_after
from bot.presentation.guide import (
    PAGE_COUNT,
    PAGES,
    PUBLISHER_RULES_URL,
    guide_post,
    picture_name,
)
from bot.presentation.messages import LANGUAGES, catalogue, text
from render.guide import GuideScene, guide_scene

EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FOOTER = 2048
EMBED_TOTAL = 6000
BUTTON_LABEL = 80


def embed_size(embed: discord.Embed) -> int:
    return len(embed.title or "") + len(embed.description or "") + len(embed.footer.text or "")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_exists_and_fits_discord_s_limits(language: str) -> None:
    assert PAGE_COUNT == len(PAGES) == 7
    for page, spec in enumerate(PAGES):
        for part in ("title", "body"):
            assert f"guide.{spec.key}.{part}" in catalogue(language), (language, spec.key)
        post = guide_post(page, language)
        embed = post.embed
        assert embed.title
        assert embed.description
        assert len(embed.title) <= EMBED_TITLE
        assert len(embed.description) <= EMBED_DESCRIPTION
        assert len(embed.footer.text or "") <= EMBED_FOOTER
        assert embed_size(embed) <= EMBED_TOTAL
        assert len(embed.description) <= 1100, "a short guide: a phone screen per page"
        assert (post.first, post.last) == (page == 0, page == PAGE_COUNT - 1)
        if spec.scene is None:
            assert embed.image.url is None
        else:
            assert embed.image.url == f"attachment://{picture_name(spec.scene)}"


def test_pages_out_of_the_guide_do_not_exist() -> None:
    for page in (-1, PAGE_COUNT):
        with pytest.raises(ValueError, match="no page"):
            guide_post(page, "en")


def test_the_pictures_are_the_moving_paying_and_laying_pages() -> None:
    scenes = {spec.key: spec.scene for spec in PAGES if spec.scene is not None}
    assert scenes == {"move": GuideScene.MOVE, "pay": GuideScene.PAY, "lay": GuideScene.LAY}
    assert PUBLISHER_RULES_URL.startswith("https://www.gigamic.com/")


def buttons(view: discord.ui.View) -> list[discord.ui.Button[discord.ui.View]]:
    found = []
    for child in view.children:
        button = child.item if isinstance(child, discord.ui.DynamicItem) else child
        assert isinstance(button, discord.ui.Button)
        found.append(button)
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_first_and_last_pages_disable_the_way_out(language: str) -> None:
    for page in range(PAGE_COUNT):
        post = guide_post(page, language)
        view = guide_buttons(post, language)
        previous, following, link = buttons(view)
        assert (previous.disabled, following.disabled) == (page == 0, page == PAGE_COUNT - 1)
        assert previous.label == text("guide.button.previous", language)
        assert following.label == text("guide.button.next", language)
        assert link.url == PUBLISHER_RULES_URL
        assert link.style is discord.ButtonStyle.link
        for button in (previous, following, link):
            assert button.label is not None
            assert len(button.label) <= BUTTON_LABEL
        steps = [child for child in view.children if isinstance(child, GuideButton)]
        assert [(b.page, b.step) for b in steps] == [
            (page, GuideStep.PREVIOUS),
            (page, GuideStep.NEXT),
        ]


def test_buttons_page_back_and_forth_and_stop_at_the_ends() -> None:
    assert page_after(0, GuideStep.NEXT) == 1
    assert page_after(3, GuideStep.PREVIOUS) == 2
    assert page_after(0, GuideStep.PREVIOUS) == 0
    assert page_after(PAGE_COUNT - 1, GuideStep.NEXT) == PAGE_COUNT - 1
    page = 0
    for _ in range(PAGE_COUNT - 1):
        page = page_after(page, GuideStep.NEXT)
    assert page == PAGE_COUNT - 1
    for _ in range(PAGE_COUNT - 1):
        page = page_after(page, GuideStep.PREVIOUS)
    assert page == 0


def squares_in(body: str) -> list[str]:
    return re.findall(r"\b[a-g][1-7]\b", body)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_moving_page_tells_the_walk_the_picture_shows(language: str) -> None:
    scene = guide_scene(GuideScene.MOVE)
    moved = scene.marks.path
    assert moved is not None
    walked = [engine.square_name(moved.start)]
    walked += [engine.square_name(step.square) for step in moved.path]
    assert any(step.via_border for step in moved.path), "the walk goes round an arc"
    body = text("guide.move.body", language)
    told = squares_in(body.split("\n")[-1])
    assert told == walked, (told, walked)
    assert len(moved.path) == 3
    assert re.search(r"\b3\b", body.split("\n")[-1]), "the die shows 3"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_paying_page_tells_the_region_and_the_toll_the_picture_shows(language: str) -> None:
    scene = guide_scene(GuideScene.PAY)
    tax = next(event for event in scene.events if isinstance(event, engine.TaxPaid))
    moved = scene.marks.path
    assert moved is not None
    example = text("guide.pay.body", language).split("\n")[-1]
    region = sorted(engine.square_name(square) for square in tax.region)
    told = squares_in(example)
    assert told[:2] == [engine.square_name(moved.start), engine.square_name(moved.path[-1].square)]
    assert sorted(told[2:]) == region
    assert tax.paid == tax.owed == len(region) == 4
    numbers = [int(found) for found in re.findall(r"\b\d+\b", example)]
    assert numbers == [len(region), tax.paid], (language, numbers)  # its size, then the toll
    assert (tax.color, scene.state.config.players) == (engine.Color.YELLOW, 3)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_laying_page_tells_the_places_the_picture_numbers(language: str) -> None:
    scene = guide_scene(GuideScene.LAY)
    example = text("guide.lay.body", language).split("\n")[-1]
    assert engine.square_name(scene.state.assam) in squares_in(example)
    assert f" {len(scene.marks.candidates)} " in example
    excluded = ("e2", "e3")
    assert squares_in(example)[1:] == list(excluded)
    squares = tuple(engine.parse_square(name) for name in excluded)
    assert squares not in scene.marks.candidates, "the red rug may not be covered exactly"
    assert scene.state.cells[squares[0]] == scene.state.cells[squares[1]] != 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_first_page_names_what_a_newcomer_starts_with(language: str) -> None:
    """A newcomer's first game is against AI seats, often coached: the guide's list of commands
    names adding an AI, the coach's hints and a player's games, each in the language's own
    command names; and in a standard game no button rolls the die (turning Assam does)."""
    body = text("guide.turn.body", language)
    for command in ("add-ai", "hint", "mygames"):
        assert f"`{text(f'command_name.{command}', language)}`" in body, (language, command)
    assert text("option_name.coach", language) in body
    for imperative in ("Roll the die", "Lancez le dé", "Киньте"):
        assert imperative not in body


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_first_page_tells_the_dirhams_rugs_and_square_the_engine_deals(language: str) -> None:
    """R1 and R3 as the engine deals them: the dirhams, the rugs of each colour with 3, 4 and 2
    players, and Assam on d4. The Ukrainian sentence words the player counts."""
    dealt = engine.new_game(engine.deal(3, "standard", first_player=0))
    three, four, two = (engine.rugs_per_color(players) for players in (3, 4, 2))
    if language == "uk":
        expected = [dealt.dirhams[0], three, four, two]
    else:  # "15 each with 3 players, 12 with 4; with 2, 12 of each"
        expected = [dealt.dirhams[0], three, 3, four, 4, 2, two]
    first_line = text("guide.turn.body", language).split("\n")[0]
    before_assam, _ = re.split(r"\bd4\b", first_line, maxsplit=1)
    numbers = [int(found) for found in re.findall(r"\b\d+\b", before_assam)]
    assert numbers == expected, (language, numbers)
    assert engine.square_name(dealt.assam) == "d4"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_two_player_page_tells_the_rugs_and_the_pile_the_engine_deals(language: str) -> None:
    """R1 and R2 as the engine deals them to a seat of two: the rugs of each of its two
    colours, and the one pile they are shuffled into. The Ukrainian sentence words the
    player count."""
    dealt = engine.new_game(engine.deal(2, "standard", random.Random(0)))
    assert dealt.piles is not None
    each, pile = engine.rugs_per_color(2), len(dealt.piles[0])
    assert pile == 2 * each
    expected = [each, pile] if language == "uk" else [2, each, pile]
    body = text("guide.two_players.body", language)
    numbers = [int(found) for found in re.findall(r"\b\d+\b", body)]
    assert numbers == expected, (language, numbers)


@pytest.mark.parametrize("language", LANGUAGES)
def test_starting_alone_points_to_the_ai_seats(language: str) -> None:
    refusal = text("error.not_enough_players", language)
    assert {"en": "AI", "fr": "IA", "uk": "ШІ"}[language] in refusal
