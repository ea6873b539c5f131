"""The photoreal scene generator: tables rendered physically, labelled exactly.

A second generator beside the 2D painter (``datasets.render``): the table comes
from the same layout code (``datasets.table_layout``), so labels are exact; the
picture is rendered by Blender's Cycles on the CPU (``bpy``, the optional extra
``render`` in its own ``.venv-render``: ``make render-env``) with solid tiles
(bevels, thickness, gloss, sunken pips, an engraved divider, a spinner), real
pip styles, surfaces, lamps and daylight, and a webcam's lens and sensor.

- :func:`build_scene` (``scene``): the seeded description of one scene; no bpy.
- :func:`scene_labels`, :func:`clear_view` (``labels``): its label JSON.
- :func:`generate` (``generate``): render scenes into a folder
  (``python -m datasets.photoreal``); :func:`render_python` finds bpy or says
  how to install it.

Names load on first use, so importing this package needs neither cv2 nor bpy.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "PhotoScene": "datasets.photoreal.scene",
    "build_scene": "datasets.photoreal.scene",
    "scene_labels": "datasets.photoreal.labels",
    "clear_view": "datasets.photoreal.labels",
    "generate": "datasets.photoreal.generate",
    "render_python": "datasets.photoreal.generate",
    "SURFACES": "datasets.photoreal.looks",
    "SET_STYLES": "datasets.photoreal.looks",
    "LIGHTINGS": "datasets.photoreal.looks",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'datasets.photoreal' has no attribute {name!r}")
