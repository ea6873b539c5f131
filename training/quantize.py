"""8-bit models: the float ONNX exports quantized with ONNX Runtime, for speed.

The pip model runs on every half of every tile in a frame (80-100 crops for a
table), so it is most of a frame's reading time. Static int8 quantization
(QDQ, weights per channel) on a CPU with VNNI makes it 2-3x faster. The
detection head's decoding (distribution focal loss, the box and score
concatenation) stays in float: quantizing it to 8 bits together with the box
coordinates wipes out the scores (measured: tiles read right fell from 77 %
to 8 %). Calibration uses half crops of the training data's validation sets.
The tile detector is quantized the same way, calibrated on validation
scenes; it is about 40 % faster. So is the half classifier, which runs on the
same crops as the pip model.

Needs ``onnx`` (the ``train`` extra); the reader itself only loads the result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Nodes of the head (the last ``/model.N/`` block) kept quantized: the convolutions
#: of its box and class branches before their last 1x1 layer. Everything after them
#: (the last 1x1 convolutions, DFL, concatenations, sigmoid) stays float.
HEAD_CONVS = r"/model\.{head}/cv[23]\.\d+/cv[23]\.\d+\.[01]/"


def head_nodes_to_keep_float(model: Any) -> list[str]:
    """Names of the head's decoding nodes of the ONNX ``model`` (to leave in float)."""
    blocks = [int(m.group(1)) for n in model.graph.node
              if (m := re.match(r"/model\.(\d+)/", n.name))]
    if not blocks:
        return []
    head = max(blocks)
    keep = re.compile(HEAD_CONVS.format(head=head))
    prefix = f"/model.{head}/"
    return [n.name for n in model.graph.node
            if n.name.startswith(prefix) and not keep.match(n.name)]


def quantize_static_model(src: Path, dst: Path, blobs: Iterable[np.ndarray],
                          keep_float: Sequence[str], reduce_range: bool = False) -> Path:
    """Static QDQ int8 (per-channel weights, uint8 activations, MinMax) of the ONNX
    model ``src`` to ``dst``, calibrated on the input ``blobs``; the nodes named in
    ``keep_float`` stay float; ``reduce_range``: 7-bit weights, whose sums cannot
    saturate on a CPU without VNNI (``vision.models.precision``). Returns ``dst``."""
    import tempfile

    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    input_name = onnx.load(str(src)).graph.input[0].name
    feed = iter(blobs)

    class Reader(CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            blob = next(feed, None)
            return None if blob is None else {input_name: blob}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(dst), Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True, calibrate_method=CalibrationMethod.MinMax,
                        reduce_range=reduce_range, nodes_to_exclude=list(keep_float))
    return dst


def quantize_pips(src: Path, dst: Path, crops: Sequence[np.ndarray]) -> Path:
    """Write the int8 version of the pip model ``src`` to ``dst``, calibrated on ``crops``
    (``HALF_PX`` square BGR half crops); returns ``dst``."""
    import onnx

    from vision.models.onnx_models import to_blob

    if not crops:
        raise ValueError("no calibration crops")
    keep_float = head_nodes_to_keep_float(onnx.load(str(src)))
    blobs = (to_blob(list(crops[i:i + 16])) for i in range(0, len(crops), 16))
    return quantize_static_model(src, dst, blobs, keep_float)


#: Width of the half classifiers' 8-bit weights (``models.json`` ``weight_bits``): 7
#: (``reduce_range``), with which they read as well as with 8 and whose sums never
#: saturate, so that they run in 8 bits on every CPU (``vision.models.precision``).
HALVES_WEIGHT_BITS = 7


def quantize_halves(src: Path, dst: Path, crops: Sequence[np.ndarray],
                    imgsz: int | None = None) -> Path:
    """Write the int8 version of the half classifier ``src`` to ``dst``, calibrated on
    ``crops`` (``HALF_PX`` square BGR half crops, shrunk to ``imgsz`` when given, as the
    reader shrinks them); returns ``dst``.

    Its head (pooling, the last convolution and linear layer, softmax) and its first
    convolution (raw pixels) stay float.
    """
    import onnx

    from vision.models.onnx_models import fit_crops, to_blob

    if not crops:
        raise ValueError("no calibration crops")
    model = onnx.load(str(src))
    blocks = [int(m.group(1)) for n in model.graph.node
              if (m := re.match(r"/model\.(\d+)/", n.name))]
    head = max(blocks, default=-1)
    keep_float = [n.name for n in model.graph.node
                  if n.name.startswith((f"/model.{head}/", "/model.0/"))
                  or not n.name.startswith("/model.")]
    if imgsz is not None:
        crops = fit_crops(crops, imgsz)
    blobs = (to_blob(list(crops[i:i + 16])) for i in range(0, len(crops), 16))
    return quantize_static_model(src, dst, blobs, keep_float, reduce_range=HALVES_WEIGHT_BITS == 7)


#: Input long sides the tile detector is calibrated at: its first look and the
#: size it was trained at (the closer look at whole tables, ``ZOOM_IN_SIDE``,
#: is 768: the activations' ranges hardly depend on the scale).
TILE_SIDES = (416, 640)


def quantize_tiles(src: Path, dst: Path, frames: Sequence[np.ndarray],
                   sides: Sequence[int] = TILE_SIDES) -> Path:
    """Write the int8 version of the tile detector ``src`` to ``dst``, calibrated on
    ``frames`` (BGR images) letterboxed as the reader does at each of ``sides``.

    Besides the head's decoding, the first convolution stays float (it sees raw
    pixels). On the rendered validation scenes (60 of each kind) the reader read
    86.6 % of tiles right with it, 87.2 % with the float model, both with the
    closer look at 640, for 40 % less detector time; see ``ZOOM_IN_SIDE``.
    """
    import onnx

    from vision.models.onnx_models import letterbox, rect_input_size, to_blob

    if not frames:
        raise ValueError("no calibration frames")
    model = onnx.load(str(src))
    keep_float = head_nodes_to_keep_float(model) + [
        n.name for n in model.graph.node if n.name.startswith("/model.0/")]

    def blobs() -> Iterator[np.ndarray]:
        for frame in frames:
            for side in sides:
                size = rect_input_size((frame.shape[0], frame.shape[1]), side)
                yield to_blob([letterbox(frame, size)[0]])

    return quantize_static_model(src, dst, blobs(), keep_float)


def calibration_frames(folders: Sequence[Path], start: int = 60,
                       per_folder: int = 30) -> list[np.ndarray]:
    """Scenes ``start`` to ``start + per_folder`` (``*.jpg``, sorted) of each folder:
    past the first 60 of each validation set, on which the reader is measured
    (a smaller folder gives its first ``per_folder``)."""
    import cv2

    out: list[np.ndarray] = []
    for folder in folders:
        files = sorted(Path(folder).glob("*.jpg"))
        for path in files[start:start + per_folder] or files[:per_folder]:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                out.append(image)
    return out


def calibration_crops(folders: Sequence[Path], per_folder: int = 200) -> list[np.ndarray]:
    """The first ``per_folder`` crops (``*.png``, sorted) of each folder."""
    import cv2

    out: list[np.ndarray] = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.png"))[:per_folder]:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                out.append(image)
    return out
