"""The editor's dispatch dialog on a small terminal (issue 41, finding 11): the ✗ line of a failed pre-flight
is on screen at 80x24 and 60x20 (it came last, below the dialog's edge); the hint no longer sends tab away
from the volume list, which has the keys; F5 says that it saved the file first."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList, Static

from primetui.sft.templates import WALKTHROUGH

from editor_helpers import EditorHost, open_dispatch, pick_volume, settle
from tests.ui.monitor_helpers import screen_text
from tests.waiting import until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

UNCACHED = WALKTHROUGH.replace("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "Qwen/Qwen3-8B").replace(
    'name = "prime-qwen3"', 'name = "qwen3"'
)


def visible_text(app) -> str:
    """What the terminal shows (the compositor's lines), not what widgets hold past its edge."""
    return screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_failed_preflight_shows_its_cross_line_on_a_small_terminal(tmp_path, client, size):
    path = tmp_path / "sft.toml"
    path.write_text(UNCACHED)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = await open_dispatch(pilot)
        assert screen.query_one("#volumes", OptionList).has_focus
        assert "tab to the volumes" not in screen.query_one("#run-name", Input).placeholder
        await pick_volume(pilot, screen, "research")
        # Which checks fail depends on the shared platform too (an earlier test may have left a read-write
        # session on research, whose ✗ line wraps to three rows at 60 columns): the uncached model and the
        # config always fail here, the first ✗ line is always on screen, and the status line names them all.
        failed = [c.name for c in screen.preflight.checks if c.state == "fail"]
        assert "Model" in failed and "Config" in failed, failed
        await until(
            pilot,
            lambda: f"✗ {failed[0]}" in visible_text(app),
            f"the first ✗ line ({failed[0]}) on screen",
            timeout=120,
        )  # a bound on a hang under load
        status = str(screen.query_one("#dispatch-status", Static).render())
        assert status.startswith(f"✗ {', '.join(failed)}: fix the ✗ line(s) at the top"), status


async def test_f5_says_it_saved_the_file_before_the_dialog(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        ed = await settle(pilot)
        ed.area.insert("# a note\n", (0, 0))
        await until(pilot, lambda: ed.modified, "an unsaved edit")
        screen = await open_dispatch(pilot)
        title = str(screen.query_one(".modal-title", Static).render())
        assert title.endswith("· sft.toml saved first"), title
        assert path.read_text().startswith("# a note\n")
