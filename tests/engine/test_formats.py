"""FORMATS.md: action notation, game records and positions, and hostile input (FormatError only)."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    FormatError,
    Phase,
    ReplayError,
    Variant,
    apply,
    deal,
    from_position,
    legal_actions,
    new_game,
    parse_placement,
    parse_square,
    placement_notation,
    record_from_json,
    record_of,
    record_to_json,
    replay_record,
    resign,
    square_name,
    to_position,
)
from engine.playout import checked_playout
from tests.engine.builders import board, play, start
from tests.engine.mutation import JSON, mutate, set_path


def finished_game(players: int, variant: Variant, seed: int) -> Any:
    rng = random.Random(seed)
    return checked_playout(new_game(deal(players, variant, rng)), rng)


# --- Action notation (FORMATS.md 1) -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "square"), [("a1", 0), ("d4", 24), ("g1", 6), ("a7", 42), ("g7", 48)]
)
def test_square_names(name: str, square: int) -> None:
    """Columns a-g left to right, rows 1-7 top to bottom: a1 is (0,0), d4 the centre."""
    assert parse_square(name) == square
    assert square_name(square) == name


@pytest.mark.parametrize("text", ["", "a", "a0", "a8", "h1", "A1", "d44", "4d", None, 24, ["d4"]])
def test_bad_square_names(text: object) -> None:
    """Anything but a column a-g and a row 1-7 is refused with a FormatError."""
    with pytest.raises(FormatError, match="not a square"):
        parse_square(text)  # type: ignore[arg-type]


def test_placement_notation_lower_square_first() -> None:
    """FORMATS.md 1: either order is read; it is written with the lower row*7+col first."""
    assert parse_placement("c4c5") == parse_placement("c5c4") == (23, 30)
    assert placement_notation(30, 23) == "c4c5"
    pairs = [(a, b) for a in range(49) for b in range(a + 1, 49) if b in (a + 1, a + 7)]
    pairs = [(a, b) for a, b in pairs if a // 7 == b // 7 or a % 7 == b % 7]
    assert len(pairs) == 84  # every rug position on the board
    for low, high in pairs:
        written = square_name(low) + square_name(high)
        assert placement_notation(high, low) == placement_notation(low, high) == written
        assert parse_placement(written) == parse_placement(written[2:] + written[:2])
        assert parse_placement(written) == (low, high)


def test_every_notation_is_short_without_colons_or_spaces() -> None:
    """FORMATS.md 1: no notation the engine offers contains ':' or a space, or exceeds 8."""
    seen = set()
    for players, variant in ((4, Variant.STANDARD), (2, Variant.ROTATE_AFTER)):
        for state in states_along(players, variant, 2):
            seen.update(legal_actions(state))
    assert {"L", "S", "R", "D1", "D4"} <= seen
    assert any(len(a) == 4 for a in seen)
    for action in seen:
        assert 0 < len(action) <= 8
        assert ":" not in action
        assert " " not in action


@pytest.mark.parametrize("text", ["c4", "c4c5c6", "c4 c5", "z9z8", "", 45])
def test_bad_placement_notation(text: object) -> None:
    with pytest.raises(FormatError):
        parse_placement(text)  # type: ignore[arg-type]


# --- Records (FORMATS.md 2) ---------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
def test_record_round_trip_and_replay(players: int, variant: Variant) -> None:
    """A record written as JSON reads back equal and replays to the same state."""
    state = finished_game(players, variant, 11)
    record = record_of(state, names=["a", "b"])
    document = json.loads(json.dumps(record_to_json(record)))
    assert document["format"] == "marrakech-record/1"
    assert document["names"] == ["a", "b"]  # extras are kept
    assert list(document)[-1] == "names", "the extras come after the required fields"
    assert (document["piles"] is None) == (players != 2)
    again = record_from_json(document)
    assert again == record
    assert replay_record(again) == state


def test_record_piles_are_written_per_seat() -> None:
    """FORMATS.md 2: piles {"0": [24 colours], "1": [24 colours]}, top first."""
    state, _ = play(start(2), "S", "D1", "c2d2")
    document = record_to_json(record_of(state))
    assert sorted(document["piles"]) == ["0", "1"]
    assert document["piles"]["0"][:2] == ["red", "blue"]
    assert document["actions"] == ["S", "D1", "c2d2"]


@pytest.mark.parametrize("players", [2, 3])
def test_a_resigned_game_s_record_replays_to_its_end_only_with_its_resignations(
    players: int,
) -> None:
    """The "resignations" extra ([[action index, seat], ...]) is part of the game: read from
    JSON, the record of a game its resignations ended replays to that end; a reader that drops
    the extra replays the same actions to a game still being played."""
    state, _ = play(start(players), "S", "D1", "c2d2")
    for seat in range(1, players):
        state, _ = resign(state, seat)
    assert state.is_over
    document = json.loads(json.dumps(record_to_json(record_of(state))))
    assert document["resignations"] == [[3, seat] for seat in range(1, players)]
    assert replay_record(record_from_json(document)) == state
    del document["resignations"]
    assert not replay_record(record_from_json(document)).is_over


def test_resignations_listed_out_of_order_replay_in_the_order_of_their_action_index() -> None:
    """The "resignations" extra is read by action index, whatever order a writer lists the
    pairs in: [[5, 1], [3, 2]] replays seat 2 leaving after action 3 and seat 1 after action 5,
    which ends the game with seat 0 the last player standing."""
    state, _ = play(start(3), "S", "D1", "c2d2")
    state, _ = resign(state, 2)
    state, _ = play(state, "S", "D2")
    final, _ = resign(state, 1)
    document = json.loads(json.dumps(record_to_json(record_of(final))))
    assert document["resignations"] == [[3, 2], [5, 1]]
    document["resignations"] = [[5, 1], [3, 2]]
    replayed = replay_record(record_from_json(document))
    assert replayed == final
    assert replayed.outcome is not None
    assert replayed.outcome.ranking == ((0,), (1,), (2,))


def test_an_extra_never_replaces_a_required_field_when_written() -> None:
    """FORMATS.md 2: producers add fields only as optional extras; an extra that bears the name
    of a required field is not written over it (the record's own value is kept)."""
    state, _ = play(start(3), "S", "D1", "c2d2")
    extras = {"format": "other/9", "players": 4, "actions": [], "seed": "ab"}
    document = record_to_json(record_of(state, **extras))
    assert document["format"] == "marrakech-record/1"
    assert (document["players"], document["actions"]) == (3, ["S", "D1", "c2d2"])
    assert document["seed"] == "ab"
    assert replay_record(record_from_json(document)) == state


def test_replay_error_names_index_notation_and_reason() -> None:
    """FORMATS.md 2: e.g. "action 2 'd3d4': a rug cannot cover Assam's square"."""
    document = record_to_json(record_of(start(4)))
    document["actions"] = ["S", "D1", "d3d4"]
    with pytest.raises(ReplayError) as caught:
        replay_record(record_from_json(document))
    assert (caught.value.index, caught.value.notation) == (2, "d3d4")
    assert str(caught.value) == "action 2 'd3d4': a rug cannot cover Assam's square"


VALID_RECORD: dict[str, Any] = {
    "format": "marrakech-record/1",
    "players": 3,
    "variant": "standard",
    "first_player": 0,
    "piles": None,
    "actions": ["S", "D3"],
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "marrakech-record/2"}, "not a marrakech-record/1"),
        ({"players": 5}, "2, 3 or 4"),
        ({"players": "3"}, "2, 3 or 4"),
        ({"players": True}, "2, 3 or 4"),
        ({"variant": "fast"}, "standard"),
        ({"first_player": 3}, "first player"),
        ({"first_player": 10**100}, "first player"),
        ({"first_player": None}, "first player"),
        ({"first_player": True}, "first player must be a seat from 0 to 2"),
        ({"first_player": False}, "first player must be a seat from 0 to 2"),
        ({"first_player": 1.0}, "first player must be a seat from 0 to 2"),
        ({"piles": {"0": [], "1": []}}, "only 2-player games have piles"),
        ({"actions": "S D3"}, "list"),
        ({"actions": ["S", 3]}, "not an action notation"),
        ({"actions": ["S", "a:b"]}, "not an action notation"),
        ({"actions": ["S"] * 5000}, "at most"),
        ({"resignations": [[0, 9]]}, "resignations"),
        ({"resignations": [[3, 1]]}, "resignations"),  # after an action the record lacks
        ({"resignations": [[0, 3]]}, "resignations"),  # a seat this 3-player game lacks
        ({"resignations": [[0, 1], [1, 1]]}, "resignations"),  # one seat leaving twice
        ({"resignations": "yes"}, "resignations"),
    ],
)
def test_hostile_records_raise_format_error(change: dict[str, Any], message: str) -> None:
    """Corrupt records raise FormatError saying what is wrong, never KeyError/TypeError."""
    with pytest.raises(FormatError, match=message):
        record_from_json({**VALID_RECORD, **change})


@pytest.mark.parametrize("missing", sorted(VALID_RECORD))
def test_records_missing_a_field(missing: str) -> None:
    body = {k: v for k, v in VALID_RECORD.items() if k != missing}
    with pytest.raises(FormatError, match=f"lacks '{missing}'"):
        record_from_json(body)


@pytest.mark.parametrize("action", ["a:b", "D 3", "", "c4c5c6c7c", 3])
def test_an_action_that_is_not_a_notation_is_named_by_its_index_and_value(action: Any) -> None:
    """FORMATS.md 2: a bad action is named by its 0-based index in `actions` and its notation,
    also when it is refused as no notation at all."""
    with pytest.raises(FormatError) as caught:
        record_from_json({**VALID_RECORD, "actions": ["S", "D3", action]})
    assert str(caught.value) == f"action 2 {action!r} is not an action notation"


def test_two_player_record_needs_valid_piles() -> None:
    body = {**VALID_RECORD, "players": 2}
    with pytest.raises(FormatError, match="pile"):
        record_from_json(body)
    body["piles"] = {"0": ["red"] * 24, "1": ["yellow", "brown"] * 12}
    with pytest.raises(FormatError, match="12 red and blue"):
        record_from_json(body)
    body["piles"] = {"0": [1] * 24, "1": ["yellow", "brown"] * 12}
    with pytest.raises(FormatError, match="not a colour"):
        record_from_json(body)


@pytest.mark.parametrize(
    "pile",
    [["yellow", "blue"] * 12, ["blue"] * 12 + ["brown"] * 12, ["red"] * 12 + ["yellow"] * 12],
)
def test_a_2_player_pile_holds_12_of_each_of_its_seat_s_two_colours_only(pile: list[str]) -> None:
    """FORMATS.md 2: seat 0's pile is 12 red and 12 blue rugs; 12 of one of them with 12 of
    another seat's colour is refused."""
    body = record_to_json(record_of(start(2)))
    body["piles"]["0"] = pile
    with pytest.raises(FormatError, match="seat 0's pile must hold 12 red and blue rugs each"):
        record_from_json(body)


@pytest.mark.parametrize("length", [23, 25, 10_000])
def test_a_2_player_pile_of_another_length_than_24_is_refused_as_such(length: int) -> None:
    """FORMATS.md 2: a pile lists a seat's 24 rugs; a longer or shorter list is refused by its
    length before any entry is read."""
    body = record_to_json(record_of(start(2)))
    body["piles"]["1"] = ["yellow", "brown"] * (length // 2) + ["yellow"] * (length % 2)
    with pytest.raises(FormatError, match=f"pile of seat 1 must list 24 colours, not {length}"):
        record_from_json(body)


def test_a_2_player_record_s_piles_are_those_of_seats_0_and_1_only() -> None:
    """FORMATS.md 2: `piles` is `{"0": [...], "1": [...]}`; a pile under any other key is
    refused rather than dropped when the record is written back."""
    body = record_to_json(record_of(start(2)))
    body["piles"]["2"] = body["piles"]["0"]
    with pytest.raises(FormatError, match='"piles" must be null or'):
        record_from_json(body)


# --- Positions (FORMATS.md 3) ------------------------------------------------------------


def states_along(players: int, variant: Variant, seed: int) -> list[Any]:
    rng = random.Random(seed)
    state = new_game(deal(players, variant, rng))
    states = [state]
    while not state.is_over:
        actions = legal_actions(state)
        state, _ = apply(state, actions[int(rng.random() * len(actions))])
        states.append(state)
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
def test_position_round_trips_in_every_phase(players: int, variant: Variant) -> None:
    """to_position -> JSON -> from_position -> to_position gives the same position; a state
    read from a position plays on exactly like the original."""
    states = states_along(players, variant, 5)
    phases = set()
    for state in [*states[:: max(1, len(states) // 25)], states[-1]]:
        position = json.loads(json.dumps(to_position(state)))
        phases.add(position["phase"])
        again = from_position(position)
        assert to_position(again) == position
        # A position does not say who began: the seat to move stands in for the first player.
        assert again.config.first_player == (state.to_move if state.to_move is not None else 0)
        assert legal_actions(again) == legal_actions(state)
        if legal_actions(state):
            action = legal_actions(state)[-1]
            assert to_position(apply(again, action)[0]) == to_position(apply(state, action)[0])
    assert phases >= {"roll", "place", "over"}


def test_position_fields() -> None:
    """FORMATS.md 3: the example's fields, e.g. cells [colour, rug number] and scores."""
    state, _ = play(start(3), "R", "D2", "f2f3")
    position = to_position(state)
    assert position["turn"] == 2
    assert position["to_move"] == 1
    assert position["phase"] == "orient"
    assert position["assam"] == {"square": "f4", "facing": "E"}
    assert position["cells"][1][5] == ["red", 1]
    assert position["cells"][2][5] == ["red", 1]
    assert position["seats"][0] == {
        "seat": 0,
        "colors": ["red"],
        "dirhams": 30,
        "rugs_left": {"red": 14},
        "eliminated": False,
        "pile": None,
    }
    assert position["scores"][0] == {"seat": 0, "dirhams": 30, "visible": 2, "total": 32}
    assert position["outcome"] is None


def test_an_eliminated_2_player_seat_is_written_with_nothing_left_and_reads_back() -> None:
    """FORMATS.md 3: an eliminated seat has dirhams 0, every rugs_left 0 and (2 players) pile
    []; the engine's own position of a game ended so reads back to itself."""
    state = board(2, [("d4d5", "yellow")], dirhams=(1, 59), assam="d3", facing="S")
    after, _ = play(state, "D1")  # seat 0 owes 2 and holds 1: out, and seat 1 is left
    position = json.loads(json.dumps(to_position(after)))
    assert position["seats"][0] == {
        "seat": 0,
        "colors": ["red", "blue"],
        "dirhams": 0,
        "rugs_left": {"red": 0, "blue": 0},
        "eliminated": True,
        "pile": [],
    }
    assert to_position(from_position(position)) == position


def ended_by_an_elimination() -> dict[str, Any]:
    """2 players: seat 0 owes 2 and holds 1, so it is out and the game over."""
    state = board(2, [("d4d5", "yellow")], dirhams=(1, 59), assam="d3", facing="S")
    after, _ = play(state, "D1")
    return to_position(after)


def a_seat_out_of_a_running_game() -> dict[str, Any]:
    """4 players at turn 2: red rug 1 on c2d2; seat 3 has resigned, its 12 rugs gone."""
    state, _ = play(start(4), "S", "D1", "c2d2")
    state, _ = resign(state, 3)
    return to_position(state)


def a_dirham_to_the_seat_out(body: dict[str, Any], seat: dict[str, Any]) -> None:
    donor = next(s for s in body["seats"] if not s["eliminated"])
    donor["dirhams"] -= 1  # the total stays what the game began with
    seat["dirhams"] = 1


def a_rug_to_the_seat_out(body: dict[str, Any], seat: dict[str, Any]) -> None:
    seat["rugs_left"] = {seat["colors"][0]: 1}


@pytest.mark.parametrize(
    ("build", "change"),
    [
        (ended_by_an_elimination, a_dirham_to_the_seat_out),
        (a_seat_out_of_a_running_game, a_dirham_to_the_seat_out),
        (a_seat_out_of_a_running_game, a_rug_to_the_seat_out),
    ],
    ids=["2-players-over-dirham", "4-players-running-dirham", "4-players-running-rug"],
)
def test_an_eliminated_seat_has_0_dirhams_and_no_rugs(build: Any, change: Any) -> None:
    """FORMATS.md 3: "An eliminated seat has `dirhams` 0, every `rugs_left` 0"; a position
    that gives one money or a rug is refused."""
    body = build()
    from_position(body)
    seat = next(s for s in body["seats"] if s["eliminated"])
    change(body, seat)
    del body["scores"]  # optional: a writer that gives them gives them to match
    with pytest.raises(FormatError, match=f"eliminated seat {seat['seat']} must have 0 dirhams"):
        from_position(body)


@pytest.mark.parametrize(
    "change",
    [
        lambda pile: pile[1:],  # one rug fewer than rugs_left counts
        lambda pile: ["red", *pile],  # one red more
        lambda pile: ["red"] * 12 + ["blue"] * (len(pile) - 12),  # a blue swapped for a red
        lambda pile: ["yellow", *pile],  # the other seat's colour on top
    ],
    ids=["one-short", "one-more", "swapped", "another-seat-s-colour"],
)
def test_a_2_player_pile_holds_exactly_the_rugs_its_rugs_left_count(change: Any) -> None:
    """FORMATS.md 3: a 2-player seat's pile is its remaining rugs, so it holds as many of each
    colour as its rugs_left count, and no rug of another colour (which the seat would lay next,
    out of the other seat's rugs)."""
    state, _ = play(start(2), "S", "D1", "c2d2")
    body = to_position(state)
    seat = body["seats"][0]
    assert seat["rugs_left"] == {"red": 11, "blue": 12}
    from_position(body)
    seat["pile"] = change(seat["pile"])
    with pytest.raises(FormatError, match="seat 0's pile does not match its rugs_left"):
        from_position(body)


@pytest.mark.parametrize(
    ("players", "seat", "colors"),
    [
        (3, 0, ["yellow"]),
        (4, 3, ["blue"]),
        (2, 0, ["blue", "red"]),  # the right two, in the wrong order
        (2, 1, ["yellow"]),
    ],
)
def test_each_seat_has_the_colours_r1_gives_it(players: int, seat: int, colors: list[str]) -> None:
    """FORMATS.md 3, RULES R1: a seat's `colors`, if given, are its seat's colours in order;
    a position giving others is refused, not read as if it gave the right ones."""
    body = to_position(start(players))
    from_position(body)
    body["seats"][seat]["colors"] = colors
    with pytest.raises(FormatError, match=f"seat {seat} has the wrong colours"):
        from_position(body)


def test_a_finished_position_ranks_seats_out_latest_first_and_reads_back_their_order() -> None:
    """FORMATS.md 3: outcome.ranking puts eliminated seats after every seat still in, later
    eliminations first; reading it back gives the order in which they went out."""
    state, _ = play(start(4), "S", "D1", "c2d2")
    for seat in (1, 3, 2):  # out in this order, so neither seat order nor its reverse
        state, _ = resign(state, seat)
    assert state.outcome is not None
    assert state.outcome.ranking == ((0,), (2,), (3,), (1,))
    position = json.loads(json.dumps(to_position(state)))
    assert position["outcome"]["ranking"] == [[0], [2], [3], [1]]
    again = from_position(position)
    assert again.eliminated == (1, 3, 2)
    assert to_position(again) == position
    assert from_position({**position, "eliminated_order": [1, 3, 2]}) == again
    with pytest.raises(FormatError, match="does not follow"):
        from_position({**position, "eliminated_order": [3, 1, 2]})


def test_a_position_with_seats_out_while_the_game_goes_on_plays_on_to_the_same_ranking() -> None:
    """FORMATS.md 3: a position is enough to continue the game. With two seats out and the
    game going on, the order they went out in decides the ranking at the end (R9: later
    eliminations first), so the position keeps it and a state read from it ends the same."""
    state, _ = play(start(4), "S", "D1", "c2d2")
    state, _ = resign(state, 3)
    assert "eliminated_order" not in to_position(state), "one seat out: no order to keep"
    state, _ = resign(state, 1)  # out in this order, not in seat order
    assert not state.is_over
    position = json.loads(json.dumps(to_position(state)))
    again = from_position(position)
    assert again.eliminated == (3, 1)
    assert to_position(again) == position
    ended, _ = resign(state, 2)
    ended_again, _ = resign(again, 2)
    assert ended.outcome is not None
    assert ended.outcome.ranking == ((0,), (2,), (1,), (3,))
    assert ended_again.outcome == ended.outcome
    for wrong in ([3], [3, 3], [3, 1, 2], [3, "1"], "3,1"):
        with pytest.raises(FormatError, match="eliminated_order"):
            from_position({**position, "eliminated_order": wrong})


def base_position() -> dict[str, Any]:
    state, _ = play(start(3), "R", "D2", "f2f3")
    return to_position(state)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("format",), "marrakech-position/9", "not a marrakech-position/1"),
        (("players",), 7, "2, 3 or 4"),
        (("turn",), 10**30, "turn"),
        (("turn",), -1, "turn"),
        (("turn",), 0, '"turn" must be a whole number from 1'),  # the first turn is 1
        (("turn",), True, '"turn" must be a whole number'),  # true is not the number 1
        (("to_move",), True, '"to_move" must be a whole number'),
        (("phase",), "dance", '"phase" must be'),
        (("to_move",), 3, "to_move"),
        (("to_move",), None, "to_move"),
        (("assam",), "d4", "assam"),
        (("assam", "square"), "z9", "not a square"),
        (("assam", "facing"), "NE", "facing"),
        (("cells",), [[None] * 7] * 6, "7 rows"),
        (("cells", 0, 0), ["purple", 1], "colour"),
        (("cells", 0, 0), ["brown", 1], "not in this game"),
        (("cells", 0, 0), ["red", 0], "rug number"),
        (("cells", 0, 0), ["red", 10**20], "rug number"),
        (("cells", 0, 0), ["red", 1], "more than two squares"),  # rug 1 also on f2/f3
        (("cells", 0, 0), "red", "null or"),
        (("seats",), [], "all 3 seats"),
        (("seats", 0, "dirhams"), -5, "dirhams"),
        (("seats", 0, "dirhams"), 10**40, "dirhams"),
        (("seats", 0, "dirhams"), 31.5, "dirhams"),
        (("seats", 0, "rugs_left"), {"blue": 3}, "rugs_left"),
        (("seats", 0, "rugs_left"), {"red": 99}, "rugs"),
        (("seats", 0, "rugs_left"), {"red": 15}, "more red squares show than rugs_left says"),
        (("cells", 0, 0), ["red", 2], "more red squares show than rugs_left says"),  # 3 of 1 rug
        (("seats", 0, "dirhams"), True, "seat 0's dirhams must be a whole number"),
        (("seats", 0, "eliminated"), "no", "true or false"),
        (("seats", 1, "seat"), 0, "in order"),
        (("seats", 1, "seat"), True, "in order"),
        (("seats", 1, "rugs_left"), {"yellow": 0}, "holds no rug"),
        (("seats", 0, "pile"), ["red"], "only 2-player"),
        (("outcome",), {"ranking": [[0]], "reason": "x"}, "outcome"),
        (("scores", 0, "total"), 33, "scores"),
        (("scores", 1, "visible"), 2, "scores"),
        (("scores",), None, "scores"),
    ],
)
def test_hostile_positions_raise_format_error(
    path: tuple[Any, ...], value: Any, message: str
) -> None:
    """Wrong types, impossible boards, huge numbers: a clear FormatError each time."""
    body = base_position()
    set_path(body, path, value)
    with pytest.raises(FormatError, match=message):
        from_position(body)


def test_a_position_refuses_an_eliminated_seat_to_turn_assam() -> None:
    """R9, R12: a seat that is out takes no part in the game, so it cannot be the seat that
    turns Assam after laying (the rotate phase, where no rug needs to be held)."""
    state, _ = play(start(3, Variant.ROTATE_AFTER), "D2", "c3d3")
    position = json.loads(json.dumps(to_position(state)))
    assert (position["phase"], position["to_move"]) == ("rotate", 0)
    assert to_position(from_position(position)) == position
    position["seats"][0].update(dirhams=0, rugs_left={"red": 0}, eliminated=True)
    del position["scores"]
    with pytest.raises(FormatError, match="seat 0 is eliminated and cannot move"):
        from_position(position)


def test_positions_refuse_impossible_games() -> None:
    """Impossible states: a game with one player in that is not over; too many dirhams."""
    body = base_position()
    for seat in (0, 2):  # seat 1 is to move
        body["seats"][seat].update(eliminated=True, dirhams=0)
        body["seats"][seat]["rugs_left"] = {body["seats"][seat]["colors"][0]: 0}
    with pytest.raises(FormatError, match="fewer than two players"):
        from_position(body)
    body = base_position()
    body["cells"][1][5], body["cells"][0][0] = None, ["red", 1]  # rug 1 on a1 and f3
    with pytest.raises(FormatError, match="cannot be one rug"):
        from_position(body)
    body = base_position()
    body["seats"][0]["dirhams"] = 90
    with pytest.raises(FormatError, match="more dirhams"):
        from_position(body)
    body = base_position()  # one dirham more than the 30 each the game began with
    others = sum(seat["dirhams"] for seat in body["seats"][1:])
    body["seats"][0]["dirhams"] = 30 * len(body["seats"]) + 1 - others
    with pytest.raises(FormatError, match="more dirhams"):
        from_position(body)


def test_positions_refuse_one_rug_number_in_two_colours() -> None:
    """FORMATS.md 3: cells give each visible rug's colour and number, and one rug has one
    colour: a number shown in two colours is not one rug."""
    # red rug 1 on f2f3; yellow rug 2 on b2b3, then yellow rug 3 on b3b4 (over b3)
    body = to_position(board(3, [("f2f3", "red"), ("b2b3", "yellow"), ("b3b4", "yellow")]))
    body["turn"] = 4  # three turns laid the three rugs
    assert body["cells"][2][5] == ["red", 1]
    from_position(body)
    body["cells"][2][5] = ["yellow", 1]  # yellow has a square of its own laid rugs to spare
    del body["scores"]  # optional
    with pytest.raises(FormatError, match="rug 1 shows on two squares that cannot be one rug"):
        from_position(body)


@pytest.mark.parametrize(
    ("variant", "phase", "message"),
    [
        ("standard", "rotate", "standard rules have no rotate phase"),
        ("rotate-after", "orient", "the rotate-after variant has no orient phase"),
    ],
)
def test_positions_refuse_a_phase_their_variant_does_not_have(
    variant: str, phase: str, message: str
) -> None:
    """R4, R12: Assam turns before the roll in standard rules and after the rug in the
    rotate-after variant, never both: a position in the other phase is an impossible board."""
    body = base_position()
    body.update(variant=variant, phase=phase)
    with pytest.raises(FormatError, match=message):
        from_position(body)


def test_positions_refuse_an_end_the_rules_do_not_give() -> None:
    """R9, R11: "over" only when no player still in holds a rug or one player is left, and
    the reason must be the one the rules give."""
    finished = to_position(finished_game(3, Variant.STANDARD, 4))
    assert finished["outcome"]["reason"] == "rugs-exhausted"
    wrong_reason = copy.deepcopy(finished)
    wrong_reason["outcome"]["reason"] = "last-player-standing"
    with pytest.raises(FormatError, match="rugs-exhausted"):
        from_position(wrong_reason)
    early = base_position()  # turn 2: every seat still holds rugs
    ranking = [[s["seat"]] for s in sorted(early["scores"], key=lambda s: -s["total"])]
    early.update(phase="over", to_move=None)
    early["outcome"] = {"ranking": ranking, "reason": "rugs-exhausted"}
    with pytest.raises(FormatError, match="not over"):
        from_position(early)


def four_players_finished() -> dict[str, Any]:
    """Seat 0 is out; seats 1, 2 and 3 end on 42 + 10, 41 + 10 and 37 + 12."""
    return to_position(finished_game(4, Variant.STANDARD, 4))


def shared_first_place() -> dict[str, Any]:
    """The same position with seat 1 on 41 dirhams: seats 1 and 2 share first place on 51."""
    position = four_players_finished()
    assert position["outcome"]["ranking"] == [[1], [2], [3], [0]]
    assert [s["visible"] for s in position["scores"]] == [10, 10, 10, 12]
    assert [s["dirhams"] for s in position["seats"]] == [0, 42, 41, 37]
    position["seats"][1]["dirhams"] = 41
    del position["scores"]  # optional; the old ones no longer follow
    position["outcome"]["ranking"] = [[1, 2], [3], [0]]
    return position


def test_a_finished_position_reads_back_a_shared_place() -> None:
    """FORMATS.md 3, R11: seats equal on score and dirhams share one group of the ranking."""
    state = from_position(shared_first_place())
    assert state.outcome is not None
    assert (state.outcome.ranking, state.outcome.tie_break) == (((1, 2), (3,), (0,)), "shared")


@pytest.mark.parametrize(
    ("tied", "ranking"),
    [
        (False, [[1, 2], [3], [0]]),  # a shared first place for 52 and 51
        (True, [[1], [2], [3], [0]]),  # 51 and 51 split into two places
        (True, [[1, 2, 3], [0]]),  # seat 3's 49 let into the shared place
        (True, [[2, 1], [3], [0]]),  # the shared place's seats out of seat order
        (True, [[3], [1, 2], [0]]),  # 49 above 51
        (True, [[1, 2], [0], [3]]),  # the seat that is out above one still in
    ],
    ids=[
        "a-shared-place-invented",
        "a-shared-place-split",
        "a-lower-score-let-in",
        "shared-seats-out-of-order",
        "a-lower-score-first",
        "a-seat-out-above-one-in",
    ],
)
def test_positions_refuse_a_ranking_the_scores_do_not_give(
    tied: bool, ranking: list[list[int]]
) -> None:
    """FORMATS.md 3, R9, R11: outcome.ranking is the one the scores give, shared places
    included. A position that invents a shared place, splits a real one or orders the seats
    otherwise is refused, not read with a result the rules do not give."""
    position = shared_first_place() if tied else four_players_finished()
    position["outcome"]["ranking"] = ranking
    with pytest.raises(FormatError, match="does not follow from the scores"):
        from_position(position)


@pytest.mark.parametrize(
    ("variant", "phase"),
    [
        (Variant.ROTATE_AFTER, "rotate"),
        (Variant.ROTATE_AFTER, "roll"),
        (Variant.ROTATE_AFTER, "place"),
        (Variant.STANDARD, "orient"),
        (Variant.STANDARD, "roll"),
        (Variant.STANDARD, "place"),
    ],
)
def test_a_position_in_which_no_player_still_in_holds_a_rug_is_over(
    variant: Variant, phase: str
) -> None:
    """R11, R12: the game ends with the last rug laid, and no rotation is asked then. The
    final position rewritten as still running, with the seat that laid the last rug to act
    (in rotate-after, to turn Assam), is an impossible game."""
    position = to_position(finished_game(3, variant, 0))
    assert position["outcome"]["reason"] == "rugs-exhausted"
    last = max(cell[1] for row in position["cells"] for cell in row if cell)
    (color,) = {cell[0] for row in position["cells"] for cell in row if cell and cell[1] == last}
    (seat,) = [s["seat"] for s in position["seats"] if color in s["colors"]]
    position.update(phase=phase, to_move=seat, outcome=None)
    with pytest.raises(FormatError, match="no player still in holds a rug is over"):
        from_position(position)


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_to_move_is_null_when_the_game_is_over(seat: int) -> None:
    """FORMATS.md 3: `to_move` is `null` when over; a finished position naming a seat to move
    is refused."""
    body = to_position(finished_game(3, Variant.STANDARD, 4))
    assert (body["phase"], body["to_move"]) == ("over", None)
    from_position(body)
    body["to_move"] = seat
    with pytest.raises(FormatError, match='"to_move" must be null when the game is over'):
        from_position(body)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("turn",), 9),  # eight turns played, but only one rug on the board
        (("turn",), 3),  # two turns played, but only one rug on the board
        (("seats", 1, "rugs_left"), {"yellow": 13}),  # yellow laid two rugs: none shows
    ],
)
def test_positions_refuse_more_rugs_laid_than_the_board_numbers(
    path: tuple[Any, ...], value: Any
) -> None:
    """FORMATS.md 3: rugs are numbered in laying order and the newest always shows, so the
    highest number on the board counts the rugs laid: at least one a finished turn (less one a
    seat out), and at least every rug gone from the hands of the seats still in."""
    body = base_position()  # turn 2: red laid rug 1 on f2f3
    assert from_position(body).rugs_laid == 1
    set_path(body, path, value)
    with pytest.raises(FormatError, match="rugs laid"):
        from_position(body)


def test_positions_refuse_more_rugs_laid_than_the_turns_begun_could_lay() -> None:
    """FORMATS.md 3: `turn` counts the turns begun and a turn lays at most one rug, so at most
    `turn - 1` rugs show before the current turn's rug is laid (orient, roll, place), and at
    most `turn` after (rotate, over)."""
    body = base_position()  # turn 2, orient: red laid rug 1 in turn 1
    body["turn"] = 1
    with pytest.raises(FormatError, match="count 1 rugs laid: more than turn 1 can have laid"):
        from_position(body)
    state, _ = play(start(3, Variant.ROTATE_AFTER), "D2", "c2c3")
    assert (state.turn, state.phase, state.rugs_laid) == (1, Phase.ROTATE, 1)
    assert to_position(from_position(to_position(state))) == to_position(state)


def renumber(body: dict[str, Any], squares: str, number: int) -> None:
    """Show the rug on the two `squares` (a placement notation) as rug `number`."""
    for square in parse_placement(squares):
        cells = body["cells"][square // 7]
        cells[square % 7] = [cells[square % 7][0], number]


@pytest.mark.parametrize(
    ("build", "squares", "number", "most"),
    [
        (base_position, "f2f3", 2, 1),  # red's rug, the one rug gone from a hand
        (base_position, "f2f3", 48, 1),
        (a_seat_out_of_a_running_game, "c2d2", 14, 13),  # 1 from red's hand, 12 with the seat out
    ],
)
def test_no_rug_number_is_higher_than_the_rugs_gone_from_the_hands(
    build: Any, squares: str, number: int, most: int
) -> None:
    """FORMATS.md 3: rug_number is the order in which rugs were laid, so none is higher than
    the rugs gone from the hands (rugs_left), counting every rug of a seat out as gone."""
    body = build()
    renumber(body, squares, most)
    body["turn"] = most + 1  # the turns that laid them
    assert from_position(body).rugs_laid == most
    renumber(body, squares, number)
    with pytest.raises(FormatError, match=f"count {number} rugs laid: more than the {most} "):
        from_position(body)


@pytest.mark.parametrize("missing", ["format", "cells", "seats", "assam", "phase", "to_move"])
def test_positions_missing_a_field(missing: str) -> None:
    body = base_position()
    del body[missing]
    with pytest.raises(FormatError, match="lacks"):
        from_position(body)


DOCUMENTS = ("position", "position-2p", "record")


@functools.cache
def document(which: str) -> dict[str, Any]:
    """A record or position of a seeded game, built when a test first asks for it (not at
    collection, where a broken rule would stop the whole run instead of failing tests)."""
    if which == "record":
        return record_to_json(record_of(states_along(2, Variant.STANDARD, 3)[30]))
    if which == "position":
        return to_position(finished_game(3, Variant.ROTATE_AFTER, 4))
    return to_position(states_along(2, Variant.STANDARD, 9)[40])


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(which=st.sampled_from(DOCUMENTS), data=st.data())
def test_mutated_documents_raise_only_format_errors(which: str, data: st.DataObject) -> None:
    """Any document with some values replaced by random JSON either loads or raises
    FormatError/ReplayError: never KeyError, IndexError, TypeError or AssertionError."""
    body = copy.deepcopy(document(which))
    mutate(body, data)
    with contextlib.suppress(FormatError, ReplayError):
        if which == "record":
            replay_record(record_from_json(body))
        else:
            state = from_position(body)
            to_position(state)
            for _ in range(3):
                actions = legal_actions(state)
                if not actions:
                    break
                state, _ = apply(state, actions[0])


@given(st.one_of(JSON, st.dictionaries(st.sampled_from(sorted(VALID_RECORD)), JSON)))
@settings(max_examples=80, deadline=None, derandomize=True, database=None)
def test_random_json_is_never_a_crash(value: Any) -> None:
    """Random JSON values given as records or positions raise FormatError at worst."""
    for reader in (record_from_json, from_position):
        with contextlib.suppress(FormatError):
            reader(value)
