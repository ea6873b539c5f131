"""A round played by the engine's bots, as a camera over the table would film it.

- :func:`play_round` lets bots play a round and records the table after each turn;
- :func:`inject_breaches` (``faults``) breaks some rules in that record (a
  mismatched tile, two tiles in one turn, a tile taken back, a marker left on, a duplicate);
- :func:`camera_view` keeps what a camera can tell apart (no announced passes,
  no repeated tables);
- :func:`render_tables` (``datasets.table_pictures``) pictures each table once;
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
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from datasets.table_layout import layout_sequence
from datasets.table_pictures import FRAME_SIZE, Shown, render_tables
from engine import AlertCode, RuleSet, TableState
from faults import BREACHES as BREACHES  # the kinds this module's rounds break
from faults import Observation, inject_breaches

if TYPE_CHECKING:
    from vision.readings import FrameReading

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
    """The alerts the tracker's referee (a camera's: ``unseen_moves``) raises on
    ``tables`` (the reference the tracker must match)."""
    from engine import judge

    return judge(tables, rules, players, first, unseen_moves=True)


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
    every frame has sensor noise. The lamp is drawn apart from the frames and
    the exposure follows it in time, not frame by frame, so that a round filmed
    at any frame rate is filmed in the same light.
    """
    rng = np.random.default_rng(seed)
    lamp = np.random.default_rng([seed, 1])
    hold = max(1, round(hold_s * fps))
    hand = max(2, round(hand_s * fps))
    step = 1.0 - 0.5 ** (FPS / fps)  # half the way to the lamp's level every 1/FPS s
    gain, target = 1.0, 1.0
    for k, picture in enumerate(shown):
        if k > 0:
            side, along = int(rng.integers(4)), float(rng.uniform(0.3, 0.7))
            for j in range(hand):
                reach = math.sin(math.pi * (j + 0.5) / hand)
                frame = picture.image.copy()
                _hand(frame, reach, side, along, rng)
                yield _finish(frame, gain, rng, noise), k, True
        if lamp.random() < 0.25:
            target = float(lamp.uniform(0.8, 1.15))  # someone switched a lamp
        for _ in range(hold):
            gain += step * (target - gain) if abs(target - gain) > 0.01 else 0.0
            yield _finish(picture.image.copy(), gain, rng, noise), k, False


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

    def read(self, image: np.ndarray) -> FrameReading:
        from vision.models.detections import Detections
        from vision.readings import FrameReading, TileReading, TileReadings

        assert self.current is not None
        tiles = TileReadings.of([TileReading(v, c) for v, c in self.current.tiles])
        m = self.current.markers
        return FrameReading(tiles, Detections(m, np.ones(len(m)), np.ones(len(m))))


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
                    mat: bool = False, boneyard: int = 0, bare: bool = False) -> dict[str, Any]:
    """Bots' rounds with injected breaches, filmed and followed; see ``benchmarks/table.py``.

    ``reader`` reads the frames (``None``: the oracle); ``max_tables`` cuts
    each round short (the trained reader is slow on a CPU); ``boneyard`` tiles lie
    face down in a heap beside the trains throughout; with ``bare`` the film starts on
    the bare table (the mat laid, if any), as a round does before the engine is laid,
    so that the tracker knows the table (``vision.change.known_table``).
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
        if bare:
            layouts = [replace(layouts[0], tiles=[], markers=[]), *layouts]
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
        "bare_table_first": bare,
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
