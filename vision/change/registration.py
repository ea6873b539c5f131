"""Two photos of one table registered: the homography that lays one on the other.

A phone held by hand never frames the table twice the same way, so a photo of
the bare table is laid onto a photo of the tiles by its features: SIFT
keypoints on both (at most ``WORK_SIDE`` pixels long), matches kept by the
ratio test, and a homography fitted by RANSAC. (On painted tables with five
cloths, with and without the mat, warped by a random homography: ORB
registered three of the ten pairs more than 5 px wrong; SIFT registered nine
within 2.4 px but one, a bare checkerboard, which it refused.) The tiles are outliers to it;
the cloth, the mat and the table's edges carry it. Photos that do not register
(another table, another room, too little in common) are bad input, said in one
line (:func:`register`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import BadInputError

#: Long side (pixels) the photos are registered at.
WORK_SIDE = 1000
#: SIFT keypoints looked for in each photo.
FEATURES = 4000
#: A match is kept when its distance is below this share of the second best's.
RATIO = 0.75
#: RANSAC's reprojection limit, in work pixels.
RANSAC_PX = 4.0
#: A registration needs this many inlier matches, and this share of the matches kept.
MIN_INLIERS = 25
MIN_INLIER_SHARE = 0.15


@dataclass(frozen=True)
class Registration:
    """``homography`` maps pixels of the first photo to pixels of the second;
    ``inliers`` matches agree with it out of ``matches``."""

    homography: np.ndarray
    inliers: int
    matches: int


def _grey(image: np.ndarray) -> tuple[np.ndarray, float]:
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, WORK_SIDE / max(grey.shape[:2]))
    if scale < 1.0:
        grey = cv2.resize(grey, (round(grey.shape[1] * scale), round(grey.shape[0] * scale)),
                          interpolation=cv2.INTER_AREA)
    # even out the light, so that a lamp or a flash does not move the keypoints
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    return clahe.apply(grey), scale


def register(first: np.ndarray, second: np.ndarray, source: str = "photo") -> Registration:
    """The homography from ``first``'s pixels to ``second``'s (see the module's notes).

    Raises ``BadInputError(source, ...)`` when the photos do not register.
    """
    a, scale_a = _grey(first)
    b, scale_b = _grey(second)
    features = cv2.SIFT_create(nfeatures=FEATURES)  # type: ignore[attr-defined]
    kp_a, des_a = features.detectAndCompute(a, None)
    kp_b, des_b = features.detectAndCompute(b, None)
    if des_a is None or des_b is None or len(kp_a) < MIN_INLIERS or len(kp_b) < MIN_INLIERS:
        raise BadInputError(source, "too little detail to register with the photo of the "
                                    "bare table")
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(des_a, des_b, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
    if len(good) < MIN_INLIERS:
        raise BadInputError(source, f"does not register with the photo of the bare table "
                                    f"({len(good)} matching features): same camera, "
                                    f"same table, roughly the same framing?")
    pa = np.array([kp_a[m.queryIdx].pt for m in good], np.float32)
    pb = np.array([kp_b[m.trainIdx].pt for m in good], np.float32)
    h, mask = cv2.findHomography(pa, pb, cv2.RANSAC, RANSAC_PX)
    inliers = 0 if mask is None else int(mask.sum())
    if h is None or inliers < max(MIN_INLIERS, MIN_INLIER_SHARE * len(good)) \
            or not _plausible(h, a.shape, b.shape):
        raise BadInputError(source, f"does not register with the photo of the bare table "
                                    f"({inliers} of {len(good)} features agree): same "
                                    f"camera, same table, roughly the same framing?")
    to_work = np.diag([scale_a, scale_a, 1.0])
    from_work = np.diag([1 / scale_b, 1 / scale_b, 1.0])
    full = from_work @ h @ to_work
    return Registration(full / full[2, 2], inliers, len(good))


def _plausible(h: np.ndarray, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> bool:
    """Whether ``h`` lays ``a``'s frame on ``b``'s as a second shot of one table would:
    not folded, its area within a factor of 4 of ``b``'s."""
    ha, wa = shape_a[:2]
    corners = np.array([[0, 0], [wa, 0], [wa, ha], [0, ha]], np.float32).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(corners, h).reshape(-1, 2).astype(np.float32)
    if not cv2.isContourConvex(moved):
        return False
    ratio = abs(cv2.contourArea(moved)) / float(shape_b[0] * shape_b[1])
    return 0.25 <= ratio <= 4.0
