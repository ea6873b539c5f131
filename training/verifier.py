"""``mtrain train --which verifier``: the domino check (``vision.models.domino_check``).

A plain torch network, small enough to train on two CPU cores in minutes: four
3x3 convolutions (16, 32, 48, 64 channels, each with batch norm and ReLU; the first
with stride 2, the others followed by a 2x2 max pool), global average and max
pooling, one linear layer to ``face``, ``back``, ``not``; about 50 k parameters on a
48x80 crop (``vision.models.domino_check.CROP_SIZE``). Data:
``datasets.verifier_crops`` (train seed ``SEEDS["verifier-train"]``, validation
``SEEDS["verifier-val"]``), cached in ``data/verifier/``. Each training crop is flipped
either way at random (a box's first end is either end) and its brightness, contrast
and colour are varied a little. The loss weighs each class by the inverse of its
share. Exported to ONNX (float, softmax included, any batch) and installed as
``models/verifier.onnx`` with its ``models.json`` and ``training.json`` entries.

With ``composite`` frames and sprite folders (``mtrain train --which verifier
--composite-crops N --sprites DIR``), the crops of ``N`` frames composited from the
sprites (``datasets.composite.box_crops``, seed ``SEEDS["verifier-composite-train"]``;
validation ``N / 10`` frames of ``SEEDS["verifier-composite-val"]``) join the painter's,
cached by seed, count and sprite folders. With ``init`` (``--init models/verifier.pt``)
the network starts from those weights, at a third of the learning rate.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from datasets.composite.box_crops import composite_box_set
from datasets.verifier_crops import verifier_set
from training.fit import _merge_json
from vision.models.domino_check import CLASSES, CROP_SIZE

SEEDS = {"verifier-train": 140, "verifier-val": 240, "verifier-composite-train": 170,
         "verifier-composite-val": 270}
#: Scenes of the validation set (at most; a quarter of the training scenes when fewer).
VAL_SCENES = 240
LR = 3e-3
CHANNELS = (16, 32, 48, 64)


def _network() -> Any:
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers: list[nn.Module] = []
            ch = 3
            for k, out in enumerate(CHANNELS):
                layers += [nn.Conv2d(ch, out, 3, stride=2 if k == 0 else 1, padding=1,
                                     bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True)]
                if k:
                    layers.append(nn.MaxPool2d(2))
                ch = out
            self.features = nn.Sequential(*layers)
            self.head = nn.Linear(2 * ch, len(CLASSES))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            f = self.features(x)
            pooled = torch.cat([f.mean(dim=(2, 3)), f.amax(dim=(2, 3))], dim=1)
            return self.head(pooled)

    return Net()


class _Softmax:
    """The trained network with its softmax: what the ONNX export returns."""

    @staticmethod
    def wrap(net: Any) -> Any:
        import torch
        from torch import nn

        class WithSoftmax(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return torch.softmax(self.net(x), dim=1)

        return WithSoftmax()


def _cached(data: Path, name: str, seed: int, count: int, jobs: int,
            sprites: Sequence[Path] = ()) -> tuple[np.ndarray, np.ndarray]:
    """The painter's crops of ``count`` scenes of ``seed`` or, with ``sprites``, the
    composited frames' crops; made once, then read from ``data/verifier/``."""
    folders = sorted(str(Path(f).resolve()) for f in sprites)
    tag = f"-{hashlib.sha1(' '.join(folders).encode()).hexdigest()[:8]}" if folders else ""
    path = data / "verifier" / f"{name}-{seed}-{count}{tag}.npz"
    if path.is_file():
        with np.load(path) as z:
            return z["crops"], z["labels"]
    crops, labels = (composite_box_set(folders, seed, count, jobs=jobs) if folders
                     else verifier_set(seed, count, jobs=jobs))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, crops=crops, labels=labels)
    return crops, labels


def _blob(crops: np.ndarray) -> Any:
    """BGR uint8 ``(N, H, W, 3)`` to the RGB float NCHW the reader feeds
    (``vision.models.onnx_models.to_blob``)."""
    import torch

    x = np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2))
    return torch.from_numpy(x).float().div_(255.0)


def _augment(x: Any, gen: Any) -> Any:
    import torch

    n = x.shape[0]
    flip_v = torch.rand(n, generator=gen) < 0.5
    flip_h = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip_v[:, None, None, None], x.flip(2), x)
    x = torch.where(flip_h[:, None, None, None], x.flip(3), x)
    gain = 1 + (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.5
    tint = 1 + (torch.rand(n, 3, 1, 1, generator=gen) - 0.5) * 0.16
    shift = (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.2
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    return ((x - mean) * gain + mean + shift) * tint


def _accuracy(net: Any, crops: np.ndarray, labels: np.ndarray) -> dict[str, Any]:
    import torch

    net.eval()
    preds = []
    with torch.no_grad():
        for start in range(0, len(crops), 512):
            preds.append(net(_blob(crops[start:start + 512])).argmax(1).numpy())
    pred = np.concatenate(preds)
    confusion = np.zeros((len(CLASSES), len(CLASSES)), int)
    np.add.at(confusion, (labels, pred), 1)
    return {"accuracy": round(float(np.mean(pred == labels)), 4),
            "confusion": {c: dict(zip(CLASSES, map(int, row), strict=True))
                          for c, row in zip(CLASSES, confusion, strict=True)}}


def _data(count: int, composite: int, sprites: Sequence[Path], data: Path, jobs: int
          ) -> tuple[tuple[np.ndarray, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The training crops and labels, and the validation sets by name."""
    val_scenes = min(VAL_SCENES, max(count // 4, 4))
    train = _cached(data, "train", SEEDS["verifier-train"], count, jobs)
    val = {"painter": _cached(data, "val", SEEDS["verifier-val"], val_scenes, jobs)}
    if composite:
        more = _cached(data, "composite", SEEDS["verifier-composite-train"], composite, jobs,
                       sprites)
        train = (np.concatenate([train[0], more[0]]), np.concatenate([train[1], more[1]]))
        val["composite"] = _cached(data, "composite-val", SEEDS["verifier-composite-val"],
                                   max(composite // 10, 2), jobs, sprites)
    return train, val


def _describe(count: int, composite: int, sprites: Sequence[Path],
              train_y: np.ndarray, val: dict[str, tuple[np.ndarray, np.ndarray]]) -> str:
    by_class = dict(zip(CLASSES, map(int, np.bincount(train_y, minlength=3)), strict=True))
    val_scenes = min(VAL_SCENES, max(count // 4, 4))
    text = (f"verifier crops: train seed {SEEDS['verifier-train']}, {count} scenes"
            + (f" + composited frames (datasets.composite.box_crops) seed "
               f"{SEEDS['verifier-composite-train']}, {composite} frames of "
               f"{', '.join(str(f) for f in sprites)}" if composite else "")
            + f": {len(train_y)} crops {by_class}; val seed {SEEDS['verifier-val']}, "
            f"{val_scenes} scenes, {len(val['painter'][1])} crops")
    if "composite" in val:
        text += (f"; composited val seed {SEEDS['verifier-composite-val']}, "
                 f"{max(composite // 10, 2)} frames, {len(val['composite'][1])} crops")
    return text


def train_verifier(count: int, epochs: int, models: Path, data: Path, runs: Path,
                   threads: int = 2, jobs: int = 2, command: str = "", composite: int = 0,
                   sprites: Sequence[Path] = (), init: Path | None = None) -> dict[str, Any]:
    """Make the data, train, export and install ``models/verifier.onnx``; returns the
    ``training.json`` entry."""
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    start = time.time()
    (train_x, train_y), val = _data(count, composite, sprites, data, jobs)
    data_s = time.time() - start
    net = _network()
    if init is not None:
        net.load_state_dict(torch.load(init, map_location="cpu"))
    lr = LR / 3 if init is not None else LR
    share = np.bincount(train_y, minlength=len(CLASSES)) / len(train_y)
    weight = torch.tensor(1.0 / (len(CLASSES) * np.maximum(share, 1e-3)), dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    batch = 128
    steps = epochs * ((len(train_x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    log = runs / "verifier" / "log.txt"
    log.parent.mkdir(parents=True, exist_ok=True)
    labels_t = torch.from_numpy(train_y)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(train_x), generator=gen).numpy()
        total = 0.0
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            x = _augment(_blob(train_x[idx]), gen)
            loss = loss_fn(net(x), labels_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        scores = {name: _accuracy(net, x, y) for name, (x, y) in val.items()}
        with log.open("a") as f:
            f.write(f"epoch {epoch + 1}/{epochs} loss {total / len(order):.4f} "
                    f"val {json.dumps(scores)} {time.time() - start:.0f}s\n")
    train_s = time.time() - start - data_s
    models.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), models / "verifier.pt")
    onnx_path = models / "verifier.onnx"
    export = _Softmax.wrap(net).eval()
    torch.onnx.export(export, _blob(val["painter"][0][:2]), str(onnx_path),
                      input_names=["images"], output_names=["output0"],
                      dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
                      opset_version=17, dynamo=False)
    info = {
        "command": command,
        "data": _describe(count, composite, sprites, train_y, val),
        "device": "cpu", "epochs": epochs, "batch": batch, "lr0": lr, "threads": threads,
        "imgsz": CROP_SIZE[1], "input": f"{CROP_SIZE[0]}x{CROP_SIZE[1]}",
        "parameters": int(sum(p.numel() for p in net.parameters())),
        "data_seconds": round(data_s), "train_seconds": round(train_s),
        "val_metrics": _accuracy(net, *val["painter"]),
    }
    if "composite" in val:
        info["val_metrics_composite"] = _accuracy(net, *val["composite"])
    if init is not None:
        info["init"] = str(init)
    _merge_json(models / "models.json", {"verifier": {
        "file": "verifier.onnx", "imgsz": CROP_SIZE[1], "names": list(CLASSES),
        "task": "classify"}})
    _merge_json(models / "training.json", {"verifier": info})
    return info
