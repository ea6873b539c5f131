"""Loading photos and frames: any size, JPEG or PNG (or whatever Pillow reads).

Pillow identifies the file and reads its EXIF orientation; JPEG and PNG pixels
are decoded by OpenCV (about twice as fast on a 12 MP photo) and turned
upright exactly as ``PIL.ImageOps.exif_transpose`` would; everything else,
and any file OpenCV will not take whole, goes through Pillow.

Memory is bounded by the header, not the file size: a 381 KB PNG may hold
7000×7000 16-bit RGBA pixels (392 MB). With ``max_pixels``, a larger image is
decoded reduced by 2, 4 or 8 (JPEG by the decoder's own DCT scaling, others
resized as they come out of the decoder) and always as 8-bit colour, never
as 16-bit or with its alpha kept in between.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from engine.errors import BadInputError

#: EXIF orientation -> how to turn stored pixels upright (as exif_transpose does).
_UPRIGHT: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    2: lambda a: cv2.flip(a, 1),
    3: lambda a: cv2.rotate(a, cv2.ROTATE_180),
    4: lambda a: cv2.flip(a, 0),
    5: cv2.transpose,
    6: lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    7: lambda a: cv2.flip(cv2.transpose(a), -1),
    8: lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE),
}
_OPENCV_FORMATS = ("JPEG", "PNG")
_REDUCED_FLAGS = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                  8: cv2.IMREAD_REDUCED_COLOR_8}
_REDUCIBLE_MODES = ("RGB", "RGBA", "L", "LA", "I")
#: A bound for photos from outside: a 16 MP photo (4608×3456) is read whole.
MAX_DECODED_PIXELS = 16_000_000


def exif_orientation(im: Image.Image) -> int:
    """The EXIF orientation (1-8) of an opened image, without decoding its pixels.

    A PNG's EXIF is taken from an ``eXIf`` chunk before the pixels only
    (Pillow's ``getexif`` would decode the whole image to look after them;
    browsers ignore a late one too).
    """
    if im.format == "PNG":
        raw = im.info.get("exif")
        if not isinstance(raw, bytes):
            return 1
        exif = Image.Exif()
        exif.load(raw)
    else:
        exif = im.getexif()
    value = exif.get(0x0112, 1)
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def reduction(width: int, height: int, max_pixels: int | None) -> int:
    """The factor (1, 2, 4 or 8) an image of this size is decoded reduced by.

    >>> reduction(4032, 3024, MAX_DECODED_PIXELS), reduction(7000, 7000, MAX_DECODED_PIXELS)
    (1, 2)
    """
    factor = 1
    while max_pixels is not None and factor < 8 and width * height > max_pixels * factor**2:
        factor *= 2
    return factor


def load_image(path: str | os.PathLike[str], *, max_pixels: int | None = None) -> np.ndarray:
    """The image at ``path`` as a BGR ``uint8`` array ``(H, W, 3)``, upright.

    The EXIF orientation tag is applied (a phone photo taken sideways comes
    out the way it was seen). Grey, palette, 16-bit and alpha images are
    converted to colour; alpha is dropped. An image of more than
    ``max_pixels`` pixels comes back smaller by the factor :func:`reduction`
    gives (same aspect; coordinates scale by ``original width / array width``).

    Raises:
        BadInputError: the file is missing, empty, not an image, corrupt or
            truncated, or too large to be a photo.
    """
    source = os.fspath(path)
    try:
        size = os.path.getsize(source)
    except FileNotFoundError:
        raise BadInputError(source, "no such file") from None
    except OSError as exc:
        raise BadInputError(source, f"cannot read ({exc.strerror or exc})") from None
    if os.path.isdir(source):
        raise BadInputError(source, "is a folder, not an image")
    if size == 0:
        raise BadInputError(source, "empty file")
    with _pillow_errors(source), Image.open(source) as im:
        image_format = im.format
        orientation = exif_orientation(im)
        if im.width * im.height > (Image.MAX_IMAGE_PIXELS or 1 << 62):
            raise Image.DecompressionBombError("too many pixels")
        factor = reduction(im.width, im.height, max_pixels)
    if image_format in _OPENCV_FORMATS:
        array = _decode_with_opencv(source, image_format, factor)
        if array is not None:
            turn = _UPRIGHT.get(orientation)
            return np.ascontiguousarray(turn(array)) if turn else array
    with _pillow_errors(source), Image.open(source) as im:
        array = _decode_with_pillow(im, factor)
    if array.ndim != 3 or array.shape[0] == 0 or array.shape[1] == 0:
        raise BadInputError(source, "image has no pixels")
    bgr = cv2.cvtColor(array, cv2.COLOR_RGB2BGR)
    turn = _UPRIGHT.get(orientation)
    return np.ascontiguousarray(turn(bgr)) if turn else bgr


def _decode_with_opencv(source: str, image_format: str, factor: int = 1) -> np.ndarray | None:
    """OpenCV's decode, or None when the file is not whole (Pillow then says why)."""
    data = np.fromfile(source, dtype=np.uint8)
    if image_format == "JPEG" and not _ends_like_jpeg(data):
        return None  # OpenCV would fill a truncated JPEG with grey and carry on
    flags = _REDUCED_FLAGS.get(factor, cv2.IMREAD_COLOR) | cv2.IMREAD_IGNORE_ORIENTATION
    try:
        array = cv2.imdecode(data, flags)
    except cv2.error:
        return None
    if array is None or array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        return None
    return array


def _decode_with_pillow(im: Image.Image, factor: int) -> np.ndarray:
    """RGB pixels as stored (not yet upright), reduced by ``factor``."""
    target = max(1, im.width // factor), max(1, im.height // factor)
    if factor > 1 and im.format == "JPEG":
        im.draft("RGB", target)  # the decoder's DCT scaling: decoded small
    im.load()
    small: Image.Image = im
    left = small.width // target[0]
    if left > 1:
        if small.mode not in _REDUCIBLE_MODES:
            small = _to_rgb(small)
        small = small.reduce(left)
    rgb = small if small.mode == "RGB" else _to_rgb(small)
    return np.asarray(rgb)


def _ends_like_jpeg(data: np.ndarray) -> bool:
    tail = data[-64:].tobytes().rstrip(b"\x00\r\n ")
    return tail.endswith(b"\xff\xd9")


class _pillow_errors:
    """Context manager turning Pillow's ways of failing into ``BadInputError``."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.warnings = warnings.catch_warnings()

    def __enter__(self) -> None:
        self.warnings.__enter__()
        warnings.simplefilter("error", Image.DecompressionBombWarning)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        self.warnings.__exit__(kind, exc, tb)  # type: ignore[arg-type]
        if exc is None:
            return
        source = self.source
        if isinstance(exc, (UnidentifiedImageError, ImportError)):
            # ImportError: ultralytics (training only) wraps Image.open to fetch a
            # HEIF decoder for files Pillow cannot identify; offline that fails.
            raise BadInputError(source, "not an image file") from None
        if isinstance(exc, (Image.DecompressionBombError, Image.DecompressionBombWarning)):
            raise BadInputError(source, "image too large") from None
        if isinstance(exc, PermissionError):
            raise BadInputError(source, "permission denied") from None
        if isinstance(exc, (OSError, ValueError, SyntaxError)):  # Pillow's damage reports
            raise BadInputError(source, f"corrupt or truncated image ({exc})") from None


def _to_rgb(im: Image.Image) -> Image.Image:
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):  # 16/32-bit grey: scale to 8 bits
        values = np.asarray(im)
        top = int(values.max()) if values.size else 0
        if top > 255:  # 16-bit range, in integers (no float copy of a large image)
            grey = (np.clip(values, 0, 65535).astype(np.uint32) * 255 // 65535).astype(np.uint8)
        else:
            grey = np.clip(values, 0, 255).astype(np.uint8)
        return Image.fromarray(grey).convert("RGB")
    if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info):
        return im.convert("RGBA").convert("RGB")
    return im.convert("RGB")
