"""A step of Learn from your mistakes, at full width and as a phone 390 px wide shows it.

`python -m tests.e2e.phone_drill docs/drill.png docs/drill-phone.png [LANGUAGE]` writes the
pictures of the costliest decision of seat 0 in a seeded 2-player game, the better option
shown: the drill's board PNG as the bot sends it (`drill.png`), and the whole private message
in a Discord-like dark theme (`drill-phone.png`): its text (bot.presentation.drill), the
picture scaled to the width and its buttons, as bot/edge/drill.py words and lays out that step
(`step_message`, after Show the better move)
(tests/e2e/phone_picture.py draws a turn message the same way).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import discord
from PIL import Image

from ai.judge import judge_game, state_before
from bot.edge.buttons import DrillMove
from bot.edge.drill import step_message
from bot.presentation.images import labels
from bot.presentation.messages import LANGUAGES
from engine import Record, Variant
from render.drill import render_drill
from tests.ai.test_ai_judge import opening
from tests.e2e.phone_picture import MARGIN, WIDTH, _font, _wrap, draw_message

GAME_ID = 12
ACTIONS = 30
"""The record's length: the first 30 actions of the seeded game (15 decisions)."""


def sample() -> Record:
    """The seeded 2-player game the pictures show."""
    return opening(2, Variant.STANDARD, 5, ACTIONS)


def drill_step(language: str) -> tuple[bytes, str, discord.ui.View]:
    """The full-width PNG, the text and the buttons of seat 0's costliest decision, the
    better option shown."""
    record = sample()
    costliest = judge_game(record, seats=[0]).costliest(0)
    judgement = costliest[0]
    state = state_before(record, judgement.index)
    better = DrillMove.BETTER.value
    message = step_message(judgement, 0, len(costliest), GAME_ID, better, 2, language)
    assert message is not None
    assert message.shown == judgement.best
    # The step's badges, as the bot draws them (bot/edge/drill.py, DrillPicture): a rug keeps
    # its number on the second try's buttons, the one the text names, on every screen.
    png = render_drill(
        state,
        judgement.taken,
        message.shown,
        picking=message.picking,
        also=message.also,
        badges=message.badges,
        labels=labels(language),
    )
    return png, message.content, message.view


def compose(png: bytes, content: str, buttons: discord.ui.View) -> Image.Image:
    """The private message as a phone shows it."""
    rows = [(line, False) for line in _wrap(content, _font(), WIDTH - 2 * MARGIN - 16)]
    return draw_message(rows, png, buttons)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.e2e.phone_drill",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("full", metavar="FULL.png", help="the drill's board PNG, full width")
    parser.add_argument("phone", metavar="PHONE.png", help="the private message on a phone")
    parser.add_argument(
        "language",
        metavar="LANGUAGE",
        nargs="?",
        choices=LANGUAGES,
        default="en",
        help=f"the words' language: {', '.join(LANGUAGES)} (default en)",
    )
    arguments = parser.parse_args(argv)
    png, content, buttons = drill_step(arguments.language)
    with open(arguments.full, "wb") as out:
        out.write(png)
    picture = compose(png, content, buttons)
    picture.save(arguments.phone, optimize=True)
    print(f"{arguments.full}: full width; {arguments.phone}: {picture.width}x{picture.height} px")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
