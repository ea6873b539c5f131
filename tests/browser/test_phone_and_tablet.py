"""Every page on a phone (390x844) and a tablet (1280x800): names shown whole (long,
Cyrillic, with an emoji, two that differ by a letter), nothing that takes a tap under
44 px, nothing cut; times in the device's zone; any past round's replay reached from the
games and the pad; the PIN dialog saying what happened, keeping an acknowledgement through
a wait; a screen refused for too many streams saying so. Screenshots go to
``tests/artifacts/`` (``app-*.png``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from companion_app import alert_log, create_app, replay, store
from companion_app.backoff import Backoff
from companion_app.db import connect
from companion_app.rules import build_rules
from companion_app.stream_room import StreamRoom
from engine import Alert, AlertCode
from engine.referee import AlertDetails

from .chromium import ARTIFACTS, chromium, needs_chromium, serving

PIN = "135790"
NAMES = ("Alexander", "Alexandra", "Алёна", "Zoë 🚂", "Maximiliano-Sebastián")
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1280, "height": 800}
ZONE = "Asia/Kathmandu"  # UTC+05:45: a wrong zone shows the wrong minutes too
WAIT_S = 3.0

pytestmark = needs_chromium

#: Visible things that take a tap, narrower or shorter than 44 px; text cut by its box;
#: the page wider than the screen.
PROBE = """() => {
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' &&
      !el.closest('[hidden], dialog:not([open])');
  };
  const small = [];
  const taps = 'a[href], button, input:not([type=hidden]), select, textarea, summary, ' +
    '[role=button]';
  for (let el of document.querySelectorAll(taps)) {
    if (!shown(el)) continue;
    if (el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')) {
      el = el.closest('label');  // the label takes the tap
    }
    const r = el.getBoundingClientRect();
    if (r.width < 44 || r.height < 44) {
      small.push(`${el.tagName} "${(el.textContent || el.value || '').trim().slice(0, 24)}" ` +
                 `${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  const cut = [];
  for (const el of document.querySelectorAll('main *')) {
    if (!shown(el) || el.closest('svg')) continue;
    const st = getComputedStyle(el);
    const clips = st.textOverflow === 'ellipsis' || ['hidden', 'clip'].includes(st.overflowX);
    if (clips && el.scrollWidth > el.clientWidth + 1 && !el.matches('.pad-card, .photo-wrap')) {
      cut.push(`${el.tagName}.${el.className} "${el.textContent.trim().slice(0, 24)}"`);
    }
  }
  for (const select of document.querySelectorAll('select')) {
    if (!shown(select)) continue;
    const option = select.options[select.selectedIndex];
    const st = getComputedStyle(select);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    const room = select.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 16;
    if (option && ctx.measureText(option.text).width > room) cut.push(`SELECT "${option.text}"`);
  }
  const wide = document.documentElement.scrollWidth > window.innerWidth + 1;
  return {small, cut, wide};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    folder = tmp_path_factory.mktemp("phone")
    app = create_app({"DATABASE": str(folder / "mtrain.sqlite3"), "PIN": PIN,
                      "PIN_ITERATIONS": 1000, "MODELS_DIR": str(folder / "no-models"),
                      "STREAMS_PER_DEVICE": 20})  # every browser here is on 127.0.0.1
    # a short wait after wrong PINs, one free try
    app.extensions["mtrain_pin_backoff"] = Backoff(free_tries=1, first_wait=WAIT_S)
    conn = connect(folder / "mtrain.sqlite3")
    conn.isolation_level = None
    game_id = store.create_game(conn, name="Семейный вечер 🚂", players=list(NAMES),
                                rules=build_rules("standard", {}), rounds=13)
    game = store.get_game(conn, game_id)
    assert game is not None
    for seat in range(len(NAMES)):
        store.set_score(conn, game_id, 1, seat, 10 + seat, "typed")
    for number, engine in ((1, 12), (2, 11)):
        for k in range(4):
            trains = [{"owner": s, "tiles": [[engine, 5]] if s < k else [], "marker": False}
                      for s in range(len(NAMES))]
            replay.record(conn, game_id, number, {"engine": engine, "trains": trains}, k % 5)
        logged = alert_log.add_alert(
            conn, game_id, number,
            Alert(3, AlertCode.MISMATCH, 1, 1, f"{engine}-5 does not match"),
            AlertDetails(tile=(engine, 5), end=engine))
        replay.add_alert(conn, game_id, number, logged.alert.to_json() | {
            "id": logged.id, "details": logged.details.to_json()})
    store.set_current_round(conn, game, 2)
    conn.close()
    with serving(app) as url:
        yield url, app


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def device(browser: Any, viewport: dict[str, int], url: str, *, unlock: bool = True) -> Any:
    context = browser.new_context(viewport=viewport, device_scale_factor=1, locale="en-GB",
                                  timezone_id=ZONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    if unlock:
        page.goto(url + "/unlock")
        page.fill("input[name=pin]", PIN)
        page.click("form.stack button")
    return page


PAGES = ("/", "/games/", "/games/1/pad", "/games/new", "/games/1/rounds/2/hands",
         "/games/1/rounds/1/scores", "/games/1/rounds/1/replay", "/settings", "/set/",
         "/unlock")


@pytest.mark.parametrize(("name", "viewport"), [("phone", PHONE), ("tablet", TABLET)])
def test_every_page_fits_a_finger_and_shows_names_whole(server: tuple[str, Any], browser: Any,
                                                        name: str, viewport: dict[str, int]
                                                        ) -> None:
    url, _ = server
    ARTIFACTS.mkdir(exist_ok=True)
    page = device(browser, viewport, url)
    for path in PAGES:
        page.goto(url + path)
        page.wait_for_timeout(150)
        found = page.evaluate(PROBE)
        shot = path.strip("/").replace("/", "-") or "live"
        page.screenshot(path=str(ARTIFACTS / f"app-{name}-{shot}.png"), full_page=True)
        assert found["small"] == [], f"{path} on a {name}: under 44 px: {found['small']}"
        assert found["cut"] == [], f"{path} on a {name}: cut: {found['cut']}"
        assert not found["wide"], f"{path} on a {name}: wider than the screen"
    page.goto(url + "/games/1/pad")
    cells = page.query_selector_all("#pad tbody th.player")
    assert [c.inner_text().strip() for c in cells] == list(NAMES)
    for cell in cells:  # the whole name shows inside its cell
        assert cell.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    first, second = cells[0].bounding_box(), cells[1].bounding_box()
    assert first and second and first["height"] >= 44
    assert page.errors == []


def test_times_are_the_devices_own(server: tuple[str, Any], browser: Any) -> None:
    url, _ = server
    page = device(browser, PHONE, url)
    page.goto(url + "/games/1/pad")
    stamp = page.get_attribute("#history time", "datetime")
    assert stamp and stamp.endswith("Z")
    local = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
    shown = page.inner_text("#history time")
    assert f"{local:%H:%M}" in shown and "UTC" not in shown
    page.goto(url + "/games/")
    assert "UTC" not in page.inner_text("#games time")


@pytest.mark.parametrize(("name", "viewport"), [("phone", PHONE), ("tablet", TABLET)])
def test_a_past_rounds_replay_is_reached_from_the_games_list(server: tuple[str, Any],
                                                             browser: Any, name: str,
                                                             viewport: dict[str, int]) -> None:
    url, _ = server
    page = device(browser, viewport, url, unlock=False)
    page.goto(url + "/games/")
    page.click("#games a:has-text('Replays')")
    page.wait_for_url("**/games/1/pad#replays")
    page.click(".round-links a:has-text('Round 1')")
    page.wait_for_url("**/games/1/rounds/1/replay")
    page.wait_for_selector("#table g.lane", timeout=10_000)
    assert page.inner_text("#replay-where").startswith("Table 1 of 4")
    mark = page.wait_for_selector("#replay-marks .mark", timeout=5_000)
    box = mark.bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44
    mark.click()
    assert page.inner_text("#replay-where").startswith("Table 4 of 4")
    assert "Alexandra" in page.inner_text("#replay-alerts")  # the alert raised on it, in words
    page.click("#replay-prev")
    assert page.inner_text("#replay-where").startswith("Table 3 of 4")
    page.screenshot(path=str(ARTIFACTS / f"app-{name}-past-round-replay.png"), full_page=True)
    assert page.errors == []


def dialog_text(page: Any) -> str:
    return " ".join(page.inner_text(s) for s in ("#pin-error", "#pin-wait")
                    if page.is_visible(s))


def test_the_pin_dialog_says_what_happened_and_keeps_the_acknowledgement(
        server: tuple[str, Any], browser: Any) -> None:
    url, app = server
    page = device(browser, PHONE, url, unlock=False)
    page.goto(url + "/")
    page.click("#alert-log .ack-small")
    page.wait_for_selector("#pin-dialog[open]")
    page.fill("#pin-input", "000000")
    page.click("#pin-ok")
    page.wait_for_selector("#pin-error:has-text('Wrong PIN')")
    assert "1 try left" in dialog_text(page)
    page.screenshot(path=str(ARTIFACTS / "app-phone-pin-wrong.png"))
    page.fill("#pin-input", "111111")
    page.click("#pin-ok")
    page.wait_for_selector("#pin-wait:not([hidden])")
    text = dialog_text(page)
    assert "Wrong PIN" in text and "Wait" in text and " s" in text
    first = int(page.get_attribute("#pin-wait", "data-seconds") or 0)
    assert 1 <= first <= WAIT_S
    page.screenshot(path=str(ARTIFACTS / "app-phone-pin-wait.png"))
    page.fill("#pin-input", PIN)  # the right PIN during the wait: kept, and why
    page.click("#pin-ok")
    assert page.is_visible("#pin-dialog[open]")
    assert "PIN kept" in page.inner_text("#pin-wait")
    assert "cannot be checked sooner" in page.inner_text("#pin-wait")
    page.screenshot(path=str(ARTIFACTS / "app-phone-pin-kept.png"))
    deadline = time.monotonic() + WAIT_S + 10
    while time.monotonic() < deadline and not page.query_selector(".alert-item.acked"):
        page.wait_for_timeout(200)
    assert page.query_selector(".alert-item.acked"), "the kept acknowledgement went through"
    assert not page.is_visible("#pin-dialog[open]")
    assert page.errors == []


def test_a_screen_past_the_stream_limit_says_so(server: tuple[str, Any], browser: Any) -> None:
    url, app = server
    kept = app.extensions.get("mtrain_streams")
    app.extensions["mtrain_streams"] = StreamRoom(per_device=0, total=20)
    try:
        page = device(browser, PHONE, url, unlock=False)
        page.goto(url + "/")
        note = page.wait_for_selector("#stream-note:not([hidden])", timeout=10_000)
        assert "Too many screens" in note.inner_text()
        assert "at most 0" in note.inner_text()
        page.screenshot(path=str(ARTIFACTS / "app-phone-too-many-screens.png"))
        app.extensions["mtrain_streams"] = StreamRoom()
        page.click("#stream-retry")
        page.wait_for_selector("#stream-note", state="hidden", timeout=10_000)
    finally:
        app.extensions["mtrain_streams"] = kept if kept is not None else StreamRoom()
