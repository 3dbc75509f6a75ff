"""The checkpoint the dashboard marks ``★ best eval`` is the one ``n`` acts on (issue 41, finding 11): the
cursor started on the first row, so ``n`` resumed from step 5 when step 25 was starred. A real eval run
on the local platform, with a checkpoint every 2 steps and an eval every 5."""

from __future__ import annotations

import pytest
from dash_helpers import make_app, wait_status
from textual.widgets import DataTable

from primetui.api.client import PrimeClient
from primetui.local.trainer.testing import online_eval_block
from primetui.ui.screens.run_checkpoints import BEST_MARK
from tests.local.conftest import walkthrough_config
from tests.waiting import until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


async def test_the_cursor_starts_on_the_best_eval_checkpoint_and_stays_where_the_user_puts_it(local_platform):
    block = online_eval_block(interval=5)
    config = walkthrough_config(
        local_platform,
        max_steps=10,
        data={"batch_size": 4, "seq_len": 256},
        optim={"lr": 3e-3},
        ckpt={"interval": 2, "keep_last": 5},
        eval=block["eval"],
        inference=block["inference"],
        deployment=block["deployment"],
    )
    async with PrimeClient(local_platform.base_url, local_platform.token) as client:
        run_id = (await client.create_run(config, mode="sft", volume="research")).run_id
    assert await wait_status(local_platform, run_id, {"COMPLETED"}) == "COMPLETED"
    app = make_app(local_platform)
    async with app.run_test(size=(160, 45)) as pilot:
        app.open_run(run_id)
        await until(pilot, lambda: type(app.screen).__name__ == "RunScreen", "the run screen")
        screen = app.screen
        table = screen.query_one("#run-checkpoints", DataTable)

        def starred() -> str | None:
            return next((str(key.value) for key in table.rows if BEST_MARK in str(table.get_row(key)[1])), None)

        await until(pilot, lambda: table.row_count >= 5 and starred() is not None, "the starred checkpoint")
        assert screen.highlighted_checkpoint_step() == int(starred())
        other = next(str(key.value) for key in table.rows if str(key.value) != starred())
        table.move_cursor(row=table.get_row_index(other))
        screen._checkpoints_shown = None  # the next poll redraws the table, as a new checkpoint would
        screen.render_run()
        await until(pilot, lambda: screen._checkpoints_shown is not None, "the table redrawn")
        assert screen.highlighted_checkpoint_step() == int(other)  # the user's choice outlives a redraw
