"""A real browser (headless Chromium from Debian's packages) drives ``primetui serve``.

It opens the printed URL, sees the runs list with the seeded run, presses ``v`` and sees the
volumes screen. What the page drew is read back by feeding the websocket's frames (the bytes the
page's terminal rendered) to a terminal emulator, and a screenshot is saved; set
PRIMETUI_DOCSHOT_DIR=docs/img to refresh the one the manual shows.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.ops.serve_helpers import seed_run, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Screen:
    """What the page's terminal shows, rebuilt from the websocket frames it received."""

    def __init__(self) -> None:
        import pyte

        self.screen = pyte.Screen(240, 80)
        self.stream = pyte.ByteStream(self.screen)
        self.frames = 0

    def feed(self, payload: object) -> None:
        if isinstance(payload, (bytes, bytearray)):
            self.frames += 1
            self.stream.feed(bytes(payload))

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)


def wait_for(page, screen: Screen, *needles: str, timeout: float = 60.0) -> str:
    """The browser's screen once it shows every one of ``needles`` (parts of one screen can land in
    different frames: a screen's table before its header's title)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = screen.text()
        if all(needle in text for needle in needles):
            return text
        page.wait_for_timeout(200)
    raise AssertionError(f"{needles!r} never all appeared in the browser; it shows:\n{screen.text()}")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_browser_shows_runs_and_a_key_reaches_the_app(local_platform, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    seed_run(local_platform, "browser-demo-run")
    with serve(local_platform, tmp_path) as s, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1440, "height": 760},
        )
        try:
            page = browser.new_page()
            refused = page.goto(s.base + "/")
            assert refused is not None and refused.status == 401 and "needs the token" in page.content()
            assert s.app_processes() == []
            screen = Screen()
            page.on("websocket", lambda ws: ws.on("framereceived", screen.feed))
            page.goto(s.url)
            wait_for(page, screen, "browser-demo-run", "Runs", "Status")
            assert len(s.app_processes()) == 1
            page.wait_for_timeout(500)
            shot = tmp_path / "serve-browser.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000
            if os.environ.get("PRIMETUI_DOCSHOT_DIR"):
                shutil.copy(shot, Path(os.environ["PRIMETUI_DOCSHOT_DIR"]) / "serve-browser.png")

            page.locator("#terminal").click()
            page.keyboard.press("v")
            wait_for(page, screen, "Sessions of research", "Volumes")  # the volumes screen, its title too

            page.close()  # closing the tab ends its app process
            s.wait_processes(0)
        finally:
            browser.close()
