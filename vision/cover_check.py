"""Whether a hand hides part of a tile: the cover check (session 25).

A hand or a sleeve reaching over a tile hides some of its pips, and the half
classifier, trained on halves in full view, still names a count for what shows,
often surely and wrongly (a 12-12 with a sleeve over one half read 3-12, 91 %
sure). On 200 rendered hands scenes (seed 9401) 25 of the 29 tiles read wrong had
pips out of view, and 19 of the 29 were read without a doubt. The ``covered`` model
(``models/covered.onnx``, classes ``covered`` and ``open``, trained on the
``crops-covered`` half crops of ``datasets.render``) looks at each half crop of
a hand photo; a tile with a half it finds covered is flagged ``uncertain``, so
that ``mtrain score`` and the companion's hand page ask for a look by eye
instead of pricing a guess silently. Its reading is left as it is: the hidden
pips cannot be read, only owned up to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from vision.onnx_models import Classifier, ModelSpec
from vision.reader import FrameReading, TileReading, tile_half_crops

#: A half the cover check gives at least this probability of ``covered`` is covered.
#: Chosen on 200 development hands scenes (seed 9101; 0.5 flagged 25 of the 1568
#: tiles read right in full view, 0.9 flags 9, and 15 instead of 16 of the 18 tiles
#: read wrong), checked on 200 more (seed 9401: 28 of the 29 tiles read wrong flagged
#: against 10 before, 7 of 1698 right ones in full view).
COVERED_SURE = 0.9


class CoverCheck:
    """The ``covered`` classifier on the half crops of read tiles."""

    def __init__(self, spec: ModelSpec, threads: int | None = None) -> None:
        if "covered" not in spec.names:
            raise ValueError(f"{spec.file}: a cover check names a 'covered' class, "
                             f"got {list(spec.names)}")
        self.classifier = Classifier(spec, threads=threads)
        self.covered_class = spec.names.index("covered")

    def covered(self, image: np.ndarray, tiles: Sequence[TileReading]) -> np.ndarray:
        """The probability that a hand covers each half of each tile: ``(len(tiles), 2)``,
        column ``k`` the half of ``values[k]``."""
        if not tiles:
            return np.zeros((0, 2), np.float32)
        crops: list[np.ndarray] = []
        for tile in tiles:
            crops.extend(tile_half_crops(image, tile.corners))
        probs = self.classifier(crops)[:, self.covered_class]
        return np.asarray(probs, np.float32).reshape(len(tiles), 2)


def flag_covered(frame: FrameReading, image: np.ndarray, check: CoverCheck | None,
                 sure: float = COVERED_SURE) -> FrameReading:
    """``frame`` with every tile that has a half ``check`` finds covered (``sure`` or
    more) flagged ``uncertain`` and ``covered``; as it is without a check."""
    if check is None or not frame.tiles:
        return frame
    covered = check.covered(image, frame.tiles).max(axis=1) >= sure
    tiles = [dataclasses.replace(t, uncertain=True, covered=True) if hidden else t
             for t, hidden in zip(frame.tiles, covered.tolist(), strict=True)]
    return FrameReading(tiles, frame.markers, frame.shape)
