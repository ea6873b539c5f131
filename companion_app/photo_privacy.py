"""Hand photos kept without what the phone wrote into them.

A phone's photo carries EXIF: where it was taken (GPS), when, the phone's
make, model and serial numbers. The app keeps only the pixels: a photo is
decoded, turned upright (its EXIF orientation applied, so it shows the same
without it) and encoded again with no metadata at all: a PNG as PNG, any
other photo as JPEG. Its size after rotation is what :func:`check_photo`
reported, so readings drawn over it keep their places.
"""

from __future__ import annotations

import io

from companion_app.hands import HandError, Photo

#: JPEG quality of a kept photo: tiles and pips stay sharp to the eye.
JPEG_QUALITY = 90

__all__ = ["JPEG_QUALITY", "without_metadata"]


def without_metadata(photo: Photo) -> Photo:
    """``photo`` encoded again, upright, with no EXIF, XMP, ICC or text chunks.

    Raises :class:`HandError` when its pixels cannot be decoded.
    """
    from PIL import Image, ImageOps

    try:
        with Image.open(io.BytesIO(photo.data)) as opened:
            upright = ImageOps.exif_transpose(opened)
            png = photo.mimetype == "image/png"
            mode = ("RGBA" if "A" in upright.getbands() else "RGB") if png else "RGB"
            pixels = upright.convert(mode)
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise HandError(f"The photo could not be read: {exc}") from None
    clean = pixels
    clean.info = {}  # nothing of the original's EXIF, XMP, ICC or text travels on
    out = io.BytesIO()
    if png:
        clean.save(out, format="PNG", optimize=False)
        mimetype = "image/png"
    else:
        clean.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
        mimetype = "image/jpeg"
    return Photo(out.getvalue(), mimetype, clean.width, clean.height)
