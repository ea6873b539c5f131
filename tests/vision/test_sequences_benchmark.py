"""The sequences benchmark's reading at the true boxes: what the reader itself gets wrong."""

from __future__ import annotations

import numpy as np

from benchmarks.sequences import labelled_reads_part
from datasets.table_sequence import Picture
from vision.readings import TileReading, TileReadings

BOX = np.array([[0, 40], [0, 0], [80, 0], [80, 40]], np.float32)


class _Reader:
    """Reads the boxes it is given as ``answers``, in order, whatever the image."""

    def __init__(self, answers: list[tuple[tuple[int, int], bool]]) -> None:
        self.answers = answers

    def read_at(self, image: np.ndarray, corners: np.ndarray) -> TileReadings:
        assert len(corners) == len(self.answers)
        return TileReadings.of([TileReading(values, box, 0.9, doubted)
                                for (values, doubted), box in zip(self.answers, corners,
                                                                  strict=True)])


def test_the_last_tables_misreads_are_told_apart_by_kind() -> None:
    tiles = [((6, 3), BOX), ((10, 6), BOX + 100), ((0, 5), BOX + 200), ((9, 8), BOX + 300)]
    last = Picture(np.zeros((8, 8, 3), np.uint8), tiles, np.zeros((0, 4, 2)))
    first = Picture(np.zeros((8, 8, 3), np.uint8), [], np.zeros((0, 4, 2)))
    reader = _Reader([((3, 6), False),   # right, the other way round
                      ((0, 10), False),  # the 6 lost, read the other way round
                      ((2, 5), True),    # a blank read with pips, in doubt
                      ((9, 7), False)])  # a miscount
    out = labelled_reads_part([("checks", True, 1, [first, last])], reader)
    assert (out["tiles"], out["right"], out["wrong_in_doubt"]) == (4, 1, 1)
    assert (out["pips_read_blank"], out["blank_read_with_pips"], out["miscounted"]) == (1, 1, 1)
    assert out["right_share"] == 0.25
    assert out["per_round"] == [{"surface": "checks", "mat": True, "tiles": 4, "right": 1,
                                 "wrong_in_doubt": 1, "pips_read_blank": 1,
                                 "blank_read_with_pips": 1, "miscounted": 1}]
