"""The palette every picture is quantised with is the one the specimen gives, and keeps every
flat colour exactly (render/encode.py keeps it learned, so that no process learns it again)."""

from __future__ import annotations

from render import encode


def _table(palette: bytes) -> str:
    """`palette` as the lines of `encode.PALETTE_HEX`, to paste there."""
    text = palette.hex()
    return "\n".join(f'    "{text[i : i + 90]}"' for i in range(0, len(text), 90))


def test_the_kept_palette_is_the_one_the_specimen_gives() -> None:
    learned = encode.learned_palette()
    assert bytes.fromhex(encode.PALETTE_HEX) == learned, (
        "the colours or the sprites changed: put this in render/encode.py's PALETTE_HEX\n"
        + _table(learned)
    )


def test_the_palette_holds_every_flat_colour_first() -> None:
    palette = encode.palette_image().getpalette() or []
    colours = [tuple(palette[i : i + 3]) for i in range(0, len(palette), 3)]
    assert len(colours) == encode.PALETTE_SIZE
    exact = encode.exact_colors()
    assert colours[: len(exact)] == exact
