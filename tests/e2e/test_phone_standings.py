"""The standings message fits a phone's screen (390x844 px), and the picture in docs/ is the one
the code draws now."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from tests.e2e.phone_standings import SCREEN_HEIGHT, compose, picture

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_standings_message_fits_a_phone_screen() -> None:
    phone = compose()
    assert phone.width == 390
    assert phone.height <= SCREEN_HEIGHT


def test_the_standings_picture_in_the_docs_is_the_one_drawn_now() -> None:
    stored = Image.open(DOCS / "standings.png").convert("RGB")
    drawn = Image.open(io.BytesIO(picture())).convert("RGB")
    assert stored.tobytes() == drawn.tobytes(), (
        "run python -m tests.e2e.phone_standings docs/standings.png docs/standings-phone.png"
    )
