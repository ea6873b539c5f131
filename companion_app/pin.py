"""The table's PIN at rest: only a salted PBKDF2-HMAC-SHA256 digest is stored.

A stored PIN reads ``pbkdf2_sha256$ITERATIONS$SALT$DIGEST`` (hex salt and
digest). The plain PIN is known only when it is drawn (first start, a new
PIN from the settings page or ``mtrain serve --new-pin``), and then shown on
the console and the page once. A database written before PINs were hashed
holds the six digits themselves; it is converted on start and the same PIN
keeps working.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3

from companion_app import store

ALGORITHM = "pbkdf2_sha256"
ITERATIONS = 200_000
SALT_BYTES = 16
SETTING = "pin"

__all__ = ["ALGORITHM", "ITERATIONS", "hash_pin", "is_hashed", "load_pin", "save_pin",
           "verify_pin"]


def hash_pin(pin: str, *, iterations: int = ITERATIONS, salt: bytes | None = None) -> str:
    """The stored form of ``pin`` (surrounding spaces ignored)."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.strip().encode(), salt, iterations)
    return f"{ALGORITHM}${iterations}${salt.hex()}${digest.hex()}"


def is_hashed(stored: str) -> bool:
    """Whether ``stored`` is a digest :func:`hash_pin` wrote (else an old plain PIN)."""
    parts = stored.split("$")
    if len(parts) != 4 or parts[0] != ALGORITHM or not parts[1].isdigit():
        return False
    try:
        bytes.fromhex(parts[2])
        bytes.fromhex(parts[3])
    except ValueError:
        return False
    return True


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN ``stored`` was made from (constant-time compare)."""
    if not is_hashed(stored):
        return hmac.compare_digest(pin.strip().encode(), stored.strip().encode())
    _, iterations, salt, digest = stored.split("$")
    again = hashlib.pbkdf2_hmac("sha256", pin.strip().encode(), bytes.fromhex(salt),
                                int(iterations))
    return hmac.compare_digest(again, bytes.fromhex(digest))


def save_pin(db: sqlite3.Connection, pin: str, *, iterations: int = ITERATIONS) -> str:
    """Store ``pin`` hashed; returns the stored form."""
    stored = hash_pin(pin, iterations=iterations)
    store.set_setting(db, SETTING, stored)
    return stored


def load_pin(db: sqlite3.Connection, *, read_only: bool, renew: bool = False,
             iterations: int = ITERATIONS) -> tuple[str | None, str]:
    """The table's PIN as ``(plain or None, stored form)``.

    A new PIN is drawn when there is none (or ``renew``); an old plain PIN is
    hashed in place. The plain PIN comes back only in those two cases: a
    hashed PIN cannot be shown again. A read-only database is left as it is
    (the digest then lives in memory only).
    """
    stored = store.get_setting(db, SETTING)
    plain: str | None = None
    if stored is None or renew:
        plain = store.new_pin()
    elif not is_hashed(stored):
        plain = stored.strip()
    else:
        return None, stored
    if read_only:
        return plain, hash_pin(plain, iterations=iterations)
    return plain, save_pin(db, plain, iterations=iterations)
