"""The reader's two tile detectors: ``tiles`` for tables seen whole, and ``tiles_closeup``
for close-ups and photos of hands (``vision.reading.look_sizes.CLOSE_UP_TILE_PX``).

``tiles`` is fine-tuned on whole tables at the sizes the reader's looks show their tiles;
it boxes big tiles seen at a slant on their inner part, which the close-up detector does
not. The close-up detector is loaded on first need. It also names the markers of
every look the table detector takes, at a whole frame or a window of it
(:func:`closeup_markers`): the table detector learnt markers from few composited
sprites and calls more things markers (loops of a cloth's thread, at 0.5-0.7), and
misses more.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.models.detections import Detections
from vision.models.onnx_models import ObbDetector


class DetectorPair:
    """``table``, the detector as loaded, and the close-up one ``load_closeup`` makes
    (None: none listed), made once and shared by the reader's copies."""

    def __init__(self, table: ObbDetector,
                 load_closeup: Callable[[], ObbDetector] | None) -> None:
        self.table = table
        self._load_closeup = load_closeup
        self._closeup: ObbDetector | None = None

    def pairs(self, detector: ObbDetector | None) -> bool:
        """Whether a close-up detector goes with ``detector`` (the table one as loaded: a
        reader whose detector was replaced has none); it names that one's markers."""
        return detector is self.table and self._load_closeup is not None

    def closeup_for(self, detector: ObbDetector) -> ObbDetector:
        """The close-up detector that goes with ``detector`` (loaded now if need be),
        else ``detector`` itself."""
        if not self.pairs(detector) or self._load_closeup is None:
            return detector
        if self._closeup is None:
            self._closeup = self._load_closeup()
        return self._closeup


def closeup_markers(found: Detections, closeup: ObbDetector, image: np.ndarray,
                    marker_class: int, window: tuple[int, int, int, int] | None = None,
                    gain: float = 1.0, core: tuple[float, float, float, float] | None = None
                    ) -> Detections:
    """The boxes ``found`` (one look at ``image``, or at its part ``window`` on the scale
    ``gain``, centred in ``core``: ``ObbDetector.detect_window``) with their markers
    replaced by those ``closeup`` finds at the same look, unjudged."""
    if window is None:
        side = float(found.metadata.get("gain", 1.0)) * max(image.shape[:2])
        again = closeup.unchecked(image, long_side=int(round(side)))
    else:
        again = closeup.unchecked_window(image, window, gain, core)
    marks = again[again.class_id == marker_class]
    if set(marks.data) != set(found.data):
        return found
    return Detections.merge([found[found.class_id != marker_class], marks])
