"""The drill step the docs show (docs/drill.png, drill-phone.png) is the message the bot sends at
that step: once the better move is shown, its button is gone."""

from __future__ import annotations

import discord

from tests.e2e.phone_drill import drill_step


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
