"""``mtrain serve``: the companion web app on the LAN, fed by the camera, a recording or the sim.

Registration is cheap (argparse only); Flask and the sources load in the handler.
The app runs under waitress, a production WSGI server: one event loop reads and
writes every connection, and a pool of threads runs the requests. Each live
page holds one thread for its event stream (sent as it is written, never
buffered), so streams are counted (:mod:`companion_app.stream_room`): a device
past its share, or the table past ``SSE_CLIENTS``, is refused at once, and the
pool keeps ``THREADS - SSE_CLIENTS`` threads for everyone's pages. An idle
connection costs no thread, only a place among ``CONNECTIONS``. Before any
thread starts, the allocator's arenas are capped (:mod:`companion_app.memory`).
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from companion_app import stream_room

DEFAULT_PORT = 8000
SSE_CLIENTS = stream_room.TOTAL
THREADS = SSE_CLIENTS + 12
#: Open connections at once (idle ones cost a socket, not a thread), and from one device:
#: a device cannot take every place (a browser opens a handful).
CONNECTIONS = 500
CONNECTIONS_PER_DEVICE = 250


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "serve",
        help="start the companion web app (table, alerts, score pad)",
        description="Start the companion web app. With no --source it plays the bundled "
        "demo recording in a loop (or, without one, a simulated bot game).",
    )
    parser.add_argument(
        "--source", metavar="CAMERA|VIDEO|DIR",
        help="a camera index (0), a video file, a folder of frames, 'demo' or 'sim'",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--db", metavar="PATH", default="instance/mtrain.sqlite3",
                        help="the SQLite database (default instance/mtrain.sqlite3)")
    parser.add_argument("--profile", metavar="PATH", default=None,
                        help="the set profile (mtrain calibrate) to read with and to keep "
                             "from the app's set page (default: set_profile.json beside "
                             "the database)")
    parser.add_argument("--turn-seconds", type=float, default=2.0,
                        help="sim and demo replay: seconds between tables (default 2)")
    parser.add_argument("--new-pin", action="store_true",
                        help="draw a new table PIN (the stored one is kept hashed and cannot "
                        "be shown again; use this when it is forgotten)")
    parser.set_defaults(func=serve)


def lan_address() -> str:
    """This machine's address on the LAN (no packet is sent), or 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def page_url(host: str, port: int) -> str:
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    return f"http://{shown}:{port}/"


class Server:
    """``app`` under waitress on ``host:port`` (0: a free port, see :attr:`port`):
    :meth:`run` serves until Ctrl+C or :meth:`close` (from any thread).

    Raises :class:`OSError` when the address cannot be listened on.
    """

    def __init__(self, app: Any, host: str, port: int, *, threads: int = THREADS) -> None:
        from waitress import create_server

        self._connections: dict[int, Any] = {}  # waitress's socket map: listener and clients
        # lookahead: a stream's thread learns at once that its page has gone
        self._server = create_server(app, map=self._connections, host=host, port=port,
                                     threads=threads, ident="mtrain", expose_tracebacks=False,
                                     connection_limit=CONNECTIONS,
                                     channel_request_lookahead=1)
        self._server.channel_class = device_channel(self._server.channel_class,
                                                    CONNECTIONS_PER_DEVICE)
        self.port = int(self._server.effective_port)
        self._running = threading.Event()

    def run(self) -> None:
        """Serve until :meth:`close`; Ctrl+C comes out as ``KeyboardInterrupt``."""
        from waitress import wasyncore

        adj = self._server.adj
        self._running.set()
        try:
            wasyncore.loop(timeout=adj.asyncore_loop_timeout, map=self._connections,
                           use_poll=adj.asyncore_use_poll)
        finally:
            self._running.clear()

    def close(self) -> None:
        """Stop listening, drop every connection (event streams included), end the threads."""
        from waitress import wasyncore

        def drop() -> None:
            wasyncore.close_all(self._connections)

        if self._running.is_set():  # the loop's own thread closes what it polls
            self._server.trigger.pull_trigger(drop)
            for _ in range(100):
                if not self._running.is_set():
                    break
                time.sleep(0.05)
        else:
            drop()
        self._server.task_dispatcher.shutdown(timeout=2)


def device_channel(base: Any, limit: int) -> Any:
    """waitress's connection class, closing at once a connection that would give its
    device (its address) more than ``limit`` open ones."""

    class DeviceChannel(base):
        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any,
                     map: dict[int, Any] | None = None) -> None:  # noqa: A002 - waitress's name
            super().__init__(server, sock, addr, adj, map=map)
            device = addr[0] if isinstance(addr, tuple) else addr
            open_ = sum(1 for channel in (map or {}).values()
                        if isinstance(channel, base) and channel is not self
                        and (channel.addr[0] if isinstance(channel.addr, tuple)
                             else channel.addr) == device)
            if open_ >= limit:
                self.handle_close()

    return DeviceChannel


def print_banner(url: str, pin: str | None, source: str, why: str | None, read_only: bool,
                 database: str) -> None:
    import segno

    out = sys.stdout
    print(f"mtrain serve: open {url} on a phone or tablet on this network", file=out)
    if pin:
        print(f"mtrain serve: the table's PIN is {pin} (needed for any change)", file=out)
    else:
        print("mtrain serve: the table's PIN is the one shown when it was drawn (it is kept "
              "hashed and cannot be shown again; forgotten? restart with --new-pin)", file=out)
    print(f"mtrain serve: live source: {source}" + (f" — {why}" if why else ""), file=out)
    print(f"mtrain serve: database {database}" + (" (READ-ONLY)" if read_only else ""), file=out)
    try:
        segno.make(url, error="m").terminal(out=out, compact=True)
    except UnicodeEncodeError:  # a console that cannot show block characters
        segno.make(url, error="m").terminal(out=out, compact=False)
    out.flush()


def serve(args: argparse.Namespace) -> int:
    from companion_app import attach_worker, create_app
    from companion_app.memory import cap_arenas
    from companion_app.sources import TrackerSource, default_source, source_from_arg
    from engine.errors import BadInputError

    cap_arenas()  # before the worker's, waitress's and ONNX Runtime's threads
    if not 0 <= args.port < 65536:
        raise BadInputError("--port", f"{args.port} is not a port number")
    db_path = Path(args.db)
    if str(db_path) == "instance/mtrain.sqlite3":
        db_path.parent.mkdir(parents=True, exist_ok=True)
    why: str | None = None
    if args.source is None:
        source, why = default_source(args.turn_seconds)
    else:
        source = source_from_arg(args.source, args.turn_seconds)
    config: dict[str, Any] = {"DATABASE": str(db_path), "NEW_PIN": args.new_pin}
    if args.profile:
        from vision.reading.set_profile import load_profile

        load_profile(args.profile)  # a bad profile is a clear error up front
        config["SET_PROFILE"] = args.profile
    app = create_app(config)
    if isinstance(source, TrackerSource):
        source.profile = (Path(args.profile) if args.profile
                          else db_path.with_name("set_profile.json"))
    try:
        server = Server(app, args.host, args.port)
    except OSError as exc:
        raise BadInputError(f"{args.host}:{args.port}", f"cannot listen ({exc.strerror})") from None
    url = page_url(args.host, server.port)
    app.config["PUBLIC_URL"] = url
    worker = attach_worker(app, source)
    print_banner(url, app.config["PIN"], source.label, why, app.config["READ_ONLY"], str(db_path))
    try:
        server.run()
    except KeyboardInterrupt:
        print("mtrain serve: stopped", file=sys.stdout)
    finally:
        worker.stop()
        server.close()
    return 0
