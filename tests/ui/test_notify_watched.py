"""A watched run's status change reaches a person: toast (markup off), bell, desktop escape, hook."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest
from tests.waiting import until
from dash_helpers import make_app, notifications

from primetui.api.client import PrimeClient
from primetui.config.prefs import NotifyPrefs, Prefs
from primetui.local.testing import IDLE_PACE
from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.timeout(120)


async def test_watched_run_stop_reaches_toast_bell_desktop_and_hook(local_platform, tmp_path):
    sink = tmp_path / "events.jsonl"
    hook = f"{sys.executable} -c \"import sys; open({str(sink)!r}, 'a').write(sys.stdin.read())\""
    cfg = tomllib.loads((Path(local_platform.data_dir) / "sft.toml").read_text())
    cfg["max_steps"] = 400
    cfg["env_vars"] = dict(IDLE_PACE)  # RUNNING is all it needs: no core taken while the test acts
    name = "[b]pager[/b] \x1b]0;owned\x07run"
    async with PrimeClient(local_platform.base_url, local_platform.token) as c:
        run_id = (await c.create_run(cfg, mode="sft", volume="research", name=name)).run_id
    prefs = Prefs(notify=NotifyPrefs(desktop="osc777", on_event=hook))
    app = make_app(local_platform, prefs=prefs)
    bells: list[int] = []
    desktop: list[str] = []
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        app.notifier.write = desktop.append  # the headless driver has no terminal to write to
        app.open_run(run_id)
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, RunScreen) and app.screen.run is not None and app.screen.run.status == "RUNNING"
            ),
            "running",
            timeout=60,
        )
        await pilot.press("w")
        async with PrimeClient(local_platform.base_url, local_platform.token) as c:
            await c.stop_run(run_id)
        await until(
            pilot, lambda: any("RUNNING → STOPPED" in n for n in notifications(app)), "status toast", timeout=60
        )
        toast = [n for n in app._notifications if "STOPPED" in str(n.message)][-1]
        assert toast.markup is False, "a run name is outside text: never parsed as markup"
        assert "[b]pager[/b]" in str(toast.message) and "\x1b" not in str(toast.message)
        assert bells
        assert len(desktop) == 1 and desktop[0].startswith(
            "\x1b]777;notify;Run [b]pager[/b] ␛]0,owned␇run: RUNNING → STOPPED;"
        )
        assert desktop[0].endswith("\x07") and desktop[0].count("\x1b") == 1 and desktop[0].count("\x07") == 1
        await until(pilot, lambda: sink.exists() and sink.read_text().strip(), "hook ran", timeout=30)
    event = json.loads(sink.read_text().splitlines()[-1])
    assert event["kind"] == "status" and event["run_id"] == run_id
    assert event["previous"] == "RUNNING" and event["status"] == "STOPPED" and event["severity"] == "warning"
    assert "\x1b" not in event["title"] and "pager" in event["title"]


async def test_a_failing_hook_is_a_warning_toast_and_a_log_line_and_the_app_goes_on(
    local_platform, tmp_path, monkeypatch
):
    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path / "log"))
    prefs = Prefs(notify=NotifyPrefs(on_event="/nonexistent/pager --page"))
    app = make_app(local_platform, prefs=prefs)
    from primetui.monitor_core.notify import RunEvent

    async with app.run_test(size=(100, 30)) as pilot:
        app.notifier.emit(RunEvent.status_change("r1", "demo", "RUNNING", "FAILED", "boom"))
        await until(pilot, lambda: any("could not start" in n for n in notifications(app)), "hook failure toast")
        assert app.is_running
    logged = (tmp_path / "log" / "notify.log").read_text()
    assert "/nonexistent/pager" in logged and "could not start" in logged
