"""Geometry of the printable hub mat, in millimetres, shared by the generator and the reader.

The mat frame has its origin at the hub centre, ``x`` to the right and ``y``
towards seat 0 (down in a camera image when the mat lies with seat 0 towards
the bottom edge), so angles grow clockwise as seen from above, like seats.

The mat for ``P`` players has ``P + 1`` train slots evenly spaced round the
hub: slot ``k`` (``k < P``) belongs to seat ``k`` and the last slot to the
Mexican train; slot 0 points at seat 0 (angle 90 degrees). Four ArUco markers
(``DICT_4X4_50``) with ids ``4 * P + k`` sit on the diagonals inside the slot
ring, so the ids tell the player count and the mat's orientation, and no
train ever covers them.

This module is pure NumPy so that ``datasets`` can lay out a mat without
OpenCV; detection and drawing live in :mod:`vision.mat.hub_mat`.
"""

from __future__ import annotations

import math

import numpy as np

#: Side of the printed square mat.
MAT_SIDE_MM = 200.0
#: Distance from the hub centre to the near end of each train's first tile.
SLOT_RADIUS_MM = 110.0
#: Width of the tiles the mat is drawn for (a double-12 set's, 24 x 48 mm).
TILE_WIDTH_MM = 24.0
#: The engine's outline printed at the hub centre, long side along x (mm).
ENGINE_BOX_MM = (54.0, 30.0)
#: Each slot's arrow runs between these distances from the hub centre (clear of the
#: markers); the print reaches no further out than its tip.
ARROW_FROM_MM, ARROW_TO_MM = 88.0, 99.0
#: Distance of each slot's label from the hub centre (beside its arrow).
LABEL_MM = 90.0
#: Side of one ArUco marker (black border included).
ARUCO_SIDE_MM = 34.0
#: Distance from the hub centre to each ArUco marker's centre.
ARUCO_RADIUS_MM = 62.0
#: ArUco dictionary name (``cv2.aruco.DICT_4X4_50``).
ARUCO_DICTIONARY = "DICT_4X4_50"
#: Player counts a mat can be printed for.
MAT_PLAYERS = range(2, 9)


def slot_angles(players: int) -> tuple[float, ...]:
    """Angles (radians, clockwise from +x in image axes) of the ``players + 1`` train slots.

    The last angle is the Mexican train's slot.

    >>> [round(math.degrees(a)) for a in slot_angles(2)]
    [90, 210, 330]
    """
    n = players + 1
    return tuple(math.pi / 2 + 2 * math.pi * k / n for k in range(n))


def marker_ids(players: int) -> tuple[int, int, int, int]:
    """The four ArUco ids printed on the mat for ``players``."""
    return (4 * players, 4 * players + 1, 4 * players + 2, 4 * players + 3)


def players_from_id(marker_id: int) -> tuple[int, int] | None:
    """``(players, position)`` for an id printed on some mat, else ``None``."""
    players, position = divmod(int(marker_id), 4)
    if players in MAT_PLAYERS:
        return players, position
    return None


def marker_corners_mm(position: int) -> np.ndarray:
    """Corners (4, 2) of marker ``position`` (0..3) in the mat frame.

    Corners are in ArUco order (top-left, top-right, bottom-right, bottom-left
    of the marker image as printed upright on the mat). Position 0 is on the
    lower right diagonal, then clockwise.
    """
    angle = math.pi / 4 + position * math.pi / 2
    cx = ARUCO_RADIUS_MM * math.cos(angle)
    cy = ARUCO_RADIUS_MM * math.sin(angle)
    h = ARUCO_SIDE_MM / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]],
                    dtype=np.float64)


def mat_to_table(centre: tuple[float, float] | np.ndarray, rotation: float) -> np.ndarray:
    """Homography (3, 3) from the mat frame to table millimetres.

    ``rotation`` turns the mat clockwise (radians) about its centre, which
    lies at ``centre`` on the table.
    """
    c, s = math.cos(rotation), math.sin(rotation)
    return np.array([[c, -s, float(centre[0])], [s, c, float(centre[1])], [0.0, 0.0, 1.0]])


def engine_box_mm() -> np.ndarray:
    """The corners (4, 2) of the engine's printed outline, mat millimetres."""
    w, h = ENGINE_BOX_MM[0] / 2, ENGINE_BOX_MM[1] / 2
    return np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float64)


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map points (..., 2) through a (3, 3) homography."""
    pts = np.asarray(points, dtype=np.float64)
    flat = pts.reshape(-1, 2)
    homo = np.hstack([flat, np.ones((len(flat), 1))]) @ np.asarray(matrix, dtype=np.float64).T
    out = homo[:, :2] / homo[:, 2:3]
    return out.reshape(pts.shape)
