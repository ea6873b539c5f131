"""Tiles lying face down: a boneyard beside a table, and hands with tiles not turned over.

Rendered from ``FACE_DOWN_SEED`` (never trained on): tables are read as frames,
hands as ``mtrain score`` reads them. Counted: the backs in view, those the
detector finds, those set apart (``vision.reading.face_down``) and those still read as
tiles (0-0), the boxes set apart that lie on no back, and the blank faces (0-0)
found and read.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from benchmarks.matching import rate
from vision.reading.reader import TileReader
from vision.stills.hand_photos import read_hand

FACE_DOWN_SEED = 9501


def _centre_in(corners: np.ndarray, boxes: list[np.ndarray], reach: float = 0.0) -> bool:
    """Whether the centre of ``corners`` lies inside (or ``reach`` pixels from) a box."""
    x, y = (float(v) for v in np.asarray(corners).mean(axis=0))
    return any(cv2.pointPolygonTest(np.asarray(b, np.float32), (x, y), True) >= -reach
               for b in boxes)


def face_down(reader: TileReader, count: int) -> dict[str, Any]:
    """Tables with a boneyard and hands with tiles face down, read and scored (module docstring)."""
    from datasets.render import render_hands, render_table, scene_rng

    out: dict[str, Any] = {"seed": FACE_DOWN_SEED, "scenes_each": count}
    for kind in ("table", "hands"):
        backs = found = set_apart = read_as_tiles = stray = blank = blank_read = 0
        strays: list[str] = []
        for i in range(count):
            if kind == "table":
                scene = render_table(scene_rng(FACE_DOWN_SEED, i), boneyard=12)
                reader.reset()
                frame = reader.read(scene.image)
            else:
                scene = render_hands(scene_rng(FACE_DOWN_SEED + 1, i), face_down=3)
                frame = read_hand(reader, scene.image)
            shown = [t.corners for t in scene.face_down if t.visible >= 0.35]
            width = float(np.median([np.linalg.norm(t.corners[1] - t.corners[0])
                                     for t in scene.tiles + scene.face_down]))
            backs += len(shown)
            apart = [c for c in frame.backs if _centre_in(c, shown, 0.5 * width)]
            on_backs = [t for t in frame.tiles.each() if _centre_in(t.corners, shown)]
            set_apart += len(apart)
            read_as_tiles += len(on_backs)
            found += sum(any(_centre_in(c, [b]) for c in
                             [*frame.backs, *(t.corners for t in frame.tiles.each())])
                         for b in shown)
            for c in frame.backs:
                if not _centre_in(c, shown, 0.5 * width):
                    stray += 1
                    under = [t.values for t in scene.tiles if _centre_in(c, [t.corners])]
                    strays.append(f"{kind} {i}: {under[0] if under else 'no tile'}")
            blanks = [t for t in scene.tiles if t.values == (0, 0) and t.visible >= 0.35]
            blank += len(blanks)
            for t in blanks:
                blank_read += any(r.values == (0, 0) and _centre_in(r.corners, [t.corners])
                                  for r in frame.tiles.each())
        out[kind] = {"backs": backs, "backs_found": found, "set_apart": set_apart,
                     "read_as_tiles": read_as_tiles,
                     "set_apart_share": rate(set_apart, set_apart + read_as_tiles),
                     "set_apart_on_no_back": stray, "on_no_back": strays,
                     "blank_faces": blank, "blank_faces_read": blank_read}
    return out
