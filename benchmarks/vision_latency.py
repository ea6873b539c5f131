"""How long reading takes: a 1280x720 table frame, a 12 MP photo, a 12 MP hand at a slant.

Medians over repeated reads of images in memory (the frame) or on disk (the
photos, loading included); the frame's tile detector is also timed alone, at
the side it looked at, since it is most of a frame's time. The 12 MP photo is a
31-tile table read as ``mtrain read`` reads it, stage by stage
(``benchmarks.big_photo``).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.big_photo import big_photo, photo_figures
from vision.models.precision import cpu_flags, int8_is_exact
from vision.reading.reader import TileReader
from vision.stills.hand_photos import read_hand
from vision.stills.slanted_photo import plane_normal, tilt_degrees

#: Seeds of the rendered table frames and of the hand photographed at a slant.
FRAME_SEED = 777_002
HAND_SEED = 777_003


def latency(reader: TileReader, runs: int) -> dict[str, Any]:
    from datasets.render import render_table, scene_rng

    scene = render_table(scene_rng(FRAME_SEED, 0), size=(1280, 720))
    frame_image = scene.image
    reader.read(frame_image)  # warm up
    times, detect_times = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        frame = reader.read(frame_image)
        times.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()  # what limits the frame: the detector's share of it
        reader.detect(frame_image)
        detect_times.append((time.perf_counter() - t0) * 1000)
    tiles_in_frame, detect_side = len(frame.tiles), reader.look_side
    photo = big_photo(reader, max(3, runs // 4))
    with tempfile.TemporaryDirectory() as tmp:
        hand = tilted_hand_photo()
        path = Path(tmp) / "hand.jpg"
        cv2.imwrite(str(path), cv2.resize(hand, (4000, 3000), interpolation=cv2.INTER_CUBIC),
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        read_hand(reader, path)
        hand_times = []
        for _ in range(max(3, runs // 4)):
            t0 = time.perf_counter()
            hand_reading = read_hand(reader, path)
            hand_times.append((time.perf_counter() - t0) * 1000)
    flags = cpu_flags()
    return {"frame_ms": round(statistics.median(times), 1), "frame_tiles": tiles_in_frame,
            "frame_detect_ms": round(statistics.median(detect_times), 1),
            "frame_detect_side": detect_side,
            "cpu_sums_8_bits_exactly": int8_is_exact(flags),
            "hand_photo_ms": round(statistics.median(hand_times), 1),
            "hand_photo_tiles": len(hand_reading.tiles),
            **photo_figures(photo), "threads": os.cpu_count()}


def tilted_hand_photo() -> np.ndarray:
    """The first rendered 4:3 hands scene of ``HAND_SEED`` whose tiles show the table
    tilted 30 degrees or more (read from above by ``read_hand``)."""
    from datasets.render import render_hands, scene_rng

    for index in range(200):
        scene = render_hands(scene_rng(HAND_SEED, index), size=(1280, 960))
        corners = np.array([t.corners for t in scene.tiles if t.visible >= 0.9])
        normal = plane_normal(corners, scene.image.shape[:2]) if len(corners) >= 5 else None
        if normal is not None and tilt_degrees(normal) >= 30:
            return scene.image
    raise RuntimeError("no tilted hand among 200 rendered scenes")
