"""The order of a table reconstruction's stages: boxes on the working plane, the engine,
the trains grown and looked at again, their counts settled, the markers placed."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import numpy as np

from engine import MEXICAN, Owner, TableState, Train
from vision.mat.geometry import apply_homography
from vision.readings import TileReading, TileReadings
from vision.table.build import TableBuild
from vision.table.chains import grow, report_leftovers, start_trains
from vision.table.counts.consistency import as_settled, correct_counts, within_ranges
from vision.table.gaps import bridge_gap, close_short_gap
from vision.table.geometry import PlacedTile, make_tile
from vision.table.hub import on_printed_marker, on_printed_ring, place_engine
from vision.table.joints import drop_joint_boxes
from vision.table.look_again import look_again
from vision.table.markers import drop_marker_boxes, place_markers
from vision.table.reading import Look, TableReading, Uncertainty
from vision.table.rereads import look_at_slots, reread_mismatches

if TYPE_CHECKING:
    from vision.mat.hub_mat import MatView
    from vision.models.detections import Detections


def reconstruct(tiles: TileReadings | Sequence[TileReading], markers: Detections | None,
                players: int, mat: MatView | None = None, engine: int | None = None,
                infer_gaps: bool = True, look: Look | None = None,
                settled: Collection[int] = ()) -> TableReading:
    """Read the table from the tiles and markers found in one image.

    ``tiles`` (a frame's, or given one by one) carry ``values`` (as read, either
    order) and ``corners`` in image pixels following the corner convention;
    ``markers`` are the marker detections (``None`` for none). With ``mat`` (from
    :func:`vision.mat.hub_mat.detect_mat`) geometry is taken on the mat's plane in
    millimetres, and seats come from the mat. ``engine``, when the round's
    engine is known (the companion knows the round; a tracker knows it once a
    table has settled), is the double looked for first; with the mat, the tile
    on its centre is the engine even when it was read otherwise (its count, when
    the engine is not given, the one the trains leaving the hub start with). An
    engine read otherwise is reported (``engine-read``). With
    ``infer_gaps``, a train continues across one tile no box was found for
    (``inferred-tile``, see ``gaps.bridge_gap``); without, the gap is reported.
    ``look`` (image corners ``(4, 2)`` -> a read tile, or ``None``) reads the
    image again where the boxes found do not fit the table (``reread-tile``):
    where a train must go on and the boxes there continue nothing
    (``look_again``, tried before a gap is inferred), at an empty slot of the
    mat (``rereads.look_at_slots``), and where a tile does not match the end it
    lies on (``rereads.reread_mismatches``). ``settled`` names input tiles whose
    counts an earlier settled reading of the same table gave without doubt (a
    tracker's): where one does not match a neighbour that shows fewer pips, the
    neighbour is taken as misread, not it (``TableBuild.keeps``).
    """
    uncertain: list[Uncertainty] = []
    if mat is not None:
        if mat.players != players:
            uncertain.append(Uncertainty(
                "players-mismatch",
                f"the mat is printed for {mat.players} players, not {players}; using the mat"))
            players = mat.players
        to_plane = np.asarray(mat.image_to_mat, dtype=np.float64)
    else:
        to_plane = np.eye(3)
    inputs = [within_ranges(t) for t in (tiles.each() if isinstance(tiles, TileReadings)
                                         else tiles)]
    settled = frozenset(i for i in settled if 0 <= i < len(inputs))
    inputs = [as_settled(t) if i in settled else t for i, t in enumerate(inputs)]
    read = [make_tile(i, tuple(t.values), apply_homography(to_plane, np.asarray(t.corners)),
                      t.ranges, bool(t.uncertain))
            for i, t in enumerate(inputs)]
    b = TableBuild(list(inputs), read, players, np.linalg.inv(to_plane), look,
                   on_mat=mat is not None, infer_gaps=infer_gaps, uncertain=uncertain,
                   settled=settled)
    n_markers = 0 if markers is None else len(markers)
    marker_pts = (apply_homography(to_plane, np.asarray(markers.corners, dtype=np.float64))
                  if markers is not None and n_markers else np.zeros((0, 4, 2)))
    live = _live_boxes(b, marker_pts)
    assignment: list[Owner | None] = [None] * len(read)
    if not live and (mat is None or look is None):
        b.report(Uncertainty("no-engine", "no tiles on the table"))
        return TableReading(None, {}, b.uncertain, assignment, [None] * n_markers, b.players)
    if live:
        b.w = float(np.median([t.width for t in live]))
    hub_tile = place_engine(b, live, engine)
    if hub_tile is None:
        return TableReading(None, {}, b.uncertain, assignment, [None] * n_markers, b.players)
    if hub_tile.index < len(assignment):
        assignment[hub_tile.index] = "engine"
    lay_trains(b)
    correct_counts(b)
    for chain in b.chains:
        for idx, _, _ in chain.tiles:
            if idx < len(assignment):
                assignment[idx] = chain.owner
    report_leftovers(b)
    marker_owners = place_markers(b, marker_pts)
    by_owner = {c.owner: c for c in b.chains}
    owners: list[Owner] = [*range(b.players), MEXICAN]
    trains = []
    for owner in owners:
        found = by_owner.get(owner)
        pairs = tuple((near, far) for _, near, far in found.tiles) if found else ()
        trains.append(Train(owner, pairs, owner in marker_owners))
    seats = {c.owner: c.slot_angle for c in b.chains}
    positions = {c.owner: [idx for idx, _, _ in c.tiles] for c in b.chains}
    return TableReading(TableState(b.e, tuple(trains)), seats, b.uncertain, assignment,
                        marker_owners, b.players, positions, dict(b.decoded))


def _live_boxes(b: TableBuild, marker_pts: np.ndarray) -> list[PlacedTile]:
    """The boxes that may be tiles: not the mat's printed markers, arrows and labels
    (``b.printed``; a detector may take them for tiles), nor markers boxed twice, nor
    boxes across the joint of two tiles or a tile's second box (``joints``). Those
    read with doubt are reported (``unsure-tile``)."""
    live = [t for t in b.read if not b.on_mat or not on_printed_marker(t.centre)]
    if b.on_mat and live:
        w = float(np.median([t.width for t in live]))
        b.printed = [t for t in live if on_printed_ring(t, w)]
        live = [t for t in live if t not in b.printed]
    live = drop_marker_boxes(live, marker_pts)
    if live:
        w = float(np.median([t.width for t in live]))
        live = drop_joint_boxes(live, [float(b.tiles[t.index].confidence) for t in live], w)
    for t in live:
        if bool(b.tiles[t.index].uncertain):
            b.report(Uncertainty("unsure-tile", f"tile {t.index} was read with doubt",
                                 (t.index,)))
    return live


def lay_trains(b: TableBuild) -> None:
    """Start the trains at the hub and grow them; with ``look``, read again where the
    boxes found do not fit (an empty slot of the mat, a train's last tile that does not
    match its end, where a train stops by a loose box); with ``infer_gaps``, bridge
    gaps of one unseen tile; then close a short gap at a train's end (a tile laid a little
    off). Each change grows the trains again."""
    start_trains(b)
    grow(b)
    if b.look is not None and b.on_mat and look_at_slots(b):
        grow(b)
    # a train's last tile misread where it lies on goes on from a count that is not there
    if b.look is not None and reread_mismatches(b, ends_only=True):
        grow(b)
    # (a tile laid meanwhile that does not match its end is read again, and the train
    # looked at again from where it then ends)
    while ((b.look is not None
            and (look_again(b) or reread_mismatches(b, ends_only=True)))
           or (b.infer_gaps and bridge_gap(b)) or close_short_gap(b)):
        grow(b)
