"""ONNX Runtime sessions for the YOLO models, and decoding of their raw output.

All models are ultralytics exports. Pre- and post-processing repeat what
ultralytics does at prediction time, in NumPy and OpenCV only, so that a frame
gives the same boxes here as in ``YOLO(...).predict`` (the tests check it):

- input: letterbox to the model size (grey 114 border, centred), BGR to RGB,
  ``/ 255``, NCHW float32;
- detect output ``(B, 4 + nc, A)``: centre, size, class scores per anchor;
  best class per anchor, confidence filter, greedy NMS per class;
- OBB output ``(B, 4 + nc + 1, A)``: the same plus an angle in radians;
  NMS with probabilistic IoU (``probiou``) in ultralytics' "fast NMS" form;
- classify output ``(B, nc)``: class probabilities (the export ends in a softmax).

``models/models.json`` names the files, input sizes, class names and tasks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.errors import BadInputError
from vision.models.detections import Detections, xywhr_to_corners
from vision.models.overlap import nms_boxes, nms_rotated
from vision.models.precision import chosen_precision, model_file

#: Offset that keeps boxes of different classes apart in class-aware NMS.
MAX_WH = 7680.0
#: Grey used for the letterbox border, as in ultralytics.
PAD_VALUE = 114
#: Most candidates that go into NMS (the best-scored); ultralytics allows 30000,
#: but NMS is quadratic and a trained model gives a few hundred at most.
MAX_NMS = 2000


# -- model description -------------------------------------------------------

@dataclass(frozen=True)
class ModelSpec:
    """One entry of ``models.json``."""

    file: Path
    imgsz: int
    names: tuple[str, ...]
    task: str  # "obb", "detect" or "classify"
    #: Width of the 8-bit export's weights: 7 when quantized with ``reduce_range``, whose
    #: sums cannot saturate on any CPU (``vision.models.precision``).
    weight_bits: int = 8

    @classmethod
    def from_json(cls, folder: Path, obj: dict[str, Any]) -> ModelSpec:
        return cls(folder / str(obj["file"]), int(obj["imgsz"]),
                   tuple(str(n) for n in obj["names"]), str(obj.get("task", "detect")),
                   int(obj.get("weight_bits", 8)))


def default_models_dir() -> Path:
    """``models/`` of this checkout (beside the ``vision`` package)."""
    return Path(__file__).resolve().parents[2] / "models"


def resolve_models_dir(models_dir: str | os.PathLike[str] | None) -> Path:
    """The folder to read models from: as given, else this checkout's ``models/``.

    A relative path that does not exist from the working directory is also
    tried relative to the checkout, so ``TileReader("models")`` works anywhere.
    """
    if models_dir is None:
        return default_models_dir()
    path = Path(models_dir)
    if not path.is_absolute() and not path.exists():
        beside = default_models_dir().parent / path
        if beside.exists():
            return beside
    return path


def load_specs(models_dir: str | os.PathLike[str] | None = None,
               precision: str | None = None) -> dict[str, ModelSpec]:
    """Read ``models.json``; raise ``BadInputError`` naming what is missing.

    Each model's file is the export to run at ``precision`` (``"int8"``,
    ``"float"`` or ``"auto"``; by default ``MTRAIN_PRECISION``, else ``"auto"``:
    ``vision.models.precision.chosen_precision``: on every CPU, float where the float export
    lies beside the 8-bit one, except for 8-bit exports with 7-bit weights,
    ``weight_bits``).
    """
    precision = chosen_precision(precision)  # None: MTRAIN_PRECISION, else auto
    folder = resolve_models_dir(models_dir)
    index = folder / "models.json"
    try:
        raw = json.loads(index.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(str(index), "no such file (the trained models are missing)") from None
    except (OSError, ValueError) as exc:
        raise BadInputError(str(index), f"unreadable model index ({exc})") from None
    try:
        specs = {key: ModelSpec.from_json(folder, obj) for key, obj in raw.items()}
        specs = {key: replace(spec, file=model_file(spec.file, precision, spec.weight_bits))
                 for key, spec in specs.items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BadInputError(str(index), f"malformed model entry ({exc})") from None
    for key in ("tiles", "pips"):
        if key not in specs:
            raise BadInputError(str(index), f"no {key!r} model listed")
    for spec in specs.values():
        if not spec.file.is_file():
            raise BadInputError(str(spec.file), "no such model file")
    return specs


# -- letterbox -----------------------------------------------------------------

@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the model input: ``model = image * gain + pad``."""

    gain_x: float
    gain_y: float
    pad_x: int
    pad_y: int
    shape: tuple[int, int]  # original (height, width)

    @classmethod
    def fit(cls, shape: tuple[int, int], size: tuple[int, int],
            zoom_out: float = 1.0) -> Letterbox:
        """The letterbox of an image ``shape`` (h, w) into ``size`` (h, w), as ultralytics.

        ``zoom_out`` > 1 shrinks the image that many times more, centred in a
        wider grey border, as if the camera had stepped back.
        """
        h0, w0 = shape
        r = min(size[0] / h0, size[1] / w0) / zoom_out
        new_w, new_h = max(round(w0 * r), 1), max(round(h0 * r), 1)
        pad_x = round((size[1] - new_w) / 2 - 0.1)
        pad_y = round((size[0] - new_h) / 2 - 0.1)
        return cls(new_w / w0, new_h / h0, pad_x, pad_y, (h0, w0))

    @property
    def new_size(self) -> tuple[int, int]:
        """Size (w, h) of the resized image inside the border."""
        return round(self.shape[1] * self.gain_x), round(self.shape[0] * self.gain_y)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Map points ``(..., 2)`` from model input pixels back to image pixels."""
        p = np.asarray(points, dtype=np.float32).copy()
        p[..., 0] = (p[..., 0] - self.pad_x) / self.gain_x
        p[..., 1] = (p[..., 1] - self.pad_y) / self.gain_y
        return p


def letterbox(image: np.ndarray, size: tuple[int, int],
              zoom_out: float = 1.0) -> tuple[np.ndarray, Letterbox]:
    """Resize ``image`` keeping its aspect ratio and pad it to ``size`` (h, w).

    Bilinear as in ultralytics; for a shrink by more than half (a 12 MP photo
    into a 384 model) pixel-area averaging instead, which does not alias.
    ``zoom_out`` as in :meth:`Letterbox.fit`.
    """
    box = Letterbox.fit(image.shape[:2], size, zoom_out)
    new_w, new_h = box.new_size
    if (image.shape[1], image.shape[0]) != (new_w, new_h):
        interpolation = cv2.INTER_AREA if box.gain_x < 0.5 else cv2.INTER_LINEAR
        image = cv2.resize(image, (new_w, new_h), interpolation=interpolation)
    top, left = box.pad_y, box.pad_x
    bottom, right = size[0] - new_h - top, size[1] - new_w - left
    if top or bottom or left or right:
        image = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT,
                                   value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
    return image, box


#: Largest stride of the YOLO models: input sides are multiples of it.
STRIDE = 32


def _stride_ceil(value: float) -> int:
    return max(STRIDE, int(np.ceil(round(value, 3) / STRIDE)) * STRIDE)


def rect_input_size(shape: tuple[int, int], side: int) -> tuple[int, int]:
    """Input size ``(h, w)`` of a dynamic export for an image ``shape`` (h, w) scaled to
    the long side ``side`` and padded only up to the next multiple of the stride."""
    r = side / max(shape)
    return (min(side, _stride_ceil(shape[0] * r)), min(side, _stride_ceil(shape[1] * r)))


def fit_crop(crop: np.ndarray, side: int) -> np.ndarray:
    """A square crop brought to ``side`` pixels: shrunk by pixel-area averaging (as
    ultralytics' training resize, PIL's antialiased bilinear, nearly does), enlarged
    bilinearly, unchanged when it already fits."""
    if crop.shape[:2] == (side, side):
        return crop
    shrink = crop.shape[0] > side and crop.shape[1] > side
    return cv2.resize(crop, (side, side),
                      interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def fit_crops(crops: Sequence[np.ndarray], side: int) -> list[np.ndarray]:
    """``[fit_crop(c, side) for c in crops]``; crops of one size that all shrink go
    through one resize, stacked: pixel-area averaging by the same factor keeps each
    crop's rows to its own (the same pixels), and one call for a frame's 60-100 crops
    costs less than one each."""
    if len(crops) < 2 or any(c.shape != crops[0].shape for c in crops):
        return [fit_crop(c, side) for c in crops]
    h, w = crops[0].shape[:2]
    if not (h > side and w > side):
        return [fit_crop(c, side) for c in crops]
    stacked = cv2.resize(np.concatenate(crops), (side, side * len(crops)),
                         interpolation=cv2.INTER_AREA)
    return list(stacked.reshape(len(crops), side, side, *crops[0].shape[2:]))


def to_blob(images: Sequence[np.ndarray]) -> np.ndarray:
    """BGR uint8 images of one size to an RGB float32 NCHW batch in ``[0, 1]``."""
    batch = np.stack(images)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch, dtype=np.float32) / np.float32(255.0)


# -- decoding ------------------------------------------------------------------

def _candidates(output: np.ndarray, nc: int, conf_threshold: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows above the threshold: (boxes xywh, confidence, class, extra channels)."""
    pred = np.asarray(output, dtype=np.float32)
    if pred.ndim != 2 or pred.shape[0] < 4 + nc:
        raise ValueError(f"unexpected model output shape {pred.shape} for {nc} classes")
    scores = pred[4:4 + nc]
    cls = scores.argmax(axis=0)
    conf = scores[cls, np.arange(pred.shape[1])]
    keep = np.flatnonzero(conf > conf_threshold)
    if len(keep) > MAX_NMS:
        keep = keep[np.argsort(-conf[keep], kind="stable")[:MAX_NMS]]
    return pred[:4, keep].T, conf[keep], cls[keep], pred[4 + nc:, keep].T


def decode_obb(output: np.ndarray, box: Letterbox | None = None, *,
               conf_threshold: float = 0.25, iou_threshold: float = 0.7, max_det: int = 300,
               nc: int | None = None) -> Detections:
    """Detections from one image's OBB output ``(4 + nc + 1, A)``.

    Corners are in image pixels when ``box`` is given (else model pixels), in
    ultralytics' order; ``data["xywhr"]`` keeps the rotated boxes.
    """
    nc = (output.shape[0] - 5) if nc is None else nc
    xywh, conf, cls, extra = _candidates(output, nc, conf_threshold)
    if extra.shape[1] < 1:
        raise ValueError("OBB output has no angle channel")
    xywhr = np.concatenate([xywh, extra[:, -1:]], axis=1)
    shifted = xywhr.copy()
    shifted[:, :2] += cls[:, None].astype(np.float32) * MAX_WH
    keep = nms_rotated(shifted, conf, iou_threshold)[:max_det]
    xywhr, conf, cls = xywhr[keep], conf[keep], cls[keep]
    if box is not None:
        xywhr[:, 0] = (xywhr[:, 0] - box.pad_x) / box.gain_x
        xywhr[:, 1] = (xywhr[:, 1] - box.pad_y) / box.gain_y
        xywhr[:, 2] /= box.gain_x
        xywhr[:, 3] /= box.gain_y
    return Detections(xywhr_to_corners(xywhr), conf, cls, {"xywhr": xywhr})


def decode_detect(output: np.ndarray, box: Letterbox | None = None, *,
                  conf_threshold: float = 0.25, iou_threshold: float = 0.7, max_det: int = 300,
                  nc: int | None = None) -> Detections:
    """Detections from one image's detect output ``(4 + nc, A)`` (axis-aligned boxes)."""
    nc = (output.shape[0] - 4) if nc is None else nc
    xywh, conf, cls, _ = _candidates(output, nc, conf_threshold)
    xyxy = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], axis=1)
    keep = nms_boxes(xyxy + cls[:, None].astype(np.float32) * MAX_WH, conf,
                     iou_threshold)[:max_det]
    xyxy, conf, cls = xyxy[keep], conf[keep], cls[keep]
    return Detections.from_xyxy(_to_image(xyxy, box), conf, cls)


def _to_image(xyxy: np.ndarray, box: Letterbox | None) -> np.ndarray:
    """Boxes ``xyxy`` from model input pixels to the image's (in place), clipped to it."""
    if box is not None:
        xyxy[:, [0, 2]] = (xyxy[:, [0, 2]] - box.pad_x) / box.gain_x
        xyxy[:, [1, 3]] = (xyxy[:, [1, 3]] - box.pad_y) / box.gain_y
        h, w = box.shape
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
    return xyxy


def decode_detect_batch(outputs: np.ndarray, boxes: Sequence[Letterbox | None], *,
                        conf_threshold: float = 0.25, iou_threshold: float = 0.7,
                        max_det: int = 300, nc: int | None = None) -> list[Detections]:
    """``decode_detect`` of a batch ``(B, 4 + nc, A)`` at once: the same detections.

    A frame's pip model batch is a hundred crops with a few dozen candidates each:
    thresholding, ordering, overlaps and the greedy suppression are done for all
    crops together (the suppression steps through candidate ranks, not crops).
    """
    pred = np.asarray(outputs, dtype=np.float32)
    if pred.ndim != 3:
        raise ValueError(f"unexpected batch output shape {pred.shape}")
    n_crops = pred.shape[0]
    nc = (pred.shape[1] - 4) if nc is None else nc
    if pred.shape[1] < 4 + nc:
        raise ValueError(f"unexpected model output shape {pred.shape[1:]} for {nc} classes")
    if len(boxes) != n_crops:
        raise ValueError(f"{len(boxes)} letterboxes for {n_crops} outputs")
    scores = pred[:, 4:4 + nc]
    cls = scores.argmax(axis=1)  # (B, A)
    conf = np.take_along_axis(scores, cls[:, None, :], axis=1)[:, 0]
    live = conf > conf_threshold
    rank = min(max(int(live.sum(axis=1).max(initial=0)), 1), MAX_NMS)
    # best first; among equal scores, anchor order (as the stable sort of one crop)
    order = np.argsort(np.where(live, -conf, np.inf), axis=1, kind="stable")[:, :rank]
    valid = np.take_along_axis(live, order, axis=1)
    conf_k = np.take_along_axis(conf, order, axis=1)
    cls_k = np.take_along_axis(cls, order, axis=1)
    xywh = np.take_along_axis(pred[:, :4], order[:, None, :], axis=2).transpose(0, 2, 1)
    xyxy = np.concatenate([xywh[..., :2] - xywh[..., 2:] / 2,
                           xywh[..., :2] + xywh[..., 2:] / 2], axis=2)
    shifted = xyxy + cls_k[..., None].astype(np.float32) * MAX_WH
    lo = np.maximum(shifted[:, :, None, :2], shifted[:, None, :, :2])
    hi = np.minimum(shifted[:, :, None, 2:], shifted[:, None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=3)
    area = np.prod(shifted[..., 2:] - shifted[..., :2], axis=2)
    iou = inter / np.maximum(area[:, :, None] + area[:, None, :] - inter, 1e-12)
    over = iou > iou_threshold
    keep = np.zeros_like(valid)
    dropped = ~valid
    for k in range(rank):
        keep[:, k] = ~dropped[:, k]
        dropped |= over[:, k, :] & keep[:, k, None]
    results = []
    for b, box in enumerate(boxes):
        idx = np.flatnonzero(keep[b])[:max_det]
        found = _to_image(xyxy[b, idx], box)
        results.append(Detections.from_xyxy(found, conf_k[b, idx], cls_k[b, idx]))
    return results


# -- sessions ------------------------------------------------------------------

class OnnxModel:
    """An ONNX Runtime session for one YOLO export; fixed or dynamic batch."""

    def __init__(self, spec: ModelSpec, threads: int | None = None) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3
        # Idle worker threads sleep instead of spinning: on a few cores shared
        # with a camera loop and a web server, spinning doubles the run time.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads:
            options.intra_op_num_threads = threads
        try:
            self.session = ort.InferenceSession(str(spec.file), sess_options=options,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise BadInputError(str(spec.file), f"cannot load model ({exc})") from None
        self.spec = spec
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        dims = list(model_input.shape)
        #: Batch size the export insists on, or None when it is dynamic.
        self.fixed_batch: int | None = dims[0] if isinstance(dims[0], int) else None
        h = dims[2] if isinstance(dims[2], int) else spec.imgsz
        w = dims[3] if isinstance(dims[3], int) else spec.imgsz
        #: Input size (h, w): the export's, or for a dynamic one the trained size, square.
        self.size: tuple[int, int] = (int(h), int(w))
        #: Whether the export takes any input size (a multiple of the stride).
        self.dynamic_size = not (isinstance(dims[2], int) and isinstance(dims[3], int))

    def run(self, blob: np.ndarray) -> np.ndarray:
        """Raw output ``(B, C, A)`` for an input batch ``(B, 3, H, W)``."""
        n = len(blob)
        step = self.fixed_batch or n
        if n == 0:
            raise ValueError("empty batch")
        outputs = []
        for start in range(0, n, step):
            part = blob[start:start + step]
            if len(part) < step:  # pad a fixed batch with copies; results dropped
                fill = np.repeat(part[-1:], step - len(part), axis=0)
                part = np.concatenate([part, fill])
            out = self.session.run(None, {self.input_name: part})[0]
            outputs.append(out[:min(step, n - start)])
        return np.concatenate(outputs)


class _Detector:
    """One ONNX model with its class names and post-processing thresholds."""

    def __init__(self, spec: ModelSpec, *, conf_threshold: float, iou_threshold: float,
                 max_det: int, threads: int | None) -> None:
        self.model = OnnxModel(spec, threads)
        self.names = spec.names
        self.conf_threshold = conf_threshold
        self.iou_threshold = iou_threshold
        self.max_det = max_det

    @property
    def input_size(self) -> tuple[int, int]:
        """The model's input size ``(h, w)``: images are shrunk to fit it."""
        return self.model.size

    def input_for(self, shape: tuple[int, int], long_side: int | None = None) -> tuple[int, int]:
        """Input size ``(h, w)`` for an image ``shape`` (h, w).

        A fixed export takes its own size. A dynamic one takes the image scaled
        to ``long_side`` (default: the trained size) and padded only up to the
        next multiple of the stride, as ultralytics predicts: a 16:9 frame costs
        about half a square input.
        """
        if not self.model.dynamic_size:
            return self.model.size
        return rect_input_size(shape, int(long_side or max(self.model.size)))


#: Which of a look's boxes (corners ``(N, 4, 2)``, image pixels) lie on table known to be
#: bare (``vision.change.known_table``: the view there has not changed since no tile lay
#: on it): a bool array. Such a box is the table, not a tile.
BareBoxes = Callable[[np.ndarray], np.ndarray]


def off_bare(found: Detections, bare: BareBoxes | None, tile_class: int) -> Detections:
    """``found`` without the ``tile_class`` boxes that ``bare`` says lie on bare table."""
    if bare is None or not len(found):
        return found
    drop = np.asarray(bare(found.corners), bool) & (found.class_id == tile_class)
    return found[~drop] if drop.any() else found


class ObbDetector(_Detector):
    """Whole-frame oriented-box detector (the ``tiles`` model)."""

    def __init__(self, spec: ModelSpec, *, conf_threshold: float = 0.25,
                 iou_threshold: float = 0.7, max_det: int = 300,
                 threads: int | None = None,
                 class_thresholds: dict[int, float] | None = None) -> None:
        super().__init__(spec, conf_threshold=conf_threshold, iou_threshold=iou_threshold,
                         max_det=max_det, threads=threads)
        #: Score floors of classes that keep boxes below ``conf_threshold`` (class id ->
        #: floor); every other class keeps ``conf_threshold``.
        self.class_thresholds = dict(class_thresholds or {})

    @property
    def tile_class(self) -> int:
        """The class of tiles (``tile``; the first when none is so named)."""
        return self.names.index("tile") if "tile" in self.names else 0

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None, bare: BareBoxes | None = None) -> Detections:
        """Detections in ``image`` pixels; ``zoom_out`` > 1 looks at it from further away;
        ``long_side`` sets the input size of a dynamic export (see :meth:`input_for`);
        ``bare``: which boxes lie on table known to be bare, no tiles (:func:`off_bare`).

        ``metadata["gain"]`` is the scale from image to model input pixels.
        """
        return off_bare(self.unchecked(image, zoom_out, long_side), bare, self.tile_class)

    def unchecked(self, image: np.ndarray, zoom_out: float = 1.0,
                  long_side: int | None = None) -> Detections:
        """:meth:`__call__` as the model gives it, whatever a subclass judges of the boxes
        (``vision.models.tile_check``): for a look that keeps only its markers."""
        size = self.input_for(image.shape[:2], long_side if zoom_out == 1.0 else None)
        padded, box = letterbox(image, size, zoom_out)
        output = self.model.run(to_blob([padded]))[0]
        floor = min([self.conf_threshold, *self.class_thresholds.values()])
        detections = decode_obb(output, box, conf_threshold=floor,
                                iou_threshold=self.iou_threshold, max_det=self.max_det,
                                nc=len(self.names))
        if floor < self.conf_threshold and len(detections):
            need = np.array([self.class_thresholds.get(int(c), self.conf_threshold)
                             for c in detections.class_id], np.float32)
            detections = detections[detections.confidence > need]
        detections.metadata.update(names=self.names, shape=image.shape[:2],
                                   gain=float(min(box.gain_x, box.gain_y)))
        return detections

    def detect_window(self, image: np.ndarray, window: tuple[int, int, int, int],
                      gain: float, core: tuple[float, float, float, float] | None = None,
                      bare: BareBoxes | None = None) -> Detections:
        """Detections in the part ``window`` (x0, y0, x1, y1) of ``image``, in ``image``
        pixels, the part scaled by ``gain`` (model input pixels per image pixel: the
        scale of a look at the whole image, so that objects keep the size the model
        sees them at there); with ``core`` (x0, y0, x1, y1), only those centred in it.
        Needs a dynamic export; a window whose sides times ``gain`` are multiples of
        the stride is not padded; ``bare`` as in :meth:`__call__`."""
        return off_bare(self.unchecked_window(image, window, gain, core), bare,
                        self.tile_class)

    def unchecked_window(self, image: np.ndarray, window: tuple[int, int, int, int],
                         gain: float, core: tuple[float, float, float, float] | None = None
                         ) -> Detections:
        """:meth:`detect_window` as the model gives it (see :meth:`unchecked`)."""
        x0, y0, x1, y1 = window
        crop = image[y0:y1, x0:x1]
        found = self.unchecked(crop, long_side=_stride_ceil(max(crop.shape[:2]) * gain))
        found.corners += np.array([x0, y0], np.float32)
        if "xywhr" in found.data:
            found.data["xywhr"][:, :2] += np.array([x0, y0], found.data["xywhr"].dtype)
        found.metadata.update(shape=image.shape[:2])
        if core is None or not len(found):
            return found
        c = found.center
        return found[(c[:, 0] >= core[0]) & (c[:, 0] < core[2])
                     & (c[:, 1] >= core[1]) & (c[:, 1] < core[3])]


class BoxDetector(_Detector):
    """Axis-aligned detector run on a batch of small crops (the ``pips`` model)."""

    def __init__(self, spec: ModelSpec, *, conf_threshold: float = 0.25,
                 iou_threshold: float = 0.5, max_det: int = 100,
                 threads: int | None = None) -> None:
        super().__init__(spec, conf_threshold=conf_threshold, iou_threshold=iou_threshold,
                         max_det=max_det, threads=threads)

    def __call__(self, crops: Sequence[np.ndarray]) -> list[Detections]:
        """One ``Detections`` per crop; all crops go through the model in one batch."""
        if not crops:
            return []
        padded, boxes = zip(*(letterbox(c, self.model.size) for c in crops), strict=True)
        outputs = self.model.run(to_blob(padded))
        return decode_detect_batch(outputs, boxes, conf_threshold=self.conf_threshold,
                                   iou_threshold=self.iou_threshold, max_det=self.max_det,
                                   nc=len(self.names))


class Classifier:
    """Whole-crop classifier run on a batch of crops (the ``halves`` model): each
    crop's class probabilities. Crops of another size are resized to the model's
    (a classify export takes its trained size, as ultralytics resizes and centre-crops)."""

    def __init__(self, spec: ModelSpec, threads: int | None = None) -> None:
        self.model = OnnxModel(spec, threads)
        self.names = spec.names

    def __call__(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """Probabilities ``(len(crops), nc)``, rows summing to 1."""
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        h, w = self.model.size
        sized = fit_crops(crops, w) if h == w else [
            cv2.resize(c, (w, h), interpolation=cv2.INTER_LINEAR) for c in crops]
        probs = np.asarray(self.model.run(to_blob(sized)), np.float32)
        if probs.ndim != 2 or probs.shape[1] != len(self.names):
            raise ValueError(f"unexpected classifier output shape {probs.shape} "
                             f"for {len(self.names)} classes")
        return probs


def class_counts(names: Sequence[str], where: str) -> np.ndarray:
    """The counts a count classifier's classes stand for: its class names, ``00``-``18``."""
    try:
        counts = np.array([int(name) for name in names])
    except ValueError:
        counts = np.zeros(0, int)
    if not len(counts) or counts.min() < 0 or len(set(counts.tolist())) < len(counts):
        raise BadInputError(where, "the halves model's classes must be pip counts "
                            f"(00, 01, ...), not {list(names)}")
    return counts

