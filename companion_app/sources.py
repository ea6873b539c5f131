"""Where the live table comes from: the camera tracker, a recording, or the simulator.

A :class:`Source` turns the current game's context into a stream of
:data:`~companion_app.events.SourceEvent`\\ s. ``mtrain serve --source`` picks
one with :func:`source_from_arg`; with no ``--source`` it is
:func:`default_source`: the bundled demo recording (``datasets/demo/``) when
present and the tile models are there to read it, else the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from companion_app.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    RoundOver,
    SourceEvent,
    TableSettled,
)
from companion_app.sim import GameContext, sim_events

if TYPE_CHECKING:
    from engine import RuleSet, TableState
    from vision.tracking.tracker import FrameSource

REPO_ROOT = Path(__file__).resolve().parent.parent
DEMO_DIR = REPO_ROOT / "datasets" / "demo"
MODELS_DIR = REPO_ROOT / "models"
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm")


class Source(Protocol):
    """A stream of table events for one game context."""

    #: one line for the console and the page ("camera 0", "sim", …)
    label: str
    #: True for a camera: when its stream ends the camera is lost and retried.
    live: bool
    #: True when the source sees the table (a camera or a recording): :meth:`still` gives
    #: its latest frame, for reading hands.
    sees_table: bool

    def events(self, ctx: GameContext) -> Iterator[SourceEvent]: ...

    def still(self) -> bytes | None: ...


@dataclass
class SimSource:
    """Bots play the current round turn by turn (see :mod:`companion_app.sim`)."""

    turn_seconds: float = 2.0
    seed: int | None = None
    breach_rate: float = 0.15
    label: str = "sim: engine bots playing turn by turn"
    live: bool = False
    sees_table: bool = False

    def events(self, ctx: GameContext) -> Iterator[SourceEvent]:
        return sim_events(
            ctx, seed=self.seed, turn_seconds=self.turn_seconds, breach_rate=self.breach_rate
        )

    def still(self) -> bytes | None:
        return None


@dataclass
class TrackerSource:
    """The vision tracker on a camera index, a video file or a folder of frames."""

    source: int | str
    models_dir: Path = MODELS_DIR
    loop: bool = False
    label: str = ""
    live: bool = False
    sees_table: bool = True
    #: a recording's ``demo.json``: its players, rules and first seat replace the game's.
    labels: Path | None = None
    #: the set profile (``vision.reading.set_profile``) to read with, when one is kept there.
    profile: Path | None = None

    def __post_init__(self) -> None:
        if not self.label:
            if isinstance(self.source, int):
                self.label = f"camera {self.source}"
            else:
                self.label = f"recording {self.source}" + (" (looped)" if self.loop else "")
        self.live = isinstance(self.source, int)
        self._frames: FrameSource | None = None

    def events(self, ctx: GameContext) -> Iterator[SourceEvent]:
        from vision.reading.set_profile import kept_profile
        from vision.tracking.tracker import TRACKER_CLASSIFIES_HALVES, Tracker

        players, ruleset, first = ctx.players, ctx.rules, 0
        engine: int | None = ctx.engine
        if self.labels is not None:
            recording = DemoLogSource(self.labels).load()
            players = recording.players or players
            ruleset = recording.rules or ruleset
            first = recording.first
            engine = None  # the recording's own engine, from its first table
        # a recording plays at its own pace, as the camera would have shown it
        profile = kept_profile(self.profile, ruleset.set)
        reader = None  # without a profile, the tracker makes its own
        if profile is not None:
            from vision.reading.reader import TileReader

            reader = TileReader(self.models_dir, max_value=ruleset.set,
                                classify_halves=TRACKER_CLASSIFIES_HALVES).with_profile(profile)
        tracker = Tracker(self.source, players, ruleset, reader=reader,
                          models_dir=self.models_dir, engine=engine, first=first,
                          realtime=not self.live)
        self._frames = tracker.source  # its latest frame is the still for reading hands
        try:
            yield from tracker
            if self.loop:
                yield RoundOver("End of the recording; it starts again.")
        finally:
            tracker.source.close()

    def still(self) -> bytes | None:
        """The latest frame as JPEG (None before the first frame)."""
        frame = None if self._frames is None else self._frames.latest
        return None if frame is None else _jpeg(frame)


@dataclass(frozen=True)
class Recording:
    """A recording's ``check`` log (CONTRACTS.md): its seats and rules where it names
    them, the seat that starts, and each table with what was announced."""

    players: int | None
    rules: RuleSet | None
    first: int
    observations: tuple[tuple[TableState, str | None], ...]


@dataclass
class DemoLogSource:
    """The demo recording's own labels (``datasets/demo/demo.json``) played table by table.

    Used when the recording cannot be *watched* (the tile models are missing): the
    tables the video shows are fed, at the recording's pace, to :class:`engine.Observer`
    with the recording's players and rules, so the page shows the same game and alerts.
    """

    path: Path
    turn_seconds: float = 2.0
    label: str = ""
    live: bool = False
    sees_table: bool = False

    def __post_init__(self) -> None:
        if not self.label:
            self.label = (f"demo recording {self.path.name} "
                          "(its recorded tables, not the camera pipeline)")

    def load(self) -> Recording:
        """The recording's ``check`` log, read and checked (:class:`BadInputError` if not)."""
        from engine import RuleSet, TableState
        from engine.errors import BadInputError

        where = str(self.path)
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BadInputError(where, f"cannot be read as JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("observations"), list):
            raise BadInputError(where, "has no observations list")
        players, first = data.get("players"), data.get("first", 0)
        if players is not None and (not isinstance(players, int) or players < 1):
            raise BadInputError(where, f"players {players!r} is not a number of seats")
        if not isinstance(first, int):
            raise BadInputError(where, f"first {first!r} is not a seat")
        observations = []
        for obs in data["observations"]:
            event = obs.get("event") if isinstance(obs, dict) else None
            if event not in (None, "pass", "out"):
                raise BadInputError(where, f"unknown event {event!r}")
            observations.append((TableState.from_json(obs, where), event))
        rules = data.get("rules")
        return Recording(players, None if rules is None else RuleSet.from_json(rules, where),
                         first, tuple(observations))

    def events(self, ctx: GameContext) -> Iterator[SourceEvent]:
        import time

        from engine import Referee, RuleSet

        recording = self.load()
        rules = recording.rules or RuleSet.preset("standard")
        referee = Referee(rules, recording.players or ctx.players, recording.first)
        yield CameraStatus(CameraReason.OPENED, f"{self.label}: playing")
        for index, (table, event) in enumerate(recording.observations):
            ruling = referee.settle(table, event)
            yield TableSettled(table, ruling.to_move, event, frame=index)
            for alert, details in ruling:
                yield AlertRaised(alert, details, frame=index)
            if self.turn_seconds:
                time.sleep(self.turn_seconds)
        yield RoundOver("End of the demo recording; it starts again.")

    def still(self) -> bytes | None:
        return None


def _jpeg(frame: Any) -> bytes | None:
    import cv2

    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])
    return bytes(buf) if ok else None


def demo_recording(demo_dir: Path | None = None) -> Path | None:
    """The bundled demo recording: a video file in ``datasets/demo/`` or the folder of frames."""
    demo_dir = DEMO_DIR if demo_dir is None else demo_dir
    if not demo_dir.is_dir():
        return None
    videos = sorted(p for p in demo_dir.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES)
    if videos:
        return videos[0]
    frames = [p for p in demo_dir.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    return demo_dir if frames else None


def models_present(models_dir: Path | None = None) -> bool:
    """Whether the files ``models.json`` names are all there."""
    from engine.errors import BadInputError
    from vision.models.onnx_models import load_specs

    try:
        load_specs(MODELS_DIR if models_dir is None else models_dir)
    except BadInputError:
        return False
    return True


#: Share of rendered table tiles the committed models must read right (their
#: ``models/eval.json``) before the bundled demo is watched through the camera
#: pipeline by default; below it, the demo replays its recorded tables so that a
#: new user is not shown misreads as rule breaches.
TABLE_READING_BAR = 0.9


def table_reading_rate(models_dir: Path | None = None) -> float | None:
    """The committed models' tile-exact rate on rendered tables, from ``eval.json``:
    through the reader the companion runs (``reader``) where the report has it,
    else through the bare models chained (``read``, older reports)."""
    path = (MODELS_DIR if models_dir is None else models_dir) / "eval.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        section = report["reader"] if "reader" in report else report["read"]
        return float(section["by_kind"]["table"]["read_right"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def tracker_available() -> bool:
    try:
        import importlib.util

        return importlib.util.find_spec("vision.tracking.tracker") is not None
    except (ImportError, ValueError):
        return False


def default_source(turn_seconds: float = 2.0) -> tuple[Source, str]:
    """The demo recording in a loop when it can be read, else the sim; with the reason."""
    recording = demo_recording()
    if recording is None:
        return SimSource(turn_seconds), "no demo recording in datasets/demo/; playing the sim"
    labels = demo_labels()
    if not models_present() or not tracker_available():
        why = ("the tile models are missing in models/" if not models_present()
               else "vision.tracking.tracker is not available")
        if labels is not None:
            return DemoLogSource(labels, turn_seconds), f"{why}; replaying the demo's labels"
        return SimSource(turn_seconds), f"{why}; playing the sim"
    rate = table_reading_rate()
    if labels is not None and (rate is None or rate < TABLE_READING_BAR):
        measured = "unmeasured" if rate is None else f"{rate:.0%}"
        return (DemoLogSource(labels, turn_seconds),
                f"the models read {measured} of rendered table tiles right (bar "
                f"{TABLE_READING_BAR:.0%}); replaying the demo's recorded tables. "
                f"Watch it through the camera pipeline with --source {recording}")
    return (TrackerSource(str(recording), loop=True, labels=labels),
            f"watching the demo recording {recording}")


def demo_labels(demo_dir: Path | None = None) -> Path | None:
    """``datasets/demo/demo.json``: the recording's true tables (a ``check`` log)."""
    path = (DEMO_DIR if demo_dir is None else demo_dir) / "demo.json"
    return path if path.is_file() else None


def source_from_arg(text: str, turn_seconds: float = 2.0) -> Source:
    """``--source``: ``sim``, ``demo``, or what ``vision.tracking.frame_source`` takes: a
    camera index, a video file or a folder of frames."""
    from engine.errors import BadInputError

    if text == "sim":
        return SimSource(turn_seconds)
    if text == "demo":
        if demo_recording() is None:
            raise BadInputError("--source", f"demo: no recording in {DEMO_DIR}")
        source, _ = default_source(turn_seconds)
        return source
    from vision.tracking.frame_source import VideoFrames, frame_source

    try:  # the tracker's own reading of a source: a camera index, a video, a folder
        frames = frame_source(text)
    except BadInputError as exc:
        raise BadInputError("--source", f"{text}: {exc.problem}") from None
    if isinstance(frames, VideoFrames) and Path(text).suffix.lower() not in VIDEO_SUFFIXES:
        raise BadInputError("--source", f"{text}: not a video file ({', '.join(VIDEO_SUFFIXES)})")
    return TrackerSource(int(text) if frames.live else text)

