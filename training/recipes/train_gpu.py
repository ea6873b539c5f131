"""A training run on a GPU machine within a time budget (see models/README.md).

Generates the scenes (tiles) or crops (pips) with every core
(``training.tile_dataset``, ``pip_dataset``), trains
the model from ``models/WHICH.pt`` on the GPU inside what is left of a time
budget (ultralytics' time mode), and copies ``WHICH.pt``, ``results.csv`` and
``info.json`` to ``$OUT``. Export, install and evaluation then run on the CPU.

usage, from the repository root:
    PYTHONPATH=$SITE:training/recipes/polars_stub \
        python3 training/recipes/train_gpu.py BUDGET_SECONDS COUNT IMGSZ EPOCHS DEVICE [WHICH]

where ``$SITE`` holds ultralytics 8.4.190, ultralytics-thop and ultralytics-platform
installed with ``--no-deps`` (the machine had torch, OpenCV and the rest), and the
polars stub stands in for the 54 MB polars wheel that ultralytics only uses to read
back ``results.csv``. The shipped tile detector's last 30 epochs ran as
``535 4500 640 40 0`` (tiles).
"""
import json
import os
import shutil
import sys
import time
from pathlib import Path

t0 = time.time()
budget, count, imgsz, epochs, device = (float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                        int(sys.argv[4]), sys.argv[5])
which = sys.argv[6] if len(sys.argv) > 6 else "tiles"
out = Path(os.environ.get("OUT", "/tmp/devout"))
out.mkdir(parents=True, exist_ok=True)
work = Path(os.environ.get("DEVWORK", "/tmp/mt"))
sys.path.insert(0, os.getcwd())
import training as T  # noqa: E402

T.setup_offline(work)
jobs = os.cpu_count() or 2
init = Path(f"models/{which}.pt")
plan = T.Plan(tile_count=count, pip_count=count, imgsz=imgsz, jobs=jobs, init=str(init))
make = T.tile_dataset if which == "tiles" else T.pip_dataset
yaml = make(work / "data", plan)
gen = time.time() - t0
print(f"generated in {gen:.0f} s", flush=True)
# kept back for caching, the final validation (twice) and copying
left = budget - (time.time() - t0) - (100 if which == "tiles" else 45)
hours = max(left, 30) / 3600
try:
    best, metrics, secs, ran = T.train_model(
        which, yaml, epochs, imgsz, work / "runs", threads=8, hours=hours,
        init=init, device=device, workers=max(1, jobs - 2),
    )
except Exception:  # e.g. loader workers without shared memory: again, loading in-process
    import traceback

    traceback.print_exc()
    left = budget - (time.time() - t0) - 100
    hours = max(left, 30) / 3600
    best, metrics, secs, ran = T.train_model(
        which, yaml, epochs, imgsz, work / "runs2", threads=8, hours=hours,
        init=init, device=device, workers=0,
    )
info = {"which": which, "count": count, "imgsz": imgsz, "epochs_planned": epochs, "epochs": ran,
        "hours": round(hours, 4), "train_seconds": round(secs), "generate_seconds": round(gen),
        "device": device, "jobs": jobs, "val_metrics": {k: round(v, 4) for k, v in metrics.items()},
        "total_seconds": round(time.time() - t0)}
print(json.dumps(info), flush=True)
shutil.copyfile(best, out / f"{which}.pt")
last = best.parent / "last.pt"
if last.exists() and last != best:
    shutil.copyfile(last, out / f"{which}-last.pt")
csv = best.parent.parent / "results.csv"
if csv.exists():
    shutil.copyfile(csv, out / "results.csv")
(out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
