"""A real browser (Debian's Chromium driven by Playwright) at the table.

The app is served on 127.0.0.1 in a background thread from the demo source (the
bundled recording's tables, replayed through the engine's observer) or, without
``datasets/demo/``, from the sim; the
test loads the page, sees the table drawn and an alert arrive without a
reload, acknowledges it with the PIN, enters a round's scores, and saves
screenshots under ``tests/artifacts/``.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion_app import attach_worker, create_app, store
from companion_app.db import connect
from companion_app.sources import DemoLogSource, SimSource, demo_labels

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
PIN = "246810"
PLAYERS = ("Ann", "Ben", "Cyril")  # the demo recording's table has three seats
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None,
    reason="Debian's chromium is not installed (tests/browser/ensure_chromium.sh installs it)",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    from werkzeug.serving import make_server

    folder = tmp_path_factory.mktemp("browser")
    app = create_app({"DATABASE": str(folder / "mtrain.sqlite3"), "PIN": PIN,
                      "MODELS_DIR": str(folder / "no-models")})
    conn = connect(folder / "mtrain.sqlite3")
    conn.isolation_level = None
    from companion_app.rules import build_rules

    store.create_game(conn, name="Family night", players=list(PLAYERS),
                      rules=build_rules("standard", {}), set_size=12, rounds=13)
    conn.close()
    labels = demo_labels()
    source: Any = (DemoLogSource(labels, turn_seconds=0.5) if labels is not None
                   else SimSource(turn_seconds=0.5, seed=11, breach_rate=0.3))
    worker = attach_worker(app, source)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.server_port}", worker
    finally:
        worker.stop()
        http.shutdown()
        thread.join(5)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=ARGS, headless=True,
            viewport={"width": 1280, "height": 800}, device_scale_factor=1,
        )
        try:
            yield context
        finally:
            context.close()


def test_live_table_alert_and_score_entry(server: tuple[str, Any], browser: Any) -> None:
    url, worker = server
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/")
    page.evaluate("window.__loaded = 'first load'")

    # The table is drawn from the stream: the hub and one lane per train.
    page.wait_for_selector("#table g.lane", timeout=20_000)
    assert page.locator("#table g.lane").count() == 4  # three seats and the Mexican train
    assert page.locator("#table .hub").count() == 1
    page.locator("#table g.lane g.tile").nth(2).wait_for(timeout=20_000)

    # An alert arrives without a reload, big, naming a player.
    page.wait_for_selector("#alert-banner:not([hidden])", timeout=40_000)
    who = page.inner_text("#alert-who")
    assert any(name in who for name in PLAYERS), who
    assert page.evaluate("window.__loaded") == "first load"
    page.screenshot(path=str(ARTIFACTS / "live-alert.png"))

    # One tap acknowledges it (the PIN once, then this tablet stays unlocked).
    first = page.locator("#alert-log li").last.get_attribute("data-id")
    page.click("#alert-ack")
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector(".alert-item.acked", timeout=10_000)
    assert first is not None
    assert page.evaluate("window.__loaded") == "first load"
    # Let the table play on a little, then stop the sim for a still picture of the table.
    page.locator("#table g.lane g.tile").nth(11).wait_for(timeout=30_000)
    worker.stop()
    while page.is_visible("#alert-banner"):
        page.click("#alert-ack")
        page.wait_for_timeout(100)
    page.screenshot(path=str(ARTIFACTS / "live-table.png"))

    # The same table on a phone.
    phone = browser.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(url + "/")
    phone.wait_for_selector("#table g.lane g.tile", timeout=20_000)
    phone.screenshot(path=str(ARTIFACTS / "live-phone.png"), full_page=True)

    # Enter round 1's scores; the pad shows the totals and the leader.
    page.goto(url + "/games/1/rounds/1/scores")
    for seat, points in enumerate(("14", "0", "33")):
        page.fill(f"input[name=points_{seat}]", points)
    page.click("#round-form button")
    page.wait_for_selector("#pad")
    assert page.inner_text("td.total[data-seat='2']") == "33"
    assert "Ben" in page.inner_text("#winner")
    page.screenshot(path=str(ARTIFACTS / "score-pad.png"), full_page=True)

    assert not errors, errors
