"""Sample states for the render tests: seeded engine games, shared across the session."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from engine import Phase, RugPlaced, TaxPaid
from render.samples import Moment, at_turn, elimination, finished, first_moment, moments


def decode(png: bytes) -> Image.Image:
    """A PNG decoded to RGB."""
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def midgame_moment() -> Moment:
    """4 players from turn 16 on, waiting for a rug to be laid, after a turn that paid a tax."""
    return first_moment(
        4,
        range(7, 40),
        lambda m: (
            m.state.turn >= 16
            and m.state.phase is Phase.PLACE
            and any(isinstance(e, TaxPaid) for e in m.events)
        ),
    )


@pytest.fixture(scope="session")
def midgame() -> Moment:
    return midgame_moment()


@pytest.fixture(scope="session")
def two_player() -> Moment:
    return at_turn(2, seed=3, turn=18)


@pytest.fixture(scope="session")
def after_laying() -> Moment:
    """4 players at the start of a turn, right after the previous one laid a rug."""
    return first_moment(
        4,
        range(5, 40),
        lambda m: (
            m.state.turn >= 15
            and m.state.phase is Phase.ORIENT
            and any(isinstance(e, RugPlaced) for e in m.events)
        ),
    )


@pytest.fixture(scope="session")
def eliminated() -> Moment:
    """4 players right after a seat was eliminated for debt (its rugs now neutral)."""
    for seed in range(1, 30):
        moment = elimination(seed)
        if moment.state.eliminated and not moment.state.is_over:
            return moment
    raise LookupError("no sample game eliminated a seat")


@pytest.fixture(scope="session")
def game_over() -> Moment:
    return finished(4, seed=7)


@pytest.fixture(scope="session")
def out_at_the_end() -> Moment:
    """A finished 4-player game in which a seat was eliminated along the way."""
    for seed in range(1, 30):
        moment = elimination(seed)
        if moment.state.eliminated and not moment.state.is_over:
            *_, last = moments(moment.state, random.Random(seed))
            if last.state.eliminated:
                return last
    raise LookupError("no sample game ends with a seat out")


@pytest.fixture(scope="session")
def two_player_out_at_the_end() -> Moment:
    """A finished 2-player game that ended with a seat out: both its colours on the board."""
    moment = finished(2, seed=9)
    assert moment.state.eliminated == (1,)
    return moment
