"""A round seen by a fixed camera over a patterned table, starting from the bare table.

The known-table tests and ``benchmarks/sequences.py`` need what a real camera
gives first: the empty table (the cloth, the printed mat, props), then the same
table after every move, each picture painted by the generator's painter through
one fixed camera so that what did not change looks the same:

- :func:`table_pictures` paints the empty table and then each layout on one
  ``datasets.surfaces`` surface, with the mat when the layouts have it, and a
  printed picture of a domino lying on the table (a board game's score track,
  a box lid) that the detector may take for a tile;
- :func:`shifted` moves a frame as a bumped camera does; :func:`exposed` changes its
  exposure and noise as a webcam's auto-exposure does; :func:`shadowed` lays a
  soft shadow over part of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.table_layout import TableLayout

#: The surfaces the sequence benchmark plays on (``datasets.surfaces.SURFACES``):
#: stripes, checks, leather, a varnished wood and a card-table felt.
SEQUENCE_SURFACES = ("stripes", "checks", "leather", "varnished", "felt")
#: Size (width, height) of the frames.
SEQUENCE_SIZE = (1280, 720)


@dataclass
class Picture:
    """One table as the fixed camera shows it: the image, the true tiles (values and
    image corners) and markers (image corners), and where the printed domino lies."""

    image: np.ndarray
    tiles: list[tuple[tuple[int, int], np.ndarray]]
    markers: np.ndarray
    printed: np.ndarray | None = None


def layout_extent(layouts: Sequence[TableLayout]) -> tuple[np.ndarray, np.ndarray]:
    """The table mm every tile and marker of ``layouts`` lies in, 60 mm round."""
    pts = np.concatenate([np.concatenate([t.corners for t in lay.tiles]
                                         + [m.corners for m in lay.markers])
                          for lay in layouts])
    return pts.min(axis=0) - 60.0, pts.max(axis=0) + 60.0


def printed_domino(image: np.ndarray, at: np.ndarray, width: float, angle: float) -> np.ndarray:
    """Print a flat picture of a 6-6 domino on the table at pixel ``at`` (in place);
    its corners."""
    long_axis = np.array([np.cos(angle), np.sin(angle)])
    across = np.array([-long_axis[1], long_axis[0]])
    half_l, half_w = width, width / 2
    corners = np.array([at - long_axis * half_l - across * half_w,
                        at - long_axis * half_l + across * half_w,
                        at + long_axis * half_l + across * half_w,
                        at + long_axis * half_l - across * half_w])
    cv2.fillPoly(image, [np.round(corners * 4).astype(np.int32)], (225, 232, 236),
                 cv2.LINE_AA, 2)
    cv2.polylines(image, [np.round(corners * 4).astype(np.int32)], True, (60, 60, 60), 1,
                  cv2.LINE_AA, 2)
    cv2.line(image, tuple(np.round((at - across * half_w) * 4).astype(int)),
             tuple(np.round((at + across * half_w) * 4).astype(int)), (60, 60, 60), 1,
             cv2.LINE_AA, 2)
    for end in (-1.0, 1.0):
        for u in (-0.28, 0.28):
            for v in (0.2, 0.5, 0.8):
                p = at + long_axis * end * half_l * v + across * half_w * u * 1.4
                cv2.circle(image, tuple(np.round(p * 4).astype(int)), int(round(width * 0.5)),
                           (30, 30, 30), -1, cv2.LINE_AA, 2)
    return corners


def table_pictures(layouts: Sequence[TableLayout], surface: str, seed: int,
                   size: tuple[int, int] = SEQUENCE_SIZE,
                   printed: bool = True) -> list[Picture]:
    """The bare table (with the mat when the layouts have it), then every layout, painted
    on ``surface`` by one fixed overhead camera with seat 0 at the bottom; with
    ``printed``, a printed 6-6 lies on the table beside the trains throughout."""
    from datasets import render
    from datasets.table_pictures import OverheadView, composite_mat
    from vision.mat.geometry import apply_homography

    lo, hi = layout_extent(layouts)
    view = OverheadView.framing(lo, hi, size)
    table_to_image = view.table_to_image
    all_tiles = [apply_homography(table_to_image, t.corners) for lay in layouts
                 for t in lay.tiles]
    tile_px = float(np.median([np.linalg.norm(c[1] - c[0]) for c in all_tiles]))
    spot = free_spot(all_tiles, size, tile_px, seed) if printed else None
    bare = TableLayout(layouts[0].table, [], [], layouts[0].hub, layouts[0].seat_angles,
                       layouts[0].mexican_angle, layouts[0].size, layouts[0].players)
    out = []
    for lay in [bare, *layouts]:
        scene = view.scene(lay)
        painted = render._paint(scene, view.camera, np.random.default_rng(seed), 24.0, "table", 0,
                                steady=seed, surface=surface)
        image = painted.image
        tiles = [(t.values, np.asarray(t.corners, float)) for t in painted.tiles]
        marker_corners = np.array([np.asarray(m.corners, float) for m in painted.markers])
        corners = None
        if spot is not None:
            corners = printed_domino(image, spot[0], tile_px, spot[1])
        if lay.hub.mat:
            keep = [c for _, c in tiles] + list(marker_corners)
            if corners is not None:
                keep.append(corners)
            composite_mat(image, table_to_image, lay, keep)
        out.append(Picture(image, tiles, marker_corners.reshape(-1, 4, 2), corners))
    return out


def free_spot(tiles: Sequence[np.ndarray], size: tuple[int, int], tile_px: float,
               seed: int) -> tuple[np.ndarray, float] | None:
    """A place (pixel centre, angle) for the printed domino, clear of every tile."""
    rng = np.random.default_rng([seed, 77])
    centres = np.array([c.mean(axis=0) for c in tiles])
    margin = 2.5 * tile_px
    for _ in range(200):
        at = np.array([rng.uniform(margin, size[0] - margin),
                       rng.uniform(margin, size[1] - margin)])
        if np.min(np.linalg.norm(centres - at, axis=1)) > 3.5 * tile_px:
            return at, float(rng.uniform(0, np.pi))
    return None


def exposed(image: np.ndarray, gain: float, noise: float, rng: np.random.Generator,
            offset: float = 0.0) -> np.ndarray:
    """``image`` as a webcam's auto-exposure and sensor give it: times ``gain``, plus
    ``offset``, plus Gaussian noise of ``noise`` grey levels."""
    out = image.astype(np.float32) * gain + offset + rng.normal(0, noise, image.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def shadowed(image: np.ndarray, centre: tuple[float, float], radius: float,
             depth: float = 0.4) -> np.ndarray:
    """``image`` with a soft round shadow (a player leaning over, a cup) darkening it by
    up to ``depth`` around ``centre``."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    shade = 1.0 - depth * np.exp(-d2 / (2 * radius * radius))
    return np.clip(image.astype(np.float32) * shade[..., None], 0, 255).astype(np.uint8)


def shifted(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``image`` as a camera bumped by ``(dx, dy)`` pixels sees it (edges repeated)."""
    matrix = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
    h, w = image.shape[:2]
    return cv2.warpAffine(image, matrix, (w, h), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
