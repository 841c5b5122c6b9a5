"""The drill step the docs show (docs/drill.png, drill-phone.png) is the message the bot sends at
that step: once the better move is shown, its button is gone."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest
from PIL import Image

from ai.judge import judge_game
from bot.edge.buttons import DrillMove
from bot.edge.drill import step_message
from bot.presentation.images import labels
from bot.workers.jobs import DrillPicture, drill_png
from tests.e2e import phone_drill
from tests.e2e.phone_drill import GAME_ID, compose, drill_step, sample
from tests.e2e.test_phone_standings import DOCS, decoded, difference


def test_the_pictured_step_shows_the_better_move_without_its_button() -> None:
    _, content, buttons = drill_step("en")
    assert "Better was " in content
    labels = []
    for item in buttons.children:
        button = item.item if isinstance(item, discord.ui.DynamicItem) else item
        assert isinstance(button, discord.ui.Button)
        labels.append(button.label)
    assert "Show the better move" not in labels, labels
    assert "Try again" in labels


def test_the_pictured_step_is_drawn_with_the_badges_its_text_names() -> None:
    """The picture is the one the bot sends for that step: each rug keeps the number the text
    gives it ("you chose 2 ... Better was 5"), not the default 1 and 2."""
    png, content, _ = drill_step("en")
    record = sample()
    costliest = judge_game(record, seats=[0]).costliest(0)
    judgement = costliest[0]
    message = step_message(judgement, 0, len(costliest), GAME_ID, DrillMove.BETTER.value, 2, "en")
    assert message is not None
    assert message.badges != ("1", "2"), "the pictured step no longer numbers its rugs"
    taken, better = message.badges
    assert f"you chose {taken}, " in content
    assert f"Better was {better}, " in content
    bot_png = drill_png(
        DrillPicture(
            record,
            judgement.index,
            judgement.taken,
            message.shown,
            labels("en"),
            picking=message.picking,
            badges=message.badges,
            also=message.also,
        )
    )
    assert png == bot_png


def test_help_gives_the_usage_and_draws_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        phone_drill.main(["--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith(
        "usage: python -m tests.e2e.phone_drill [-h] FULL.png PHONE.png [LANGUAGE]"
    )
    assert list(tmp_path.iterdir()) == []


def test_docs_in_sync_the_drill_pictures_look_like_the_ones_drawn_now() -> None:
    png, content, buttons = drill_step("en")
    drawn = {
        "drill.png": decoded(png),
        "drill-phone.png": compose(png, content, buttons).convert("RGB"),
    }
    for name, picture in drawn.items():
        found = difference(Image.open(DOCS / name).convert("RGB"), picture)
        assert found is None, (
            f"docs/{name}: {found}; run "
            "python -m tests.e2e.phone_drill docs/drill.png docs/drill-phone.png"
        )
