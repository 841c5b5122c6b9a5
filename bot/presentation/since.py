"""What changed for a player since their previous turn, in one sentence: who paid them and whom
they paid ("Since your last turn: Bob paid you 3 dirhams; you paid Eve 2."), or since the
seat's, for a seat handed over to them. The turn's ping in
the channel and the direct message at a player's turn both say it, each naming the other
players its own way (a mention in the channel, the server name in a direct message)."""

from __future__ import annotations

from collections.abc import Callable

from bot.presentation.messages import text
from bot.services.views import SinceLastTurn


def since_last_turn_line(
    since: SinceLastTurn, name: Callable[[int], str], language: str, *, handed_over: bool = False
) -> str | None:
    """The sentence, None when nothing changed; `name` names a seat. A seat `handed_over` to
    its player (a substitute) speaks of the seat's last turn, which may not have been theirs."""
    changes = [
        text("turn_dm.paid_you", language, player=name(seat), dirhams=paid)
        for seat, paid in since.paid_to_you
    ] + [
        text("turn_dm.you_paid", language, player=name(seat), dirhams=paid)
        for seat, paid in since.you_paid
    ]
    if not changes:
        return None
    listed = changes[0]
    for change in changes[1:]:
        listed = text("turn_dm.more", language, changes=listed, change=change)
    key = "turn_dm.since_seat" if handed_over else "turn_dm.since"
    return text(key, language, changes=listed)
