"""The printable hub mat: drawing it (SVG, PDF, an image), finding it in a frame, rectifying.

The mat's geometry (slots, ArUco markers and their ids) is in
:mod:`vision.mat.geometry`. With the mat in view, :func:`detect_mat` gives a
homography from image pixels to the mat's plane in millimetres, so seats and
the Mexican train are known exactly and the frame can be warped top-down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.errors import BadInputError
from vision.mat.geometry import (
    ARROW_FROM_MM,
    ARROW_TO_MM,
    ARUCO_DICTIONARY,
    ENGINE_BOX_MM,
    LABEL_MM,
    MAT_PLAYERS,
    MAT_SIDE_MM,
    SLOT_RADIUS_MM,
    apply_homography,
    engine_box_mm,
    marker_corners_mm,
    marker_ids,
    players_from_id,
    slot_angles,
)

#: Printed page: A4 portrait, in millimetres.
PAGE_MM = (210.0, 297.0)
#: Resolution of the PDF (a raster page) in dots per inch.
PDF_DPI = 300


@dataclass(frozen=True)
class MatView:
    """The mat as seen in one frame.

    ``image_to_mat`` maps image pixels to the mat frame (millimetres, origin
    at the hub centre, ``y`` towards seat 0); ``ids`` are the ArUco ids seen;
    ``error_mm`` is the mean distance between seen and printed marker corners
    after the fit.
    """

    players: int
    image_to_mat: np.ndarray
    ids: tuple[int, ...]
    error_mm: float

    @property
    def mat_to_image(self) -> np.ndarray:
        return np.asarray(np.linalg.inv(self.image_to_mat))

    @property
    def hub_px(self) -> np.ndarray:
        """The hub centre in image pixels."""
        return np.asarray(apply_homography(self.mat_to_image, np.zeros(2)))


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))


def _marker_bits(marker_id: int) -> np.ndarray:
    """The marker as a 0/1 grid, border included (6 x 6 for a 4x4 dictionary)."""
    img = cv2.aruco.generateImageMarker(_dictionary(), marker_id, 6)
    return (img > 127).astype(np.uint8)


def _labels(players: int) -> list[str]:
    return [str(k) for k in range(players)] + ["M"]


def _check_players(players: int) -> None:
    if players not in MAT_PLAYERS:
        raise BadInputError("--players", f"a mat is printed for 2 to 8 players, not {players}")


# --- drawing ---------------------------------------------------------------------


def mat_image(players: int, px_per_mm: float = 4.0) -> np.ndarray:
    """The mat as a BGR image, ``MAT_SIDE_MM`` square; pixel ``(u, v)`` is mat mm
    ``(u / px_per_mm - MAT_SIDE_MM / 2, v / px_per_mm - MAT_SIDE_MM / 2)``."""
    _check_players(players)
    side = int(round(MAT_SIDE_MM * px_per_mm))
    img = np.full((side, side, 3), 255, np.uint8)

    def px(p: np.ndarray | tuple[float, float]) -> tuple[int, int]:
        return (int(round((p[0] + MAT_SIDE_MM / 2) * px_per_mm)),
                int(round((p[1] + MAT_SIDE_MM / 2) * px_per_mm)))

    thick = max(1, int(px_per_mm * 0.6))
    cv2.rectangle(img, (0, 0), (side - 1, side - 1), (60, 60, 60), thick)
    cv2.circle(img, px((0, 0)), int(SLOT_RADIUS_MM * 0.5 * px_per_mm), (200, 200, 200), thick)
    box = engine_box_mm()
    cv2.polylines(img, [np.array([px(p) for p in box], np.int32)], True, (120, 120, 120), thick)
    for label, angle in zip(_labels(players), slot_angles(players), strict=True):
        u = np.array([math.cos(angle), math.sin(angle)])
        lateral = np.array([-u[1], u[0]])
        colour = (0, 90, 200) if label == "M" else (40, 40, 40)
        cv2.arrowedLine(img, px(u * ARROW_FROM_MM), px(u * ARROW_TO_MM), colour, 2 * thick,
                        tipLength=0.4)
        scale = 0.16 * px_per_mm
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2 * thick)
        x, y = px(u * LABEL_MM + lateral * 9)
        cv2.putText(img, label, (x - tw // 2, y + th // 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    colour, 2 * thick, cv2.LINE_AA)
    for position, marker_id in enumerate(marker_ids(players)):
        corners = marker_corners_mm(position)
        x0, y0 = px(corners[0])
        x1, y1 = px(corners[2])
        bits = _marker_bits(marker_id)
        patch = cv2.resize(bits * 255, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
        img[y0:y1, x0:x1] = patch[..., None]
    return img


def mat_svg(players: int) -> str:
    """The mat as an SVG document on an A4 page (vector; print at 100 %)."""
    _check_players(players)
    ox, oy = PAGE_MM[0] / 2, 20 + MAT_SIDE_MM / 2
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PAGE_MM[0]}mm" '
        f'height="{PAGE_MM[1]}mm" viewBox="0 0 {PAGE_MM[0]} {PAGE_MM[1]}">',
        f'<title>mtrain hub mat for {players} players</title>',
        f'<rect x="{ox - MAT_SIDE_MM / 2}" y="{oy - MAT_SIDE_MM / 2}" width="{MAT_SIDE_MM}" '
        f'height="{MAT_SIDE_MM}" fill="white" stroke="#3c3c3c" stroke-width="0.4"/>',
        f'<circle cx="{ox}" cy="{oy}" r="{SLOT_RADIUS_MM / 2}" fill="none" stroke="#c8c8c8" '
        'stroke-width="0.4"/>',
        f'<rect x="{ox - ENGINE_BOX_MM[0] / 2}" y="{oy - ENGINE_BOX_MM[1] / 2}" '
        f'width="{ENGINE_BOX_MM[0]}" height="{ENGINE_BOX_MM[1]}" fill="none" '
        'stroke="#787878" stroke-width="0.4"/>',
    ]
    for label, angle in zip(_labels(players), slot_angles(players), strict=True):
        cx, cy = math.cos(angle), math.sin(angle)
        colour = "#c85a00" if label == "M" else "#282828"
        x0, y0 = ox + cx * ARROW_FROM_MM, oy + cy * ARROW_FROM_MM
        x1, y1 = ox + cx * ARROW_TO_MM, oy + cy * ARROW_TO_MM
        parts.append(f'<line x1="{x0:.2f}" y1="{y0:.2f}" x2="{x1:.2f}" y2="{y1:.2f}" '
                     f'stroke="{colour}" stroke-width="1.2"/>')
        tx, ty = ox + cx * LABEL_MM - cy * 9, oy + cy * LABEL_MM + cx * 9
        parts.append(f'<text x="{tx:.2f}" y="{ty + 2.5:.2f}" font-family="sans-serif" '
                     f'font-size="7" text-anchor="middle" fill="{colour}">{label}</text>')
    for position, marker_id in enumerate(marker_ids(players)):
        corners = marker_corners_mm(position)
        bits = _marker_bits(marker_id)
        cell = (corners[2, 0] - corners[0, 0]) / bits.shape[0]
        for r in range(bits.shape[0]):
            for c in range(bits.shape[1]):
                if not bits[r, c]:
                    x = ox + corners[0, 0] + c * cell
                    y = oy + corners[0, 1] + r * cell
                    parts.append(f'<rect x="{x:.3f}" y="{y:.3f}" width="{cell + 0.02:.3f}" '
                                 f'height="{cell + 0.02:.3f}" fill="black"/>')
    note_y = oy + MAT_SIDE_MM / 2 + 12
    parts += [
        f'<text x="{ox}" y="{note_y}" font-family="sans-serif" font-size="5" '
        f'text-anchor="middle">mtrain hub mat, {players} players. Print at 100 % (no scaling).'
        ' Seat 0 sits at the bottom edge; M is the Mexican train.</text>',
        f'<line x1="{ox - 50}" y1="{note_y + 8}" x2="{ox + 50}" y2="{note_y + 8}" '
        'stroke="black" stroke-width="0.5"/>',
        f'<text x="{ox}" y="{note_y + 14}" font-family="sans-serif" font-size="4" '
        'text-anchor="middle">this line is 100 mm long when printed correctly</text>',
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def write_mat(path: str | Path, players: int) -> Path:
    """Write the mat as ``.svg`` (vector) or ``.pdf`` (one A4 page at 300 dpi)."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in (".svg", ".pdf"):
        raise BadInputError(str(out), "the mat is written as .svg or .pdf")
    _check_players(players)
    if suffix == ".svg":
        out.write_text(mat_svg(players), encoding="utf-8")
        return out
    from PIL import Image

    ppm = PDF_DPI / 25.4
    page = np.full((int(PAGE_MM[1] * ppm), int(PAGE_MM[0] * ppm), 3), 255, np.uint8)
    img = mat_image(players, ppm)
    x0 = (page.shape[1] - img.shape[1]) // 2
    y0 = int(20 * ppm)
    page[y0:y0 + img.shape[0], x0:x0 + img.shape[1]] = img
    line_y = y0 + img.shape[0] + int(20 * ppm)
    cx = page.shape[1] // 2
    cv2.line(page, (int(cx - 50 * ppm), line_y), (int(cx + 50 * ppm), line_y), (0, 0, 0), 4)
    cv2.putText(page, f"mtrain hub mat, {players} players - print at 100 %; the line is 100 mm",
                (int(cx - 90 * ppm), line_y + int(10 * ppm)), cv2.FONT_HERSHEY_SIMPLEX, 1.3,
                (0, 0, 0), 3, cv2.LINE_AA)
    Image.fromarray(page[..., ::-1]).save(out, "PDF", resolution=PDF_DPI)
    return out


# --- finding it ------------------------------------------------------------------


#: Images this long (pixels) or longer are first looked at halved for the mat's markers,
#: and at full size only when one shows there: a 12 MP photo's markers take 160 ms to
#: look for, a halved one's 40. The markers' smallest size the detector takes is a share
#: of the image (``minMarkerPerimeterRate``), so halving loses only markers of fewer than
#: 5 pixels a cell at full size: tiles 20-30 px wide in a 12 MP photo, too small to read.
GLANCE_FROM = 3000


def detect_mat(image: np.ndarray) -> MatView | None:
    """Find the mat in a BGR (or grey) frame; ``None`` when no mat marker is seen.

    When markers of mats for different player counts are seen, the count with
    the most markers wins.
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(_dictionary(), params)
    if max(grey.shape[:2]) >= GLANCE_FROM:  # a big photo with no mat is seen so at half size
        half = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2),
                          interpolation=cv2.INTER_AREA)
        ids = detector.detectMarkers(half)[1]
        if ids is None or all(players_from_id(int(i)) is None for i in ids.reshape(-1)):
            return None
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None or len(ids) == 0:
        return None
    groups: dict[int, list[tuple[int, int, np.ndarray]]] = {}
    for quad, marker_id in zip(corners, ids.reshape(-1), strict=True):
        found = players_from_id(int(marker_id))
        if found is None:
            continue
        players, position = found
        groups.setdefault(players, []).append((int(marker_id), position, quad.reshape(4, 2)))
    if not groups:
        return None
    players = max(groups, key=lambda p: len(groups[p]))
    seen = groups[players]
    src = np.concatenate([q for _, _, q in seen]).astype(np.float64)
    dst = np.concatenate([marker_corners_mm(pos) for _, pos, _ in seen])
    matrix, _ = cv2.findHomography(src, dst, 0)
    if matrix is None:
        return None
    error = float(np.mean(np.linalg.norm(apply_homography(matrix, src) - dst, axis=1)))
    return MatView(players, matrix, tuple(sorted(i for i, _, _ in seen)), error)


def engine_outline(mat: MatView) -> np.ndarray:
    """The engine's outline printed on ``mat``, in image pixels (4, 2)."""
    return np.asarray(apply_homography(mat.mat_to_image, engine_box_mm()), np.float32)


def rectify(image: np.ndarray, mat: MatView, px_per_mm: float = 1.0,
            extent_mm: float = 500.0) -> np.ndarray:
    """A top-down view of the table round the hub, ``2 * extent_mm`` square.

    Pixel ``(u, v)`` of the result is mat mm ``(u / px_per_mm - extent_mm,
    v / px_per_mm - extent_mm)``; seat 0 is at the bottom.
    """
    side = int(round(2 * extent_mm * px_per_mm))
    to_out = np.array([[px_per_mm, 0, extent_mm * px_per_mm],
                       [0, px_per_mm, extent_mm * px_per_mm], [0, 0, 1]])
    return cv2.warpPerspective(image, to_out @ mat.image_to_mat, (side, side),
                               flags=cv2.INTER_LINEAR)
