"""The turn message with the most buttons fits a phone's screen (390x844 px)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.e2e import phone_picture
from tests.e2e.phone_picture import SCREEN_HEIGHT, WIDTH, compose
from tests.e2e.test_phone_standings import DOCS, difference


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_turn_message_fits_a_phone_screen(players: int) -> None:
    picture = compose(players)
    assert picture.width == WIDTH
    assert picture.height <= SCREEN_HEIGHT


def test_help_gives_the_usage_and_draws_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        phone_picture.main(["--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith(
        "usage: python -m tests.e2e.phone_picture [-h] OUT.png [PLAYERS]"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_players_are_2_3_or_4(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        phone_picture.main(["out.png", "5"])
    assert stopped.value.code == 2
    assert "PLAYERS: invalid choice: 5" in capsys.readouterr().err


def test_docs_in_sync_the_turn_picture_looks_like_the_one_drawn_now() -> None:
    stored = Image.open(DOCS / "phone-turn.png").convert("RGB")
    found = difference(stored, compose(4).convert("RGB"))
    assert found is None, (
        f"docs/phone-turn.png: {found}; run python -m tests.e2e.phone_picture docs/phone-turn.png 4"
    )
