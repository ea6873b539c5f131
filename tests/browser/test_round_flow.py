"""The round flow in a real browser (Debian's Chromium driven by Playwright), on a tablet
(1024x768) and a phone (390x844).

A round's hands are saved one by one and the last one ends the round; a round is
typed; a score cell is tapped and changed, then undone in one tap; the hands page
with three photos is measured; the last round ends the game with the standings and
"New game, same players". Screenshots go to ``tests/artifacts/``: the pad mid-game,
the pad after round 13, the hands page, each on the tablet and the phone.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image, ImageDraw

from companion_app import create_app, store
from companion_app.db import connect
from companion_app.photo_tiles import tiles_from_json
from companion_app.rules import build_rules

from .chromium import ARTIFACTS, chromium_profile, needs_chromium, serving

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

PIN = "135790"
PLAYERS = ("Ann", "Benedict", "Cy")
TABLET: ViewportSize = {"width": 1024, "height": 768}
PHONE: ViewportSize = {"width": 390, "height": 844}
#: The hands page of three hands with photos, at 1024 px wide, stays under this height.
HANDS_PAGE_MAX_PX = 1800

pytestmark = needs_chromium


def hand_photo(values: list[tuple[int, int]]) -> tuple[bytes, list[dict[str, Any]]]:
    """A 1600x1000 photo of small tiles in a row, and their readings."""
    image = Image.new("RGB", (1600, 1000), (31, 111, 67))
    draw = ImageDraw.Draw(image)
    readings = []
    for i, pair in enumerate(values):
        x, y = 120 + i * 150, 420
        corners = [[x, y], [x + 70, y], [x + 70, y + 140], [x, y + 140]]
        draw.rectangle((x, y, x + 70, y + 140), fill=(250, 248, 240), outline=(0, 0, 0))
        draw.line((x, y + 70, x + 70, y + 70), fill=(0, 0, 0), width=3)
        readings.append({"values": list(pair), "corners": corners,
                         "confidence": 0.9, "uncertain": i == 2})
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=80)
    return out.getvalue(), readings


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("round-flow")
    path = folder / "mtrain.sqlite3"
    # every browser here is a device on 127.0.0.1: room for all their live pages
    app = create_app({"DATABASE": str(path), "PIN": PIN, "MODELS_DIR": str(folder / "none"),
                      "STREAMS_PER_DEVICE": 20})
    conn = connect(path)
    conn.isolation_level = None
    store.create_game(conn, name="Family night", players=list(PLAYERS),
                      rules=build_rules("standard", {}), rounds=13)
    conn.close()
    with serving(app) as url:
        yield url, path


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium_profile(tmp_path_factory.mktemp("chromium-profile"), TABLET) as context:
        yield context


def go(page: Any, selector: str) -> None:
    """Click what leaves the page (a link, a form's button) and wait for the next page."""
    with page.expect_navigation():
        page.click(selector)


def shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def check_phone(phone: Any, url: str, name: str) -> None:
    """The page fits the phone's width, the menu too, and the pad's totals stay in view."""
    phone.goto(url)
    shoot(phone, name)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    nav = phone.locator(".topbar nav")
    assert nav.evaluate("n => n.scrollWidth <= n.clientWidth"), "the menu fits"
    assert phone.locator(".access").bounding_box()["x"] + 40 <= PHONE["width"]
    if phone.locator("#pad").count():
        wrap = phone.locator(".pad-wrap")
        assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")  # 13 rounds scroll sideways
        current = phone.locator("#pad th.current")
        if current.count():  # the round being played is in view
            box = current.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        for scroll in (0, 10_000):
            wrap.evaluate(f"w => {{ w.scrollLeft = {scroll}; }}")
            box = phone.locator("td.total[data-seat='1']").bounding_box()
            assert box is not None and box["x"] + box["width"] <= PHONE["width"], scroll
            assert box["x"] > PHONE["width"] / 2, scroll  # sticky at the right edge


def test_a_game_played_through_on_a_tablet_and_a_phone(server: tuple[str, Path],
                                                       browser: Any) -> None:
    url, path = server
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/unlock")
    page.fill("input[name=pin]", PIN)
    go(page, "form button")

    # Round 1 from the hands page: the last hand saved ends the round.
    page.goto(url + "/games/1/rounds/1/hands")
    for seat, typed in enumerate(("12-12 5-6", "", "3-4 0-0")):
        page.fill(f"#seat-{seat} input[name=more]", typed)
        go(page, f"#seat-{seat} .hand-tiles button")
    assert "Round 1 done — Benedict went out. Round 2 begins: engine 11-11." in page.inner_text(
        "body")
    assert page.inner_text("#enter-round") == "Enter round 2"

    # Round 2 typed; then a cell tapped and changed, and undone in one tap.
    go(page, "#enter-round")
    for seat, points in enumerate(("9", "14", "0")):
        page.fill(f"input[name=points_{seat}]", points)
    go(page, "#round-form button")
    assert "Round 2 done — Cy went out" in page.inner_text("body")
    go(page, "a.cell[href$='/rounds/2/scores?seat=1']")
    page.wait_for_function("document.activeElement && document.activeElement.name == 'points_1'",
                           timeout=5_000)  # the tapped cell's field has the focus
    page.keyboard.press("Control+A")
    page.keyboard.type("41")
    go(page, "#round-form button")
    assert page.inner_text("td.total[data-seat='1']") == "41"
    go(page, "#undo")
    assert page.inner_text("td.total[data-seat='1']") == "14"
    assert page.locator("td.out").count() == 2 and page.inner_text("#enter-round") == (
        "Enter round 3")
    shoot(page, "pad-tablet")

    # Round 3's hands from photos: the page is compact, the small tiles' numbers apart.
    conn = connect(path)
    conn.isolation_level = None
    tiles = [(a, b) for a in range(13) for b in range(a, 13)][::3]
    hands = [tiles[:9], tiles[9:15], tiles[15:25] + [tiles[0]]]  # 0-0 read twice
    for seat, values in enumerate(hands):
        data, readings = hand_photo(values)
        count = len(values)
        store.save_hand_photo(conn, 1, 3, seat, photo=data, photo_type="image/jpeg",
                              size=(1600, 1000), readings=tiles_from_json(readings),
                              tiles=[r["values"] for r in readings], note=f"{count} tile(s) read.")
    page.goto(url + "/games/1/rounds/3/hands")
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"hands page, three hands with photos, 1024 px wide: {height} px tall")
    shoot(page, "hands-tablet")
    assert height <= HANDS_PAGE_MAX_PX, height
    assert page.inner_text("#twice").startswith("Read in two hands: 0-0 (Ann, Cy).")
    labels = page.locator("#seat-2 svg text")
    assert labels.count() == 11
    boxes = [labels.nth(i).bounding_box() for i in range(labels.count())]
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert left["x"] + left["width"] < right["x"], "tile numbers do not overlap"
    phone = browser.new_page()
    phone.set_viewport_size(PHONE)
    check_phone(phone, url + "/games/1/rounds/3/hands", "hands-phone")
    check_phone(phone, url + "/games/1/pad", "pad-phone")

    # Rounds 3 to 12 as typed, then round 13 on the pad: the game is over.
    for number in range(3, 13):
        for seat in range(3):
            store.set_score(conn, 1, number, seat, (number * (seat + 2)) % 17, "pad")
    conn.execute("UPDATE games SET current_round = 13 WHERE id = 1")
    conn.close()
    page.goto(url + "/games/1/pad")
    assert page.inner_text("#enter-round") == "Enter round 13"
    check_phone(phone, url + "/games/1/pad", "pad-round13-phone")  # scrolled to round 13
    go(page, "#enter-round")
    for seat, points in enumerate(("0", "22", "5")):
        page.fill(f"input[name=points_{seat}]", points)
    go(page, "#round-form button")
    text = page.inner_text("body")
    assert "Round 13 done — Ann went out. Game over:" in text
    assert page.locator("#enter-round").count() == 0 and "round 14" not in text.lower()
    standings = page.inner_text("#standings")
    assert standings.startswith("Final standings") and "wins with" in standings
    shoot(page, "pad-final-tablet")
    check_phone(phone, url + "/games/1/pad", "pad-final-phone")
    go(page, "#again")
    page.goto(url + "/games/")
    first = page.locator("#games li").first.inner_text()
    assert "Ann, Benedict, Cy" in first and "round 1 of 13" in first
    check_phone(phone, url + "/games/", "games-phone")
    assert not errors, errors
