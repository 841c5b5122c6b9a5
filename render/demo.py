"""`python -m render.demo OUTDIR`: write sample pictures of seeded games to OUTDIR.

Files: opening.png, midgame-candidates.png, two-player.png, rotate-after.png, elimination.png,
game-over.png, cyrillic.png (panel words in Ukrainian), replay.gif, and the elimination board
as seen with protanopia, deuteranopia and tritanopia (simulated: seen-<kind>.png).
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine import Phase, Variant, record_of
from render.board import board_image, marks_from_events, render_board, render_game_over
from render.encode import encode_png
from render.panel import Labels
from render.replay import render_replay
from render.samples import at_turn, elimination, finished, new_sample
from render.vision import DEFICIENCIES, simulate_image

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
    save("opening.png", render_board(opening, show_candidates=True))
    mid = at_turn(4, seed=7, turn=20)
    save("midgame-candidates.png", render_board(mid.state, events=mid.events, show_candidates=True))
    two = at_turn(2, seed=3, turn=18)
    save("two-player.png", render_board(two.state, events=two.events, show_candidates=True))
    rotate = at_turn(3, seed=4, turn=12, phase=Phase.ROTATE, variant=Variant.ROTATE_AFTER)
    save("rotate-after.png", render_board(rotate.state, events=rotate.events, show_candidates=True))
    out = elimination(seed=1)
    save("elimination.png", render_board(out.state, events=out.events))
    seen = board_image(out.state, marks_from_events(out.events))
    for kind in DEFICIENCIES:
        save(f"seen-{kind}.png", encode_png(simulate_image(seen, kind)))
    end = finished(4, seed=7)
    save("game-over.png", render_game_over(end.state, events=end.events))
    cyrillic = at_turn(3, seed=11, turn=14)
    save(
        "cyrillic.png",
        render_board(
            cyrillic.state, events=cyrillic.events, show_candidates=True, labels=UKRAINIAN
        ),
    )
    save("replay.gif", render_replay(record_of(end.state)))
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m render.demo OUTDIR", file=sys.stderr)
        return 2
    for path in write_samples(Path(argv[0])):
        print(f"{path} {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
