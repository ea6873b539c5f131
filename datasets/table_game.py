"""A round played by the engine's bots, as a camera over the table would film it.

- :func:`play_round` lets bots play a round and records the table after each turn;
- :func:`inject_breaches` (``faults``) breaks some rules in that record (a
  mismatched tile, two tiles in one turn, a tile taken back, a marker left on, a duplicate);
- :func:`camera_view` keeps what a camera can tell apart (no announced passes,
  no repeated tables);
- :func:`render_tables` draws each table once (the generator's renderer when
  it can draw a layout, else :func:`draw_layout`);
- :func:`game_frames` turns those pictures into a video: each table held for
  a while, a hand reaching over the table between tables, slow and sudden
  lighting changes, sensor noise;
- :func:`benchmark_games` follows such videos with ``vision.tracking.tracker.Tracker``
  and compares its alerts with the observer's on the true tables;
- :func:`write_demo` writes the bundled demo (``datasets/demo/``).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.table_layout import TableLayout, layout_sequence
from engine import AlertCode, RuleSet, TableState
from faults import BREACHES as BREACHES  # the kinds this module's rounds break
from faults import Observation, inject_breaches
from vision.mat.geometry import apply_homography

FRAME_SIZE = (1280, 720)
FPS = 10.0


# --- the round --------------------------------------------------------------------------


def play_round(seed: int, players: int, rules: RuleSet | None = None,
               bots: Sequence[str] = ("greedy", "longest", "random")) -> list[Observation]:
    """Bots play one round; the table after each turn (the first: before anyone plays)."""
    from engine.bots import make_bot
    from engine.record import record_round
    from engine.round import Round

    rules = rules or RuleSet.preset("standard")
    rng = random.Random(seed)
    rnd = Round.deal(rules, players, rng=rng)
    seats = [make_bot(bots[i % len(bots)], random.Random(rng.random())) for i in range(players)]
    return record_round(rnd, seats)


def camera_view(observations: Sequence[Observation]) -> list[TableState]:
    """What a camera can settle: the tables without events, each change once."""
    out: list[TableState] = []
    for table, _ in observations:
        if not out or table != out[-1]:
            out.append(table)
    return out


def observer_alerts(tables: Sequence[TableState], rules: RuleSet, players: int,
                    first: int = 0) -> list[Any]:
    """The referee's alerts on ``tables`` (the reference the tracker must match)."""
    from engine import judge

    return judge(tables, rules, players, first)


# --- drawing -----------------------------------------------------------------------------

#: Pip positions on a half (unit square, 0..1), for values 0..12 (simple layouts).
_PIPS: dict[int, list[tuple[float, float]]] = {
    0: [], 1: [(.5, .5)], 2: [(.25, .25), (.75, .75)], 3: [(.25, .25), (.5, .5), (.75, .75)],
    4: [(.25, .25), (.75, .25), (.25, .75), (.75, .75)],
    5: [(.25, .25), (.75, .25), (.5, .5), (.25, .75), (.75, .75)],
    6: [(.25, .2), (.75, .2), (.25, .5), (.75, .5), (.25, .8), (.75, .8)],
}
for _v in range(7, 19):
    _cols = 3 if _v > 9 else 2
    _rows = math.ceil(_v / _cols)
    _PIPS[_v] = [((c + .5) / _cols, (r + .5) / _rows) for r in range(_rows) for c in range(_cols)
                 ][:_v]
_KIND_COLOUR = {"coin": (40, 170, 210), "toy-train": (40, 40, 200), "pawn": (200, 60, 60)}


def _extent(layouts: Sequence[TableLayout],
            area_mm: tuple[float, float, float, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest table mm of every layout's tiles and markers (and of ``area_mm``)."""
    pts = np.concatenate([np.concatenate([t.corners for t in lay.tiles]
                                         + [m.corners for m in lay.markers])
                          for lay in layouts])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    if area_mm is not None:
        lo = np.minimum(lo, np.asarray(area_mm[:2], float))
        hi = np.maximum(hi, np.asarray(area_mm[2:], float))
    return lo, hi


@dataclass(frozen=True)
class OverheadView:
    """One fixed camera straight above the table (60° field of view) framing the table
    mm from ``lo`` to ``hi`` in a ``size`` frame, seat 0 at the bottom."""

    camera: Any  # datasets.camera.Camera
    origin: np.ndarray

    @classmethod
    def framing(cls, lo: np.ndarray, hi: np.ndarray, size: tuple[int, int]) -> OverheadView:
        from datasets.camera import Camera

        fov = 60.0
        probe = Camera.look_at(size[0], size[1], fov, (0.0, 0.0), 1000.0, 0.0, 0.0)
        half = (hi - lo) / 2
        distance = probe.focal * max(half[0] / (0.5 * size[0]), half[1] / (0.5 * size[1]))
        return cls(Camera.look_at(size[0], size[1], fov, (0.0, 0.0), distance, 0.0, 0.0),
                   (lo + hi) / 2)

    def plane(self, points: Any) -> np.ndarray:
        """Table mm as the generator's plane has them (y up; ours y towards seat 0)."""
        return (np.asarray(points, float) - self.origin) * np.array([1.0, -1.0])

    @property
    def table_to_image(self) -> np.ndarray:
        """The homography table mm -> pixels."""
        return np.asarray(self.camera.plane_homography() @ np.array(
            [[1.0, 0.0, -self.origin[0]], [0.0, -1.0, self.origin[1]], [0.0, 0.0, 1.0]]))

    def scene(self, layout: TableLayout, backs: Sequence[np.ndarray] = ()) -> Any:
        """``layout`` (and face-down ``backs``) as the generator's painter takes it."""
        from datasets.table_scene import PlaneMarker, PlaneScene, PlaneTile

        markers = []
        for m in layout.markers:
            c = self.plane(m.corners)
            edge = c[1] - c[0]
            markers.append(PlaneMarker(kind=str(m.kind), centre=c.mean(axis=0),
                                       angle=float(np.arctan2(edge[1], edge[0])),
                                       size={"coin": 23.0, "toy-train": 40.0, "pawn": 18.0}
                                       .get(str(m.kind), 20.0)))
        return PlaneScene(tiles=[PlaneTile((int(t.values[0]), int(t.values[1])),
                                           self.plane(t.corners)) for t in layout.tiles]
                          + [PlaneTile((0, 0), self.plane(b), face_down=True) for b in backs],
                          markers=markers, hub=None, table=None, set_size=12)


def framing(layouts: Sequence[TableLayout], size: tuple[int, int] = FRAME_SIZE,
            margin_mm: float = 40.0,
            area_mm: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """A homography table mm -> pixels of a camera straight above that frames every layout.

    ``area_mm`` ``(x0, y0, x1, y1)``: frame at least that part of the table too.
    """
    lo, hi = _extent(layouts, area_mm)
    x0, y0 = lo - margin_mm
    x1, y1 = hi + margin_mm
    scale = min(size[0] / (x1 - x0), size[1] / (y1 - y0))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return np.array([[scale, 0, size[0] / 2 - scale * cx],
                     [0, scale, size[1] / 2 - scale * cy], [0, 0, 1]], dtype=np.float64)


def draw_layout(layout: TableLayout, to_image: np.ndarray, size: tuple[int, int] = FRAME_SIZE,
                cloth: tuple[int, int, int] = (55, 105, 50)) -> np.ndarray:
    """A plain top-down picture of a layout: ivory tiles, black pips, coloured markers."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = cloth
    yy, xx = np.mgrid[0:h, 0:w]
    weave = (((xx // 7 + yy // 5) % 3 - 1) * 3)[..., None]
    img = np.clip(img.astype(np.int16) + weave, 0, 255).astype(np.uint8)
    for tile in layout.tiles:
        pts = apply_homography(to_image, tile.corners)
        cv2.fillPoly(img, [np.round(pts * 4).astype(np.int32)], (226, 236, 240), cv2.LINE_AA, 2)
        cv2.polylines(img, [np.round(pts * 4).astype(np.int32)], True, (90, 90, 90), 1,
                      cv2.LINE_AA, 2)
        c = tile.corners
        mid0, mid1 = (c[0] + c[3]) / 2, (c[1] + c[2]) / 2
        line = apply_homography(to_image, np.array([mid0, mid1]))
        cv2.line(img, tuple(np.round(line[0] * 4).astype(int)),
                 tuple(np.round(line[1] * 4).astype(int)), (70, 70, 70), 1, cv2.LINE_AA, 2)
        scale = float(np.linalg.norm(pts[1] - pts[0])) / 24.0
        radius = max(1.0, 1.9 * scale)
        for half, value in enumerate(tile.values):
            a, b = (c[0], c[1]) if half == 0 else (c[2], c[3])
            e0, e1 = (c[3], c[2]) if half == 0 else (c[1], c[0])
            for u, v in _PIPS.get(int(value), []):
                # u across the tile, v from the end towards the middle
                edge = a + (b - a) * (0.15 + 0.7 * u)
                inner = e0 + (e1 - e0) * (0.15 + 0.7 * u)
                mid = (edge + inner) / 2
                p = edge + (mid - edge) * (0.18 + 0.64 * v)
                q = apply_homography(to_image, p)
                cv2.circle(img, tuple(np.round(q * 4).astype(int)), int(round(radius * 4)),
                           (25, 25, 25), -1, cv2.LINE_AA, 2)
    for marker in layout.markers:
        pts = apply_homography(to_image, marker.corners)
        colour = _KIND_COLOUR.get(marker.kind, (0, 0, 200))
        if marker.kind == "toy-train":
            cv2.fillPoly(img, [np.round(pts * 4).astype(np.int32)], colour, cv2.LINE_AA, 2)
        else:
            centre = pts.mean(axis=0)
            r = float(np.linalg.norm(pts[0] - pts[2])) / 2.6
            cv2.circle(img, tuple(np.round(centre * 4).astype(int)), int(r * 4), colour, -1,
                       cv2.LINE_AA, 2)
    return img


@dataclass
class Shown:
    """One table as pictured: the image and what a perfect reader would report on it."""

    image: np.ndarray
    tiles: list[tuple[tuple[int, int], np.ndarray]]
    markers: np.ndarray  # (M, 4, 2)
    renderer: str = "simple drawing"


def composite_mat(image: np.ndarray, table_to_image: np.ndarray, layout: TableLayout,
                  on_top: Sequence[np.ndarray], px_per_mm: float = 3.0) -> None:
    """Lay the printed hub mat under the picture's tiles and markers (in place).

    ``on_top`` are the image polygons (tiles, markers) that hide the mat.
    """
    from vision.mat.geometry import MAT_SIDE_MM
    from vision.mat.hub_mat import mat_image

    sheet = mat_image(layout.hub.players, px_per_mm)
    half = MAT_SIDE_MM / 2
    px_to_mat = np.array([[1 / px_per_mm, 0, -half], [0, 1 / px_per_mm, -half], [0, 0, 1]])
    warp = table_to_image @ layout.hub.mat_matrix @ px_to_mat
    h, w = image.shape[:2]
    flat = cv2.warpPerspective(sheet, warp, (w, h), flags=cv2.INTER_AREA,
                               borderValue=(0, 0, 0))
    area = cv2.warpPerspective(np.full(sheet.shape[:2], 255, np.uint8), warp, (w, h),
                               flags=cv2.INTER_NEAREST)
    for poly in on_top:
        grown = np.asarray(poly, float)
        grown = grown.mean(axis=0) + 1.08 * (grown - grown.mean(axis=0))
        cv2.fillPoly(area, [np.round(grown).astype(np.int32)], 0)
    shade = image.astype(np.float32).mean(axis=2, keepdims=True) / 255.0  # keep the lighting
    lit = np.clip(flat.astype(np.float32) * (0.55 + 0.6 * shade), 0, 255).astype(np.uint8)
    mask = area > 0
    image[mask] = lit[mask]


def render_tables(layouts: Sequence[TableLayout], size: tuple[int, int] = FRAME_SIZE,
                  style_seed: int = 0, renderer: str = "generator",
                  area_mm: tuple[float, float, float, float] | None = None,
                  boneyard: int = 0) -> list[Shown]:
    """Picture every layout from one fixed camera straight above the table.

    ``renderer`` ``"generator"`` uses the synthetic generator's painter (tile
    style, shadows, lighting as in the training images) when it is there,
    else (or with ``"simple"``) :func:`draw_layout`. The camera frames every
    layout's tiles and markers, and ``area_mm`` ``(x0, y0, x1, y1)`` when given.
    ``boneyard`` (the generator's painter only): that many tiles lying face down in a
    heap beside the layouts, the same in every picture (``boneyard_tiles``).
    """
    if renderer == "generator":
        try:
            return _render_with_generator(layouts, size, style_seed, area_mm, boneyard)
        except (ImportError, AttributeError, TypeError):  # the generator's internals moved
            pass
    to_image = framing(layouts, size, area_mm=area_mm)
    out = []
    for layout in layouts:
        image = draw_layout(layout, to_image, size)
        tiles = [(t.values, apply_homography(to_image, t.corners)) for t in layout.tiles]
        markers = np.array([apply_homography(to_image, m.corners) for m in layout.markers])
        if layout.hub.mat:
            composite_mat(image, to_image, layout, [c for _, c in tiles] + list(markers))
        out.append(Shown(image, tiles, markers.reshape(-1, 4, 2)))
    return out


def boneyard_tiles(layouts: Sequence[TableLayout], count: int,
                   seed: int = 0) -> list[np.ndarray]:
    """The corners (table mm) of ``count`` tiles lying face down in a loose heap to the
    right of every layout's tiles and markers, touching none of them or each other."""
    from datasets.table_scene import overlaps, tile_corners

    lo, hi = _extent(layouts, None)
    width = 24.0
    spread = 1.2 * width * np.sqrt(count)
    heap = np.array([hi[0] + spread + 2 * width, (lo[1] + hi[1]) / 2])
    rng = np.random.default_rng([seed, count])
    laid: list[np.ndarray] = []
    for _ in range(40 * count):
        if len(laid) >= count:
            break
        corners = tile_corners(heap + rng.normal(0, spread / 2, 2), rng.uniform(0, np.pi), width)
        if corners[:, 0].min() > hi[0] + width and not any(
                overlaps(corners, other, 1.0) for other in laid):
            laid.append(corners)
    return laid


def _render_with_generator(layouts: Sequence[TableLayout], size: tuple[int, int],
                           style_seed: int,
                           area_mm: tuple[float, float, float, float] | None = None,
                           boneyard: int = 0) -> list[Shown]:
    """The generator's painter (``datasets.render``), one fixed overhead camera, seat 0 down."""
    from datasets import render

    backs = boneyard_tiles(layouts, boneyard, style_seed) if boneyard else []
    if backs:
        pts = np.concatenate(backs)
        heap = (float(pts[:, 0].min()), float(pts[:, 1].min()),
                float(pts[:, 0].max()), float(pts[:, 1].max()))
        area_mm = heap if area_mm is None else (
            min(area_mm[0], heap[0]), min(area_mm[1], heap[1]),
            max(area_mm[2], heap[2]), max(area_mm[3], heap[3]))
    lo, hi = _extent(layouts, area_mm)
    view = OverheadView.framing(lo - 40.0, hi + 40.0, size)
    out = []
    for lay in layouts:
        scene = view.scene(lay, backs)
        painted = render._paint(scene, view.camera, np.random.default_rng(style_seed), 24.0,
                                "table", 0, steady=style_seed)
        tiles = [(t.values, np.asarray(t.corners, float)) for t in painted.tiles]
        if lay.hub.mat:
            keep = [c for _, c in tiles] + [np.asarray(m.corners, float) for m in painted.markers]
            composite_mat(painted.image, view.table_to_image, lay, keep)
        marker_corners = np.array([np.asarray(m.corners, float) for m in painted.markers])
        out.append(Shown(painted.image, tiles, marker_corners.reshape(-1, 4, 2),
                         "generator (datasets.render)"))
    return out


# --- video -------------------------------------------------------------------------------


def _hand(frame: np.ndarray, reach: float, side: int, along: float,
          rng: np.random.Generator) -> None:
    """Draw an arm reaching ``reach`` (0..1) of the way in from one edge."""
    h, w = frame.shape[:2]
    start = [np.array([along * w, -60.0]), np.array([w + 60.0, along * h]),
             np.array([along * w, h + 60.0]), np.array([-60.0, along * h])][side]
    inward = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][side], float)
    length = reach * (0.55 * (h if side in (0, 2) else w))
    tip = start + inward * length
    skin = np.array([120, 150, 205]) + rng.normal(0, 4, 3)
    shade = frame.copy()
    cv2.line(shade, tuple(start.astype(int) + 14), tuple(tip.astype(int) + 14), (0, 0, 0), 80)
    frame[:] = cv2.addWeighted(frame, 0.75, shade, 0.25, 0)
    cv2.line(frame, tuple(start.astype(int)), tuple(tip.astype(int)), skin.tolist(), 70,
             cv2.LINE_AA)
    cv2.circle(frame, tuple(tip.astype(int)), 48, (skin * 1.05).tolist(), -1, cv2.LINE_AA)


def game_frames(shown: Sequence[Shown], seed: int, hold_s: float = 1.4,
                hand_s: float = 1.0, fps: float = FPS,
                noise: float = 3.0) -> Iterator[tuple[np.ndarray, int, bool]]:
    """``(frame, table index, hand in view)`` for a video of the tables in turn.

    Between tables a hand reaches over the table (the table under it already
    the next one); the light drifts slowly and now and then jumps (a lamp);
    every frame has sensor noise.
    """
    rng = np.random.default_rng(seed)
    hold = max(1, round(hold_s * fps))
    hand = max(2, round(hand_s * fps))
    t = 0
    gain, target = 1.0, 1.0
    for k, picture in enumerate(shown):
        if k > 0:
            side, along = int(rng.integers(4)), float(rng.uniform(0.3, 0.7))
            for j in range(hand):
                reach = math.sin(math.pi * (j + 0.5) / hand)
                frame = picture.image.copy()
                _hand(frame, reach, side, along, rng)
                yield _finish(frame, gain, rng, noise), k, True
                t += 1
        if rng.random() < 0.25:
            target = float(rng.uniform(0.8, 1.15))  # someone switched a lamp
        for _ in range(hold):
            gain += 0.5 * (target - gain) if abs(target - gain) > 0.01 else 0.0
            yield _finish(picture.image.copy(), gain, rng, noise), k, False
            t += 1


def _finish(frame: np.ndarray, gain: float, rng: np.random.Generator,
            noise: float) -> np.ndarray:
    out = frame.astype(np.float32) * gain + rng.normal(0, noise, frame.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


# --- following the video -----------------------------------------------------------------


class OracleReader:
    """Reports exactly the tiles and markers drawn in the current picture.

    Stands in for the trained reader when ``models/`` is empty, so that the
    tracker, the reconstruction and the observer are measured on their own.
    """

    def __init__(self) -> None:
        self.current: Shown | None = None

    def reset(self) -> None:
        """As ``TileReader.reset``: this reader learns nothing from earlier frames."""

    def read(self, image: np.ndarray) -> Any:
        from types import SimpleNamespace

        from vision.models.detections import Detections
        from vision.readings import SeenTile

        assert self.current is not None
        tiles = [SeenTile(v, c) for v, c in self.current.tiles]
        m = self.current.markers
        return SimpleNamespace(tiles=tiles,
                               markers=Detections(m, np.ones(len(m)), np.ones(len(m))))


class _Capture:
    """A capture over generated frames that tells the oracle what is shown."""

    def __init__(self, frames: Iterator[tuple[np.ndarray, int, bool]], shown: Sequence[Shown],
                 oracle: OracleReader | None, fps: float) -> None:
        self.frames, self.shown, self.oracle, self.fps = frames, shown, oracle, fps
        self.count = 0
        self.hand_ends: list[int] = []
        self._was_hand = False
        self.making_s = 0.0  # time spent making frames, not following them

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        t0 = time.perf_counter()
        item = next(self.frames, None)
        self.making_s += time.perf_counter() - t0
        if item is None:
            return False, None
        frame, k, hand = item
        if self._was_hand and not hand:
            self.hand_ends.append(self.count)
        self._was_hand = hand
        if self.oracle is not None:
            self.oracle.current = self.shown[k]
        self.count += 1
        return True, frame

    def get(self, prop: int) -> float:
        return self.fps if prop == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        pass


def _alert_keys(alerts: Sequence[Any]) -> list[tuple[str, Any, Any]]:
    return [(a.code, a.seat, a.train) for a in alerts]


def follow(shown: Sequence[Shown], players: int, rules: RuleSet, seed: int,
           reader: Any = None, mat: bool = False, hold_s: float = 2.5,
           hand_s: float = 1.0, engine: int | None = None) -> dict[str, Any]:
    """Run the tracker over the video of ``shown``; its tables, alerts and timings.

    ``engine`` is the round's engine when the tracker is told it, as the
    companion app tells it (it knows the round)."""
    from vision.events import AlertRaised, CameraReason, CameraStatus, TableSettled
    from vision.tracking.tracker import Tracker

    oracle = OracleReader() if reader is None else None
    capture = _Capture(game_frames(shown, seed, hold_s, hand_s), shown, oracle, FPS)
    tracker = Tracker("0", players, rules, reader=reader or oracle, mat=mat, engine=engine,
                      opener=lambda _: capture, max_retries=0, sleep=lambda _: None)
    tables: list[TableState] = []
    alerts: list[Any] = []
    settled_frames: list[int] = []
    start = time.perf_counter()
    for event in tracker:
        if isinstance(event, TableSettled):
            tables.append(event.table)
            settled_frames.append(event.frame)
        elif isinstance(event, AlertRaised):
            alerts.append(event.alert)
        elif isinstance(event, CameraStatus) and event.reason is CameraReason.LOST:
            break
    elapsed = time.perf_counter() - start - capture.making_s
    latencies = []
    for end in capture.hand_ends:
        later = [f for f in settled_frames if f >= end]
        if later:
            latencies.append((later[0] - end) / FPS)
    return {"tables": tables, "alerts": alerts, "frames": capture.count, "seconds": elapsed,
            "latencies": latencies, "tiles_read": tracker.tiles_read,
            "tiles_reused": tracker.tiles_reused, "reads": tracker.reads,
            "backs_read": tracker.backs_read, "backs_reused": tracker.backs_reused}


def benchmark_games(n: int, seed: int, players_cycle: Sequence[int] = (3, 4, 2, 5),
                    reader: Any = None, max_tables: int | None = None,
                    mat: bool = False, boneyard: int = 0) -> dict[str, Any]:
    """Bots' rounds with injected breaches, filmed and followed; see ``benchmarks/table.py``.

    ``reader`` reads the frames (``None``: the oracle); ``max_tables`` cuts
    each round short (the trained reader is slow on a CPU); ``boneyard`` tiles lie
    face down in a heap beside the trains throughout.
    """
    rules = RuleSet.preset("standard")
    injected = found = false = moves = frames = unexplained = 0
    renderer = ""
    seconds = 0.0
    same = backs_read = backs_reused = 0
    latencies: list[float] = []
    details = []
    for g in range(n):
        players = players_cycle[g % len(players_cycle)]
        record = play_round(seed + g, players, rules)
        obs, breaches = inject_breaches(record, random.Random(seed + g))
        truth = camera_view(obs)[:max_tables]
        breaches = [b for b in breaches if max_tables is None or b.index < max_tables]
        layouts = layout_sequence(truth, players, np.random.default_rng(seed + g), mat=mat)
        shown = render_tables(layouts, style_seed=seed + g, boneyard=boneyard)
        renderer = shown[0].renderer
        # the engine told, as the companion app tells it (``mtrain watch --engine``)
        result = follow(shown, players, rules, seed + g, reader, mat, engine=truth[0].engine)
        reference = observer_alerts(truth, rules, players)
        got = [a for a in result["alerts"] if a.is_error]
        want_keys = Counter((b.code, b.train) for b in breaches)
        got_keys = Counter((a.code, a.train) for a in got)
        hit = sum(min(c, got_keys[k]) for k, c in want_keys.items())
        ref_errors = Counter((a.code, a.train) for a in reference if a.is_error)
        unexplained += sum((ref_errors - want_keys).values())
        # false: alerts the tracker raised that the true tables do not call for
        false += sum((got_keys - ref_errors).values())
        injected += len(breaches)
        found += hit
        moves += len(truth) - 1
        frames += result["frames"]
        seconds += result["seconds"]
        latencies += result["latencies"]
        backs_read += result["backs_read"]
        backs_reused += result["backs_reused"]
        identical = (result["tables"] == truth
                     and _alert_keys(result["alerts"]) == _alert_keys(reference))
        same += identical
        details.append({"players": players, "turns": len(record) - 1,
                        "tables": len(truth), "settled": len(result["tables"]),
                        "breaches": [b.code for b in breaches],
                        "found": hit, "reference_errors": sum(ref_errors.values()),
                        "tracker_errors": len(got), "identical": identical})
    return {
        "rounds": n, "frames": renderer, "mat": mat, "boneyard": boneyard,
        "reader": "oracle (the drawn tiles)" if reader is None else type(reader).__name__,
        "injected": injected, "injected_found": found,
        "found_rate": round(found / max(injected, 1), 4),
        "false_alerts_per_100_moves": round(100 * false / max(moves, 1), 3),
        "observer_alerts_beyond_injected_per_100_moves": round(100 * unexplained / max(moves, 1),
                                                               3),
        "same_alerts_as_observer": f"{same}/{n}",
        "frames_per_second": round(frames / max(seconds, 1e-9), 1),
        "settled_latency_s_median": round(statistics_median(latencies), 3),
        "backs_read": backs_read, "backs_found_again_unread": backs_reused,
        "rounds_detail": details,
    }


def statistics_median(values: Sequence[float]) -> float:
    return float(np.median(values)) if values else float("nan")


# --- the bundled demo --------------------------------------------------------------------


def write_demo(out_dir: str | Path, seed: int = 4242, players: int = 3,
               max_tables: int = 13, noise: float = 1.5) -> dict[str, Any]:
    """Write ``demo.mp4`` and ``demo.json`` (the true tables and the expected alerts)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rules = RuleSet.preset("standard")
    record = play_round(seed, players, rules)
    obs, breaches = inject_breaches(record[:max_tables + 1], random.Random(seed),
                                    (AlertCode.MISMATCH, AlertCode.EXTRA_TILE))
    truth = camera_view(obs)
    layouts = layout_sequence(truth, players, np.random.default_rng(seed))
    shown = render_tables(layouts)
    video = out / "demo.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"mp4v"), FPS, FRAME_SIZE)
    for frame, _, _ in game_frames(shown, seed, hold_s=1.2, hand_s=0.8, noise=noise):
        writer.write(frame)
    writer.release()
    reference = observer_alerts(truth, rules, players)
    meta = {"players": players, "rules": rules.to_json(), "first": 0, "fps": FPS,
            "breaches": [{"code": b.code, "train": b.train} for b in breaches],
            "observations": [t.to_json() for t in truth],
            "alerts": [a.to_json() for a in reference]}
    (out / "demo.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m datasets.table_game [OUT_DIR]``: write the bundled demo."""
    import argparse

    parser = argparse.ArgumentParser(description="write the bundled demo video")
    parser.add_argument("out", nargs="?", default="datasets/demo")
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args(argv)
    meta = write_demo(args.out, seed=args.seed)
    print(f"wrote {args.out}/demo.mp4: {len(meta['observations'])} tables, "
          f"{len(meta['alerts'])} alerts expected")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
