"""Training's tests share the vision tests' helpers (``reader_fixtures``: an untrained
model folder, the softmax axes of an ONNX file)."""

from __future__ import annotations

import sys
from pathlib import Path

VISION_TESTS = str(Path(__file__).resolve().parents[1] / "vision")
if VISION_TESTS not in sys.path:
    sys.path.insert(0, VISION_TESTS)
