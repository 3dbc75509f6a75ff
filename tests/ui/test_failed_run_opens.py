"""A failed run always opens (issue 41, finding 3): its error, its config, its logs, and ``!`` lands on the error.

Opened from the runs list (Enter or ``!``), a run is already known from the list when its screen
mounts. That first frame was drawn in ``on_mount``, before the screen counted as mounted, so it
was skipped; a failed run then brings nothing that changes (the watcher's snapshot equals the
list's, no metric rows, no checkpoints), and the screen stayed at "Loading run…" with an empty
Config tab and no Logs tab. Each run here fails on the real local platform before its first step.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from dash_helpers import dispatch_walkthrough, make_app, notifications, screen_text, wait_status
from textual.widgets import DataTable, TabbedContent, TextArea

from primetui.local.trainer.testing import online_eval_block
from primetui.ui.screens.run import RunScreen
from tests.waiting import until

pytestmark = pytest.mark.timeout(180)


def _walkthrough(lp: Any) -> dict[str, Any]:
    return tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())


async def _bad_dataset_line(lp: Any) -> tuple[str, str, str]:
    volume = next(Path(lp.data_dir).glob("volumes/**/datasets/reverse-text")).parent
    folder = volume / "bad-line"
    folder.mkdir(exist_ok=True)
    (folder / "train.jsonl").write_text('{"prompt": "a", "completion": "b"}\n' * 20 + '{"prompt": "a", \n')
    data = dict(_walkthrough(lp)["data"], name="datasets/bad-line")
    run_id = await dispatch_walkthrough(lp, max_steps=3, data=data)
    return run_id, "train.jsonl line 21 is not valid JSON", 'name = "datasets/bad-line"'


async def _unknown_taskset(lp: Any) -> tuple[str, str, str]:
    block = online_eval_block(interval=1)
    block["eval"]["source"][0]["env"]["taskset"]["id"] = "nobody/no-such-taskset"
    run_id = await dispatch_walkthrough(lp, max_steps=3, **block)
    return run_id, "Taskset 'nobody/no-such-taskset' is not available", 'id = "nobody/no-such-taskset"'


async def _deepep(lp: Any) -> tuple[str, str | None, str]:
    # The local platform refuses ``ep = 1`` with DeepEP at dispatch and trains ``ep = 2`` on one GPU:
    # this run completes, and opens like any other (its config, its logs, no error to jump to).
    model = dict(_walkthrough(lp)["model"], ep_comm_backend="deepep", ep=2)
    run_id = await dispatch_walkthrough(lp, max_steps=3, model=model)
    return run_id, None, 'ep_comm_backend = "deepep"'


CASES = {"bad dataset line": _bad_dataset_line, "unknown eval taskset": _unknown_taskset, "deepep": _deepep}


@pytest.fixture(scope="module")
def ended_runs() -> dict[str, tuple[str, str | None, str]]:
    """Each case's run, dispatched once and shared by both keys' tests: a run that has ended does not change
    when a screen opens it, so the second key's test needs no run of its own (a trainer start is seconds of CPU)."""
    return {}


async def _ended_run(lp: Any, case: str, runs: dict[str, tuple[str, str | None, str]]) -> tuple[str, str | None, str]:
    if case not in runs:
        run_id, error, config_line = await CASES[case](lp)
        ending = await wait_status(lp, run_id, {"FAILED", "COMPLETED"}, limit=120)
        assert ending == ("FAILED" if error else "COMPLETED")
        runs[case] = run_id, error, config_line
    return runs[case]


@pytest.mark.parametrize("key", ["enter", "exclamation_mark"])
@pytest.mark.parametrize("case", list(CASES))
async def test_a_failed_run_opens_with_its_error_config_and_logs(local_platform, ended_runs, case, key):
    run_id, error, config_line = await _ended_run(local_platform, case, ended_runs)
    app = make_app(local_platform)
    async with app.run_test(size=(160, 44)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: run_id in [k.value for k in table.rows], "the failed run in the list")
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run_id == run_id, "the run screen")
        screen = app.screen
        status = "✗ FAILED" if error else "✓ COMPLETED"
        await until(pilot, lambda: status in screen_text(app), "the run's status in its summary")
        assert error is None or error in screen_text(app)  # its error, on the Overview
        tabs = screen.query_one("#run-tabs", TabbedContent)
        await until(pilot, lambda: tabs.query("#tab-logs"), "the Logs tab")
        assert config_line in screen.query_one("#run-config", TextArea).text
        if key == "exclamation_mark" and error:
            # ``!`` lands on the error: the Logs tab, its trainer line, and a toast saying what it was.
            await until(pilot, lambda: tabs.active == "tab-logs", "the jump to the Logs tab")
            await until(
                pilot,
                lambda: any("the run failed" in n and error in n for n in notifications(app)),
                "the jump's toast naming the error",
            )
            assert screen.links is not None and screen.links.logs is not None
            assert screen.focused is not None and tabs.query_one("#tab-logs") in screen.focused.ancestors
