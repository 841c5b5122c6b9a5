"""Colour-vision checks: dichromacy simulation and perceptual colour difference.

The simulation uses the matrices of Machado, Oliveira and Fernandes (2009) at severity 1.0
(full protanopia, deuteranopia, tritanopia), applied in linear sRGB. Differences are CIEDE2000
in CIELAB (D65). The palette test uses these to prove the rug colours stay apart for every
common colour-vision deficiency; `python -m render.vision` prints the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

from PIL import Image

RGB = tuple[int, int, int]
Lab = tuple[float, float, float]
Matrix = tuple[tuple[float, float, float], ...]

DEFICIENCIES: dict[str, Matrix] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def _to_linear(channel: int) -> float:
    c = channel / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _to_srgb(linear: float) -> int:
    c = min(1.0, max(0.0, linear))
    v = c * 12.92 if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
    return round(v * 255)


def simulate(color: RGB, deficiency: str) -> RGB:
    """How `color` looks to a viewer with the named dichromacy (a key of DEFICIENCIES)."""
    matrix = DEFICIENCIES[deficiency]
    lin = [_to_linear(c) for c in color]
    out = [sum(m * c for m, c in zip(row, lin, strict=True)) for row in matrix]
    return (_to_srgb(out[0]), _to_srgb(out[1]), _to_srgb(out[2]))


def to_lab(color: RGB) -> Lab:
    """CIELAB (D65 white) of an sRGB colour."""
    r, g, b = (_to_linear(c) for c in color)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e(first: RGB, second: RGB) -> float:
    """CIEDE2000 colour difference between two sRGB colours (about 2.3 is just noticeable)."""
    return delta_e_lab(to_lab(first), to_lab(second))


def delta_e_lab(first: Lab, second: Lab) -> float:
    """CIEDE2000 difference between two CIELAB colours (Sharma, Wu and Dalal 2005)."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_mean7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - math.sqrt(c_mean7 / (c_mean7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dlp = l2 - l1
    dcp = c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    dhp_big = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    lp_mean = (l1 + l2) / 2
    cp_mean = (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_mean = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hp_mean = (h1p + h2p + 360) / 2
    else:
        hp_mean = (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(hp_mean - 30))
        + 0.24 * math.cos(math.radians(2 * hp_mean))
        + 0.32 * math.cos(math.radians(3 * hp_mean + 6))
        - 0.20 * math.cos(math.radians(4 * hp_mean - 63))
    )
    d_theta = 30 * math.exp(-(((hp_mean - 275) / 25) ** 2))
    cp_mean7 = cp_mean**7
    r_c = 2 * math.sqrt(cp_mean7 / (cp_mean7 + 25**7))
    s_l = 1 + 0.015 * (lp_mean - 50) ** 2 / math.sqrt(20 + (lp_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt(
        (dlp / s_l) ** 2
        + (dcp / s_c) ** 2
        + (dhp_big / s_h) ** 2
        + r_t * (dcp / s_c) * (dhp_big / s_h)
    )


def simulate_image(image: Image.Image, deficiency: str) -> Image.Image:
    """A whole picture as seen with `deficiency`: it is reduced to the fixed 256-colour palette
    first, so only the palette's colours need simulating."""
    from render.encode import quantize

    indexed = quantize(image.convert("RGB"))
    raw = indexed.getpalette() or []
    seen: list[int] = []
    for i in range(0, len(raw) - 2, 3):
        seen.extend(simulate((raw[i], raw[i + 1], raw[i + 2]), deficiency))
    indexed.putpalette(seen)
    return indexed.convert("RGB")


def closest_pair(colors: Sequence[RGB], deficiency: str | None = None) -> float:
    """Smallest CIEDE2000 difference between any two of `colors`, as seen with `deficiency`
    (None: normal vision)."""
    seen = [c if deficiency is None else simulate(c, deficiency) for c in colors]
    return min(delta_e(a, b) for a, b in combinations(seen, 2))


def _report() -> None:
    from render.palette import DISTINGUISHED

    names = list(DISTINGUISHED)
    colors = list(DISTINGUISHED.values())
    for deficiency in (None, *DEFICIENCIES):
        label = deficiency or "normal"
        print(f"{label:13s} closest pair dE2000 {closest_pair(colors, deficiency):5.1f}")
        for (na, ca), (nb, cb) in combinations(zip(names, colors, strict=True), 2):
            sa = ca if deficiency is None else simulate(ca, deficiency)
            sb = cb if deficiency is None else simulate(cb, deficiency)
            print(f"    {na:>7s} / {nb:<7s} {delta_e(sa, sb):5.1f}")


if __name__ == "__main__":
    _report()
