"""The light state of conformance vectors (FORMATS.md 4) read into a GameState, and written back.

A light state names rugs by `(colour letter, rug_id)` pairs and players by arbitrary colour
letters, listed in seat order. Reading one maps the letter of seat k to colour index k (so
seat k owns it, whatever the player count) and each distinct pair to a rug number (in reading
order of the squares showing it). The GameState built is a plain snapshot for rule queries:
phase PLACE, seat 0 to move, no history; only the board, Assam, dirhams, rugs left and who is
still in carry meaning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.board import SIZE, SQUARES
from engine.checks import fields, grid, whole_number
from engine.errors import FormatError
from engine.model import Facing, GameConfig, Phase, Variant
from engine.state import GameState

MAX_COUNT = 1_000_000
"""Largest dirhams or rugs count a light state may give (anything above is refused)."""

FACINGS = ("N", "E", "S", "W")


@dataclass(frozen=True, slots=True)
class LightState:
    """A light state read into the engine: the GameState, the seats' letters, the rugs' names."""

    state: GameState
    letters: tuple[str, ...]
    rug_names: dict[int, tuple[str, int]]
    """rug number -> (colour letter, rug_id)."""

    def rug_number(self, letter: str, rug_id: int) -> int | None:
        """The number of the visible rug named `(letter, rug_id)`, or None if none shows."""
        for number, name in self.rug_names.items():
            if name == (letter, rug_id):
                return number
        return None


def _count(value: object, what: str) -> int:
    return whole_number(value, what, 0, MAX_COUNT)


def read_square(raw: object, what: str = "a square") -> int | None:
    """`{"row": r, "col": c}` -> square number, or None when it lies off the board."""
    cell = fields(raw, what, ("row", "col"))
    row, col = cell["row"], cell["col"]
    if type(row) is not int or type(col) is not int:
        raise FormatError(f"{what}'s row and col must be whole numbers")
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        return None
    return row * SIZE + col


def read_assam(raw: object) -> tuple[int, Facing]:
    """`{"row", "col", "facing"}` -> (square, facing). Assam must stand on the board."""
    assam = fields(raw, '"assam"', ("row", "col", "facing"))
    square = read_square(assam, '"assam"')
    if square is None:
        raise FormatError("Assam must stand on the board")
    facing = assam["facing"]
    if not isinstance(facing, str) or facing not in FACINGS:
        raise FormatError("Assam's facing must be N, E, S or W")
    return square, Facing(FACINGS.index(facing))


def write_assam(square: int, facing: int) -> dict[str, Any]:
    """(square, facing) -> `{"row", "col", "facing"}`, as a light state names Assam."""
    return {"row": square // SIZE, "col": square % SIZE, "facing": FACINGS[facing]}


def read_light(raw: object) -> LightState:
    """Read a case input holding `board`, `assam` and `players`. Raises FormatError."""
    body = fields(raw, "the input", ("board", "assam", "players"))
    players = body["players"]
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise FormatError('"players" must list 2 to 4 players')
    letters: list[str] = []
    dirhams: list[int] = []
    stock = [0, 0, 0, 0]
    eliminated: list[int] = []
    for seat, item in enumerate(players):
        what = f"player {seat}"
        player = fields(item, what, ("color", "dirhams", "rugs_left", "in_game"))
        letter = player["color"]
        if not isinstance(letter, str) or not letter or letter in letters:
            raise FormatError(f"{what}'s color must be a letter no other player has")
        letters.append(letter)
        dirhams.append(_count(player["dirhams"], f"{what}'s dirhams"))
        stock[seat] = _count(player["rugs_left"], f"{what}'s rugs_left")
        if not isinstance(player["in_game"], bool):
            raise FormatError(f"{what}'s in_game must be true or false")
        if not player["in_game"]:
            eliminated.append(seat)
    cells, colors, names = _read_board(body["board"], letters)
    square, facing = read_assam(body["assam"])
    state = GameState(
        config=GameConfig(len(players), Variant.STANDARD, 0, None),
        turn=1,
        phase=Phase.PLACE,
        to_move=0,
        assam=square,
        facing=facing,
        cells=tuple(cells),
        colors=tuple(colors),
        dirhams=tuple(dirhams),
        stock=tuple(stock),
        piles=None,
        eliminated=tuple(eliminated),
        rugs_laid=len(names),
        last_roll=None,
        outcome=None,
        history=(),
    )
    return LightState(state, tuple(letters), names)


def _read_board(
    raw: object, letters: list[str]
) -> tuple[list[int], list[int], dict[int, tuple[str, int]]]:
    cells = [0] * SQUARES
    colors = [-1] * SQUARES
    numbers: dict[tuple[str, int], int] = {}
    for square, item in grid(raw, '"board"'):
        row, col = divmod(square, SIZE)
        what = f"board cell row {row} col {col}"
        cell = fields(item, what, ("color", "rug_id"))
        letter, rug_id = cell["color"], cell["rug_id"]
        if letter not in letters:
            raise FormatError(f"{what} shows a colour no player has")
        name = (letter, _count(rug_id, f"{what}'s rug_id"))
        number = numbers.setdefault(name, len(numbers) + 1)
        cells[square] = number
        colors[square] = letters.index(letter)
    return cells, colors, {number: name for name, number in numbers.items()}


def write_light(light: LightState, state: GameState) -> dict[str, Any]:
    """`state` (derived from `light`) as a light state; new rugs must be named in rug_names."""
    board: list[list[dict[str, Any] | None]] = []
    for row in range(SIZE):
        line: list[dict[str, Any] | None] = []
        for col in range(SIZE):
            number = state.cells[row * SIZE + col]
            if number:
                letter, rug_id = light.rug_names[number]
                line.append({"color": letter, "rug_id": rug_id})
            else:
                line.append(None)
        board.append(line)
    return {
        "board": board,
        "assam": write_assam(state.assam, state.facing),
        "players": [
            {
                "color": letter,
                "dirhams": state.dirhams[seat],
                "rugs_left": state.stock[seat],
                "in_game": not state.is_eliminated(seat),
            }
            for seat, letter in enumerate(light.letters)
        ],
    }
