"""Paints the visible rugs of a state: one piece per visible rug, whole rugs (both halves
visible, so lying on top) as a single two-square piece with fringes and a shadow, covered rugs
as the single half that still shows; rugs of eliminated players in neutral grey."""

from __future__ import annotations

from PIL import Image

from engine import COLOR_ORDER, GameState, owner_of
from render.layout import Layout
from render.palette import RugStyle, rug_style
from render.sprites import Shape, rug_inset, rug_stamp, shadow_pad


def visible_pieces(state: GameState) -> dict[int, tuple[int, ...]]:
    """Squares showing each visible rug, by rug number (one or two squares, sorted)."""
    pieces: dict[int, list[int]] = {}
    for square, number in enumerate(state.cells):
        if number:
            pieces.setdefault(number, []).append(square)
    return {number: tuple(squares) for number, squares in pieces.items()}


def square_style(state: GameState, square: int) -> RugStyle:
    """How the rug showing on a (covered) `square` is painted: neutral if its owner is out."""
    index = state.colors[square]
    if index < 0:
        raise ValueError(f"no rug on square {square}")
    neutral = state.is_eliminated(owner_of(state.players, index))  # R9
    return rug_style(None if neutral else COLOR_ORDER[index])


def _shape(squares: tuple[int, ...]) -> Shape:
    if len(squares) == 1:
        return (1, 1)
    first, second = squares
    return (2, 1) if second - first == 1 else (1, 2)


def draw_rugs(image: Image.Image, geometry: Layout, state: GameState) -> None:
    """Paste every visible rug of `state` onto `image`, in laying order."""
    cell = geometry.cell
    inset = rug_inset(cell)
    pad = shadow_pad(cell)
    for _, squares in sorted(visible_pieces(state).items()):
        shape = _shape(squares)
        stamp = rug_stamp(cell, square_style(state, squares[0]), shape)
        x0, y0, _, _ = geometry.square_box(squares[0])
        offset = inset - (0 if shape == (1, 1) else pad)
        stamp.paste(image, x0 + offset, y0 + offset)
