"""Serving benchmark: the real ``mtrain serve`` under a table's worth of tablets and more.

The server runs as its own process on the loopback address; each device is a
loopback address of its own (127.0.0.x). Three parts, written to
benchmarks/results/serve.json:

- ``load`` (the top-level figures): the bundled demo recording (``--source
  demo``: the camera pipeline at work); 20 tablets hold the live page's event
  stream open while other clients send 50 page and API requests a second for
  60 seconds. Request latency (p50, p99, max), errors (a request that failed
  or did not answer 200, a stream that broke), requests served, events
  streamed, the server's peak resident memory (``VmHWM``).
- ``many_streams``: one device opens 200 event streams and holds every
  connection open; another device loads the live page meanwhile. How many
  streams were taken and refused (429, at once), and the other device's page
  time, against the same page with no streams held.
- ``photo_memory``: 100 hand photos (the painter's ``hands`` scenes as 12 MP
  JPEGs) uploaded and read through the running server (``--source sim``)
  after a warm-up read of each distinct photo; its resident memory
  (``VmRSS``) fresh, at the start and after each read.
  ``--baseline`` runs it again with glibc's default arenas
  (``MALLOC_ARENA_MAX`` = 8 per core) for comparison.

Everything is bounded: the server is stopped (Ctrl+C, then killed) whatever
happens.

    python -m benchmarks.serve [--part load|many_streams|photo_memory]
        [--seconds 60] [--rate 50] [--tablets 20] [--photos 100] [--baseline]
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


def start_server(folder: Path, source: str = "demo", env_extra: dict[str, str] | None = None
                 ) -> tuple[subprocess.Popen[bytes], int, str]:
    """``mtrain serve`` on a free loopback port; its process, port and source line."""
    log = folder / "serve.log"
    command = [sys.executable, "-m", "mtrain", "serve", "--source", source,
               "--host", "127.0.0.1", "--port", "0", "--db", str(folder / "bench.sqlite3")]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env_extra or {})}
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                  env=env, preexec_fn=_ctrl_c_stops)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and server.poll() is None:
        text = log.read_text(errors="replace")
        port = re.search(r"open http://127\.0\.0\.1:(\d+)/", text)
        line = re.search(r"live source: (.*)", text)
        if port and line:
            return server, int(port.group(1)), line.group(1).strip().replace(f"{ROOT}/", "")
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


def rss_mb(pid: int) -> float | None:
    """The process's resident memory now (Linux ``VmRSS``), in MB."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(match.group(1)) / 1024 if match else None


def device(port: int, number: int, timeout: float = REQUEST_TIMEOUT_S
           ) -> http.client.HTTPConnection:
    """A connection from device ``number`` (the loopback address 127.0.0.<number>)."""
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(f"127.0.0.{number}", 0))


def tablet(port: int, tally: Tally, stop: threading.Event, opened: threading.Barrier,
           number: int = 10) -> None:
    """One live page: the event stream, read until the end (a break is an error)."""
    conn = device(port, number, REQUEST_TIMEOUT_S * 3)
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
    streams = [threading.Thread(target=tablet, args=(port, tally, stop, opened, 10 + k),
                                daemon=True) for k in range(tablets)]
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


def run_load(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
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
    return {
        "setup": f"mtrain serve --source demo on 127.0.0.1 (waitress); {args.tablets} event "
                 f"streams held open, each from a device of its own; {args.rate:g} GET "
                 f"requests/s for {args.seconds:g} s over {SENDERS} keep-alive connections, "
                 f"cycling {', '.join(PATHS)}",
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
    }, not tally.errors


def page_times(port: int, number: int, loads: int) -> list[float]:
    """Seconds for device ``number`` to load the live page, ``loads`` times, one connection."""
    conn = device(port, number)
    times = []
    try:
        for _ in range(loads):
            started = time.perf_counter()
            conn.request("GET", "/")
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"/ answered {response.status}")
            times.append(time.perf_counter() - started)
    finally:
        conn.close()
    return times


def run_many_streams(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    held: list[tuple[http.client.HTTPConnection, http.client.HTTPResponse]] = []
    statuses: dict[int, int] = {}
    answer_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="mtrain-bench-streams-") as folder:
        server, port, source = start_server(Path(folder), "sim")
        try:
            time.sleep(1.0)
            quiet = page_times(port, 2, 20)
            for _ in range(args.streams):
                conn = device(port, 1)
                started = time.perf_counter()
                conn.request("GET", "/stream")
                response = conn.getresponse()
                answer_times.append(time.perf_counter() - started)
                if response.status != 200:
                    response.read()  # the refusal; the connection stays open
                held.append((conn, response))
                statuses[response.status] = statuses.get(response.status, 0) + 1
            busy = page_times(port, 2, 20)
            alive = server.poll() is None
        finally:
            for conn, _ in held:
                conn.close()
            stop_server(server)

    def ms(values: list[float]) -> dict[str, float | None]:
        return {"p50": round((percentile(values, 0.5) or 0) * 1000, 2),
                "max": round(max(values, default=0) * 1000, 2)}

    result = {
        "setup": f"mtrain serve --source sim; device 127.0.0.1 opens {args.streams} event "
                 "streams one after another and holds every connection open; device "
                 "127.0.0.2 then loads / 20 times (and 20 times before, with none held)",
        "streams_opened": args.streams,
        "answers": {str(k): v for k, v in sorted(statuses.items())},
        "stream_answer_ms": ms(answer_times),
        "other_device_page_ms": {"no_streams": ms(quiet), "200_streams_held": ms(busy)},
        "server_alive": alive,
    }
    ok = alive and max(busy, default=99) < 1.0
    return result, ok


def multipart(field: str, filename: str, data: bytes, fields: dict[str, str]
              ) -> tuple[bytes, str]:
    boundary = "mtrainbenchboundary7d3f"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
             .encode() for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
                 f'filename="{filename}"\r\nContent-Type: image/jpeg\r\n\r\n'.encode()
                 + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Session:
    """One browser: a connection with its session cookie and the page's CSRF token."""

    def __init__(self, port: int, number: int) -> None:
        self.conn = device(port, number, timeout=300)
        self.cookie = ""
        self.token = ""

    def send(self, method: str, path: str, body: bytes | None = None,
             kind: str = "application/x-www-form-urlencoded") -> tuple[int, bytes]:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body is not None:
            headers["Content-Type"] = kind
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        match = re.search(rb'name="csrf-token" content="([^"]+)"', data)
        if match:
            self.token = match.group(1).decode()
        return response.status, data

    def form(self, path: str, fields: dict[str, str]) -> int:
        from urllib.parse import urlencode

        status, _ = self.send("POST", path, urlencode({"csrf_token": self.token, **fields})
                              .encode())
        return status


def hand_photos(count: int, size: tuple[int, int] = (4032, 3024)) -> list[bytes]:
    """``count`` painted hand scenes (datasets.render), as 12 MP phone-sized JPEGs."""
    import cv2

    from datasets.render import render_hands, scene_rng

    photos = []
    for index in range(count):
        scene = render_hands(scene_rng(2024, index), size=(1344, 1008))
        image = cv2.resize(scene.image, size, interpolation=cv2.INTER_CUBIC)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        photos.append(data.tobytes())
    return photos


def photo_run(photos: list[bytes], reads: int, env_extra: dict[str, str] | None
              ) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mtrain-bench-photos-") as folder:
        server, port, _ = start_server(Path(folder), "sim", env_extra)
        log = (Path(folder) / "serve.log").read_text(errors="replace")
        pin = re.search(r"the table's PIN is (\d+)", log)
        samples: list[float] = []
        seconds: list[float] = []
        try:
            if pin is None:
                raise RuntimeError("mtrain serve printed no PIN")
            browser = Session(port, 3)
            browser.send("GET", "/unlock")
            if browser.form("/unlock", {"pin": pin.group(1), "next": "/"}) != 302:
                raise RuntimeError("the PIN did not unlock")
            browser.send("GET", "/games/new")
            players = {f"seat_{k}": name for k, name in enumerate(("Ann", "Ben", "Cy", "Di"))}
            if browser.form("/games/new", {"name": "Bench", "preset": "standard",
                                           **players}) != 302:
                raise RuntimeError("no game was made")
            time.sleep(1.0)
            fresh = rss_mb(server.pid)
            for i, photo in enumerate(photos):  # warm-up: every model the reader uses loads
                body, kind = multipart("photo", "warm.jpg", photo, {"csrf_token": browser.token})
                browser.send("POST", f"/games/1/rounds/1/hands/{i % 4}/photo", body, kind)
                browser.send("GET", "/games/1/rounds/1/hands")
            start = rss_mb(server.pid) or 0.0
            for i in range(reads):
                browser.send("GET", "/games/1/rounds/1/hands")
                body, kind = multipart("photo", f"hand{i}.jpg", photos[i % len(photos)],
                                       {"csrf_token": browser.token})
                sent = time.perf_counter()
                status, _ = browser.send("POST", f"/games/1/rounds/1/hands/{i % 4}/photo",
                                         body, kind)
                seconds.append(time.perf_counter() - sent)
                if status != 302:
                    raise RuntimeError(f"photo {i} answered {status}")
                samples.append(rss_mb(server.pid) or 0.0)
        finally:
            stop_server(server)
    return {
        "rss_mb_fresh": round(fresh or 0, 1),
        "rss_mb_start": round(start, 1),
        "rss_mb_max": round(max(samples), 1),
        "rss_mb_end": round(samples[-1], 1),
        "rss_mb_every_10th_read": [round(v, 1) for v in samples[9::10]],
        "growth_mb": round(max(samples) - start, 1),
        "read_seconds_p50": round(percentile(seconds, 0.5) or 0, 2),
    }


def run_photo_memory(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    photos = hand_photos(args.distinct_photos)
    capped = photo_run(photos, args.photos, None)
    result: dict[str, Any] = {
        "setup": f"mtrain serve --source sim; one unlocked device uploads {args.photos} hand "
                 f"photos to the end-of-round page, one after another (cycling "
                 f"{args.distinct_photos} painted hands scenes, datasets.render, 4032x3024 "
                 "JPEG), after one warm-up read of each (every model loaded: rss_mb_start); "
                 "the server's VmRSS after each read",
        "photos_read": args.photos,
        "arenas_capped": capped,
    }
    if args.baseline:
        cores = os.cpu_count() or 1
        result["glibc_default_arenas"] = photo_run(
            photos, args.photos, {"MALLOC_ARENA_MAX": str(8 * cores)})
    ok = capped["rss_mb_max"] < 600 and capped["growth_mb"] < 100
    return result, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("load", "many_streams", "photo_memory"),
                        action="append", help="run only these parts (default: all)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=50.0, help="requests per second")
    parser.add_argument("--tablets", type=int, default=20, help="open event streams")
    parser.add_argument("--streams", type=int, default=200,
                        help="event streams one device opens (many_streams)")
    parser.add_argument("--photos", type=int, default=100, help="hand photos read")
    parser.add_argument("--distinct-photos", type=int, default=8)
    parser.add_argument("--baseline", action="store_true",
                        help="read the photos again with glibc's default arenas")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    parts = args.part or ["load", "many_streams", "photo_memory"]
    try:
        result: dict[str, Any] = json.loads(args.out.read_text())
    except (OSError, ValueError):
        result = {}
    result.update({"benchmark": "serve", "python": platform.python_version(),
                   "machine": platform.machine(), "cpus": os.cpu_count()})
    failed = []
    if "load" in parts:
        figures, ok = run_load(args)
        result.update(figures)
        failed += [] if ok else ["load"]
    for name, run in (("many_streams", run_many_streams), ("photo_memory", run_photo_memory)):
        if name in parts:
            figures, ok = run(args)
            result[name] = figures
            failed += [] if ok else [name]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: result.get(k) for k in ("requests_served", "latency_ms", "errors",
                                                 "many_streams", "photo_memory")},
                     ensure_ascii=False))
    if failed:
        print(f"serve benchmark: out of bounds: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
