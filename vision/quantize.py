"""8-bit pip model: the float ONNX export quantized with ONNX Runtime, for speed.

The pip model runs on every half of every tile in a frame (80-100 crops for a
table), so it is most of a frame's reading time. Static int8 quantization
(QDQ, weights per channel) on a CPU with VNNI makes it 2-3x faster. The
detection head's decoding (distribution focal loss, the box and score
concatenation) stays in float: quantizing it to 8 bits together with the box
coordinates wipes out the scores (measured: tiles read right fell from 77 %
to 8 %). Calibration uses half crops of the training data's validation sets.

Needs ``onnx`` (the ``train`` extra); the reader itself only loads the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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


def quantize_pips(src: Path, dst: Path, crops: Sequence[np.ndarray]) -> Path:
    """Write the int8 version of the pip model ``src`` to ``dst``, calibrated on ``crops``
    (``HALF_PX`` square BGR half crops); returns ``dst``."""
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

    from vision.onnx_models import to_blob

    if not crops:
        raise ValueError("no calibration crops")
    model = onnx.load(str(src))
    keep_float = head_nodes_to_keep_float(model)
    input_name = model.graph.input[0].name

    batches = iter([to_blob(list(crops[i:i + 16])) for i in range(0, len(crops), 16)])

    class Reader(CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            blob = next(batches, None)
            return None if blob is None else {input_name: blob}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(dst), Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True, calibrate_method=CalibrationMethod.MinMax,
                        nodes_to_exclude=keep_float)
    return dst


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
