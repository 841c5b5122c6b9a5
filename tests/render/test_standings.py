"""The standings picture (render.standings): readable on a phone, by everyone.

Every text stands on its background with a contrast ratio of at least 4.5 (WCAG AA), in normal
vision and under each simulated colour-vision deficiency; shown 390 px wide every text it draws
(caught on its way to `draw_text`, its box measured) is at least 12 px high, inside the picture
(a row's texts inside their columns) and clear of the others, in English, French and Ukrainian
with long names; nothing is told by colour alone; the same table always gives the same bytes,
and names the font cannot draw or cannot fit are handled."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import pytest
from PIL import Image

from bot.presentation import tournaments as shown
from bot.presentation.messages import number
from bot.presentation.messages import text as catalogue
from render import standings
from render.fonts import covers, font
from render.names import ELLIPSIS
from render.standings import StandingsRow, StandingsTable, render_standings, standings_size
from render.text import draw_text
from render.vision import DEFICIENCIES, _to_linear, simulate
from tests.render.conftest import decode

PHONE_WIDTH = 390
SMALLEST_ON_A_PHONE = 12
BACKGROUNDS = {
    "row": standings.ROW,
    "other row": standings.ROW_ALT,
    "leader's row": standings.LEADER,
    "title band": standings.TITLE_BAND,
    "background": standings.BACKGROUND,
}


def luminance(color: tuple[int, int, int]) -> float:
    red, green, blue = (_to_linear(channel) for channel in color)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def table(rows: int = 5, name: str = "Amina") -> StandingsTable:
    return StandingsTable(
        "Spring cup",
        "Round 2 of 3 · Swiss",
        ("#", "Player", "Pts", "Buch.", "Score", "Dh", "Left"),
        tuple(
            StandingsRow(str(rank), f"{name} {rank}", ("2½", "6", "140", "60", "1"), rank == 1)
            for rank in range(1, rows + 1)
        ),
    )


@dataclass(frozen=True, slots=True)
class Drawn:
    """One text as the picture drew it: its size, the box its ink fills, its colour, the
    colour under it (the commonest in its box just before it was drawn) and whether it is
    drawn in the bold face."""

    text: str
    size: int
    box: tuple[float, float, float, float]
    fill: tuple[int, int, int]
    ground: tuple[int, int, int]
    bold: bool = False


def assert_apart(texts: Sequence[Drawn]) -> None:
    """No two of the drawn texts' boxes overlap."""
    for first, second in itertools.combinations(texts, 2):
        apart = (
            first.box[2] <= second.box[0]
            or second.box[2] <= first.box[0]
            or first.box[3] <= second.box[1]
            or second.box[3] <= first.box[1]
        )
        assert apart, (first, second)


def drawn_texts(table: StandingsTable, monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """Every text the picture draws, caught as `render.standings` hands it to `draw_text`."""
    found: list[Drawn] = []

    def recording(image: Image.Image, xy: tuple[float, float], text: str, **how: Any) -> None:
        size, bold, anchor = how["size"], how.get("bold", False), how.get("anchor", "la")
        left, top, right, bottom = font(size, bold=bold).getbbox(text, anchor=anchor)
        x, y = round(xy[0]), round(xy[1])
        box = (x + left, y + top, x + right, y + bottom)
        under = image.crop(box).getcolors(1 << 16) or []
        _, ground = max(under, key=lambda counted: counted[0])
        ground_rgb = cast(tuple[int, int, int], ground)
        found.append(Drawn(text, size, box, how["fill"], ground_rgb, bold))
        draw_text(image, xy, text, **how)

    with monkeypatch.context() as patched:
        patched.setattr(standings, "draw_text", recording)
        standings.standings_image(table)
    return found


@pytest.mark.parametrize("vision", [None, *DEFICIENCIES])
def test_every_text_has_a_contrast_of_at_least_4_5(
    vision: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each text in the colour it is drawn in, on the colour under it: title, column names,
    ranks, names and numbers, on the title band, the background, plain, other and leaders'
    rows."""
    shown = table(4)
    texts = drawn_texts(shown, monkeypatch)
    assert {t.ground for t in texts} == {*BACKGROUNDS.values()}, "every background has a text"
    assert {t.text for t in texts} >= {*shown.headers, *shown.rows[-1].cells}
    for drawn in texts:
        ink, fill = drawn.fill, drawn.ground
        if vision is not None:
            ink, fill = simulate(ink, vision), simulate(fill, vision)
        assert contrast(ink, fill) >= 4.5, (drawn.text, drawn.fill, drawn.ground, vision)


LONG_NAMES = {
    "en": "Alexandra Montgomery-Whitfield",
    "fr": "Marie-Françoise de La Tourette",
    "uk": "Олександра Шевченко-Коваленко",
}
"""Display names near Discord's limit of 32 characters."""


def localized(language: str) -> StandingsTable:
    """The final standings of a 20-round Swiss event as the bot gives them in `language`: its
    column names and subtitle from the catalogue, numbers written as the bot writes them, and
    a title as long as the picture is wide."""
    headers = tuple(catalogue(f"tournament.column.{column}", language) for column in shown.COLUMNS)
    subtitle = catalogue(
        "tournament.picture.final",
        language,
        format=catalogue("tournament.format.swiss", language),
        rounds=20,
    )
    rows = tuple(
        StandingsRow(
            str(rank),
            f"{LONG_NAMES[language]} {rank}"[:32],
            (
                shown.points(41 - rank, language),
                shown.points(1131 - rank, language),
                str(number(1480 - rank, language)),
                str(number(1012 - rank, language)),
                str(rank % 3),
            ),
            leader=rank == 1,
        )
        for rank in range(1, 13)
    )
    title = f"{LONG_NAMES[language]} · {catalogue('tournament.format.round-robin', language)}"
    return StandingsTable(title, subtitle, headers, rows)


def outsized() -> StandingsTable:
    """Numbers far wider than any event gives, under long column names: the number columns
    must share what the player column leaves."""
    huge = ("1 234 567½", "7 654 321½", "12 345 678", "87 654 321", "1 000")
    return StandingsTable(
        "Cup",
        "Round 1 of 1",
        ("#", "Player", "Points totaux", "Buchholz", "Scores", "Dirhams", "Restantes"),
        tuple(StandingsRow(str(rank), "Amina", huge, rank == 1) for rank in (1, 2, 64)),
    )


@pytest.mark.parametrize("language", ["en", "fr", "uk", "outsized"])
def test_every_drawn_text_is_12_px_on_a_phone_and_stays_in_its_place(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shown 390 px wide, each text is drawn at least 12 px high; no text leaves the picture
    or runs into another."""
    table = outsized() if language == "outsized" else localized(language)
    texts = drawn_texts(table, monkeypatch)
    width, height = standings_size(len(table.rows))
    scale = PHONE_WIDTH / width
    if language != "outsized":  # every column name and number drawn whole
        assert {t.text for t in texts} >= {*table.headers, *table.rows[-1].cells}
    small = [
        (t.text, round(t.size * scale, 1)) for t in texts if t.size * scale < SMALLEST_ON_A_PHONE
    ]
    assert not small, f"under {SMALLEST_ON_A_PHONE} px on a phone: {small}"
    for drawn in texts:
        left, top, right, bottom = drawn.box
        assert 0 <= left < right <= width, drawn
        assert 0 <= top < bottom <= height, drawn
    assert_apart(texts)


def test_the_leaders_carry_a_star_as_well_as_a_lighter_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert covers(standings.STAR)
    assert contrast(standings.LEADER, standings.ROW) > 1.2
    assert contrast(standings.LEADER, standings.ROW_ALT) > 1.2
    first = table(3)
    leaders = dataclasses.replace(
        first,
        rows=tuple(dataclasses.replace(row, leader=row.rank in ("1", "2")) for row in first.rows),
    )
    drawn = [d.text for d in drawn_texts(leaders, monkeypatch) if "Amina" in d.text]
    assert drawn == [f"{standings.STAR} Amina 1", f"{standings.STAR} Amina 2", "Amina 3"]
    image = standings.standings_image(leaders)
    tops = [
        standings.TITLE_HEIGHT + standings.HEADER_HEIGHT + k * standings.ROW_HEIGHT
        for k in range(3)
    ]
    fills = [image.getpixel((standings.PAD, top + standings.ROW_HEIGHT // 2)) for top in tops]
    assert fills == [standings.LEADER, standings.LEADER, standings.ROW]


def test_each_row_draws_its_rank_name_and_numbers_in_column_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Within each row's band, left to right: its rank, its name, then its numbers in the
    order of the headers; the title and the subtitle are drawn above."""
    first = table(3)
    shown = dataclasses.replace(
        first, rows=tuple(dataclasses.replace(row, leader=False) for row in first.rows)
    )
    texts = drawn_texts(shown, monkeypatch)
    assert {shown.title, shown.subtitle} <= {d.text for d in texts}
    for k, row in enumerate(shown.rows):
        top = standings.TITLE_HEIGHT + standings.HEADER_HEIGHT + k * standings.ROW_HEIGHT
        in_row = [d for d in texts if top <= (d.box[1] + d.box[3]) / 2 < top + standings.ROW_HEIGHT]
        in_order = [d.text for d in sorted(in_row, key=lambda d: d.box[0])]
        assert in_order == [row.rank, row.name, *row.cells]


@pytest.mark.parametrize("language", ["en", "fr", "uk", "outsized"])
def test_each_rank_name_and_number_stays_inside_its_column(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every text of a row is fitted to its own column, measured in the face it is drawn in:
    the leaders' names, starred and in bold, no more than the others run into the gap before
    the numbers."""
    table = outsized() if language == "outsized" else localized(language)
    columns = standings._columns(table)
    texts = drawn_texts(table, monkeypatch)
    outside = []
    for k, row in enumerate(table.rows):
        top = standings.TITLE_HEIGHT + standings.HEADER_HEIGHT + k * standings.ROW_HEIGHT
        in_row = [d for d in texts if top <= (d.box[1] + d.box[3]) / 2 < top + standings.ROW_HEIGHT]
        in_order = sorted(in_row, key=lambda d: d.box[0])
        for drawn, (left, right) in zip(in_order, columns, strict=True):
            if not left <= drawn.box[0] < drawn.box[2] <= right:
                outside.append((row.rank, drawn.text, drawn.box[::2], (left, right)))
    assert not outside, f"(rank, text, drawn from-to, column from-to): {outside}"


def test_headers_align_with_their_columns_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The names are drawn from the left of their column, and so is its header, while the
    number headers end where their numbers end."""
    shown = table(2)
    texts = {d.text: d for d in drawn_texts(shown, monkeypatch)}
    header, name = texts["Player"], texts[shown.rows[1].name]
    assert abs(header.box[0] - name.box[0]) <= 3
    numbers = zip(shown.headers[2:], shown.rows[1].cells, strict=True)
    assert all(abs(texts[label].box[2] - texts[cell].box[2]) <= 3 for label, cell in numbers)


def test_the_picture_is_as_tall_as_its_rows_and_always_the_same() -> None:
    png = render_standings(table(5))
    image = decode(png)
    assert image.size == standings_size(5)
    assert decode(render_standings(table(12))).size == standings_size(12)
    assert standings_size(12)[1] - standings_size(5)[1] == 7 * standings.ROW_HEIGHT
    assert render_standings(table(5)) == png


def named(*names: str, leader: bool = False) -> StandingsTable:
    """A table of one row per name, in that order, every row a leader's or none."""
    rows = tuple(
        StandingsRow(str(rank), name, ("2", "6", "140", "60", "1"), leader)
        for rank, name in enumerate(names, start=1)
    )
    return dataclasses.replace(table(1), rows=rows)


def row_names(shown: StandingsTable, texts: list[Drawn]) -> list[str]:
    """The name each row draws, row by row: the second text from the left in its band."""
    names = []
    for k in range(len(shown.rows)):
        top = standings.TITLE_HEIGHT + standings.HEADER_HEIGHT + k * standings.ROW_HEIGHT
        in_row = [d for d in texts if top <= (d.box[1] + d.box[3]) / 2 < top + standings.ROW_HEIGHT]
        names.append(sorted(in_row, key=lambda d: d.box[0])[1].text)
    return names


def assert_no_box(texts: list[Drawn]) -> None:
    """Every character drawn has a glyph in the face it is drawn in (bold for a leader's
    name): the picture never shows a box (tofu)."""
    for drawn in texts:
        missing = [c for c in drawn.text if c != " " and not covers(c, bold=drawn.bold)]
        assert not missing, (drawn.text, drawn.bold, missing)


@pytest.mark.parametrize("leader", [False, True], ids=["player", "leader"])
def test_names_the_font_cannot_draw_or_fit_still_give_a_picture(
    leader: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the font lacks is dropped, and a name with nothing left is drawn as "?"; a name
    too long for its column ends in an ellipsis; no character is drawn as a box."""
    long_latin, long_cyrillic = "A" * 120, "Олександра-Катерина Шевченко-Коваленко"
    shown = named("🎲🎲", "李雷", long_latin, long_cyrillic, "Anna 🌸", leader=leader)
    assert decode(render_standings(shown)).size == standings_size(5)
    texts = drawn_texts(shown, monkeypatch)
    star = f"{standings.STAR} " if leader else ""
    drawn = row_names(shown, texts)
    assert all(name.startswith(star) for name in drawn)
    names = [name.removeprefix(star) for name in drawn]
    assert names[:2] == ["?", "?"]
    assert names[2].endswith(ELLIPSIS)
    assert long_latin.startswith(names[2][:-1])
    assert long_cyrillic.startswith(names[3].removesuffix(ELLIPSIS))
    assert names[4] == "Anna"
    assert_no_box(texts)


def test_a_leader_s_fancy_letters_are_drawn_as_plain_bold_letters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Discord's "font generator" names use the mathematical sans-serif letters, which the
    regular face has and the bold one lacks: a leader's name, drawn in bold, reads in plain
    letters, not boxes; a player's keeps its letters as given."""
    fancy = "\U0001d5a0\U0001d5c6\U0001d5c2\U0001d5c7\U0001d5ba"  # "Amina" in sans-serif
    assert all(covers(c) and not covers(c, bold=True) for c in fancy)
    leading, following = named(fancy, leader=True), named(fancy)
    texts = drawn_texts(leading, monkeypatch)
    assert row_names(leading, texts) == [f"{standings.STAR} Amina"]
    assert_no_box(texts)
    assert row_names(following, drawn_texts(following, monkeypatch)) == [fancy]


def test_a_title_the_font_cannot_draw_loses_those_characters_not_shown_as_boxes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The title is the tournament's name as a moderator typed it: an emoji, a CJK or a right
    to left word in it is dropped like in a player's name."""
    shown = dataclasses.replace(table(2), title="Coupe 🏆 李 שלום")
    texts = drawn_texts(shown, monkeypatch)
    assert texts[0].text == "Coupe"
    assert_no_box(texts)


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_a_withdrawn_player_s_note_is_read_under_their_name_on_a_phone(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row's note (a player who withdrew: after which round) is drawn whole on a second line,
    from the name's left, however long the numbers beside the name, at least 12 px high on a
    phone, clear of every other text, and with a contrast of 4.5 on its row, a leader's too,
    for every colour vision; the row's other texts stay in it."""
    localized_table = localized(language)
    note = catalogue("tournament.picture.withdrawn", language, round=19)
    rows = tuple(
        dataclasses.replace(row, note=note) if row.rank in ("1", "2", "12") else row
        for row in localized_table.rows
    )
    noted = dataclasses.replace(localized_table, rows=rows)
    texts = drawn_texts(noted, monkeypatch)
    notes = [t for t in texts if t.text == note]
    assert len(notes) == 3, "each note drawn whole"
    scale = PHONE_WIDTH / standings.WIDTH
    assert all(t.size * scale >= SMALLEST_ON_A_PHONE for t in texts)
    left = standings._columns(noted)[1][0]
    _, height = standings_size(len(rows))
    for drawn in notes:
        assert left <= drawn.box[0] < drawn.box[2] <= standings.WIDTH - standings.PAD, drawn
        assert drawn.box[3] <= height
    assert_apart(texts)
    for drawn in notes:
        for vision in (None, *DEFICIENCIES):
            ink, ground = drawn.fill, drawn.ground
            if vision is not None:
                ink, ground = simulate(ink, vision), simulate(ground, vision)
            assert contrast(ink, ground) >= 4.5, (drawn, vision)
    for k, row in enumerate(rows):
        top = standings.TITLE_HEIGHT + standings.HEADER_HEIGHT + k * standings.ROW_HEIGHT
        mine = [t for t in texts if top <= (t.box[1] + t.box[3]) / 2 < top + standings.ROW_HEIGHT]
        assert len(mine) == len(row.cells) + 2 + bool(row.note), row
