"""ONNX decoding matches ultralytics' own pre- and post-processing."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
from reader_fixtures import (
    HALF_NAMES,
    fixed_batch_dir,
    quiet_predict,
    restore_pil_open,
    ultralytics_yolo,
    untrained_dir,
)

from engine.errors import BadInputError
from vision.models.detections import Detections
from vision.models.onnx_models import (
    BoxDetector,
    Classifier,
    Letterbox,
    ModelSpec,
    ObbDetector,
    OnnxModel,
    decode_detect,
    decode_detect_batch,
    fit_crop,
    fit_crops,
    letterbox,
    load_specs,
)
from vision.models.overlap import nms_boxes, nms_rotated, probiou


@pytest.fixture(scope="session")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_dir(tmp_path_factory)


@pytest.fixture(scope="session")
def untrained_fixed_batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fixed_batch_dir(tmp_path_factory)



def _torch() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch
        from ultralytics.data.augment import LetterBox
        from ultralytics.utils.metrics import batch_probiou
        from ultralytics.utils.nms import TorchNMS
    restore_pil_open()
    return torch, LetterBox, batch_probiou, TorchNMS


def _random_xywhr(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack([rng.uniform(0, 100, n), rng.uniform(0, 100, n),
                            rng.uniform(5, 40, n), rng.uniform(5, 40, n),
                            rng.uniform(-np.pi / 4, 3 * np.pi / 4, n)]).astype(np.float32)


def _blurred_noise(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return cv2.GaussianBlur((rng.random((*shape, 3)) * 255).astype(np.uint8), (0, 0), 3)


class TestLetterbox:
    @pytest.mark.parametrize("shape", [(720, 1280), (1280, 720), (480, 700), (383, 385),
                                       (100, 30), (384, 384), (3000, 4000)])
    def test_same_pixels_as_ultralytics(self, shape: tuple[int, int]) -> None:
        _, LetterBox, _, _ = _torch()
        image = _blurred_noise(np.random.default_rng(0), shape)
        ours, box = letterbox(image, (384, 384))
        theirs = LetterBox((384, 384), auto=False)(image=image)
        assert ours.shape == theirs.shape == (384, 384, 3)
        if box.gain_x >= 0.5:  # bilinear, exactly as ultralytics
            assert np.array_equal(ours, theirs)
        else:  # area averaging for big shrinks: same geometry, smoother pixels
            w, h = box.new_size
            inside = np.zeros((384, 384), bool)
            inside[box.pad_y:box.pad_y + h, box.pad_x:box.pad_x + w] = True
            assert np.all(ours[~inside] == 114) and np.all(theirs[~inside] == 114)
            diff = np.abs(ours.astype(int) - theirs.astype(int))[inside]
            assert diff.mean() < 8

    def test_to_image_inverts_the_fit(self) -> None:
        box = Letterbox.fit((720, 1280), (384, 384))
        corners = np.array([[0, 0], [1280, 720]], np.float32)
        model = corners * [box.gain_x, box.gain_y] + [box.pad_x, box.pad_y]
        assert np.allclose(box.to_image(model), corners, atol=1e-3)
        assert box.pad_x == 0 and box.pad_y == 84


    def test_zoom_out_shrinks_and_centres(self) -> None:
        image = np.full((100, 200, 3), 200, np.uint8)
        padded, box = letterbox(image, (384, 384), zoom_out=4)
        assert box.new_size == (96, 48)  # a quarter of the 384 x 192 it would fill
        assert (box.pad_x, box.pad_y) == (144, 168)
        assert np.all(padded[168:216, 144:240] == 200)
        assert padded[100, 100].tolist() == [114, 114, 114]
        corners = np.array([[0, 0], [200, 100]], np.float32)
        model = corners * [box.gain_x, box.gain_y] + [box.pad_x, box.pad_y]
        assert np.allclose(box.to_image(model), corners, atol=1e-3)


class TestNms:
    def test_probiou_matches_ultralytics(self) -> None:
        torch, _, batch_probiou, _ = _torch()
        rng = np.random.default_rng(1)
        a, b = _random_xywhr(rng, 40), _random_xywhr(rng, 30)
        theirs = batch_probiou(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        assert np.allclose(probiou(a, b), theirs, atol=1e-4)

    def test_probiou_of_a_box_with_itself_is_one(self) -> None:
        boxes = _random_xywhr(np.random.default_rng(2), 5)
        assert np.allclose(np.diag(probiou(boxes, boxes)), 1.0, atol=1e-3)

    def test_rotated_nms_matches_ultralytics_fast_nms(self) -> None:
        torch, _, batch_probiou, TorchNMS = _torch()
        rng = np.random.default_rng(3)
        boxes = _random_xywhr(rng, 200)
        scores = rng.random(200).astype(np.float32)
        theirs = TorchNMS.fast_nms(torch.from_numpy(boxes), torch.from_numpy(scores), 0.5,
                                   iou_func=batch_probiou).numpy()
        assert np.array_equal(nms_rotated(boxes, scores, 0.5), theirs)

    def test_box_nms_is_greedy_like_torchvision(self) -> None:
        torch, _, _, TorchNMS = _torch()
        rng = np.random.default_rng(4)
        xy = rng.uniform(0, 100, (150, 2))
        boxes = np.hstack([xy, xy + rng.uniform(5, 30, (150, 2))]).astype(np.float32)
        scores = rng.random(150).astype(np.float32)
        theirs = TorchNMS.nms(torch.from_numpy(boxes), torch.from_numpy(scores), 0.5).numpy()
        assert np.array_equal(nms_boxes(boxes, scores, 0.5), theirs)

    def test_suppressed_box_still_suppresses_in_fast_nms(self) -> None:
        # A overlaps B, B overlaps C, A does not overlap C: greedy keeps A and C,
        # fast NMS keeps only A (ultralytics' OBB behaviour, repeated on purpose).
        boxes = np.array([[0, 0, 10, 10, 0], [6, 0, 10, 10, 0], [12, 0, 10, 10, 0]], np.float32)
        scores = np.array([0.9, 0.8, 0.7], np.float32)
        assert nms_rotated(boxes, scores, 0.3).tolist() == [0]


class TestBatchDecoding:
    @staticmethod
    def _outputs(rng: np.random.Generator, crops: int, nc: int, anchors: int = 189) -> np.ndarray:
        """Raw detect outputs with clusters of overlapping candidates, as a model gives."""
        out = np.zeros((crops, 4 + nc, anchors), np.float32)
        centres = rng.uniform(10, 86, (crops, 2, 12))
        pick = rng.integers(0, 12, (crops, anchors))
        xy = np.take_along_axis(centres, pick[:, None, :].repeat(2, 1), axis=2)
        out[:, :2] = xy + rng.normal(0, 1.5, (crops, 2, anchors))
        out[:, 2:4] = rng.uniform(6, 12, (crops, 2, anchors))
        out[:, 4:] = rng.random((crops, nc, anchors)) ** 3
        out[:, 4:, ::7] = 0.5  # exact ties: the anchor order must break them
        out[2, 4:] = 0.0  # a crop with nothing above the threshold
        return out

    @pytest.mark.parametrize("nc", [1, 3])
    def test_batch_equals_one_crop_at_a_time(self, nc: int) -> None:
        rng = np.random.default_rng(11)
        outputs = self._outputs(rng, 9, nc)
        boxes: list[Letterbox | None] = [Letterbox.fit((int(h), int(w)), (96, 96))
                                         for h, w in rng.integers(40, 200, (9, 2))]
        boxes[4] = None  # model pixels
        batch = decode_detect_batch(outputs, boxes, conf_threshold=0.3, iou_threshold=0.5,
                                    max_det=25, nc=nc)
        found = 0
        for out, box, mine in zip(outputs, boxes, batch, strict=True):
            one = decode_detect(out, box, conf_threshold=0.3, iou_threshold=0.5,
                                max_det=25, nc=nc)
            assert np.array_equal(mine.corners, one.corners)
            assert np.array_equal(mine.confidence, one.confidence)
            assert np.array_equal(mine.class_id, one.class_id)
            found += len(one)
        assert len(batch[2]) == 0 and found > 50

    def test_mismatched_letterboxes_are_refused(self) -> None:
        outputs = self._outputs(np.random.default_rng(12), 3, 1)
        with pytest.raises(ValueError, match="letterboxes"):
            decode_detect_batch(outputs, [None, None])


class TestDecodersAgainstUltralytics:
    @pytest.mark.parametrize("shape", [(480, 700), (600, 760), (700, 500)])  # bilinear range
    def test_obb(self, untrained_models: Path, shape: tuple[int, int]) -> None:
        spec = load_specs(untrained_models)["tiles"]
        image = _blurred_noise(np.random.default_rng(5), shape)
        ours = ObbDetector(spec, conf_threshold=0.45)(image)
        result = quiet_predict(ultralytics_yolo(spec.file, "obb"), image, imgsz=384, conf=0.45)
        theirs = Detections.from_ultralytics(result)
        assert len(ours) == len(theirs) > 3
        assert np.allclose(ours.corners, theirs.corners, atol=0.05)
        assert np.allclose(ours.confidence, theirs.confidence, atol=1e-5)
        assert np.array_equal(ours.class_id, theirs.class_id)

    def test_a_class_floor_keeps_that_class_lower_and_no_other(self) -> None:
        # five anchors apart in a 64x64 input: tiles 0.9, 0.3, 0.15; markers 0.3, 0.1
        raw = np.zeros((1, 7, 5), np.float32)
        raw[0, 0], raw[0, 1] = [8, 20, 32, 44, 56], [8, 20, 32, 44, 56]
        raw[0, 2], raw[0, 3] = 6, 3
        raw[0, 4] = [0.9, 0.3, 0.0, 0.0, 0.15]
        raw[0, 5] = [0.0, 0.0, 0.3, 0.1, 0.0]

        def detector(**floors: Any) -> ObbDetector:
            det = ObbDetector.__new__(ObbDetector)
            det.model = SimpleNamespace(  # type: ignore[assignment]
                dynamic_size=False, size=(64, 64), run=lambda blob: raw)
            det.names, det.iou_threshold, det.max_det = ("tile", "marker"), 0.7, 300
            det.conf_threshold = 0.25
            det.class_thresholds = floors.get("classes", {})
            return det

        def found(det: ObbDetector) -> list[tuple[int, int]]:
            d = det(np.zeros((64, 64, 3), np.uint8))
            return sorted(zip(d.class_id.tolist(), (10 * d.confidence).round().astype(int).tolist(),
                              strict=True))

        assert found(detector()) == [(0, 3), (0, 9), (1, 3)]
        # markers down to 0.05; tiles as before (not the 0.15 one)
        assert found(detector(classes={1: 0.05})) == [(0, 3), (0, 9), (1, 1), (1, 3)]

    def test_detect_on_a_batch_of_crops(self, untrained_models: Path) -> None:
        spec = load_specs(untrained_models)["pips"]
        rng = np.random.default_rng(6)
        crops = [_blurred_noise(rng, (96, 96)) for _ in range(4)] + [_blurred_noise(rng, (80, 60))]
        ours = BoxDetector(spec, conf_threshold=0.1, iou_threshold=0.7)(crops)
        model = ultralytics_yolo(spec.file, "detect")
        total = 0
        for crop, mine in zip(crops, ours, strict=True):
            theirs = Detections.from_ultralytics(quiet_predict(model, crop, imgsz=96, conf=0.1))
            assert len(mine) == len(theirs)
            assert np.allclose(mine.xyxy, theirs.xyxy, atol=0.05)
            assert np.allclose(mine.confidence, theirs.confidence, atol=1e-5)
            total += len(mine)
        assert total > 5

    def test_classifier_on_a_batch_of_crops(self, untrained_models: Path) -> None:
        spec = ModelSpec(untrained_models / "halves.onnx", 96, tuple(HALF_NAMES), "classify")
        rng = np.random.default_rng(8)
        crops = [_blurred_noise(rng, (96, 96)) for _ in range(3)]
        crops += [np.full((96, 96, 3), 230, np.uint8), np.full((96, 96, 3), 20, np.uint8)]
        ours = Classifier(spec)(crops)
        assert ours.shape == (5, len(HALF_NAMES))
        assert np.allclose(ours.sum(axis=1), 1.0, atol=1e-5)
        model = ultralytics_yolo(spec.file, "classify")
        for crop, mine in zip(crops, ours, strict=True):
            theirs = quiet_predict(model, crop, imgsz=96).probs.data.numpy()
            assert np.allclose(mine, theirs, atol=1e-5)
        assert np.ptp(ours, axis=1).min() > 0.05  # the stand-in's classes are not all alike
        assert not np.allclose(ours[-2], ours[-1], atol=1e-2)  # and it looks at the crop

    def test_classifier_resizes_other_crops_and_takes_none(self, untrained_models: Path
                                                           ) -> None:
        spec = ModelSpec(untrained_models / "halves.onnx", 96, tuple(HALF_NAMES), "classify")
        classify = Classifier(spec)
        crop = _blurred_noise(np.random.default_rng(9), (96, 96))
        small = cv2.resize(crop, (48, 48), interpolation=cv2.INTER_AREA)
        assert classify([small]).shape == (1, len(HALF_NAMES))
        assert classify([]).shape == (0, len(HALF_NAMES))

    def test_crops_are_shrunk_as_the_classifier_was_trained_on_them(self) -> None:
        """ultralytics' classify transforms shrink a crop with PIL's antialiased bilinear;
        a half crop brought to a smaller classifier must look the same, its pips whole,
        not sampled every few pixels (shrunk 3 times, where the two differ most)."""
        from PIL import Image

        rng = np.random.default_rng(11)
        crop = np.full((96, 96, 3), 235, np.uint8)
        for x, y in rng.integers(8, 88, size=(9, 2)):
            cv2.circle(crop, (int(x), int(y)), 2, (20, 20, 20), -1, cv2.LINE_AA)
        trained = np.asarray(Image.fromarray(crop).resize((32, 32), Image.Resampling.BILINEAR),
                             np.float32)
        ours = fit_crop(crop, 32)
        sampled = cv2.resize(crop, (32, 32), interpolation=cv2.INTER_LINEAR)
        assert ours.shape == (32, 32, 3)
        assert np.abs(ours - trained).mean() < 0.5 * np.abs(sampled - trained).mean()
        assert np.abs(ours - trained).max() < 0.5 * np.abs(sampled - trained).max()
        assert fit_crop(crop, 96) is crop  # the model's own size: untouched
        assert fit_crop(crop[:40, :40], 64).shape == (64, 64, 3)  # a small one is enlarged

    def test_crops_shrunk_together_are_shrunk_as_one_by_one(self) -> None:
        """``fit_crops`` resizes a frame's crops stacked in one call: each comes out with
        exactly the pixels it gets alone, at its place, whatever the crops' sizes."""
        rng = np.random.default_rng(12)
        crops = [rng.integers(0, 256, (96, 96, 3), dtype=np.uint8) for _ in range(7)]
        for side in (64, 48, 32):
            together = fit_crops(crops, side)
            assert len(together) == len(crops)
            for alone, stacked in zip(crops, together, strict=True):
                assert np.array_equal(fit_crop(alone, side), stacked)
        mixed = [*crops[:3], crops[3][:80, :80], crops[4][:40, :40]]
        for alone, got in zip(mixed, fit_crops(mixed, 64), strict=True):
            assert np.array_equal(fit_crop(alone, 64), got)
        assert fit_crops([], 64) == []

    def test_fixed_and_dynamic_batch_agree(self, untrained_models: Path,
                                           untrained_fixed_batch: Path) -> None:
        dynamic = OnnxModel(load_specs(untrained_models)["pips"])
        fixed = OnnxModel(load_specs(untrained_fixed_batch)["pips"])
        assert dynamic.fixed_batch is None and fixed.fixed_batch == 1
        blob = np.random.default_rng(7).random((5, 3, 96, 96)).astype(np.float32)
        assert np.allclose(dynamic.run(blob), fixed.run(blob), atol=1e-4)


class TestModelIndex:
    def test_missing_index_names_the_file(self, tmp_path: Path) -> None:
        with pytest.raises(BadInputError) as err:
            load_specs(tmp_path)
        assert err.value.source.endswith("models.json")

    def test_missing_model_file(self, tmp_path: Path) -> None:
        (tmp_path / "models.json").write_text(json.dumps({
            "tiles": {"file": "tiles.onnx", "imgsz": 384, "names": ["tile"], "task": "obb"},
            "pips": {"file": "pips.onnx", "imgsz": 96, "names": ["pip"], "task": "detect"}}))
        with pytest.raises(BadInputError, match="no such model file"):
            load_specs(tmp_path)

    @pytest.mark.parametrize("text", ["{", "[]", '{"tiles": {"file": "x"}}', '{"pips": {}}'])
    def test_malformed_index(self, tmp_path: Path, text: str) -> None:
        (tmp_path / "models.json").write_text(text)
        with pytest.raises(BadInputError):
            load_specs(tmp_path)
