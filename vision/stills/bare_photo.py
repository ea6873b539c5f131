"""A still photo that knows its table: boxes on table as bare as in a photo of it go.

``mtrain read IMAGE --empty EMPTY`` and ``mtrain score ... --empty EMPTY`` take
a photo of the bare table (the cloth, the mat, the board beside it) taken with
the same camera and roughly the same framing. :class:`BarePhoto` registers it
onto each photo read (``vision.change.registration``: features and a RANSAC
homography, so a phone held by hand will do), lays it there, and drops every
tile, marker and back whose box lies on table unchanged from it
(``vision.change.table_view.box_change``, allowing a pixel or two of registration
error). What the reader found on the cloth's pattern or on a printed picture
of a domino is gone; tiles laid since are kept, and so is a box on the engine's
outline printed on the mat, where a white engine barely changes the view
(``KnownTable.kept``). Where the photo changed from it
as much as a tile's box does and no box lies but one read with doubt
(:meth:`BarePhoto.unexplained`), the reader looks again, closer
(``vision.stills.trouble_spots.look_where_changed``): a whole photo is looked at
small, and a pale tile on a striped cloth can go unseen there but not in a window
at a tile's own size. A marker-sized change by a train's end that no box covers is a
marker the detector missed (:meth:`BarePhoto.with_missed_markers`), reported so.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.change.channels import channel_max
from vision.change.known_table import (
    CANDIDATE_CONFIDENCE,
    UNCHANGED_BELOW,
    KnownTable,
    same_outlines,
)
from vision.change.registration import Registration, register
from vision.change.table_view import TableView, change_map, covered_mask, tile_scale
from vision.mat.hub_mat import detect_mat, engine_outline
from vision.models.onnx_models import BareBoxes
from vision.reading.look_sizes import median_short_side
from vision.readings import FrameReading

if TYPE_CHECKING:
    from engine import RuleSet
    from vision.reading.reader import TileReader
    from vision.stills.hand_photos import HandReading

#: Pixels (of the known table's small copy) a registered bare photo may lie off.
REGISTRATION_SLACK = 1
#: The most the two shots' own difference (``shot_noise``) raises the floor a box's change
#: is measured against.
NOISE_CAP = 0.15
#: A changed spot no box covers is at least this share of a tile-wide square (small pixels).
SPOT_SHARE = 0.5
#: A marker candidate with tiles centred within ``FLANKED_REACH`` tile lengths of it in
#: directions at least this far apart (cosine) lies between them, in a train: no marker.
FLANKED_COS = -0.7
FLANKED_REACH = 1.5
#: A changed spot wider than this many tile widths (a closer look sees 8) is cut in
#: cells no wider, each a spot.
SPOT_STEP = 6


class BarePhoto:
    """The photo of the bare table ``empty`` laid on ``photo`` (see the module's notes).

    Raises ``engine.errors.BadInputError(source, ...)`` when the two do not register.
    """

    def __init__(self, empty: np.ndarray, photo: np.ndarray, source: str = "--empty") -> None:
        self.registration: Registration = register(empty, photo, source)
        h, w = photo.shape[:2]
        matrix = self.registration.homography
        laid = cv2.warpPerspective(empty, matrix, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        self.known = KnownTable(slack=REGISTRATION_SLACK)
        self.known.see_empty(laid)
        self.known.see_empty(laid)
        view = self.known.view(photo)
        seen = cv2.warpPerspective(np.full(empty.shape[:2], 255, np.uint8), matrix, (w, h),
                                   flags=cv2.INTER_NEAREST)
        small = cv2.resize(seen, view.grey.shape[::-1], interpolation=cv2.INTER_AREA) == 255
        # the bare photo shows only part of the table: elsewhere nothing is dropped
        self.known.known_area = cv2.erode(small.astype(np.uint8),
                                          np.ones((3, 3), np.uint8)).astype(bool)
        self.known.noise = shot_noise(self.known, view)
        self.photo = photo
        #: The marker boxes :meth:`with_missed_markers` added last (M, 4, 2).
        self.made_marks = np.zeros((0, 4, 2), np.float32)
        mat = detect_mat(photo)
        if mat is not None:  # a white engine on its printed outline is the reader's to judge
            self.known.kept = engine_outline(mat)[None]

    def bare_boxes(self) -> BareBoxes | None:
        """Which boxes of the photo lie on table as bare as in the photo of the bare table
        (``KnownTable.bare_boxes``), for the detector to drop before it looks at them."""
        return self.known.bare_boxes(self.photo)

    def unchanged(self, corners: np.ndarray) -> np.ndarray:
        """For each box ``corners`` (N, 4, 2) of the photo: whether it lies on table as bare
        as in the photo of the bare table (``KnownTable.unchanged_boxes``)."""
        boxes = np.asarray(corners, np.float32).reshape(-1, 4, 2)
        if not len(boxes):
            return np.zeros(0, bool)
        return self.known.unchanged_boxes(self.known.view(self.photo), boxes)

    def unexplained(self, frame: FrameReading) -> list[np.ndarray]:
        """Image centres of the spots where the photo changed from the bare table as much as
        a tile's box does (``change_map`` over a tile-wide square, ``UNCHANGED_BELOW``) and
        no marker, back or tile read without doubt of ``frame`` lies (a doubted box, one
        across a row of small tiles say, explains nothing), at least ``SPOT_SHARE`` of such
        a square each, the largest first; a spot wider than ``SPOT_STEP`` tile widths (a
        bare photo lying off on a striped cloth changes most of the view) cut in cells no
        wider, one spot at the middle of each it fills enough. None while ``frame`` holds
        no tile to size them by."""
        tiles = np.asarray(frame.tiles.corners, np.float32).reshape(-1, 4, 2)
        empty, area = self.known.empty, self.known.known_area
        if not len(tiles) or empty is None or area is None:
            return []
        view = self.known.view(self.photo)
        size = max(3, int(round(median_short_side(tiles) / view.scale)))
        changed = change_map(empty, view, size, REGISTRATION_SLACK, self.known.noise)
        held = np.concatenate([tiles[~frame.tiles.uncertain],
                               np.asarray(frame.markers.corners, np.float32).reshape(-1, 4, 2),
                               np.array(frame.backs, np.float32).reshape(-1, 4, 2)])
        free = (changed >= UNCHANGED_BELOW) & area & ~covered_mask(area.shape, held,
                                                                   view.scale, size)
        count, labels, stats, centres = cv2.connectedComponentsWithStats(free.astype(np.uint8),
                                                                    connectivity=8)
        big = [i for i in range(1, count)
               if stats[i, cv2.CC_STAT_AREA] >= SPOT_SHARE * size * size]
        big.sort(key=lambda i: -stats[i, cv2.CC_STAT_AREA])
        out = []
        for i in big:
            x, y, w, h = (int(v) for v in stats[i, :4])
            cols, rows = (max(1, int(np.ceil(n / (SPOT_STEP * size)))) for n in (w, h))
            if cols == rows == 1:
                out.append(np.asarray(centres[i], np.float64) * view.scale)
                continue
            # wider than a closer look sees: cut in cells at most SPOT_STEP tile widths
            # wide, a spot at the middle of each that holds enough of it
            xs, ys = np.linspace(x, x + w, cols + 1), np.linspace(y, y + h, rows + 1)
            for r in range(rows):
                for c in range(cols):
                    cell = labels[int(ys[r]):int(ys[r + 1]), int(xs[c]):int(xs[c + 1])] == i
                    if cell.sum() >= SPOT_SHARE * size * size:
                        out.append(np.array([(xs[c] + xs[c + 1]) / 2, (ys[r] + ys[r + 1]) / 2])
                                   * view.scale)
        return out

    def with_missed_markers(self, frame: FrameReading, marker_class: int) -> FrameReading:
        """``frame`` with a marker box (class ``marker_class``, scored
        ``CANDIDATE_CONFIDENCE``) at each marker candidate of the photo
        (``KnownTable.marker_candidates``: a coin or pawn laid by a train's end that the
        detector missed, on a striped cloth say), but one lying between two tiles of a
        train (``FLANKED_COS``); :meth:`made` tells them apart after."""
        if marker_class < 0:  # a detector without markers
            return frame
        tiles = np.asarray(frame.tiles.corners, np.float32).reshape(-1, 4, 2)
        markers = np.asarray(frame.markers.corners, np.float32).reshape(-1, 4, 2)
        taken = np.concatenate([tiles, markers,
                                np.array(frame.backs, np.float32).reshape(-1, 4, 2)])
        scale = tile_scale(tiles)
        marks = self.known.marker_candidates(self.known.view(self.photo), tiles, taken, scale)
        marks = marks[~_between_tiles(marks, tiles, scale)] if len(marks) else marks
        self.made_marks = marks
        if not len(marks):
            return frame
        found = frame.markers.extended(marks, np.full(len(marks), CANDIDATE_CONFIDENCE,
                                                      np.float32),
                                       np.full(len(marks), marker_class))
        return FrameReading(frame.tiles, found, frame.shape, frame.backs)

    def made(self, corners: np.ndarray) -> np.ndarray:
        """For each marker box ``corners`` (N, 4, 2): whether :meth:`with_missed_markers`
        added it."""
        return same_outlines(corners, self.made_marks)

    def screen(self, frame: FrameReading) -> FrameReading:
        """``frame`` (read from the photo) without the tiles, markers and backs lying on
        unchanged bare table."""
        tiles = frame.tiles[~self.unchanged(frame.tiles.corners)] if len(
            frame.tiles) else frame.tiles
        markers = frame.markers[~self.unchanged(frame.markers.corners)] if len(
            frame.markers) else frame.markers
        backs = tuple(b for b, bare in zip(frame.backs, self.unchanged(
            np.array(frame.backs, np.float32)), strict=True) if not bare)
        return FrameReading(tiles, markers, frame.shape, backs)


def _between_tiles(marks: np.ndarray, tiles: np.ndarray,
                   scale: tuple[float, float] | None) -> np.ndarray:
    """For each marker candidate ``marks`` (M, 4, 2): whether two of the ``tiles`` (K, 4, 2)
    centred within ``FLANKED_REACH`` tile lengths (``scale``: their width and length)
    lie on opposite sides of it
    (``FLANKED_COS``): a gap between two boxes of one train (a tile boxed short or
    missed), not a marker, which lies by a train's end."""
    out = np.zeros(len(marks), bool)
    if len(tiles) < 2:
        return out
    centres = tiles.mean(axis=1)
    reach = FLANKED_REACH * (scale[1] if scale is not None else 0.0)
    for i, m in enumerate(np.asarray(marks, np.float32)):
        v = centres - m.mean(axis=0)
        d = np.linalg.norm(v, axis=1)
        near = v[d < reach] / d[d < reach, None].clip(1e-6)
        if len(near) >= 2:
            out[i] = bool((near @ near.T).min() < FLANKED_COS)
    return out


def shot_noise(known: KnownTable, view: TableView) -> float:
    """What two shots of the bare table differ by anyway: the median change in detail
    between ``known``'s bare table and ``view`` over the area both see (the tiles cover
    less than half of it), at most ``NOISE_CAP``."""
    empty, area = known.empty, known.known_area
    if empty is None or area is None or not area.any():
        return 0.0
    change = channel_max(np.abs(view.detail - empty.detail))[area]
    return min(NOISE_CAP, float(np.median(change)))


def empty_from_args(args: argparse.Namespace) -> np.ndarray | None:
    """The ``--empty`` photo, loaded (``BadInputError`` when it cannot be), or None."""
    if getattr(args, "empty", None) is None:
        return None
    from vision.images import load_image

    return load_image(args.empty)


def bare_for(empty: np.ndarray | None, photo: np.ndarray, source: str) -> BarePhoto | None:
    """The bare photo ``empty`` laid on ``photo`` (None without one)."""
    return None if empty is None else BarePhoto(empty, photo, source)


def score_on_bare(paths: Sequence[str | os.PathLike[str]], rules: RuleSet, reader: TileReader,
                  empty: np.ndarray) -> list[HandReading]:
    """``vision.stills.hand_photos.score_photos`` with every photo screened by the bare table
    ``empty`` (each registered on its own: a phone held by hand)."""
    from vision.images import load_image
    from vision.stills.hand_photos import flag_duplicates, hand_from_reading, read_hand

    hands = []
    for path in paths:
        image = load_image(path)
        bare = BarePhoto(empty, image, os.fspath(path))
        frame = bare.screen(read_hand(reader, image))
        hands.append(hand_from_reading(frame, rules, os.fspath(path)))
    return flag_duplicates(hands)
