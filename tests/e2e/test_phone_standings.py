"""The standings message fits a phone's screen (390x844 px), and the picture in docs/ looks
like the one the code draws now.

Docs in sync: the stored picture is compared with the one drawn as a person would, not byte for
byte, so that a Pillow or FreeType release within the pinned range (a glyph's edge drawn a
shade differently, text a pixel over) leaves it as it is, while a changed word, number or
colour asks for the picture to be written again.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageEnhance, ImageFilter, ImageStat

from tests.e2e import phone_standings
from tests.e2e.phone_standings import SCREEN_HEIGHT, compose, picture

DOCS = Path(__file__).resolve().parents[2] / "docs"
CELL = 4
"""Side in pixels of the patches compared: a letter covers several."""
PATCH_LIMIT = 48
"""The most a patch's mean colour may differ (0-255, any channel): a glyph's edges antialiased
differently move it by about 25, a changed letter by 90 or more."""
MEAN_LIMIT = 2.5
"""The most the whole picture's mean difference may be (any channel): the same softer edges
give about 1.2, colours faded by a fifth about 4.7."""
NUDGES = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
"""Offsets tried: text one pixel over is the same picture."""


def difference(stored: Image.Image, drawn: Image.Image) -> str | None:
    """How `drawn` differs from `stored` beyond what a renderer's release changes, or None."""
    if stored.size != drawn.size:
        return f"the size is {drawn.size}, not {stored.size}"
    patches = (stored.width // CELL, stored.height // CELL)
    worst_patch: Image.Image | None = None
    whole = []
    for dx, dy in NUDGES:
        apart = ImageChops.difference(stored, ImageChops.offset(drawn, dx, dy))
        whole.append(max(ImageStat.Stat(apart).mean))
        red, green, blue = apart.resize(patches, Image.Resampling.BOX).split()
        patch = ImageChops.lighter(ImageChops.lighter(red, green), blue)
        worst_patch = patch if worst_patch is None else ImageChops.darker(worst_patch, patch)
    assert worst_patch is not None
    least, most = min(whole), worst_patch.getextrema()[1]
    assert isinstance(most, int | float), most  # one band: its (least, most)
    if most > PATCH_LIMIT:
        box = worst_patch.point(lambda value: 255 * (value > PATCH_LIMIT)).getbbox()
        assert box is not None
        where = tuple(CELL * side for side in box)
        return f"a patch differs by {most} (limit {PATCH_LIMIT}) within {where}"
    if least > MEAN_LIMIT:
        return f"the whole picture differs by {least:.2f} on average (limit {MEAN_LIMIT})"
    return None


def decoded(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_the_standings_message_fits_a_phone_screen() -> None:
    phone = compose()
    assert phone.width == 390
    assert phone.height <= SCREEN_HEIGHT


def test_docs_in_sync_the_standings_picture_looks_like_the_one_drawn_now() -> None:
    stored = Image.open(DOCS / "standings.png").convert("RGB")
    found = difference(stored, decoded(picture()))
    assert found is None, (
        f"docs/standings.png: {found}; run "
        "python -m tests.e2e.phone_standings docs/standings.png docs/standings-phone.png"
    )


def test_the_comparison_forgives_a_renderer_and_not_a_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = decoded(picture())
    softer = drawn.filter(ImageFilter.GaussianBlur(0.5))
    assert softer.tobytes() != drawn.tobytes()
    assert difference(drawn, softer) is None
    assert difference(drawn, ImageChops.offset(drawn, 1, 0)) is None
    faded = difference(drawn, ImageEnhance.Color(drawn).enhance(0.8))
    assert faded is not None
    assert faded.startswith("the whole picture differs")
    monkeypatch.setitem(phone_standings.NAMES, 105, "Eva")
    renamed = difference(drawn, decoded(picture()))
    assert renamed is not None
    assert renamed.startswith("a patch differs")
    assert difference(drawn, drawn.crop((0, 0, drawn.width, drawn.height - 1))) is not None


def test_help_gives_the_usage_and_draws_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        phone_standings.main(["--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith(
        "usage: python -m tests.e2e.phone_standings [-h] FULL.png PHONE.png"
    )
    assert list(tmp_path.iterdir()) == []


def test_docs_in_sync_the_phone_picture_looks_like_the_one_drawn_now() -> None:
    stored = Image.open(DOCS / "standings-phone.png").convert("RGB")
    found = difference(stored, compose().convert("RGB"))
    assert found is None, (
        f"docs/standings-phone.png: {found}; run "
        "python -m tests.e2e.phone_standings docs/standings.png docs/standings-phone.png"
    )
