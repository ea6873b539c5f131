"""The hands benchmark's tally: exact, wrong and marked, wrong and not marked."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from benchmarks.vision_real import hands_marked, real_hand_truths
from engine import RuleSet
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings

BOX = np.array([[0, 40], [0, 0], [80, 0], [80, 40]], np.float32)


class _Reader:
    """Reads photo ``k`` (every pixel ``k``) as ``answers[k]``."""

    def __init__(self, answers: list[list[TileReading]]) -> None:
        self.answers = answers

    def reset(self) -> None:
        pass

    def read(self, image: np.ndarray) -> FrameReading:
        return FrameReading(TileReadings.of(list(self.answers[int(image[0, 0, 0])])),
                            Detections.empty(),
                            image.shape[:2])


def test_wrong_totals_are_told_apart_by_their_mark(tmp_path: Path) -> None:
    sure = TileReading((3, 4), BOX, 0.95, False, 0.95)
    unsure = TileReading((3, 5), BOX + [100, 0], 0.3, True, 0.9)
    answers = [[sure], [sure, unsure], [sure]]
    photos = []
    for k, want in enumerate((7, 14, 9)):  # right; wrong but marked; wrong and not marked
        path = tmp_path / f"{k}.png"
        cv2.imwrite(str(path), np.full((60, 200, 3), k, np.uint8))
        photos.append((path.name, path, want))
    out = hands_marked(_Reader(answers), photos, RuleSet())  # type: ignore[arg-type]
    assert (out["hands"], out["exact"], out["wrong_and_marked"], out["wrong_and_unmarked"]) == (
        3, 1, 1, 1)
    assert out["listed"] == ["1.png: 15 for 14, marked (unsure 1; 0 left out)",
                             "2.png: 7 for 9, NOT marked"]


def test_real_truths_come_from_names_and_labels(tmp_path: Path) -> None:
    (tmp_path / "tiles").mkdir()
    (tmp_path / "tiles" / "12-0.jpg").write_bytes(b"")
    (tmp_path / "oblique").mkdir()
    (tmp_path / "oblique" / "a.jpg").write_bytes(b"")
    (tmp_path / "oblique" / "a.txt").write_text("5 0.1 0.1 0.1 0.1\n7 0.3 0.3 0.1 0.1\n")
    truths = {name: points for name, _, points in real_hand_truths(tmp_path, RuleSet())}
    assert truths == {"tiles/12-0.jpg": 12, "oblique/a.jpg": 12}


def test_photoreal_hands_are_composed_with_their_true_points() -> None:
    from benchmarks.hands import SPRITES, photoreal_hands
    from datasets.composite import SpriteLibrary, compose_frame
    from datasets.composite.compose import Options
    from datasets.composite.hand_plan import HAND_FRAME
    from engine import Tile, hand_points

    made = photoreal_hands(SPRITES[:1], 2)
    assert [name for name, _, _ in made] == ["photoreal_4401_000", "photoreal_4401_001"]
    library = SpriteLibrary(SPRITES[:1], per_folder=64)
    for i, (_, image, points) in enumerate(made):
        again, labels = compose_frame(library, 4401, i, Options(hands=True, size=HAND_FRAME))
        assert np.array_equal(image, again) and image.shape == (960, 1280, 3)
        assert points == hand_points([Tile(*t["values"]) for t in labels["tiles"]], RuleSet())
