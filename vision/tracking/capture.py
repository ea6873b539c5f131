"""Opening a camera or a video file for a frame source, a camera at full frame size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2

#: The frame size a camera is asked for (``camera_plan``'s webcam): a driver left alone
#: gives its default, often 640x480, too few pixels per pip to read a table.
CAMERA_FRAME = (1920, 1080)


def open_capture(target: int | str | Path) -> Any:
    """``cv2.VideoCapture`` of a camera index or a file; a camera is asked for
    ``CAMERA_FRAME`` (it gives the nearest size it has)."""
    capture = cv2.VideoCapture(target if isinstance(target, int) else str(target))
    if isinstance(target, int) and capture.isOpened():
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, CAMERA_FRAME[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, CAMERA_FRAME[1])
    return capture
