"""The seat panel: as laid out (render.panel.panel_model), read back without pixels, the turn
in the title, each seat's numbers under the columns they count, the final ranking's places and
why the game ended, a seat that is out (its dirhams, then the word for "out";
test_panel_languages.py has it in every language), and the die of the turn; as drawn, the
die's pips, the seat to move marked, the colour each seat lays next framed in two players and
a seat out veiled."""

from __future__ import annotations

from typing import cast

import pytest
from PIL import Image, ImageChops

import engine
from engine import Color, GameConfig, GameState, Phase, Variant, apply, new_game
from render import palette
from render.board import board_image
from render.palette import rug_style
from render.panel import panel_model
from render.samples import Moment, at_turn
from render.sprites import rug_piece


def ranks(state: engine.GameState) -> list[tuple[int | None, str]]:
    return [(t.seat, t.text) for t in panel_model(state, final=True).texts if t.role == "rank"]


def test_the_final_ranking_counts_places_from_one_and_ties_share_theirs(
    game_over: Moment,
) -> None:
    outcome = engine.Outcome(
        ranking=((2,), (0, 3), (1,)), reason="rugs-exhausted", tie_break="score"
    )
    state = game_over.state._replace(outcome=outcome)
    assert ranks(state) == [(2, "#1"), (0, "#2"), (3, "#2"), (1, "#4")]


@pytest.mark.parametrize(
    ("tie_break", "reason"),
    [
        ("score", "all rugs laid"),
        ("dirhams", "all rugs laid · tie broken by dirhams"),
        ("shared", "all rugs laid · shared win"),
    ],
)
def test_the_final_panel_says_why_the_game_ended_and_how_first_place_was_settled(
    game_over: Moment, tie_break: str, reason: str
) -> None:
    outcome = engine.Outcome(ranking=((0, 1, 2, 3),), reason="rugs-exhausted", tie_break=tie_break)
    for portrait in (False, True):
        model = panel_model(
            game_over.state._replace(outcome=outcome), final=True, portrait=portrait
        )
        lines = [t.text for t in model.texts if t.role == "reason"]
        assert " ".join(lines) == reason, "on one line or more, in its order"


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
def test_the_title_names_the_turn_the_game_is_at(midgame: Moment, portrait: bool) -> None:
    """Turns count from 1, as the engine counts them: a new game's picture says Turn 1."""
    opening = new_game(GameConfig(4, Variant.STANDARD, 0))
    for state, title in ((opening, "Turn 1"), (midgame.state, f"Turn {midgame.state.turn}")):
        texts = panel_model(state, portrait=portrait).texts
        assert [t.text for t in texts if t.role == "title"] == [title]


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
@pytest.mark.parametrize("final", [False, True], ids=["live", "final"])
def test_each_seat_s_numbers_stand_under_the_columns_they_count(
    midgame: Moment, game_over: Moment, portrait: bool, final: bool
) -> None:
    """Every seat still in shows, right-aligned under each column's name, its dirhams, the
    rugs it has left, its visible squares and its score, as the engine counts them."""
    state = game_over.state if final else midgame.state
    texts = panel_model(state, portrait=portrait, final=final).texts
    columns = {t.box[2]: t.text for t in texts if t.role == "column"}
    assert list(columns.values()) == ["dirhams", "rugs", "visible", "score"]
    for seat, score in enumerate(engine.scores(state)):
        if state.is_eliminated(seat):
            continue  # its dirhams, then the word for "out" (below)
        shown = {columns[t.box[2]]: t.text for t in texts if t.role == "number" and t.seat == seat}
        counted = (score.dirhams, state.rugs_in_hand(seat), score.visible, score.total)
        assert shown == dict(zip(columns.values(), map(str, counted), strict=True)), seat
    assert any(
        state.rugs_in_hand(seat) != score.visible for seat, score in enumerate(engine.scores(state))
    ), "the sample tells the rugs left from the visible squares"


def test_a_seat_that_is_out_shows_its_dirhams_then_out_in_place_of_its_other_numbers(
    eliminated: Moment,
) -> None:
    state = eliminated.state
    (seat, *_) = state.eliminated
    texts = panel_model(state).texts
    row = [(t.role, t.text) for t in texts if t.seat == seat and t.role != "name"]
    assert row == [("number", str(engine.scores(state)[seat].dirhams)), ("out", "out")]
    others = [t.text for t in texts if t.role in ("number", "out") and t.seat != seat]
    assert "out" not in others


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
@pytest.mark.parametrize("final", [False, True], ids=["live", "final"])
def test_the_name_of_a_seat_that_is_out_is_struck_through_and_no_other(
    eliminated: Moment, out_at_the_end: Moment, portrait: bool, final: bool
) -> None:
    """During the game (every turn's picture) as on the final panel, in both layouts: a line
    in the dim ink runs through the swatches and the name of the seat that is out, and of no
    other seat."""
    state = out_at_the_end.state if final else eliminated.state
    (out,) = state.eliminated
    model = panel_model(state, portrait=portrait, final=final)
    struck = {entry.seat: entry.strike for entry in model.seats}
    assert [seat for seat, strike in struck.items() if strike is not None] == [out]
    strike = struck[out]
    assert strike is not None
    x0, x1, y = strike
    (name,) = [t for t in model.texts if t.role == "name" and t.seat == out]
    assert x0 < name.box[0] < x1, "from the swatches through the name"
    image = board_image(state, portrait=portrait, final=final)
    inked = sum(image.getpixel((x, y)) == palette.TEXT_DIM for x in range(x0, x1 + 1))
    assert inked == x1 - x0 + 1


def test_the_die_shows_while_its_roll_is_being_played_and_not_on_the_final_panel(
    midgame: Moment, game_over: Moment
) -> None:
    placing = midgame.state
    for portrait in (False, True):
        die = panel_model(placing, portrait=portrait).die
        assert die is not None
        assert die[3] == placing.last_roll
        assert game_over.state.last_roll is not None, "the last turn's roll is kept"
        assert panel_model(game_over.state, final=True, portrait=portrait).die is None


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
def test_the_die_still_shows_while_assam_turns_after_the_rug(portrait: bool) -> None:
    """The turn after the rug (rotate-after) is the rest of the turn the die was rolled for:
    the panel keeps showing that roll."""
    turning = at_turn(3, 7, 4, phase=Phase.ROTATE, variant=Variant.ROTATE_AFTER).state
    assert turning.phase is Phase.ROTATE
    assert turning.last_roll is not None
    die = panel_model(turning, portrait=portrait).die
    assert die is not None
    assert die[3] == turning.last_roll


def _dark_spots(image: Image.Image) -> int:
    """How many separate dark spots (pixels nearer INK than the die's light face, touching
    side by side) `image` shows."""
    middle = (sum(palette.INK) + sum(palette.TEXT)) // 2
    rgb = image.convert("RGB")
    dark = {
        (x, y)
        for x in range(rgb.width)
        for y in range(rgb.height)
        if sum(cast(tuple[int, int, int], rgb.getpixel((x, y)))) < middle
    }
    spots = 0
    while dark:
        spots += 1
        todo = [dark.pop()]
        while todo:
            x, y = todo.pop()
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in dark:
                    dark.remove(near)
                    todo.append(near)
    return spots


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
@pytest.mark.parametrize("face", [1, 2, 3, 4])
def test_the_die_shows_as_many_pips_as_the_roll(midgame: Moment, portrait: bool, face: int) -> None:
    """A player reads the roll off the picture: inside its rim, the die drawn has one dark
    pip per point rolled."""
    state = midgame.state._replace(last_roll=face)
    die = panel_model(state, portrait=portrait).die
    assert die is not None
    x, y, side, shown = die
    assert shown == face
    rim = round(side * 0.12)
    inside = board_image(state, portrait=portrait).crop(
        (x + rim, y + rim, x + side - rim, y + side - rim)
    )
    assert _dark_spots(inside) == face


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
def test_the_seat_to_move_and_it_alone_is_marked(midgame: Moment, portrait: bool) -> None:
    """Whose turn it is shows on the panel beside the board (every turn's picture) and below
    it (a replay's frames): the seat to move, and no other, has the lighter card and the
    triangle at its marker."""
    state = midgame.state
    model = panel_model(state, portrait=portrait)
    assert [entry.seat for entry in model.seats if entry.active] == [state.to_move]
    image = board_image(state, portrait=portrait)
    for entry in model.seats:
        x, mid, size = entry.marker
        inside = image.getpixel((round(x + size * 0.3), round(mid)))
        card = image.getpixel((round(x - size * 0.3), round(mid)))
        marked = (inside, card) == (palette.TEXT, palette.PANEL_ACTIVE)
        assert marked == (entry.seat == state.to_move), (entry.seat, inside, card)


def swatch_boxes(state: engine.GameState) -> list[tuple[int, engine.Color, tuple[int, int]]]:
    """(seat, colour, (x, y)) for every swatch the live panel draws: its left edge, halfway
    down (a frame passes 2 px left of it)."""
    found = []
    for entry in panel_model(state).seats:
        x, mid = entry.swatches
        for color in engine.seat_colors(state.players, entry.seat):
            found.append((entry.seat, color, (round(x), round(mid))))
            x += rug_piece(entry.swatch_side, rug_style(color), (1, 1)).width
            x += round(entry.swatch_side * 0.35)
    return found


def framed_swatches(state: GameState) -> set[tuple[int, Color]]:
    """The (seat, colour) swatches the panel of `state` frames."""
    image = board_image(state)
    return {
        (seat, color)
        for seat, color, (x, mid) in swatch_boxes(state)
        if image.getpixel((x - 2, mid)) == palette.TEXT
    }


def test_in_two_players_the_colour_the_seat_to_move_lays_is_framed(two_player: Moment) -> None:
    state = two_player.state
    assert state.to_move is not None
    assert framed_swatches(state) == {(state.to_move, state.next_rug_color(state.to_move))}


def test_in_two_players_a_rug_the_rules_still_hide_changes_nothing_in_the_picture() -> None:
    """R2: a pile's top rug is revealed at the start of its player's turn. Two games that differ
    only in the rival's top rug, at the mover's turn, and (rotate-after) in the mover's second
    rug while it turns Assam after laying its first, are drawn alike."""
    red, blue, yellow, brown = Color.RED, Color.BLUE, Color.YELLOW, Color.BROWN
    rivals = []
    for top, other in ((yellow, brown), (brown, yellow)):
        piles = ((red, blue) * 12, (top, other) * 12)
        state = new_game(GameConfig(2, Variant.STANDARD, 0, piles))
        assert (state.to_move, state.phase) == (0, Phase.ORIENT)
        assert framed_swatches(state) == {(0, red)}, "the mover's own top rug is shown"
        rivals.append(board_image(state).convert("RGB"))
    assert ImageChops.difference(*rivals).getbbox() is None, "the rival's top rug shows"
    rotating = []
    for second in (red, blue):
        rest = [red] * (11 - (second is red)) + [blue] * (12 - (second is blue))
        shuffled = ((red, second, *rest), (yellow, brown) * 12)
        state = new_game(GameConfig(2, Variant.ROTATE_AFTER, 0, shuffled))
        for action in ("D2", "c3d3"):
            state, _ = apply(state, action)
        assert (state.to_move, state.phase) == (0, Phase.ROTATE)
        assert framed_swatches(state) == set()
        rotating.append(board_image(state).convert("RGB"))
    assert ImageChops.difference(*rotating).getbbox() is None, "the mover's next rug shows early"


def test_a_seat_that_is_out_has_its_colours_veiled(eliminated: Moment) -> None:
    state = eliminated.state
    image = board_image(state)
    side = panel_model(state).seats[0].swatch_side
    for seat, color, (x, mid) in swatch_boxes(state):
        top = mid - side // 2
        fill = rug_style(color).fill
        pure = sum(
            image.getpixel((x + dx, top + dy)) == fill for dx in range(side) for dy in range(side)
        )
        if state.is_eliminated(seat):
            assert pure == 0, (seat, color)
        else:
            assert pure > 0, (seat, color)
