"""Times shown in the device's own zone.

The database keeps times in UTC (SQLite's ``datetime('now')``). A page shows
each as ``<time datetime="…Z" data-local="…">``: the UTC instant for the
page's script (``app.js``) to write in the device's zone and locale, with
the UTC text (marked as such) for a page read without scripts.
"""

from __future__ import annotations

from datetime import UTC, datetime

from markupsafe import Markup, escape

__all__ = ["iso_utc", "local_time"]


def iso_utc(stored: str | None) -> str | None:
    """``"2026-03-01 18:05:09"`` (SQLite, UTC) → ``"2026-03-01T18:05:09Z"``; None if unreadable."""
    if not stored:
        return None
    try:
        when = datetime.fromisoformat(str(stored).strip().replace(" ", "T"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.replace(microsecond=0).isoformat() + "Z"


def local_time(stored: str | None, style: str = "datetime") -> Markup:
    """A ``<time>`` element the page shows in the device's zone; ``style`` is ``datetime``,
    ``date`` or ``time``. Text that is not a time is shown as it is."""
    iso = iso_utc(stored)
    if iso is None:
        return Markup(escape(stored or ""))
    fallback = iso[:16].replace("T", " ") + " UTC"
    return Markup('<time datetime="{}" data-local="{}">{}</time>').format(iso, style, fallback)
