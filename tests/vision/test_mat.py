"""vision.mat.hub_mat: the printable hub mat, finding it in a frame, rectifying the view."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.errors import BadInputError
from vision.mat.geometry import (
    MAT_SIDE_MM,
    SLOT_RADIUS_MM,
    apply_homography,
    marker_corners_mm,
    marker_ids,
    players_from_id,
    slot_angles,
)
from vision.mat.hub_mat import detect_mat, mat_image, rectify, write_mat

PX_PER_MM = 3.0


def _frame(players: int, angle_deg: float, scale: float = 0.9,
           tilt: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A frame showing the mat turned by ``angle_deg``; returns it and mat mm -> image."""
    img = mat_image(players, PX_PER_MM)
    mm_to_img = np.array([[PX_PER_MM, 0, MAT_SIDE_MM / 2 * PX_PER_MM],
                          [0, PX_PER_MM, MAT_SIDE_MM / 2 * PX_PER_MM], [0, 0, 1]])
    a = math.radians(angle_deg)
    place = np.array([[scale * math.cos(a), -scale * math.sin(a), 640],
                      [scale * math.sin(a), scale * math.cos(a), 360], [tilt, 0, 1]])
    centre = np.array([[1, 0, -MAT_SIDE_MM / 2 * PX_PER_MM],
                       [0, 1, -MAT_SIDE_MM / 2 * PX_PER_MM], [0, 0, 1]])
    warp = place @ centre
    frame = cv2.warpPerspective(img, warp, (1280, 720), borderValue=(70, 100, 70))
    return frame, warp @ mm_to_img


class TestGeometry:
    def test_slots_start_at_seat_zero_and_go_clockwise(self) -> None:
        angles = slot_angles(3)
        assert len(angles) == 4
        assert math.degrees(angles[0]) == pytest.approx(90)
        assert math.degrees(angles[1]) == pytest.approx(180)  # left in the image

    def test_ids_tell_players_and_position(self) -> None:
        for players in range(2, 9):
            for position, marker_id in enumerate(marker_ids(players)):
                assert players_from_id(marker_id) == (players, position)
        assert players_from_id(0) is None

    def test_markers_lie_inside_the_train_slots_and_on_the_mat(self) -> None:
        for position in range(4):
            corners = marker_corners_mm(position)
            assert np.linalg.norm(corners, axis=1).max() < SLOT_RADIUS_MM - 10
            assert np.abs(corners).max() < MAT_SIDE_MM / 2


class TestDetect:
    @pytest.mark.parametrize(("players", "angle"), [(2, 0.0), (4, 30.0), (8, -120.0)])
    def test_found_with_players_and_homography(self, players: int, angle: float) -> None:
        frame, mm_to_img = _frame(players, angle, tilt=0.0002)
        view = detect_mat(frame)
        assert view is not None
        assert view.players == players
        assert view.ids == marker_ids(players)
        pts = np.array([[0, 0], [90, 0], [0, -90], [-60, 70]], float)
        back = apply_homography(view.image_to_mat, apply_homography(mm_to_img, pts))
        assert np.abs(back - pts).max() < 1.0
        assert view.error_mm < 0.5

    def test_no_mat_is_none(self) -> None:
        assert detect_mat(np.full((360, 640, 3), 128, np.uint8)) is None

    def test_half_covered_mat_still_found(self) -> None:
        frame, _ = _frame(5, 10.0)
        frame[:, :640] = 90  # a hand over the left half hides two markers
        view = detect_mat(frame)
        assert view is not None and view.players == 5 and len(view.ids) == 2

    def test_rectify_puts_the_hub_in_the_middle_and_seat_zero_down(self) -> None:
        frame, _ = _frame(4, 45.0)
        view = detect_mat(frame)
        assert view is not None
        top = rectify(frame, view, px_per_mm=2.0, extent_mm=100)
        assert top.shape[:2] == (400, 400)
        expected = mat_image(4, 2.0)
        grey_top = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(float)
        grey_exp = cv2.cvtColor(expected, cv2.COLOR_BGR2GRAY).astype(float)
        assert np.mean(np.abs(grey_top - grey_exp) > 100) < 0.03


class TestWrite:
    def test_svg_is_valid_and_a4(self, tmp_path: Path) -> None:
        out = write_mat(tmp_path / "mat.svg", 4)
        root = ET.parse(out).getroot()
        assert root.get("width") == "210.0mm"
        assert "4 players" in out.read_text()

    def test_svg_markers_are_detected_when_rasterised_as_the_image(self) -> None:
        view = detect_mat(mat_image(6, 4.0))
        assert view is not None and view.players == 6

    def test_pdf(self, tmp_path: Path) -> None:
        out = write_mat(tmp_path / "mat.pdf", 3)
        assert out.read_bytes().startswith(b"%PDF")

    def test_other_suffix_is_bad_input(self, tmp_path: Path) -> None:
        with pytest.raises(BadInputError):
            write_mat(tmp_path / "mat.png", 4)

    def test_players_out_of_range_is_bad_input(self, tmp_path: Path) -> None:
        with pytest.raises(BadInputError):
            write_mat(tmp_path / "mat.svg", 9)


def test_reconstruct_with_a_detected_mat_assigns_seats_by_the_mat() -> None:
    from vision.readings import TileReading
    from vision.table import reconstruct

    frame, mm_to_img = _frame(3, 90.0)  # seat 0's slot now points left in the image
    view = detect_mat(frame)
    assert view is not None

    def tile(near: tuple[float, float], far: tuple[float, float],
             values: tuple[int, int]) -> TileReading:
        n, f = np.array(near), np.array(far)
        a = (f - n) / np.linalg.norm(f - n)
        p = np.array([-a[1], a[0]])
        ne, fe = n - 12 * a, f + 12 * a
        mm = np.array([ne - 12 * p, ne + 12 * p, fe + 12 * p, fe - 12 * p])
        return TileReading(values, apply_homography(mm_to_img, mm))

    engine = tile((-12, 0), (12, 0), (6, 6))
    seat0 = tile((0, 122), (0, 146), (6, 2))  # down on the mat: seat 0's slot
    reading = reconstruct([engine, seat0], None, 3, view)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((6, 2),)  # type: ignore[union-attr]


class TestBigPhoto:
    """A big photo is looked at halved first: the mat is found as at full size."""

    @staticmethod
    def _big(players: int) -> np.ndarray:
        frame, _ = _frame(players, 20.0, tilt=0.0002)
        big = np.full((3000, 4000, 3), (70, 100, 70), np.uint8)
        big[700:2140, 600:3160] = cv2.resize(frame, (2560, 1440), interpolation=cv2.INTER_CUBIC)
        return big

    def test_the_mat_in_a_12_mp_photo_is_found_as_without_the_glance(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        from vision.mat import hub_mat

        big = self._big(6)
        assert max(big.shape) >= hub_mat.GLANCE_FROM
        view = detect_mat(big)
        monkeypatch.setattr(hub_mat, "GLANCE_FROM", 10**6)
        whole = detect_mat(big)
        assert view is not None and whole is not None
        assert (view.players, view.ids) == (whole.players, whole.ids) == (6, marker_ids(6))
        assert np.array_equal(view.image_to_mat, whole.image_to_mat)

    def test_a_12_mp_photo_without_the_mat_or_with_another_marker_is_none(self) -> None:
        big = np.full((3000, 4000, 3), 128, np.uint8)
        assert detect_mat(big) is None
        other = cv2.aruco.generateImageMarker(
            cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 0, 300)
        big[1000:1300, 1000:1300] = other[..., None]  # id 0: no mat's marker
        assert detect_mat(big) is None
