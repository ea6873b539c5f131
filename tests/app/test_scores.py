"""The score pad: entering rounds, the round flow, edits with history, undo, totals, the
standings, CSV, the chart."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from .tablet import Table, make_app


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben", "Cy"), rounds="3")
    return unlocked


def enter(table: Table, number: int, *points: str) -> int:
    data = {f"points_{i}": p for i, p in enumerate(points)}
    return int(table.post(f"/games/1/rounds/{number}/scores", data).status_code)


def pad(table: Table, game_id: int = 1) -> str:
    return str(table.client.get(f"/games/{game_id}/pad").get_data(as_text=True))


def test_entering_a_round_moves_the_table_on(game: Table) -> None:
    assert enter(game, 1, "10", "0", "25") == 302
    page = pad(game)
    assert "Round 1 done — Ben went out. Round 2 begins: engine 11-11." in page
    assert ">10<" in page and ">25<" in page
    assert "Leading after 1 round: Ben (0)" in page
    assert 'id="enter-round">Enter round 2<' in page
    assert "11-11" in game.client.get("/").get_data(as_text=True)  # round 2's engine


def test_who_went_out_and_who_won_a_blocked_round_are_marked(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 2, "7", "4", "9")  # blocked: nobody out, Ben the fewest
    page = pad(game)
    assert "Round 2 done — Ben had the fewest points (4)." in page
    row = page.split('data-seat="1"')[0].split("<tr")[-1]  # Ben's row
    assert 'aria-label="Ben, round 1, went out: edit">0<span class="mark"' in row
    assert 'aria-label="Ben, round 2, won the round: edit">4<span class="mark"' in row
    assert page.count('class="mark"') == 2


def test_after_the_last_round_the_standings_and_a_new_game(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 2, "3", "40", "0")
    enter(game, 3, "0", "5", "5")
    page = pad(game)
    assert "Round 3 done — Ann went out. Game over: Ann wins with 13." in page
    standings = page.split('id="standings"')[1].split("</section>")[0]
    assert standings.index("Ann") < standings.index("Cy") < standings.index("Ben")
    assert "<h2>Ann wins with 13</h2>" in standings
    assert 'data-seat="1">45<' in page and 'data-seat="2">30<' in page
    assert "Enter round" not in page and "New game, same players" in page
    assert game.post("/games/1/again").status_code == 302
    again = pad(game, 2)
    assert "Ann" in again and "Cy" in again and 'id="enter-round">Enter round 1<' in again


def test_a_full_double_twelve_game_ends_after_round_13(unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben"))
    for number in range(1, 14):
        assert enter(unlocked, number, str(number), "0") == 302
    page = pad(unlocked)
    assert "Round 13 done — Ben went out. Game over: Ben wins with 0." in page
    assert "Enter round" not in page and "round 14" not in page.lower()
    assert unlocked.client.get("/games/1/rounds/14/scores").status_code == 404
    assert "0-0" in unlocked.client.get("/").get_data(as_text=True)  # the table stays at 13


def test_a_tied_game_is_shared(game: Table) -> None:
    for number, points in enumerate((("5", "0", "9"), ("0", "5", "9"), ("5", "5", "9")), 1):
        enter(game, number, *points)
    page = pad(game)
    assert "Ann and Ben share the win with 10" in page
    assert page.count('<li class="first">') == 2


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
    assert 'value="25"' in page.split('name="points_2"')[1].split(">")[0]


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (("ten", "0", "1"), "Ann's points: 'ten' is not a whole number"),
        (("-1", "0", "1"), "Ann's points: must be between 0 and 5000"),
        (("", "", ""), "Enter the points of at least one player"),
        (("١٢", "0", "1"), "Ann's points: '١٢' is not a whole number (type it with the digits"),
        (("５", "0", "1"), "Ann's points: '５' is not a whole number"),
        (("1_000", "0", "1"), "Ann's points: '1_000' is not a whole number"),
    ],
)
def test_score_validation_messages(game: Table, points: tuple[str, ...], message: str) -> None:
    data = {f"points_{i}": p for i, p in enumerate(points)}
    response = game.post("/games/1/rounds/1/scores", data)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert message in page.replace("&#39;", "'")
    for seat, typed in enumerate(points):  # nothing typed is lost
        assert f'value="{typed}"' in page.split(f'name="points_{seat}"')[1].split(">")[0]
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
    assert rows[0] == ["seat", "player", "round 1 (12)", "round 2 (11)", "round 3 (10)", "total",
                       "to check"]
    assert rows[1] == ["0", "Ann", "10", "3", "", "13", ""]
    assert rows[3] == ["2", "Cy", "25", "0", "", "25", ""]


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


def test_a_score_cell_opens_its_field(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    page = pad(game)
    assert 'href="/games/1/rounds/1/scores?seat=2"' in page
    form = game.client.get("/games/1/rounds/1/scores?seat=2").get_data(as_text=True)
    field = form.split('name="points_2"')[1].split(">")[0]
    assert "autofocus" in field and 'value="25"' in field
    assert "autofocus" not in form.split('name="points_2"')[0]
    odd = game.client.get("/games/1/rounds/1/scores?seat=²")  # a digit, but not 0-9
    assert odd.status_code == 200 and "autofocus" not in odd.get_data(as_text=True)


def test_undo_puts_back_the_last_change_even_after_a_restart(game: Table, db_path: Path) -> None:
    enter(game, 1, "10", "0", "25")
    enter(game, 1, "12", "0", "25")
    assert "Undo round 1 points" in pad(game)
    assert game.post("/games/1/undo").status_code == 302
    page = pad(game)
    assert "Undone: round 1 points." in page and 'data-seat="0">10<' in page
    assert "(entered, undone)" in page

    again = Table(make_app(db_path).test_client())  # the app restarts on the same file
    again.unlock()
    assert again.post("/games/1/undo").status_code == 302
    page = pad(again)
    assert "No scores yet" not in page  # the history keeps the undone entries
    assert 'data-seat="0">0<' in page and 'id="enter-round">Enter round 1<' in page
    assert "12-12" in again.client.get("/").get_data(as_text=True)  # the table is back
    again.post("/games/1/undo")
    assert "Nothing to undo." in pad(again)


def test_undo_needs_the_pin(game: Table) -> None:
    enter(game, 1, "10", "0", "25")
    game.post("/lock")
    assert game.post("/games/1/undo").status_code == 403
    assert 'data-seat="2">25<' in pad(game)
