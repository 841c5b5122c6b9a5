"""Sample states for the render tests: seeded engine games, shared across the session."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine import Phase
from render.samples import Moment, at_turn, elimination, finished


def decode(png: bytes) -> Image.Image:
    """A PNG decoded to RGB."""
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


@pytest.fixture(scope="session")
def midgame() -> Moment:
    """4 players, turn 20, waiting for a rug to be laid, after a turn that paid a tax."""
    return at_turn(4, seed=7, turn=20)


@pytest.fixture(scope="session")
def two_player() -> Moment:
    return at_turn(2, seed=3, turn=18)


@pytest.fixture(scope="session")
def after_laying() -> Moment:
    """4 players at the start of a turn, right after the previous one laid a rug."""
    return at_turn(4, seed=5, turn=15, phase=Phase.ORIENT)


@pytest.fixture(scope="session")
def eliminated() -> Moment:
    return elimination(seed=1)


@pytest.fixture(scope="session")
def game_over() -> Moment:
    return finished(4, seed=7)
