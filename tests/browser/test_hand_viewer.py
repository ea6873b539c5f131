"""A hand's photo full size in a real browser (Debian's Chromium driven by Playwright):
tapped, it opens over the page with every reading drawn on it, the doubtful one
highlighted; tapping that reading corrects it, and the pad follows and loses its mark.
Screenshots go to ``tests/artifacts/``: the viewer with the correction form on a tablet,
the same photo on a phone."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image, ImageDraw

from companion_app import create_app, store
from companion_app.db import connect
from companion_app.photo_tiles import tiles_from_json
from companion_app.rules import build_rules

from .chromium import ARTIFACTS, chromium_profile, needs_chromium, serving
from .test_round_flow import PHONE, TABLET, go

PIN = "246802"
VALUES = [(3, 4), (4, 6), (2, 11), (0, 5)]  # the second read with doubt (its 6 could be 5)

pytestmark = needs_chromium


def photo() -> tuple[bytes, list[dict[str, Any]]]:
    """A 2400x1500 photo of four tiles, and their readings (the second doubtful)."""
    image = Image.new("RGB", (2400, 1500), (92, 64, 40))
    draw = ImageDraw.Draw(image)
    readings = []
    for i, pair in enumerate(VALUES):
        x, y = 300 + i * 480, 450
        corners = [[x, y], [x + 260, y], [x + 260, y + 520], [x, y + 520]]
        draw.rectangle((x, y, x + 260, y + 520), fill=(250, 248, 240), outline=(0, 0, 0))
        draw.line((x, y + 260, x + 260, y + 260), fill=(0, 0, 0), width=8)
        readings.append({"values": list(pair), "corners": corners, "confidence": 0.9,
                         "uncertain": i == 1, "doubts": ["range"] if i == 1 else []})
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=80)
    return out.getvalue(), readings


def shoot(page: Any, name: str) -> None:
    """The screen as seen (the viewer covers it), not the whole page."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("hand-viewer")
    path = folder / "mtrain.sqlite3"
    app = create_app({"DATABASE": str(path), "PIN": PIN, "MODELS_DIR": str(folder / "none")})
    conn = connect(path)
    conn.isolation_level = None
    store.create_game(conn, name="Family night", players=["Ann", "Ben"],
                      rules=build_rules("standard", {}), rounds=13)
    data, readings = photo()
    tiles = [r["values"] for r in readings]
    store.save_hand_photo(conn, 1, 1, 0, photo=data, photo_type="image/jpeg",
                          size=(2400, 1500), readings=tiles_from_json(readings), tiles=tiles,
                          note="4 tile(s) read, 1 uncertain — check them.")
    store.set_score(conn, 1, 1, 0, 7 + 10 + 13 + 5, "hand")  # saved without a look
    conn.close()
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium_profile(tmp_path_factory.mktemp("chromium-profile"), TABLET) as context:
        yield context


def test_the_photo_opens_full_size_and_a_reading_is_corrected(server: str, browser: Any) -> None:
    url = server
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/unlock")
    page.fill("input[name=pin]", PIN)
    go(page, "form button")

    page.goto(url + "/games/1/pad")
    assert page.locator("a.mark.to-check").count() == 1  # the doubtful hand, marked
    assert page.inner_text("td.total[data-seat='0']") == "35"
    shoot(page, "pad-to-check-tablet")

    page.goto(url + "/games/1/rounds/1/hands")
    thumb = page.locator("#seat-0 .photo-wrap img").bounding_box()
    assert thumb is not None and thumb["height"] <= 200  # the small photo on the page
    assert "Check 1 reading" in page.inner_text("#check-0")
    page.click("#seat-0 .photo-wrap")
    viewer = page.locator("#viewer-0")
    viewer.wait_for(state="visible")
    big = viewer.locator(".viewer-canvas img")
    page.wait_for_function("document.querySelector('#viewer-0 .viewer-canvas img').complete")
    box = big.bounding_box()
    assert box is not None and box["width"] >= 3 * thumb["width"]  # full size, not a thumbnail
    assert box["width"] >= 0.9 * TABLET["width"] or box["height"] >= 0.8 * TABLET["height"]
    texts = [t.strip() for t in viewer.locator("g.reading text").all_text_contents()]
    assert texts == ["3-4", "4-6?", "2-11", "0-5"]  # every reading drawn on the photo
    assert viewer.locator("g.reading.uncertain").count() == 1
    viewer.locator("button[data-zoom=full]").click()  # 1:1: the photo's own pixels
    assert abs(big.bounding_box()["width"] - 2400) <= 2
    viewer.locator("button[data-zoom=fit]").click()

    viewer.locator("g.reading.uncertain").click()
    form = viewer.locator(".reading-form")
    assert form.is_visible() and "a half could be another count" in form.inner_text()
    assert form.locator("select[name=a]").input_value() == "4"
    form.locator("select[name=b]").select_option("5")
    shoot(page, "hand-viewer-tablet")
    with page.expect_navigation():
        form.locator("button.use-values").click()

    viewer.wait_for(state="visible")  # back on the same photo, to go on checking
    assert viewer.locator("g.reading.uncertain").count() == 0
    assert [t.strip() for t in viewer.locator("g.reading text").all_text_contents()][1] == "4-5"
    assert page.locator("#check-0").count() == 0
    page.goto(url + "/games/1/pad")
    assert page.locator("a.mark.to-check").count() == 0
    assert page.inner_text("td.total[data-seat='0']") == "34"  # the pad followed

    phone = browser.new_page()
    phone.set_viewport_size(PHONE)
    phone.goto(url + "/games/1/rounds/1/hands?view=0")
    phone.locator("#viewer-0").wait_for(state="visible")
    phone.wait_for_function("document.querySelector('#viewer-0 .viewer-canvas img').complete")
    scroll = phone.locator("#viewer-0 .viewer-scroll")
    phone.locator("#viewer-0 button[data-zoom=in]").click()
    assert scroll.evaluate("s => s.scrollWidth > s.clientWidth")  # zoomed in: scrolls to pan
    shoot(phone, "hand-viewer-phone")
    assert not errors, errors
