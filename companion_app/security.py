"""Access rules: reading is open on the LAN, every change needs the table's PIN.

- The PIN is random, stored in the database and printed on the host's console.
  A browser that entered it once is *unlocked* (a flag in its signed session
  cookie, tied to the PIN so that a new PIN locks everyone out again); a form
  may also carry the PIN in a ``pin`` field.
- CSRF: every POST carries the session's token, in a ``csrf_token`` form field
  or an ``X-CSRF-Token`` header (the page's JavaScript), compared in constant
  time.
- Wrong PINs slow down the device that sends them (``companion_app.backoff``:
  a few free tries, then exponentially longer waits); other devices are not
  held up. The PIN itself is stored only as a salted digest
  (``companion_app.pin``).
- ``?next=`` after unlocking may only lead to a page of this site
  (:func:`safe_next`).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import sqlite3
import unicodedata
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from flask import current_app, request, session

from companion_app.backoff import Backoff
from companion_app.pin import save_pin, verify_pin

F = TypeVar("F", bound=Callable[..., Any])


class AccessError(Exception):
    """A refused change; ``status`` and ``message`` go to the error page, ``pin`` (where
    the PIN is what is missing: :func:`pin_state`) to a page's PIN dialog."""

    def __init__(self, status: int, message: str, pin: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.pin = pin


def csrf_token() -> str:
    """The session's CSRF token (created on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """``before_request``: refuse a POST whose token is missing or wrong."""
    if request.method != "POST":
        return
    expected = session.get("csrf")
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected, sent):
        raise AccessError(
            400,
            "This form has expired or did not come from this page (CSRF check failed). "
            "Reload the page and try again.",
        )


def _pin_tag() -> str:
    # tied to the stored PIN: a new PIN unlocks no browser that entered the old one
    key = str(current_app.secret_key).encode()
    stored = str(current_app.config["PIN_HASH"]).encode()
    return hmac.new(key, stored, hashlib.sha256).hexdigest()[:32]


def is_unlocked() -> bool:
    tag = session.get("unlocked")
    return isinstance(tag, str) and hmac.compare_digest(tag, _pin_tag())


def backoff() -> Backoff:
    """The app's record of wrong PINs per client."""
    found = current_app.extensions.get("mtrain_pin_backoff")
    if not isinstance(found, Backoff):
        found = current_app.extensions["mtrain_pin_backoff"] = Backoff()
    return found


def pin_state(wrong: bool = False) -> dict[str, Any]:
    """What a page's PIN dialog shows: ``wrong`` (the PIN sent was wrong), ``tries``
    (tries before a wrong one makes this device wait), ``wait`` (whole seconds it must
    wait now before a PIN is even checked)."""
    tries, wait = backoff().state(request.remote_addr or "unknown")
    return {"wrong": wrong, "tries": tries, "wait": math.ceil(wait)}


def wrong_pin_message(state: dict[str, Any]) -> str:
    """``Wrong PIN. 3 tries left before a wait.`` (or the wait that has begun)."""
    if state["wait"] > 0:
        return (f"Wrong PIN. This device must now wait {_duration(state['wait'])} before the "
                "next try. The PIN is shown on the host's console.")
    tries = state["tries"]
    left = (f"{tries} tries left before a wait" if tries > 1
            else "1 try left; after another wrong PIN this device must wait")
    return f"Wrong PIN ({left}). The table's PIN is shown on the host's console."


def try_pin(pin: str) -> bool:
    """Check a PIN; on success this browser stays unlocked.

    Raises :class:`AccessError` (429) while this client must wait after wrong PINs:
    the PIN is not checked then, right or wrong.
    """
    client = request.remote_addr or "unknown"
    limiter = backoff()
    wait = limiter.start(client)
    if wait > 0:
        raise AccessError(
            429, f"Too many wrong PINs from this device. Wait {_duration(wait)}, then try "
            "again: until then no PIN is checked, not even the right one.", pin_state())
    ok = verify_pin(pin, str(current_app.config["PIN_HASH"]))
    if ok:
        limiter.succeeded(client)
        session["unlocked"] = _pin_tag()
    return ok


def _duration(seconds: float) -> str:
    if seconds <= 90:
        return f"{max(1, round(seconds))} seconds"
    return f"{round(seconds / 60)} minutes"


def set_pin(db: sqlite3.Connection, pin: str) -> None:
    """Make ``pin`` the table's PIN (stored hashed); this browser stays unlocked."""
    current_app.config["PIN_HASH"] = save_pin(
        db, pin, iterations=current_app.config["PIN_ITERATIONS"])
    current_app.config["PIN"] = pin
    session["unlocked"] = _pin_tag()


def safe_next(target: str | None, default: str = "/") -> str:
    r"""``target`` when it is a path on this site, else ``default``.

    Refused: anything not starting with exactly one ``/`` (``//host`` and
    ``/\host`` lead off-site in a browser), any whitespace or control
    character (a browser drops a tab, so ``/\t/host`` becomes ``//host``),
    and anything with a scheme or a host, checked both as sent and
    percent-decoded.

    >>> safe_next("/games/1/pad"), safe_next("/\t/example.invalid/x")
    ('/games/1/pad', '/')
    """
    if not target:
        return default
    for text in (target, unquote(target)):
        if not text.startswith("/") or text.startswith(("//", "/\\")):
            return default
        if any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in text):
            return default
        parts = urlsplit(text)
        if parts.scheme or parts.netloc:
            return default
    return target


def require_pin() -> None:
    """Refuse the change unless the browser is unlocked or the form carries the right PIN."""
    if current_app.config.get("READ_ONLY"):
        raise AccessError(
            503,
            f"The database {current_app.config['DATABASE']} is read-only: nothing can be "
            "changed. Make the file writable and restart mtrain serve.",
        )
    if is_unlocked():
        return
    pin = request.form.get("pin") or request.headers.get("X-Table-PIN") or ""
    if not pin:
        raise AccessError(403, "This change needs the table's PIN (shown on the host's "
                          "console).", pin_state())
    if not try_pin(pin):
        state = pin_state(wrong=True)
        raise AccessError(403, wrong_pin_message(state), state)


def pin_required(view: F) -> F:
    """Decorator for every view that changes something."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        require_pin()
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]
