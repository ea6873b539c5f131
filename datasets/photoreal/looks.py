"""What a rendered table looks like, drawn from a seed: the domino set, the surface, the light.

Each is a small frozen value the scene description carries into the renderer
(:mod:`datasets.photoreal.blender_scene`) as JSON. Colours are sRGB in 0..1.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from datasets.pip_layouts import LAYOUTS, MAX_PIPS

RGB = tuple[float, float, float]

#: The set styles: pips coloured by value (most double-12 sets), all black, or in
#: faint pastel colours (yellows and light blues nearly vanish under warm light).
SET_STYLES = ("colour-coded", "all-black", "faint")
#: Surfaces people play on.
SURFACES = ("wood", "felt", "checked", "striped", "floral", "leather", "glass")
#: Light: one lamp over the table, daylight from a window, a ceiling panel.
LIGHTINGS = ("lamp", "daylight", "ceiling")

#: Pip colours by value as commercial colour-coded sets print them (0 is blank).
_CODED: tuple[RGB, ...] = (
    (0.0, 0.0, 0.0), (0.35, 0.70, 0.90), (0.10, 0.55, 0.20), (0.80, 0.10, 0.10),
    (0.45, 0.25, 0.10), (0.10, 0.20, 0.65), (0.95, 0.80, 0.10), (0.55, 0.20, 0.60),
    (0.05, 0.35, 0.15), (0.10, 0.10, 0.12), (0.95, 0.45, 0.10), (0.15, 0.15, 0.15),
    (0.50, 0.50, 0.50), (0.85, 0.30, 0.55), (0.20, 0.45, 0.45), (0.60, 0.60, 0.10),
    (0.35, 0.10, 0.10), (0.25, 0.25, 0.55), (0.40, 0.40, 0.40),
)
_FAINT: tuple[RGB, ...] = (
    (0.0, 0.0, 0.0), (0.60, 0.80, 0.95), (0.55, 0.80, 0.55), (0.95, 0.55, 0.50),
    (0.75, 0.60, 0.45), (0.50, 0.60, 0.90), (0.98, 0.90, 0.35), (0.80, 0.60, 0.85),
    (0.45, 0.70, 0.55), (0.55, 0.55, 0.60), (0.98, 0.75, 0.45), (0.60, 0.60, 0.60),
    (0.75, 0.75, 0.75), (0.95, 0.65, 0.80), (0.55, 0.75, 0.75), (0.85, 0.85, 0.45),
    (0.75, 0.50, 0.50), (0.60, 0.60, 0.85), (0.70, 0.70, 0.70),
)


@dataclass(frozen=True)
class SetStyle:
    """One domino set: body colour, pip colour per value, gloss, size, pip layouts.

    ``variants[n]`` picks the layout of ``n`` pips among ``pip_layouts.LAYOUTS[n]``
    (commercial double-12 sets print 10, 11 and 12 differently); ``transpose``
    turns the grids of 10 and more a quarter, as some sets do.
    """

    name: str
    body: RGB
    pips: tuple[RGB, ...]
    roughness: float
    thickness_mm: float
    scale: float
    spinner: bool
    variants: tuple[int, ...]
    transpose: bool
    pip_depth: float

    def pip_layout(self, n: int) -> np.ndarray:
        """``(n, 3)``: ``x, y, radius`` of the pips of a half with ``n`` pips (unit half)."""
        pips = np.array(LAYOUTS[n][self.variants[n]], dtype=np.float64).reshape(-1, 3)
        if self.transpose and n >= 10 and len(pips):
            pips[:, [0, 1]] = pips[:, [1, 0]]
        return pips


@dataclass(frozen=True)
class Surface:
    """The table top: ``kind`` (one of :data:`SURFACES`), two colours, pattern scale."""

    kind: str
    base: RGB
    accent: RGB
    scale: float
    roughness: float
    angle: float


@dataclass(frozen=True)
class Lighting:
    """``kind`` (one of :data:`LIGHTINGS`), the main light's place (mm), size, power,
    colour, and the ambient light's strength and colour."""

    kind: str
    position: tuple[float, float, float]
    size_mm: float
    power: float
    colour: RGB
    ambient: float
    ambient_colour: RGB


def _jitter(rgb: RGB, rng: np.random.Generator, amount: float) -> RGB:
    r, g, b = np.clip(np.asarray(rgb) + rng.normal(0, amount, 3), 0, 1)
    return float(r), float(g), float(b)


def kelvin_rgb(kelvin: float) -> RGB:
    """Rough sRGB of a black body at ``kelvin`` (a warm lamp ~2700, daylight ~6500)."""
    t = kelvin / 100.0
    r = 1.0 if t <= 66 else min(1.0, 1.293 * (t - 60) ** -0.1332)
    g = 0.390 * np.log(t) - 0.631 if t <= 66 else 1.130 * (t - 60) ** -0.0755
    b = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.543 * np.log(t - 10) - 1.196)
    return float(r), float(np.clip(g, 0, 1)), float(np.clip(b, 0, 1))


def pick_set_style(rng: np.random.Generator, name: str | None = None) -> SetStyle:
    """A domino set drawn at random (or of style ``name``)."""
    name = name or str(rng.choice(SET_STYLES, p=[0.55, 0.3, 0.15]))
    if name not in SET_STYLES:
        raise ValueError(f"unknown set style {name!r}")
    ivory = ((0.93, 0.90, 0.82), (0.96, 0.95, 0.92), (0.90, 0.86, 0.74))[int(rng.integers(3))]
    if name == "all-black":
        pips: tuple[RGB, ...] = tuple((0.05, 0.05, 0.06) for _ in range(MAX_PIPS + 1))
    else:
        palette = _CODED if name == "colour-coded" else _FAINT
        pips = tuple(_jitter(c, rng, 0.03) for c in palette)
    variants = tuple(int(rng.integers(len(LAYOUTS[n]))) for n in range(MAX_PIPS + 1))
    return SetStyle(
        name=name, body=_jitter(ivory, rng, 0.015), pips=pips,
        roughness=float(rng.uniform(0.08, 0.35)), thickness_mm=float(rng.uniform(7.5, 10.5)),
        scale=float(rng.uniform(0.94, 1.06)), spinner=bool(rng.random() < 0.6),
        variants=variants, transpose=bool(rng.random() < 0.25),
        pip_depth=float(rng.uniform(0.5, 1.2)),
    )


_SURFACE_COLOURS: dict[str, tuple[tuple[RGB, RGB], ...]] = {
    "wood": (((0.45, 0.26, 0.12), (0.30, 0.16, 0.07)), ((0.70, 0.52, 0.32), (0.52, 0.36, 0.20)),
             ((0.25, 0.14, 0.08), (0.16, 0.08, 0.04))),
    "felt": (((0.05, 0.35, 0.15), (0.04, 0.28, 0.12)), ((0.10, 0.18, 0.45), (0.07, 0.14, 0.36)),
             ((0.45, 0.08, 0.10), (0.36, 0.06, 0.08))),
    "checked": (((0.80, 0.12, 0.12), (0.95, 0.94, 0.92)), ((0.15, 0.30, 0.65), (0.93, 0.93, 0.93)),
                ((0.20, 0.45, 0.20), (0.92, 0.90, 0.85))),
    "striped": (((0.85, 0.80, 0.65), (0.30, 0.45, 0.65)), ((0.95, 0.93, 0.90), (0.75, 0.20, 0.20))),
    "floral": (((0.93, 0.90, 0.80), (0.75, 0.25, 0.35)), ((0.70, 0.80, 0.90), (0.95, 0.70, 0.20))),
    "leather": (((0.30, 0.17, 0.09), (0.20, 0.11, 0.06)), ((0.10, 0.10, 0.10), (0.05, 0.05, 0.05))),
    "glass": (((0.06, 0.07, 0.08), (0.25, 0.28, 0.30)), ((0.12, 0.16, 0.15), (0.30, 0.35, 0.33))),
}
_ROUGHNESS = {"wood": (0.12, 0.35), "felt": (0.9, 1.0), "checked": (0.7, 0.9),
              "striped": (0.7, 0.9), "floral": (0.6, 0.85), "leather": (0.35, 0.55),
              "glass": (0.02, 0.08)}


def pick_surface(rng: np.random.Generator, kind: str | None = None) -> Surface:
    """A table top drawn at random (or of ``kind``)."""
    kind = kind or str(rng.choice(SURFACES, p=[0.34, 0.14, 0.14, 0.1, 0.1, 0.08, 0.1]))
    if kind not in SURFACES:
        raise ValueError(f"unknown surface {kind!r}; one of {', '.join(SURFACES)}")
    options = _SURFACE_COLOURS[kind]
    base, accent = options[int(rng.integers(len(options)))]
    lo, hi = _ROUGHNESS[kind]
    return Surface(kind=kind, base=_jitter(base, rng, 0.03), accent=_jitter(accent, rng, 0.03),
                   scale=float(rng.uniform(0.7, 1.4)), roughness=float(rng.uniform(lo, hi)),
                   angle=float(rng.uniform(0, np.pi)))


def pick_lighting(rng: np.random.Generator, centre: np.ndarray, kind: str | None = None
                  ) -> Lighting:
    """The light over a table whose play area is round ``centre`` (mm)."""
    kind = kind or str(rng.choice(LIGHTINGS, p=[0.45, 0.3, 0.25]))
    if kind not in LIGHTINGS:
        raise ValueError(f"unknown lighting {kind!r}")
    away = rng.uniform(0, 2 * np.pi)
    if kind == "lamp":  # a pendant lamp: small, warm, close, off to one side
        reach, height, size = rng.uniform(100, 450), rng.uniform(550, 1100), rng.uniform(120, 350)
        power, kelvin, ambient = rng.uniform(0.8, 1.4), rng.uniform(2600, 3400), 0.08
    elif kind == "daylight":  # a window: far, wide, cool, from low down
        reach, height, size = rng.uniform(1200, 2200), rng.uniform(700, 1400), rng.uniform(
            800, 1500)
        power, kelvin, ambient = rng.uniform(0.9, 1.5), rng.uniform(5200, 7000), 0.35
    else:  # a ceiling panel: big, overhead, neutral
        reach, height, size = rng.uniform(0, 300), rng.uniform(1400, 2000), rng.uniform(500, 1000)
        power, kelvin, ambient = rng.uniform(0.9, 1.3), rng.uniform(3800, 5000), 0.2
    position = (float(centre[0] + reach * np.cos(away)), float(centre[1] + reach * np.sin(away)),
                float(height))
    ambient *= rng.uniform(0.7, 1.3)
    return Lighting(kind=kind, position=position, size_mm=float(size), power=float(power),
                    colour=kelvin_rgb(float(kelvin)), ambient=float(ambient),
                    ambient_colour=kelvin_rgb(float(rng.uniform(4500, 7500))))


def as_json(value: SetStyle | Surface | Lighting) -> dict[str, Any]:
    """The JSON form the renderer reads (tuples become lists)."""
    return asdict(value)
