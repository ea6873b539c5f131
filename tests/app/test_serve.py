"""``mtrain serve``: its arguments, the source it picks, bad input as one line."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from companion_app import serve, sources
from engine import RuleSet
from engine.errors import BadInputError


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mtrain")
    sub = parser.add_subparsers()
    serve.register(sub)
    return parser.parse_args(["serve", *argv])


def test_register_adds_serve_with_its_options() -> None:
    args = parse("--source", "sim", "--host", "127.0.0.1", "--port", "9000", "--db", "x.db")
    assert (args.source, args.host, args.port, args.db) == ("sim", "127.0.0.1", 9000, "x.db")
    assert args.func is serve.serve
    assert parse().source is None


def test_no_source_plays_the_demo_or_else_the_sim(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "DEMO_DIR", tmp_path / "demo")
    source, why = sources.default_source()
    assert isinstance(source, sources.SimSource) and "no demo recording" in why
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "table.mp4").write_bytes(b"")
    assert sources.demo_recording() == tmp_path / "demo" / "table.mp4"
    monkeypatch.setattr(sources, "models_present", lambda: False)
    source, why = sources.default_source()
    assert isinstance(source, sources.SimSource) and "models are missing" in why
    (tmp_path / "demo" / "demo.json").write_text("{}")
    source, why = sources.default_source()
    assert isinstance(source, sources.DemoLogSource) and "replaying the demo's labels" in why
    monkeypatch.setattr(sources, "models_present", lambda: True)
    monkeypatch.setattr(sources, "tracker_available", lambda: True)
    monkeypatch.setattr(sources, "table_reading_rate", lambda: 0.5)
    source, why = sources.default_source()
    assert isinstance(source, sources.DemoLogSource) and "50% of rendered table tiles" in why
    monkeypatch.setattr(sources, "table_reading_rate", lambda: 0.95)
    source, why = sources.default_source()
    assert isinstance(source, sources.TrackerSource) and "demo recording" in why
    assert "looped" in source.label and not source.live
    assert source.labels == tmp_path / "demo" / "demo.json"


def test_table_reading_rate_comes_from_the_model_eval_report(tmp_path: Path) -> None:
    assert sources.table_reading_rate(tmp_path) is None
    (tmp_path / "eval.json").write_text('{"read": {"by_kind": {"table": {"read_right": 0.42}}}}')
    assert sources.table_reading_rate(tmp_path) == pytest.approx(0.42)
    (tmp_path / "eval.json").write_text(
        '{"read": {"by_kind": {"table": {"read_right": 0.42}}},'
        ' "reader": {"by_kind": {"table": {"read_right": 0.93}}}}')
    assert sources.table_reading_rate(tmp_path) == pytest.approx(0.93)
    (tmp_path / "eval.json").write_text("not json")
    assert sources.table_reading_rate(tmp_path) is None


def test_source_arguments(tmp_path: Path) -> None:
    assert isinstance(sources.source_from_arg("sim"), sources.SimSource)
    camera = sources.source_from_arg("0")
    assert isinstance(camera, sources.TrackerSource) and camera.live and camera.source == 0
    (tmp_path / "frames").mkdir()
    with pytest.raises(BadInputError, match="holds no images"):  # as the tracker says
        sources.source_from_arg(str(tmp_path / "frames"))
    (tmp_path / "frames" / "0001.png").write_bytes(b"")
    folder = sources.source_from_arg(str(tmp_path / "frames"))
    assert isinstance(folder, sources.TrackerSource) and not folder.live
    with pytest.raises(BadInputError, match="no such file, folder or camera index"):
        sources.source_from_arg(str(tmp_path / "missing.mp4"))
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(BadInputError, match="not a video file"):
        sources.source_from_arg(str(tmp_path / "notes.txt"))


def test_a_corrupt_database_stops_serve_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.sqlite3"
    path.write_bytes(b"garbage" * 50)
    with pytest.raises(BadInputError) as caught:
        serve.serve(parse("--source", "sim", "--db", str(path), "--port", "0"))
    assert caught.value.source == str(path)
    assert path.read_bytes() == b"garbage" * 50


def test_a_bad_port_is_bad_input() -> None:
    with pytest.raises(BadInputError, match="not a port"):
        serve.serve(parse("--port", "70000"))


def test_the_banner_prints_url_pin_and_a_qr_code(capsys: pytest.CaptureFixture[str]) -> None:
    serve.print_banner("http://192.0.2.1:8000/", "123456", "sim", "no demo", False, "x.db")
    out = capsys.readouterr().out
    assert "http://192.0.2.1:8000/" in out and "PIN is 123456" in out
    assert "live source: sim — no demo" in out
    assert out.count("\n") > 10  # the QR code's rows


def test_the_tracker_speaks_the_apps_events() -> None:
    from companion_app import events
    from vision import events as vision_events

    # one vocabulary: what the tracker yields is what the worker handles
    assert events.TableSettled is vision_events.TableSettled
    assert events.CameraStatus is vision_events.CameraStatus
    lost = events.CameraStatus(events.CameraReason.LOST, "camera 0 stopped delivering frames")
    assert not lost.ok
    assert events.CameraStatus(events.CameraReason.OPENED, "reading camera 0").ok


def test_the_tracker_source_keeps_the_latest_frame_for_hands(tmp_path: Path) -> None:
    import numpy as np

    from vision.tracking.frame_source import CameraFrames

    class Capture:
        def isOpened(self) -> bool:  # noqa: N802 - cv2.VideoCapture's name
            return True

        def read(self) -> tuple[bool, object]:
            return True, np.full((12, 16, 3), 90, np.uint8)

        def release(self) -> None:
            pass

    source = sources.TrackerSource(0)
    assert source.still() is None
    frames = CameraFrames(0, opener=lambda _: Capture())
    source._frames = frames
    assert source.still() is None
    assert frames.open() and frames.read() is not None
    still = source.still()
    assert still is not None and still[:2] == b"\xff\xd8"  # a JPEG


def test_no_torch_on_the_app_path() -> None:
    import subprocess
    import sys

    code = ("import sys, companion_app, companion_app.serve, companion_app.sources, "
            "companion_app.worker, companion_app.hands, companion_app.sim;"
            "from companion_app import create_app;"
            "print('torch' in sys.modules, 'ultralytics' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]


def test_the_demo_labels_replay_through_the_observer(tmp_path: Path) -> None:
    import json

    from engine import RuleSet

    log = {
        "players": 2, "rules": {"name": "standard"}, "first": 0,
        "observations": [
            {"engine": 12, "trains": [{"owner": 0, "tiles": [], "marker": False},
                                      {"owner": 1, "tiles": [], "marker": False}]},
            {"engine": 12, "trains": [{"owner": 0, "tiles": [[12, 5]], "marker": False},
                                      {"owner": 1, "tiles": [], "marker": False}]},
            {"engine": 12, "trains": [{"owner": 0, "tiles": [[12, 5]], "marker": False},
                                      {"owner": 1, "tiles": [[3, 4]], "marker": False}]},
        ],
    }
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(log))
    source = sources.DemoLogSource(path, turn_seconds=0)
    ctx = sources.GameContext(4, 12, RuleSet.preset("standard"))
    events = list(source.events(ctx))
    tables = [e for e in events if isinstance(e, sources.TableSettled)]
    alerts = [e.alert for e in events if isinstance(e, sources.AlertRaised)]
    assert len(tables) == 3 and tables[1].table.trains[0].tiles == ((12, 5),)
    assert tables[1].turn == 1  # seat 1 moves after seat 0's tile
    assert [a.code for a in alerts] == ["mismatch"] and alerts[0].seat == 1
    assert isinstance(events[-1], sources.RoundOver)
    path.write_text("{not json")
    with pytest.raises(BadInputError, match="cannot be read as JSON"):
        list(source.events(ctx))


def test_mtrain_serve_on_a_corrupt_database_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mtrain.cli import main

    path = tmp_path / "bad.sqlite3"
    path.write_bytes(b"garbage" * 50)
    assert main(["serve", "--db", str(path), "--source", "sim"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mtrain: {path}: is not an SQLite database")


def test_models_are_present_only_with_every_file_models_json_names(tmp_path: Path) -> None:
    import json
    import shutil

    shipped = sources.MODELS_DIR
    if not (shipped / "models.json").exists():
        pytest.skip("no trained models in models/")
    assert sources.models_present()
    for name in ("models.json", *(e["file"] for e in json.loads(
            (shipped / "models.json").read_text()).values())):
        shutil.copyfile(shipped / name, tmp_path / name)
    assert sources.models_present(tmp_path)
    spec = json.loads((tmp_path / "models.json").read_text())
    (tmp_path / spec["pips"]["file"]).unlink()  # the 8-bit pip model the reader loads
    assert not sources.models_present(tmp_path)
    assert not sources.models_present(tmp_path / "nowhere")


def test_a_looped_recording_is_watched_at_its_pace_and_ends_its_round(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import vision.tracking.tracker
    from companion_app.sim import GameContext
    from vision.events import CameraReason, CameraStatus

    made: list[dict[str, object]] = []

    class Frames:
        latest = None

        def close(self) -> None:
            pass

    class FakeTracker:
        def __init__(self, source: object, players: int, rules: object, **kw: object) -> None:
            made.append({"players": players, **kw})
            self.source = Frames()

        def __iter__(self) -> object:
            return iter([CameraStatus(CameraReason.OPENED, "reading video demo.mp4")])

    monkeypatch.setattr(vision.tracking.tracker, "Tracker", FakeTracker)
    video = tmp_path / "demo.mp4"
    video.write_bytes(b"")
    ctx = GameContext(4, 12, RuleSet.preset("standard"))
    looped = list(sources.TrackerSource(str(video), loop=True).events(ctx))
    assert isinstance(looped[-1], sources.RoundOver) and "starts again" in looped[-1].message
    once = list(sources.TrackerSource(str(video)).events(ctx))
    assert not any(isinstance(e, sources.RoundOver) for e in once)
    assert [m["realtime"] for m in made] == [True, True]  # a file plays at its own pace
    list(sources.TrackerSource(0).events(ctx))
    assert made[-1]["realtime"] is False  # a camera delivers at its own pace anyway


class LiveServer:
    """The real server (waitress, as ``mtrain serve`` runs it) on a free loopback port."""

    def __init__(self, app: object) -> None:
        import threading

        self.server = serve.Server(app, "127.0.0.1", 0)
        self.port = self.server.port
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def connect(self, device: int = 1) -> object:
        """A connection from ``127.0.0.<device>``: each such address is a device of its own."""
        import http.client

        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10,
                                          source_address=(f"127.0.0.{device}", 0))

    def close(self) -> None:
        self.server.close()
        self.thread.join(timeout=10)


def sse_event(response: object) -> dict[str, str]:
    """The next server-sent event (comments and ``retry`` skipped)."""
    fields: dict[str, str] = {}
    while True:
        line = response.readline().decode().rstrip("\r\n")  # type: ignore[attr-defined]
        if not line:
            if "event" in fields:
                return fields
            continue
        key, _, value = line.partition(": ")
        if key in ("event", "data"):
            fields[key] = value


def test_the_real_server_streams_events_to_20_tablets_and_still_serves_pages(
    tmp_path: Path,
) -> None:
    import json

    from companion_app import store
    from companion_app.db import connect

    from .tablet import make_app

    app = make_app(tmp_path / "live.sqlite3", SSE_KEEPALIVE_SECONDS=0.2)
    conn = connect(tmp_path / "live.sqlite3")
    store.create_game(conn, name="Семейный вечер", players=["Аня", "Ben"],
                      rules=RuleSet.preset("standard"), rounds=13)
    conn.close()
    live = LiveServer(app)
    streams = []
    try:
        for i in range(serve.SSE_CLIENTS):
            tablet = live.connect(10 + i)
            tablet.request("GET", "/stream")  # type: ignore[attr-defined]
            response = tablet.getresponse()  # type: ignore[attr-defined]
            assert response.status == 200
            assert response.getheader("Content-Type").startswith("text/event-stream")
            assert sse_event(response)["event"] == "snapshot"
            streams.append((tablet, response))
        page = live.connect()
        streams.append((page, None))
        page.request("GET", "/")  # type: ignore[attr-defined]
        answer = page.getresponse()  # type: ignore[attr-defined]
        assert answer.status == 200 and b"<html" in answer.read()
        page.request("GET", "/games/1/scores.csv")  # type: ignore[attr-defined]
        csv_answer = page.getresponse()  # type: ignore[attr-defined]
        assert csv_answer.status == 200 and "Аня" in csv_answer.read().decode()
        assert "filename*=UTF-8''" in csv_answer.getheader("Content-Disposition")
        app.extensions["mtrain_broadcaster"].publish(
            {"type": "status", "ok": True, "message": "camera 0"})
        for _, response in streams[:-1]:  # at once: nothing sits in a buffer
            event = sse_event(response)
            assert event["event"] == "status"
            assert json.loads(event["data"])["message"] == "camera 0"
    finally:
        for tablet, _ in streams:
            tablet.close()  # type: ignore[attr-defined]
        live.close()
    assert not live.thread.is_alive()
