"""The editor's sweep dialog (F9): keys and values typed, the grid and its GPUs shown, F5 dispatches all."""

from __future__ import annotations

import pytest

from primetui.sft.sweep import MAX_RUNS
from primetui.sft.templates import WALKTHROUGH
from primetui.ui.editor.sweep import SweepScreen

from editor_helpers import EditorHost, idle, settle
from tests.waiting import quiet

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


async def _open(pilot) -> SweepScreen:
    await pilot.press("f9")
    await pilot.pause()
    await idle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SweepScreen)
    return screen


async def test_a_four_lr_sweep_from_the_editor(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await _open(pilot)
        assert screen.query_one("#sweep-key-0").value == "optim.lr"
        screen.query_one("#sweep-prefix").value = "edsweep"
        screen.query_one("#sweep-values-0").value = "1e-5,3e-5,1e-4,1e-1"
        await pilot.pause()
        grid = str(screen.query_one("#sweep-grid").render())
        await quiet(pilot)
        assert "edsweep-lr=1e-1  1 GPU" in grid and "4 run(s), 4 GPUs in all" in grid, grid
        await pilot.press("f5")
        await pilot.pause()
        await idle(pilot)
        assert app.screen is not screen
    runs = (await client.list_runs(limit=100)).runs
    ours = sorted(r.name for r in runs if (r.name or "").startswith("edsweep-"))
    assert ours == sorted(f"edsweep-lr={lr}" for lr in ("1e-5", "3e-5", "1e-4", "1e-1"))
    for r in runs:
        if (r.name or "").startswith("edsweep-"):
            await client.stop_run(r.id)


async def test_a_grid_over_the_limit_says_so_and_dispatches_nothing(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await _open(pilot)
        screen.query_one("#sweep-values-0").value = ",".join(f"{i}e-5" for i in range(1, 7))
        screen.query_one("#sweep-key-1").value = "max_steps"
        screen.query_one("#sweep-values-1").value = ",".join(str(i) for i in range(1, 7))
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()
        status = str(screen.query_one("#sweep-status").render())
        await quiet(pilot)
        assert f"the grid has 36 runs, more than the {MAX_RUNS} one sweep may start" in status
        assert app.screen is screen
