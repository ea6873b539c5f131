"""Reading tiles: where each tile lies and what its two halves show.

Three models, all run with ONNX Runtime (no torch):

1. the ``tiles`` OBB model finds tiles and train markers on the whole frame,
   downscaled to its input size (``tiles_closeup`` on close-ups and hands:
   ``vision.reading.detector_pair``);
2. the ``halves`` model (when ``models.json`` lists one) says how likely each
   count is from the look of the whole half crop: 96×96 half-tile crops cut by
   ``vision.models.crops`` from the **full-resolution** image, all halves of a frame in
   one batch;
3. the ``pips`` model finds the pips on the crops the ``halves`` model does not
   name surely (``CLASSIFIER_SURE``; on every crop without that model), one batch.

A half's count from the pips is the number scored at or above ``pip_threshold``.
How sure that count is follows from how far each pip score lies from the
threshold: a pip scored near it could as well be missing or extra. With the
``halves`` model, a crop it names surely has that count, as sure as its
probability; otherwise the value is the count it finds likeliest, weighed by the
pips' count and range (``vision.reading.count_vote``), and a count other than the pips'
is as sure as its share of the weighed probabilities. A tile's
confidence is the detector's score times the certainty of both halves; a
reading below ``uncertain_below``, or with a value above the set's largest,
is flagged ``uncertain`` (it is reported, never silently guessed). A half counted
blank, however surely, on which the pip model scores marks far below the threshold
(``FAINT_PIP``; faint pips) could be more: its range says so.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.images import load_image
from vision.models.crops import tile_half_crops
from vision.models.detections import Detections
from vision.models.domino_check import DominoCheck
from vision.models.onnx_models import (
    BareBoxes,
    BoxDetector,
    Classifier,
    ModelSpec,
    ObbDetector,
    class_counts,
    load_specs,
)
from vision.models.tile_check import CheckedTileDetector
from vision.reading.boxes.blank_markers import blank_on_markers
from vision.reading.boxes.duplicate_boxes import best_readings
from vision.reading.boxes.hollow_markers import drop_hollow
from vision.reading.boxes.variants import box_variants
from vision.reading.count_certainty import (
    CLASSIFIED_UP_TO,
    CLASSIFIER_SURE,
    FAINT_PIP,
    PIP_BAND,
    PIP_THRESHOLD,
    faint_blank,
    inside_half,
    pip_count,
    within_set,
)
from vision.reading.count_vote import classifier_counts, vote
from vision.reading.cover_check import CoverCheck
from vision.reading.detector_pair import DetectorPair, closeup_markers
from vision.reading.domino_verdicts import judged
from vision.reading.face_down import markers_on_backs, split_face_down
from vision.reading.look_sizes import (
    CLOSE_UP_TILE_PX,
    SMALL_TILE_PX,
    SNAP_BELOW_PX,
    ZOOM_IN_MAX,
    ZOOM_IN_SHARE,
    ZOOM_IN_SIDE,
    ZOOM_OUT,
    is_close_up,
    tile_width,
)
from vision.reading.missed_markers import FAINT_MARKER, ceil32, found_near, more_markers
from vision.reading.reader_interface import BoxReadings, joined
from vision.readings import MAX_VALUE, FrameReading, HalfCount, TileReading, TileReadings

if TYPE_CHECKING:
    from vision.reading.set_profile import SetProfile

#: Tile detector score floor.
TILE_THRESHOLD = 0.25
#: Readings less confident than this are flagged ``uncertain``.
UNCERTAIN_BELOW = 0.5
#: Tiles whose short side is below this many pixels are too small to read.
MIN_SIDE_PX = 3.0


class TileReader:
    """Reads tiles and markers with the ONNX models in ``models_dir``.

    >>> reader = TileReader("models")            # doctest: +SKIP
    >>> frame = reader.read("photo.jpg")         # doctest: +SKIP
    >>> [t.values for t in frame.tiles]          # doctest: +SKIP
    [(5, 7), (0, 12)]

    ``max_value`` is the largest half of the set on the table (12 for a double-12
    set), as the rule set names it; ``None`` when it is not known (any set up to
    double-18). ``precision`` (``"int8"``, ``"float"`` or ``"auto"``) picks each
    model's export; by default ``MTRAIN_PRECISION``, else ``vision.models.precision``'s choice,
    the same on every CPU.
    """

    def __init__(self, models_dir: str | os.PathLike[str] | None = "models", *,
                 max_value: int | None = None,
                 tile_threshold: float = TILE_THRESHOLD,
                 pip_threshold: float = PIP_THRESHOLD,
                 pip_band: float = PIP_BAND,
                 uncertain_below: float = UNCERTAIN_BELOW,
                 zoom_out: float = ZOOM_OUT,
                 snap_below_px: float = SNAP_BELOW_PX,
                 zoom_in_side: int | None = ZOOM_IN_SIDE,
                 join_fragments: bool = True,
                 reshape_small: bool = True,
                 turn_squarish: bool = True,
                 even_halves: bool = True,
                 classify_halves: bool = True,
                 classifier_sure: float | None = CLASSIFIER_SURE,
                 faint_pip: float | None = FAINT_PIP,
                 quick_look: bool = True,
                 drop_hollow_markers: bool = True,
                 check_cover: bool = True,
                 spot_face_down: bool = True,
                 check_tiles: bool = True,
                 tile_looks: bool = True,
                 verify_tiles: bool = True,
                 threads: int | None = None,
                 precision: str | None = None) -> None:
        specs = load_specs(models_dir, precision)
        #: The export each model runs (``vision.models.precision``: 8-bit or float), by name.
        self.model_files = {key: spec.file.name for key, spec in specs.items()}
        names = specs["tiles"].names
        self.tile_class = names.index("tile") if "tile" in names else 0
        self.marker_class = names.index("marker") if "marker" in names else -1
        faint = {self.marker_class: FAINT_MARKER} if self.marker_class >= 0 else {}
        #: The domino check (``vision.models.domino_check``) when listed and wanted: a tile box
        #: it is sure is no domino is never read, one it doubts is read ``uncertain``.
        self.domino_check = (DominoCheck(specs["verifier"], threads=threads)
                             if check_tiles and verify_tiles and "verifier" in specs else None)
        #: Whether boxes on a patterned frame must pass ``vision.models.tile_check``'s looks.
        self.tile_looks = check_tiles and tile_looks
        def detector(spec: ModelSpec) -> ObbDetector:
            # a tile box must be a domino, not a patterned surface (vision.models.tile_check)
            if check_tiles:
                return CheckedTileDetector(spec, conf_threshold=tile_threshold, threads=threads,
                                           class_thresholds=faint, verifier=self.domino_check,
                                           looks=tile_looks)
            return ObbDetector(spec, conf_threshold=tile_threshold, threads=threads,
                               class_thresholds=faint)

        self.detector: ObbDetector = detector(specs["tiles"])
        closeup = specs.get("tiles_closeup")
        self._pair = DetectorPair(self.detector,
                                  None if closeup is None else lambda: detector(closeup))
        floor = max(0.01, pip_threshold - pip_band)
        classify = classify_halves and "halves" in specs
        self.pip_detector = BoxDetector(specs["pips"], conf_threshold=floor, threads=threads)
        #: The ``halves`` classifier, when listed and wanted (``vision.reading.count_vote``).
        self.half_classifier = (Classifier(specs["halves"], threads=threads)
                                if classify else None)
        #: A half crop the classifier names at least this surely is not shown to the pip
        #: model (``CLASSIFIER_SURE``; None: every crop is).
        self.classifier_sure = classifier_sure
        #: A half counted blank whose candidate pips score this much could be as many
        #: counts as there are (``vision.reading.count_certainty.faint_blank``; None: not
        #: looked for). Blanks the classifier names surely are shown to the pip model
        #: for it.
        self.faint_pip = faint_pip
        #: The quick classifier that looks at every crop before ``half_classifier`` (at
        #: 96 px) looks again at those it is unsure of (``QUICK_SURE``), when listed
        #: (``halves_quick``) and wanted.
        self.quick_classifier = (Classifier(specs["halves_quick"], threads=threads)
                                 if classify and quick_look and "halves_quick" in specs
                                 else None)
        if classify:
            class_counts(specs["halves"].names, str(specs["halves"].file))  # fail early
        if self.quick_classifier is not None:
            class_counts(specs["halves_quick"].names, str(specs["halves_quick"].file))
        #: Markers scored above this are taken from one look; those from
        #: ``FAINT_MARKER`` up only where the other look finds one too.
        self.marker_threshold = tile_threshold
        #: The largest half of the set read (double-``max_value``): a count beyond it is a
        #: misread (``vision.reading.count_certainty.within_set``). ``MAX_VALUE`` when the set
        #: is not known.
        self.max_value = MAX_VALUE
        #: The counts the ``halves`` classifier votes for: 0 to this (``CLASSIFIED_UP_TO``).
        self.classified_up_to = CLASSIFIED_UP_TO
        self._set_top(max_value)
        self.pip_threshold = pip_threshold
        self.pip_band = pip_band
        self.uncertain_below = uncertain_below
        self.zoom_out = zoom_out
        self.snap_below_px = snap_below_px
        self.zoom_in_side = zoom_in_side
        #: Overlapping pieces of one tile found as several boxes are read as that tile
        #: (``vision.reading.boxes.fragments``).
        self.join_fragments = join_fragments
        #: A small tile's box noticeably short or wide for its neighbours is given
        #: their shape before it is read (``vision.reading.boxes.box_shape``).
        self.reshape_small = reshape_small
        #: A nearly square box (a double boxed askew across a train) is also read turned
        #: along and across the tiles continuing a train from it
        #: (``vision.reading.boxes.box_shape.turned_boxes``); a sure reading of it, if more
        #: confident, kept.
        self.turn_squarish = turn_squarish
        #: A larger tile's box is also read evened out about its divider, and the more
        #: confident reading kept (``vision.reading.boxes.divider.even_about_divider``).
        self.even_halves = even_halves
        #: A marker box whose middle is the table around it (a loop or line of the
        #: background's thread) is dropped (``vision.reading.boxes.hollow_markers``).
        self.drop_hollow_markers = drop_hollow_markers
        #: A 0-0 reading with no divider in its middle is the back of a tile lying face
        #: down (the boneyard): set apart, not read (``vision.reading.face_down``).
        self.spot_face_down = spot_face_down
        #: Input side of the closer look the last frame needed: video frames start with it.
        self._close_side: int | None = None
        #: Input long side of the last look at a whole image (the closer look's, the
        #: trained size's, or a further look's): windows of later frames are looked at on
        #: its scale, with the detector it chose.
        self._look_side: int | None = None
        #: The detector the last look chose (``closeup_detector`` or ``detector``): later
        #: frames' windows are looked at with it, and with ``detector`` the markers
        #: are those ``closeup_detector`` finds at the same look.
        self._chosen: ObbDetector | None = None
        #: The cover check's model (``vision.reading.cover_check``) when listed and wanted: loaded
        #: on first use (``cover_check``), shared with this reader's copies (``for_set``).
        self.cover_spec = specs.get("covered") if check_cover else None
        #: The covered-half counter the check counts covered halves with, when listed.
        self.cover_count_spec = specs.get("halves_covered") if check_cover else None
        self._threads = threads
        self._cover_check: list[CoverCheck] = []  # a list: for_set's copies share it
        #: The player's own set (``vision.reading.set_profile``): each half's count is weighed by
        #: its pip colour. None: counts as read.
        self.profile: SetProfile | None = None

    def _set_top(self, top: int | None) -> None:
        if top is not None and not 1 <= top <= MAX_VALUE:
            raise ValueError(f"a set's largest half is 1 to {MAX_VALUE}, got {top}")
        self.max_value = MAX_VALUE if top is None else int(top)
        self.classified_up_to = CLASSIFIED_UP_TO if top is None else max(CLASSIFIED_UP_TO,
                                                                         int(top))

    def for_set(self, top: int | None) -> TileReader:
        """This reader for a double-``top`` set (``None``: a set not known, up to
        double-18), sharing its models: counts beyond ``top`` are misreads, and the
        ``halves`` classifier votes up to ``top`` when that is beyond
        ``CLASSIFIED_UP_TO``. The copy starts as a fresh reader (:meth:`reset`)."""
        other = copy.copy(self)
        other._set_top(top)
        other.reset()
        return other

    def for_hands(self) -> TileReader:
        """A fresh copy for photos of hands, sharing the models: looks by ``closeup_detector``."""
        other = copy.copy(self)
        other.detector = self.closeup_detector
        other.reset()
        return other

    def with_profile(self, profile: SetProfile | None) -> TileReader:
        """This reader weighing each half's count by its pip colour as ``profile`` (the
        player's set, ``vision.reading.set_profile``) knows it, sharing its models; ``None``:
        counts as read."""
        other = copy.copy(self)
        other.profile = profile
        return other

    def cover_check(self) -> CoverCheck | None:
        """The check of whether a hand covers a half (``vision.reading.cover_check``), loaded on
        first use; None when ``models.json`` lists none (or ``check_cover=False``)."""
        if self.cover_spec is None:
            return None
        if not self._cover_check:
            self._cover_check.append(CoverCheck(self.cover_spec, self.cover_count_spec,
                                                threads=self._threads))
        return self._cover_check[0]

    @property
    def closeup_detector(self) -> ObbDetector:
        """The detector for a close-up or a hand (``vision.reading.detector_pair``)."""
        return self._pair.closeup_for(self.detector)

    @property
    def look_side(self) -> int:
        """Long side of the detector's input at the last look at a whole image: the side
        windows of the next frame are looked at on (:meth:`window_gain`); before any, the
        trained size."""
        return self._look_side or self._base_side()

    def reset(self) -> None:
        """Forget what earlier frames taught (the closer look a video needed): the
        next image is read as a still, as a fresh reader would read it."""
        self._close_side = self._look_side = self._chosen = None

    def read(self, image: np.ndarray | str | os.PathLike[str],
             bare: BareBoxes | None = None) -> FrameReading:
        """Read an image (a BGR array, or a path loaded with ``load_image``); ``bare`` as in
        :meth:`detect`."""
        if not isinstance(image, np.ndarray):
            image = load_image(image)
        found = self.detect(image, bare)
        tiles, backs = self.read_tiles_and_backs(image, found[found.class_id == self.tile_class])
        marking = self.closeup_detector if self._pair.pairs(self._chosen) else self.detector
        markers = more_markers(self, marking, image, found, self._base_side(), _dynamic(marking))
        if self.drop_hollow_markers:
            markers = drop_hollow(markers, image)
        down = list(backs.corners)
        if down and len(markers):  # a back the detector called a marker is a back
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
            on_backs = markers_on_backs(grey, markers.corners, down)
            down += [np.asarray(markers.corners[i], np.float32)
                     for i in np.flatnonzero(on_backs)
                     if not found_near(markers.corners[i:i + 1], np.array(down))[0]]
            markers = markers[~on_backs]
        if len(tiles) and len(markers):  # a marker boxed as a blank tile too is the marker
            tiles = tiles[~blank_on_markers(tiles, markers)]
        return FrameReading(tiles, markers, (int(image.shape[0]), int(image.shape[1])),
                            tuple(down))

    def detect(self, image: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        """Tiles and markers in ``image``, looked at from the distance that suits them;
        ``bare``: which boxes lie on table known to be bare (``vision.change.known_table``),
        no tiles: dropped where they are found (by a ``CheckedTileDetector`` before its
        looks at them).

        At the trained input size first; when no tile shows, again from further
        away (``zoom_out``: a close-up), and when none shows there either, closer
        (a whole table with only a tile or two on it); when the tiles are tiny,
        again closer (``zoom_in_side``: a whole table). Over a video the closer look, once
        needed, is taken first until the tiles are big enough without it.
        """
        side = self._close_side if _dynamic(self.detector) and self.zoom_in_side else None
        found = None if side is None else _look(self.detector, image, bare, long_side=side)
        width = None if found is None else tile_width(self._tiles_in(found))
        if side is None or found is None or width is None:
            self._close_side = None
            found = self._first_look(image, bare)
        else:
            self._close_side = side if width * self._base_side() / side < SMALL_TILE_PX else None
            self._chosen = self.detector
        gain = found.metadata.get("gain")
        self._look_side = None if gain is None else round(float(gain) * max(image.shape[:2]))
        return (closeup_markers(found, self.closeup_detector, image, self.marker_class)
                if self._pair.pairs(self._chosen) else found)

    def window_gain(self, shape: tuple[int, int]) -> float | None:
        """Detector input pixels per image pixel of an image of ``shape`` (h, w) looked at
        as the last whole image was (:attr:`look_side`): the scale its windows keep the
        tiles' size on; None when the detector takes one input size only."""
        return self.look_side / max(shape) if _dynamic(self.detector) else None

    def detect_window(self, image: np.ndarray, window: tuple[int, int, int, int],
                      gain: float, core: tuple[float, float, float, float],
                      bare: BareBoxes | None = None) -> Detections:
        """Tiles and markers centred in ``core`` (x0, y0, x1, y1) found in the part
        ``window`` of ``image``, in ``image`` pixels, looked at on the scale ``gain``
        (:meth:`window_gain`) of a look at the whole image: the tiles keep the size the
        detector knows; ``bare`` as in :meth:`detect`."""
        closeup = self._chosen is not None and self._chosen is not self.detector
        chosen = self.closeup_detector if closeup else self.detector
        found = chosen.detect_window(image, window, gain, core, bare)
        return (closeup_markers(found, self.closeup_detector, image, self.marker_class,
                                window, gain, core) if self._pair.pairs(chosen) else found)

    def _first_look(self, image: np.ndarray, bare: BareBoxes | None) -> Detections:
        look = self.detector
        found = _look(look, image, bare)
        width = tile_width(self._tiles_in(found))
        if self._pair.pairs(look) and (width is None or width >= CLOSE_UP_TILE_PX):
            look = self.closeup_detector  # a close-up or a hand: see closeup_detector
            found = _look(look, image, bare)
            width = tile_width(self._tiles_in(found))
        self._chosen = look
        if width is None:
            further = (_look(look, image, bare, zoom_out=self.zoom_out)
                       if self.zoom_out > 1 else found)
            if is_close_up(self._tiles_in(further), image):
                return further
            # nothing close up either: perhaps a few tiles too tiny to see (a table seen
            # whole with only its engine laid)
            if self._side_for(image, look) > self._base_side():
                closer = self._closer_look(image, look, bare)
                if closer is not None:
                    nearer, side, width = closer
                    if width * self._base_side() / side < SMALL_TILE_PX:
                        self._close_side = side
                    return nearer
            return further
        if width < SMALL_TILE_PX:
            closer = self._closer_look(image, look, bare)
            if closer is not None:
                self._close_side = closer[1]
                return closer[0]
        return found

    def _tiles_in(self, found: Detections) -> Detections:
        return found[found.class_id == self.tile_class] if len(found) else found

    def _closer_look(self, image: np.ndarray, detector: ObbDetector, bare: BareBoxes | None
                     ) -> tuple[Detections, int, float] | None:
        """The frame at the closer look's side by ``detector``: what was found there, the
        side and the tiles' width; ``None`` when it cannot look closer or no tile shows."""
        if not (self.zoom_in_side and _dynamic(detector)):
            return None
        side = self._side_for(image, detector)
        nearer = _look(detector, image, bare, long_side=side)
        width = tile_width(self._tiles_in(nearer))
        return None if width is None else (nearer, side, width)

    def _base_side(self) -> int:
        return int(max(getattr(self.detector, "input_size", (416, 416))))

    def _side_for(self, image: np.ndarray, detector: ObbDetector) -> int:
        """Input long side of the closer look by ``detector``: ``zoom_in_side`` (the table
        detector's more on a big frame, ``ZOOM_IN_SHARE``), within the image and trained sizes."""
        base, long = self._base_side(), max(image.shape[:2])
        share = ZOOM_IN_SHARE if detector is self._pair.table else 0.0
        side = self.zoom_in_side and max(self.zoom_in_side,
                                         min(ZOOM_IN_MAX, ceil32(share * long)))
        return int(max(min(int(side or base), ceil32(long)), base))

    def read_tiles(self, image: np.ndarray, tiles: Detections) -> TileReadings:
        """Read the values of already-located tiles (corners in ``image`` pixels); the
        backs of tiles lying face down are left out (``read_tiles_and_backs``)."""
        return self.read_tiles_and_backs(image, tiles)[0]

    def read_tiles_and_backs(self, image: np.ndarray, tiles: Detections
                             ) -> tuple[TileReadings, TileReadings]:
        """Read the values of already-located tiles (corners in ``image`` pixels), and set
        apart the backs of tiles lying face down (``vision.reading.face_down``; read 0-0).

        Small tiles are read twice, as found and snapped to their divider, and
        the more confident reading is kept (larger ones, as found and lengthened at
        the end their divider says is short, ``vision.reading.boxes.divider.even_about_divider``);
        a small tile's box that is short or
        wide for its neighbours is first given their shape (``vision.reading.boxes.box_shape``),
        and a nearly square box is also read turned along and across the train it
        lies in (``turned_boxes``; kept only when sure and more confident).
        Readings of one tile found twice are merged (see ``SNAP_BELOW_PX``,
        ``DUPLICATE_IOU``), and overlapping pieces of one tile are joined first
        (``vision.reading.boxes.fragments``). Best first, both.

        This is where boxes become tile readings, for a still (:meth:`read`) and for
        the boxes a video tracker does not know already (``vision.tracking.tile_memory``).
        """
        sides = np.linalg.norm(np.roll(tiles.corners, -1, axis=1) - tiles.corners, axis=2)
        tiles = tiles[sides.min(axis=1) >= MIN_SIDE_PX] if len(tiles) else tiles
        if not len(tiles):
            return TileReadings.empty(), TileReadings.empty()
        tiles = joined(self, tiles)
        boxes, owner, turned_at, grey = box_variants(
            image, tiles, getattr(self.detector, "input_size", image.shape[:2]),
            snap_below_px=self.snap_below_px, reshape_small=self.reshape_small,
            turn_squarish=self.turn_squarish, even_halves=self.even_halves)
        found = self._read_each(image, np.array(boxes, np.float32), tiles.confidence[owner])
        readings = best_readings(found, boxes, owner, turned_at, len(tiles))
        if self.domino_check is not None:
            readings = judged(self.domino_check, image, readings)
        if not self.spot_face_down:
            return TileReadings.of(readings), TileReadings.empty()
        up, down = split_face_down(image if grey is None else grey, readings)
        return TileReadings.of(up), TileReadings.of(down)

    def read_boxes(self, image: np.ndarray, tiles: Detections, again: np.ndarray
                   ) -> BoxReadings:
        """What a tracker's still frame needs read, in one call (``TileSource``): the
        boxes ``tiles`` as :meth:`read_tiles_and_backs` reads them, and the outlines
        ``again`` as :meth:`read_at` does."""
        return BoxReadings(*self.read_tiles_and_backs(image, tiles), self.read_at(image, again))

    def read_at(self, image: np.ndarray, corners: np.ndarray,
                detector_confidence: np.ndarray | None = None) -> TileReadings:
        """One reading per box ``corners`` ``(N, 4, 2)`` (corner convention), read exactly
        there, in order: no snapping, merging or sorting; each box scored
        ``detector_confidence`` (or 1). A video tracker uses it to look again where a
        tile lay, the table where it does not hold together, a hand photo where a tile
        may have been missed."""
        return TileReadings.of(self._read_each(image, corners, detector_confidence))

    def _read_each(self, image: np.ndarray, corners: np.ndarray,
                   detector_confidence: np.ndarray | None = None) -> list[TileReading]:
        """:meth:`read_at` as a list, each box scored ``detector_confidence`` (or 1)."""
        boxes = np.asarray(corners, np.float32).reshape(-1, 4, 2)
        if not len(boxes):
            return []
        scores = (np.ones(len(boxes), np.float32) if detector_confidence is None
                  else np.asarray(detector_confidence, np.float32))
        crops: list[np.ndarray] = []
        for box in boxes:
            crops.extend(tile_half_crops(image, box))
        halves = self.count_halves(crops)
        readings = []
        for k, box in enumerate(boxes):
            first, second = halves[2 * k], halves[2 * k + 1]
            det = float(scores[k])
            confidence = det * first.certainty * second.certainty
            uncertain = (confidence < self.uncertain_below
                         or max(first.value, second.value) > self.max_value)
            # a count beyond the set is a misread: the most the half could be in the set
            a, low_a, high_a = within_set(first.value, first.low, first.high, self.max_value)
            b, low_b, high_b = within_set(second.value, second.low, second.high, self.max_value)
            readings.append(TileReading((a, b), box, confidence, uncertain, det,
                                        (first.certainty, second.certainty),
                                        ((low_a, high_a), (low_b, high_b))))
        return readings

    def count_pips(self, crops: Sequence[np.ndarray]) -> list[tuple[int, float, Detections]]:
        """``(count, certainty, pips)`` for each half crop; one model batch for all."""
        return [(h.value, h.certainty, h.pips) for h in self.count_halves(crops)]

    def count_halves(self, crops: Sequence[np.ndarray]) -> list[HalfCount]:
        """Each half crop's count, its certainty, its pips and the range of counts
        it could be (``RANGE_BAND``). The ``halves`` classifier looks at every crop (one
        batch); a crop it names surely (``classifier_sure``) has that count, and the
        others go to the pip model (one batch), whose count and range its vote then
        weighs (``vision.reading.count_vote``). Without the classifier, the pips count alone."""
        probs = (None if self.half_classifier is None else classifier_counts(
            crops, self.half_classifier, self.quick_classifier, self.classified_up_to))
        named: dict[int, HalfCount] = {}  # crop index -> the count the classifier is sure of
        if probs is not None and self.classifier_sure is not None:
            for i in np.flatnonzero(probs.max(axis=1) >= self.classifier_sure).tolist():
                value = int(np.argmax(probs[i]))
                named[i] = HalfCount(value, float(probs[i, value]), Detections.empty(),
                                     value, value)
        # the pip model sees the crops not named surely, and the blanks named surely
        # when faint pips are looked for
        blank = {k for k, h in named.items() if h.value == 0 and self.faint_pip is not None}
        looked = [k for k in range(len(crops)) if k not in named or k in blank]
        found = dict(zip(looked, self.pip_detector([crops[k] for k in looked])
                         if looked else [], strict=True))
        faint = self.faint_pip
        results = []
        for k in range(len(crops)):
            pips = found.get(k, Detections.empty())
            pips = pips[inside_half(pips.center)]
            if k in named:
                half = named[k]
                if k in blank and faint is not None:  # faint pips may be on a sure blank
                    half = half._replace(high=faint_blank(pips.confidence, faint))
                results.append(half)
                continue
            scores = pips.confidence
            count, certainty, low, high = pip_count(scores, self.pip_threshold, self.pip_band)
            if probs is not None:
                count, certainty, low, high = vote(count, certainty, low, high, probs[k])
            if count == 0 and faint is not None:
                high = max(high, faint_blank(scores, faint))
            results.append(HalfCount(count, certainty, pips[scores >= self.pip_threshold],
                                     low, high))
        if self.profile is not None:
            from vision.reading.pip_colour import half_colours

            results = self.profile.reweigh(results, half_colours(list(crops)))
        return results


def _look(detector: ObbDetector, image: np.ndarray, bare: BareBoxes | None,
          **look: Any) -> Detections:
    """One look at ``image`` by ``detector`` (``look``: its ``zoom_out`` or ``long_side``),
    told the bare table when there is one."""
    return detector(image, **look) if bare is None else detector(image, **look, bare=bare)


def _dynamic(detector: Any) -> bool:
    """Whether ``detector`` takes any input size (an ONNX export with dynamic axes)."""
    return getattr(getattr(detector, "model", None), "dynamic_size", False) is True
