"""load_image: formats, EXIF rotation, and bad files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from engine.errors import BadInputError
from vision.images import load_image


def marked_rgb(w: int = 40, h: int = 20) -> np.ndarray:
    """RGB image, red in the top-left corner, blue elsewhere."""
    rgb = np.zeros((h, w, 3), np.uint8)
    rgb[...] = (0, 0, 255)
    rgb[:5, :5] = (255, 0, 0)
    return rgb


class TestFormats:
    @pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".webp"])
    def test_colour_image_is_bgr(self, tmp_path: Path, suffix: str) -> None:
        path = tmp_path / f"im{suffix}"
        Image.fromarray(marked_rgb()).save(path, quality=95)
        image = load_image(path)
        assert image.shape == (20, 40, 3) and image.dtype == np.uint8
        assert image[1, 1].tolist() == pytest.approx([0, 0, 255], abs=12)  # red, as BGR
        assert image[15, 30].tolist() == pytest.approx([255, 0, 0], abs=12)

    @pytest.mark.parametrize("mode", ["L", "RGBA", "P", "LA", "1", "I;16", "CMYK"])
    def test_other_modes_become_three_channels(self, tmp_path: Path, mode: str) -> None:
        source = Image.fromarray(marked_rgb())
        if mode == "I;16":
            converted = Image.fromarray((np.arange(800).reshape(20, 40) * 60).astype(np.uint16))
        else:
            converted = source.convert(mode)
        path = tmp_path / ("im.tif" if mode == "CMYK" else "im.png")
        converted.save(path)
        image = load_image(path)
        assert image.shape == (20, 40, 3) and image.dtype == np.uint8

    def test_sixteen_bit_grey_keeps_its_range(self, tmp_path: Path) -> None:
        grey = np.full((4, 4), 65535, np.uint16)
        grey[0, 0] = 0
        path = tmp_path / "g.png"
        Image.fromarray(grey).save(path)
        image = load_image(path)
        assert image[1, 1].tolist() == [255, 255, 255] and image[0, 0].tolist() == [0, 0, 0]

    def test_string_path(self, tmp_path: Path) -> None:
        path = tmp_path / "im.png"
        Image.fromarray(marked_rgb()).save(path)
        assert load_image(str(path)).shape == (20, 40, 3)


class TestExif:
    @pytest.mark.parametrize(("orientation", "shape", "red_at"), [
        (1, (20, 40), (1, 1)),      # as stored
        (3, (20, 40), (18, 38)),    # turned half round
        (6, (40, 20), (1, 18)),     # camera turned: shown rotated 90° clockwise
        (8, (40, 20), (38, 1)),     # rotated 90° anticlockwise
        (2, (20, 40), (1, 38)),     # mirrored
    ])
    def test_orientation_is_applied(self, tmp_path: Path, orientation: int,
                                    shape: tuple[int, int], red_at: tuple[int, int]) -> None:
        im = Image.fromarray(marked_rgb())
        exif = im.getexif()
        exif[0x0112] = orientation
        path = tmp_path / "rot.jpg"
        im.save(path, exif=exif, quality=95)
        image = load_image(path)
        assert image.shape[:2] == shape
        assert image[red_at][2] > 200 and image[red_at][0] < 60


    @pytest.mark.parametrize("orientation", range(1, 9))
    @pytest.mark.parametrize("suffix", [".jpg", ".png"])
    def test_same_as_pillow_exif_transpose(self, tmp_path: Path, orientation: int,
                                           suffix: str) -> None:
        rgb = np.random.default_rng(orientation).integers(0, 255, (24, 40, 3), dtype=np.uint8)
        im = Image.fromarray(rgb)
        exif = im.getexif()
        exif[0x0112] = orientation
        path = tmp_path / f"rot{suffix}"
        im.save(path, exif=exif, quality=100)
        with Image.open(path) as stored:
            expected = np.asarray(ImageOps.exif_transpose(stored).convert("RGB"))[..., ::-1]
        assert np.array_equal(load_image(path), expected)


class TestBadFiles:
    def test_missing(self, tmp_path: Path) -> None:
        with pytest.raises(BadInputError, match="no such file") as err:
            load_image(tmp_path / "nope.jpg")
        assert err.value.source == str(tmp_path / "nope.jpg")

    def test_empty(self, tmp_path: Path) -> None:
        path = tmp_path / "empty.jpg"
        path.write_bytes(b"")
        with pytest.raises(BadInputError, match="empty file"):
            load_image(path)

    def test_folder(self, tmp_path: Path) -> None:
        with pytest.raises(BadInputError, match="folder"):
            load_image(tmp_path)

    @pytest.mark.parametrize("content", [b"hello, not an image", b"\x00" * 100,
                                         b'{"tiles": []}'])
    def test_not_an_image(self, tmp_path: Path, content: bytes) -> None:
        path = tmp_path / "fake.jpg"
        path.write_bytes(content)
        with pytest.raises(BadInputError, match="not an image"):
            load_image(path)

    @pytest.mark.parametrize("suffix", [".jpg", ".png"])
    def test_truncated(self, tmp_path: Path, suffix: str) -> None:
        full = tmp_path / f"full{suffix}"
        noise = np.random.default_rng(0).integers(0, 255, (200, 300, 3), dtype=np.uint8)
        Image.fromarray(noise).save(full)
        cut = tmp_path / f"cut{suffix}"
        data = full.read_bytes()
        cut.write_bytes(data[: len(data) // 2])
        with pytest.raises(BadInputError, match="corrupt or truncated"):
            load_image(cut)

    def test_corrupt_body(self, tmp_path: Path) -> None:
        full = tmp_path / "full.png"
        Image.fromarray(marked_rgb(200, 200)).save(full)
        data = bytearray(full.read_bytes())
        data[60:120] = b"\xff" * 60  # inside the compressed data
        bad = tmp_path / "bad.png"
        bad.write_bytes(bytes(data))
        with pytest.raises(BadInputError):
            load_image(bad)
