"""The companion web app: a tablet page with the live table, alerts and the score pad.

``create_app(test_config=None)`` is the application factory (Flask's tutorial
layout): blueprints for the live page, games, the score pad and the hands;
the database opened per request through ``g``; the table worker attached in
``app.extensions["mtrain_worker"]`` by :func:`attach_worker`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import BadInputError

if TYPE_CHECKING:
    from flask import Flask

MAX_UPLOAD_BYTES = 12 * 1024 * 1024

__all__ = ["MAX_UPLOAD_BYTES", "attach_worker", "create_app"]


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app on the database ``DATABASE`` (default ``instance/mtrain.sqlite3``).

    ``PIN`` is the plain PIN when it is known (drawn on this start, ``NEW_PIN``,
    or converted from an old plain one), else None; ``PIN_HASH`` is its stored form.

    Raises :class:`engine.errors.BadInputError` naming the file when the
    database is corrupt or cannot be used; a read-only file opens read-only.
    """
    # Flask loads here, not at import: the ``mtrain`` command line lives in this
    # package and its engine commands must not pay for it.
    import secrets

    from flask import Flask

    from companion_app import db, replay, store, stream_room
    from companion_app.events import Broadcaster
    from companion_app.pin import ITERATIONS as PIN_ITERATIONS
    from companion_app.pin import hash_pin, load_pin
    from companion_app.security import AccessError, check_csrf, csrf_token, is_unlocked
    from companion_app.times import local_time

    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "mtrain.sqlite3"),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        MODELS_DIR=str(Path(__file__).resolve().parent.parent / "models"),
        NEW_PIN=False,
        PIN_ITERATIONS=PIN_ITERATIONS,
        SESSION_COOKIE_SAMESITE="Lax",
        SSE_KEEPALIVE_SECONDS=15.0,
        STREAMS_PER_DEVICE=stream_room.PER_DEVICE,
        STREAMS_TOTAL=stream_room.TOTAL,
        SOURCE_LABEL="",
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    if app.config["DATABASE"] == os.path.join(app.instance_path, "mtrain.sqlite3"):
        os.makedirs(app.instance_path, exist_ok=True)

    info = db.prepare(app.config["DATABASE"])
    app.config["READ_ONLY"] = info.read_only
    conn = db.connect(info.path, read_only=info.read_only)
    try:
        conn.isolation_level = None
        ro = info.read_only
        if not ro:
            replay.ensure_schema(conn)
        app.secret_key = store.ensure_setting(
            conn, "secret_key", lambda: secrets.token_hex(32), read_only=ro
        )
        if app.config.get("PIN"):  # given (tests): kept in memory only
            app.config["PIN_HASH"] = hash_pin(app.config["PIN"],
                                              iterations=app.config["PIN_ITERATIONS"])
        else:
            app.config["PIN"], app.config["PIN_HASH"] = load_pin(
                conn, read_only=ro, renew=bool(app.config["NEW_PIN"]),
                iterations=app.config["PIN_ITERATIONS"])
    finally:
        conn.close()

    db.init_app(app)
    app.extensions["mtrain_broadcaster"] = Broadcaster()
    app.extensions["mtrain_worker"] = None

    from companion_app.views import (
        bare_table,
        calibrate,
        games,
        hands,
        live,
        round_replay,
        scores,
    )

    app.register_blueprint(live.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(scores.bp)
    app.register_blueprint(hands.bp)
    app.register_blueprint(calibrate.bp)
    app.register_blueprint(round_replay.bp)
    app.register_blueprint(bare_table.bp)

    app.before_request(check_csrf)
    app.jinja_env.filters["localtime"] = local_time

    @app.context_processor
    def inject() -> dict[str, Any]:
        return {
            "csrf_token": csrf_token,
            "unlocked": is_unlocked(),
            "read_only": app.config["READ_ONLY"],
            "database": app.config["DATABASE"],
            "current_game_for_nav": lambda: store.current_game(db.get_db()),
        }

    @app.after_request
    def harden(response: Any) -> Any:
        # Everything is local: no external script, style, font or image may load.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.errorhandler(AccessError)
    def access_error(exc: AccessError) -> Any:
        response = _error(exc.status, exc.message, None if exc.pin is None else {"pin": exc.pin})
        if exc.pin is not None and exc.pin["wait"] > 0:
            response[0].headers["Retry-After"] = str(exc.pin["wait"])
        return response

    @app.errorhandler(BadInputError)
    def bad_input(exc: BadInputError) -> Any:
        return _error(500, f"{exc.source}: {exc.problem}")

    @app.errorhandler(413)
    def too_large(exc: Exception) -> Any:
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return _error(413, f"The upload is too large: photos up to {limit} MB are accepted.")

    @app.errorhandler(404)
    def not_found(exc: Exception) -> Any:
        return _error(404, "There is no such page (or no such game, round or seat).")

    @app.errorhandler(405)
    def bad_method(exc: Exception) -> Any:
        return _error(405, "That page cannot be used this way.")

    @app.errorhandler(400)
    def bad_request(exc: Exception) -> Any:
        return _error(400, "The form was malformed; reload the page and try again.")

    return app


def _error(status: int, message: str, more: dict[str, Any] | None = None) -> Any:
    from flask import jsonify, make_response, render_template, request

    if request.accept_mimetypes.best == "application/json" or request.is_json:
        return jsonify({"error": message} | (more or {})), status
    return make_response(render_template("error.html", status=status, message=message)), status


def attach_worker(app: Flask, source: Any, *, start: bool = True) -> Any:
    """Attach a :class:`~companion_app.worker.TableWorker` running ``source`` to the app."""
    from companion_app.worker import TableWorker

    worker = TableWorker(app, source)
    app.extensions["mtrain_worker"] = worker
    app.config["SOURCE_LABEL"] = source.label
    if start:
        worker.start()
    return worker
