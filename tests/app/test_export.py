"""The score pad's CSV: any game name downloads, and no cell runs as a formula."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import unquote

import pytest

from companion_app import store
from companion_app.db import connect
from companion_app.export import FORMULA_STARTS, attachment, csv_text, safe_cell

from .tablet import Table


def disposition(value: str) -> dict[str, str]:
    """The parameters of a ``Content-Disposition`` header (quoted or not)."""
    kind, *params = (part.strip() for part in value.split(";"))
    assert kind == "attachment"
    pairs = (param.split("=", 1) for param in params)
    return {key: val.strip('"') for key, val in pairs}


@pytest.mark.parametrize("name", ["Семейный вечер", "Łódź night", "家族の夜"])
def test_a_game_with_any_name_downloads_its_scores(unlocked: Table, name: str) -> None:
    assert unlocked.new_game(name=name).status_code == 302
    response = unlocked.client.get("/games/1/scores.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    header = response.headers["Content-Disposition"]
    header.encode("ascii")  # a header any server can send
    params = disposition(header)
    assert params["filename"].endswith("-1-scores.csv") and params["filename"].isascii()
    assert params["filename*"].startswith("UTF-8''")
    assert unquote(params["filename*"][len("UTF-8''"):]) == f"{name}-1-scores.csv"
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert [row[1] for row in rows[1:]] == ["Ann", "Ben", "Cy"]


def test_ascii_names_keep_a_plain_header() -> None:
    assert attachment("Sunday", "-3-scores.csv") == {
        "Content-Disposition": 'attachment; filename="Sunday-3-scores.csv"'}
    assert disposition(attachment("家族の夜", ".csv", fallback="game")
                       ["Content-Disposition"])["filename"] == "game.csv"
    bad = disposition(attachment('a"b/c\\d\r\ne', ".csv")["Content-Disposition"])
    assert bad["filename"] == "a-b-c-d-e.csv"
    assert "/" not in unquote(bad["filename*"]) and "\n" not in unquote(bad["filename*"])


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_text_that_could_start_a_formula_is_quoted(start: str) -> None:
    text = f"{start}HYPERLINK(\"http://example.invalid\")"
    (row,) = csv.reader(io.StringIO(csv_text([[text, "Ann", "a=b"]])))
    assert row == ["'" + text, "Ann", "a=b"]


def test_numbers_stay_numbers() -> None:
    assert safe_cell(-5) == -5 and safe_cell(0) == 0
    assert csv_text([[0, -5, 12]]) == "0,-5,12\r\n"


def test_player_names_are_neutralised_and_scores_kept(unlocked: Table, db_path: Path) -> None:
    players = ("=1+2", "@SUM(A1)", "-Ann", "+Ben")
    assert unlocked.new_game(players).status_code == 302
    conn = connect(db_path)
    store.set_score(conn, 1, 1, 0, 12, "pad")
    store.set_score(conn, 1, 1, 1, -5, "pad")  # written as the number it is
    conn.close()
    response = unlocked.client.get("/games/1/scores.csv")
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert [row[1] for row in rows[1:]] == ["'=1+2", "'@SUM(A1)", "'-Ann", "'+Ben"]
    assert rows[1][2] == "12" and rows[2][2] == "-5"
