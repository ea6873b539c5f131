"""Reading rendered scenes with labels: the committed eval set and hands rendered at run time.

A read tile matches a labelled one at polygon IoU >= 0.5, one to one, best first.
Measured: tile recall and precision, per-half accuracy (halves aligned by which
end of the read tile lies on the labelled ``a`` end), tile-exact accuracy (both
values, either order, over all labelled tiles, so a missed tile counts as
wrong), the hand-total exact rate (``hands`` scenes: the penalty of the tiles
read equals that of the tiles labelled, standard rules), how well
``uncertain`` flags the wrong readings, and tile-exact apart for the tiles with
every pip in view and those a hand or marker partly covers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.matching import aligned_values, match, rate
from engine import RuleSet, Tile, hand_points
from vision.images import load_image
from vision.reading.reader import TileReader
from vision.stills.hand_photos import hand_from_reading, read_hand

#: Seed of the ``hands`` scenes rendered for ``synthetic_more`` (not a training or
#: eval seed, nor 9101 / 9201, on which ``vision.stills.slanted_photo`` was developed and
#: checked), and their JPEG quality cap (the eval set's).
MORE_SEED = 9301
MORE_MAX_QUALITY = 80


def synthetic(reader: TileReader, folder: Path, limit: int | None,
              hands_from_above: bool = True, told_set: bool = True) -> dict[str, Any]:
    labels = sorted(folder.glob("*.json"))
    scenes = []
    for path in labels:
        obj = json.loads(path.read_text())
        if obj.get("kind") in ("hands", "table"):
            scenes.append((path, obj))
    if limit:
        scenes = scenes[:limit]
    n_truth = n_read = n_match = halves_ok = exact = 0
    hands = hands_ok = 0
    flagged_wrong = wrong = flagged_right = right = 0
    marker_truth = marker_found = marker_read = 0
    by_kind: dict[str, list[int]] = {}  # kind -> [labelled, found, exact]
    # every pip in view? -> [labelled, exact, found and flagged uncertain]
    in_view = {True: [0, 0, 0], False: [0, 0, 0]}
    misses: list[str] = []
    rules = RuleSet()
    for path, obj in scenes:
        image = load_image(path.parent / obj["image"])
        # a still, read for its set (as ``--rules`` tells mtrain), or for any set: a fresh
        # reader, with no closer look carried from the last image
        scene_reader = reader.for_set(obj.get("set") if told_set else None)
        if obj["kind"] == "hands" and hands_from_above:
            frame = read_hand(scene_reader, image)  # as mtrain score reads it
        else:
            frame = scene_reader.read(image)
        truth = np.array([t["corners"] for t in obj["tiles"]], np.float32).reshape(-1, 4, 2)
        read = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
        pairs = match(truth, read)
        n_truth += len(truth)
        n_read += len(read)
        n_match += len(pairs)
        matched_t = {i for i, _ in pairs}
        matched_r = {j for _, j in pairs}
        for i, t in enumerate(obj["tiles"]):
            if i not in matched_t:
                misses.append(f"{obj['image']}: tile {t['values']} not found")
        for j in set(range(len(read))) - matched_r:
            misses.append(f"{obj['image']}: extra tile read as {frame.tiles.reading(j).values}")
        counts = by_kind.setdefault(obj["kind"], [0, 0, 0])
        counts[0] += len(truth)
        counts[1] += len(pairs)
        legible = pips_in_view(obj)
        for i in range(len(truth)):
            in_view[legible[i]][0] += 1
        for i, j in pairs:
            want = tuple(obj["tiles"][i]["values"])
            reading = frame.tiles.reading(j)
            got = aligned_values(truth[i], reading.corners, reading.values)
            halves_ok += int(got[0] == want[0]) + int(got[1] == want[1])
            ok = sorted(got) == sorted(want)
            exact += ok
            counts[2] += ok
            in_view[legible[i]][1] += ok
            in_view[legible[i]][2] += reading.uncertain
            if ok:
                right += 1
                flagged_right += reading.uncertain
            else:
                wrong += 1
                flagged_wrong += reading.uncertain
                misses.append(f"{obj['image']}: {list(want)} read as {list(reading.values)}"
                              f" (confidence {reading.confidence:.2f}"
                              f"{', flagged' if reading.uncertain else ''})")
        if obj["kind"] == "hands":
            hands += 1
            want_points = hand_points([Tile(*t["values"]) for t in obj["tiles"]], rules)
            # priced as ``mtrain score`` prices it: boxes left out (perhaps no tile, or a
            # tile perhaps missed) are not in the points
            got_points = hand_from_reading(frame, rules).points
            hands_ok += want_points == got_points
        marker_truth += len(obj.get("markers", []))
        marker_read += len(frame.markers)
        if obj.get("markers"):
            mt = np.array([m["corners"] for m in obj["markers"]], np.float32).reshape(-1, 4, 2)
            marker_found += len(match(mt, frame.markers.corners, 0.3))
    return {
        "images": len(scenes), "tiles": n_truth, "read": n_read,
        "recall": rate(n_match, n_truth), "precision": rate(n_match, n_read),
        "half_accuracy": rate(halves_ok, 2 * n_match),
        "tile_exact": rate(exact, n_truth),
        "tile_exact_of_found": rate(exact, n_match),
        "pips_in_view": {"tiles": in_view[True][0],
                         "tile_exact": rate(in_view[True][1], in_view[True][0]),
                         "flagged": rate(in_view[True][2], in_view[True][0])},
        "pips_hidden": {"tiles": in_view[False][0],
                        "tile_exact": rate(in_view[False][1], in_view[False][0]),
                        "flagged": rate(in_view[False][2], in_view[False][0])},
        "hand_total_exact": rate(hands_ok, hands), "hands": hands,
        "marker_recall": rate(marker_found, marker_truth),
        "marker_precision": rate(marker_found, marker_read),
        "uncertain_flags_wrong": rate(flagged_wrong, wrong),
        "uncertain_flags_right": rate(flagged_right, right),
        "by_kind": {k: {"tiles": v[0], "recall": rate(v[1], v[0]), "tile_exact": rate(v[2], v[0]),
                        "tile_exact_of_found": rate(v[2], v[1])} for k, v in by_kind.items()},
        "misses": misses,
    }


def pips_in_view(labels: dict[str, Any]) -> list[bool]:
    """For each labelled tile, whether every one of its pips is in view: the generator
    labels a pip only when at least half of it shows (``datasets.render``), so a tile
    a hand or a marker covers has fewer labelled pips than its two values add up to."""
    shown = Counter(int(p["tile"]) for p in labels.get("pips", []))
    return [shown[i] == sum(t["values"]) for i, t in enumerate(labels["tiles"])]


def render_more(folder: Path, count: int) -> None:
    """Render ``count`` hands scenes from ``MORE_SEED`` into ``folder``, one process per
    core, before the models load (their threads then have the cores to themselves)."""
    from datasets.synth import default_jobs, synthesize

    synthesize(folder, "hands", count, MORE_SEED, jobs=default_jobs(), progress=False,
               max_quality=MORE_MAX_QUALITY)


def synthetic_more(reader: TileReader, folder: Path,
                   hands_from_above: bool = True) -> dict[str, Any]:
    """:func:`synthetic` on the scenes :func:`render_more` wrote."""
    result = synthetic(reader, folder, None, hands_from_above)
    result["seed"] = MORE_SEED
    return result
