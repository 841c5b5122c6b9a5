"""A stored game as an engine record (FORMATS.md 2): its config's one JSON form, and the
record its action log makes.

The `games.config` column holds the game's record as it stood when the game started: the
record's header (players, variant, first player, 2-player piles) and no actions yet. The
action log supplies the actions and the resignations, so rebuilding a game is the engine's own
replay of that record (`engine.replay_events`); nothing here steps through the rules.

Databases written before the config took this form hold only the header fields, without
"format" and with the piles as a list of lists; they are read all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import engine
from bot.storage.game_rows import ActionRow
from bot.storage.values import UnreadableJson
from engine import GameConfig


def config_json(config: GameConfig) -> dict[str, Any]:
    """A game's config as stored (a JSON object): the record of the game before its first
    action."""
    start = engine.Record(config.players, config.variant, config.first_player, config.piles, ())
    return engine.record_to_json(start)


def game_record(config: dict[str, Any] | UnreadableJson, log: Sequence[ActionRow]) -> engine.Record:
    """The record of a game: its stored config with every entry of its log, the actions in
    order and each resignation after the actions logged before it.

    Raises ValueError (an engine FormatError among them), KeyError or TypeError if the config
    (UnreadableJson: its stored text does not parse) or the log cannot be read as a record.
    """
    actions: list[str] = []
    resignations: list[list[int]] = []
    for row in log:
        if row.notation is not None:
            actions.append(row.notation)
        elif row.resigned_seat is not None:
            resignations.append([len(actions), row.resigned_seat])
        else:
            raise ValueError(f"entry {row.seq} is neither an action nor a resignation")
    if isinstance(config, UnreadableJson):
        raise ValueError(config.error)
    body: dict[str, Any] = {**_header(config), "actions": actions}
    if resignations:
        body["resignations"] = resignations
    return engine.record_from_json(body)


def _header(stored: Any) -> dict[str, Any]:
    """The record header of a stored config, in either the record's form or the older one
    ({"players", "variant", "first_player", "piles": [[colour, ...], ...] or null})."""
    if not isinstance(stored, dict):
        raise TypeError("the stored config is not a JSON object")
    if "format" in stored:
        return {key: value for key, value in stored.items() if key != "actions"}
    piles = stored["piles"]
    if isinstance(piles, list):
        piles = {str(seat): pile for seat, pile in enumerate(piles)}
    return {
        "format": engine.RECORD_FORMAT,
        "players": stored["players"],
        "variant": stored["variant"],
        "first_player": stored["first_player"],
        "piles": piles,
    }
