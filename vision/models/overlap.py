"""How much detected boxes overlap, and non-maximum suppression: the rotated boxes'
probabilistic IoU (as ultralytics' OBB NMS computes it) and the axis-aligned IoU."""

from __future__ import annotations

import numpy as np


def _covariance(xywhr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = xywhr[:, 2] ** 2 / 12
    b = xywhr[:, 3] ** 2 / 12
    cos, sin = np.cos(xywhr[:, 4]), np.sin(xywhr[:, 4])
    return a * cos**2 + b * sin**2, a * sin**2 + b * cos**2, (a - b) * cos * sin


def probiou(obb1: np.ndarray, obb2: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Probabilistic IoU ``(N, M)`` of rotated boxes ``xywhr`` (arXiv 2106.06072).

    Each box is treated as a Gaussian; 1 minus the Hellinger distance. This is
    the overlap ultralytics' OBB NMS uses.
    """
    b1 = np.asarray(obb1, dtype=np.float32).reshape(-1, 5)
    b2 = np.asarray(obb2, dtype=np.float32).reshape(-1, 5)
    x1, y1 = b1[:, 0:1], b1[:, 1:2]
    x2, y2 = b2[None, :, 0], b2[None, :, 1]
    a1, bb1, c1 = (v[:, None] for v in _covariance(b1))
    a2, bb2, c2 = (v[None, :] for v in _covariance(b2))
    core = (a1 + a2) * (bb1 + bb2) - (c1 + c2) ** 2
    denom = core + eps
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (bb1 + bb2) * (x1 - x2) ** 2) / denom * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / denom * 0.5
    det1 = np.clip(a1 * bb1 - c1**2, 0, None)
    det2 = np.clip(a2 * bb2 - c2**2, 0, None)
    t3 = np.log(core / (4 * np.sqrt(det1 * det2) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    hd = np.sqrt(1.0 - np.exp(-bd) + eps)
    return np.asarray(1 - hd, dtype=np.float32)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU ``(N, M)`` of axis-aligned boxes ``xyxy``."""
    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-12)


def nms_rotated(xywhr: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices kept by ultralytics' "fast NMS" on rotated boxes, best score first.

    A box is dropped when any higher-scoring box overlaps it by more than
    ``iou_threshold`` (probiou), even one that was itself dropped.
    """
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(-scores, kind="stable")
    ious = np.triu(probiou(xywhr[order], xywhr[order]), k=1)
    keep = (ious > iou_threshold).sum(axis=0) <= 0
    return order[keep]


def nms_boxes(xyxy: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy NMS on axis-aligned boxes (as torchvision), best score first.

    The overlaps are computed once, as one matrix: a pip crop has a few dozen
    candidates, and a frame a hundred crops.
    """
    order = np.argsort(-scores, kind="stable")
    if len(order) <= 1:
        return order.astype(np.int64)
    over = box_iou(xyxy[order], xyxy[order]) > iou_threshold
    dropped = np.zeros(len(order), dtype=bool)
    keep: list[int] = []
    for k in range(len(order)):
        if dropped[k]:
            continue
        keep.append(int(order[k]))
        dropped |= over[k]
    return np.asarray(keep, dtype=np.int64)
