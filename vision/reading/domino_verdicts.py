"""Readings put to the domino check (``vision.models.domino_check``) at the boxes they
were read at: one no domino beyond doubt is dropped, one it doubts is read uncertain,
with the reason ``DOUBT_REASON``, so that it is shown, never counted silently."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.models.domino_check import DOUBT_REASON, DominoCheck
from vision.readings import TileReading


def judged(check: DominoCheck, image: np.ndarray,
           readings: Sequence[TileReading]) -> list[TileReading]:
    """``readings`` put to ``check`` at the boxes they were read at: one that is no
    domino beyond doubt (``certain``) is dropped, one it doubts marked uncertain
    (``DOUBT_REASON``); the others as they were, in order."""
    if not readings:
        return []
    verdicts = check(image, np.array([r.corners for r in readings], np.float32))
    return [replace(r, uncertain=True, doubt=DOUBT_REASON) if doubted else r
            for r, certain, doubted in zip(readings, verdicts.certain, verdicts.doubted,
                                           strict=True) if not certain]
