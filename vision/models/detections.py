"""Detections: the one container that crosses every stage of the vision pipeline.

Modelled on supervision's ``Detections``: parallel NumPy arrays, validated on
construction, indexed with a boolean mask or an index array to give a new
``Detections``. A detection is a quadrilateral (``corners``, four points in
polygon order), so oriented boxes (tiles, markers) and axis-aligned boxes
(pips) share one type.

>>> d = Detections.from_xyxy(np.array([[0, 0, 10, 20], [5, 5, 6, 6]]),
...                          confidence=np.array([0.9, 0.2]))
>>> len(d[d.confidence > 0.5])
1
>>> d.xyxy[0].tolist()
[0.0, 0.0, 10.0, 20.0]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

import cv2
import numpy as np


def _as_array(name: str, value: Any, dtype: type, shape_tail: tuple[int, ...]) -> np.ndarray:
    array: np.ndarray = np.asarray(value, dtype=dtype)
    if array.ndim != 1 + len(shape_tail) or array.shape[1:] != shape_tail:
        want = ", ".join(["N", *map(str, shape_tail)])
        raise ValueError(f"Detections.{name} must have shape ({want}), got {array.shape}")
    return array


@dataclass
class Detections:
    """Detected objects in one image, as parallel arrays of length ``N``.

    Attributes:
        corners: ``(N, 4, 2)`` float32, image pixels, polygon order.
        confidence: ``(N,)`` float32 detector scores in ``[0, 1]``.
        class_id: ``(N,)`` int64 class indices of the model that found them.
        data: extra per-detection arrays, each of length ``N``.
        metadata: per-image facts (image size, class names, …), not indexed.
    """

    corners: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    data: dict[str, np.ndarray] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.corners = _as_array("corners", self.corners, np.float32, (4, 2))
        self.confidence = _as_array("confidence", self.confidence, np.float32, ())
        self.class_id = _as_array("class_id", self.class_id, np.int64, ())
        n = len(self.corners)
        for name, array in (("confidence", self.confidence), ("class_id", self.class_id)):
            if len(array) != n:
                raise ValueError(f"Detections.{name} has {len(array)} entries, corners has {n}")
        data = {}
        for key, value in self.data.items():
            array = np.asarray(value)
            if array.ndim == 0 or len(array) != n:
                raise ValueError(f"Detections.data[{key!r}] must have {n} entries, "
                                 f"got shape {array.shape}")
            data[key] = array
        self.data = data

    # -- construction -------------------------------------------------------

    @classmethod
    def empty(cls) -> Detections:
        """No detections."""
        return cls(np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0))

    @classmethod
    def from_xyxy(cls, xyxy: np.ndarray, confidence: np.ndarray | None = None,
                  class_id: np.ndarray | None = None) -> Detections:
        """Axis-aligned boxes ``(N, 4)`` as ``x0, y0, x1, y1``."""
        boxes = np.asarray(xyxy, dtype=np.float32).reshape(-1, 4)
        x0, y0, x1, y1 = boxes.T
        corners = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1),
                            np.stack([x1, y1], 1), np.stack([x0, y1], 1)], axis=1)
        n = len(boxes)
        return cls(corners,
                   np.ones(n) if confidence is None else confidence,
                   np.zeros(n) if class_id is None else class_id)

    @classmethod
    def from_xywhr(cls, xywhr: np.ndarray, confidence: np.ndarray | None = None,
                   class_id: np.ndarray | None = None) -> Detections:
        """Rotated boxes ``(N, 5)`` as centre, width, height and angle (radians)."""
        boxes = np.asarray(xywhr, dtype=np.float32).reshape(-1, 5)
        n = len(boxes)
        return cls(xywhr_to_corners(boxes),
                   np.ones(n) if confidence is None else confidence,
                   np.zeros(n) if class_id is None else class_id)

    @classmethod
    def from_ultralytics(cls, result: Any) -> Detections:
        """Adapter for an ultralytics ``Results`` (OBB or detect), duck-typed.

        Never imports ultralytics; training code and tests use it to compare
        their predictions with ours.
        """
        def numpy(value: Any) -> np.ndarray:
            value = value.cpu().numpy() if hasattr(value, "cpu") else value
            return np.asarray(value)

        obb = getattr(result, "obb", None)
        if obb is not None:
            return cls(numpy(obb.xyxyxyxy), numpy(obb.conf), numpy(obb.cls).astype(np.int64))
        boxes = getattr(result, "boxes", None)
        if boxes is None:
            return cls.empty()
        return cls.from_xyxy(numpy(boxes.xyxy), numpy(boxes.conf),
                             numpy(boxes.cls).astype(np.int64))

    @classmethod
    def merge(cls, items: Sequence[Detections]) -> Detections:
        """Concatenate several ``Detections``; ``data`` keys must agree."""
        if not items:
            return cls.empty()
        keys = set(items[0].data)
        if any(set(d.data) != keys for d in items):
            raise ValueError("Detections.merge: data keys differ")
        return cls(np.concatenate([d.corners for d in items]),
                   np.concatenate([d.confidence for d in items]),
                   np.concatenate([d.class_id for d in items]),
                   {k: np.concatenate([d.data[k] for d in items]) for k in keys},
                   dict(items[0].metadata))

    def extended(self, corners: np.ndarray, confidence: np.ndarray,
                 class_id: np.ndarray) -> Detections:
        """These detections with the boxes ``corners`` (N, 4, 2) added after them, scored
        ``confidence`` and of ``class_id`` (each an (N,) array), their ``data`` zero."""
        n = len(corners)
        added = Detections(np.asarray(corners, np.float32).reshape(-1, 4, 2),
                           np.asarray(confidence), np.asarray(class_id, np.int64),
                           {k: np.zeros((n, *v.shape[1:]), v.dtype)
                            for k, v in self.data.items()}, dict(self.metadata))
        return Detections.merge([self, added])

    # -- container protocol --------------------------------------------------

    def __len__(self) -> int:
        return len(self.corners)

    def __iter__(self) -> Iterator[tuple[np.ndarray, float, int]]:
        """Yield ``(corners, confidence, class_id)`` per detection."""
        for i in range(len(self)):
            yield self.corners[i], float(self.confidence[i]), int(self.class_id[i])

    def __getitem__(self, index: int | slice | Sequence[int] | np.ndarray) -> Self:
        """A new ``Detections`` (of this kind) of the selected rows (an int keeps one row)."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return type(self)(self.corners[index], self.confidence[index], self.class_id[index],
                          {k: v[index] for k, v in self.data.items()}, dict(self.metadata))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Detections):
            return NotImplemented
        return (np.array_equal(self.corners, other.corners)
                and np.array_equal(self.confidence, other.confidence)
                and np.array_equal(self.class_id, other.class_id)
                and self.data.keys() == other.data.keys()
                and all(np.array_equal(v, other.data[k]) for k, v in self.data.items()))

    __hash__ = None  # type: ignore[assignment]

    # -- geometry -----------------------------------------------------------

    @property
    def xyxy(self) -> np.ndarray:
        """Axis-aligned bounds ``(N, 4)``."""
        if len(self) == 0:
            return np.zeros((0, 4), dtype=np.float32)
        return np.concatenate([self.corners.min(axis=1), self.corners.max(axis=1)], axis=1)

    @property
    def center(self) -> np.ndarray:
        """Centre of each quadrilateral ``(N, 2)``."""
        return self.corners.mean(axis=1) if len(self) else np.zeros((0, 2), np.float32)

    @property
    def area(self) -> np.ndarray:
        """Polygon area of each detection ``(N,)`` (shoelace formula)."""
        return polygon_areas(self.corners)


def match_boxes(a: np.ndarray, b: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """One-to-one pairs ``(index in a, index in b)`` of polygons ``(N, 4, 2)`` overlapping
    by ``threshold`` IoU or more, the best overlap first."""
    if not len(a) or not len(b):
        return []
    iou = polygon_iou(a, b)
    pairs = []
    used_a: set[int] = set()
    used_b: set[int] = set()
    for flat in np.argsort(-iou, axis=None):
        i, j = divmod(int(flat), iou.shape[1])
        if iou[i, j] < threshold:
            break
        if i in used_a or j in used_b:
            continue
        pairs.append((i, j))
        used_a.add(i)
        used_b.add(j)
    return pairs


def box_sides(corners: np.ndarray) -> np.ndarray:
    """Each quadrilateral's (short, long) side, ``(N, 2)``, whatever its corners' order
    around it: the first two edges of ``corners`` ``(N, 4, 2)``."""
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    a = np.linalg.norm(c[:, 1] - c[:, 0], axis=1)
    b = np.linalg.norm(c[:, 2] - c[:, 1], axis=1)
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)


def polygon_areas(corners: np.ndarray) -> np.ndarray:
    """Area of each polygon ``(..., K, 2)`` (shoelace formula), shape ``(...)``."""
    x, y = corners[..., 0], corners[..., 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=-1) - y * np.roll(x, -1, axis=-1), axis=-1))


def xywhr_to_corners(xywhr: np.ndarray) -> np.ndarray:
    """Corners ``(N, 4, 2)`` of rotated boxes ``(N, 5)``, in ultralytics' order."""
    b = np.asarray(xywhr, dtype=np.float32).reshape(-1, 5)
    ctr = b[:, :2]
    cos, sin = np.cos(b[:, 4:5]), np.sin(b[:, 4:5])
    w, h = b[:, 2:3] / 2, b[:, 3:4] / 2
    vec1 = np.concatenate([w * cos, w * sin], axis=1)
    vec2 = np.concatenate([-h * sin, h * cos], axis=1)
    return np.stack([ctr + vec1 + vec2, ctr + vec1 - vec2,
                     ctr - vec1 - vec2, ctr - vec1 + vec2], axis=1).astype(np.float32)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact IoU matrix ``(N, M)`` of convex quadrilaterals ``(N, 4, 2)`` and ``(M, 4, 2)``.

    >>> sq = np.array([[[0, 0], [2, 0], [2, 2], [0, 2]]], np.float32)
    >>> float(polygon_iou(sq, sq + [1, 0])[0, 0])
    0.3333333432674408
    """
    pa = np.asarray(a, dtype=np.float32).reshape(-1, 4, 2)
    pb = np.asarray(b, dtype=np.float32).reshape(-1, 4, 2)
    out = np.zeros((len(pa), len(pb)), dtype=np.float32)
    if not len(pa) or not len(pb):
        return out
    hulls_a = [cv2.convexHull(p) for p in pa]
    hulls_b = [cv2.convexHull(p) for p in pb]
    area_a = [cv2.contourArea(h) for h in hulls_a]
    area_b = [cv2.contourArea(h) for h in hulls_b]
    lo_a, hi_a = pa.min(axis=1), pa.max(axis=1)
    lo_b, hi_b = pb.min(axis=1), pb.max(axis=1)
    for i, ha in enumerate(hulls_a):
        overlap = np.all((lo_b <= hi_a[i]) & (hi_b >= lo_a[i]), axis=1)
        for j in np.flatnonzero(overlap):
            inter, _ = cv2.intersectConvexConvex(ha, hulls_b[j])
            union = area_a[i] + area_b[j] - inter
            out[i, j] = inter / union if union > 0 else 0.0
    return out
