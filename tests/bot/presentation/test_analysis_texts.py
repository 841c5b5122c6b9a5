"""The analysis picture's words in English, French and Ukrainian: each sentence worded from the
analysis, numbers as each language writes them, and the seats left as placeholders for render
to fill with their names."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from ai.analysis import Cause, GameAnalysis, Payment, Swing, analyse
from ai.judge import SeatSummary, judge_game
from bot.presentation.analysis import (
    accuracy_percent,
    analysis_texts,
    luck_value,
    payment_lines,
    percent,
    swing_lines,
)
from bot.presentation.messages import LANGUAGES
from bot.workers.jobs import analysis_picture
from engine import Record, record_from_json
from render.analysis import analysis_lines
from tests.bot.presentation.lookups import asked_in_another_language, texts_looked_up
from tests.bot.presentation.test_languages import english_in

GOLDEN = Path(__file__).resolve().parents[2] / "engine" / "golden"
PLACEHOLDER = re.compile(r"\{[^}]*\}")


def golden(name: str) -> GameAnalysis:
    return analyse(record_from_json(json.loads((GOLDEN / f"{name}.json").read_text())))


def swing(cause: Cause, **fields: object) -> Swing:
    base = Swing(23, 1, (0.6, 0.2, 0.2), (0.3, 0.1, 0.6), gainer=2, loser=0, cause=cause)
    return replace(base, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", ["3p-elimination", "4p-standard", "2p-last-player-standing"])
def test_every_text_is_worded_and_only_seats_are_left_to_fill(language: str, name: str) -> None:
    found = golden(name)
    texts = analysis_texts(found, 12, language)
    words = [
        texts.title,
        texts.chances,
        texts.turn,
        texts.swing,
        *texts.swing_lines,
        texts.payments,
        *texts.payment_lines,
        texts.luck,
        *texts.luck_values,
    ]
    assert all(words)
    for line in words:
        assert set(PLACEHOLDER.findall(line)) <= {f"{{seat{seat}}}" for seat in range(4)}, line
    assert "12" in texts.title
    assert len(texts.luck_values) == found.players
    assert len(texts.swing_lines) == 2
    assert 1 <= len(texts.payment_lines) <= 3
    assert texts.seat.format(n=3) != texts.seat, "render fills {n} with the seat number"


def test_the_turning_point_in_english() -> None:
    payment = Payment(23, 1, 2, 14, 14, out=False)
    assert swing_lines(swing(Cause.PAYMENT, payment=payment), "en") == (
        "{seat1} paid {seat2} 14\u00a0dirhams.",
        "{seat2}: 20% → 60% · {seat0}: 60% → 30%",
    )
    out = Payment(23, 1, 2, 6, 9, out=True)
    assert swing_lines(swing(Cause.PAYMENT, payment=out), "en")[0] == (
        "{seat1} owed {seat2} 9\u00a0dirhams, paid 6 and is out."
    )
    assert swing_lines(swing(Cause.RESIGNATION, resigned=0), "en")[0] == "{seat0} resigned."
    assert swing_lines(swing(Cause.RUG, rug=(16, 17), grown=2), "en")[0] == (
        "{seat1} laid a rug on c3-d3."
    )
    assert swing_lines(swing(Cause.RUG, rug=(16, 23), grown=5), "en")[0] == (
        "{seat1} laid a rug on c3-c4, making a region of 5\u00a0squares."
    )
    cut = swing(Cause.RUG, rug=(16, 23), covered=1, cut_owner=0, cut_region=11, grown=2)
    assert swing_lines(cut, "en")[0] == (
        "{seat1} laid a rug on c3-c4, cutting into {seat0}'s region of 11\u00a0squares."
    )
    assert swing_lines(cut, "uk")[0] == (
        "{seat1} викладає килим на c3-c4 і розбиває групу з 11\u00a0клітинок ({seat0})."
    ), "no name left in the nominative where Ukrainian wants the genitive"
    assert swing_lines(cut, "fr")[0] == (
        "{seat1} pose un tapis sur c3-c4 et entame une zone de 11\u00a0cases ({seat0})."
    ), "no 'de IA' nor 'de Alice'"
    escape = swing(Cause.ESCAPE, face=1, escaped=3.6)
    assert swing_lines(escape, "en")[0] == (
        "{seat1} rolled a 1 and paid no toll, where a roll cost 4\u00a0dirhams on average."
    )
    assert swing_lines(replace(escape, escaped=1.2), "fr")[0] == (
        "{seat1} fait 1 au dé et ne paie aucune dîme, alors qu'un lancer coûtait 1\u00a0dirham"
        " en moyenne."
    )
    assert swing_lines(swing(Cause.NONE), "en")[0] == "{seat1} played turn 23."


def test_a_rug_is_said_to_make_its_region_from_three_squares_on() -> None:
    assert swing_lines(swing(Cause.RUG, rug=(16, 23), grown=3), "en")[0] == (
        "{seat1} laid a rug on c3-c4, making a region of 3\u00a0squares."
    )
    assert swing_lines(swing(Cause.RUG, rug=(16, 23), grown=2), "en")[0] == (
        "{seat1} laid a rug on c3-c4."
    )


def test_one_seat_that_gained_and_lost_most_is_said_once() -> None:
    same = swing(Cause.NONE, before=(0.5, 0.5), after=(0.5, 0.5), gainer=0, loser=0)
    assert swing_lines(same, "en")[1] == "{seat0}: 50% → 50%"


def test_french_and_ukrainian_word_forms_agree_with_the_numbers() -> None:
    one = Payment(5, 0, 1, 1, 1, out=False)
    two = Payment(6, 0, 1, 2, 2, out=False)
    many = Payment(7, 0, 1, 14, 14, out=False)
    analysis = replace(golden("3p-elimination"), payments=(one, two, many))
    assert payment_lines(analysis, "uk") == (
        "Хід 7: {seat0} платить гравцю {seat1} 14\u00a0дирхамів",
        "Хід 6: {seat0} платить гравцю {seat1} 2\u00a0дирхами",
        "Хід 5: {seat0} платить гравцю {seat1} 1\u00a0дирхам",
    )
    assert (
        payment_lines(analysis, "fr")[2]
        == "Tour 5 : {seat0} paie à {seat1} une dîme de 1\u00a0dirham"
    )
    paid_out = Payment(9, 2, 0, 13, 14, out=True)
    analysis = replace(analysis, payments=(paid_out,))
    assert payment_lines(analysis, "en") == (
        "Turn 9: {seat2} paid {seat0} 13 of 14\u00a0dirhams and is out",
    )


def test_numbers_as_each_language_writes_them() -> None:
    assert [percent(0.625, language) for language in LANGUAGES] == ["62%", "62\u202f%", "62\u202f%"]
    assert luck_value(3.46, "en") == "+3.5"
    assert luck_value(-2.04, "fr") == "\u22122,0"
    assert luck_value(-0.04, "uk") == "+0,0", "no minus sign on a rounded zero"


@pytest.mark.parametrize(
    ("language", "written"),
    [
        ("en", ("+10.9", "\u22121.4", "+2.9", "+13.0")),
        ("fr", ("+10,9", "\u22121,4", "+2,9", "+13,0")),
        ("uk", ("+10,9", "\u22121,4", "+2,9", "+13,0")),
    ],
)
def test_the_picture_writes_each_seat_s_luck_as_its_language_writes_numbers(
    language: str, written: tuple[str, ...]
) -> None:
    assert analysis_texts(golden("4p-standard"), 12, language).luck_values == written


@pytest.mark.parametrize(("language", "quarter"), [("en", "25%"), ("fr", "25 %"), ("uk", "25 %")])
def test_the_chart_s_axis_writes_percentages_as_the_accuracy_rows_do(
    language: str, quarter: str
) -> None:
    """One picture writes a percentage one way: the axis of the chances as its accuracy rows
    ("96 %" in French and Ukrainian, with a narrow space the picture draws as a space)."""
    found = golden("3p-elimination")
    picture = analysis_picture(found, analysis_texts(found, 12, language, SUMMARIES))
    lines = analysis_lines(picture)
    assert quarter in [t.text for t in lines if t.role == "axis"]
    assert next(t.text for t in lines if t.role == "accuracy") == quarter.replace("25", "96")


def test_a_game_without_payments_says_so() -> None:
    without = replace(golden("4p-standard"), payments=())
    assert payment_lines(without, "en") == ("No dirhams changed hands.",)


@pytest.mark.parametrize("language", ["fr", "uk"])
def test_a_translated_analysis_writes_no_english(language: str) -> None:
    """No English sentence shows, and no text, the picture's short labels ("Seat 3", "#1")
    included, was looked up in English."""
    written: list[str] = []
    with texts_looked_up() as looked_up:
        for name in ("3p-elimination", "4p-rotate-after-elimination", "2p-standard"):
            texts = analysis_texts(golden(name), 3, language, SUMMARIES)
            written += [texts.title, texts.chances, texts.swing, texts.payments, texts.luck]
            written += [*texts.swing_lines, *texts.payment_lines]
    assert [line for line in written if english_in(line)] == []
    assert {"image.seat", "image.rank"} <= {key for key, _ in looked_up}
    assert asked_in_another_language(looked_up, language) == set()
    english = analysis_texts(golden("2p-standard"), 3, "en")
    assert english_in(english.title), "the check would see English"


SUMMARIES = (
    SeatSummary(0, 20, 96.4, 0, 0, 0),
    SeatSummary(1, 21, 71.2, 1, 2, 5),
    SeatSummary(2, 19, 88.0, 2, 1, 1),
)


def test_each_player_s_accuracy_and_counts_in_every_language() -> None:
    found = golden("3p-elimination")
    english = analysis_texts(found, 3, "en", SUMMARIES)
    assert english.accuracy == (
        "Accuracy: 100% is the best choice each time, about 50% choosing at random"
    )
    assert english.accuracy_values == ("96%", "71%", "88%")
    assert english.accuracy_counts == (
        "0 inaccuracies · 0 mistakes · 0 blunders",
        "1 inaccuracy · 2 mistakes · 5 blunders",
        "2 inaccuracies · 1 mistake · 1 blunder",
    )
    assert english.blunder_key == "Ringed mark: a blunder by that line's player"
    french = analysis_texts(found, 3, "fr", SUMMARIES)
    assert french.accuracy_values[0] == "96\u202f%"
    assert french.accuracy_counts[1] == "1 imprécision · 2 erreurs · 5 gaffes"
    ukrainian = analysis_texts(found, 3, "uk", SUMMARIES)
    assert ukrainian.accuracy_counts[1] == "1 неточність · 2 помилки · 5 грубих помилок"
    assert ukrainian.accuracy_counts[2] == "2 неточності · 1 помилка · 1 груба помилка"
    for texts in (french, ukrainian):
        written = [texts.accuracy, texts.blunder_key, *texts.accuracy_counts]
        assert [line for line in written if english_in(line)] == []
    unjudged = analysis_texts(found, 3, "en")
    assert (unjudged.accuracy_values, unjudged.accuracy_counts) == ((), ())


def test_an_accuracy_short_of_perfect_never_reads_100() -> None:
    """100% says the best choice every time: a seat that kept 99.97% of its stakes reads 99%."""
    near = (SeatSummary(0, 20, 99.97, 0, 0, 0), SeatSummary(1, 20, 100.0, 0, 0, 0))
    texts = analysis_texts(golden("3p-elimination"), 3, "en", (*near, SUMMARIES[2]))
    assert texts.accuracy_values[:2] == ("99%", "100%")


def test_an_accuracy_above_the_worst_never_reads_0() -> None:
    """0% says the worst choice every time: a seat that kept 0.3% of its stakes reads 1%."""
    near = (SeatSummary(0, 20, 0.3, 0, 0, 0), SeatSummary(1, 20, 0.0, 0, 0, 0))
    texts = analysis_texts(golden("3p-elimination"), 3, "en", (*near, SUMMARIES[2]))
    assert texts.accuracy_values[:2] == ("1%", "0%")


@pytest.mark.parametrize(
    ("language", "none"),
    [
        ("en", "no decision with a choice to judge"),
        ("fr", "aucune décision à juger"),
        ("uk", "жодного рішення з вибором для оцінки"),
    ],
)
def test_a_seat_that_resigned_before_any_choice_shows_no_accuracy(language: str, none: str) -> None:
    """100% says the best choice every time: a seat that resigned at its first turn chose
    nothing, so the picture writes a dash for its accuracy and says it had nothing to judge,
    while its rival's row keeps its figure."""
    whole = record_from_json(json.loads((GOLDEN / "2p-last-player-standing.json").read_text()))
    first = whole.first_player
    resigned = Record(
        whole.players,
        whole.variant,
        first,
        whole.piles,
        whole.actions[:3],
        {"resignations": [[3, 1 - first]]},
    )
    found = analyse(resigned)
    seats = judge_game(resigned).seats
    assert (seats[first].decisions, seats[1 - first].decisions) == (2, 0)
    texts = analysis_texts(found, 3, language, seats)
    assert texts.accuracy_values[1 - first] == "\u2014"
    assert texts.accuracy_counts[1 - first] == none
    assert texts.accuracy_values[first] == accuracy_percent(seats[first].accuracy, language)
    drawn = analysis_lines(analysis_picture(found, texts))
    values = {t.seat: t.text for t in drawn if t.role == "accuracy"}
    assert values[1 - first] == "\u2014", "a dash, not 100%"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_accuracy_heading_writes_its_percentages_as_the_rows_do(language: str) -> None:
    """The heading above the accuracy rows names 100% and 50% as the rows and the chart's axis
    write a percentage: in French and Ukrainian with the narrow no-break space, which also keeps
    a wrapped heading from leaving the sign alone at the start of a line."""
    heading = analysis_texts(golden("3p-elimination"), 3, language, SUMMARIES).accuracy
    for chance in (1.0, 0.5):
        assert percent(chance, language) in heading
    assert " %" not in heading


@pytest.mark.parametrize(
    ("language", "nearly_lost", "nearly_won"),
    [
        ("en", "<1%", ">99%"),
        ("fr", "<\u202f1\u202f%", ">\u202f99\u202f%"),
        ("uk", "<1\u202f%", ">99\u202f%"),
    ],
)
def test_a_chance_not_yet_certain_never_reads_0_or_100_at_the_turning_point(
    language: str, nearly_lost: str, nearly_won: str
) -> None:
    """At the turning point of a game still open a seat at 99.6% reads ">99%" and one at 0.3%
    "<1%": 100% and 0% say the game was decided, which only a certain chance is."""
    moved = swing(
        Cause.NONE, before=(0.5, 0.5), after=(0.996, 0.004), gainer=0, loser=1, seat=0, turn=30
    )
    change = swing_lines(moved, language)[1]
    assert nearly_won in change, change
    assert nearly_lost in change, change
    assert percent(1.0, "en") == "100%"
    assert percent(0.0, "en") == "0%"
    assert percent(0.005, "en") == "<1%", "half a point is not nothing"
    assert percent(0.995, "en") == ">99%"
    assert percent(0.006, "en") == "1%"
    assert percent(0.994, "en") == "99%"


UNIT = r"(?:points?|dirhams?|squares?|cases?|пункт\w*|дирхам\w*|клітин\w*)"
APART = re.compile(r"(\{\w+\}|\*\*\{\w+\}\*\*) (\{\w+:" + UNIT + r"\b|" + UNIT + r"\b)")
"""A number, then a plain space, then its unit: a phone may wrap the line between the two."""


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_number_and_its_unit_never_wrap_apart(language: str) -> None:
    """In the analysis, the coach's verdicts, the drill and the stats' accuracy, a number is
    held to its unit (points, dirhams, squares, and %) by a no-break space, so that a phone
    never shows "12" at a line's end and "points" on the next."""
    path = Path(__file__).resolve().parents[3] / "bot" / "presentation" / "locales"
    texts = json.loads((path / f"{language}.json").read_text(encoding="utf-8"))
    ours = ("analysis.", "coach.", "drill.", "stats.accuracy")
    apart = {
        key: found.group(0)
        for key, words in texts.items()
        if key.startswith(ours) and (found := APART.search(words))
    }
    assert apart == {}
    spaced = {key: words for key, words in texts.items() if key.startswith(ours) and " %" in words}
    assert spaced == {}, "a percent sign after a plain space"
