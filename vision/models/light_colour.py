"""The colour of the light a photo was taken under, to judge colours as if in daylight.

A warm lamp (2700 K) over a table whose camera did not balance it turns a cream tile
orange: its saturation (0.6-0.7) is then a coloured cloth's to the tile check
(``vision.models.tile_check``), and on a patterned cloth every tile is dropped.
:func:`light_gains` estimates the light from the photo's brightest pixels (white
patch: the tiles' faces, the mat's paper, a white print; glare clipped white left out;
a channel clipped only bounds it), takes it for a light only when it lies near the
black-body locus (a lamp, a window: warm to cool, not green or pink; where the
bounds leave a range, the light nearest daylight) and gives the per-channel gains
that make such a light daylight. The brightest pixels of a pink or green cloth lie off
the locus and change nothing.
"""

from __future__ import annotations

import weakref

import cv2
import numpy as np

#: Pixels of the photo looked at (every n-th row and column, so about this many).
SAMPLE_PIXELS = 20_000
#: The share of the (unclipped) sampled pixels, the brightest, that shows the light.
BRIGHTEST = 0.02
#: A pixel with every channel at this level or more is clipped white (glare), no colour:
#: not looked at (one clipped channel, a warm-lit face's red, still shows the light).
CLIPPED = 245
#: The light's colour temperatures looked for (kelvin), and the reference (daylight).
KELVIN_RANGE = (2200, 10000)
DAYLIGHT = 6500
#: How far (log red/green, log blue/green) the brightest pixels' colour may lie from
#: the black-body locus and still be taken for a light's.
LOCUS_TOLERANCE = 0.12
#: The fewest bright pixels an estimate is made from.
LEAST_PIXELS = 50


def kelvin_bgr(kelvin: float) -> np.ndarray:
    """Rough linear-ish sRGB of a black body at ``kelvin``, as (b, g, r), 0-1 (the usual
    fit to the Planckian locus: a warm lamp ~2700, daylight ~6500)."""
    t = kelvin / 100.0
    r = 1.0 if t <= 66 else min(1.0, 1.293 * (t - 60) ** -0.1332)
    g = 0.390 * np.log(t) - 0.631 if t <= 66 else 1.130 * (t - 60) ** -0.0755
    b = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.543 * np.log(t - 10) - 1.196)
    return np.clip(np.array([b, g, r], np.float64), 1e-3, 1.0)


_KELVINS = np.arange(KELVIN_RANGE[0], KELVIN_RANGE[1] + 1, 50, dtype=np.float64)
_LOCUS = np.array([kelvin_bgr(k) for k in _KELVINS])
_LOCUS_LOG = np.column_stack([np.log(_LOCUS[:, 2] / _LOCUS[:, 1]),
                              np.log(_LOCUS[:, 0] / _LOCUS[:, 1])])


def light_kelvin(image: np.ndarray) -> float | None:
    """The colour temperature of the light on the BGR ``image`` (kelvin), from its
    brightest pixels; None when they are not a light's colour (off the locus by more
    than ``LOCUS_TOLERANCE``), too few, or ``image`` is grey."""
    if image.ndim != 3 or image.shape[2] != 3:
        return None
    h, w = image.shape[:2]
    step = max(1, int(np.sqrt(h * w / SAMPLE_PIXELS)))
    pixels = image[::step, ::step].reshape(-1, 3)
    pixels = pixels[pixels.min(axis=1) < CLIPPED].astype(np.float32)
    if len(pixels) < LEAST_PIXELS / BRIGHTEST:
        return None
    brightness = pixels.sum(axis=1)
    top = pixels[brightness >= np.quantile(brightness, 1.0 - BRIGHTEST)]
    colour = np.median(top, axis=0).astype(np.float64)
    clipped = colour >= CLIPPED
    colour = colour + 1.0
    point = np.log([colour[2] / colour[1], colour[0] / colour[1]])
    off = _LOCUS_LOG - point
    # a clipped channel (a warm-lit face's red) is brighter than it shows: a ratio over it
    # is a floor, under it a ceiling, over and under it unknown; the locus beyond such a
    # bound is no gap
    for k, top_channel in enumerate((2, 0)):
        if clipped[top_channel]:
            off[:, k] = 0.0 if clipped[1] else np.minimum(off[:, k], 0.0)
        elif clipped[1]:
            off[:, k] = np.maximum(off[:, k], 0.0)
    gaps = np.linalg.norm(off, axis=1)
    # where the bounds leave a range of lights, the one nearest daylight (least undone)
    nearest = int(np.argmin(gaps + 1e-3 * np.abs(np.log(_KELVINS / DAYLIGHT))))
    return float(_KELVINS[nearest]) if gaps[nearest] <= LOCUS_TOLERANCE else None


def light_gains(image: np.ndarray) -> np.ndarray | None:
    """Per-channel gains (b, g, r) that turn the light on the BGR ``image``
    (:func:`light_kelvin`) into daylight, green's kept at 1; None where no light's
    colour is seen (the image is then judged as it is). The last image's are kept: a
    frame is looked at several times (each look's tile check, the domino check)."""
    if _last is not None and _last[0]() is image:
        return _last[1]
    kelvin = light_kelvin(image)
    gains = None
    if kelvin is not None:
        light, day = kelvin_bgr(kelvin), kelvin_bgr(DAYLIGHT)
        gains = ((day / day[1]) / (light / light[1])).astype(np.float32)
    _remember(image, gains)
    return gains


_last: tuple[weakref.ref[np.ndarray], np.ndarray | None] | None = None


def _remember(image: np.ndarray, gains: np.ndarray | None) -> None:
    global _last
    _last = (weakref.ref(image), gains)


def in_daylight(image: np.ndarray, gains: np.ndarray | None) -> np.ndarray:
    """The BGR ``image`` (a crop) with the light's ``gains`` (:func:`light_gains`) applied,
    uint8; ``image`` itself when there are none."""
    if gains is None or image.ndim != 3:
        return image
    return cv2.convertScaleAbs(image.astype(np.float32) * gains.reshape(1, 1, 3))
