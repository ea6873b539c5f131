"""Read scene label files (the format of docs/DESIGN.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.errors import BadInputError

#: Keys every label file has.
REQUIRED_KEYS = ("image", "width", "height", "kind", "tiles", "pips", "markers")


def load_labels(path: str | Path) -> dict[str, Any]:
    """The label dict of one ``NAME.json``; :class:`BadInputError` if it is not one."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(str(p), "no such label file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInputError(str(p), f"not a label file: {exc}") from None
    if not isinstance(data, dict):
        raise BadInputError(str(p), "a label file holds one JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise BadInputError(str(p), f"label file lacks {', '.join(missing)}")
    for tile in data["tiles"]:
        if len(tile.get("corners", ())) != 4 or len(tile.get("values", ())) != 2:
            raise BadInputError(str(p), "a tile needs two values and four corners")
    return data


def iter_scenes(folder: str | Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """``(image path, labels)`` for every label file in ``folder``, sorted by name."""
    root = Path(folder)
    if not root.is_dir():
        raise BadInputError(str(root), "not a folder")
    for label_path in sorted(root.glob("*.json")):
        labels = load_labels(label_path)
        yield root / str(labels["image"]), labels
