"""Where a tracker's frames come from: a camera index, a video file or a folder of
images (:class:`FrameSource`). Only a camera is retried; a file or folder ends."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.errors import BadInputError
from vision.tracking.capture import open_capture

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")

Capture = Any  # cv2.VideoCapture or anything with isOpened/read/release/get


class FrameSource:
    """Frames from a camera index, a video file or a folder of images.

    ``opener`` makes the capture (``vision.tracking.capture.open_capture`` by default; tests pass
    fakes). Only a camera is retried; a file or folder simply ends.
    """

    def __init__(self, source: str | int | Path,
                 opener: Callable[[Any], Capture] | None = None) -> None:
        self.name = str(source)
        self.opener = opener or open_capture
        self.capture: Capture | None = None
        self.files: list[Path] = []
        self.position = 0
        #: The latest frame delivered (a still of the table, for reading hands).
        self.latest: np.ndarray | None = None
        text = str(source)
        self.target: int | Path
        if isinstance(source, int) or text.isdigit():
            self.kind, self.target = "camera", int(text)
        else:
            path = Path(text)
            if path.is_dir():
                self.kind, self.target = "folder", path
                self.files = sorted(p for p in path.iterdir()
                                    if p.suffix.lower() in IMAGE_SUFFIXES)
                if not self.files:
                    raise BadInputError(self.name, "folder holds no images")
            elif path.is_file():
                self.kind, self.target = "video", path
            else:
                raise BadInputError(self.name, "no such file, folder or camera index")

    @property
    def live(self) -> bool:
        return self.kind == "camera"

    def open(self) -> bool:
        if self.kind == "folder":
            return True
        self.close()
        target = self.target if self.kind == "camera" else str(self.target)
        try:
            capture = self.opener(target)
        except (cv2.error, OSError):
            return False
        if capture is None or not capture.isOpened():
            return False
        self.capture = capture
        return True

    def fps(self) -> float:
        if self.capture is not None:
            try:
                value = float(self.capture.get(cv2.CAP_PROP_FPS))
            except (cv2.error, TypeError, ValueError):
                value = 0.0
            if 1.0 <= value <= 240.0:
                return value
        return 10.0

    def read(self) -> np.ndarray | None:
        """The next frame, or ``None`` (end of a file or folder, or a camera that failed);
        the frame is kept as :attr:`latest`."""
        frame = self._next()
        if frame is not None:
            self.latest = frame
        return frame

    def _next(self) -> np.ndarray | None:
        if self.kind == "folder":
            from vision.images import load_image

            while self.position < len(self.files):
                path = self.files[self.position]
                self.position += 1
                try:
                    return load_image(path)
                except BadInputError:
                    continue
            return None
        if self.capture is None:
            return None
        try:
            ok, frame = self.capture.read()
        except cv2.error:
            return None
        return frame if ok and frame is not None and frame.size else None

    def close(self) -> None:
        if self.capture is not None:
            with contextlib.suppress(cv2.error):
                self.capture.release()
            self.capture = None
