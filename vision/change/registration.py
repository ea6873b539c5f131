"""Two photos of one table registered: the homography that lays one on the other.

A phone held by hand never frames the table twice the same way, so a photo of
the bare table is laid onto a photo of the tiles. Features alone do not always
do it: a cloth's checks, stripes and gingham repeat, so the ratio test drops
most matches, and a plain felt or a smooth wood top has too few. So the
homography is looked for in several ways (:func:`register`):

- **features**: SIFT keypoints on both (at most ``WORK_SIDE`` pixels long),
  matches kept by the ratio test, a homography fitted by RANSAC (a knot, the
  mat's print, the cloth's edge);
- **nearby features**: each keypoint matched to its ``NEIGHBOURS`` nearest
  descriptors that lie within ``REACH`` of the same place (the same framing,
  roughly), all fitted at once by MAGSAC: a repeating pattern gives many
  matches of which one lattice agrees;
- **the same framing**: no movement at all; and when none of these lays the
  photos well, turns and scales about the middle, each shifted by phase
  correlation (clean stripes give SIFT next to nothing);

each then refined on the photos' fine detail (ECC, coarse to fine), and the one
under which the two photos' detail agrees best (:func:`residual`) is kept. On a
repeating cloth that may be a repeat or two off: the cloth still lies on
itself, which is all the bare table is needed for. The tiles disagree, but
they cover less than half the photo and the agreement is a median. Photos whose
detail does not agree under any (another table, another room) are bad input,
said in one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import BadInputError

#: Long side (pixels) the photos' features are found at.
WORK_SIDE = 1000
#: SIFT keypoints looked for in each photo.
FEATURES = 4000
#: A match is kept when its distance is below this share of the second best's.
RATIO = 0.75
#: RANSAC's reprojection limit, in work pixels.
RANSAC_PX = 4.0
#: A fit needs this many inlier matches to be tried.
MIN_INLIERS = 12
#: Nearby features: each keypoint's ``NEIGHBOURS`` nearest descriptors, of those lying
#: within ``REACH`` of the long side of where it lies.
NEIGHBOURS = 4
REACH = 0.2
#: Nearby features are fitted by a turn of at most ``MAX_TURN_DEG`` and a scale within
#: ``SCALES``, from ``SIMILARITY_TRIES`` pairs of pairs.
MAX_TURN_DEG = 15.0
SCALES = (0.8, 1.25)
SIMILARITY_TRIES = 3000
#: The best of them tried, each laying the photo's middle ``APART_PX`` from the others.
HYPOTHESES = 4
APART_PX = 8.0
#: When neither features nor the same framing lay the photos within ``GOOD_RESIDUAL``,
#: turns and scales about the middle are searched, each shifted by phase correlation.
GOOD_RESIDUAL = 0.3
SEARCH_TURNS = tuple(float(t) for t in range(-6, 7))
SEARCH_SCALES = (0.93, 1.0, 1.07)
#: Width (pixels) the photos' detail is compared and refined at; smooth shading (light,
#: exposure) is what a blur of ``DETAIL_SIGMA`` of that width keeps, and is taken away.
CHECK_WIDTH = 480
DETAIL_SIGMA = 10.0
#: Added to the detail's median before the residual is taken (a plain cloth's noise).
DETAIL_FLOOR = 0.1
#: The photos register when the median change in detail over their overlap is below this
#: share of the photo's own median detail (plus ``DETAIL_FLOOR``), and they overlap on at
#: least ``MIN_OVERLAP`` of the photo.
MAX_RESIDUAL = 0.6
MIN_OVERLAP = 0.25
#: ... and their mean colours (each channel's share) lie within this of each other (a
#: checked cloth's median jumps between its two colours), or within ``MAX_BALANCED_COLOUR``
#: when their detail agrees as closely as only one cloth's with itself does
#: (``SAME_DETAIL``): a webcam balances its white again when white tiles come into view,
#: and a plain felt's green turns grey on the bare frame (0.09-0.11 on rendered felt and
#: leather, detail 0.05-0.07 against 0.17-0.35 between two felts).
MAX_COLOUR = 0.05
SAME_DETAIL = 0.12
MAX_BALANCED_COLOUR = 0.15
#: A photo with less spread in grey than this has too little detail to register.
MIN_GREY_SPREAD = 2.0


@dataclass(frozen=True)
class Registration:
    """``homography`` maps pixels of the first photo to pixels of the second; ``inliers``
    matches agreed with it (0: it came from the same framing), ``residual`` how much the
    photos' detail still differs under it (:func:`residual`), ``how`` which way it was
    found."""

    homography: np.ndarray
    inliers: int
    residual: float
    how: str


def _grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _work(grey: np.ndarray) -> tuple[np.ndarray, float]:
    scale = min(1.0, WORK_SIDE / max(grey.shape[:2]))
    if scale < 1.0:
        grey = cv2.resize(grey, (round(grey.shape[1] * scale), round(grey.shape[0] * scale)),
                          interpolation=cv2.INTER_AREA)
    # even out the light, so that a lamp or a flash does not move the keypoints
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    return clahe.apply(grey), scale


def detail(grey: np.ndarray, width: int = CHECK_WIDTH) -> tuple[np.ndarray, float]:
    """``grey`` at ``width`` as log brightness with its smooth shading taken away (what
    light and exposure leave alone), and the scale (small pixels per photo pixel)."""
    scale = width / grey.shape[1]
    small = cv2.resize(grey, (width, max(1, round(grey.shape[0] * scale))),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    log = cv2.log(cv2.GaussianBlur(small, (3, 3), 0) + 12.0)
    sigma = DETAIL_SIGMA * width / CHECK_WIDTH
    return np.asarray(log - cv2.GaussianBlur(log, (0, 0), sigma), np.float32), scale


def _scaled(h: np.ndarray, scale_a: float, scale_b: float) -> np.ndarray:
    """``h`` (pixels of a to pixels of b) between copies of a and b scaled so."""
    out = np.diag([scale_b, scale_b, 1.0]) @ h @ np.diag([1 / scale_a, 1 / scale_a, 1.0])
    return np.asarray(out / out[2, 2])


def residual(a: np.ndarray, b: np.ndarray, h: np.ndarray) -> float:
    """How much the detail ``a`` laid on ``b`` by ``h`` (small pixels) still differs: the
    median change over their overlap, against ``b``'s median detail there (plus
    ``DETAIL_FLOOR``); ``inf`` when they overlap on less than ``MIN_OVERLAP`` of ``b``."""
    rows, cols = b.shape
    laid = cv2.warpPerspective(a, h, (cols, rows), flags=cv2.INTER_LINEAR)
    seen = cv2.warpPerspective(np.ones(a.shape, np.uint8), h, (cols, rows),
                               flags=cv2.INTER_NEAREST)
    inside = cv2.erode(seen, np.ones((5, 5), np.uint8)).astype(bool)
    if inside.mean() < MIN_OVERLAP:
        return float("inf")
    change = float(np.median(np.abs(laid - b)[inside]))
    return change / (float(np.median(np.abs(b[inside]))) + DETAIL_FLOOR)


def _refined(a: np.ndarray, b: np.ndarray, h: np.ndarray) -> np.ndarray | None:
    """``h`` (small pixels of a to b) refined by ECC on the detail, at half the size and
    then at the full one; None when it does not converge."""
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-5)
    converged = False
    for factor in (0.5, 1.0):
        size = (max(8, round(a.shape[1] * factor)), max(8, round(a.shape[0] * factor)))
        size_b = (max(8, round(b.shape[1] * factor)), max(8, round(b.shape[0] * factor)))
        small_a = cv2.resize(a, size, interpolation=cv2.INTER_AREA)
        small_b = cv2.resize(b, size_b, interpolation=cv2.INTER_AREA)
        # ECC's warp maps the template (b) to the input (a)
        warp = np.linalg.inv(_scaled(h, factor, factor)).astype(np.float32)
        try:
            _, warp = cv2.findTransformECC(  # type: ignore[call-overload]
                small_b, small_a, warp, cv2.MOTION_HOMOGRAPHY, criteria, None, 5)
        except cv2.error:  # a fine pattern aliases at half the size: the next size
            continue
        h = _scaled(np.linalg.inv(np.asarray(warp, np.float64)), 1 / factor, 1 / factor)
        converged = True
    return h if converged else None


def _fit(pa: np.ndarray, pb: np.ndarray, method: int) -> tuple[np.ndarray, int] | None:
    if len(pa) < MIN_INLIERS:
        return None
    h, mask = cv2.findHomography(pa, pb, method, RANSAC_PX, maxIters=4000)
    inliers = 0 if mask is None else int(mask.sum())
    return None if h is None or inliers < MIN_INLIERS else (np.asarray(h, np.float64), inliers)


def _similarities(pa: np.ndarray, pb: np.ndarray, limit: float
                  ) -> list[tuple[np.ndarray, int]]:
    """Shifts, turns and scales (3x3 matrices) that most pairs ``pa`` -> ``pb`` agree with
    within ``limit`` pixels, by RANSAC over pairs of pairs (a fixed draw): the
    ``HYPOTHESES`` best that lay the middle of the photo apart (a repeating pattern agrees
    with several, a repeat apart), each with its count. Only turns up to ``MAX_TURN_DEG``
    and scales within ``SCALES``, as a second shot by hand makes."""
    if len(pa) < MIN_INLIERS:
        return []
    draw = np.random.default_rng(0).integers(0, len(pa), (SIMILARITY_TRIES, 2))
    za = pa[:, 0] + 1j * pa[:, 1]
    zb = pb[:, 0] + 1j * pb[:, 1]
    da, db = za[draw[:, 1]] - za[draw[:, 0]], zb[draw[:, 1]] - zb[draw[:, 0]]
    ok = np.abs(da) > 1.0
    m = np.where(ok, db / np.where(ok, da, 1.0), 0)  # b = m * a + t, in complex numbers
    ok &= (np.abs(m) >= SCALES[0]) & (np.abs(m) <= SCALES[1])
    ok &= np.abs(np.angle(m)) <= np.radians(MAX_TURN_DEG)
    m, t = m[ok], (zb[draw[ok, 0]] - m[ok] * za[draw[ok, 0]])
    counts = np.zeros(len(m), np.int64)
    for start in range(0, len(m), 256):  # in batches: pairs x hypotheses at once
        err = np.abs(m[None, start:start + 256] * za[:, None] + t[None, start:start + 256]
                     - zb[:, None])
        counts[start:start + 256] = (err <= limit).sum(axis=0)
    middle = complex(*np.median(pa, axis=0))
    out: list[tuple[np.ndarray, int]] = []
    taken: list[complex] = []
    for k in np.argsort(-counts, kind="stable"):
        if counts[k] < MIN_INLIERS or len(out) >= HYPOTHESES:
            break
        there = m[k] * middle + t[k]
        if any(abs(there - other) < APART_PX for other in taken):
            continue
        taken.append(there)
        inside = np.abs(m[k] * za + t[k] - zb) <= limit
        moved, _ = cv2.estimateAffinePartial2D(pa[inside], pb[inside], method=cv2.LMEDS)
        if moved is None:
            c, s, x, y = m[k].real, m[k].imag, t[k].real, t[k].imag
            moved = np.array([[c, -s, x], [s, c, y]])
        out.append((np.vstack([moved, [0.0, 0.0, 1.0]]), int(counts[k])))
    return out


def _turned_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The turn and scale (of ``SEARCH_TURNS`` x ``SEARCH_SCALES`` about the middle) and
    the shift by phase correlation that lay the detail ``a`` best on ``b`` (a 3x3 matrix,
    small pixels): clean stripes give SIFT next to nothing to hold on to."""
    rows, cols = b.shape
    window = cv2.createHanningWindow((cols, rows), cv2.CV_32F)
    best, best_r = np.eye(3), float("inf")
    for turn in SEARCH_TURNS:
        for zoom in SEARCH_SCALES:
            m = np.vstack([cv2.getRotationMatrix2D((a.shape[1] / 2, a.shape[0] / 2), turn,
                                                   zoom), [0.0, 0.0, 1.0]])
            laid = cv2.warpPerspective(a, m, (cols, rows), flags=cv2.INTER_LINEAR)
            (dx, dy), _ = cv2.phaseCorrelate(laid, b, window)
            h = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]) @ m
            r = residual(a, b, h)
            if r < best_r:
                best, best_r = h, r
    return best


def _feature_fits(first: np.ndarray, second: np.ndarray
                  ) -> list[tuple[str, np.ndarray, int]]:
    """Homographies (photo pixels of ``first`` to ``second``) fitted on features, each
    with its count of inliers: by the ratio test, then by nearby features."""
    a, scale_a = _work(first)
    b, scale_b = _work(second)
    features = cv2.SIFT_create(nfeatures=FEATURES)  # type: ignore[attr-defined]
    kp_a, des_a = features.detectAndCompute(a, None)
    kp_b, des_b = features.detectAndCompute(b, None)
    if des_a is None or des_b is None or len(kp_a) < MIN_INLIERS or len(kp_b) < MIN_INLIERS:
        return []
    out = []
    xy_a = np.array([k.pt for k in kp_a], np.float32) / scale_a
    xy_b = np.array([k.pt for k in kp_b], np.float32) / scale_b
    matcher = cv2.BFMatcher(cv2.NORM_L2)
    pairs = matcher.knnMatch(des_a, des_b, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
    fit = _fit(xy_a[[m.queryIdx for m in good]], xy_b[[m.trainIdx for m in good]],
               cv2.RANSAC)
    if fit is not None:
        out.append(("features", *fit))
    # nearby features: each keypoint's nearest descriptors among those near where it lies
    reach = REACH * max(second.shape[:2])
    k = min(len(kp_b), 8 * NEIGHBOURS)
    many = [row for row in matcher.knnMatch(des_a, des_b, k=k) if len(row) == k]
    qa = np.array([[m.queryIdx for m in row] for row in many], np.int64).reshape(-1, k)
    qb = np.array([[m.trainIdx for m in row] for row in many], np.int64).reshape(-1, k)
    near = np.linalg.norm(xy_b[qb] - xy_a[qa], axis=2) <= reach
    near &= np.cumsum(near, axis=1) <= NEIGHBOURS  # the nearest descriptors of those
    # a repeating pattern matches one lattice in many ways: a shift, a turn and a scale
    # (4 degrees of freedom) are fitted first, the rest is the refinement's
    out += [("nearby features", *fit)
            for fit in _similarities(xy_a[qa[near]], xy_b[qb[near]], RANSAC_PX / scale_b)]
    return out


def register(first: np.ndarray, second: np.ndarray, source: str = "photo") -> Registration:
    """The homography from ``first``'s pixels to ``second``'s (see the module's notes).

    Raises ``BadInputError(source, ...)`` when the photos do not register.
    """
    grey_a, grey_b = _grey(first), _grey(second)
    if float(grey_a.std()) < MIN_GREY_SPREAD or float(grey_b.std()) < MIN_GREY_SPREAD:
        raise BadInputError(source, "too little detail to register with the photo of the "
                                    "bare table")
    a, scale_a = detail(grey_a)
    b, scale_b = detail(grey_b)
    tried = [*_feature_fits(grey_a, grey_b), ("the same framing", np.eye(3), 0)]
    best: Registration | None = None
    for how, h, inliers in _with_search(tried, a, b, scale_a, scale_b):
        if not _plausible(h, first.shape, second.shape):
            continue
        small = _scaled(h, scale_a, scale_b)
        fine = _refined(a, b, small)
        for guess in (small, fine):
            if guess is None or not _plausible(_scaled(guess, 1 / scale_a, 1 / scale_b),
                                               first.shape, second.shape):
                continue
            r = residual(a, b, guess)
            if best is None or r < best.residual:
                full = _scaled(guess, 1 / scale_a, 1 / scale_b)
                best = Registration(full, inliers, r, how)
    if best is not None and _colour_change(first, second, best.homography) > (
            MAX_BALANCED_COLOUR if best.residual <= SAME_DETAIL else MAX_COLOUR):
        best = None  # a plain top of another colour: another table
    if best is None or best.residual > MAX_RESIDUAL:
        found = "" if best is None else f" (detail differs {best.residual:.2f} at best)"
        raise BadInputError(source, f"does not register with the photo of the bare "
                                    f"table{found}: same camera, same table, roughly the "
                                    f"same framing?")
    return best


def _colour_change(first: np.ndarray, second: np.ndarray, h: np.ndarray) -> float:
    """How far the mean colour (chromaticity: each channel's share of the three) of
    ``first`` laid on ``second`` by ``h`` lies from ``second``'s over their overlap (0
    for grey photos)."""
    if first.ndim != 3 or second.ndim != 3:
        return 0.0
    scale = 120 / second.shape[1]
    size = (120, max(1, round(second.shape[0] * scale)))
    small_b = cv2.resize(second, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    # both shrunk by averaging first: a warp samples, and on a fine two-colour pattern
    # (a dark checked cloth) samples and averages differ in mean colour by more than
    # MAX_COLOUR
    scale_a = 120 / first.shape[1]
    small_a = cv2.resize(first, (120, max(1, round(first.shape[0] * scale_a))),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
    small_h = _scaled(h, scale_a, scale)
    laid = cv2.warpPerspective(small_a, small_h, size, flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.ones(small_a.shape[:2], np.float32), small_h, size,
                                 flags=cv2.INTER_LINEAR) > 0.999  # no border blended in
    if not inside.any():
        return float("inf")

    def share(image: np.ndarray) -> np.ndarray:
        pixels = image[inside]
        return np.asarray((pixels / (pixels.sum(axis=1, keepdims=True) + 30.0)).mean(axis=0))

    return float(np.abs(share(laid) - share(small_b)).max())


def _with_search(tried: list[tuple[str, np.ndarray, int]], a: np.ndarray, b: np.ndarray,
                 scale_a: float, scale_b: float) -> Iterator[tuple[str, np.ndarray, int]]:
    """``tried``, then, when none of them lays ``a`` on ``b`` well (``GOOD_RESIDUAL``), the
    turned and shifted search (:func:`_turned_shift`)."""
    good = False
    for how, h, inliers in tried:
        yield how, h, inliers
        good = good or residual(a, b, _scaled(h, scale_a, scale_b)) <= GOOD_RESIDUAL
    if not good:
        yield ("a turn and a shift", _scaled(_turned_shift(a, b), 1 / scale_a, 1 / scale_b), 0)


def _plausible(h: np.ndarray, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> bool:
    """Whether ``h`` lays ``a``'s frame on ``b``'s as a second shot of one table would:
    not folded, its area within a factor of 4 of ``b``'s."""
    ha, wa = shape_a[:2]
    corners = np.array([[0, 0], [wa, 0], [wa, ha], [0, ha]], np.float32).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(corners, h).reshape(-1, 2).astype(np.float32)
    if not np.isfinite(moved).all() or not cv2.isContourConvex(moved):
        return False
    ratio = abs(cv2.contourArea(moved)) / float(shape_b[0] * shape_b[1])
    return 0.25 <= ratio <= 4.0
