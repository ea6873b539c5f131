"""datasets package: the seeded synthetic image generator and the label files.

- :func:`render` (``datasets.render``) / :func:`render_crops` (``datasets.crop_sets``):
  one labelled scene (``hands`` or ``table``) or the half-tile crops of one, from a random
  generator;
  :func:`scene_rng` gives image ``index`` of a seed its own generator.
- :func:`set_look`, :func:`set_photos` (``datasets.set_style``): one set's fixed look
  (the standard code, or colours and 10-12 layouts no training scene shows) and
  photos of the whole set laid out face up, for calibration.
- :func:`draw_surface`, :func:`webcam`, ``SURFACES`` (``datasets.surfaces``): surfaces
  people play on (checks, stripes, prints, leather, glass, varnish, felt) and a webcam's
  finish; ``render_table``/``render_hands(..., surface=...)`` and :func:`render_empty`.
- :func:`synthesize` (``datasets.synth``): write ``count`` images + label JSON to a
  folder (``mtrain synth``), deterministic per seed.
- :func:`load_labels`, :func:`iter_scenes` (``datasets.labels``): read label files.
- :func:`export_obb`, :func:`export_pips` (``datasets.yolo_export``): ultralytics datasets.
- :func:`draw_table` (``datasets.table_draw``): table ``i`` of a part of the table
  benchmark, from its seed.
- ``datasets/eval/``: a small fixed evaluation set (seeds 9001, 9002, never trained on).

Heavy modules (cv2) load on first use of a name, so ``import datasets`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "render": "datasets.render",
    "render_crops": "datasets.crop_sets",
    "render_hands": "datasets.render",
    "render_table": "datasets.render",
    "render_empty": "datasets.render",
    "draw_surface": "datasets.surfaces",
    "webcam": "datasets.surfaces",
    "SURFACES": "datasets.surfaces",
    "scene_rng": "datasets.render",
    "Scene": "datasets.scene",
    "synthesize": "datasets.synth",
    "set_look": "datasets.set_style",
    "set_photos": "datasets.set_style",
    "load_labels": "datasets.labels",
    "iter_scenes": "datasets.labels",
    "export_obb": "datasets.yolo_export",
    "export_pips": "datasets.yolo_export",
    "draw_table": "datasets.table_draw",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'datasets' has no attribute {name!r}")
