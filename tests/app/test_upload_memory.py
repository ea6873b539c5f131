"""Uploaded photos are decoded within a memory bound, whatever their header claims."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from companion_app import hands
from engine import RuleSet

PEAK_RSS_MB = 600


def flat_png(path: Path, width: int, height: int, pixel: bytes) -> None:
    """A PNG of one colour, 16-bit RGBA: a small file, a huge image.

    Each row is compressed after a full flush (no history), so its bytes are
    the same for every row and are written ``height`` times; the stream ends
    with an empty final block and the Adler-32 of all the rows.
    """

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    row = b"\x00" + pixel * width  # filter type 0, then the pixels
    squeeze = zlib.compressobj(9)
    first = squeeze.compress(row) + squeeze.flush(zlib.Z_FULL_FLUSH)  # with the zlib header
    again = squeeze.compress(row) + squeeze.flush(zlib.Z_FULL_FLUSH)
    check = 1
    for _ in range(height):
        check = zlib.adler32(row, check)
    body = first + again * (height - 1) + b"\x03\x00" + struct.pack(">I", check)
    header = struct.pack(">IIBBBBB", width, height, 16, 6, 0, 0, 0)  # 16-bit RGBA
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body)
                     + chunk(b"IEND", b""))


# The peak is this process's own (``VmHWM``): ``ru_maxrss`` keeps, across the exec of a
# process spawned by vfork, the high-water mark of the parent's memory, which is the
# test runner's own once it has loaded models.
DECODE = """
import json, re, resource, sys, tempfile
from pathlib import Path
from companion_app import hands
photo = hands.check_photo(Path(sys.argv[1]).read_bytes(), "big.png")
with tempfile.TemporaryDirectory() as folder:
    image = hands.decode_photo(photo, folder)
status = Path("/proc/self/status")
found = re.search(r"VmHWM:\\s+(\\d+) kB", status.read_text()) if status.exists() else None
peak_kb = int(found.group(1)) if found else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"size": [photo.width, photo.height], "shape": list(image.shape),
                  "dtype": str(image.dtype), "pixel": image[7, 7].tolist(),
                  "peak_mb": peak_kb / 1024}))
"""


def test_a_huge_16_bit_png_is_decoded_reduced_within_the_memory_bound(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    # R, G, B = 0x8000, 0x4000, 0x2000 (16-bit), opaque: 128, 64, 32 in 8 bits
    flat_png(path, 7000, 7000, b"\x80\x00\x40\x00\x20\x00\xff\xff")
    assert path.stat().st_size < 1_000_000  # a small upload, 392 MB of pixels
    done = subprocess.run([sys.executable, "-c", DECODE, str(path)], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    result = json.loads(done.stdout)
    assert result["size"] == [7000, 7000]  # the photo as stored keeps its size
    height, width, channels = result["shape"]
    assert channels == 3 and result["dtype"] == "uint8"
    assert width == height and width * height <= 16_000_000  # same aspect, reduced
    assert result["pixel"] == [32, 64, 128]  # BGR, 8 bits
    assert result["peak_mb"] < PEAK_RSS_MB


def test_a_photo_read_reduced_gives_corners_in_its_own_pixels(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import vision.images
    import vision.stills.hand_photos
    from vision.models.detections import Detections
    from vision.readings import FrameReading, TileReading, TileReadings

    seen: list[tuple[int, ...]] = []

    class Reader:
        def for_set(self, top: int | None) -> object:
            return self

    def read_hand(reader: object, image: np.ndarray) -> FrameReading:
        seen.append(image.shape)
        corners = np.array([[1, 1], [5, 1], [5, 3], [1, 3]], np.float32)
        return FrameReading(TileReadings.of([TileReading((3, 4), corners, 0.9, False)]),
                            Detections.empty(),
                            (15, 20), (corners + [10, 0],))

    photo_file = tmp_path / "hand.png"
    from PIL import Image

    Image.new("RGB", (80, 60), (200, 180, 160)).save(photo_file)
    monkeypatch.setattr(vision.images, "MAX_DECODED_PIXELS", 1000)
    monkeypatch.setitem(hands._readers, str(tmp_path.resolve()), Reader())
    monkeypatch.setattr(vision.stills.hand_photos, "read_hand", read_hand)
    photo = hands.check_photo(photo_file.read_bytes(), "hand.png")
    tiles, backs = hands.read_hand_photo(photo, tmp_path, RuleSet.preset("standard"))
    assert seen == [(15, 20, 3)]  # read at a quarter of its size
    assert tiles[0].corners == ((4.0, 4.0), (20.0, 4.0), (20.0, 12.0), (4.0, 12.0))
    assert backs == [[[44.0, 4.0], [60.0, 4.0], [60.0, 12.0], [44.0, 12.0]]]


def test_the_size_of_a_sideways_photo_comes_from_its_header(tmp_path: Path) -> None:
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6  # taken sideways
    for suffix in (".jpg", ".png"):
        path = tmp_path / f"hand{suffix}"
        Image.new("RGB", (40, 30), (10, 20, 30)).save(path, exif=exif.tobytes())
        photo = hands.check_photo(path.read_bytes(), path.name)
        assert (photo.width, photo.height) == (30, 40)
