"""Players' names in the panel: drawn exactly where the bundled font can, never as tofu where
it cannot, shortened to fit, and readable back from the panel's model."""

from __future__ import annotations

import unicodedata

import pytest
from PIL import Image

from engine import record_of
from render import palette, render_board, render_game_over, replay_frames
from render.board import board_image
from render.demo import UKRAINIAN
from render.fonts import covers, font
from render.layout import DEFAULT_SIZE, layout
from render.names import ELLIPSIS, display_name, drawable, fit_name, shorten
from render.panel import PanelModel, panel_model
from render.samples import Moment, at_turn
from render.text import width

from .conftest import decode

MISSING = "\U000e0100"  # a code point DejaVu has no glyph for: drawn as the .notdef box

LONG = "Maximilian Alexander von Hohenzollern-Sigmaringen"
# Latin with accents, Cyrillic, Greek, CJK: the font has the first three, not the last.
SCRIPTS = ("Zoë Ñúñez-Ångström", "Дмитро Їжак", "Γιώργος", "李小龙")
SCRIPTS_SHOWN = ["Zoë Ñúñez-Ångström", "Дмитро Їжак", "Γιώργος", "Seat 4"]
# Emoji around a name, a very long name, emoji only, a plain AI label.
ODD = ("🌸 Anna ✨", LONG, "🎲🎲", "AI (hard)")


FULLWIDTH = "\uff21\uff29\u3000\uff48\uff41\uff52\uff44"  # "AI hard", fullwidth
# "Bold Script" in mathematical bold, then bold script, letters.
MATHEMATICAL = (
    "\U0001d401\U0001d428\U0001d425\U0001d41d "
    "\U0001d4e2\U0001d4ec\U0001d4fb\U0001d4f2\U0001d4f9\U0001d4fd"
)


def _notdef(size: int = 40, bold: bool = False) -> bytes:
    mask = font(size, bold=bold).getmask(MISSING)
    return bytes(mask) + repr(mask.size).encode()


def _glyph(char: str, size: int = 40, bold: bool = False) -> bytes:
    mask = font(size, bold=bold).getmask(char)
    return bytes(mask) + repr(mask.size).encode()


def _assert_no_tofu(model: PanelModel) -> None:
    """Every character the panel draws has a glyph in the face it is drawn with: by the
    font's character map, and by its rendering, which differs from the .notdef box."""
    for text in model.texts:
        for char in text.text:
            if char == " ":
                continue
            assert covers(char, bold=text.bold), (text.text, char)
            assert _glyph(char, bold=text.bold) != _notdef(bold=text.bold), (text.text, char)


def _text_pixels(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    """How many pixels of the panel's text colour lie inside `box`."""
    crop = image.crop(box).convert("RGB")
    data = crop.tobytes()
    return sum(1 for i in range(0, len(data), 3) if tuple(data[i : i + 3]) == palette.TEXT)


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (SCRIPTS, SCRIPTS_SHOWN),
        (ODD, ["Anna", LONG, "Seat 3", "AI (hard)"]),
    ],
    ids=["scripts", "emoji-and-long"],
)
def test_a_render_test_reads_the_panels_names(
    midgame: Moment, names: tuple[str, ...], shown: list[str]
) -> None:
    state = midgame.state
    geometry = layout(DEFAULT_SIZE, 4)
    model = panel_model(state, names=names)
    read = model.names()
    for got, expected in zip(read, shown, strict=True):
        if expected == LONG:  # cut where it stops fitting, after a good part of it
            assert got.endswith(ELLIPSIS), got
            assert LONG.startswith(got[:-1]), got
            assert len(got) >= 15
        else:
            assert got == expected
    _assert_no_tofu(model)
    image = board_image(state, names=names)
    name_texts = [text for text in model.texts if text.role == "name"]
    assert [text.seat for text in name_texts] == [0, 1, 2, 3]
    for text in name_texts:
        x0, _, x1, _ = text.box
        assert geometry.panel_box[0] <= x0 < x1 <= geometry.panel_box[2]
        assert width(text.text, text.size) <= x1 - x0  # fits its place, ellipsis included
        assert text.size >= 20  # readable: about 8 px or more on a 390 px wide phone
        assert _text_pixels(image, text.box) > 40, text.text


def test_names_show_in_the_final_ranking_in_ranking_order(game_over: Moment) -> None:
    state = game_over.state
    outcome = state.outcome
    assert outcome is not None
    model = panel_model(state, names=SCRIPTS, final=True)
    order = [seat for group in outcome.ranking for seat in group]
    assert model.names() == [SCRIPTS_SHOWN[seat] for seat in order]
    assert model.lines()[:2] == ["Game over", "all rugs laid"]
    _assert_no_tofu(model)
    image = decode(render_game_over(state, names=SCRIPTS))
    for text in model.texts:
        if text.role == "name":
            assert _text_pixels(image, text.box) > 40, text.text


def test_without_names_the_seats_keep_their_labels(midgame: Moment) -> None:
    assert panel_model(midgame.state).names() == [f"Seat {n}" for n in (1, 2, 3, 4)]
    ukrainian = panel_model(midgame.state, labels=UKRAINIAN)
    assert ukrainian.names() == [f"Гравець {n}" for n in (1, 2, 3, 4)]
    assert render_board(midgame.state, names=None) == render_board(midgame.state)
    assert render_board(midgame.state, names=SCRIPTS) != render_board(midgame.state)


def test_names_are_read_in_the_portrait_panel_too(midgame: Moment) -> None:
    model = panel_model(midgame.state, size=560, portrait=True, names=SCRIPTS)
    assert model.names() == SCRIPTS_SHOWN
    _assert_no_tofu(model)


def test_replay_frames_carry_the_names() -> None:
    moment = at_turn(2, seed=5, turn=3)
    frames = replay_frames(record_of(moment.state), names=("Ana", "Борис"))
    plain = replay_frames(record_of(moment.state))
    assert len(frames) == len(plain)
    assert all(a.tobytes() != b.tobytes() for a, b in zip(frames, plain, strict=True))


@pytest.mark.parametrize("bad", [("Ana",), ("A", "B", "C", "D", "E"), "ABCD"])
def test_names_must_be_one_per_seat(midgame: Moment, bad: object) -> None:
    with pytest.raises(ValueError, match="one string per seat"):
        render_board(midgame.state, names=bad)  # type: ignore[arg-type]


def test_same_names_give_the_same_bytes(midgame: Moment) -> None:
    first = render_board(midgame.state, events=midgame.events, names=ODD)
    assert first == render_board(midgame.state, events=midgame.events, names=ODD)


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Zoë Ångström", "Zoë Ångström"),
        ("Jürgen Łukasz Çelik", "Jürgen Łukasz Çelik"),
        ("Дмитро Їжак", "Дмитро Їжак"),
        ("Γιώργος Παπαδόπουλος", "Γιώργος Παπαδόπουλος"),
        ("e\u0301lodie", "élodie"),  # decomposed accent: composed, drawn as one letter
        ("李小龙", ""),
        ("Anna 🌸", "Anna"),
        ("👨\u200d👩\u200d👧 fam", "fam"),  # emoji joined by zero-width joiners
        ("🇫🇷 Jean", "Jean"),  # a flag (regional indicators)
        ("❤️ Love", "❤ Love"),  # the font's own heart, without the emoji variation selector
        (FULLWIDTH, "AI hard"),  # fullwidth letters and ideographic space
        (MATHEMATICAL, "Bold Script"),  # mathematical bold and bold script letters
        ("A̶l̶i̶c̶e̶", "Alice"),  # strike-through combining marks
        ("שלום", ""),  # right to left: not drawn backwards
        ("سارة Sara", "Sara"),  # Arabic letters: neither backwards nor unjoined
        ("Ali ٣٤", "Ali"),  # Arabic-Indic digits, laid out right to left among Arabic
        ("🌸-🌸", ""),  # nothing but punctuation left
        ("...", "..."),  # punctuation as given is kept
        ("  spaced \t out  ", "spaced out"),
        ("Ann\nBob", "Ann Bob"),  # a line break is drawn as a space
        ("Ann\r\nBob", "Ann Bob"),
        ("\u202eevil", "evil"),  # a direction override
        ("", ""),
    ],
)
def test_drawable_keeps_replaces_or_drops_each_character(name: str, shown: str) -> None:
    assert drawable(name) == shown
    for char in shown:
        assert char == " " or covers(char)


def test_every_covered_printable_character_is_kept_and_has_a_real_glyph() -> None:
    notdef = _notdef(24)
    kept = 0
    for code in range(0x20, 0x3000):
        char = chr(code)
        category = unicodedata.category(char)
        if category[0] not in "LNPS" or not covers(char):
            continue
        if unicodedata.bidirectional(char) in ("R", "AL", "AN"):
            continue
        expected = unicodedata.normalize("NFC", f"a{char}")  # e.g. U+0374 is U+02B9 in NFC
        assert drawable(f"a{char}") == expected, hex(code)
        assert _glyph(char, 24) != notdef, hex(code)
        kept += 1
    assert kept > 3000


def test_a_name_with_nothing_drawable_falls_back_to_the_seat_label() -> None:
    assert display_name("李小龙", "Seat 2") == "Seat 2"
    assert display_name(None, "Гравець 2") == "Гравець 2"
    assert display_name("Ли 李", "Seat 2") == "Ли"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("7\ufe0f\u20e3", "7"),  # a keycap keeps its digit
        ("1\ufe0f\u20e32\ufe0f\u20e3", "12"),
        ("🎲 42 🎲", "42"),
        ("李 2024", "2024"),
    ],
    ids=["keycap", "keycaps", "emoji-around-digits", "ideograph-and-digits"],
)
def test_a_name_left_with_only_digits_after_something_was_dropped_is_shown(
    name: str, shown: str
) -> None:
    """A digit counts as much as a letter: the seat's label replaces only a name left with no
    letter, digit or symbol."""
    assert drawable(name) == shown
    assert display_name(name, "Seat 2") == shown


def test_long_names_are_cut_with_an_ellipsis_to_fit() -> None:
    cut = shorten(LONG, 30, 200)
    assert cut.endswith(ELLIPSIS)
    assert LONG.startswith(cut[:-1])
    assert width(cut, 30) <= 200
    longer = LONG[: len(cut)]  # one more letter than the cut kept (past a space if need be)
    longer = LONG[: len(longer) + 1] if longer.endswith(" ") else longer
    assert width(longer + ELLIPSIS, 30) > 200
    assert shorten("Ana", 30, 200) == "Ana"
    text, size = fit_name("Maximilian", 30, 150)  # shrinks a little before cutting
    assert text == "Maximilian"
    assert 24 <= size < 30
    text, size = fit_name(LONG, 30, 150)
    assert text.endswith(ELLIPSIS)
    assert size == 24
