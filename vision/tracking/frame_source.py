"""Where a tracker's frames come from, one class per kind of source: a camera
(:class:`CameraFrames`), a video file (:class:`VideoFrames`), a folder of images
(:class:`FolderFrames`); :func:`frame_source` picks the kind from ``--source``'s text.
Only a camera is retried; a file or folder ends."""

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

#: Frames per second assumed when a capture does not say (and for a folder).
DEFAULT_FPS = 10.0


class FrameSource:
    """Frames in, one at a time: what the tracker reads. ``kind`` names the source in
    messages (``camera``, ``video``, ``folder``); ``live`` sources are retried."""

    kind = ""
    live = False

    def __init__(self, name: str) -> None:
        self.name = name
        #: The latest frame delivered (a still of the table, for reading hands).
        self.latest: np.ndarray | None = None

    def open(self) -> bool:
        raise NotImplementedError

    def fps(self) -> float:
        return DEFAULT_FPS

    def read(self) -> np.ndarray | None:
        """The next frame, or ``None`` (end of a file or folder, or a camera that failed);
        the frame is kept as :attr:`latest`."""
        frame = self._next()
        if frame is not None:
            self.latest = frame
        return frame

    def _next(self) -> np.ndarray | None:
        raise NotImplementedError

    def close(self) -> None:
        """Let go of the source (a folder holds nothing)."""


class _CaptureFrames(FrameSource):
    """Frames from an OpenCV capture. ``opener`` makes it
    (``vision.tracking.capture.open_capture`` by default; tests pass fakes)."""

    def __init__(self, name: str, target: int | Path,
                 opener: Callable[[Any], Capture] | None = None) -> None:
        super().__init__(name)
        self.target = target
        self.opener = opener or open_capture
        self.capture: Capture | None = None

    def open(self) -> bool:
        self.close()
        target = self.target if isinstance(self.target, int) else str(self.target)
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
        return DEFAULT_FPS

    def _next(self) -> np.ndarray | None:
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


class CameraFrames(_CaptureFrames):
    """A camera by index, asked for full frames; retried when it fails."""

    kind = "camera"
    live = True

    def __init__(self, index: int, opener: Callable[[Any], Capture] | None = None,
                 name: str | None = None) -> None:
        super().__init__(str(index) if name is None else name, index, opener)


class VideoFrames(_CaptureFrames):
    """A video file, read once through."""

    kind = "video"

    def __init__(self, path: Path, opener: Callable[[Any], Capture] | None = None,
                 name: str | None = None) -> None:
        super().__init__(str(path) if name is None else name, path, opener)


class FolderFrames(FrameSource):
    """The images of a folder in name order; one that cannot be read is skipped."""

    kind = "folder"

    def __init__(self, folder: Path, name: str | None = None) -> None:
        super().__init__(str(folder) if name is None else name)
        self.target = folder
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise BadInputError(self.name, "folder holds no images")
        self.position = 0

    def open(self) -> bool:
        return True

    def _next(self) -> np.ndarray | None:
        from vision.images import load_image

        while self.position < len(self.files):
            path = self.files[self.position]
            self.position += 1
            try:
                return load_image(path)
            except BadInputError:
                continue
        return None


def frame_source(source: str | int | Path,
                 opener: Callable[[Any], Capture] | None = None) -> FrameSource:
    """The frames of ``source``: a camera index, a video file or a folder of images."""
    text = str(source)
    if isinstance(source, int) or text.isdigit():
        return CameraFrames(int(text), opener, text)
    path = Path(text)
    if path.is_dir():
        return FolderFrames(path, text)
    if path.is_file():
        return VideoFrames(path, opener, text)
    raise BadInputError(text, "no such file, folder or camera index")
