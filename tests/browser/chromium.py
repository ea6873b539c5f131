"""What every browser test shares: Debian's chromium, run headless and offline, the app
served on a free port, the folder the screenshots go to."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

needs_chromium = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None,
    reason="Debian's chromium is not installed (tests/browser/ensure_chromium.sh installs it)",
)


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served on a free local port while the block runs, under the server ``mtrain
    serve`` uses (waitress); its address."""
    from companion_app.serve import Server

    http = Server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=http.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.port}"
    finally:
        http.close()
        thread.join(5)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless chromium; each test opens contexts (devices) of its own in it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def chromium_profile(profile: Path, viewport: Any) -> Iterator[Any]:
    """One headless chromium context with a profile of its own (``profile``), at
    ``viewport``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=ARGS, headless=True,
            viewport=viewport, device_scale_factor=1,
        )
        try:
            yield context
        finally:
            context.close()
