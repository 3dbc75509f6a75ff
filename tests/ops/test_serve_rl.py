"""The RL tabs in ``primetui serve``: a real browser (headless Chromium) opens the demo's finished RL
run from the runs list and reads its Rollouts and Distributions tabs through the page's terminal."""

from __future__ import annotations

import pytest

from tests.local.rl_run import demo_rl_run
from tests.ops.serve_helpers import serve
from tests.ops.test_serve_browser import CHROMIUM, FLAGS, Screen, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_rl_tabs_in_the_browser(local_platform, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    run = demo_rl_run(local_platform)
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
            screen = Screen()
            page.on("websocket", lambda ws: ws.on("framereceived", screen.feed))
            page.goto(s.url)
            wait_for(page, screen, "/ Filter")  # the runs screen (a shared platform may list the run on a later page)
            page.locator("#terminal").click()
            page.keyboard.press("/")
            wait_for(page, screen, "filter: words in id")
            page.keyboard.type(run["id"])
            page.keyboard.press("Enter")  # keep the filter: the one run is left, highlighted
            wait_for(page, screen, "1 shown")
            # open it: the first Enter can still reach the filter field when the browser sends it before the
            # field's submit has moved the focus to the list (then it submits the filter again); press
            # until the run screen is up, a few seconds apart, within the usual bound
            for _attempt in range(12):
                page.keyboard.press("Enter")
                try:
                    wait_for(page, screen, f"Run {run['name']}", timeout=5.0)
                    break
                except AssertionError:
                    continue
            wait_for(page, screen, f"Run {run['name']}")
            wait_for(page, screen, "Distributions")
            page.keyboard.press("6")
            wait_for(page, screen, "Step 20 (2/2) · live · 128 samples · 8 groups", "Problem", "lcs=")
            page.keyboard.press("7")
            wait_for(page, screen, "Rewards · step 20 (20/20)")
            wait_for(page, screen, "All steps (x: step 1–20")
            page.close()
            s.wait_processes(0)
        finally:
            browser.close()
