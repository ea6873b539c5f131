"""A change refused for its PIN says why, in a form the page's PIN dialog shows: tries left
after a wrong PIN, the seconds to wait, and that no PIN is checked during a wait."""

from __future__ import annotations

from companion_app.backoff import FREE_TRIES, Backoff

from .tablet import PIN, Table

JSON = {"Accept": "application/json"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ack(table: Table, pin: str | None) -> object:
    headers = {"X-CSRF-Token": table.token, **JSON}
    if pin is not None:
        headers["X-Table-PIN"] = pin
    return table.client.post("/alerts/1/ack", headers=headers)


def test_each_refusal_says_what_the_dialog_must_show(table: Table) -> None:
    clock = Clock()
    table.client.application.extensions["mtrain_pin_backoff"] = Backoff(clock=clock)
    needed = ack(table, None)
    assert needed.status_code == 403  # type: ignore[attr-defined]
    assert needed.get_json()["pin"] == {  # type: ignore[attr-defined]
        "wrong": False, "tries": FREE_TRIES + 1, "wait": 0}
    for left in range(FREE_TRIES, 0, -1):
        wrong = ack(table, "000000")
        data = wrong.get_json()  # type: ignore[attr-defined]
        assert wrong.status_code == 403  # type: ignore[attr-defined]
        assert data["pin"] == {"wrong": True, "tries": left, "wait": 0}
        assert "Wrong PIN" in data["error"] and f"{left} tr" in data["error"]
    last = ack(table, "000000").get_json()  # type: ignore[attr-defined]
    assert last["pin"]["wrong"] and last["pin"]["wait"] == 60
    assert "must now wait 60 seconds" in last["error"]

    clock.now += 20
    right = ack(table, PIN)  # the right PIN, during the wait: not checked, and says so
    data = right.get_json()  # type: ignore[attr-defined]
    assert right.status_code == 429  # type: ignore[attr-defined]
    assert data["pin"] == {"wrong": False, "tries": 0, "wait": 40}
    assert right.headers["Retry-After"] == "40"  # type: ignore[attr-defined]
    assert "not even the right one" in data["error"]

    clock.now += 41
    done = ack(table, PIN)  # after the wait the kept PIN goes through
    assert done.status_code == 404  # type: ignore[attr-defined]  # unlocked; no alert 1
    assert "no alert 1" in done.get_json()["error"]  # type: ignore[attr-defined]


def test_the_unlock_form_says_how_many_tries_are_left(table: Table) -> None:
    page = table.unlock("1").get_data(as_text=True)
    assert f"Wrong PIN ({FREE_TRIES} tries left before a wait)" in page


def test_backoff_state_counts_down() -> None:
    clock = Clock()
    limiter = Backoff(free_tries=1, first_wait=10, clock=clock)
    assert limiter.state("a") == (2, 0.0)
    limiter.start("a")
    assert limiter.state("a") == (1, 0.0)
    limiter.start("a")
    assert limiter.state("a") == (0, 10.0)
    clock.now += 10
    assert limiter.state("a") == (1, 0.0)
