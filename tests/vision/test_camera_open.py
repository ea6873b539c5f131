"""A camera is opened asking for the frame size the camera plan assumes."""

from __future__ import annotations

from typing import Any

import cv2
import pytest

from vision.tracking import capture, frame_source


class _Capture:
    def __init__(self, target: Any) -> None:
        self.target = target
        self.asked: dict[int, float] = {}

    def isOpened(self) -> bool:  # noqa: N802 - cv2.VideoCapture's name
        return True

    def set(self, prop: int, value: float) -> bool:
        self.asked[prop] = value
        return True


def test_a_camera_is_asked_for_full_frames_and_a_file_is_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture.cv2, "VideoCapture", _Capture)
    camera = frame_source.frame_source(0)
    assert isinstance(camera, frame_source.CameraFrames)
    assert camera.open()
    assert isinstance(camera.capture, _Capture)
    assert camera.capture.asked == {cv2.CAP_PROP_FRAME_WIDTH: 1920,
                                    cv2.CAP_PROP_FRAME_HEIGHT: 1080}
    assert capture.open_capture("clip.mp4").asked == {}
