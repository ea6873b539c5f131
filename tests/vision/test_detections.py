"""Detections: validation, indexing, geometry, adapters."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from vision.models.detections import Detections, polygon_iou, xywhr_to_corners

SQUARE = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], np.float32)


def three() -> Detections:
    corners = np.stack([SQUARE, SQUARE + 10, SQUARE * 2])
    return Detections(corners, np.array([0.9, 0.3, 0.6]), np.array([0, 1, 0]),
                      {"name": np.array(["a", "b", "c"])})


class TestValidation:
    @pytest.mark.parametrize(("corners", "confidence", "class_id", "data", "message"), [
        (np.zeros((2, 4)), [1, 1], [0, 0], {}, "corners must have shape"),
        (np.zeros((2, 3, 2)), [1, 1], [0, 0], {}, "corners must have shape"),
        (np.zeros((2, 4, 2)), [1], [0, 0], {}, "confidence has 1 entries"),
        (np.zeros((2, 4, 2)), [1, 1], [[0, 0]], {}, "class_id must have shape"),
        (np.zeros((2, 4, 2)), [1, 1], [0, 0], {"k": np.zeros(3)}, "data\\['k'\\]"),
        (np.zeros((2, 4, 2)), [1, 1], [0, 0], {"k": 5}, "data\\['k'\\]"),
    ])
    def test_bad_shapes_raise(self, corners: np.ndarray, confidence: list[float],
                              class_id: list[int], data: dict[str, np.ndarray],
                              message: str) -> None:
        with pytest.raises(ValueError, match=message):
            Detections(corners, np.array(confidence), np.array(class_id), data)

    def test_dtypes_are_normalised(self) -> None:
        d = Detections(np.zeros((1, 4, 2), np.float64), np.array([1]), np.array([1.0]))
        assert d.corners.dtype == np.float32
        assert d.confidence.dtype == np.float32
        assert d.class_id.dtype == np.int64

    def test_empty(self) -> None:
        d = Detections.empty()
        assert len(d) == 0
        assert d.xyxy.shape == (0, 4)
        assert d.center.shape == (0, 2)


class TestIndexing:
    def test_boolean_mask(self) -> None:
        d = three()
        kept = d[d.confidence > 0.5]
        assert len(kept) == 2
        assert kept.data["name"].tolist() == ["a", "c"]
        assert kept.class_id.tolist() == [0, 0]

    def test_int_keeps_one_row_as_detections(self) -> None:
        one = three()[1]
        assert isinstance(one, Detections) and len(one) == 1
        assert one.data["name"].tolist() == ["b"]

    def test_index_array_and_slice(self) -> None:
        d = three()
        assert d[[2, 0]].data["name"].tolist() == ["c", "a"]
        assert d[1:].confidence.tolist() == pytest.approx([0.3, 0.6])

    def test_iteration_yields_rows(self) -> None:
        rows = list(three())
        assert len(rows) == 3
        corners, confidence, class_id = rows[1]
        assert corners.shape == (4, 2) and confidence == pytest.approx(0.3) and class_id == 1

    def test_equality_and_merge(self) -> None:
        d = three()
        merged = Detections.merge([d[:1], d[1:]])
        assert merged == d
        assert merged != d[:2]
        with pytest.raises(ValueError, match="data keys"):
            Detections.merge([d, Detections.empty()])


class TestGeometry:
    def test_xyxy_center_area(self) -> None:
        d = three()
        assert d.xyxy[1].tolist() == [10, 10, 12, 12]
        assert d.center[2].tolist() == [2, 2]
        assert d.area.tolist() == [4, 4, 16]

    def test_from_xyxy_goes_round_the_box(self) -> None:
        d = Detections.from_xyxy(np.array([[1, 2, 5, 4]]))
        assert d.corners[0].tolist() == [[1, 2], [5, 2], [5, 4], [1, 4]]
        assert d.confidence.tolist() == [1.0]

    def test_from_xywhr_rotates(self) -> None:
        flat = Detections.from_xywhr(np.array([[10, 10, 4, 2, 0]]))
        assert flat.xyxy[0].tolist() == pytest.approx([8, 9, 12, 11])
        upright = Detections.from_xywhr(np.array([[10, 10, 4, 2, np.pi / 2]]))
        assert upright.xyxy[0].tolist() == pytest.approx([9, 8, 11, 12], abs=1e-5)

    def test_xywhr_corners_form_a_rectangle(self) -> None:
        c = xywhr_to_corners(np.array([[0, 0, 6, 2, 0.3]]))[0]
        sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
        assert sides.tolist() == pytest.approx([2, 6, 2, 6], abs=1e-5)

    @pytest.mark.parametrize(("shift", "expected"), [
        ((0, 0), 1.0), ((1, 0), 1 / 3), ((1, 1), 1 / 7), ((5, 0), 0.0), ((2, 0), 0.0)])
    def test_polygon_iou(self, shift: tuple[float, float], expected: float) -> None:
        iou = polygon_iou(SQUARE[None], (SQUARE + shift)[None])
        assert iou.shape == (1, 1)
        assert iou[0, 0] == pytest.approx(expected, abs=1e-5)

    def test_polygon_iou_of_rotated_boxes_is_symmetric(self) -> None:
        a = xywhr_to_corners(np.array([[0, 0, 10, 5, 0.0], [3, 1, 10, 5, 0.7]]))
        m = polygon_iou(a, a)
        assert np.allclose(np.diag(m), 1.0, atol=1e-5)
        assert m[0, 1] == pytest.approx(m[1, 0]) and 0 < m[0, 1] < 1
        assert polygon_iou(a, np.zeros((0, 4, 2))).shape == (2, 0)


class TestFromUltralytics:
    def test_obb_result(self) -> None:
        corners = np.stack([SQUARE, SQUARE + 5])
        result = SimpleNamespace(obb=SimpleNamespace(
            xyxyxyxy=corners, conf=np.array([0.8, 0.4]), cls=np.array([1.0, 0.0])))
        d = Detections.from_ultralytics(result)
        assert d.class_id.tolist() == [1, 0]
        assert np.array_equal(d.corners, corners)

    def test_detect_result(self) -> None:
        result = SimpleNamespace(obb=None, boxes=SimpleNamespace(
            xyxy=np.array([[0, 0, 4, 2]]), conf=np.array([0.5]), cls=np.array([0.0])))
        d = Detections.from_ultralytics(result)
        assert d.xyxy.tolist() == [[0, 0, 4, 2]]
        assert d.confidence.tolist() == [0.5]


def test_a_frame_reading_hands_on_its_tiles_as_detections_with_their_values() -> None:
    from vision.readings import FrameReading, TileReading, TileReadings

    box = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], np.float32)
    tiles = [TileReading((3, 5), box, 0.9, False), TileReading((12, 0), box + 30, 0.4, True)]
    tiles.append(TileReading((4, 4), box + 60, 0.6, True, half_certainty=(0.5, 0.9),
                             ranges=((3, 5), (4, 4))))
    found = FrameReading(TileReadings.of(tiles), Detections.empty()).tiles
    assert found.values.tolist() == [[3, 5], [12, 0], [4, 4]]
    assert np.allclose(found.confidence, [0.9, 0.4, 0.6])
    assert np.allclose(found.corners[1], box + 30)
    assert found.ranges.tolist() == [[[3, 3], [5, 5]], [[12, 12], [0, 0]], [[3, 5], [4, 4]]]
    assert np.allclose(found.half_certainty, [[1.0, 1.0], [1.0, 1.0], [0.5, 0.9]])
    assert found.uncertain.tolist() == [False, True, True]
    assert found.track_id.tolist() == [-1, -1, -1]  # read from one image: not tracked
    sure = found[~found.uncertain]
    assert isinstance(sure, TileReadings) and sure.values.tolist() == [[3, 5]]
    assert [(t.values, t.confidence, t.uncertain, t.half_certainty, t.ranges)
            for t in found.each()] == [(t.values, t.confidence, t.uncertain, t.half_certainty,
                                        t.ranges) for t in tiles]  # each as it was given
    assert len(TileReadings.empty()) == 0
    with pytest.raises(ValueError, match="lacks"):
        TileReadings(np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0))


def test_boxes_added_after_detections_keep_them_and_carry_empty_data() -> None:
    base = Detections(np.stack([SQUARE]), np.array([0.9]), np.array([0]),
                      {"xywhr": np.ones((1, 5), np.float32)})
    out = base.extended(np.stack([SQUARE + 5, SQUARE + 9]), np.array([0.3, 0.4]),
                        np.array([1, 1]))
    assert len(out) == 3
    np.testing.assert_array_equal(out.corners[0], SQUARE)
    np.testing.assert_array_equal(out.corners[2], SQUARE + 9)
    assert out.confidence.tolist() == pytest.approx([0.9, 0.3, 0.4])
    assert out.class_id.tolist() == [0, 1, 1]
    assert out.data["xywhr"].tolist() == [[1.0] * 5, [0.0] * 5, [0.0] * 5]
