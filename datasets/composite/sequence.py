"""A round seen by a fixed camera, composited from rendered sprites.

:func:`composite_pictures` is :func:`datasets.table_sequence.table_pictures` with the
photoreal renderer's sprites (``python -m datasets.photoreal sprites``) for tiles and
markers instead of the painter's drawing: the bare table, then every layout of a round,
through the painter's fixed overhead camera (seat 0 at the bottom), on one of
``datasets.surfaces``' cloths (with the printed mat when the layouts have it) under one
light, a printed 6-6 beside the trains. Every frame is composed from the same
background, light, sprites (one per tile, face-down tile and marker kind: the same
tile looks the same all round) and finish, so what did not change looks the same; the
tracker's video adds the exposure drift, noise and hands
(``datasets.table_game.game_frames``). A tile with no rendered sprite of its values is
drawn by the painter in the set's style, so the labels are always the round's tiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from datasets.composite.compose import (
    _background,
    _Canvas,
    _draw_objects,
    _light_field,
    finish,
)
from datasets.composite.library import SpriteLibrary
from datasets.composite.plan import FramePlan, Placed, marker_footprint
from datasets.table_layout import TableLayout
from datasets.table_pictures import OverheadView
from datasets.table_sequence import (
    SEQUENCE_SIZE,
    Picture,
    free_spot,
    layout_extent,
    printed_domino,
)

#: Seed offsets of the round's parts: the table top, the light, the set's look, the
#: shadows' softness, the finish.
_TOP, _LIGHT, _LOOK, _SHADOWS, _FINISH = 1, 5, 2, 3, 4


def _objects(layout: TableLayout, view: OverheadView) -> list[Placed]:
    """The layout's tiles and markers in the camera's plane coordinates."""
    out = [Placed("tile", view.plane(t.corners), (int(t.values[0]), int(t.values[1])))
           for t in layout.tiles]
    for m in layout.markers:
        c = view.plane(m.corners)
        angle = float(np.arctan2(*(c[3] - c[0])[::-1]))
        out.append(Placed("marker", marker_footprint(str(m.kind), c.mean(axis=0), angle),
                          marker=str(m.kind)))
    return out


def composite_pictures(layouts: Sequence[TableLayout], library: SpriteLibrary, surface: str,
                       seed: int, size: tuple[int, int] = SEQUENCE_SIZE,
                       printed: bool = True, painter: float = 0.0) -> list[Picture]:
    """The bare table, then every layout (see the module's notes); ``painter``: the share
    of tiles the painter draws even when a sprite of theirs is rendered."""
    if not layouts:
        return []
    lo, hi = layout_extent(layouts)
    view = OverheadView.framing(lo, hi, size)
    cam = view.camera
    first = layouts[0]
    mat = view.table_to_plane @ first.hub.mat_matrix if first.hub.mat else None
    objects = [_objects(lay, view) for lay in layouts]
    faces = [cam.project(o.corners) for objs in objects for o in objs if o.kind == "tile"]
    width = float(np.median([np.linalg.norm(f[1] - f[0]) for f in faces])) if faces else 20.0
    plans = [FramePlan(objs, cam, 12, first.players, None, mat, 2 * width)
             for objs in [[], *objects]]
    img, _ = _background(np.random.default_rng([seed, _TOP]), cam, library, plans[0], surface)
    light = _light_field(np.random.default_rng([seed, _LIGHT]), size)
    spot = free_spot(faces, size, width, seed) if printed and faces else None
    out = []
    for plan in plans:
        canvas = _Canvas(img, light)
        labels: dict[str, Any] = {"tiles": [], "pips": [], "markers": [], "face_down": []}
        _draw_objects(canvas, plan, library, np.random.default_rng([seed, _LOOK]), painter,
                      labels, steady=seed)
        frame = canvas.compose(np.random.default_rng([seed, _SHADOWS]))
        corners = None
        if spot is not None:
            corners = printed_domino(frame, spot[0], width, spot[1])
        image = finish(frame, np.random.default_rng([seed, _FINISH]))
        tiles = [((int(t["values"][0]), int(t["values"][1])), np.asarray(t["corners"], float))
                 for t in labels["tiles"]]
        markers = np.array([m["corners"] for m in labels["markers"]], float).reshape(-1, 4, 2)
        out.append(Picture(image, tiles, markers, corners))
    return out
