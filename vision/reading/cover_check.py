"""Whether a hand hides part of a tile: the cover check.

A hand or a sleeve reaching over a tile hides some of its pips, and the half
classifier, trained on halves in full view, still names a count for what shows,
often surely and wrongly (a 12-12 with a sleeve over one half read 3-12, 91 %
sure). On 200 rendered hands scenes (seed 9401) 25 of the 29 tiles read wrong had
pips out of view, and 19 of the 29 were read without a doubt. The ``covered`` model
(``models/covered.onnx``, classes ``covered`` and ``open``, trained on the
``crops-covered`` half crops of ``datasets.render``) looks at each half crop of
a hand photo; a tile with a half it finds covered is flagged ``uncertain``, so
that ``mtrain score`` and the companion's hand page ask for a look by eye
instead of pricing a guess silently.

The hidden pips cannot be read, but the ones in view often tell the count: a
half's pips follow its count's layout, and a centre pip or a column running
under a sleeve rules counts in and out. The ``halves_covered`` model
(``models/halves_covered.onnx``) is the half classifier trained on further on the
same crops, covered and open, each by its true count; a half found covered is
counted again by it (:func:`recount`), and its tile stays flagged: the count is
the likeliest one, not a sure one.

The check looks at each half's face inside the tile's box, not at the whole box
(``FACE_INSET``). A real tile has rounded corners and bevelled edges, and its box
reaches past them, so a crop of the whole box shows the table in its corners and
along its edges; the check, trained on rendered tiles, took that for something
lying over the half. On real photos with no hand in them it called whole, clearly
read tiles covered (a 7-11 on a plain dark table, 95 % sure); looking inside
the box, those halves are open while a hand over the face still shows (on the eval
set's rendered hands every tile an arm covers is still found covered).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from vision.models.crops import tile_half_crops
from vision.models.onnx_models import Classifier, ModelSpec, class_counts
from vision.readings import MAX_VALUE, FrameReading, TileReading, TileReadings

#: A half the cover check gives at least this probability of ``covered`` is covered.
#: Chosen on 200 development hands scenes (seed 9101; 0.5 flagged 25 of the 1568
#: tiles read right in full view, 0.9 flags 9, and 15 instead of 16 of the 18 tiles
#: read wrong), checked on 200 more (seed 9401: 28 of the 29 tiles read wrong flagged
#: against 10 before, 7 of 1698 right ones in full view).
COVERED_SURE = 0.9

#: The cover check looks this far inside each side of a tile's box (a share of its
#: width): past the rounded corners and bevelled edges whose strip of table the box
#: takes in. Chosen on the eval set's 40 rendered hands: at 0.04 to 0.08 every half an
#: arm covers is still found covered; above 0.04 a tile in full view began to be
#: called covered.
FACE_INSET = 0.05


def face_corners(corners: np.ndarray, inset: float = FACE_INSET) -> np.ndarray:
    """A tile's box moved ``inset`` of its width inwards on every side, in the corner
    convention of ``corners``."""
    c = np.asarray(corners, np.float32).reshape(4, 2)
    along, across = c[3] - c[0], c[1] - c[0]  # from the first end to the second; across it
    width = float(min(np.linalg.norm(across), np.linalg.norm(c[2] - c[3])))
    if width <= 0 or not np.isfinite(width):
        return c
    step_along = along / max(float(np.linalg.norm(along)), 1e-6) * inset * width
    step_across = across / max(float(np.linalg.norm(across)), 1e-6) * inset * width
    return np.array([c[0] + step_along + step_across, c[1] + step_along - step_across,
                     c[2] - step_along - step_across, c[3] - step_along + step_across],
                    np.float32)


class CoverCheck:
    """The ``covered`` classifier on the half crops of read tiles and, when given
    (``counter``), the ``halves_covered`` classifier that counts the halves it finds
    covered."""

    def __init__(self, spec: ModelSpec, counter: ModelSpec | None = None,
                 threads: int | None = None) -> None:
        if "covered" not in spec.names:
            raise ValueError(f"{spec.file}: a cover check names a 'covered' class, "
                             f"got {list(spec.names)}")
        self.classifier = Classifier(spec, threads=threads)
        self.covered_class = spec.names.index("covered")
        #: The count each class of ``counter`` stands for (empty without one).
        self.counts = (class_counts(counter.names, str(counter.file)) if counter
                       else np.zeros(0, int))
        self.counter = Classifier(counter, threads=threads) if counter else None

    def crops(self, image: np.ndarray, tiles: Sequence[TileReading]) -> list[np.ndarray]:
        """The half crops of ``tiles``, two per tile, in the order of its ``values``."""
        crops: list[np.ndarray] = []
        for tile in tiles:
            crops.extend(tile_half_crops(image, tile.corners))
        return crops

    def face_crops(self, image: np.ndarray, tiles: Sequence[TileReading]) -> list[np.ndarray]:
        """The half crops of each tile's face inside its box (``FACE_INSET``), two per
        tile, in the order of its ``values``: what the cover check judges."""
        crops: list[np.ndarray] = []
        for tile in tiles:
            crops.extend(tile_half_crops(image, face_corners(tile.corners)))
        return crops

    def covered(self, image: np.ndarray, tiles: Sequence[TileReading],
                crops: Sequence[np.ndarray] | None = None) -> np.ndarray:
        """The probability that a hand covers each half of each tile: ``(len(tiles), 2)``,
        column ``k`` the half of ``values[k]`` (``crops``: :meth:`face_crops`, if cut
        already)."""
        if not tiles:
            return np.zeros((0, 2), np.float32)
        crops = self.face_crops(image, tiles) if crops is None else crops
        probs = self.classifier(list(crops))[:, self.covered_class]
        return np.asarray(probs, np.float32).reshape(len(tiles), 2)

    def recount(self, crops: Sequence[np.ndarray], top: int) -> list[tuple[int, float]]:
        """Each half crop's likeliest count up to ``top`` (the set's largest half) and its
        probability among those counts, by the covered-half counter; empty without one."""
        if self.counter is None or not crops:
            return []
        allowed = self.counts <= top
        if not allowed.any():
            return []
        kept = np.where(allowed, self.counter(list(crops)), 0.0)
        best = kept.argmax(axis=1)
        share = kept[np.arange(len(kept)), best] / np.maximum(kept.sum(axis=1), 1e-12)
        return [(int(self.counts[b]), float(p)) for b, p in zip(best, share, strict=True)]


def flag_covered(frame: FrameReading, image: np.ndarray, check: CoverCheck | None,
                 sure: float = COVERED_SURE, top: int = MAX_VALUE) -> FrameReading:
    """``frame`` with every tile that has a half ``check`` finds covered (``sure`` or
    more) flagged ``uncertain`` and ``covered``, and each such half counted again by
    the check's covered-half counter (:meth:`CoverCheck.recount`, counts up to ``top``)
    when it has one; as it is without a check."""
    if check is None or not frame.tiles:
        return frame
    read = frame.tiles.each()
    crops = check.crops(image, read)  # the whole box: what the counter learnt
    hidden = check.covered(image, read) >= sure  # the faces (``FACE_INSET``)
    where = [(int(i), int(k)) for i, k in np.argwhere(hidden)]
    counts = dict(zip(where, check.recount([crops[2 * i + k] for i, k in where], top),
                      strict=False))
    tiles = []
    for i, tile in enumerate(read):
        if not hidden[i].any():
            tiles.append(tile)
            continue
        values = list(tile.values)
        certainty = list(tile.half_certainty)
        ranges = [list(r) for r in tile.ranges] if tile.ranges else None
        for k in (0, 1):
            if (i, k) not in counts:
                continue
            values[k], certainty[k] = counts[(i, k)]
            if ranges is not None:
                ranges[k] = [min(ranges[k][0], values[k]), max(ranges[k][1], values[k])]
        tiles.append(dataclasses.replace(
            tile, values=(values[0], values[1]),
            confidence=min(tile.confidence, *certainty), uncertain=True, covered=True,
            half_certainty=(certainty[0], certainty[1]),
            ranges=((ranges[0][0], ranges[0][1]), (ranges[1][0], ranges[1][1]))
            if ranges is not None else None))
    return FrameReading(TileReadings.of(tiles), frame.markers, frame.shape, frame.backs)
