"""The compositor: webcam frames made from sprites laid out like a real table.

- :class:`SpriteLibrary`, :class:`Sprite`, :func:`painter_tile` (``library``): the
  photoreal renderer's sprites (``python -m datasets.photoreal sprites``) and tiles
  the painter draws on the spot.
- :func:`plan_frame` (``plan``): what a frame shows, from the table layout code;
  :func:`plan_hand` (``hand_plan``): a photo of one player's hand (``Options.hands``).
- :func:`compose_frame` (``compose``): one frame and its labels, from a seed.
- :func:`write_frames` (``write``): many frames into a folder, on every core
  (``python -m datasets.composite``); :func:`crop_windows` (``windows``): square
  windows cut out of them, tiles kept at their pixel size.
- :func:`frame_crops`, :func:`write_composite_crops` (``crops``): half-tile crops cut
  from frames (``crops-composite``), the half classifiers' rendered-looking data.
- :func:`frame_boxes`, :func:`composite_box_set` (``box_crops``): the domino check's
  crops cut from frames: faces, backs and boxes that are no domino.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "Sprite": "datasets.composite.library",
    "SpriteLibrary": "datasets.composite.library",
    "painter_tile": "datasets.composite.library",
    "load_sprite": "datasets.composite.library",
    "FramePlan": "datasets.composite.plan",
    "plan_frame": "datasets.composite.plan",
    "plan_hand": "datasets.composite.hand_plan",
    "Options": "datasets.composite.compose",
    "compose_frame": "datasets.composite.compose",
    "write_frames": "datasets.composite.write",
    "crop_windows": "datasets.composite.windows",
    "frame_crops": "datasets.composite.crops",
    "write_composite_crops": "datasets.composite.crops",
    "frame_boxes": "datasets.composite.box_crops",
    "composite_box_set": "datasets.composite.box_crops",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'datasets.composite' has no attribute {name!r}")
