"""TileReader: from detections and pip counts to tile readings."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image
from reader_fixtures import (
    MODELS,
    ROOT,
    fixed_batch_dir,
    needs_trained_models,
    untrained_dir,
)

from vision.models.crops import half_crops, tile_half_crops
from vision.models.detections import Detections, polygon_iou
from vision.reading.count_certainty import FAINT_PIP, inside_half
from vision.reading.reader import (
    CLASSIFIER_SURE,
    PIP_THRESHOLD,
    FrameReading,
    TileReader,
    TileReading,
)
from vision.stills.hand_photos import Doubt, tile_doubts

# A tile lying on its side: a half (red) on the left, b half (blue) on the right.
TILE = np.array([[100, 140], [100, 100], [180, 100], [180, 140]], np.float32)

@pytest.fixture(scope="session")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_dir(tmp_path_factory)


@pytest.fixture(scope="session")
def untrained_fixed_batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fixed_batch_dir(tmp_path_factory)



def two_colour_tile_image(scale: float = 1.0) -> np.ndarray:
    image = np.full((int(300 * scale), int(400 * scale), 3), 60, np.uint8)
    c = (TILE * scale).astype(np.int32)
    x0, y0, x1, y1 = c[:, 0].min(), c[:, 1].min(), c[:, 0].max(), c[:, 1].max()
    mid = (x0 + x1) // 2
    image[y0:y1, x0:mid] = (0, 0, 255)
    image[y0:y1, mid:x1] = (255, 0, 0)
    return image


class StubDetector:
    """Reports ``detections``; with ``far`` set, only when looking from further away."""

    def __init__(self, detections: Detections, far: bool = False) -> None:
        self.detections = detections
        self.far = far
        self.zooms: list[float] = []

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0) -> Detections:
        self.zooms.append(zoom_out)
        if self.far and zoom_out == 1.0:
            return Detections.empty()
        return self.detections


class StubPips:
    """Pip scores to report per crop, in order; records the crops it saw."""

    def __init__(self, scores: Sequence[Sequence[float]]) -> None:
        self.scores = scores
        self.seen: list[np.ndarray] = []

    def __call__(self, crops: Sequence[np.ndarray]) -> list[Detections]:
        self.seen = list(crops)
        out = []
        for s in self.scores[:len(crops)]:
            n = len(s)
            xy = np.column_stack([np.linspace(20, 76, n), np.full(n, 40)])
            out.append(Detections.from_xyxy(np.hstack([xy - 4, xy + 4]), np.array(s, np.float32)))
        return out


class StubClassifier:
    """The ``halves`` classifier's probabilities: ``top`` on one count per crop, in order,
    the rest spread over the other counts (``top`` 1: a sure count; 0.9: not sure enough
    to be taken without the pips, ``CLASSIFIER_SURE``)."""

    def __init__(self, counts: Sequence[int], classes: int = 19, top: float = 0.9) -> None:
        self.counts = counts
        self.names = tuple(f"{v:02d}" for v in range(classes))
        self.top = top

    def __call__(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        n = len(self.names)
        rows = np.full((len(crops), n), (1.0 - self.top) / (n - 1), np.float32)
        rows[np.arange(len(crops)), list(self.counts[:len(crops)])] = self.top
        return rows


@pytest.fixture
def reader(untrained_models: Path) -> TileReader:
    # the untrained stand-ins box noise, which the tile check (vision.models.tile_check) drops
    return TileReader(untrained_models, max_value=12, check_tiles=False)


class TestCrops:
    def test_inside_half_drops_pips_in_the_margin(self) -> None:
        centers = np.array([[48, 48], [2, 48], [94, 48], [48, 2], [48, 95]], np.float32)
        assert inside_half(centers).tolist() == [True, False, False, False, True]

    def test_small_tile_is_cut_exactly_like_crops(self) -> None:
        image = two_colour_tile_image()
        ours = tile_half_crops(image, TILE)
        theirs = half_crops(image, TILE)
        assert all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True))

    def test_big_tile_is_shrunk_first_but_looks_the_same(self) -> None:
        big = two_colour_tile_image(scale=8)
        small = cv2.resize(big, (400, 300), interpolation=cv2.INTER_AREA)
        ours = tile_half_crops(big, (TILE + 0.5) * 8 - 0.5)
        reference = half_crops(small, TILE)
        for a, b in zip(ours, reference, strict=True):
            assert np.abs(a.astype(int) - b.astype(int)).mean() < 6

    def test_big_noise_does_not_alias(self) -> None:
        # Fine stripes (2 px) shrunk over 3 times: area averaging gives nearly
        # flat grey, the bilinear warp alone picks stripes at random (moire).
        big = np.zeros((2400, 3200, 3), np.uint8)
        big[:, ::2] = 255
        corners = TILE * 8
        shrunk = tile_half_crops(big, corners)[0]
        direct = half_crops(big, corners)[0]
        assert shrunk.std() < 20 < 60 < direct.std()


class TestReadingLogic:
    def test_values_corners_and_confidence(self, reader: TileReader) -> None:
        tile = np.roll(TILE, 1, axis=0)  # starts on a long edge: the reader must re-order
        marker = TILE + 150
        vars(reader)["detector"] = StubDetector(Detections(
            np.stack([tile, marker]), np.array([0.9, 0.8]), np.array([0, 1])))
        stub = StubPips([[0.9, 0.95, 0.9], [0.9] * 5])
        vars(reader)["pip_detector"] = stub
        frame = reader.read(two_colour_tile_image())
        assert isinstance(frame, FrameReading) and frame.shape == (300, 400)
        assert len(frame.tiles) == 1 and len(frame.markers) == 1
        t = frame.tiles.reading(0)
        assert t.values == (3, 5)
        assert not t.uncertain
        assert t.confidence == pytest.approx(0.9)
        edges = np.linalg.norm(np.roll(t.corners, -1, axis=0) - t.corners, axis=1)
        assert edges[0] < edges[1]  # 0-1 is a short edge
        # the first crop (the a half) is the half at corners 0-1
        first, second = stub.seen[0], stub.seen[1]
        a_end = t.corners[:2].mean(axis=0)
        a_is_red = a_end[0] < 140
        assert (first[48, 48, 2] > 200) == a_is_red
        assert (second[48, 48, 0] > 200) == a_is_red

    def test_scores_near_threshold_make_it_uncertain(self, reader: TileReader) -> None:
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[0.9, PIP_THRESHOLD + 0.02], [0.9]])
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert t.uncertain and t.confidence < 0.2
        assert t.half_certainty[1] == 1.0 and t.half_certainty[0] < 0.2

    def test_value_above_the_set_is_uncertain(self, reader: TileReader) -> None:
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[0.9] * 13, [0.9] * 2])
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert t.values == (12, 2) and t.uncertain  # read within the set (double-12)

    def test_the_half_classifier_makes_up_missed_pips(self, reader: TileReader) -> None:
        assert reader.half_classifier is None  # the stand-in models list none
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[0.9] * 7, [0.9] * 2])
        assert reader.read(two_colour_tile_image()).tiles.reading(0).values == (7, 2)
        vars(reader)["half_classifier"] = StubClassifier([10, 2])
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert t.values == (10, 2) and not t.uncertain
        assert t.ranges == ((7, 10), (2, 2))  # what the pips said stays possible

    def test_a_half_the_classifier_names_surely_is_not_shown_to_the_pip_model(
            self, reader: TileReader) -> None:
        assert reader.classifier_sure == CLASSIFIER_SURE
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        pips = StubPips([[0.9] * 7])
        vars(reader)["pip_detector"] = pips
        vars(reader)["half_classifier"] = StubClassifier([10, 2], top=0.999)
        classifier = vars(reader)["half_classifier"]
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert t.values == (10, 2) and t.ranges == ((10, 10), (2, 2))
        assert pips.seen == [] and t.half_certainty == pytest.approx((0.999, 0.999))
        classifier.counts = [10, 2]
        classifier.top = 0.9  # not sure enough: the pips have their say on both halves
        pips.scores = [[0.9] * 7, [0.9] * 2]
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert len(pips.seen) == 2 and t.values == (10, 2) and t.ranges == ((7, 10), (2, 2))
        reader.classifier_sure = None  # every crop shown to the pip model
        classifier.top = 1.0
        assert reader.read(two_colour_tile_image()).tiles.reading(0).ranges == ((7, 10), (2, 2))
        assert len(pips.seen) == 2

    def test_a_blank_with_faint_pip_marks_could_be_more(self, reader: TileReader) -> None:
        """A half counted blank, however surely, whose pips the pip model scores far
        below the threshold but above ``FAINT_PIP`` could be as many counts as there are
        such marks: its range says so, and a hand photo holding it is marked."""
        assert reader.faint_pip == FAINT_PIP < PIP_THRESHOLD
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        pips = StubPips([[FAINT_PIP + 0.04, FAINT_PIP + 0.01]])
        vars(reader)["pip_detector"] = pips
        vars(reader)["half_classifier"] = StubClassifier([4, 0], top=0.999)
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        # the sure 4 is not shown to the pip model, the sure blank is
        assert len(pips.seen) == 1 and t.values == (4, 0)
        assert t.ranges == ((4, 4), (0, 2))
        assert tile_doubts(t, 12) == (Doubt.RANGE,)  # the hand is marked
        pips.scores = [[FAINT_PIP - 0.03]]  # the noise a blank's crop shows: still blank
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert t.values == (4, 0) and t.ranges == ((4, 4), (0, 0))
        assert tile_doubts(t, 12) == ()
        # a blank the pips count themselves (the classifier unsure) is doubted alike
        vars(reader)["half_classifier"] = StubClassifier([4, 0], top=0.9)
        pips.scores = [[0.9] * 4, [FAINT_PIP + 0.02]]
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert t.values == (4, 0) and t.ranges == ((4, 4), (0, 1))
        reader.faint_pip = None  # not looked for: the sure blank is not shown to the model
        vars(reader)["half_classifier"] = StubClassifier([4, 0], top=0.999)
        pips.seen = []
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert pips.seen == [] and t.ranges == ((4, 4), (0, 0))

    def test_the_quick_classifier_looks_first_and_the_96_px_one_at_what_it_is_unsure_of(
            self, reader: TileReader) -> None:
        class Seeing(StubClassifier):
            def __init__(self, counts: Sequence[int], top: float) -> None:
                super().__init__(counts, top=top)
                self.seen: list[int] = []

            def __call__(self, crops: Sequence[np.ndarray]) -> np.ndarray:
                self.seen.append(len(crops))
                rows = super().__call__(crops)
                if len(crops) == 2:  # the first half sure, the second not
                    rows[1] = 1.0 / len(self.names)
                return rows

        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        pips = StubPips([[0.9] * 5])
        vars(reader)["pip_detector"] = pips
        quick, fine = Seeing([10, 3], top=0.999), Seeing([4], top=0.999)
        vars(reader)["quick_classifier"] = quick
        vars(reader)["half_classifier"] = fine
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        # the quick look named the first half; the second was looked at again, and its
        # sure 4 stands: neither went to the pip model
        assert (quick.seen, fine.seen) == ([2], [1])
        assert t.values == (10, 4) and pips.seen == [] and not t.uncertain
        fine.top = 0.9  # the closer look not sure either: the pips have their say
        t = reader.read(two_colour_tile_image()).tiles.reading(0)
        assert fine.seen == [1, 1] and len(pips.seen) == 1 and t.values[0] == 10
        vars(reader)["quick_classifier"] = None  # without it, the 96 px classifier sees all
        pips.scores = [[0.9] * 5, [0.9] * 4]
        reader.read(two_colour_tile_image())
        assert fine.seen[-1] == 2

    def test_the_half_classifier_is_not_believed_far_from_the_pips(self, reader: TileReader
                                                                  ) -> None:
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[], [0.9] * 3])
        vars(reader)["half_classifier"] = StubClassifier([12, 2])  # a blank is no blurred 12
        assert reader.read(two_colour_tile_image()).tiles.reading(0).values == (0, 3)

    def test_counts_beyond_a_double_12_keep_the_pips_count(self, untrained_models: Path
                                                          ) -> None:
        reader = TileReader(untrained_models)  # the set not told
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[0.9] * 13, [0.9] * 11])
        vars(reader)["half_classifier"] = StubClassifier([15, 14])
        assert reader.read(two_colour_tile_image()).tiles.reading(0).values == (13, 11)
        vars(reader)["half_classifier"] = StubClassifier([15, 12])
        assert reader.read(two_colour_tile_image()).tiles.reading(0).values == (13, 12)

    def test_told_a_double_18_the_classifier_names_counts_up_to_it(
            self, untrained_models: Path) -> None:
        base = TileReader(untrained_models)
        vars(base)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(base)["pip_detector"] = StubPips([[0.9] * 13, [0.9] * 11])
        vars(base)["half_classifier"] = StubClassifier([15, 14])
        assert base.for_set(18).read(two_colour_tile_image()).tiles.reading(0).values == (15, 14)
        # a double-15 set: the classifier's 15 still counts, a 16 could not be
        vars(base)["half_classifier"] = StubClassifier([16, 14])
        assert base.for_set(15).read(two_colour_tile_image()).tiles.reading(0).values == (13, 14)
        # a double-12 set: as not told, and a count beyond the set is flagged
        tile = base.for_set(12).read(two_colour_tile_image()).tiles.reading(0)
        assert tile.values == (12, 11) and tile.uncertain  # never beyond the set
        assert not base.read(two_colour_tile_image()).tiles.reading(0).uncertain

    def test_a_reader_for_a_set_shares_the_models(self, untrained_models: Path) -> None:
        base = TileReader(untrained_models)
        assert (base.max_value, base.classified_up_to) == (18, 12)
        for top, classified in ((6, 12), (12, 12), (15, 15), (18, 18)):
            other = base.for_set(top)
            assert (other.max_value, other.classified_up_to) == (top, classified)
            assert other.detector is base.detector
            assert other.half_classifier is base.half_classifier
        assert (base.max_value, base.classified_up_to) == (18, 12)  # unchanged
        assert base.for_set(15).for_set(None).classified_up_to == 12
        for bad in (0, 19):
            with pytest.raises(ValueError, match="largest half"):
                base.for_set(bad)
            with pytest.raises(ValueError, match="largest half"):
                TileReader(untrained_models, max_value=bad)

    def test_a_failing_classifier_fails_the_reading(self, reader: TileReader) -> None:
        class Broken(StubClassifier):
            def __call__(self, crops: Sequence[np.ndarray]) -> np.ndarray:
                raise RuntimeError("classifier gone")

        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.95]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[0.9] * 7, [0.9] * 2])
        vars(reader)["half_classifier"] = Broken([0, 0])
        with pytest.raises(RuntimeError, match="classifier gone"):
            reader.read(two_colour_tile_image())

    def test_weak_detection_is_uncertain(self, reader: TileReader) -> None:
        vars(reader)["detector"] = StubDetector(Detections(
            TILE[None], np.array([0.3]), np.array([0])))
        vars(reader)["pip_detector"] = StubPips([[0.9], [0.9]])
        assert reader.read(two_colour_tile_image()).tiles.reading(0).uncertain

    def test_no_tiles(self, reader: TileReader) -> None:
        vars(reader)["detector"] = StubDetector(Detections.empty())
        frame = reader.read(two_colour_tile_image())
        assert len(frame.tiles) == 0 and len(frame.markers) == 0
        assert frame.to_json() == {"tiles": []}

    def test_close_up_is_looked_at_from_further_away(self, reader: TileReader) -> None:
        stub = StubDetector(Detections(TILE[None], np.array([0.9]), np.array([0])), far=True)
        vars(reader)["detector"] = stub
        vars(reader)["pip_detector"] = StubPips([[0.9], [0.9, 0.9]])
        frame = reader.read(two_colour_tile_image())
        assert stub.zooms == [1.0, reader.zoom_out]
        assert [t.values for t in frame.tiles.each()] == [(1, 2)]

    def test_frame_with_tiles_is_looked_at_once(self, reader: TileReader) -> None:
        stub = StubDetector(Detections(TILE[None], np.array([0.9]), np.array([0])))
        vars(reader)["detector"] = stub
        vars(reader)["pip_detector"] = StubPips([[0.9], [0.9, 0.9]])
        reader.read(two_colour_tile_image())
        assert stub.zooms == [1.0]

    def test_to_json(self) -> None:
        t = TileReading((3, 5), TILE, 0.87654, False)
        obj = t.to_json()
        assert obj == {"values": [3, 5], "corners": [[100.0, 140.0], [100.0, 100.0],
                                                     [180.0, 100.0], [180.0, 140.0]],
                       "confidence": 0.877, "uncertain": False}
        json.dumps(obj)


class TestWithUntrainedModels:
    """The real ONNX path end to end; the values mean nothing, the plumbing does."""

    def test_reads_a_frame_with_one_pip_batch(self, reader: TileReader,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[tuple[int, ...]] = []
        model = reader.pip_detector.model
        original = model.run
        def run(blob: np.ndarray) -> np.ndarray:
            calls.append(blob.shape)
            return original(blob)

        monkeypatch.setattr(model, "run", run)
        rng = np.random.default_rng(0)
        image = cv2.GaussianBlur((rng.random((720, 1280, 3)) * 255).astype(np.uint8), (0, 0), 3)
        frame = reader.read(image)
        assert frame.shape == (720, 1280)
        if frame.tiles:  # one batch: both halves of every box (small ones also snapped)
            assert len(calls) == 1
            assert calls[0][1:] == (3, 96, 96)
            assert calls[0][0] % 2 == 0 and calls[0][0] >= 2 * len(frame.tiles)
        for t in frame.tiles.each():
            assert t.corners.shape == (4, 2)
            assert all(isinstance(v, int) and v >= 0 for v in t.values)
            assert 0.0 <= t.confidence <= 1.0

    def test_fixed_batch_model_reads_the_same(self, untrained_models: Path,
                                              untrained_fixed_batch: Path) -> None:
        rng = np.random.default_rng(1)
        image = cv2.GaussianBlur((rng.random((480, 640, 3)) * 255).astype(np.uint8), (0, 0), 3)
        dynamic = TileReader(untrained_models).read(image)
        fixed = TileReader(untrained_fixed_batch).read(image)
        assert [t.values for t in dynamic.tiles.each()] == [t.values for t in fixed.tiles.each()]

    def test_large_photo_is_detected_small_and_cropped_large(self, reader: TileReader,
                                                              tmp_path: Path) -> None:
        big = np.full((3000, 4000, 3), 90, np.uint8)
        path = tmp_path / "big.jpg"
        Image.fromarray(big).save(path)
        seen: list[tuple[int, ...]] = []
        detector_model = reader.detector.model
        original = detector_model.run
        def run(blob: np.ndarray) -> np.ndarray:
            seen.append(blob.shape)
            return original(blob)

        vars(detector_model)["run"] = run
        frame = reader.read(path)
        assert frame.shape == (3000, 4000)
        assert seen == [(1, 3, 384, 384)]

    def test_reading_needs_no_torch(self, untrained_models: Path, tmp_path: Path) -> None:
        image = tmp_path / "frame.png"
        Image.fromarray(np.full((300, 400, 3), 128, np.uint8)).save(image)
        script = (
            "import sys\n"
            "from vision.reading.reader import TileReader\n"
            "from vision.stills.annotate import ReadingAnnotator\n"
            "import vision.stills.hand_photos, vision.images\n"
            f"frame = TileReader({str(untrained_models)!r}).read({str(image)!r})\n"
            "ReadingAnnotator().annotate(vision.images.load_image("
            f"{str(image)!r}), frame)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'ultralytics', 'torchvision'))\n"
            "print('HEAVY', bad)\n"
        )
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                             text=True, timeout=120, check=True)
        assert "HEAVY []" in out.stdout


# -- with the trained models in models/ ------------------------------------------

EVAL = ROOT / "datasets" / "eval"


def _eval_scenes(limit: int) -> list[tuple[Path, dict[str, Any]]]:
    labels = sorted(EVAL.glob("*.json"))
    assert labels, f"no eval scenes in {EVAL}"
    scenes = []
    for path in labels[:limit]:
        obj = json.loads(path.read_text())
        scenes.append((path.parent / obj["image"], obj))
    return scenes


@needs_trained_models
def test_trained_models_are_committed() -> None:
    assert (MODELS / "models.json").is_file(), "models/models.json missing"
    TileReader(MODELS)


@needs_trained_models
def test_trained_models_read_eval_scenes() -> None:
    reader = TileReader(MODELS)
    found = exact = total = 0
    for image, label in _eval_scenes(12):
        frame = reader.read(image)
        truth = np.array([t["corners"] for t in label["tiles"]], np.float32).reshape(-1, 4, 2)
        read = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
        iou = polygon_iou(truth, read)
        for i, t in enumerate(label["tiles"]):
            total += 1
            if iou.shape[1] and iou[i].max() >= 0.5:
                found += 1
                got = frame.tiles.reading(int(iou[i].argmax())).values
                exact += sorted(got) == sorted(t["values"])
    assert total > 0
    # A regression floor for the committed models, a little under what they
    # measured when committed (found 86/94, exact 67/94); the product
    # targets (>= 99.5 %) are tracked by benchmarks/vision.py, not here.
    print(f"found {found}/{total}, exact {exact}/{total}")
    assert found / total >= 0.85, f"found {found} of {total} tiles"
    assert exact / total >= 0.6, f"read {exact} of {total} tiles exactly"


@needs_trained_models
def test_trained_models_honour_exif_rotation(tmp_path: Path) -> None:
    image, _ = _eval_scenes(1)[0]
    reader = TileReader(MODELS)
    upright = reader.read(image)
    pil = Image.open(image).transpose(Image.Transpose.ROTATE_90)  # stored turned a quarter
    exif = pil.getexif()
    exif[0x0112] = 8  # ... and tagged so that a viewer turns it back
    turned = tmp_path / "turned.jpg"
    pil.save(turned, exif=exif, quality=95)
    again = reader.read(turned)
    assert sorted(sorted(t.values) for t in again.tiles.each()) == sorted(
        sorted(t.values) for t in upright.tiles.each())


def _with_halves(untrained_models: Path, folder: Path, names: list[str],
                 file: str = "halves.onnx", quick: bool = False) -> Path:
    """A copy of the stand-in models' index that also lists a ``halves`` classifier (and
    with ``quick`` the same model as ``halves_quick``, run at 64 px)."""
    folder.mkdir()
    index = json.loads((untrained_models / "models.json").read_text())
    for entry in index.values():
        entry["file"] = str(untrained_models / entry["file"])
    index["halves"] = {"file": str(untrained_models / file), "imgsz": 96, "names": names,
                       "task": "classify"}
    if quick:
        index["halves_quick"] = {**index["halves"], "imgsz": 64}
    (folder / "models.json").write_text(json.dumps(index))
    return folder


def test_a_listed_half_classifier_is_loaded_and_can_be_left_out(untrained_models: Path,
                                                                tmp_path: Path) -> None:
    folder = _with_halves(untrained_models, tmp_path / "m", [f"{v:02d}" for v in range(19)])
    assert TileReader(folder).half_classifier is not None
    assert TileReader(folder, classify_halves=False).half_classifier is None
    reader = TileReader(folder, check_tiles=False)  # boxes of noise, read all the same
    assert reader.half_classifier is not None
    real, seen = reader.half_classifier, []

    class Counting:  # the real ONNX classifier, counting the crops it is given
        names = real.names

        def __call__(self, crops: Sequence[np.ndarray]) -> np.ndarray:
            seen.append(len(crops))
            return real(crops)

    vars(reader)["half_classifier"] = Counting()
    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur((rng.random((720, 1280, 3)) * 255).astype(np.uint8), (0, 0), 3)
    frame = reader.read(image)  # runs end to end, the two crop models side by side
    assert frame.tiles and seen and seen[0] % 2 == 0 and seen[0] >= 2 * len(frame.tiles)
    for t in frame.tiles.each():
        assert all(v >= 0 for v in t.values) and 0.0 <= t.confidence <= 1.0


def test_a_listed_quick_classifier_is_loaded_and_can_be_left_out(untrained_models: Path,
                                                                 tmp_path: Path) -> None:
    folder = _with_halves(untrained_models, tmp_path / "m", [f"{v:02d}" for v in range(19)],
                          quick=True)
    reader = TileReader(folder)
    assert reader.quick_classifier is not None and reader.quick_classifier.model.size == (64, 64)
    assert TileReader(folder, quick_look=False).quick_classifier is None
    assert TileReader(folder, classify_halves=False).quick_classifier is None
    plain = _with_halves(untrained_models, tmp_path / "plain", [f"{v:02d}" for v in range(19)])
    assert TileReader(plain).quick_classifier is None  # an index without one: as before
    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur((rng.random((720, 1280, 3)) * 255).astype(np.uint8), (0, 0), 3)
    frame = reader.read(image)  # runs end to end with the untrained stand-in at 64 px
    for t in frame.tiles.each():
        assert all(v >= 0 for v in t.values) and 0.0 <= t.confidence <= 1.0


@pytest.mark.parametrize("names,file", [
    (["zero", "one"] + [f"{v:02d}" for v in range(2, 19)], "halves.onnx"),
    ([f"{v:02d}" for v in range(19)], "no-such-halves.onnx"),
])
def test_a_bad_half_classifier_is_a_clear_error(untrained_models: Path, tmp_path: Path,
                                                names: list[str], file: str) -> None:
    from engine.errors import BadInputError

    folder = _with_halves(untrained_models, tmp_path / "m", names, file)
    with pytest.raises(BadInputError, match="halves|no such model file"):
        TileReader(folder)


def test_degenerate_boxes_are_not_read(untrained_models: Path) -> None:
    reader = TileReader(untrained_models)
    flat = np.array([[10, 10], [10, 10.5], [90, 10.5], [90, 10]], np.float32)
    vars(reader)["detector"] = StubDetector(Detections(
            np.stack([flat, TILE]), np.array([0.9, 0.9]), np.array([0, 0])))
    vars(reader)["pip_detector"] = StubPips([[0.9], [0.9]])
    frame = reader.read(two_colour_tile_image())
    assert len(frame.tiles) == 1
    assert np.allclose(frame.tiles.reading(0).corners.mean(0), TILE.mean(0))
