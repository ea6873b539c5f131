"""Access rules: reading is open on the LAN, every change needs the table's PIN.

- The PIN is random, stored in the database and printed on the host's console.
  A browser that entered it once is *unlocked* (a flag in its signed session
  cookie, tied to the PIN so that a new PIN locks everyone out again); a form
  may also carry the PIN in a ``pin`` field.
- CSRF: every POST carries the session's token, in a ``csrf_token`` form field
  or an ``X-CSRF-Token`` header (the page's JavaScript), compared in constant
  time.
- Wrong PINs are slowed down: after five in a row the table waits a minute.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

MAX_FAILURES = 5
LOCKOUT_SECONDS = 60.0

_failures_lock = threading.Lock()


class AccessError(Exception):
    """A refused change; ``status`` and ``message`` go to the error page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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


def _pin_tag(pin: str) -> str:
    key = str(current_app.secret_key).encode()
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()[:32]


def is_unlocked() -> bool:
    pin = current_app.config["PIN"]
    tag = session.get("unlocked")
    return isinstance(tag, str) and hmac.compare_digest(tag, _pin_tag(pin))


def try_pin(pin: str) -> bool:
    """Check a PIN; on success this browser stays unlocked."""
    state = current_app.extensions.setdefault("mtrain_pin_failures", {"count": 0, "until": 0.0})
    with _failures_lock:
        if time.monotonic() < state["until"]:
            raise AccessError(
                429, "Too many wrong PINs. Wait a minute, then try again."
            )
    ok = hmac.compare_digest(pin.strip().encode(), str(current_app.config["PIN"]).encode())
    with _failures_lock:
        if ok:
            state["count"] = 0
        else:
            state["count"] += 1
            if state["count"] >= MAX_FAILURES:
                state["count"] = 0
                state["until"] = time.monotonic() + LOCKOUT_SECONDS
    if ok:
        session["unlocked"] = _pin_tag(str(current_app.config["PIN"]))
    return ok


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
        raise AccessError(403, "This change needs the table's PIN (shown on the host's console).")
    if not try_pin(pin):
        raise AccessError(403, "Wrong PIN. The table's PIN is shown on the host's console.")


def pin_required(view: F) -> F:
    """Decorator for every view that changes something."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        require_pin()
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]
