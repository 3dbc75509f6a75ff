"""The monitor panes against real runs on the local platform (over HTTP, followers in workers)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from primetui.api.client import PrimeClient
from primetui.local.testing import LocalPlatform
from primetui.local.trainer.testing import online_eval_block
from primetui.ui.focus import key_target
from primetui.ui.monitor import ChartsPane, ComponentsPane, EvalsPane, LogsPane
from tests.local.conftest import dispatch, http, wait_status, walkthrough_config
from tests.waiting import input_applied, quiet, until
from tests.ui.monitor_helpers import PaneApp, screen_text


@pytest.fixture(scope="module")
def eval_run(local_platform: LocalPlatform) -> Iterator[dict]:
    """One finished SFT run with online evals (eval every 5 steps, 10 steps)."""
    block = online_eval_block(interval=5)
    config = walkthrough_config(
        local_platform,
        max_steps=10,
        data={"batch_size": 4, "seq_len": 256},
        optim={"lr": 3e-3},
        eval=block["eval"],
        inference=block["inference"],
        deployment=block["deployment"],
    )
    with http(local_platform) as c:
        run_id = dispatch(c, config)
        run = wait_status(c, run_id)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    yield run


async def _client(lp: LocalPlatform) -> PrimeClient:
    return PrimeClient(lp.base_url, lp.token)


async def test_logs_pane_follows_every_component_of_an_eval_run_and_stops_when_it_is_done(local_platform, eval_run):
    client = await _client(local_platform)
    run = await client.get_run(eval_run["id"])
    app = PaneApp(lambda: LogsPane(client, run))
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(LogsPane)
        assert [s.title for s in pane.specs] == ["trainer", "orchestrator", "inference", "env:reverse-text"]
        await until(pilot, lambda: all(len(s) for s in pane.stores.values()), "lines in every component tab")
        trainer = pane.stores["trainer"]
        texts = trainer.all_text()
        assert any("Broadcasting weights at step 10" in t for t in texts)
        assert any("Eval reverse-text | Step 10 | Reward" in t for t in pane.stores["orchestrator"].all_text())
        # The merged view holds every line of every component, each tagged with its component.
        await until(pilot, lambda: len(pane.merged) == sum(len(s) for s in pane.stores.values()), "merged view")
        # The run is COMPLETED: every follower does its final fetch and stops (no idle polling).
        await until(pilot, lambda: pane.followers and all(f.done for f in pane.followers), "followers to stop")
        pane.query_one("TabbedContent").active = "log-all"
        await quiet(pilot)
        shown = screen_text(app)
        assert re.search(r"^(trainer|orchestrator|inference|env:reverse-text) +│ \d\d:\d\d:\d\d", shown, re.M)
    await client.aclose()


async def test_charts_pane_draws_loss_and_eval_charts_with_eval_marks(local_platform, eval_run):
    client = await _client(local_platform)
    run = await client.get_run(eval_run["id"])
    app = PaneApp(lambda: ChartsPane(client, run))
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(ChartsPane)
        await until(pilot, lambda: "eval/reverse-text/reward/mean" in pane.charts, "the eval chart")
        await until(pilot, lambda: {5.0, 10.0} <= set(pane.table.eval_steps), "both evals", timeout=30)
        assert list(pane.charts)[:2] == ["loss/mean", "loss/perplexity"]
        loss = pane.charts["loss/mean"]
        assert any(
            k == "marker" for row in loss.frame_rows() for _, k in row
        )  # each eval step marked on the loss chart
        pane.focus()
        await pilot.press("right", "right")
        await input_applied(pilot)
        assert pane.view.cursor is not None
        text = screen_text(app)
        assert f"@ step {int(pane.view.cursor)}:" in text
        await until(pilot, lambda: all(f.done for f in pane.followers), "metrics follower to stop")
        assert pane.view.live is False
    await client.aclose()


async def test_components_pane_lists_processes_and_env_servers(local_platform, eval_run):
    client = await _client(local_platform)
    run = await client.get_run(eval_run["id"])
    app = PaneApp(lambda: ComponentsPane(client, run))
    async with app.run_test(size=(140, 20)) as pilot:
        pane = app.query_one(ComponentsPane)
        # A COMPLETED run's R8 always lists its env servers (the supervisor ingests components.json
        # after the trainer exits, before it publishes the final status): wait for the listing.
        await until(pilot, lambda: pane.env_servers, "R8 to list the run's env servers")
        await quiet(pilot)
        text = screen_text(app)
        for name in ("trainer", "orchestrator", "inference", "env:reverse-text"):
            assert name in text
        assert "completed" in text
    await client.aclose()


async def test_evals_pane_tables_each_eval(local_platform, eval_run):
    client = await _client(local_platform)
    run = await client.get_run(eval_run["id"])
    app = PaneApp(lambda: EvalsPane(client, run))
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(EvalsPane)
        await until(pilot, lambda: {5.0, 10.0} <= set(pane.table.eval_steps), "eval rows", timeout=30)
        await quiet(pilot)
        text = screen_text(app)
        assert "reverse-text" in text and "Reward mean" in text
        assert all(k.startswith("eval/") for k in pane.charts)
    await client.aclose()


async def test_a_live_run_streams_into_the_log_view_and_the_chart(local_platform):
    config = walkthrough_config(local_platform, max_steps=30, data={"batch_size": 4, "seq_len": 256})
    with http(local_platform) as c:
        run_id = dispatch(c, config)
        wait_status(c, run_id, {"RUNNING", "COMPLETED"})
    client = await _client(local_platform)
    run = await client.get_run(run_id)

    class Both(PaneApp):
        def compose(self):
            yield LogsPane(client, run)
            yield ChartsPane(client, run)

    app = Both(lambda: None)
    async with app.run_test(size=(140, 60)) as pilot:
        logs = app.query_one(LogsPane)
        charts = app.query_one(ChartsPane)
        await until(
            pilot,
            lambda: any("SFT trainer finished" in t or "Step 30 |" in t for t in logs.stores["trainer"].all_text()),
            "the last step line",
            timeout=120,
        )
        await until(
            pilot,
            lambda: charts.table.get("loss/mean") is not None and len(charts.table.get("loss/mean")) >= 29,
            "the loss series",
            timeout=120,
        )
        view = logs.tabs["trainer"].view
        assert view.at_bottom  # follow mode kept the tail in view while lines arrived
        steps = charts.table.get("loss/mean").steps.tolist()
        assert steps == sorted(steps) and steps[-1] >= 29
    await client.aclose()


async def test_the_dashboard_run_screen_mounts_every_monitor_pane(local_platform, eval_run):
    from primetui.ui.screens.run import RunScreen
    from tests.ui.dash_helpers import make_app

    app = make_app(local_platform)
    async with app.run_test(size=(160, 48)) as pilot:
        app.open_run(eval_run["id"])
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.query(LogsPane), "the monitor tabs")
        screen = app.screen
        assert sorted(type(w).__name__ for w in screen.query("LogsPane, ChartsPane, ComponentsPane, EvalsPane")) == [
            "ChartsPane",
            "ComponentsPane",
            "EvalsPane",
            "LogsPane",
        ]
        logs = screen.query_one(LogsPane)
        await pilot.press("3")  # number keys reach every tab from the keyboard (the monitor nests tabs too)
        await until(pilot, lambda: screen.query_one("#run-tabs").active == "tab-logs", "tab 3 shown by its key")
        await pilot.press("4")
        await until(pilot, lambda: screen.query_one("#run-tabs").active == "tab-charts", "tab 4 shown by its key")
        await pilot.press("1")
        await until(pilot, lambda: screen.query_one("#run-tabs").active == "tab-overview", "tab 1 shown by its key")
        # A key pressed while a focus in the tab shown before is still on its way (TabbedContent follows
        # focus): the tab the key picked stays shown.
        await pilot.press("3")
        await until(pilot, lambda: screen.query_one("#run-tabs").active == "tab-logs", "tab 3 shown again")
        await quiet(pilot)
        screen.set_focus(None)
        await quiet(pilot)
        key_target(screen.query_one("#tab-logs")).focus()
        screen.action_tab(3)
        await quiet(pilot)
        assert screen.query_one("#run-tabs").active == "tab-charts"
        await pilot.press("1")
        await until(pilot, lambda: screen.query_one("#run-tabs").active == "tab-overview", "tab 1 shown once more")
        screen.query_one("#run-tabs").active = "tab-logs"
        await until(pilot, lambda: len(logs.stores["trainer"]) > 0, "trainer lines in the run screen")
        screen.query_one("#run-tabs").active = "tab-charts"
        charts = next(w for w in screen.query(ChartsPane) if type(w) is ChartsPane)
        await until(
            pilot,
            lambda: charts.table.get("loss/mean") is not None and len(charts.table.get("loss/mean")) == 10,
            "the loss series in the run screen",
        )
