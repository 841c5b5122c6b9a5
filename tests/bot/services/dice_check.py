"""The check of a finished game's dice that engine/README.md shows a player, run as written."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import engine

HEADING = "## Checking the dice from the revealed seed"


@dataclass(frozen=True)
class DiceCheck:
    check_dice: Callable[[dict[str, Any]], None]
    """Raises AssertionError unless the record's seed, deal and every roll check out."""
    logged: Callable[[dict[str, Any]], Iterator[tuple[int, engine.GameState, str]]]
    """(log position, state it was played in, action) for every action of the record."""


def readme_check(repo_root: Path) -> DiceCheck:
    """The Python of engine/README.md's section on checking the dice, run: its functions."""
    text = (repo_root / "engine" / "README.md").read_text(encoding="utf-8")
    assert HEADING in text, "engine/README.md shows how to check the dice"
    block = re.search(r"```python\n(.*?)```", text.split(HEADING, 1)[1], re.DOTALL)
    assert block is not None, "the section holds the check in Python"
    namespace: dict[str, Any] = {}
    exec(compile(block.group(1), "engine/README.md", "exec"), namespace)
    return DiceCheck(cast(Any, namespace["check_dice"]), cast(Any, namespace["logged"]))
