"""The sweep dialog (F9) shows the grid as a whole and refuses one that does not fit together; a
name the platform already has is warned about, and F6 adds -2 to the prefix (issue 41, finding 6)."""

from __future__ import annotations

import pytest

from primetui.sft.templates import WALKTHROUGH
from primetui.ui.editor.sweep import SweepScreen

from editor_helpers import EditorHost, idle, settle
from tests.waiting import until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

# The walkthrough's 0.6B model keeping 6 checkpoints: 43.2 GB a run, on the 100Gi (107.4 GB) demo volume.
SIX_KEPT = WALKTHROUGH.replace("max_steps = 10", "max_steps = 60").replace("keep_last = 1", "keep_last = 6")
ONE_STEP = WALKTHROUGH.replace("max_steps = 10", "max_steps = 1").replace("interval = 10", "interval = 1")


async def _open(pilot, prefix: str, values: str) -> SweepScreen:
    await settle(pilot)
    await pilot.press("f9")
    await idle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SweepScreen)
    screen.query_one("#sweep-prefix").value = prefix
    screen.query_one("#sweep-values-0").value = values
    await until(
        pilot,
        lambda: "(on research)" in _text(screen, "#sweep-grid"),
        "the volumes listed and the grid's line drawn on research",
    )
    await idle(pilot)  # the platform's run names and prices are read
    return screen


def _text(screen: SweepScreen, widget: str) -> str:
    return str(screen.query_one(widget).render())


async def test_the_grid_line_and_a_grid_that_does_not_fit_together_is_refused(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(SIX_KEPT)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    before = (await client.list_runs(limit=1000)).total
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(pilot, "gridui", "1e-5,3e-5,1e-4")
        grid = _text(screen, "#sweep-grid")
        assert (
            "Grid: 3 runs · 3 GPUs · cost: no on-demand GPU price listed · checkpoints 3 × 43.2 GB = 129.6 GB > "
            "volume 107.4 GB — expand the volume, lower keep_last or split the sweep (on research)"
        ) in grid, grid
        await pilot.press("f5")
        await idle(pilot)
        assert app.screen is screen
        assert _text(screen, "#sweep-status").startswith(
            "The 3 runs do not fit on research together: checkpoints 3 × 43.2 GB = 129.6 GB > volume 107.4 GB"
        )
        screen.query_one("#sweep-values-0").value = "1e-5,3e-5"
        await idle(pilot)
        assert "checkpoints 2 × 43.2 GB = 86.4 GB of 107.4 GB" in _text(screen, "#sweep-grid")
    assert (await client.list_runs(limit=1000)).total == before


async def test_a_taken_name_is_warned_about_and_f6_adds_a_suffix(tmp_path, client):
    import tomllib

    taken = await client.create_run(tomllib.loads(ONE_STEP), mode="sft", volume="research", name="gridtaken-lr=1e-5")
    path = tmp_path / "sft.toml"
    path.write_text(ONE_STEP)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(pilot, "gridtaken", "1e-5,3e-5")
        grid = _text(screen, "#sweep-grid")
        assert (
            "⚠ 1 of the 2 run names is already on the platform (gridtaken-lr=1e-5), so the runs list would mix this "
            "sweep with the earlier one under 'gridtaken'; F6 (prefix gridtaken-2) makes every name new."
        ) in grid, grid
        assert "gridtaken-lr=1e-5  1 GPU  (name taken)" in grid
        await pilot.press("f5")  # warned, not refused: F5 asks once more
        await idle(pilot)
        assert app.screen is screen and "F5 again dispatches the names as they are" in _text(screen, "#sweep-status")
        await pilot.press("f6")
        await idle(pilot)
        assert screen.query_one("#sweep-prefix").value == "gridtaken-2"
        assert _text(screen, "#sweep-status") == "The prefix is now gridtaken-2: every run name is new."
        grid = _text(screen, "#sweep-grid")
        assert "⚠" not in grid and "gridtaken-2-lr=3e-5  1 GPU" in grid
        await pilot.press("f5")
        await until(pilot, lambda: app.screen is not screen, "the sweep dispatched and the dialog closed")
    runs = (await client.list_runs(limit=1000)).runs
    ours = sorted(r.name for r in runs if (r.name or "").startswith("gridtaken"))
    assert ours == ["gridtaken-2-lr=1e-5", "gridtaken-2-lr=3e-5", "gridtaken-lr=1e-5"]
    for r in runs:
        if (r.name or "").startswith("gridtaken"):
            await client.stop_run(r.id)
    assert taken.run_id


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_on_a_small_terminal_the_sweep_dialog_scrolls_to_its_grid_and_keeps_its_status_in_sight(
    tmp_path, client, size
):
    """Issue 41, finding 11: at 80x24 the F9 dialog hid its grid, errors and result below its border, no scroll."""
    path = tmp_path / "sft.toml"
    path.write_text(SIX_KEPT)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=size) as pilot:
        screen = await _open(pilot, "gridsmall", "1e-5,3e-5,1e-4")
        box = screen.query_one("SweepScreen > Vertical").region
        status = screen.query_one("#sweep-status").region
        assert status.height >= 1 and box.contains_region(status), (box, status)  # the status line: in sight
        body = screen.query_one("#sweep-body")
        body.scroll_to_widget(screen.query_one("#sweep-grid"), animate=False)
        await idle(pilot)
        grid = screen.query_one("#sweep-grid").region
        assert grid.height >= 1 and box.contains_region(grid), (box, grid)  # scrolled to, inside the border
        assert "Grid: 3 runs" in _text(screen, "#sweep-grid")
        await pilot.press("f5")  # refused: the error shows where it can be read
        await idle(pilot)
        assert _text(screen, "#sweep-status").startswith("The 3 runs do not fit on research together")
        assert box.contains_region(screen.query_one("#sweep-status").region)
