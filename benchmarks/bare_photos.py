"""Single photos with and without a photo of the bare table (``mtrain read/score --empty``).

    .venv/bin/python -m benchmarks.bare_photos [--pairs N] [--hands N] [--models DIR]

Pairs of hand-held stills composed from rendered sprites (``datasets.composite.pairs``,
seed ``SEED``; the sprites as ``benchmarks.hands`` takes them): the bare table, then the
table with tiles, the second shot moved, turned, scaled and tilted a little and exposed
otherwise, on each surface of ``PAIR_SURFACES``, with and without the printed mat. Each
table photo is read as ``mtrain read IMAGE --players N --rule set=S`` reads it (its own
set, double-6 to double-15: a reader told double-12 reads a 13 to 15 as at most 12)
(``vision.stills.table_photo.read_photo``), then with ``--empty`` (the bare photo,
``vision.stills.bare_photo.BarePhoto``), and scored per surface: tiles read right (a
labelled tile matched one to one by a read tile at polygon IoU >= 0.5 with the same two
values), tiles missed (no read tile matched), phantom tiles (read tiles matching no
labelled tile; those on a face-down tile counted apart; of them, those on bare table:
covered by tiles, face-down tiles and markers for less than ``ON_BARE_BELOW`` of their
area, the ones a bare photo is for; and those read without doubt, ``phantom_sure``,
on face-down tiles too: the reader marks the rest as questions for the user), and how
the bare photo
registered (the way, the residual, the error against the shot's own homography: on a
repeating cloth a repeat off is as good). Hand pairs (``hands``, seed ``HAND_SEED``) are
scored as ``mtrain score`` scores them, with and without ``--empty``; every tile counted
in a hand (in its points) is put to the domino check (``models/verifier.onnx``) and
those it rejects (``Verdicts.dropped``: no domino beyond its limit) are counted, for the
table photos' hands too.

Writes ``benchmarks/results/bare_photos.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.hands import PHOTOREAL_SPRITES, SPRITES
from benchmarks.matching import labelled_read

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
RESULTS = ROOT / "benchmarks" / "results" / "bare_photos.json"
#: The pairs' seeds (the hands benchmark uses 4401, the hand page's 4403).
SEED = 5101
HAND_SEED = 5103
#: Table pairs per surface and mat setting, hand pairs per surface.
PAIRS = 2
HANDS = 1


#: A phantom whose box lies on something on the table (a tile, a face-down tile, a
#: marker) by less than this share of its area lies on bare table: the phantoms a
#: photo of the bare table is for.
ON_BARE_BELOW = 0.25


def _covered(box: np.ndarray, objects: list[np.ndarray]) -> float:
    """The share of ``box``'s area that the ``objects``' outlines cover (summed)."""
    import cv2

    area = abs(cv2.contourArea(box))
    common = sum(cv2.intersectConvexConvex(box, o)[0] for o in objects)
    return float(common / max(area, 1e-6))


class _Tally:
    """Tiles read right, missed and phantom (and of those, on bare table, and read without
    doubt: counted as tiles without a question to the user), over the photos of one
    setting."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0])

    def add(self, key: str, labels: dict[str, Any], frame: Any) -> str:
        seen = labelled_read(labels, frame)
        want, got, pairs, right = seen.want, seen.got, seen.pairs, seen.right
        unmatched, on_backs = seen.unmatched, seen.on_backs
        objects = [np.asarray(o["corners"], np.float32) for part in ("tiles", "face_down",
                                                                      "markers")
                   for o in labels.get(part, [])]
        bare = sum(_covered(got[i], objects) < ON_BARE_BELOW for i in unmatched)
        sure = sum(not frame.tiles.reading(i).uncertain for i in unmatched)
        row = [len(want), right, len(want) - len(pairs), len(unmatched) - on_backs, on_backs,
               bare, sure]
        for k in (key, "all"):
            self.counts[k] = [x + y for x, y in zip(self.counts[k], row, strict=True)]
        return (f"{right}/{len(want)} right, {row[2]} missed, {row[3]} phantom "
                f"({bare} on bare table, {sure} read without doubt)")

    def result(self) -> dict[str, Any]:
        return {k: {"tiles": t, "read_right": r, "right_rate": round(r / max(t, 1), 4),
                    "missed": m, "phantom": p, "phantom_on_bare_table": bare,
                    "on_face_down": b, "phantom_sure": sure}
                for k, (t, r, m, p, b, bare, sure) in sorted(self.counts.items())}


def _rejected(reader: Any, image: np.ndarray, hand: Any) -> int:
    """How many tiles counted in ``hand`` the domino check rejects (``Verdicts.dropped``)."""
    check = reader.domino_check
    if check is None or not hand.readings:
        return 0
    corners = np.array([r.corners for r in hand.readings], np.float32)
    scores = np.array([r.detector_confidence for r in hand.readings], np.float32)
    return int(check(image, corners, scores).dropped.sum())


def _corner_error(found: np.ndarray, truth: np.ndarray, shape: tuple[int, ...]) -> float:
    from vision.mat.geometry import apply_homography

    h, w = shape[:2]
    pts = np.array([[0, 0], [w, 0], [w, h], [0, h], [w / 2, h / 2]], np.float64)
    return float(np.linalg.norm(apply_homography(found, pts) - apply_homography(truth, pts),
                                axis=1).max())


def run(models: Path, pairs: int, hands: int) -> dict[str, Any]:
    from datasets.composite import SpriteLibrary
    from datasets.composite.pairs import PAIR_SURFACES, compose_pair
    from engine import RuleSet
    from engine.errors import BadInputError
    from vision.reading.reader import TileReader
    from vision.stills.bare_photo import BarePhoto
    from vision.stills.hand_photos import hand_from_reading, read_hand
    from vision.stills.table_photo import read_photo

    sprites = [Path(f) for f in SPRITES if Path(f).is_dir()]
    library = SpriteLibrary(sprites, per_folder=PHOTOREAL_SPRITES)
    rules = RuleSet()
    reader = TileReader(models, max_value=rules.set)
    reads = {"without": _Tally(), "with": _Tally()}
    scored: dict[str, list[int]] = {"without": [0, 0, 0], "with": [0, 0, 0]}
    rows: list[str] = []
    registered: list[dict[str, Any]] = []
    times: dict[str, list[float]] = {"without": [], "with": []}

    def score(key: str, name: str, image: np.ndarray, bare: BarePhoto | None) -> None:
        frame = read_hand(reader, image)
        hand = hand_from_reading(frame if bare is None else bare.screen(frame), rules, name)
        rejected = _rejected(reader, image, hand)
        scored[key] = [scored[key][0] + 1, scored[key][1] + len(hand.tiles),
                       scored[key][2] + rejected]
        if rejected:
            rows.append(f"{name} score {key} --empty: {rejected} rejected box(es) counted")

    plans = [(surface, mat, i) for surface in PAIR_SURFACES for mat in (False, True)
             for i in range(pairs)]
    plans += [(surface, False, -1 - i) for surface in PAIR_SURFACES for i in range(hands)]
    for n, (surface, mat, i) in enumerate(plans):
        shown = len(rows)
        is_hand = i < 0
        seed = HAND_SEED if is_hand else SEED
        empty, photo, labels = compose_pair(library, seed, n, surface, mat, hands=is_hand)
        key = f"{surface}{'+mat' if mat else ''}"
        name = f"{'hand' if is_hand else 'table'}_{seed}_{n:03d} {key}"
        try:
            t0 = time.perf_counter()
            bare: BarePhoto | None = BarePhoto(empty, photo, name)
            reg_s = time.perf_counter() - t0
        except BadInputError as exc:
            bare, reg_s = None, 0.0
            rows.append(f"{name}: did not register ({exc})")
        if bare is not None:
            r = bare.registration
            registered.append({"photo": name, "how": r.how, "residual": round(r.residual, 3),
                               "corner_error_px": round(_corner_error(
                                   r.homography, np.array(labels["pair"]["homography"]),
                                   photo.shape), 1), "seconds": round(reg_s, 2)})
        for use in ("without", "with"):
            laid = bare if use == "with" else None
            if use == "with" and laid is None:
                continue
            if not is_hand:
                t0 = time.perf_counter()
                frame, _ = read_photo(reader.for_set(int(labels["set"])), photo,
                                      int(labels["players"]), laid)
                times[use].append(time.perf_counter() - t0 + (reg_s if laid else 0.0))
                rows.append(f"{name} read {use} --empty: {reads[use].add(key, labels, frame)}")
            score(use, name, photo, laid)
        for row in rows[shown:]:
            print(row, flush=True)
    return {
        "read": {k: v.result() for k, v in reads.items()},
        "score": {k: {"hands": h, "tiles_counted": c, "rejected_counted": r}
                  for k, (h, c, r) in scored.items()},
        "registration": registered,
        "registered": f"{len(registered)}/{len(plans)}",
        "read_s_median": {k: round(float(np.median(v)), 2) for k, v in times.items() if v},
        "rows": rows,
        "sprites": {os.path.relpath(f, ROOT): len(SpriteLibrary([f], per_folder=PHOTOREAL_SPRITES))
                    for f in sprites},
        "models": getattr(reader, "model_files", None),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=Path, default=ROOT / "models")
    parser.add_argument("--pairs", type=int, default=PAIRS,
                        help=f"table pairs per surface and mat setting (default {PAIRS})")
    parser.add_argument("--hands", type=int, default=HANDS,
                        help=f"hand pairs per surface (default {HANDS})")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not (args.models / "models.json").exists():
        print(f"[bare_photos] skipped: {args.models} has no trained reader")
        return 0
    t0 = time.perf_counter()
    results = {"seed": SEED, "hand_seed": HAND_SEED,
               "photos": "1280x720 table photos and 1280x960 hand photos composed from "
                         "rendered sprites, each with a bare-table photo shot again by hand "
                         "(datasets.composite.pairs)",
               "settings": f"--pairs {args.pairs} --hands {args.hands}; CPU: 2 shared "
                           "cores, busy with other work (timings are rough)",
               **run(args.models, args.pairs, args.hands)}
    results["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    for use in ("without", "with"):
        a = results["read"][use].get("all")
        s = results["score"][use]
        if a:
            print(f"[bare_photos] {use} --empty: {a['read_right']}/{a['tiles']} right "
                  f"({a['right_rate']}), {a['missed']} missed, {a['phantom']} phantom "
                  f"({a['phantom_on_bare_table']} on bare table, {a['phantom_sure']} sure); "
                  f"score: {s['rejected_counted']} rejected boxes counted of "
                  f"{s['tiles_counted']}")
    print(f"[bare_photos] wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
