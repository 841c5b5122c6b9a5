"""A turn's events told one line each, in the game's language: what a turn message says
happened ("@alice faced Assam west", "🎲 3", "@bob paid @eve 2 dirhams").

The one-line story of a finished turn is bot/presentation/story.py; the posts that carry these
lines are bot/presentation/presenter.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import engine
from bot.presentation.messages import text
from bot.presentation.names import color_name, facing_name, seat_name, squares_label
from engine.events import Event

if TYPE_CHECKING:  # annotations only: these modules name no service at run time
    from bot.services.views import GameView


def narrate(view: GameView, events: Iterable[Event], language: str) -> list[str]:
    """One line per thing that happened, in order."""
    lines: list[str] = []
    for event in events:
        line = _narrate_one(view, event, language)
        if line:
            lines.append(line)
    return lines


def _narrate_one(view: GameView, event: Event, language: str) -> str | None:
    match event:
        case engine.AssamTurned(seat=seat, rotation=rotation, facing=facing):
            return text(
                f"event.turned.{rotation}",
                language,
                user=seat_name(view, seat, language),
                facing=facing_name(facing, language),
            )
        case engine.DieRolled(face=face):
            return text("event.rolled", language, face=face)
        case engine.AssamMoved(start=start, path=path):
            return text("event.moved", language, path=_path(start, path))
        case engine.TaxPaid(payer=payer, payee=payee, owed=owed, paid=paid, color=color):
            key = "event.paid" if paid == owed else "event.paid_short"
            return text(
                key,
                language,
                payer=seat_name(view, payer, language),
                payee=seat_name(view, payee, language),
                owed=owed,
                paid=paid,
                color=color_name(color, language),
            )
        case engine.PlayerEliminated(seat=seat, resigned=resigned):
            return text(
                "event.resigned" if resigned else "event.eliminated",
                language,
                user=seat_name(view, seat, language),
            )
        case engine.RugPlaced(seat=seat, color=color, squares=squares):
            return text(
                "event.placed",
                language,
                user=seat_name(view, seat, language),
                color=color_name(color, language),
                squares=squares_label(squares),
            )
        case engine.AssamRotated(seat=seat, rotation=rotation, facing=facing):
            return text(
                f"event.rotated.{rotation}",
                language,
                user=seat_name(view, seat, language),
                facing=facing_name(facing, language),
            )
    return None


def _path(start: int, path: Sequence[engine.Step]) -> str:
    squares = [engine.square_name(start)]
    squares.extend(
        engine.square_name(step.square) + ("↩" if step.via_border else "") for step in path
    )
    return " → ".join(squares)
