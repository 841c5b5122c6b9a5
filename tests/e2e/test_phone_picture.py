"""The turn message with the most buttons fits a phone's screen (390x844 px)."""

from __future__ import annotations

import pytest

from tests.e2e.phone_picture import SCREEN_HEIGHT, WIDTH, compose


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_turn_message_fits_a_phone_screen(players: int) -> None:
    picture = compose(players)
    assert picture.width == WIDTH
    assert picture.height <= SCREEN_HEIGHT
