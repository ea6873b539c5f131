"""A real browser (Debian's Chromium driven by Playwright) at the table.

The app is served on 127.0.0.1 in a background thread from the demo source (the
bundled recording's tables, judged by the round's referee) or, without
``datasets/demo/``, from the sim. Each device is its own browser context (its
own local storage): a watcher sees a new alert as a banner it may dismiss and
is never blocked; the device chosen as the referee screen gets the full-screen
alarm, which "Got it" closes without the PIN; alerts are spoken when asked;
the round's replay is scrubbed back to the table an alert was raised on; a
round's scores are entered. Screenshots go to ``tests/artifacts/`` (tablet
1024x768, phone 390x844).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion_app import attach_worker, create_app, store
from companion_app.db import connect
from companion_app.sources import DemoLogSource, SimSource, demo_labels

from .chromium import ARTIFACTS, chromium, needs_chromium, serving

PIN = "246810"
PLAYERS = ("Ann", "Ben", "Cyril")  # the demo recording's table has three seats

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    folder = tmp_path_factory.mktemp("browser")
    # every browser here is a device on 127.0.0.1: room for all their live pages
    app = create_app({"DATABASE": str(folder / "mtrain.sqlite3"), "PIN": PIN,
                      "MODELS_DIR": str(folder / "no-models"), "STREAMS_PER_DEVICE": 20})
    conn = connect(folder / "mtrain.sqlite3")
    conn.isolation_level = None
    from companion_app.rules import build_rules

    store.create_game(conn, name="Family night", players=list(PLAYERS),
                      rules=build_rules("standard", {}), rounds=13)
    conn.close()
    labels = demo_labels()
    source: Any = (DemoLogSource(labels, turn_seconds=0.5) if labels is not None
                   else SimSource(turn_seconds=0.5, seed=11, breach_rate=0.3))
    worker = attach_worker(app, source)
    with serving(app) as url:
        try:
            yield url, worker
        finally:
            worker.stop()


TABLET = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}
#: Stands in for the browser's voice: what would be said is kept in ``window.__spoken``.
SPEECH_SPY = """
window.__spoken = [];
if (window.speechSynthesis) {
  window.speechSynthesis.speak = (utterance) => window.__spoken.push(utterance.text);
}
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def device(browser: Any, viewport: dict[str, int], *, referee: bool = False,
           speak: bool = False) -> Any:
    """A page in a device of its own (its own local storage and cookies)."""
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    context.add_init_script(SPEECH_SPY)
    if referee:
        context.add_init_script("localStorage.setItem('mtrain-referee', 'on');")
    if speak:
        context.add_init_script("localStorage.setItem('mtrain-speak', 'on');")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    return page


#: The highest alert id the page opened with (it lists those; none of them may alarm).
OPENED_WITH = """Math.max(0, ...JSON.parse(document.getElementById('state').textContent)
  .alerts.map((a) => a.id))"""


def queued(page: Any, selector: str) -> list[int]:
    """The ids of the alerts waiting in the alarm or the banner."""
    return [int(i) for i in (page.get_attribute(selector, "data-ids") or "").split()]


def get(url: str) -> dict[str, Any]:
    import json
    from urllib.request import urlopen

    with urlopen(url, timeout=10) as response:
        data: dict[str, Any] = json.loads(response.read())
    return data


def replay_frames(url: str) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = get(url + "/api/replay")["frames"]
    return frames


def wait_for_an_alert(url: str) -> None:
    """Until the server holds an alert (the page then opens with one listed)."""
    import time

    deadline = time.monotonic() + 60
    while not get(url + "/api/state")["alerts"] and time.monotonic() < deadline:
        time.sleep(0.2)


def test_a_watcher_gets_a_banner_and_is_never_blocked(server: tuple[str, Any],
                                                      browser: Any) -> None:
    url, _ = server
    ARTIFACTS.mkdir(exist_ok=True)
    page = device(browser, TABLET)
    page.goto(url + "/")
    page.evaluate("window.__loaded = 'first load'")
    # Speech is off until asked for on this device.
    assert page.inner_text("#speak") == "Speak: off"
    page.click("#speak")
    assert page.inner_text("#speak") == "Speak: on"
    assert page.evaluate("window.__spoken")[0] == "Alerts will be spoken."

    # The table is drawn from the stream: the hub and one lane per train.
    page.wait_for_selector("#table g.lane", timeout=20_000)
    assert page.locator("#table g.lane").count() == 4  # three seats and the Mexican train
    assert page.locator("#table .hub").count() == 1

    # A new alert arrives without a reload: a banner in words, naming a player.
    page.wait_for_selector("#alert-strip:not([hidden])", timeout=40_000)
    text = page.inner_text("#alert-strip")
    assert any(name in text for name in PLAYERS), text
    assert "[" not in text  # tiles in words (4-7), not lists
    assert page.is_hidden("#alert-banner")  # no full-screen alarm on a watcher's device
    assert page.evaluate("window.__loaded") == "first load"
    assert page.locator("#alert-log li").count() >= 1
    # the next new alert is said aloud, in words
    for _ in range(400):  # (the page's policy forbids wait_for_function's eval)
        if len(page.evaluate("window.__spoken")) > 1:
            break
        page.wait_for_timeout(100)
    said = page.evaluate("window.__spoken")[1]
    assert any(name in said for name in PLAYERS) and "[" not in said, said
    page.screenshot(path=str(ARTIFACTS / "live-watcher-tablet.png"))

    # Dismissing it is local: no PIN asked, the alert stays in the list. (The round
    # plays on: an alert newer than those dismissed may show the strip again at once.)
    shown = queued(page, "#alert-strip")
    page.click("#strip-dismiss")
    after = queued(page, "#alert-strip")
    assert shown and not set(shown) & set(after)
    assert page.is_hidden("#alert-strip") if not after else min(after) > max(shown)
    assert not page.evaluate("document.getElementById('pin-dialog').open")
    assert page.locator("#alert-log li").count() >= 1

    # A phone opening the page later lists the old alerts and queues none of them.
    wait_for_an_alert(url)
    phone = device(browser, PHONE)
    phone.goto(url + "/")
    phone.wait_for_selector("#alert-log li", timeout=20_000)
    opened_with = phone.evaluate(OPENED_WITH)
    assert opened_with >= 1
    phone.wait_for_selector("#alert-strip:not([hidden])", timeout=40_000)  # the next new one
    assert phone.is_hidden("#alert-banner")
    waiting = queued(phone, "#alert-strip")
    assert waiting and min(waiting) > opened_with  # only what came after the page opened
    assert len(waiting) == len(set(waiting))
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.screenshot(path=str(ARTIFACTS / "live-watcher-phone.png"))
    assert not page.errors and not phone.errors, page.errors + phone.errors


def test_the_referee_screen_alarms_and_speaks_new_alerts(server: tuple[str, Any],
                                                         browser: Any) -> None:
    url, _ = server
    wait_for_an_alert(url)
    page = device(browser, TABLET, referee=True, speak=True)
    page.goto(url + "/")
    page.wait_for_selector("#alert-log li", timeout=20_000)
    assert page.inner_text("#referee") == "Referee screen: on"
    assert page.get_attribute("#speak", "aria-pressed") == "true"
    opened_with = page.evaluate(OPENED_WITH)
    assert opened_with >= 1

    page.wait_for_selector("#alert-banner:not([hidden])", timeout=40_000)
    # Unacknowledged alerts from before the page opened are listed, not alarmed.
    waiting = queued(page, "#alert-banner")
    assert waiting and min(waiting) > opened_with
    said = page.inner_text("#alert-who")
    assert any(name in said for name in PLAYERS), said
    assert page.is_hidden("#alert-strip")
    page.screenshot(path=str(ARTIFACTS / "live-referee-alarm.png"))
    spoken = page.evaluate("window.__spoken")
    assert any(said in line for line in spoken), spoken

    # "Got it" without the PIN closes the alarm here and asks for nothing.
    page.click("#alert-ack")
    page.wait_for_timeout(200)
    assert not page.evaluate("document.getElementById('pin-dialog').open")
    while page.is_visible("#alert-banner"):
        page.click("#alert-ack")
        page.wait_for_timeout(100)

    # Acknowledging for everyone is a choice, and it takes the PIN.
    page.locator("#alert-log .ack-small").first.click()
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector(".alert-item.acked", timeout=10_000)
    assert not page.errors, page.errors


def test_the_round_can_be_replayed_to_settle_a_dispute(server: tuple[str, Any],
                                                        browser: Any) -> None:
    import time

    url, worker = server
    deadline = time.monotonic() + 60
    frames = replay_frames(url)
    while len(frames) < 14 and time.monotonic() < deadline:  # one whole pass of the demo
        time.sleep(0.3)
        frames = replay_frames(url)
    worker.stop()
    frames = replay_frames(url)
    assert len(frames) >= 14
    with_alerts = [i for i, f in enumerate(frames) if any(not a["notice"]
                                                          for a in f["alerts"])]
    assert with_alerts

    for name, viewport in (("tablet", TABLET), ("phone", PHONE)):
        page = device(browser, viewport)
        page.goto(url + "/")
        page.wait_for_selector("#table g.lane g.tile", timeout=20_000)
        page.click("#replay-open")
        page.wait_for_selector("#replay-marks .mark", timeout=10_000)
        assert page.get_attribute("#replay-range", "max") == str(len(frames) - 1)
        # back to the start: the first table, nobody's tile yet
        page.fill("#replay-range", "0")
        page.dispatch_event("#replay-range", "input")
        assert page.inner_text("#replay-where").startswith(f"Table 1 of {len(frames)}")
        assert page.locator("#table g.lane g.tile").count() == 0
        # the last alert on the timeline: its table, the tiles just laid, the alert in words
        page.locator("#replay-marks .mark:not(.notice)").last.click()
        where = with_alerts[-1]
        assert page.inner_text("#replay-where").startswith(f"Table {where + 1} of")
        assert page.locator("#table g.tile.fresh").count() >= 1
        alert = page.inner_text("#replay-alerts")
        assert any(n in alert for n in PLAYERS) and "[" not in alert, alert
        assert page.is_visible("#replay-flag")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ARTIFACTS / f"live-replay-{name}.png"), full_page=True)
        page.click("#replay-live")
        assert page.is_hidden("#replay-flag")
        assert not page.errors, page.errors


def test_a_rounds_scores_are_entered(server: tuple[str, Any], browser: Any) -> None:
    url, _ = server
    page = device(browser, TABLET)
    # Enter round 1's scores; the pad shows the totals and the leader.
    page.goto(url + "/unlock")
    page.fill("input[name=pin]", PIN)
    page.click("section.card form button")
    page.goto(url + "/games/1/rounds/1/scores")
    for seat, points in enumerate(("14", "0", "33")):
        page.fill(f"input[name=points_{seat}]", points)
    page.click("#round-form button")
    page.wait_for_selector("#pad")
    assert page.inner_text("td.total[data-seat='2']") == "33"
    assert "Ben" in page.inner_text("#winner")
    page.screenshot(path=str(ARTIFACTS / "score-pad.png"), full_page=True)
    assert not page.errors, page.errors
