"""Live streams are counted per device and in all: screens opened by the hundred from one
device are refused at once and never slow another device's pages."""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from companion_app.stream_room import StreamRoom

from .tablet import make_app
from .test_serve import LiveServer, sse_event

HELD = 200
#: Another device's page, loaded this many times while the streams are held, must come
#: back in under ``PAGE_SECONDS`` (the median).
PAGE_LOADS = 5
PAGE_SECONDS = 1.0


def open_stream(live: LiveServer, device: int) -> tuple[Any, Any]:
    conn: Any = live.connect(device)
    conn.request("GET", "/stream")
    return conn, conn.getresponse()


def test_the_room_counts_each_device_and_the_table() -> None:
    room = StreamRoom(per_device=2, total=3)
    assert room.enter("a") is None and room.enter("a") is None
    refused = room.enter("a")
    assert refused is not None and (refused.reason, refused.status) == ("device", 429)
    assert "this device already has 2 live pages open" in refused.message
    assert room.enter("b") is None
    full = room.enter("c")
    assert full is not None and (full.reason, full.status, full.open) == ("table", 503, 3)
    room.leave("a")
    assert room.enter("c") is None
    room.leave("nobody")  # giving back what was never taken changes nothing
    assert room.counts("a") == {"device": 1, "device_limit": 2, "all": 3, "all_limit": 3}


def test_200_streams_from_one_device_leave_another_devices_page_fast(tmp_path: Path) -> None:
    app = make_app(tmp_path / "live.sqlite3", SSE_KEEPALIVE_SECONDS=0.5)
    live = LiveServer(app)
    held: list[Any] = []
    streams: list[Any] = []
    try:
        answers = []
        for _ in range(HELD):
            conn, response = open_stream(live, 1)
            held.append(conn)
            streams.append(response)  # a response let go closes its connection
            if response.status == 200:
                assert sse_event(response)["event"] == "snapshot"
            else:
                answers.append((response.status, json.loads(response.read())))
        limit = app.config["STREAMS_PER_DEVICE"]
        assert len(answers) == HELD - limit
        assert {status for status, _ in answers} == {429}
        assert all("Too many screens" in a["error"] and a["limit"] == limit
                   for _, a in answers)

        other: Any = live.connect(2)
        held.append(other)
        took = []
        for _ in range(1 + PAGE_LOADS):  # the first warms the page's templates and queries
            started = time.perf_counter()
            other.request("GET", "/")
            page = other.getresponse()
            body = page.read()
            took.append(time.perf_counter() - started)
            assert page.status == 200 and b"<html" in body
        # the promise itself is a bound (issue: "loads in under 1 s"); the median of
        # several loads, so that one stall of a busy machine is not taken for a slow app
        # (a page that waits on a held stream thread takes 20 s); serve.json measures it
        middle = statistics.median(took[1:])
        assert middle < PAGE_SECONDS, (
            f"another device's page took {middle:.2f} s (median of {PAGE_LOADS}; "
            + ", ".join(f"{t:.2f}" for t in took) + ")")
        other.request("GET", "/api/streams")
        counts = json.loads(other.getresponse().read())
        assert counts["device"] == 0 and counts["all"] == limit
        _, response = open_stream(live, 2)  # another device still gets its own stream
        assert response.status == 200 and sse_event(response)["event"] == "snapshot"
    finally:
        for conn in held:
            conn.close()
        live.close()


def test_a_closed_page_gives_its_place_back_and_a_full_table_says_so(tmp_path: Path) -> None:
    app = make_app(tmp_path / "live.sqlite3", SSE_KEEPALIVE_SECONDS=30.0,
                   STREAMS_PER_DEVICE=1, STREAMS_TOTAL=2)
    live = LiveServer(app)
    held: list[Any] = []
    try:
        first, response = open_stream(live, 1)
        assert response.status == 200 and sse_event(response)["event"] == "snapshot"
        again, refused = open_stream(live, 1)
        held.append(again)
        assert refused.status == 429 and refused.getheader("Retry-After") == "10"
        refused.read()
        conn, response = open_stream(live, 2)
        held.append(conn)
        assert response.status == 200
        conn3, full = open_stream(live, 3)
        held.append(conn3)
        assert full.status == 503 and json.loads(full.read())["reason"] == "table"
        first.close()  # the page goes: its place comes back without waiting for a keepalive
        deadline = time.monotonic() + 10
        status = None
        while time.monotonic() < deadline:
            conn, response = open_stream(live, 1)
            held.append(conn)
            status = response.status
            if status == 200:
                break
            response.read()
            time.sleep(0.2)
        assert status == 200
    finally:
        for conn in held:
            conn.close()
        live.close()


def test_a_refused_stream_is_not_an_error_page(tmp_path: Path) -> None:
    app = make_app(tmp_path / "live.sqlite3", STREAMS_PER_DEVICE=0)
    response = app.test_client().get("/stream")
    assert response.status_code == 429 and response.is_json
    assert response.get_json()["reason"] == "device"
    client = app.test_client()
    assert client.get("/api/streams").get_json()["device_limit"] == 0


def test_a_device_cannot_take_every_connection(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from companion_app import serve

    monkeypatch.setattr(serve, "CONNECTIONS_PER_DEVICE", 30)
    monkeypatch.setattr(serve, "CONNECTIONS", 40)
    live = LiveServer(make_app(tmp_path / "live.sqlite3"))
    idle: list[socket.socket] = []
    try:
        for _ in range(60):  # idle connections, nothing sent
            idle.append(socket.create_connection(("127.0.0.1", live.port), timeout=5,
                                                 source_address=("127.0.0.1", 0)))
        time.sleep(0.5)
        closed = 0
        for sock in idle:  # those past the device's share were closed at once
            sock.settimeout(0.2)
            with contextlib.suppress(TimeoutError, ConnectionResetError):
                closed += sock.recv(1) == b""
        assert closed >= 60 - 30
        other: Any = live.connect(2)
        other.request("GET", "/")
        page = other.getresponse()
        assert page.status == 200 and b"<html" in page.read()
        other.close()
    finally:
        for sock in idle:
            sock.close()
        live.close()
