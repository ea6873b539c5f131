"""Reading on surfaces people play on: phantom tiles, real tiles, and nothing lost.

    .venv/bin/python -m benchmarks.realism [--empty N] [--tables N] [--limit N]
        [--parts checks,empty_with_bare,eval,real]

Writes its sections of ``benchmarks/results/realism.json`` (``calibration`` is
``benchmarks/calibration.py``'s and ``table_reading`` ``benchmarks/realism_tables.py``'s,
kept as they are). Every scene is rendered at run time
from seeds never used to tune the tile check (``vision.models.tile_check``: seeds
501-506) nor to train: ``EMPTY_SEED``, ``TABLE_SEED``. Parts:

- **empty**: webcam frames of each surface of ``datasets.surfaces`` with no
  domino on it (sometimes cards, a cup, an arm), ``--empty`` per surface (default
  4: 32 frames), read as ``mtrain read`` reads a frame
  (``vision.stills.table_photo.read_table``). Every tile read is a phantom (target
  0); also the tile boxes the detector gives at its trained size before the check
  (``boxes_unchecked``).
- **empty with bare** (``empty_with_bare``, ``empty_more_surfaces_with_bare``): the
  same empty frames, and those of the other surfaces (``MORE_SURFACES``: marble,
  wood; ``empty_more_surfaces``), read as ``mtrain read IMAGE --empty
  EMPTY`` reads them, the photo of the bare table a second shot by hand
  (``bare_shot``: turned, moved, scaled a little, exposed otherwise, its own noise).
  Every tile read is a phantom (target 0); shots that do not register are counted
  (``mtrain read`` then says so and reads nothing).
- **tables**: a Mexican Train table on each surface, ``--tables`` per surface
  (default 2), read as ``mtrain read`` reads a frame (``vision.stills.table_photo.read_table``),
  for the set in play: phantom tiles (a tile read where no tile lies: polygon IoU
  under 0.3 with every labelled tile and back; target 0), tiles found (IoU >= 0.5,
  one to one) and read right (both values, either order), whole frames exact
  (every tile found and read right, no phantom) and whole tables exact (the
  table read has the engine and the trains' tile sequences of the laid table,
  seats aside); ``tables_unchecked``: the same frames read without the check.
- **eval** (``datasets/eval/``): ``benchmarks/vision.py``'s synthetic figures
  (recall, precision, tile-exact; tables as frames, hands as ``mtrain score``
  reads them) with the tile check and without it: what the check costs on the
  painter's normal scenes.
- **real** (``../shared/realdata/detect`` when present; evaluation only, never
  tuned on): tiles read, labelled, found and phantoms, with and without the check.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from datasets.render import render_empty, render_table, scene_rng
from datasets.surfaces import MORE_SURFACES, SURFACES
from vision.images import load_image
from vision.models.detections import match_boxes, polygon_iou
from vision.reading.reader import TileReader

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "realism.json"
EVAL = ROOT / "datasets" / "eval"
REALDATA = ROOT.parent / "shared" / "realdata"
#: Held-out seeds: never used to tune ``vision.models.tile_check`` (501-506), nor to train.
EMPTY_SEED = 7301
TABLE_SEED = 7302
#: A read tile overlapping every labelled tile (and back) less than this is a phantom.
PHANTOM_IOU = 0.3


def rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def empty_frames(reader: TileReader, plain: TileReader, per_surface: int,
                 surfaces: tuple[str, ...] = SURFACES) -> dict[str, Any]:
    from vision.stills.table_photo import read_table

    by_surface: dict[str, dict[str, int]] = {}
    for k in range(per_surface * len(surfaces)):
        surface = surfaces[k % len(surfaces)]
        scene = render_empty(scene_rng(EMPTY_SEED, k), surface)
        scene_reader = reader.for_set(scene.set_size)
        frame, _ = read_table(scene_reader.read(scene.image), 4, scene.image, scene_reader)
        unchecked = plain.detector(scene.image)
        row = by_surface.setdefault(surface, {"frames": 0, "tiles": 0, "doubted": 0,
                                              "frames_with_tiles": 0, "boxes_unchecked": 0})
        row["frames"] += 1
        row["tiles"] += len(frame.tiles)
        row["doubted"] += sum(t.doubt is not None for t in frame.tiles.each())
        row["frames_with_tiles"] += int(bool(frame.tiles))
        row["boxes_unchecked"] += int(np.sum(unchecked.class_id == plain.tile_class))
    total = {key: sum(r[key] for r in by_surface.values())
             for key in ("frames", "tiles", "doubted", "frames_with_tiles", "boxes_unchecked")}
    return {**total, "by_surface": by_surface}


#: How the bare-table shot of ``empty_frames_with_bare`` differs from the frame read: a
#: phone held again (turned, moved, scaled a little), exposed otherwise, its own noise.
BARE_TURN_DEG = 1.5
BARE_SHIFT_PX = (9.0, -6.0)
BARE_SCALE = 1.015
BARE_GAIN = 0.92
BARE_NOISE = 3.0


def bare_shot(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``image`` shot again by hand (``BARE_*``; ``datasets.composite.pairs.Shot``): the
    photo of the bare table."""
    import cv2

    from datasets.composite.pairs import Shot

    h, w = image.shape[:2]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), BARE_TURN_DEG, BARE_SCALE)
    matrix[:, 2] += np.array(BARE_SHIFT_PX)
    # the shot's homography maps its pixels to the image's
    shot = Shot(np.linalg.inv(np.vstack([matrix, [0.0, 0.0, 1.0]])), BARE_GAIN)
    seen = shot.take(image) + rng.normal(0, BARE_NOISE, image.shape)
    return np.clip(seen, 0, 255).astype(np.uint8)


def empty_frames_with_bare(reader: TileReader, per_surface: int,
                           surfaces: tuple[str, ...] = SURFACES) -> dict[str, Any]:
    """The empty frames of :func:`empty_frames` read as ``mtrain read IMAGE --empty EMPTY``
    reads them (``vision.stills.table_photo.read_photo`` with the bare photo), the photo
    of the bare table shot again by hand (:func:`bare_shot`): tiles read (target 0),
    and the frames whose bare shot did not register (``mtrain read`` then says so and
    reads nothing)."""
    from engine.errors import BadInputError
    from vision.stills.bare_photo import BarePhoto
    from vision.stills.table_photo import read_photo

    by_surface: dict[str, dict[str, int]] = {}
    for k in range(per_surface * len(surfaces)):
        surface = surfaces[k % len(surfaces)]
        scene = render_empty(scene_rng(EMPTY_SEED, k), surface)
        row = by_surface.setdefault(surface, {"frames": 0, "tiles": 0, "doubted": 0,
                                              "not_registered": 0})
        row["frames"] += 1
        shot = bare_shot(scene.image, np.random.default_rng([EMPTY_SEED, k]))
        try:
            bare = BarePhoto(shot, scene.image, "bare shot")
        except BadInputError:
            row["not_registered"] += 1
            continue
        frame, _ = read_photo(reader.for_set(scene.set_size), scene.image, 4, bare)
        row["tiles"] += len(frame.tiles)
        row["doubted"] += sum(t.doubt is not None for t in frame.tiles.each())
    total = {key: sum(r[key] for r in by_surface.values())
             for key in ("frames", "tiles", "doubted", "not_registered")}
    taken = {"turn_deg": BARE_TURN_DEG, "shift_px": list(BARE_SHIFT_PX), "scale": BARE_SCALE,
             "gain": BARE_GAIN, "noise": BARE_NOISE}
    return {**total, "bare_shot": taken, "by_surface": by_surface}


def _phantoms(read: np.ndarray, there: np.ndarray) -> int:
    """How many boxes ``read`` ``(N, 4, 2)`` overlap every box ``there`` less than
    ``PHANTOM_IOU``."""
    if not len(read):
        return 0
    if not len(there):
        return len(read)
    return int(np.sum(polygon_iou(read, there).max(axis=1) < PHANTOM_IOU))


def _trains(table: dict[str, Any]) -> tuple[int, list[list[list[int]]]]:
    trains = sorted([[list(map(int, t)) for t in train["tiles"]]
                     for train in table.get("trains", []) if train["tiles"]])
    return int(table.get("engine", -1)), trains


def table_frames(reader: TileReader, per_surface: int) -> dict[str, Any]:
    from vision.stills.table_photo import read_table

    by_surface: dict[str, dict[str, int]] = {}
    for k in range(per_surface * len(SURFACES)):
        surface = SURFACES[k % len(SURFACES)]
        scene = render_table(scene_rng(TABLE_SEED, k), surface=surface)
        scene_reader = reader.for_set(scene.set_size)
        players = 1 + max((int(t["owner"]) for t in (scene.table or {}).get("trains", [])
                           if t["owner"] != "mexican"), default=3)
        frame, table = read_table(scene_reader.read(scene.image), players, scene.image,
                                  scene_reader)
        truth = np.array([t.corners for t in scene.tiles], np.float32).reshape(-1, 4, 2)
        backs = np.array([t.corners for t in scene.face_down], np.float32).reshape(-1, 4, 2)
        read = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
        pairs = match_boxes(truth, read, 0.5)
        right = sum(sorted(frame.tiles.reading(j).values) == sorted(scene.tiles[i].values)
                    for i, j in pairs)
        phantoms = _phantoms(read, np.concatenate([truth, backs]).reshape(-1, 4, 2))
        state = getattr(table, "table", None)
        exact_table = (state is not None and scene.table is not None
                       and _trains(dict(state.to_json())) == _trains(scene.table))
        row = by_surface.setdefault(surface, {"frames": 0, "tiles": 0, "found": 0,
                                              "read_right": 0, "phantoms": 0,
                                              "frames_exact": 0, "tables_exact": 0})
        row["frames"] += 1
        row["tiles"] += len(truth)
        row["found"] += len(pairs)
        row["read_right"] += right
        row["phantoms"] += phantoms
        row["frames_exact"] += int(right == len(truth) and not phantoms)
        row["tables_exact"] += int(exact_table)
    total = {key: sum(r[key] for r in by_surface.values())
             for key in ("frames", "tiles", "found", "read_right", "phantoms",
                         "frames_exact", "tables_exact")}
    return {**total, "recall": rate(total["found"], total["tiles"]),
            "tile_exact": rate(total["read_right"], total["tiles"]), "by_surface": by_surface}


def eval_figures(reader: TileReader, limit: int | None) -> dict[str, Any]:
    from benchmarks.vision_synthetic import synthetic

    figures = synthetic(reader, EVAL, limit)
    keep = ("images", "tiles", "read", "recall", "precision", "tile_exact", "hand_total_exact")
    return {**{key: figures[key] for key in keep},
            "by_kind": {kind: {"recall": v["recall"], "tile_exact": v["tile_exact"]}
                        for kind, v in figures["by_kind"].items()}}


def real_detect(reader: TileReader, folder: Path) -> dict[str, Any]:
    """Photos with labelled tile boxes (axis-aligned): tiles read, found, phantoms."""
    labelled = found = n_read = phantoms = 0
    for path in sorted(folder.glob("*.jpg")):
        image = load_image(path)
        h, w = image.shape[:2]
        frame = reader.for_set(None).read(image)
        truth = []
        for line in path.with_suffix(".txt").read_text().splitlines():
            parts = line.split()
            if len(parts) == 5:
                cx, cy, bw, bh = (float(v) for v in parts[1:])
                x0, y0, x1, y1 = (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, \
                    (cy + bh / 2) * h
                truth.append([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        boxes = np.array(truth, np.float32).reshape(-1, 4, 2)
        bounds = []
        for t in frame.tiles.each():
            (x0, y0), (x1, y1) = t.corners.min(0), t.corners.max(0)
            bounds.append([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        read = np.array(bounds, np.float32).reshape(-1, 4, 2)
        labelled += len(boxes)
        n_read += len(read)
        found += len(match_boxes(boxes, read, 0.5))
        phantoms += _phantoms(read, boxes)
    return {"tiles": labelled, "read": n_read, "found": found, "phantoms": phantoms}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=None, help="models folder (default models/)")
    parser.add_argument("--empty", type=int, default=4, help="empty frames per surface")
    parser.add_argument("--tables", type=int, default=2, help="tables per surface")
    parser.add_argument("--limit", type=int, default=None, help="at most N eval scenes")
    parser.add_argument("--realdata", default=str(REALDATA))
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="comma-separated parts to run (the others' sections are kept)")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    checked = TileReader(args.models)
    plain = TileReader(args.models, check_tiles=False)
    results: dict[str, Any] = {"seeds": {"empty": EMPTY_SEED, "tables": TABLE_SEED},
                               "surfaces": list(SURFACES)}
    t0 = time.perf_counter()
    if "checks" in parts:
        results["checks"] = {}
        for mode, reader in check_modes(args.models, checked).items():
            results["checks"][mode] = {"empty": empty_frames(reader, plain, args.empty),
                                       "tables": table_frames(reader, args.tables)}
            if reader is checked:
                results["default_check"] = mode
                results["empty"] = results["checks"][mode]["empty"]
                results["tables"] = results["checks"][mode]["tables"]
        results["empty_more_surfaces"] = empty_frames(checked, plain, args.empty,
                                                      MORE_SURFACES)
        results["tables_unchecked"] = table_frames(plain, args.tables)
    if "empty_with_bare" in parts:
        results["empty_with_bare"] = empty_frames_with_bare(checked, args.empty)
        results["empty_more_surfaces_with_bare"] = empty_frames_with_bare(
            checked, args.empty, MORE_SURFACES)
    if "eval" in parts:
        results["eval"] = {"checked": eval_figures(checked, args.limit),
                           "unchecked": eval_figures(plain, args.limit)}
    real_dir = Path(args.realdata) / "detect"
    if "real" in parts and real_dir.is_dir():
        results["real_detect"] = {"checked": real_detect(checked, real_dir),
                                  "unchecked": real_detect(plain, real_dir)}
    if parts >= set(PARTS):
        results["seconds"] = round(time.perf_counter() - t0, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # other sections (``calibration``, ``table_reading``) are kept as they are
    kept = json.loads(out.read_text()) if out.exists() else {}
    out.write_text(json.dumps({**kept, **results}, indent=1) + "\n")
    print(summary({**kept, **results}))
    print(f"[realism] results in {out}")
    return 0


#: The parts ``--parts`` names (see the module's notes).
PARTS = ("checks", "empty_with_bare", "eval", "real")


def check_modes(models: str | None, default: TileReader) -> dict[str, TileReader]:
    """The tile checks compared (``vision.models.tile_check``): the looks alone, the domino
    check alone (``vision.models.domino_check``), both; the reader's default is ``default``."""
    looks, verifier = default.tile_looks, default.domino_check is not None
    modes = {"looks": (True, False), "verifier": (False, True), "both": (True, True)}
    return {mode: default if (lk, vf) == (looks, verifier)
            else TileReader(models, tile_looks=lk, verify_tiles=vf)
            for mode, (lk, vf) in modes.items()}


def summary(r: dict[str, Any]) -> str:
    """The results ``r`` in a few lines: the parts it holds (``--parts`` runs some only)."""
    lines = []
    if "empty" in r and "tables" in r:
        e, t = r["empty"], r["tables"]
        lines += [
            f"[realism] empty surfaces: {e['tiles']} tiles read in {e['frames']} frames "
            f"({e['frames_with_tiles']} frames with any; {e['boxes_unchecked']} boxes "
            "unchecked)",
            f"[realism] tables on surfaces: {t['phantoms']} phantoms, found {t['found']}/"
            f"{t['tiles']}, read right {t['read_right']}, frames exact {t['frames_exact']}/"
            f"{t['frames']}, tables exact {t['tables_exact']}/{t['frames']} "
            f"(unchecked: {r['tables_unchecked']['phantoms']} phantoms, found "
            f"{r['tables_unchecked']['found']})"]
    lines += [f"[realism] check {mode}: empty {c['empty']['tiles']} tiles "
              f"({c['empty']['doubted']} doubted), tables {c['tables']['phantoms']} "
              f"phantoms, found {c['tables']['found']}, read right "
              f"{c['tables']['read_right']}, tables exact {c['tables']['tables_exact']}"
              for mode, c in r.get("checks", {}).items()]
    if "empty_with_bare" in r:
        b = r["empty_with_bare"]
        lines.append(f"[realism] empty surfaces read with a bare-table shot (--empty): "
                     f"{b['tiles']} tiles in {b['frames']} frames ({b['not_registered']} "
                     "shots did not register)")
    if "eval" in r:
        ev_c, ev_u = r["eval"]["checked"], r["eval"]["unchecked"]
        lines.append(f"[realism] eval with check: recall {ev_c['recall']} tile-exact "
                     f"{ev_c['tile_exact']}; without: recall {ev_u['recall']} tile-exact "
                     f"{ev_u['tile_exact']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
