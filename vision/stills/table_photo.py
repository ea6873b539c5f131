"""A photo's table, as ``mtrain read`` reads it: the frame read, its table rebuilt
(with the hub mat when it is in view, a train that stops at a misplaced box read
again where it goes on) and looked at closer where it does not hold together; a blank
engine the reader took for a tile lying face down is taken back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vision.reading.reader import TileReader
    from vision.readings import FrameReading
    from vision.stills.bare_photo import BarePhoto


#: ``reconstruct_table``'s default: look for the mat in the image.
_LOOK: Any = object()


def reconstruct_table(frame: FrameReading, players: int,
                      image: np.ndarray | None = None, reader: TileReader | None = None,
                      mat: Any = _LOOK) -> Any:
    """``vision.table.reconstruct`` of the frame (a ``TableReading``).

    With ``image``, a hub mat in view (``vision.mat.hub_mat.detect_mat``) assigns the
    seats and the Mexican train exactly; without one the heuristics apply.
    ``mat``, when given, is the mat already found in ``image`` (or ``None``: none).
    With ``image`` and ``reader``, a train that stops at a misplaced box is read
    again where it goes on (``reread-tile``).
    """
    from vision.table import reconstruct

    if mat is _LOOK:
        from vision.mat.hub_mat import detect_mat

        mat = detect_mat(image) if image is not None else None
    look = None
    read_at = getattr(reader, "read_at", None)  # a reader that can read a given box
    if image is not None and read_at is not None:
        def look(corners: np.ndarray) -> Any:
            return read_at(image, corners).each()
    return reconstruct(frame.tiles, frame.markers, players, mat, look=look)


def read_table(frame: FrameReading, players: int, image: np.ndarray,
               reader: TileReader) -> tuple[FrameReading, Any]:
    """The table in ``image`` (``reconstruct_table``), looked at closer where it does
    not hold together (``vision.stills.trouble_spots``): the boxes the domino check
    doubts that the table lays on no train, and that are not found again closer,
    dropped first (``look_at_doubts``, ``unlaid_indices``: a box a train goes on from is
    a tile where the rules expect one); the frame read, with the boxes found closer and
    a back the table takes for its engine (``vision.stills.engine_back``), and its
    table."""
    from vision.mat.hub_mat import detect_mat
    from vision.stills.engine_back import engine_among_backs
    from vision.stills.trouble_spots import look_at_doubts, look_closer, unlaid_indices

    mat = detect_mat(image)  # looked for once: the closer frame is the same image

    def rebuild(f: FrameReading) -> Any:
        return reconstruct_table(f, players, image, reader, mat)

    table = rebuild(frame)
    checked = look_at_doubts(reader, image, frame, unlaid_indices(table, frame))
    if checked is not frame:
        frame, table = checked, rebuild(checked)
    frame, table = look_closer(reader, image, frame, table, rebuild)
    return engine_among_backs(frame, table, rebuild)


def read_photo(reader: TileReader, image: np.ndarray, players: int,
               bare: BarePhoto | None = None) -> tuple[FrameReading, Any]:
    """``mtrain read IMAGE [--empty EMPTY]``: the frame ``reader`` reads in ``image``, its
    table (:func:`read_table`); with ``bare`` (the bare table laid on ``image``), the boxes
    on unchanged bare table dropped where the detector finds them (before its looks at
    them), before the table is rebuilt and after the closer look (which may find boxes
    there too), the spots that changed with no box on them looked at closer
    (``vision.stills.trouble_spots.look_where_changed``) and the markers the detector
    missed added (``BarePhoto.with_missed_markers``; their trains reported
    ``unsure-marker``) before the table is rebuilt."""
    first = reader.read(image, None if bare is None else bare.bare_boxes())
    if bare is not None:
        from vision.stills.trouble_spots import look_where_changed

        first = bare.screen(first)
        first = look_where_changed(reader, image, first, bare.unexplained(first),
                                   bare.unchanged)
        first = bare.with_missed_markers(first, reader.marker_class)
    frame, table = read_table(first, players, image, reader)
    if bare is not None:
        from vision.table import with_unsure_markers

        screened = bare.screen(frame)
        if len(screened.tiles) != len(frame.tiles):
            frame, table = screened, reconstruct_table(screened, players, image, reader)
        table = with_unsure_markers(table, bare.made(frame.markers.corners))
    return frame, table
