"""What a video tracker asks of a reader: the :class:`TileSource` protocol.

:class:`vision.reading.reader.TileReader` implements it, and so do the tests' fake
readers. A reader that only reads whole frames (:class:`FrameReader`, such as
the oracle of ``datasets.table_game``) is read whole at every still frame.
Which boxes are tiles (pieces of one tile joined into it) and which markers a
single look is sure of are decided here, once, for the reader and the tracker.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes
from vision.reading.boxes.fragments import join_fragments
from vision.readings import FrameReading, TileReadings


class BoxReadings(NamedTuple):
    """A still frame's boxes read in one call (:meth:`TileSource.read_boxes`): the
    tiles read, best first; the backs set apart among them; one reading per outline
    looked at again, in order."""

    tiles: TileReadings
    backs: TileReadings
    again: TileReadings


class FrameReader(Protocol):
    """A reader of whole frames."""

    def read(self, image: np.ndarray) -> FrameReading: ...


@runtime_checkable
class TileSource(Protocol):
    """A reader that finds boxes and reads them apart, so that a tracker reads only
    the boxes it does not know already.

    ``tile_class`` and ``marker_class`` are the detector's classes,
    ``marker_threshold`` the score above which one look makes a marker, and
    ``join_fragments`` whether overlapping pieces of one tile are joined
    (``vision.reading.boxes.fragments``) before they are matched or read.
    """

    tile_class: int
    marker_class: int
    marker_threshold: float
    join_fragments: bool

    def detect(self, image: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        """Tiles and markers found in ``image``; no tile where ``bare`` says the boxes lie
        on table known to be bare."""
        ...

    def read_boxes(self, image: np.ndarray, tiles: Detections, again: np.ndarray
                   ) -> BoxReadings:
        """In one call, what a still frame needs read: the boxes ``tiles`` (read, the
        backs of tiles lying face down among them set apart) and the outlines ``again``
        ``(N, 4, 2)``, each read exactly there."""
        ...

    def read_at(self, image: np.ndarray, corners: np.ndarray) -> TileReadings:
        """One reading per outline ``corners`` ``(N, 4, 2)``, read exactly there."""
        ...


def joined(reader: TileSource, tiles: Detections) -> Detections:
    """``tiles`` with the pieces of one tile joined into it when ``reader`` joins them."""
    return join_fragments(tiles) if reader.join_fragments and len(tiles) else tiles


def tile_boxes(reader: TileSource, found: Detections) -> Detections:
    """The tiles among the detections ``found`` (:func:`joined`)."""
    return joined(reader, found[found.class_id == reader.tile_class])


def sure_markers(reader: TileSource, found: Detections) -> Detections:
    """The markers among ``found`` scored above ``reader.marker_threshold``: sure enough
    to take from one look."""
    return found[(found.class_id == reader.marker_class)
                 & (found.confidence > reader.marker_threshold)]
