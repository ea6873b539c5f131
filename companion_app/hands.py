"""End-of-round hands: checking an uploaded photo, reading its tiles, parsing corrections.

The reading itself is the vision package's (:class:`vision.TileReader`, ONNX
Runtime, no torch); when the models are missing the page says so and the
tiles are entered by hand. Points come from :func:`engine.hand_points`.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion_app.photo_tiles import PhotoTile
from engine.errors import BadInputError

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from engine import RuleSet
    from vision.readings import TileReading
    from vision.stills.hand_photos import Doubt

ACCEPTED_FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp",
                    "MPO": "image/jpeg", "BMP": "image/bmp"}
MAX_PIXELS = 50_000_000
SIDEWAYS = (5, 6, 7, 8)  # EXIF orientations that swap width and height

TILE_TEXT = re.compile(r"^([0-9]{1,2})\s*[-/:|x]\s*([0-9]{1,2})$")  # ASCII digits only


class HandError(ValueError):
    """An upload or a correction that cannot be used; the message is shown on the page."""


@dataclass(frozen=True)
class Photo:
    data: bytes
    mimetype: str
    width: int
    height: int


def check_photo(data: bytes, filename: str = "upload") -> Photo:
    """Accept ``data`` only if it is a JPEG, PNG, WebP or BMP photo; size after EXIF rotation.

    Only the header is read here (no pixels are decoded): a small file can
    describe a very large image.
    """
    from PIL import Image, UnidentifiedImageError

    from vision.images import exif_orientation

    if not data:
        raise HandError(f"{filename}: the file is empty; take or choose a photo.")
    try:
        with Image.open(io.BytesIO(data)) as probe:
            fmt = probe.format or ""
            probe.verify()
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise HandError(f"{filename}: the photo is too large "
                                f"({width}×{height} pixels).")
            if exif_orientation(image) in SIDEWAYS:
                width, height = height, width
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        if isinstance(exc, HandError):
            raise
        raise HandError(f"{filename}: not an image (a photo in JPEG, PNG or WebP is needed)."
                        ) from None
    except Image.DecompressionBombError:
        raise HandError(f"{filename}: the photo is too large.") from None
    if fmt not in ACCEPTED_FORMATS:
        raise HandError(f"{filename}: {fmt or 'this'} images are not accepted; "
                        "use JPEG, PNG or WebP.")
    return Photo(data, ACCEPTED_FORMATS[fmt], width, height)


def decode_photo(photo: Photo, folder: str | os.PathLike[str]) -> np.ndarray:
    """The photo's pixels for reading: BGR, 8-bit, upright, at most
    ``vision.images.MAX_DECODED_PIXELS`` pixels (a larger photo comes reduced,
    same aspect). ``folder`` holds the file while it is decoded.

    Raises :class:`HandError` when the pixels cannot be decoded.
    """
    from vision.images import MAX_DECODED_PIXELS, load_image

    suffix = ".png" if photo.mimetype == "image/png" else ".jpg"
    path = Path(folder) / f"hand{suffix}"
    path.write_bytes(photo.data)
    try:
        return load_image(path, max_pixels=MAX_DECODED_PIXELS)
    except BadInputError as exc:
        raise HandError(f"The photo could not be read: {exc.problem}") from None


def models_status(models_dir: str | os.PathLike[str]) -> str | None:
    """``None`` when hands can be read from photos, else why not (one sentence)."""
    try:
        import vision.reading.reader  # noqa: F401
        from vision.models.onnx_models import load_specs
    except ImportError as exc:
        return f"The tile reader cannot be loaded ({exc}): enter each hand's tiles by hand."
    try:  # the files models.json names (each as the export vision.models.precision picks)
        load_specs(Path(models_dir))
    except BadInputError as exc:
        return (f"The tile-reading models are missing ({exc}): photos are kept, "
                "but enter each hand's tiles by hand.")
    return None


_readers: dict[str, Any] = {}


def read_tiles(photo: Photo, models_dir: str | os.PathLike[str],
               rules: RuleSet) -> list[PhotoTile]:
    """The boxes of a hand photo through the vision scoring: the tiles counted, left to
    right as they lie, then the boxes left out (``left_out``: they may not be tiles).
    Each has ``values``, ``corners`` (image pixels), ``confidence``, ``uncertain``,
    ``covered`` (a hand covers part of it: some pips may be out of view) and ``doubts``
    (the reasons it needs a look, :class:`vision.stills.hand_photos.Doubt` values; empty: none).

    Raises :class:`HandError` with the reader's message when the photo cannot be read.
    """
    return read_hand_photo(photo, models_dir, rules)[0]


def read_hand_photo(photo: Photo, models_dir: str | os.PathLike[str], rules: RuleSet,
                    profile_path: str | os.PathLike[str] | None = None,
                    empty: str | os.PathLike[str] | None = None,
                    ) -> tuple[list[PhotoTile], list[list[list[float]]]]:
    """``read_tiles``'s tiles, and the boxes (corners, image pixels) of the tiles lying
    face down in the photo: those are not read (``vision.reading.face_down``), and the player
    must turn them over. The set profile at ``profile_path`` (``vision.reading.set_profile``), when
    there is one for the game's set, weighs the counts by pip colour. ``empty`` is the
    game's photo of the bare table (``companion_app.bare_table``): boxes on table as bare
    as there are dropped (``vision.stills.bare_photo``; read as without it when the two photos
    do not register).

    Raises :class:`HandError` with the reader's message when the photo cannot be read.
    """
    from vision.reading.reader import TileReader
    from vision.reading.set_profile import kept_profile
    from vision.stills.hand_photos import hand_from_reading, read_hand

    key = str(Path(models_dir).resolve())
    reader = _readers.get(key)
    if reader is None:
        reader = _readers[key] = TileReader(models_dir)
    reader = reader.for_set(rules.set)  # the game's set: its top bounds every half
    profile = kept_profile(profile_path, rules.set)
    if profile is not None:  # the table's own set, calibrated on the set page
        reader = reader.with_profile(profile)
    with tempfile.TemporaryDirectory(prefix="mtrain-hand-") as folder:
        image = decode_photo(photo, folder)
        try:
            frame = read_hand(reader, image)
            if empty is not None:
                frame = _on_bare_table(frame, image, empty)
            hand = hand_from_reading(frame, rules, "photo")
            backs = frame.backs
        except BadInputError as exc:
            raise HandError(f"The photo could not be read: {exc.problem}") from None
    # corners in the photo's own pixels (a large photo was read reduced)
    sx, sy = photo.width / image.shape[1], photo.height / image.shape[0]

    def corners(box: Any) -> list[list[float]]:
        return [[round(float(x) * sx, 1), round(float(y) * sy, 1)] for x, y in box]

    def box(tile: TileReading, doubts: Sequence[Doubt], left_out: bool) -> PhotoTile:
        a, b = (int(v) for v in tile.values)
        return PhotoTile(
            values=(a, b),
            corners=tuple((x, y) for x, y in corners(tile.corners)),
            confidence=round(float(tile.confidence), 3),
            uncertain=bool(doubts),
            covered=bool(tile.covered),
            doubts=tuple(str(d) for d in doubts),
            left_out=left_out,
        )

    return ([box(tile, doubts, False) for tile, doubts in zip(
                hand.readings, hand.doubts, strict=True)]
            + [box(out.reading, out.doubts, True) for out in hand.left_out],
            [corners(back) for back in backs])


def _on_bare_table(frame: Any, image: np.ndarray, empty: str | os.PathLike[str]) -> Any:
    """``frame`` without what lies on bare table, as the photo ``empty`` shows it; as read
    when that photo cannot be loaded or does not register with ``image``."""
    from vision.images import load_image
    from vision.stills.bare_photo import BarePhoto

    try:
        return BarePhoto(load_image(empty), image).screen(frame)
    except BadInputError:
        return frame


def parse_tiles(texts: list[str], set_size: int) -> list[list[int]]:
    """Tiles from the page's fields (``"5-7"``, several per field allowed), checked against
    the set; :class:`HandError` names the first bad one."""
    tiles: list[list[int]] = []
    seen: set[tuple[int, int]] = set()
    for text in texts:
        text = re.sub(r"\s*([-/:|x])\s*", r"\1", text.strip())
        for token in re.split(r"[,;\s]+", text):
            token = token.strip()
            if not token:
                continue
            match = TILE_TEXT.match(token)
            if match is None:
                raise HandError(f"{token!r} is not a tile; write it like 5-7.")
            a, b = sorted((int(match.group(1)), int(match.group(2))))
            if b > set_size:
                raise HandError(f"{token}: a double-{set_size} set has no {b}.")
            if (a, b) in seen:
                raise HandError(f"{a}-{b} is listed twice; a set has one of each tile.")
            seen.add((a, b))
            tiles.append([a, b])
    return tiles


def points(tiles: list[list[int]], rules: RuleSet) -> int:
    """The hand's penalty under the game's rule set (``engine.hand_points``)."""
    from engine import Tile, hand_points

    return int(hand_points([Tile(a, b) for a, b in tiles], rules))
