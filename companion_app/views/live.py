"""The live page: the table drawing, the alerts in words, the stream that updates both,
the round's replay; access."""

from __future__ import annotations

import io
import json
import queue
from collections.abc import Iterator, Sequence
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    stream_with_context,
    url_for,
)

from companion_app import alert_log, replay, store
from companion_app.alert_words import TITLES, train_name
from companion_app.db import get_db
from companion_app.export import Cell, attachment, csv_text
from companion_app.security import (
    AccessError,
    pin_required,
    pin_state,
    safe_next,
    set_pin,
    try_pin,
    wrong_pin_message,
)
from companion_app.stream_room import StreamRoom
from companion_app.views.common import game_or_404, round_or_404, worker

bp = Blueprint("live", __name__)


#: The live page lists at most this many of the round's alerts.
SHOWN_ALERTS = 50
#: How often a quiet stream checks that its page is still there.
GONE_CHECK_SECONDS = 1.0


def snapshot() -> dict[str, Any]:
    """Everything the live page shows, as JSON: game, seats, table, turn, alerts (in
    words), camera."""
    db = get_db()
    game = store.current_game(db)
    last = current_app.extensions.get("mtrain_last_table")
    table: dict[str, Any] | None = None
    turn = None
    if game is not None:
        table, turn = store.last_table(db, game, game.current_round)
        if (table is None and last and last.get("game_id") == game.id
                and last.get("round") == game.current_round):
            table, turn = last["table"], last["turn"]
        alerts = alert_log.alerts(db, game.id, game.current_round)
    else:
        if last and last.get("game_id") is None:
            table, turn = last["table"], last["turn"]
        alerts = alert_log.alerts(db, None, None)
    players = list(game.players) if game else default_seats(table)
    w = worker()
    status = None if w is None else {"ok": w.status.ok, "reason": w.status.reason.value,
                                     "message": w.status.message}
    return {
        "game": None if game is None else {
            "id": game.id, "name": game.name, "round": game.current_round,
            "rounds": game.rounds, "engine": game.engine_of(game.current_round),
        },
        "players": players,
        "table": table,
        "turn": turn,
        "alerts": [a.to_json(players) for a in alerts[-SHOWN_ALERTS:]],
        "titles": TITLES,
        "status": status,
        "source": current_app.config.get("SOURCE_LABEL", ""),
    }


def _players(game_id: int | None) -> list[str]:
    game = None if game_id is None else store.get_game(get_db(), game_id)
    return list(game.players) if game is not None else default_seats(None)


def default_seats(table: dict[str, Any] | None, players: int = 4) -> list[str]:
    """Seat names with no game started: as many as the table shown has players'
    trains (a recording of three players shows three seats), else ``players``."""
    if table:
        owners = {t.get("owner") for t in table.get("trains", []) if isinstance(t, dict)}
        seats = sum(1 for o in owners if isinstance(o, int) and not isinstance(o, bool))
        if seats >= 2:
            players = seats
    return [f"Seat {i + 1}" for i in range(players)]


@bp.get("/")
def index() -> str:
    return render_template("live.html", state=snapshot())


@bp.get("/api/state")
def state() -> Any:
    return snapshot()


@bp.get("/api/replay")
def replay_current() -> Any:
    """The current round's replay (empty with no game)."""
    game = store.current_game(get_db())
    if game is None:
        return {"game_id": None, "round": None, "players": default_seats(None), "frames": []}
    return replay_json(game, game.current_round)


@bp.get("/api/games/<int:game_id>/rounds/<int:number>/replay")
def replay_round(game_id: int, number: int) -> Any:
    """One round's replay: its settled tables, oldest first, with their alerts in words."""
    game = game_or_404(game_id)
    return replay_json(game, round_or_404(game, number))


def replay_json(game: store.Game, number: int) -> dict[str, Any]:
    """The round's tables with their alerts said as everywhere else (as kept in the round's
    alert log, or as the replay kept them where the log has them no more)."""
    players = list(game.players)
    db = get_db()
    frames = replay.frames(db, game.id, number)
    kept = alert_log.by_id(db, game.id, number)
    for frame in frames:
        said = []
        for raw in frame["alerts"]:
            logged = kept.get(raw.get("id")) or alert_log.from_json(raw)
            if logged is not None:
                said.append(logged.to_json(players))
        frame["alerts"] = said
    return {"game_id": game.id, "round": number, "players": players,
            "engine": game.engine_of(number), "frames": frames}


@bp.get("/games/<int:game_id>/rounds/<int:number>/alerts.csv")
def alerts_csv(game_id: int, number: int) -> Response:
    """The round's alerts as a spreadsheet, said as on the pages."""
    game = game_or_404(game_id)
    number = round_or_404(game, number)
    rows: list[Sequence[Cell]] = [["time", "player", "train", "alert", "what happened",
                                   "what to do", "acknowledged", "code"]]
    for logged in alert_log.alerts(get_db(), game.id, number):
        alert, words = logged.alert, logged.words(game.players)
        rows.append([logged.created or "", train_name(alert.seat, game.players),
                     train_name(alert.train, game.players, train=True), words.title,
                     words.text, words.advice, logged.acked or "", alert.code.value])
    return Response(csv_text(rows), mimetype="text/csv", headers=attachment(
        game.name, f"-{game.id}-round-{number}-alerts.csv", fallback="game"))


@bp.get("/stream")
def stream() -> Response:
    """Server-sent events: ``table``, ``alert``, ``ack``, ``status``, ``round-over``.

    A device past its share of streams, or a table past its total, is refused at once
    (429 or 503, :mod:`companion_app.stream_room`); the page says so and tries later.
    """
    room = stream_room()
    device = request.remote_addr or "unknown"
    refused = room.enter(device)
    if refused is not None:
        return Response(json.dumps(refused.to_json()), status=refused.status,
                        mimetype="application/json", headers={"Retry-After": "10"})
    broadcaster = current_app.extensions["mtrain_broadcaster"]
    keepalive = float(current_app.config["SSE_KEEPALIVE_SECONDS"])
    # waitress tells a stream its page has gone (the place is given back within a second)
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)

    def events() -> Iterator[str]:
        # Subscribe before taking the snapshot so that nothing falls between the two.
        q = broadcaster.subscribe()
        try:
            yield f"retry: 3000\nevent: snapshot\ndata: {json.dumps(snapshot())}\n\n"
            quiet = 0.0
            while not gone():
                try:
                    message = q.get(timeout=min(keepalive, GONE_CHECK_SECONDS))
                except queue.Empty:
                    quiet += min(keepalive, GONE_CHECK_SECONDS)
                    if quiet >= keepalive:
                        quiet = 0.0
                        yield ": keepalive\n\n"
                else:
                    quiet = 0.0
                    yield f"event: {message['type']}\ndata: {json.dumps(message)}\n\n"
        finally:
            broadcaster.unsubscribe(q)

    response = Response(
        stream_with_context(events()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    left: list[bool] = []

    def leave() -> None:  # once, whether or not the stream ever started
        if not left:
            left.append(True)
            room.leave(device)

    response.call_on_close(leave)
    return response


@bp.get("/api/streams")
def streams() -> Any:
    """Live pages open from this device and in all, with their limits (the page asks
    when its stream is refused)."""
    return stream_room().counts(request.remote_addr or "unknown")


def stream_room() -> StreamRoom:
    room = current_app.extensions.get("mtrain_streams")
    if not isinstance(room, StreamRoom):
        room = current_app.extensions["mtrain_streams"] = StreamRoom(
            per_device=int(current_app.config["STREAMS_PER_DEVICE"]),
            total=int(current_app.config["STREAMS_TOTAL"]))
    return room


@bp.post("/alerts/<int:alert_id>/ack")
@pin_required
def ack(alert_id: int) -> Any:
    logged = alert_log.ack_alert(get_db(), alert_id)
    if logged is None:
        raise AccessError(404, f"There is no alert {alert_id}.")
    alert = logged.to_json(_players(logged.game_id))
    current_app.extensions["mtrain_broadcaster"].publish({"type": "ack", "alert": alert})
    if request.accept_mimetypes.best == "application/json":
        return {"alert": alert}
    return redirect(request.referrer or url_for("live.index"))


@bp.route("/unlock", methods=["GET", "POST"])
def unlock() -> Any:
    """Enter the table's PIN once; this browser may then change things."""
    nxt = safe_next(request.values.get("next"), url_for("live.index"))
    if request.method == "POST":
        pin = request.form.get("pin", "")
        if not pin.strip():
            return render_template("unlock.html", next=nxt,
                                   error="Please enter the table's PIN."), 400
        if not try_pin(pin):
            return render_template("unlock.html", next=nxt,
                                   error=wrong_pin_message(pin_state(wrong=True))), 403
        flash("Unlocked: this device may now change the game.")
        return redirect(nxt)
    return render_template("unlock.html", next=nxt, error=None)


@bp.post("/lock")
def lock() -> Any:
    session.pop("unlocked", None)
    flash("Locked: changes need the PIN again.")
    return redirect(url_for("live.index"))


@bp.get("/qr.svg")
def qr() -> Response:
    """A QR code of the page's address, for phones at the table."""
    import segno

    url = current_app.config.get("PUBLIC_URL") or request.host_url
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#111",
                                    light="#fff", xmldecl=False, title=f"mtrain: {url}")
    return Response(out.getvalue(), mimetype="image/svg+xml")


@bp.get("/settings")
def settings() -> str:
    return render_template("settings.html", source=current_app.config.get("SOURCE_LABEL", ""),
                           url=current_app.config.get("PUBLIC_URL") or request.host_url)


@bp.post("/settings/pin")
@pin_required
def new_pin() -> Any:
    """Draw a new random PIN (shown once on this page and on the console)."""
    pin = store.new_pin()
    set_pin(get_db(), pin)
    print(f"mtrain: the table's new PIN is {pin}", flush=True)
    flash(f"The table's new PIN is {pin}. Other devices must enter it again.")
    return redirect(url_for("live.settings"))
