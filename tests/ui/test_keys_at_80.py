"""Keys a user can find (issue 41, finding 11): at 80x24 the Volumes footer shows Browse (``b``), and F1 on
compare lists compare's own keys."""

from __future__ import annotations

import pytest
from dash_helpers import make_app, screen_text
from textual.widgets._footer import FooterKey

from primetui.ui.screens.compare import CompareScreen
from primetui.ui.screens.help import HelpScreen
from primetui.ui.screens.volumes import VolumesScreen
from tests.waiting import until

pytestmark = [pytest.mark.timeout(120)]


def footer_keys(app) -> list[str]:
    return [key.action for key in app.screen.query(FooterKey) if key.display]


async def test_the_volumes_footer_shows_browse_at_80x24(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "the volumes screen")
        await until(pilot, lambda: "help" in [a.rsplit(".", 1)[-1] for a in footer_keys(app)], "the footer fitted")
        shown = [a.rsplit(".", 1)[-1] for a in footer_keys(app)]
        assert "browse" in shown and "open_session(False)" in shown, shown


async def test_f1_on_compare_lists_compares_own_keys(local_platform):
    # stopped, not completed: a completed run with no metrics would read as a list still loading to
    # other tests on this shared platform (tests/e2e/test_runs_poll_bytes.py waits for every loss)
    ids = local_platform.insert_runs(["keys-a", "keys-b"], status="STOPPED")
    app = make_app(local_platform)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(CompareScreen(ids))
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "the compare screen")
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        body = screen_text(app)
        for key_id in ("compare.metric", "compare.log_y", "compare.legend", "compare.back"):
            assert key_id in body, body
