"""Checkpoints you can act on: ``n`` resumes from the highlighted one as a new run, through the editor;
the checkpoint nearest the best eval score is marked."""

from __future__ import annotations

import tomllib

import pytest
from dash_helpers import dispatch_walkthrough, make_app, notifications, wait_status
from textual.widgets import DataTable, Input

from primetui.ui.widgets import FormScreen

from primetui.ui.screens.run_checkpoints import best_eval_checkpoint, resume_text
from tests.runs import wire_run
from tests.waiting import until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_the_checkpoint_nearest_the_best_eval_is_the_one_marked():
    rows = [{"step": s, "loss/mean": 3.0 - 0.1 * s} for s in range(1, 41)]
    rows += [
        {"step": 10, "eval/reverse/reward/mean": 0.2},
        {"step": 20, "eval/reverse/reward/mean": 0.7},
        {"step": 30, "eval/reverse/reward/mean": 0.5},
    ]
    assert best_eval_checkpoint([10, 25, 40], rows) == (25, "eval/reverse/reward/mean", 0.7, 20)
    assert best_eval_checkpoint([10, 25, 40], rows[:40]) is None  # no evals: no mark


def test_resume_text_points_resume_dir_at_the_step_and_drops_step_and_name():
    run = wire_run(
        id="abc",
        name="lr-lr=1e-4",
        runConfig={"name": "lr-lr=1e-4", "max_steps": 20, "resume": {"step": 5}, "optim": {"lr": 1e-4}},
    )
    config = tomllib.loads(resume_text(run, 10))
    assert config["resume"] == {"dir": "/volume/runs/abc/checkpoints/step_10"}
    assert "name" not in config and config["optim"]["lr"] == 1e-4


async def test_n_on_a_checkpoint_opens_a_resume_config_in_the_editor(local_platform, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "example-secret")
    run_id = await dispatch_walkthrough(local_platform, max_steps=3, ckpt={"interval": 1, "keep_last": 3})
    assert await wait_status(local_platform, run_id, {"COMPLETED"}) == "COMPLETED"
    app = make_app(local_platform)
    async with app.run_test(size=(160, 45)) as pilot:
        app.open_run(run_id)
        await until(
            pilot, lambda: type(app.screen).__name__ == "RunScreen" and app.screen.checkpoints, "checkpoints listed"
        )
        screen = app.screen
        table = screen.query_one("#run-checkpoints", DataTable)
        await until(pilot, lambda: table.row_count >= 2 and "2" in [k.value for k in table.rows], "step 2 listed")
        table.move_cursor(row=table.get_row_index("2"))
        # E: export this checkpoint to S3; this platform refuses a loopback endpoint with a sentence.
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the export dialog")
        assert app.screen.query_one("#field-path", Input).value == f"runs/{run_id}/checkpoints/step_2"
        app.screen.query_one("#field-url", Input).value = "s3://team-ckpts/run/step_2"
        endpoint = app.screen.query_one("#field-endpoint", Input)
        endpoint.value = "http://127.0.0.1:9000"
        endpoint.focus()
        await pilot.press("enter")
        await until(
            pilot,
            lambda: any(
                "points at a loopback, link-local, private or cloud-metadata address" in n for n in notifications(app)
            ),
            "the private endpoint refused",
        )
        table.focus()
        await pilot.press("n")
        await until(pilot, lambda: type(app.screen).__name__ == "EditorScreen", "the resume config in the editor")
        editor = app.screen
        config = tomllib.loads(editor.path.read_text())
        assert config["resume"]["dir"] == f"/volume/runs/{run_id}/checkpoints/step_2"
        assert not [d for d in editor.report.diagnostics if d.level == "error" and "resume" in d.message], (
            editor.report.diagnostics
        )
        editor.path.unlink()
