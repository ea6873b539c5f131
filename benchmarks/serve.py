"""Serving benchmark: the real ``mtrain serve`` under a table's worth of tablets and more.

The server runs as its own process on the loopback address, watching the
bundled demo recording (``--source demo``: the camera pipeline at work). 20
tablets hold the live page's event stream open while other clients send 50
page and API requests a second for 60 seconds. Written to
benchmarks/results/serve.json: request latency (p50, p99, max), errors
(a request that failed or did not answer 200, a stream that broke), requests
served, events streamed, and the server process's peak resident memory
(``VmHWM``) before the load and at the end. Everything is bounded: the
server is stopped (Ctrl+C, then killed) whatever happens.

    python -m benchmarks.serve [--seconds 60] [--rate 50] [--tablets 20]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "serve.json"
PATHS = ("/", "/api/state", "/games/", "/settings", "/static/app.css")
START_TIMEOUT_S = 120.0
REQUEST_TIMEOUT_S = 10.0
SENDERS = 8


@dataclass
class Tally:
    """What the clients saw (shared by their threads)."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    events: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """``mtrain serve`` on a free loopback port; its process, port and source line."""
    log = folder / "serve.log"
    command = [sys.executable, "-m", "companion_app", "serve", "--source", "demo",
               "--host", "127.0.0.1", "--port", "0", "--db", str(folder / "bench.sqlite3")]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                  env=env, preexec_fn=_ctrl_c_stops)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and server.poll() is None:
        text = log.read_text(errors="replace")
        port = re.search(r"open http://127\.0\.0\.1:(\d+)/", text)
        source = re.search(r"live source: (.*)", text)
        if port and source:
            return server, int(port.group(1)), source.group(1).strip().replace(f"{ROOT}/", "")
        time.sleep(0.2)
    stop_server(server)
    raise RuntimeError(f"mtrain serve did not start: {log.read_text(errors='replace')[-500:]}")


def _ctrl_c_stops() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background child may inherit SIG_IGN


def stop_server(server: subprocess.Popen[bytes]) -> float:
    """Ctrl+C, then a kill after 15 s; the seconds it took to stop."""
    start = time.monotonic()
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=5)
    return time.monotonic() - start


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory so far (Linux ``VmHWM``), in MB."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(match.group(1)) / 1024 if match else None


def tablet(port: int, tally: Tally, stop: threading.Event, opened: threading.Barrier) -> None:
    """One live page: the event stream, read until the end (a break is an error)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S * 3)
    try:
        conn.request("GET", "/stream")
        response = conn.getresponse()
        if response.status != 200:
            tally.error(f"/stream answered {response.status}")
            return
        opened.wait(timeout=REQUEST_TIMEOUT_S * 3)
        while not stop.is_set():
            line = response.readline()
            if not line:
                if not stop.is_set():  # the server stops only after the load
                    tally.error("an event stream ended early")
                return
            if line.startswith(b"event:"):
                with tally.lock:
                    tally.events += 1
    except (OSError, http.client.HTTPException, threading.BrokenBarrierError) as exc:
        if not stop.is_set():
            tally.error(f"/stream: {type(exc).__name__}: {exc}")
    finally:
        conn.close()


def sender(port: int, tally: Tally, start: float, slots: range, rate: float) -> None:
    """Requests at their planned times (slot ``i`` at ``start + i / rate``), one connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    try:
        for i in slots:
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            path = PATHS[i % len(PATHS)]
            sent = time.perf_counter()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as exc:
                tally.error(f"{path}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
                continue
            with tally.lock:
                tally.latencies.append(time.perf_counter() - sent)
            if response.status != 200:
                tally.error(f"{path} answered {response.status}")
    finally:
        conn.close()


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load(port: int, seconds: float, rate: float, tablets: int) -> Tally:
    tally = Tally()
    stop = threading.Event()
    opened = threading.Barrier(tablets + 1)
    streams = [threading.Thread(target=tablet, args=(port, tally, stop, opened), daemon=True)
               for _ in range(tablets)]
    for thread in streams:
        thread.start()
    try:
        opened.wait(timeout=REQUEST_TIMEOUT_S * 3)
    except threading.BrokenBarrierError:
        tally.error("not every tablet got its event stream")
    total = int(seconds * rate)
    start = time.perf_counter() + 0.5
    senders = [threading.Thread(target=sender,
                                args=(port, tally, start, range(k, total, SENDERS), rate),
                                daemon=True) for k in range(SENDERS)]
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join(timeout=seconds + 60)
    stop.set()
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=50.0, help="requests per second")
    parser.add_argument("--tablets", type=int, default=20, help="open event streams")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mtrain-bench-serve-") as folder:
        server, port, source = start_server(Path(folder))
        try:
            time.sleep(3.0)  # the demo's first frames are read before the load starts
            idle_mb = peak_rss_mb(server.pid)
            wall = time.perf_counter()
            tally = load(port, args.seconds, args.rate, args.tablets)
            wall = time.perf_counter() - wall
            peak_mb = peak_rss_mb(server.pid)
            alive = server.poll() is None
        finally:
            stop_s = stop_server(server)
    if not alive:
        tally.error("the server process ended during the load")
    served = len(tally.latencies)
    result: dict[str, Any] = {
        "benchmark": "serve",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "setup": f"mtrain serve --source demo on 127.0.0.1 (waitress); {args.tablets} event "
                 f"streams held open; {args.rate:g} GET requests/s for {args.seconds:g} s "
                 f"over {SENDERS} keep-alive connections, cycling {', '.join(PATHS)}",
        "source": source,
        "requests_planned": int(args.seconds * args.rate),
        "requests_served": served,
        "requests_per_s": served / wall if wall > 0 else None,
        "latency_ms": {name: None if v is None else round(v * 1000, 2) for name, v in (
            ("p50", percentile(tally.latencies, 0.50)),
            ("p99", percentile(tally.latencies, 0.99)),
            ("max", max(tally.latencies, default=None)))},
        "errors": len(tally.errors),
        "error_examples": sorted(set(tally.errors))[:5],
        "event_streams": args.tablets,
        "events_streamed": tally.events,
        "server_peak_rss_mb": {"before_load": idle_mb, "end": peak_mb},
        "stop_seconds": round(stop_s, 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("requests_served", "latency_ms", "errors",
                                             "events_streamed", "server_peak_rss_mb")}))
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
