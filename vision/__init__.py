"""Seeing the table: detections, image loading, tile reading, table reconstruction.

The public names are loaded on first use (PEP 562), so that ``import vision``
and the command line's registration stay cheap: OpenCV and ONNX Runtime load
only when a name that needs them is touched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> module that defines it.
_EXPORTS = {
    "Detections": "vision.detections",
    "polygon_iou": "vision.detections",
    "join_fragments": "vision.fragments",
    "drop_hollow": "vision.hollow_markers",
    "load_image": "vision.images",
    "MAX_DECODED_PIXELS": "vision.images",
    "exif_orientation": "vision.images",
    "rectify_tile": "vision.crops",
    "tile_halves": "vision.crops",
    "half_crops": "vision.crops",
    "half_polygons": "vision.crops",
    "order_corners": "vision.crops",
    "chosen_precision": "vision.precision",
    "TileReader": "vision.reader",
    "TileReading": "vision.reader",
    "FrameReading": "vision.reader",
    "PolygonAnnotator": "vision.annotate",
    "ReadingAnnotator": "vision.annotate",
    "HandReading": "vision.scoring",
    "score_photos": "vision.scoring",
    "read_hand": "vision.scoring",
    "read_from_above": "vision.straight_above",
    "split_face_down": "vision.face_down",
    "lies_face_down": "vision.face_down",
    "looks_like_tile": "vision.tile_check",
    "tile_mask": "vision.tile_check",
    "CheckedTileDetector": "vision.tile_check",
    "DominoCheck": "vision.domino_check",
    "Verdicts": "vision.domino_check",
    "verifier_crop": "vision.domino_check",
    "CoverCheck": "vision.cover_check",
    "flag_covered": "vision.cover_check",
    "reconstruct": "vision.table",
    "TableReading": "vision.table",
    "Uncertainty": "vision.table",
    "look_closer": "vision.closer_look",
    "MatView": "vision.mat",
    "detect_mat": "vision.mat",
    "rectify": "vision.mat",
    "write_mat": "vision.mat",
    "CameraPlan": "vision.camera_plan",
    "plan_camera": "vision.camera_plan",
    "open_capture": "vision.capture",
    "Tracker": "vision.tracker",
    "TrackerEvent": "vision.events",
    "SourceEvent": "vision.events",
    "TableSettled": "vision.events",
    "AlertRaised": "vision.events",
    "AlertDetails": "vision.events",
    "CameraStatus": "vision.events",
    "CameraReason": "vision.events",
    "Uncertain": "vision.events",
    "RoundOver": "vision.events",
    "Referee": "vision.referee",
    "Ruling": "vision.referee",
    "assign": "vision.assignment",
    "half_colour": "vision.pip_colour",
    "SetProfile": "vision.set_profile",
    "fit_profile": "vision.set_profile",
    "load_profile": "vision.set_profile",
    "save_profile": "vision.set_profile",
    "default_profile_path": "vision.set_profile",
    "Calibration": "vision.calibrate",
    "calibrate": "vision.calibrate",
    "FrameSource": "vision.frame_source",
    "TileSource": "vision.reader_interface",
    "FrameReader": "vision.reader_interface",
    "TileMemory": "vision.tile_memory",
    "ReadCounts": "vision.tile_memory",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from vision.annotate import PolygonAnnotator, ReadingAnnotator  # noqa: F401
    from vision.assignment import assign  # noqa: F401
    from vision.calibrate import Calibration, calibrate  # noqa: F401
    from vision.camera_plan import CameraPlan, plan_camera  # noqa: F401
    from vision.capture import open_capture  # noqa: F401
    from vision.closer_look import look_closer  # noqa: F401
    from vision.cover_check import CoverCheck, flag_covered  # noqa: F401
    from vision.crops import (  # noqa: F401
        half_crops,
        half_polygons,
        order_corners,
        rectify_tile,
        tile_halves,
    )
    from vision.detections import Detections, polygon_iou  # noqa: F401
    from vision.domino_check import DominoCheck, Verdicts, verifier_crop  # noqa: F401
    from vision.events import (  # noqa: F401
        AlertDetails,
        AlertRaised,
        CameraReason,
        CameraStatus,
        RoundOver,
        SourceEvent,
        TableSettled,
        TrackerEvent,
        Uncertain,
    )
    from vision.face_down import lies_face_down, split_face_down  # noqa: F401
    from vision.fragments import join_fragments  # noqa: F401
    from vision.frame_source import FrameSource  # noqa: F401
    from vision.hollow_markers import drop_hollow  # noqa: F401
    from vision.images import MAX_DECODED_PIXELS, exif_orientation, load_image  # noqa: F401
    from vision.mat import MatView, detect_mat, rectify, write_mat  # noqa: F401
    from vision.pip_colour import half_colour  # noqa: F401
    from vision.precision import chosen_precision  # noqa: F401
    from vision.reader import FrameReading, TileReader, TileReading  # noqa: F401
    from vision.reader_interface import FrameReader, TileSource  # noqa: F401
    from vision.referee import Referee, Ruling  # noqa: F401
    from vision.scoring import HandReading, read_hand, score_photos  # noqa: F401
    from vision.set_profile import (  # noqa: F401
        SetProfile,
        default_profile_path,
        fit_profile,
        load_profile,
        save_profile,
    )
    from vision.straight_above import read_from_above  # noqa: F401
    from vision.table import TableReading, Uncertainty, reconstruct  # noqa: F401
    from vision.tile_check import CheckedTileDetector, looks_like_tile, tile_mask  # noqa: F401
    from vision.tile_memory import ReadCounts, TileMemory  # noqa: F401
    from vision.tracker import Tracker  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
