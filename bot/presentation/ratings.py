"""How a rating reads, wherever it is shown: its points as the language writes numbers
("1,532", "1 532"), a change with its sign ("+18", "-7" with a minus sign, "±0"), and the line
of a game's result that gives one seat's new rating and change ("Amina 1,532 (+18)"); and a
member's rating history as the chart the workers draw (`RatingChart`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.presentation.messages import number, text
from bot.services.views import RatingChange
from render.accuracy_strip import AccuracyStrip

MINUS = "\u2212"


def points(value: int, language: str) -> str:
    """A rating's points, grouped as `language` writes numbers."""
    return f"{number(value, language)}"


def signed(change: int, language: str) -> str:
    """A change of points with its sign: "+18", "-7" (written with a minus sign, U+2212, not
    a hyphen), "±0"."""
    if change == 0:
        return "±0"
    sign = "+" if change > 0 else MINUS
    return sign + points(abs(change), language)


def change_line(name: str, change: RatingChange, language: str) -> str:
    """One seat's rating after a game and the change: "Amina 1,532 (+18)", saying when the
    rating is still provisional."""
    key = "end.rating_line_provisional" if change.provisional else "end.rating_line"
    return text(
        key,
        language,
        user=name,
        rating=points(change.after, language),
        change=signed(change.change, language),
    )


@dataclass(frozen=True, slots=True)
class RatingChart:
    """A member's rating history to draw: the points before their first rated game and after
    each one (none before a rated game), how many games it is provisional for, the language of
    its words, and their accuracy game by game to draw under it (None: no judged game)."""

    points: tuple[int, ...]
    provisional: int
    language: str
    accuracy: AccuracyStrip | None = None
