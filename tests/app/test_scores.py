"""The score pad: entering rounds, edits with history, totals, the winner, CSV, the chart."""

from __future__ import annotations

import csv
import io

import pytest

from .tablet import Table


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben", "Cy"), rounds="3")
    return unlocked


def enter(table: Table, number: int, *points: str) -> int:
    data = {f"points_{i}": p for i, p in enumerate(points)}
    return int(table.post(f"/games/1/rounds/{number}/scores", data).status_code)


def test_entering_a_round_moves_the_table_on(game: Table) -> None:
    assert enter(game, 1, "10", "0", "25") == 302
    page = game.client.get("/games/1/pad").get_data(as_text=True)
    assert ">10<" in page and ">25<" in page
    assert "Leading after 1 round: Ben (0)" in page
    assert "11-11" in game.client.get("/").get_data(as_text=True)  # round 2's engine


def test_totals_and_the_winner(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 2, "3", "40", "0")
    enter(game, 3, "0", "5", "5")
    page = game.client.get("/games/1/pad").get_data(as_text=True)
    assert "Winner: Ann (13)" in page
    assert 'data-seat="1">45<' in page and 'data-seat="2">30<' in page


def test_editing_a_past_entry_keeps_the_history(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 2, "3", "40", "0")
    assert enter(game, 1, "12", "0", "25") == 302  # Ann's round 1 was 12, not 10
    page = game.client.get("/games/1/pad").get_data(as_text=True)
    assert "<s>10</s> → 12" in page
    assert 'data-seat="0">15<' in page
    assert "11-11" not in game.client.get("/").get_data(as_text=True).split("engine")[1][:40]


def test_round_form_shows_the_entered_points(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    page = game.client.get("/games/1/rounds/1/scores").get_data(as_text=True)
    assert 'name="points_2" inputmode="numeric" autocomplete="off"\n             value="25"' in page


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (("ten", "0", "1"), "Ann's points: 'ten' is not a whole number"),
        (("-1", "0", "1"), "Ann's points: must be between 0 and 5000"),
        (("", "", ""), "Enter the points of at least one player"),
    ],
)
def test_score_validation_messages(game: Table, points: tuple[str, ...], message: str) -> None:
    data = {f"points_{i}": p for i, p in enumerate(points)}
    response = game.post("/games/1/rounds/1/scores", data)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True).replace("&#39;", "'")
    assert "No scores yet" in game.client.get("/games/1/pad").get_data(as_text=True)


def test_rounds_outside_the_game_are_404(game: Table) -> None:
    assert game.client.get("/games/1/rounds/4/scores").status_code == 404
    assert enter(game, 0, "1", "2", "3") == 404


def test_csv_export(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 2, "3", "40", "0")
    response = game.client.get("/games/1/scores.csv")
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == ["seat", "player", "round 1 (12)", "round 2 (11)", "round 3 (10)", "total"]
    assert rows[1] == ["0", "Ann", "10", "3", "", "13"]
    assert rows[3] == ["2", "Cy", "25", "0", "", "25"]


def test_the_chart_draws_one_line_per_player(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 2, "3", "40", "0")
    page = game.client.get("/games/1/pad").get_data(as_text=True)
    chart = page.split('id="chart"')[1].split("</svg>")[0]
    assert chart.count("<polyline") == 3
    assert "https://" not in page and "http://" not in page.split("<body")[1]  # nothing external


def test_score_changes_need_the_pin(table: Table, unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben"))
    unlocked.post("/lock")
    response = unlocked.post("/games/1/rounds/1/scores", {"points_0": "5"})
    assert response.status_code == 403
