"""Downloads: CSV text a spreadsheet opens safely, and a file name any browser accepts.

- Formula injection (OWASP, "CSV Injection"): a text cell that starts with
  ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be run as a
  formula by a spreadsheet; it is written with a leading single quote, so it
  shows as the text that was typed. Names (players, games) are always text.
  Numbers the app writes itself (seats, points, totals) stay numbers: ``-5``
  is the number minus five to a spreadsheet, never a formula, and quoting it
  would turn a score into text that no longer adds up.
- The file name: HTTP headers are Latin-1, so a game called "Семейный вечер"
  cannot go in ``filename=`` as it is. The header carries an ASCII fallback
  in ``filename=`` and the real name in ``filename*=UTF-8''…`` (RFC 6266 and
  RFC 5987), which every current browser prefers.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterable, Sequence
from urllib.parse import quote

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

Cell = str | int

__all__ = ["FORMULA_STARTS", "Cell", "attachment", "csv_text", "safe_cell"]


def safe_cell(value: Cell) -> Cell:
    """``value`` as a spreadsheet will show it: text that could start a formula is quoted.

    >>> safe_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> safe_cell(-5), safe_cell("Ann")
    (-5, 'Ann')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(rows: Iterable[Sequence[Cell]]) -> str:
    """The rows as CSV, every text cell passed through :func:`safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([safe_cell(value) for value in row])
    return out.getvalue()


def _ascii_name(name: str) -> str:
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9._]+", "-", folded).strip("-.")


def attachment(name: str, suffix: str, fallback: str = "download") -> dict[str, str]:
    """The ``Content-Disposition`` header of a download called ``name`` + ``suffix``.

    ``filename=`` is plain ASCII (accents dropped, anything else a dash, or
    ``fallback`` when nothing is left); ``filename*=`` carries the full name
    when it differs.

    >>> print(attachment("Łódź night", ".csv")["Content-Disposition"])
    attachment; filename="odz-night.csv"; filename*=UTF-8''%C5%81%C3%B3d%C5%BA%20night.csv
    """
    simple = (_ascii_name(name) or fallback) + suffix
    cleaned = re.sub(r"[\x00-\x1f\x7f/\\]+", "-", name).strip()
    full = cleaned + suffix if cleaned else simple
    value = f'attachment; filename="{simple}"'
    if full != simple:
        value += f"; filename*=UTF-8''{quote(full, safe='')}"
    return {"Content-Disposition": value}
