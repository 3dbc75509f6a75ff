"""The compare screen closed while its fetch is in flight: the data that lands then draws nothing.

A fresh-clone CI run crashed the dashboard in the wire fuzz (``KeyError: No 'chart--r1' key in
COMPONENT_CLASSES``): the app shut down right after the compare screen was pushed, and the screen's
fetch landed while Textual was removing it. A screen being removed is still mounted and attached, and
not yet closing, but Textual has marked it and every widget under it as pruning, and a mount under it
does nothing. The screen drew its data all the same: it made its first chart, mounted it (which did
nothing), and read the run colours from that chart, never styled.

Here the fetch's result lands in that instant every time: the screen's handler of Textual's ``Prune``
message (the removal's first step on the screen itself, before it closes) hands it the result of the
same fetch (``collect``, as the screen's worker does).
"""

from __future__ import annotations

from typing import Any

import pytest
from dash_helpers import make_app

from primetui.ui.screens.compare import CompareScreen
from primetui.viewmodel.run_data import collect
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)


class LandsWhileRemoved(CompareScreen):
    """A compare screen whose fetch result lands the instant Textual starts removing it."""

    landed: dict[str, Any] | None = None
    seen_alive: bool | None = None

    def on_prune(self, event: Any) -> None:  # Textual calls Widget.on_prune (which closes the screen) after this
        self.seen_alive = self.alive
        self.data = self.landed


async def test_data_that_lands_while_the_compare_screen_is_removed_draws_nothing(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "the runs list")
        run_id = app.state.runs[0].id  # the demo's RL run, if no other
        screen = LandsWhileRemoved(["no-such-run"])  # its own fetch fails: no chart until data lands
        screen.landed = await collect(app.client, [run_id], app.state.now())
        await app.push_screen(screen)
        await until(pilot, lambda: screen.load_error is not None, "the compare screen's own fetch to fail")
        assert not screen.charts

        app.pop_screen()
        await until(pilot, lambda: not screen.is_attached, "the compare screen removed")
        assert screen.seen_alive is False  # mounted and attached, not yet closing: but on its way out
        assert screen.data is screen.landed and not screen.charts  # the data landed and drew nothing
        assert app.is_running and app.return_code is None
        assert app.crash_report is None
