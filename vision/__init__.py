"""Seeing the table, one folder per stage: ``models`` (an image -> ``Detections``),
``reading`` (``Detections`` -> ``FrameReading``), ``table`` (-> ``TableReading``),
``tracking`` (frames -> ``TrackerEvent``), ``stills`` (a photo -> a table or a hand),
``mat``, ``calibration``, ``cli``; ``readings`` holds the read types they share.

The public names are loaded on first use (PEP 562), so that ``import vision``
and the command line's registration stay cheap: OpenCV and ONNX Runtime load
only when a name that needs them is touched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> module that defines it.
_EXPORTS = {
    "Detections": "vision.models.detections",
    "polygon_iou": "vision.models.detections",
    "join_fragments": "vision.reading.boxes.fragments",
    "drop_hollow": "vision.reading.boxes.hollow_markers",
    "load_image": "vision.images",
    "MAX_DECODED_PIXELS": "vision.images",
    "exif_orientation": "vision.images",
    "rectify_tile": "vision.models.crops",
    "tile_halves": "vision.models.crops",
    "half_crops": "vision.models.crops",
    "half_polygons": "vision.models.crops",
    "order_corners": "vision.models.crops",
    "chosen_precision": "vision.models.precision",
    "TileReader": "vision.reading.reader",
    "TileReading": "vision.readings",
    "FrameReading": "vision.readings",
    "TileReadings": "vision.readings",
    "PolygonAnnotator": "vision.stills.annotate",
    "ReadingAnnotator": "vision.stills.annotate",
    "HandReading": "vision.stills.hand_photos",
    "Doubt": "vision.stills.hand_photos",
    "LEFT_OUT": "vision.stills.hand_photos",
    "hand_from_reading": "vision.stills.hand_photos",
    "score_photos": "vision.stills.hand_photos",
    "read_hand": "vision.stills.hand_photos",
    "read_from_above": "vision.stills.slanted_photo",
    "split_face_down": "vision.reading.face_down",
    "lies_face_down": "vision.reading.face_down",
    "looks_like_tile": "vision.models.tile_check",
    "tile_mask": "vision.models.tile_check",
    "CheckedTileDetector": "vision.models.tile_check",
    "DominoCheck": "vision.models.domino_check",
    "Verdicts": "vision.models.domino_check",
    "verifier_crop": "vision.models.domino_check",
    "light_gains": "vision.models.light_colour",
    "CoverCheck": "vision.reading.cover_check",
    "flag_covered": "vision.reading.cover_check",
    "reconstruct": "vision.table",
    "TableReading": "vision.table",
    "Uncertainty": "vision.table",
    "look_closer": "vision.stills.trouble_spots",
    "MatView": "vision.mat.hub_mat",
    "detect_mat": "vision.mat.hub_mat",
    "rectify": "vision.mat.hub_mat",
    "write_mat": "vision.mat.hub_mat",
    "CameraPlan": "vision.tracking.camera_plan",
    "plan_camera": "vision.tracking.camera_plan",
    "open_capture": "vision.tracking.capture",
    "Tracker": "vision.tracking.tracker",
    "TrackerEvent": "vision.events",
    "SourceEvent": "vision.events",
    "TableSettled": "vision.events",
    "AlertRaised": "vision.events",
    "CameraStatus": "vision.events",
    "CameraReason": "vision.events",
    "Uncertain": "vision.events",
    "RoundOver": "vision.events",
    "assign": "vision.calibration.assignment",
    "half_colour": "vision.reading.pip_colour",
    "SetProfile": "vision.reading.set_profile",
    "fit_profile": "vision.reading.set_profile",
    "load_profile": "vision.reading.set_profile",
    "save_profile": "vision.reading.set_profile",
    "default_profile_path": "vision.reading.set_profile",
    "Calibration": "vision.calibration.calibrate",
    "calibrate": "vision.calibration.calibrate",
    "FrameSource": "vision.tracking.frame_source",
    "frame_source": "vision.tracking.frame_source",
    "TileSource": "vision.reading.reader_interface",
    "FrameReader": "vision.reading.reader_interface",
    "TileMemory": "vision.tracking.tile_memory",
    "ReadCounts": "vision.tracking.tile_memory",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from vision.calibration.assignment import assign  # noqa: F401
    from vision.calibration.calibrate import Calibration, calibrate  # noqa: F401
    from vision.events import (  # noqa: F401
        AlertRaised,
        CameraReason,
        CameraStatus,
        RoundOver,
        SourceEvent,
        TableSettled,
        TrackerEvent,
        Uncertain,
    )
    from vision.images import MAX_DECODED_PIXELS, exif_orientation, load_image  # noqa: F401
    from vision.mat.hub_mat import MatView, detect_mat, rectify, write_mat  # noqa: F401
    from vision.models.crops import (  # noqa: F401
        half_crops,
        half_polygons,
        order_corners,
        rectify_tile,
        tile_halves,
    )
    from vision.models.detections import Detections, polygon_iou  # noqa: F401
    from vision.models.domino_check import DominoCheck, Verdicts, verifier_crop  # noqa: F401
    from vision.models.light_colour import light_gains  # noqa: F401
    from vision.models.precision import chosen_precision  # noqa: F401
    from vision.models.tile_check import CheckedTileDetector, looks_like_tile, tile_mask  # noqa: F401
    from vision.reading.boxes.fragments import join_fragments  # noqa: F401
    from vision.reading.boxes.hollow_markers import drop_hollow  # noqa: F401
    from vision.reading.cover_check import CoverCheck, flag_covered  # noqa: F401
    from vision.reading.face_down import lies_face_down, split_face_down  # noqa: F401
    from vision.reading.pip_colour import half_colour  # noqa: F401
    from vision.reading.reader import TileReader  # noqa: F401
    from vision.reading.reader_interface import FrameReader, TileSource  # noqa: F401
    from vision.reading.set_profile import (  # noqa: F401
        SetProfile,
        default_profile_path,
        fit_profile,
        load_profile,
        save_profile,
    )
    from vision.readings import FrameReading, TileReading, TileReadings  # noqa: F401
    from vision.stills.annotate import PolygonAnnotator, ReadingAnnotator  # noqa: F401
    from vision.stills.hand_photos import (  # noqa: F401
        LEFT_OUT,
        Doubt,
        HandReading,
        hand_from_reading,
        read_hand,
        score_photos,
    )
    from vision.stills.slanted_photo import read_from_above  # noqa: F401
    from vision.stills.trouble_spots import look_closer  # noqa: F401
    from vision.table import TableReading, Uncertainty, reconstruct  # noqa: F401
    from vision.tracking.camera_plan import CameraPlan, plan_camera  # noqa: F401
    from vision.tracking.capture import open_capture  # noqa: F401
    from vision.tracking.frame_source import FrameSource, frame_source  # noqa: F401
    from vision.tracking.tile_memory import ReadCounts, TileMemory  # noqa: F401
    from vision.tracking.tracker import Tracker  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
