"""The set page: teach the reader the table's own set from photos of all its tiles.

The player uploads photos of the whole set laid out face up; every tile is
labelled by ``vision.calibration.calibrate``; the doubtful ones are drawn on the photos
and listed for the player to confirm or correct; saving keeps the set's
profile beside the database (``profile_path``), where hand reading finds it.
Uploading and saving need the PIN, like every change.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from companion_app import hands as hand_reading
from companion_app.photo_privacy import without_metadata
from companion_app.security import AccessError, is_unlocked, pin_required
from engine.errors import BadInputError

bp = Blueprint("calibrate", __name__, url_prefix="/set")

#: At most this many photos of the set.
MAX_PHOTOS = 6


def profile_path() -> Path:
    """Where the app keeps its set profile: ``SET_PROFILE``, else beside the database."""
    named = current_app.config.get("SET_PROFILE")
    return Path(named) if named else Path(current_app.config["DATABASE"]).with_name(
        "set_profile.json")


def _work() -> Path:
    """The folder holding a calibration waiting for the player's word."""
    return profile_path().with_name("set_calibration")


def _pending() -> dict[str, Any] | None:
    try:
        state = json.loads((_work() / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def _page(error: str | None = None, status: int = 200) -> Any:
    from vision.calibration.calibrate import Calibration
    from vision.reading.set_profile import load_profile

    profile = None
    if profile_path().exists():
        try:
            profile = load_profile(profile_path())
        except BadInputError as exc:
            error = error or f"The saved set profile cannot be used: {exc.problem}"
    state = _pending()
    calibration = None
    if state is not None:
        try:
            calibration = Calibration.from_state(state["calibration"])
        except (BadInputError, KeyError, TypeError):
            calibration = None
    tiles = [t.to_json() for t in calibration.tiles] if calibration is not None else []
    return render_template("calibrate.html", profile=profile, calibration=calibration,
                           tiles=tiles,
                           sizes=state.get("sizes", []) if state else [],
                           error=error), status


@bp.get("/")
def page() -> Any:
    return _page()


@bp.get("/photo/<int:k>")
def photo(k: int) -> Response:
    """A set photo waiting to be checked: only for a device unlocked with the PIN."""
    if not is_unlocked():
        raise AccessError(403, "The set's photos are shown only on a device unlocked with the "
                          "table's PIN.")
    state = _pending()
    if state is None or not 0 <= k < len(state.get("sizes", [])):
        abort(404)
    found = sorted(_work().glob(f"photo{k}.*"))
    if not found:
        abort(404)
    mimetype = "image/png" if found[0].suffix == ".png" else "image/jpeg"
    return Response(found[0].read_bytes(), mimetype=mimetype,
                    headers={"Cache-Control": "private, no-store"})


@bp.post("/photos")
@pin_required
def upload() -> Any:
    import cv2
    import numpy as np

    from vision.calibration.calibrate import calibrate

    files = [f for f in request.files.getlist("photos") if f.filename]
    if not files:
        return _page("Choose photos of the whole set first.", 400)
    if len(files) > MAX_PHOTOS:
        return _page(f"At most {MAX_PHOTOS} photos.", 400)
    try:
        top = int(request.form.get("set", "12"))
    except ValueError:
        top = -1
    if top not in (6, 9, 12, 15, 18):
        return _page("The set is double-6, 9, 12, 15 or 18.", 400)
    problem = hand_reading.models_status(current_app.config["MODELS_DIR"])
    if problem is not None:
        return _page(problem, 400)
    photos, images = [], []
    for f in files:
        try:
            checked = hand_reading.check_photo(f.read(), f.filename or "photo")
        except hand_reading.HandError as exc:
            return _page(str(exc), 400)
        image = cv2.imdecode(np.frombuffer(checked.data, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            return _page(f"{f.filename}: the photo could not be decoded.", 400)
        photos.append(checked)
        images.append(image)
    try:
        result = calibrate(_reader(), images, top)
    except BadInputError as exc:
        return _page(f"The photos could not be read: {exc.problem}", 400)
    try:
        photos = [without_metadata(p) for p in photos]  # no GPS, serials or dates kept
    except hand_reading.HandError as exc:
        return _page(str(exc), 400)
    work = _work()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for k, p in enumerate(photos):
        (work / f"photo{k}{'.png' if p.mimetype == 'image/png' else '.jpg'}").write_bytes(p.data)
    state = {"calibration": result.state(), "sizes": [[p.width, p.height] for p in photos]}
    (work / "state.json").write_text(json.dumps(state), encoding="utf-8")
    flash(f"{len(result.tiles)} tiles found, {len(result.doubtful)} to check.")
    return redirect(url_for("calibrate.page"))


def _reader() -> Any:
    from vision.reading.reader import TileReader

    return TileReader(current_app.config["MODELS_DIR"])


@bp.post("/confirm")
@pin_required
def confirm() -> Any:
    from vision.calibration.calibrate import Calibration
    from vision.reading.set_profile import save_profile

    state = _pending()
    if state is None:
        return _page("No calibration is waiting: upload photos of the set first.", 400)
    calibration = Calibration.from_state(state["calibration"])
    labels: dict[int, tuple[int, int] | None] = {}
    for i in calibration.doubtful:
        text = request.form.get(f"tile-{i}", "").strip()
        if not text:  # left as proposed: confirmed
            labels[i] = calibration.tiles[i].label
            continue
        if text.lower() in ("none", "-"):  # not a tile of the set
            labels[i] = None
            continue
        try:
            a, b = (int(v) for v in text.replace(" ", "").split("-"))
        except ValueError:
            return _page(f"Tile {i}: write it as two numbers, like 3-12.", 400)
        labels[i] = (a, b)
    try:
        final = calibration.corrected(labels)
        save_profile(final.profile, profile_path())
    except BadInputError as exc:
        return _page(exc.problem, 400)
    shutil.rmtree(_work(), ignore_errors=True)
    flash("Set profile saved: photos of hands are read with it.")
    return redirect(url_for("calibrate.page"))
