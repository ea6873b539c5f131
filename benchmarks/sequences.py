"""The known table on painted rounds: a fixed camera over patterned cloths.

    .venv/bin/python -m benchmarks.sequences [--tables N] [--quick]
        [--settings known_mat,...] [--surfaces checks,...] [--no-marker-candidates]
        [--sprites DIR] [--fps F] [--out FILE]

Writes ``benchmarks/results/sequences.json`` (or ``--out``). ``--settings`` follows the
rounds only in the settings named (``known_no_mat``, ``known_mat``, ``plain_no_mat``,
``plain_mat``) and ``--surfaces`` only on the cloths named; either skips the two parts
without models. Parts:

- **box change** (no models): the measurement ``vision.change.known_table`` is tuned
  on. For every cloth of ``datasets.table_sequence.SEQUENCE_SURFACES`` with and
  without the mat, the bare table is learned from two frames, and each box of
  the round's last table is scored (``box_change``) under an exposure of 0.6,
  1.0 and 1.25 with sensor noise and a soft shadow: the true tiles, tile-sized
  boxes on bare cloth, and the printed domino lying on the table. The least
  score of a real tile and the greatest of the others say whether the
  threshold ``UNCHANGED_BELOW`` parts them, and by how much. The same boxes are
  scored by OpenCV's ``BackgroundSubtractorMOG2`` (shadows detected, learned on
  the same bare frames) as its share of foreground.
- **missed tiles** (no models): each move with the tiles it laid left unboxed
  (the detector missed them) and the exposure changed: how many the known
  table's candidates find (polygon IoU 0.5) and how many other candidates it
  makes.
- **read at the labels** (the trained reader): each round's last table read at its
  tiles' true boxes (``TileReader.read_at``, the tracker's reader), so that what the
  reader cannot see on a cloth is told apart from what the tracker loses: tiles read
  right, halves showing pips read blank (a faint or small pip lost), blank halves read
  with pips, other miscounts, and how many of the tiles read wrong are read in doubt.
- **rounds** (the trained reader, skipped without it): bots play a round with
  injected breaches (``faults``); each table is painted by the
  generator's painter on the cloth (one fixed overhead camera, 1280x720, with
  and without the mat, the printed domino beside the trains), the bare table
  first; filmed at 10 fps (``--fps``) as ``datasets.table_game.game_frames`` films (each
  table held, a hand between tables, the light drifting and jumping, noise) and
  followed by ``vision.tracking.tracker.Tracker`` (the engine told, as the app tells it)
  with and without the known table. Per setting: tables whole (true tables the
  tracker settled exactly), tiles read right (tiles of each true table found in
  the tracker's table settled while it was shown, in the right train and
  place), phantom tiles (tiles in those tables no true table holds there),
  markers right (trains whose marker, there or not, the settled table shows
  right), markers found (true markers the settled table shows on their train; their
  share is the issue's target) and false markers (markers on trains that have
  none), markers on the wrong train (a true marker missed where the table shows one
  on a train without), markers doubted (shown, but reported in doubt: between two
  trains, or found where the table changed, not by the detector), tables with a
  marker (a round shows its first marker after 9 to 30 tables: ``--tables`` sets how
  far the rounds go), the known table's marker candidates (the
  tracker's option, on; off with ``--no-marker-candidates``), and false and missed alerts per
  100 moves (against the tracker's referee, a camera's, on the true tables). An alert the
  tracker marks doubtful (``AlertDetails.doubtful``: it rests on a reading in
  doubt, and asks to be checked) is not a false alert but counted apart
  (``doubtful_alerts``, and how many of those the true tables do not raise); a
  true breach raised doubtful is not missed. ``false_alerts_counting_doubtful``
  counts both. ``frames_per_second``: the frames over the time the tracker spent on
  them (the painting of the frames left out).

With ``--sprites DIR`` the same rounds are composited instead from the photoreal
renderer's sprites (``datasets.composite.sequence``: rendered tiles and markers on the
same cloths, one fixed camera) and the results go to ``sequences_composited.json``.
Whole rounds rendered by Blender (about a minute a frame) are not run here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from benchmarks.matching import rate
from datasets.table_game import FPS, camera_view, game_frames, observer_alerts, play_round
from datasets.table_layout import layout_sequence
from datasets.table_pictures import Shown
from datasets.table_sequence import (
    SEQUENCE_SURFACES,
    Picture,
    exposed,
    shadowed,
    table_pictures,
)
from engine import RuleSet, TableState
from faults import inject_breaches

if TYPE_CHECKING:
    from datasets.composite.library import SpriteLibrary
    from vision.tracking.tracker import Tracker

ROOT = Path(__file__).resolve().parents[1]

RESULTS = ROOT / "benchmarks" / "results" / "sequences.json"
COMPOSITED = ROOT / "benchmarks" / "results" / "sequences_composited.json"
#: What drew the rounds: the painter, or the compositor from rendered sprites.
RENDERERS = {False: "generator's painter (datasets.table_sequence)",
             True: "compositor: rendered sprites on the painter's cloths "
                   "(datasets.composite.sequence)"}
#: Seeds of the rounds (one per cloth and mat setting), far from every other benchmark's.
SEED = 1_500_000
PLAYERS = 3


# --- box change -----------------------------------------------------------------------


def _cloth_boxes(picture: Picture, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    tiles = [c for _, c in picture.tiles] + list(picture.markers)
    centres = np.array([c.mean(axis=0) for c in tiles])
    length = float(np.median([max(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[1]))
                              for _, c in picture.tiles]))
    h, w = picture.image.shape[:2]
    out: list[np.ndarray] = []
    for _ in range(50 * n):
        if len(out) >= n:
            break
        at = rng.uniform([length, length], [w - length, h - length])
        if np.min(np.linalg.norm(centres - at, axis=1)) < 3 * length:
            continue
        angle = rng.uniform(0, np.pi)
        a = np.array([np.cos(angle), np.sin(angle)])
        b = np.array([-a[1], a[0]])
        out.append(np.array([at - a * length / 2 - b * length / 4,
                             at - a * length / 2 + b * length / 4,
                             at + a * length / 2 + b * length / 4,
                             at + a * length / 2 - b * length / 4]))
    return out


def box_change_part(rounds: Sequence[tuple[str, bool, int, list[Picture]]]) -> dict[str, Any]:
    from vision.change.known_table import UNCHANGED_BELOW, KnownTable
    from vision.change.table_view import polygon_mask

    scores: dict[str, list[float]] = {"tiles": [], "cloth": [], "printed": []}
    mog: dict[str, list[float]] = {"tiles": [], "cloth": [], "printed": []}
    for _, _, seed, pictures in rounds:
        rng = np.random.default_rng([seed, 1])
        bare = [exposed(pictures[0].image, g, 3.0, rng) for g in (1.0, 0.97)]
        known = KnownTable()
        subtractor = cv2.createBackgroundSubtractorMOG2(history=20, varThreshold=16,
                                                        detectShadows=True)
        for frame in bare:
            known.see_empty(frame)
            subtractor.apply(cv2.resize(frame, (480, 270), interpolation=cv2.INTER_AREA))
        last = pictures[-1]
        boxes = {"tiles": [c for _, c in last.tiles], "cloth": _cloth_boxes(last, rng, 15),
                 "printed": [] if last.printed is None else [last.printed]}
        for gain in (0.6, 1.0, 1.25):
            h, w = last.image.shape[:2]
            frame = shadowed(exposed(last.image, gain, 5.0, rng, 4.0), (0.45 * w, 0.4 * h),
                             150, 0.35)
            view = known.view(frame)
            fg = subtractor.apply(cv2.resize(frame, (480, 270), interpolation=cv2.INTER_AREA),
                                  learningRate=0) == 255
            for kind, corners in boxes.items():
                if not corners:
                    continue
                scores[kind] += known.box_change(view, np.array(corners, np.float32)).tolist()
                for c in corners:
                    inside = polygon_mask(fg.shape, c, frame.shape[1] / 480)
                    mog[kind].append(float(fg[inside].mean()))

    def summary(values: dict[str, list[float]]) -> dict[str, Any]:
        return {"real_tiles_min": round(min(values["tiles"]), 3),
                "real_tiles_median": round(statistics.median(values["tiles"]), 3),
                "bare_cloth_max": round(max(values["cloth"]), 3),
                "printed_domino_max": round(max(values["printed"]), 3),
                "boxes": {k: len(v) for k, v in values.items()}}

    ours = summary(scores)
    ours["threshold"] = UNCHANGED_BELOW
    ours["tiles_kept"] = sum(s >= UNCHANGED_BELOW for s in scores["tiles"])
    ours["phantoms_dropped"] = sum(s < UNCHANGED_BELOW for s in scores["cloth"]
                                   + scores["printed"])
    return {"exposures": [0.6, 1.0, 1.25], "known_table": ours,
            "mog2_foreground_share": summary(mog)}


def candidates_part(rounds: Sequence[tuple[str, bool, int, list[Picture]]]) -> dict[str, Any]:
    """Tiles the detector missed, found where the table changed: each move of each round,
    the settled table before it known, every tile boxed but those the move laid, the
    frame's exposure changed (0.85, offset 5, noise); a new tile is found when a candidate
    covers it at polygon IoU 0.5."""
    from vision.change.known_table import KnownTable
    from vision.models.detections import Detections, polygon_iou

    new_tiles = found = extra = 0
    for _, _, seed, pictures in rounds:
        rng = np.random.default_rng([seed, 2])
        for k in range(1, len(pictures) - 1):
            known = KnownTable()
            for _ in range(2):
                known.see_empty(exposed(pictures[0].image, 1.0, 3.0, rng))
            known.settle(exposed(pictures[k].image, 1.0, 3.0, rng))
            old = {tuple(np.round(c.mean(axis=0), 1)) for _, c in pictures[k].tiles}
            after = pictures[k + 1]
            laid = [c for _, c in after.tiles if tuple(np.round(c.mean(axis=0), 1)) not in old]
            boxed = np.array([c for _, c in after.tiles
                              if tuple(np.round(c.mean(axis=0), 1)) in old],
                             np.float32).reshape(-1, 4, 2)
            frame = exposed(after.image, 0.85, 4.0, rng, 5.0)
            got = known.screen(frame, Detections(boxed, np.ones(len(boxed)),
                                                 np.zeros(len(boxed))), 0)
            added = got.corners[len(got) - known.added:]  # a box screened out shifts them
            new_tiles += len(laid)
            if len(laid) and len(added):
                iou = polygon_iou(np.array(laid, np.float32), added)
                found += int((iou.max(axis=1) >= 0.5).sum())
                extra += int((iou.max(axis=0) < 0.5).sum())
            else:
                extra += len(added)
    return {"tiles_laid": new_tiles, "found": found, "other_candidates": extra}


def labelled_reads_part(rounds: Sequence[tuple[str, bool, int, list[Picture]]],
                        reader: Any) -> dict[str, Any]:
    """Each round's last table read at its tiles' true boxes (the module's notes)."""
    counts: Counter[str] = Counter()
    per_round = []
    for surface, mat, _, pictures in rounds:
        last = pictures[-1]
        if not last.tiles:
            continue
        read = reader.read_at(last.image, np.array([c for _, c in last.tiles], np.float32))
        mine: Counter[str] = Counter()
        for (values, _), reading in zip(last.tiles, read.each(), strict=True):
            mine["tiles"] += 1
            got = tuple(int(v) for v in reading.values)
            if sorted(got) == sorted(values):
                mine["right"] += 1
                continue
            mine["wrong_in_doubt"] += bool(reading.uncertain)
            # the halves paired end to end, the other way round when that matches more
            if sum(a == b for a, b in zip(values, got[::-1], strict=True)) > sum(
                    a == b for a, b in zip(values, got, strict=True)):
                got = got[::-1]
            for want, seen in zip(values, got, strict=True):
                if want != seen:
                    mine["pips_read_blank" if seen == 0 else
                         "blank_read_with_pips" if want == 0 else "miscounted"] += 1
        counts.update(mine)
        per_round.append({"surface": surface, "mat": mat, **mine})
    keys = ("tiles", "right", "wrong_in_doubt", "pips_read_blank", "blank_read_with_pips",
            "miscounted")
    return {**{k: counts[k] for k in keys},
            "right_share": rate(counts["right"], counts["tiles"]),
            "per_round": [{k: r.get(k, 0) for k in ("surface", "mat", *keys)}
                          for r in per_round]}


# --- rounds ---------------------------------------------------------------------------


def _tile_places(table: TableState) -> Counter[tuple[Any, int, tuple[int, int]]]:
    """Each tile of the table where it lies: (train, place, tile) counted."""
    out: Counter[tuple[Any, int, tuple[int, int]]] = Counter()
    out[("engine", 0, (table.engine, table.engine))] += 1
    for train in table.trains:
        for i, (a, b) in enumerate(train.tiles):
            out[(train.owner, i, (min(a, b), max(a, b)))] += 1
    return out


class RoundCapture:
    """A capture over a round's frames (``fps`` a second) that remembers which table each
    frame shows and times the tracker apart from the painting: ``frame_s`` holds, for
    each frame but the last, the time from its handing over to the next frame's asking
    (what the tracker spent on it)."""

    def __init__(self, frames: Iterator[tuple[np.ndarray, int, bool]],
                 fps: float = FPS) -> None:
        self.frames = frames
        self.fps = fps
        self.shown: list[int] = []
        self.frame_s: list[float] = []
        self._handed: float | None = None

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        asked = time.perf_counter()
        if self._handed is not None:
            self.frame_s.append(asked - self._handed)
        item = next(self.frames, None)
        if item is None:
            self._handed = None
            return False, None
        self.shown.append(item[1])
        self._handed = time.perf_counter()
        return True, item[0]

    def get(self, prop: int) -> float:
        return self.fps if prop == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        pass


def round_video(pictures: Sequence[Picture], truth: Sequence[TableState], seed: int,
                reader: Any, known: bool, mat: bool, marker_candidates: bool = True,
                fps: float = FPS) -> tuple[RoundCapture, Tracker]:
    """The round filmed at ``fps`` (each table held 2 s, a hand between tables) and the
    tracker that follows it as the app runs one (the engine told), ``reader`` fresh."""
    from vision.tracking.tracker import Tracker

    shown = [Shown(p.image, p.tiles, p.markers) for p in pictures]
    capture = RoundCapture(game_frames(shown, seed, hold_s=2.0, fps=fps), fps)
    tracker = Tracker("0", PLAYERS, RuleSet.preset("standard"), reader=reader, mat=mat,
                      engine=truth[0].engine, opener=lambda _: capture, max_retries=0,
                      sleep=lambda _: None, known_table=known,
                      marker_candidates=marker_candidates)
    reader.reset()
    return capture, tracker


def follow_round(pictures: Sequence[Picture], truth: Sequence[TableState], seed: int,
                 reader: Any, known: bool, mat: bool, marker_candidates: bool = True,
                 fps: float = FPS, frame_s: list[float] | None = None) -> dict[str, Any]:
    """Follow the round's video, filmed at ``fps``; its counts against the true tables
    (``truth[k]`` is shown by ``pictures[k + 1]``; ``pictures[0]`` is the bare table).
    ``frame_s``, when given, gets the time the tracker spent on each frame."""
    from vision.events import AlertRaised, CameraReason, CameraStatus, TableSettled
    from vision.tracking.alert_doubts import doubted_markers

    capture, tracker = round_video(pictures, truth, seed, reader, known, mat,
                                   marker_candidates, fps)
    settled: dict[int, TableState] = {}  # picture -> the last table settled while shown
    doubted: dict[int, set[Any]] = {}  # picture -> trains whose marker that table doubts
    tables, alerts = [], []
    for event in tracker:
        if isinstance(event, TableSettled):
            tables.append(event.table)
            settled[capture.shown[event.frame]] = event.table
            doubted[capture.shown[event.frame]] = (set() if event.reading is None
                                                   else doubted_markers(event.reading))
        elif isinstance(event, AlertRaised):
            alerts.append((event.alert, event.details.doubtful))
        elif isinstance(event, CameraStatus) and event.reason is CameraReason.LOST:
            break
    tracked_s = sum(capture.frame_s)  # the painting of the frames left out
    if frame_s is not None:
        frame_s.extend(capture.frame_s)
    whole = right = phantoms = tiles = markers = trains = marked = found_marks = 0
    false_marks = wrong_train = doubted_marks = marked_tables = 0
    last: TableState | None = None
    last_doubts: set[Any] = set()
    for k, want in enumerate(truth, start=1):
        got = settled.get(k, last)
        doubts = doubted.get(k, last_doubts)
        last, last_doubts = got, doubts
        whole += got == want
        places = _tile_places(want)
        tiles += sum(places.values())
        marked_tables += any(t.marker for t in want.trains)
        if got is None:
            trains += len(want.trains)
            marked += sum(t.marker for t in want.trains)
            continue
        found = _tile_places(got)
        right += sum((places & found).values())
        phantoms += sum((Counter(t for _, _, t in found.elements())
                         - Counter(t for _, _, t in places.elements())).values())
        marks = {t.owner: t.marker for t in got.trains}
        markers += sum(marks.get(t.owner) == t.marker for t in want.trains)
        marked += sum(t.marker for t in want.trains)
        found_marks += sum(t.marker and bool(marks.get(t.owner)) for t in want.trains)
        false_marks += sum(not t.marker and bool(marks.get(t.owner)) for t in want.trains)
        # a marker shown on another train: one true marker missed where one is shown
        # on a train without
        wrong_train += min(sum(t.marker and not marks.get(t.owner) for t in want.trains),
                           sum(not t.marker and bool(marks.get(t.owner)) for t in want.trains))
        doubted_marks += sum(bool(marks.get(t.owner)) and t.owner in doubts
                             for t in want.trains)
        trains += len(want.trains)
    reference = [a for a in observer_alerts(truth, RuleSet.preset("standard"), PLAYERS)
                 if a.is_error]
    every = Counter((a.code, a.train) for a, _ in alerts if a.is_error)
    sure = Counter((a.code, a.train) for a, doubtful in alerts if a.is_error and not doubtful)
    want_keys = Counter((a.code, a.train) for a in reference)
    false_every = sum((every - want_keys).values())
    false_sure = sum((sure - want_keys).values())
    return {"tables": len(truth), "whole": whole, "tiles": tiles, "right": right,
            "phantoms": phantoms, "trains": trains, "markers": markers,
            "marked": marked, "markers_found": found_marks, "false_markers": false_marks,
            "markers_wrong_train": wrong_train, "markers_doubted": doubted_marks,
            "marked_tables": marked_tables,
            "moves": len(truth) - 1, "false": false_sure, "false_every": false_every,
            "doubtful": sum(every.values()) - sum(sure.values()),
            "doubtful_false": false_every - false_sure,
            "missed": sum((want_keys - every).values()), "frames": len(capture.shown),
            "tracked_s": tracked_s, "reads": tracker.reads,
            "dropped": 0 if tracker.known is None else tracker.known.dropped,
            "added": 0 if tracker.known is None else tracker.known.added,
            "marker_candidates": 0 if tracker.known is None else tracker.known.markers_added}


#: The settings the rounds are followed in: the known table or not, the mat or not.
SETTINGS = ("known_no_mat", "known_mat", "plain_no_mat", "plain_mat")


def rounds_part(rounds: Sequence[tuple[str, bool, int, list[Picture]]],
                truths: Sequence[list[TableState]], reader: Any,
                settings: Sequence[str] = SETTINGS,
                marker_candidates: bool = True, fps: float = FPS) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for known in (True, False):
        for mat in (False, True):
            if f"{'known' if known else 'plain'}_{'mat' if mat else 'no_mat'}" not in settings:
                continue
            rows = [follow_round(p, t, seed, reader, known, mat, marker_candidates, fps)
                    for (surface, m, seed, p), t in zip(rounds, truths, strict=True) if m == mat]
            total = {k: sum(r[k] for r in rows) for k in rows[0]}
            moves = max(total["moves"], 1)
            out[f"{'known' if known else 'plain'}_{'mat' if mat else 'no_mat'}"] = {
                "rounds": len(rows), "tables": total["tables"], "moves": total["moves"],
                "tables_whole": f"{total['whole']}/{total['tables']}",
                "tiles_read_right": round(total["right"] / max(total["tiles"], 1), 4),
                "phantom_tiles_per_table": round(total["phantoms"] / max(total["tables"], 1),
                                                 3),
                "markers_right": round(total["markers"] / max(total["trains"], 1), 4),
                "markers_found": f"{total['markers_found']}/{total['marked']}",
                "markers_found_share": (round(total["markers_found"] / total["marked"], 4)
                                        if total["marked"] else None),
                "tables_with_markers": total["marked_tables"],
                "false_markers": total["false_markers"],
                "markers_wrong_train": total["markers_wrong_train"],
                "markers_doubted": total["markers_doubted"],
                "false_alerts_per_100_moves": round(100 * total["false"] / moves, 2),
                "doubtful_alerts": total["doubtful"],
                "doubtful_alerts_false": total["doubtful_false"],
                "false_alerts_counting_doubtful_per_100_moves":
                    round(100 * total["false_every"] / moves, 2),
                "missed_alerts_per_100_moves": round(100 * total["missed"] / moves, 2),
                "boxes_dropped": total["dropped"], "tiles_added": total["added"],
                "frames_per_second": round(total["frames"] / max(total["tracked_s"], 1e-9), 1),
                "marker_candidates": total["marker_candidates"],
                "per_surface": [{k: r[k] for k in ("whole", "tables", "right", "tiles",
                                                   "phantoms", "marked", "markers_found",
                                                   "false_markers", "markers_wrong_train",
                                                   "markers_doubted", "false", "doubtful",
                                                   "missed")}
                                | {"surface": s}
                                for r, (s, m, _, _) in zip(rows, [x for x in rounds
                                                                   if x[1] == mat], strict=True)],
            }
    return out


def make_rounds(tables: int, mats: Sequence[bool] = (False, True),
                surfaces: Sequence[str] = SEQUENCE_SURFACES,
                sprites: SpriteLibrary | None = None
                ) -> tuple[list[tuple[str, bool, int, list[Picture]]], list[list[TableState]]]:
    """The rounds and their true tables; composited from ``sprites`` when given, else
    painted."""
    if sprites is not None:
        from datasets.composite.sequence import composite_pictures
    rounds, truths = [], []
    for i, surface in enumerate(SEQUENCE_SURFACES):
        if surface not in surfaces:
            continue
        for mat in mats:
            seed = SEED + 2 * i + int(mat)
            record = play_round(seed, PLAYERS)
            observations, _ = inject_breaches(record, random.Random(seed))
            truth = camera_view(observations)[:tables]
            layouts = layout_sequence(truth, PLAYERS, np.random.default_rng(seed), mat=mat)
            pictures = (table_pictures(layouts, surface, seed) if sprites is None
                        else composite_pictures(layouts, sprites, surface, seed))
            rounds.append((surface, mat, seed, pictures))
            truths.append(truth)
    return rounds, truths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fps", type=float, default=FPS,
                        help=f"frames a second the rounds are filmed at (default {FPS:g}; a "
                             "webcam gives 30)")
    parser.add_argument("--tables", type=int, default=20,
                        help="tables per round (markers are first laid after 9 to 30)")
    parser.add_argument("--quick", action="store_true", help="short rounds, a smoke test")
    parser.add_argument("--models", default=str(ROOT / "models"))
    parser.add_argument("--settings", default=",".join(SETTINGS),
                        help="comma-separated settings to follow the rounds in (only these; "
                             "the parts without models are then skipped)")
    parser.add_argument("--surfaces", default=",".join(SEQUENCE_SURFACES),
                        help="comma-separated cloths to play on (only these; the parts "
                             "without models are then skipped)")
    parser.add_argument("--marker-candidates", action=argparse.BooleanOptionalAction,
                        default=True,
                        help="with the known table, add the markers the detector missed "
                             "where a marker-sized region changed by a tile")
    parser.add_argument("--sprites", action="append", default=[], metavar="DIR",
                        help="composite the rounds from these sprite folders "
                             "(python -m datasets.photoreal sprites) instead of painting "
                             "them; the results go to sequences_composited.json")
    parser.add_argument("--out", default=None, help="where the results go")
    args = parser.parse_args(argv)
    tables = 4 if args.quick else args.tables
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    surfaces = [s.strip() for s in args.surfaces.split(",") if s.strip()]
    unknown = sorted(set(settings) - set(SETTINGS)) + sorted(set(surfaces)
                                                            - set(SEQUENCE_SURFACES))
    if unknown or not settings or not surfaces:
        parser.error(f"unknown settings or cloths {unknown}; choose from "
                     f"{', '.join(SETTINGS)} and {', '.join(SEQUENCE_SURFACES)}")
    every = set(settings) == set(SETTINGS) and set(surfaces) == set(SEQUENCE_SURFACES)
    with_mat = {not s.endswith("no_mat") for s in settings}
    library = None
    if args.sprites:
        from datasets.composite.library import SpriteLibrary, tile_sprite_folders

        library = SpriteLibrary([Path(f) for f in tile_sprite_folders(args.sprites)])
    rounds, truths = make_rounds(tables, [m for m in (False, True) if m in with_mat],
                                 surfaces, library)
    results: dict[str, Any] = {"surfaces": surfaces, "players": PLAYERS, "fps": args.fps,
                               "tables_per_round": tables, "frame_size": [1280, 720],
                               "marker_candidates": args.marker_candidates,
                               "cpu": {"cores": os.cpu_count(),
                                       "load_average_at_start": [round(x, 2) for x in
                                                                 os.getloadavg()]},
                               "renderer": RENDERERS[library is not None]}
    if library is not None:
        results["sprites"] = {"folders": [Path(f).name for f in args.sprites],
                              "sprites": len(library),
                              "kinds": {k: len(v) for k, v in sorted(library.kinds.items())}}
    if every:
        results["box_change"] = box_change_part(rounds)
        results["missed_tiles"] = candidates_part(rounds)
    try:
        from vision.reading.reader import TileReader
        from vision.tracking.tracker import TRACKER_CLASSIFIES_HALVES

        reader = TileReader(args.models, max_value=12,
                            classify_halves=TRACKER_CLASSIFIES_HALVES)
    except Exception as exc:  # noqa: BLE001 - no trained reader: the rounds are skipped
        results["rounds"] = f"skipped: {exc}"
    else:
        from vision.models.precision import chosen_precision

        results["precision"] = chosen_precision()
        results["read_at_labels"] = labelled_reads_part(rounds, reader)
        results["rounds"] = rounds_part(rounds, truths, reader, settings,
                                        args.marker_candidates, args.fps)
    results["cpu"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    out = Path(args.out or (RESULTS if library is None else COMPOSITED))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if every:
        print(json.dumps(results["box_change"], indent=1), results["missed_tiles"])
    if "read_at_labels" in results:
        print("read_at_labels", {k: v for k, v in results["read_at_labels"].items()
                                 if k != "per_round"})
    if isinstance(results["rounds"], dict):
        for name, row in results["rounds"].items():
            print(name, {k: v for k, v in row.items() if k != "per_surface"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
