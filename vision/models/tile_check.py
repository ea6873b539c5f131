"""Does a box look like a domino? A cheap look at each tile box the detector gives.

The tile detector learnt tiles on the generator's plain table tops. On a checked
cloth it boxes the light squares by the hundred, on a printed cloth the flowers
and dots, and the reader then reads each phantom as a tile (with counts beyond
the set, too). A domino lying on a cloth is not a piece of the cloth. Three
looks at the box, each cheap, tell them apart:

- **echo**: the box's upright look (grey, 16-40 px across) is matched against the same
  sized patches around it, a box width or length away and further
  (``cv2.matchTemplate``, normalised correlation). A square of a check, a
  stripe, a woven thread is the pattern repeating: a patch close by matches it
  almost exactly (rendered phantoms' median 0.98). A tile's surroundings are the
  cloth, or other tiles with other pips (real tiles' 99th percentile 0.79): a box
  is the pattern from ``MAX_ECHO`` (0.9), from ``MAX_ECHO_UNSURE`` (0.75) when the
  detector scores it under ``SURE``, and from ``MAX_ECHO_VERY_SURE`` when it is all
  but certain. Only what lies inside the image counts as surroundings. A plain box
  (nothing to match) is no tile. For a box under ``SURE`` (most phantoms) the echo is
  looked for at half size first and matched at full size at its best shifts
  (:func:`echoes`): the same verdict, about half the cost on a cloth's pattern.
- **colour**: a face is white, ivory, cream or black; the grey-level body of the
  face (pixels within 15 % of its median, pips and divider left out) is not
  saturated. Flowers and coloured checks are (``MAX_SATURATION``).
- **border**: a face stands out from what lies beside it: on at least one side,
  the strip beyond its edge differs from the face by ``MIN_CONTRAST`` of its
  brightness. A patch of a printed cloth goes on past the box's edges. Only a box
  the detector is unsure of (under ``SURE``) is asked this: a cream tile on a
  pale table top shows little border and is scored surely.

Tuned on development seeds of the generator (``datasets.surfaces`` tables, hands
and empty frames on every surface, seeds 501-503; the painter's own tables,
hands and mat tables, seeds 504-506): 636 boxes on real tiles and 1512 phantom
boxes; the three looks drop 97 % of the phantoms (1472; most of the 40 left lie on
the printed cloth) and keep all but three real tiles' boxes (633); on the committed
eval set they drop none of the 678 real tiles' boxes. ``benchmarks/realism.py``
measures it on other seeds, on the eval set with and without it, and on the real
photos of ``../shared/realdata/detect`` (evaluation only).

Where the table is known bare (``vision.change.known_table``: a fixed camera's table
learned before the first tile, a still's ``--empty`` photo), the detector is told
(``bare``): a box there is the table's pattern, dropped before any look and counted
as one failing them.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import cv2
import numpy as np

from vision.models.crops import order_corners
from vision.models.detections import Detections
from vision.models.domino_check import DominoCheck
from vision.models.light_colour import in_daylight, light_gains
from vision.models.onnx_models import BareBoxes, ModelSpec, ObbDetector

#: A box whose look is repeated this closely around it is the surface's pattern: for a
#: box the detector is sure of (``SURE``), and for one it is not.
MAX_ECHO = 0.9
MAX_ECHO_UNSURE = 0.75
#: A box the detector is all but certain of (``VERY_SURE``) is the pattern only from
#: ``MAX_ECHO_VERY_SURE``: tiles of a sorted hand or a set laid out in order (5-5, 5-6,
#: 6-6 side by side) echo each other at 0.9-0.93, while no phantom box on the
#: development surfaces scored 0.85 or more.
VERY_SURE = 0.9
MAX_ECHO_VERY_SURE = 0.96
#: The face's median saturation (0-1) from which it is a coloured cloth, not a face:
#: for a box the detector scores under ``SURE``, and for one it is sure of.
MAX_SATURATION = 0.42
MAX_SATURATION_SURE = 0.55
#: Least difference between the face and the strip beyond one of its sides (a share
#: of the face's brightness, at least ``DIM_FACE``), asked of boxes scored under
#: ``SURE`` only: a tile on a table top of its own colour is scored surely.
MIN_CONTRAST = 0.12
#: The detector's score from which a box needs no border (rendered phantoms: 90 % score
#: under 0.61; the real tiles on a pale table top that show none score 0.72-0.94).
SURE = 0.7
#: Brightness below which a face counts as this bright (grey levels): a dark face's
#: contrast is not blown up by dividing by its low brightness.
DIM_FACE = 40.0
#: A frame is judged to lie on a patterned surface (and its boxes that do not look
#: like tiles are dropped) when at least this many of its tile boxes, and this share
#: of them, fail the looks (:func:`patterned`).
PATTERN_BOXES = 4
PATTERN_SHARE = 0.5
#: Boxes narrower than this (pixels) are kept unjudged: too few pixels to tell (the
#: reader reads none so small either, ``vision.reading.reader.MIN_SIDE_PX``).
MIN_WIDTH_PX = 3.0

#: The upright look at the box (across, along) for the colour and border looks,
#: with this much of its surroundings on each side (shares of the box).
LOOK = (24, 48)
AROUND = (0.25, 0.125)
#: The echo's least look at the box (across, along; a larger box is looked at with up
#: to ``ECHO_MOST`` pixels across) and how far round it the echo is looked for (box
#: widths across, box lengths along, each way); shifts under ``NEAR`` of the box
#: both ways overlap the box itself and are not counted.
ECHO_LOOK = (16, 32)
ECHO_MOST = 40
ECHO_REACH = (2.0, 1.25)
NEAR = 0.8
#: The echo is looked for first at half size, at its ``COARSE_PEAKS`` best shifts, each
#: matched again at full size within ``FINE_REACH`` pixels (:func:`echoes`).
COARSE_PEAKS = 3
FINE_REACH = 3
#: A patch round the box is looked at when at least this share of it lies inside the
#: image: a box at the frame's edge still has its cloth beside it, a close-up of one
#: tile (the tile filling the photo) has none, and what padding would show there is
#: the tile itself mirrored.
INSIDE = 0.5

def _upright(image: np.ndarray, corners: np.ndarray, look: tuple[int, int],
             around: tuple[float, float]) -> np.ndarray:
    """The box warped upright, ``look`` (across, along) pixels, with ``around`` of the
    box on each side: a float32 array ``(along * (1 + 2 * ay), across * (1 + 2 * ax))``."""
    matrix, size = _warp(corners, look, around)
    return cv2.warpPerspective(image, matrix, size, flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REFLECT).astype(np.float32)


def _inside(shape: tuple[int, ...], corners: np.ndarray, look: tuple[int, int],
            around: tuple[float, float]) -> np.ndarray:
    """Which pixels of :func:`_upright`'s look lie inside the image (float32, 1 or 0):
    what lies beyond the image's edge is no surrounding of the box (a close-up of one
    tile has none), however it is padded."""
    matrix, size = _warp(corners, look, around)
    if around_box(shape, corners, around) is not None:  # all of it inside the image
        return np.ones(size[::-1], np.float32)
    ones = np.ones(shape[:2], np.uint8)
    return cv2.warpPerspective(ones, matrix, size, flags=cv2.INTER_NEAREST,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)


def _warp(corners: np.ndarray, look: tuple[int, int],
          around: tuple[float, float]) -> tuple[np.ndarray, tuple[int, int]]:
    w, h = look
    x0, y0 = w * around[0], h * around[1]
    dst = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    size = (int(round(w * (1 + 2 * around[0]))), int(round(h * (1 + 2 * around[1]))))
    return matrix, size


@dataclass(frozen=True)
class _EchoLook:
    """The box's upright look with its surroundings (``window``), the box in it at
    ``at`` (x, y), ``size`` (w, h) pixels, and which shifts the echo counts (``seen``:
    shifts ``NEAR`` of a box away or more with enough of their patch inside the image),
    indexed like ``cv2.matchTemplate``'s result."""

    window: np.ndarray
    at: tuple[int, int]
    size: tuple[int, int]
    seen: np.ndarray

    @property
    def box(self) -> np.ndarray:
        (x0, y0), (w, h) = self.at, self.size
        return self.window[y0:y0 + h, x0:x0 + w]


def _echo_look(gray: np.ndarray, corners: np.ndarray) -> _EchoLook:
    """The echo's look at the box: as many pixels across as it has, from ``ECHO_LOOK``
    up to ``ECHO_MOST`` (a large box over a fine check keeps its squares)."""
    across = float(np.hypot(*(corners[1] - corners[0])))
    w = int(np.clip(round(across), ECHO_LOOK[0], ECHO_MOST))
    h = 2 * w
    window = _upright(gray, corners, (w, h), ECHO_REACH)
    x0, y0 = int(round(w * ECHO_REACH[0])), int(round(h * ECHO_REACH[1]))
    rows, cols = window.shape[0] - h + 1, window.shape[1] - w + 1
    yy, xx = np.ogrid[0:rows, 0:cols]
    seen = (np.abs(xx - x0) >= NEAR * w) | (np.abs(yy - y0) >= NEAR * h)
    in_image = _inside(gray.shape, corners, (w, h), ECHO_REACH)
    if float(in_image.min()) < 1.0:  # near the image's edge: only patches inside it count
        sums = cv2.integral(in_image)  # the share of each patch inside, summed exactly
        inside = (sums[h:, w:] - sums[:-h, w:] - sums[h:, :-w] + sums[:-h, :-w]) / (w * h)
        seen = seen & (inside >= INSIDE)
    return _EchoLook(window, (x0, y0), (w, h), np.broadcast_to(seen, (rows, cols)))


def echo(gray: np.ndarray, corners: np.ndarray) -> float:
    """How closely the box's look repeats around it: the best normalised correlation
    of the box with a patch of its size at least ``NEAR`` of a box away (1.0 for a
    plain box; :func:`_echo_look`)."""
    look = _echo_look(gray, corners)
    box = look.box
    if float(box.std()) < 1.0:
        return 1.0
    match = cv2.matchTemplate(look.window, box, cv2.TM_CCOEFF_NORMED)
    return float(match[look.seen].max()) if look.seen.any() else 0.0


def echoes(gray: np.ndarray, corners: np.ndarray, limit: float,
           coarse_first: bool = True) -> bool:
    """Whether the box's look repeats around it at least ``limit`` closely
    (``echo(gray, corners) >= limit``), found cheaply for the pattern a cloth repeats
    (``coarse_first``: for a box likely to be one, :func:`_coarse_echo`); else, or when
    that finds none, every shift is matched at full size."""
    look = _echo_look(gray, corners)
    box = look.box
    if float(box.std()) < 1.0:
        return True
    if not look.seen.any():
        return False
    if coarse_first and _coarse_echo(look, limit):
        return True
    match = cv2.matchTemplate(look.window, box, cv2.TM_CCOEFF_NORMED)
    return float(match[look.seen].max()) >= limit


def _coarse_echo(look: _EchoLook, limit: float) -> bool:
    """Whether one of the ``COARSE_PEAKS`` best shifts found at half size (a sixteenth
    of the cost of a match at full size), matched again at full size within
    ``FINE_REACH`` pixels of it, repeats the box at least ``limit`` closely: a shift
    found so is one the full match finds, so a True is its answer too."""
    (x0, y0), (w, h) = look.at, look.size
    window, box = look.window, look.box
    half = cv2.resize(window, (window.shape[1] // 2, window.shape[0] // 2),
                      interpolation=cv2.INTER_AREA)
    small = half[y0 // 2:y0 // 2 + h // 2, x0 // 2:x0 // 2 + w // 2]
    if float(small.std()) < 1.0:
        return False
    coarse = cv2.matchTemplate(half, small, cv2.TM_CCOEFF_NORMED)
    rows, cols = look.seen.shape
    seen = look.seen[np.minimum(2 * np.arange(coarse.shape[0]), rows - 1)[:, None],
                     np.minimum(2 * np.arange(coarse.shape[1]), cols - 1)[None, :]]
    scores = np.where(seen, coarse, -2.0).ravel()
    peaks = min(COARSE_PEAKS, scores.size)
    best = np.argpartition(scores, -peaks)[-peaks:]
    for y, x in zip(*np.unravel_index(best[np.argsort(scores[best])[::-1]], coarse.shape),
                    strict=True):
        ya, yb = max(2 * y - FINE_REACH, 0), min(2 * y + FINE_REACH, rows - 1)
        xa, xb = max(2 * x - FINE_REACH, 0), min(2 * x + FINE_REACH, cols - 1)
        fine = cv2.matchTemplate(window[ya:yb + h, xa:xb + w], box, cv2.TM_CCOEFF_NORMED)
        near = look.seen[ya:yb + 1, xa:xb + 1]
        if near.any() and float(fine[near].max()) >= limit:
            return True
    return False


def face_and_border(planes: np.ndarray, corners: np.ndarray) -> tuple[float, float]:
    """The face's median saturation (0-1, over its grey-level body: pixels within 15 %
    of its median brightness, the middle band left out; 1 when no pixel is) and the
    largest contrast between the face and the strip beyond one of its four sides.
    ``planes`` is the image's grey levels and HSV saturation, ``(H, W, 2)`` uint8
    (:func:`grey_and_saturation`): both looked at in one warp."""
    w, h = LOOK
    x0, y0 = int(round(w * AROUND[0])), int(round(h * AROUND[1]))
    both = _upright(planes, corners, LOOK, AROUND)
    look, sat = both[..., 0], both[..., 1]
    rows = slice(y0 + int(0.06 * h), y0 + int(0.94 * h))
    cols = slice(x0 + int(0.12 * w), x0 + int(0.88 * w))
    body_rows = np.r_[np.arange(rows.start, y0 + int(0.42 * h)),
                      np.arange(y0 + int(0.58 * h), rows.stop)]
    face = look[body_rows, cols]
    level = float(np.median(face))
    body = np.abs(face - level) <= max(0.15 * level, 14.0)
    # no even body at all (half dark, half light: a checkerboard's squares) is no face
    colour = float(np.median(sat[body_rows, cols][body])) / 255.0 if body.any() else 1.0
    inside = _inside(planes.shape, corners, LOOK, AROUND) > 0
    sides = [np.s_[:, :x0 - 1], np.s_[:, x0 + w + 1:],
             np.s_[:y0 - 1, x0:x0 + w], np.s_[y0 + h + 1:, x0:x0 + w]]
    beside = [look[side][inside[side]] for side in sides if inside[side].mean() >= INSIDE]
    if not beside:  # the box fills the image: nothing beside it to differ from
        return colour, float("inf")
    scale = max(level, DIM_FACE)
    contrast = max(abs(level - float(np.median(s))) / scale for s in beside)
    return colour, contrast


def looks_like_tile(gray: np.ndarray, planes: np.ndarray, corners: np.ndarray,
                    score: float = 0.0, face: np.ndarray | None = None) -> bool:
    """Whether the box ``corners`` (4, 2), scored ``score`` by the detector, looks like a
    domino lying face up or down: not the surface's pattern repeating (``echo``), not a
    coloured patch, and (scored under ``SURE``) standing out from what lies beside it.
    ``gray`` is the image's grey levels, ``planes`` those and its HSV saturation
    (:func:`grey_and_saturation`); ``face``, when given, is the box in ``planes``'
    pixels (a part of the image cut elsewhere than ``gray``), else ``corners``."""
    c = order_corners(corners)
    if float(np.hypot(*(c[1] - c[0]))) < MIN_WIDTH_PX:
        return True
    sure = score >= SURE
    colour, contrast = face_and_border(planes, c if face is None else order_corners(face))
    if colour >= (MAX_SATURATION_SURE if sure else MAX_SATURATION):
        return False
    if not sure and contrast < MIN_CONTRAST:
        return False
    limit = MAX_ECHO_VERY_SURE if score >= VERY_SURE else MAX_ECHO if sure else MAX_ECHO_UNSURE
    # most phantoms are scored unsure, most tiles surely: only the former are likely to echo
    return not echoes(gray, c, limit, coarse_first=not sure)


def grey_and_saturation(image: np.ndarray, gains: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The BGR (or grey) ``image``'s grey levels ``(H, W)`` and, stacked with them, its HSV
    saturation ``(H, W, 2)`` (none in a grey image), uint8; the saturation of the image
    as under daylight when the light's ``gains`` are given
    (``vision.models.light_colour.light_gains``)."""
    if image.ndim == 2:
        return image, cv2.merge([image, np.zeros_like(image)])
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    saturation = cv2.cvtColor(in_daylight(image, gains), cv2.COLOR_BGR2HSV)[..., 1]
    return gray, cv2.merge([gray, saturation])


def around_box(shape: tuple[int, ...], corners: np.ndarray,
               reach: tuple[float, float]) -> tuple[int, int, int, int] | None:
    """The part ``(x0, y0, x1, y1)`` of an image of ``shape`` that a look at the box
    ``corners`` (corner convention) with ``reach`` of it round it (shares of the box
    across and along, each way) sees, with a few pixels to spare; None when it does
    not lie wholly inside the image (the look then needs the image's edge)."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    ax, ay = reach[0] + 0.05, reach[1] + 0.05
    ends = np.array([[-ax, -ay, 1], [1 + ax, -ay, 1], [1 + ax, 1 + ay, 1], [-ax, 1 + ay, 1]])
    mapped = ends @ cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32)).T
    if not np.all(mapped[:, 2] > 1e-9):  # the reach runs past the horizon
        return None
    points = mapped[:, :2] / mapped[:, 2:]
    x0, y0 = np.floor(points.min(axis=0)).astype(int) - 3
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + 4
    if x0 < 0 or y0 < 0 or x1 > shape[1] or y1 > shape[0]:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def tile_mask(image: np.ndarray, corners: np.ndarray,
              scores: np.ndarray | None = None) -> np.ndarray:
    """Which boxes ``corners`` ``(N, 4, 2)`` in the BGR ``image``, scored ``scores`` by
    the detector (None: none sure), look like tiles.

    Each box is looked at in the parts of the image round it (:func:`around_box`: the
    echo's grey levels, the face's saturation), not in the whole image made grey and
    saturation for a few dozen boxes (a 12 MP photo's cost 60 ms); in the whole image
    only when a box's surroundings reach its edge."""
    boxes = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    if not len(boxes):
        return np.zeros(0, bool)
    scored = np.zeros(len(boxes)) if scores is None else np.asarray(scores, np.float64)
    gains = light_gains(image)
    whole: tuple[np.ndarray, np.ndarray] | None = None
    looks = []
    for box, score in zip(boxes, scored, strict=True):
        c = order_corners(box)
        near, far = around_box(image.shape, c, AROUND), around_box(image.shape, c, ECHO_REACH)
        if near is None or far is None:
            whole = grey_and_saturation(image, gains) if whole is None else whole
            looks.append(looks_like_tile(*whole, box, float(score)))
            continue
        gray = _part(image, far)
        if gray.ndim == 3:
            gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
        planes = grey_and_saturation(_part(image, near), gains)[1]
        looks.append(looks_like_tile(gray, planes, c - np.array(far[:2], np.float32),
                                     float(score), face=c - np.array(near[:2], np.float32)))
    return np.array(looks, bool)


def _part(image: np.ndarray, part: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = part
    return np.ascontiguousarray(image[y0:y1, x0:x1])


def patterned(looks: np.ndarray) -> bool:
    """Whether a frame whose tile boxes look like tiles or not (``looks``, from
    :func:`tile_mask`) lies on a patterned surface: at least ``PATTERN_BOXES`` boxes,
    and ``PATTERN_SHARE`` of them, do not look like tiles. A cloth's pattern is boxed
    by the dozen; on a plain table top the few boxes that fail a look are mostly real
    tiles seen oddly (under an arm, tinted by the light, beside a near twin)."""
    failed = int(np.count_nonzero(~looks))
    return failed >= PATTERN_BOXES and failed >= PATTERN_SHARE * len(looks)


class CheckedTileDetector(ObbDetector):
    """The tile detector whose tile boxes must be dominoes: on a frame where most boxes
    fail (:func:`patterned`: a cloth's pattern is boxed by the dozen), a box is dropped
    that (with ``looks``) fails the looks (:func:`looks_like_tile`) or that the domino
    check (``verifier``, ``vision.models.domino_check``) is sure is none; the check is asked
    only on such a frame, of the boxes the looks pass. The phantoms are
    dropped where they are found, so that neither the reader's choice of how close to
    look nor its readings see them. On other frames every box is read, and the reader
    puts each reading's box to the domino check. Boxes of other classes (markers) pass
    unjudged."""

    def __init__(self, spec: ModelSpec, *, conf_threshold: float = 0.25,
                 iou_threshold: float = 0.7, max_det: int = 300, threads: int | None = None,
                 class_thresholds: dict[int, float] | None = None,
                 verifier: DominoCheck | None = None, looks: bool = True) -> None:
        super().__init__(spec, conf_threshold=conf_threshold, iou_threshold=iou_threshold,
                         max_det=max_det, threads=threads, class_thresholds=class_thresholds)
        #: The domino check every tile box is put to (None: none).
        self.verifier = verifier
        #: Whether boxes on a patterned frame must pass the looks.
        self.looks = looks
        #: The last image found to lie on a patterned surface (:func:`patterned`): the
        #: reader looks at a frame more than once (further away, closer), and a look
        #: that finds only a box or two there is judged as the frame was.
        self._patterned_image: weakref.ref[np.ndarray] | None = None
        #: Whether the last image looked at lay on a patterned surface.
        self.last_patterned = False

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None, bare: BareBoxes | None = None) -> Detections:
        """:meth:`ObbDetector.__call__` with the tile boxes judged (see the class's notes);
        those on table known bare (``bare``) dropped before any look at them."""
        found = super().__call__(image, zoom_out, long_side)
        seen = self._patterned_image() if self._patterned_image is not None else None
        found, self.last_patterned = self._judged(image, found, seen is image, bare)
        if self.last_patterned:  # a further look at a frame found patterned stays so
            self._patterned_image = weakref.ref(image)
        return found

    def detect_window(self, image: np.ndarray, window: tuple[int, int, int, int],
                      gain: float, core: tuple[float, float, float, float] | None = None,
                      bare: BareBoxes | None = None) -> Detections:
        """:meth:`ObbDetector.detect_window`, its tile boxes judged in the whole ``image``
        (their surroundings) and on a patterned surface when the last whole look found
        one; ``bare`` as in :meth:`__call__`."""
        found = super().detect_window(image, window, gain, core)
        return self._judged(image, found, self.last_patterned, bare)[0]

    def _judged(self, image: np.ndarray, found: Detections, known_patterned: bool,
                bare: BareBoxes | None = None) -> tuple[Detections, bool]:
        """``found`` without the tile boxes on table known bare (``bare``), and without
        those that fail the looks or the domino check when ``image`` lies on a patterned
        surface (``known_patterned``, or the looks say so), and whether it does. A box on
        bare table counts as one failing the looks: it is the table's pattern."""
        tiles = np.flatnonzero(found.class_id == self.tile_class)
        if not len(tiles):
            return found, known_patterned
        corners, scores = found.corners[tiles], found.confidence[tiles]
        on_bare = (np.zeros(len(tiles), bool) if bare is None
                   else np.asarray(bare(found.corners), bool)[tiles])
        kept = ~on_bare
        if self.looks and kept.any():  # the looks cost ~2 ms a box: not for the bare table
            look = np.flatnonzero(kept)
            kept[look] = tile_mask(image, corners[look], scores[look])
        if self.verifier is not None and (known_patterned or not self.looks
                                          or patterned(kept)):
            # only where the looks find a pattern (or are off): the check costs a crop
            # and a classifier pass a box, and on a plain top the reader checks the
            # boxes it reads
            ask = np.flatnonzero(kept)
            kept[ask] = ~self.verifier(image, corners[ask], scores[ask]).dropped
        is_patterned = known_patterned or patterned(kept)
        keep = np.ones(len(found), bool)
        keep[tiles] = kept if is_patterned else ~on_bare
        return (found[keep] if not keep.all() else found), is_patterned
