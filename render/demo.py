"""`python -m render.demo OUTDIR`: write sample pictures of seeded games to OUTDIR.

Files: opening.png (the ways to turn Assam, as arrows), midgame-candidates.png, two-player.png,
rotate-after.png, elimination.png, game-over.png, cyrillic.png (panel words and names in
Ukrainian), names.png (names in several scripts, with emoji and CJK that the font lacks, and a
name too long for its place, at the moment a player turns Assam), phone.png (names.png shrunk
to a phone's width, 390 px, to judge what stays readable), portrait.png (the panel below the
board, as replay frames have it), replay.gif, and the elimination board as seen with
protanopia, deuteranopia and tritanopia (simulated: seen-<kind>.png).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from engine import Phase, RugPlaced, Variant, record_of
from engine.cli import run_cli
from render.board import board_image, marks_from_events, render_board, render_game_over
from render.encode import encode_png
from render.panel import Labels
from render.replay import render_replay
from render.samples import at_turn, elimination, finished, first_moment, new_sample
from render.vision import DEFICIENCIES, simulate_image

PHONE_WIDTH = 390
NAMES = ("Amina", "Dmitro", "Zoë", "AI (hard)")
# Latin with accents, Cyrillic, Greek, CJK (not in the bundled font) and a long name with
# emoji: what players' display names look like.
WORLD_NAMES = (
    "Zoë Ñúñez",
    "Дмитро Їжак",
    "李小龙",
    "Γιώργος 🎲 Αλεξανδρόπουλος-Παπαδόπουλος",
)
UKRAINIAN = Labels(
    seat="Гравець {n}",
    turn="Хід {n}",
    dirhams="дирхами",
    rugs="килими",
    visible="видно",
    score="очки",
    out="вибув",
    rank="#{n}",
    game_over="Гра закінчена",
    rugs_exhausted="килими скінчилися",
    last_player_standing="залишився один",
    shared="спільна перемога",
    dirhams_tie_break="нічия: вирішили дирхами",
)


def write_samples(outdir: Path) -> list[Path]:
    """Render every sample into `outdir` (created if needed); return the files written."""
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(name: str, data: bytes) -> None:
        path = outdir / name
        path.write_bytes(data)
        written.append(path)

    opening, _ = new_sample(4, seed=1)
    save("opening.png", render_board(opening, show_choices=True, names=NAMES))
    mid = at_turn(4, seed=7, turn=20)
    save(
        "midgame-candidates.png",
        render_board(mid.state, events=mid.events, show_candidates=True, names=NAMES),
    )
    two = at_turn(2, seed=3, turn=18)
    save(
        "two-player.png",
        render_board(two.state, events=two.events, show_candidates=True, names=NAMES[2:]),
    )
    rotate = at_turn(3, seed=4, turn=12, phase=Phase.ROTATE, variant=Variant.ROTATE_AFTER)
    save("rotate-after.png", render_board(rotate.state, events=rotate.events, show_choices=True))
    out = elimination(seed=1)
    save("elimination.png", render_board(out.state, events=out.events, names=NAMES))
    seen = board_image(out.state, marks_from_events(out.events), names=NAMES)
    for kind in DEFICIENCIES:
        save(f"seen-{kind}.png", encode_png(simulate_image(seen, kind)))
    end = finished(4, seed=7)
    save("game-over.png", render_game_over(end.state, events=end.events, names=WORLD_NAMES))
    cyrillic = at_turn(3, seed=11, turn=14)
    save(
        "cyrillic.png",
        render_board(
            cyrillic.state,
            events=cyrillic.events,
            show_candidates=True,
            labels=UKRAINIAN,
            names=("Оксана", "Богдан", "ШІ (складний)"),
        ),
    )
    orient = first_moment(
        4,
        range(5, 40),
        lambda m: (
            m.state.turn >= 15
            and m.state.phase is Phase.ORIENT
            and any(isinstance(e, RugPlaced) for e in m.events)
        ),
    )
    names = render_board(orient.state, events=orient.events, show_choices=True, names=WORLD_NAMES)
    save("names.png", names)
    shrunk = io.BytesIO()
    phone_size(names).save(shrunk, format="PNG")  # every colour of the shrinking kept
    save("phone.png", shrunk.getvalue())
    save(
        "portrait.png",
        render_board(mid.state, events=mid.events, names=NAMES, size=560, portrait=True),
    )
    save("replay.gif", render_replay(record_of(end.state), names=WORLD_NAMES))
    return written


def phone_size(png: bytes) -> Image.Image:
    """A PNG picture shrunk to a phone screen's width (PHONE_WIDTH), as an RGB image."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    height = round(image.height * PHONE_WIDTH / image.width)
    return image.resize((PHONE_WIDTH, height), Image.Resampling.LANCZOS)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m render.demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("outdir", metavar="OUTDIR", type=Path, help="the folder to write to")
    arguments = parser.parse_args(argv)
    for path in write_samples(arguments.outdir):
        print(f"{path} {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(lambda: main(sys.argv[1:])))
