"""The label JSON of a photoreal scene, in the painter's format (``datasets.labels``).

Tiles' top faces and pips are sent through the webcam (lens distortion included),
so they land where the rendered pixels do; what an arm, a mug or a phone hides
is worked out from their outlines, and tiles hidden below ``min_visible`` are
left out as the painter leaves them out. ``table`` is the true table and
``players`` its seats, so a reading can be scored whole.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from datasets.photoreal.faces import face_point, pip_circles
from datasets.photoreal.looks import as_json
from datasets.photoreal.scene import SET_MAX, PhotoScene

#: The ``kind`` of every photoreal label file.
KIND = "table-photoreal"


def _round(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(points).reshape(-1, 2)]


def _lift(points: np.ndarray, z: float) -> np.ndarray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return np.concatenate([p, np.full((len(p), 1), z)], axis=1)


def occluders(scene: PhotoScene) -> list[np.ndarray]:
    """Image polygons of everything standing over the tiles (arms, mugs, phones)."""
    hulls = []
    for outline in [a.outline() for a in scene.arms] + [p.outline() for p in scene.props]:
        pix = scene.webcam.camera.project(outline)
        if (scene.webcam.camera.depth(outline) <= 0).any():
            continue
        hull = cv2.convexHull(scene.webcam.distort(pix).astype(np.float32))
        hulls.append(hull.reshape(-1, 2))
    return hulls


def _mask(polygons: list[np.ndarray], size: tuple[int, int]) -> np.ndarray:
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    for poly in polygons:
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
    return mask


def _visible(poly: np.ndarray, hidden: np.ndarray) -> float:
    h, w = hidden.shape
    own = np.zeros((h, w), np.uint8)
    cv2.fillPoly(own, [np.round(poly).astype(np.int32)], 1)
    area = int(own.sum())
    return 1.0 if area == 0 else 1.0 - int((own & hidden).sum()) / area


def top_face(scene: PhotoScene, corners: np.ndarray) -> np.ndarray:
    """Image corners (4, 2) of a tile's top face."""
    return scene.webcam.project(_lift(corners, scene.tile_height))


def clear_view(scene: PhotoScene) -> PhotoScene:
    """``scene`` without the arms and props that hide any part of a face-up tile
    (for scoring whole tables: every tile in view)."""
    w, h = scene.webcam.size
    faces = _mask([top_face(scene, t.corners) for t in scene.face_up], (w, h))

    def hides(outline: np.ndarray) -> bool:
        if (scene.webcam.camera.depth(outline) <= 0).any():
            return True
        hull = cv2.convexHull(scene.webcam.project(outline).astype(np.float32)).reshape(-1, 2)
        return bool((_mask([hull], (w, h)) & faces).any())

    return replace(scene, arms=[a for a in scene.arms if not hides(a.outline())],
                   props=[p for p in scene.props if not hides(p.outline())])


def scene_labels(scene: PhotoScene, image_name: str, min_visible: float = 0.35
                 ) -> dict[str, Any]:
    """The label dict of ``scene`` as pictured in ``image_name``."""
    w, h = scene.webcam.size
    hidden = _mask(occluders(scene), (w, h))
    tiles: list[dict[str, Any]] = []
    pips: list[dict[str, Any]] = []
    face_down: list[dict[str, Any]] = []
    for tile in scene.tiles:
        poly = top_face(scene, tile.corners)
        seen = _visible(poly, hidden)
        if seen < min_visible:
            continue
        if tile.face_down:
            face_down.append({"corners": _round(poly), "visible": round(seen, 3)})
            continue
        index = len(tiles)
        tiles.append({"values": [int(tile.values[0]), int(tile.values[1])],
                      "corners": _round(poly), "visible": round(seen, 3)})
        pips += _pip_boxes(scene, tile.corners, tile.values, index, hidden)
    markers = []
    for m in scene.markers:
        markers.append({"corners": _round(scene.webcam.project(_lift(m.corners, m.height / 2))),
                        "kind": m.kind})
    return {
        "image": image_name, "width": int(w), "height": int(h), "kind": KIND,
        "set": SET_MAX, "tiles": tiles, "pips": pips,
        "markers": markers, "table": scene.table, "players": scene.players,
        "face_down": face_down,
        "photoreal": {
            "seed": scene.seed, "index": scene.index, "mat": scene.mat is not None,
            "set_style": scene.style.name, "surface": as_json(scene.surface),
            "lighting": scene.lighting.kind, "arms": len(scene.arms),
            "props": [p.kind for p in scene.props], "lens_k1": round(scene.webcam.k1, 4),
            "jpeg_quality": scene.finish.quality,
        },
    }


def _pip_boxes(scene: PhotoScene, corners: np.ndarray, values: tuple[int, int], index: int,
               hidden: np.ndarray) -> list[dict[str, Any]]:
    out = []
    t = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    length = float(np.linalg.norm(corners[3] - corners[0]))
    width = float(np.linalg.norm(corners[1] - corners[0]))
    h, w = hidden.shape
    for half, u, v, r in pip_circles(values, scene.style):
        ring = face_point(corners, u + r * np.cos(t), v + r * np.sin(t) * length / width)
        pix = scene.webcam.project(_lift(ring, scene.tile_height))
        cx, cy = pix.mean(axis=0)
        if not (0 <= cx < w and 0 <= cy < h) or hidden[int(cy), int(cx)]:
            continue
        x0, y0 = pix.min(axis=0)
        x1, y1 = pix.max(axis=0)
        out.append({"tile": index, "half": half,
                    "box": [round(float(x), 2) for x in (x0, y0, x1, y1)]})
    return out
