"""primetui.monitor_core.notify: the event type, the desktop escapes, the hook's timeout and failures."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from primetui.monitor_core.notify import Notifier, RunEvent, osc_notification, run_hook


def test_status_event_neutralises_outside_text_and_picks_severity():
    ev = RunEvent.status_change("r1", "evil\x1b[31m\x07name\n2", "RUNNING", "FAILED", "Trainer\x1b]52;c;eA==\x07 died")
    assert ev.severity == "error" and ev.kind == "status"
    for text in (ev.title, ev.detail, ev.run_name):
        assert "\x1b" not in text and "\x07" not in text and "\n" not in text
    assert ev.title.startswith("Run evil") and ev.title.endswith("RUNNING → FAILED")
    assert RunEvent.status_change("r1", None, None, "QUEUED").title == "Run r1: QUEUED"
    assert RunEvent.status_change("r1", None, "RUNNING", "STOPPED").severity == "warning"
    anomaly = RunEvent.anomaly("r1", "demo", "loss spike at step 120", "loss 9.1, EMA 2.3")
    assert (
        anomaly.kind == "anomaly"
        and anomaly.severity == "warning"
        and anomaly.title == "Run demo: loss spike at step 120"
    )
    assert json.loads(json.dumps(anomaly.to_json()))["detail"] == "loss 9.1, EMA 2.3"


def test_osc_escapes_have_one_terminator_and_no_early_field_end():
    ev = RunEvent.status_change("r1", "a;b", "RUNNING", "FAILED", "out of memory")
    seq = osc_notification(ev, "osc777")
    assert seq == "\x1b]777;notify;Run a,b: RUNNING → FAILED;out of memory\x07"
    assert osc_notification(ev, "osc9") == "\x1b]9;Run a,b: RUNNING → FAILED — out of memory\x07"
    assert osc_notification(ev, "off") == ""


async def test_hook_gets_the_event_as_json_on_stdin(tmp_path):
    sink = tmp_path / "got.json"
    cmd = f"{sys.executable} -c \"import sys; open({str(sink)!r}, 'w').write(sys.stdin.read())\""
    ev = RunEvent.status_change("r9", "demo", "RUNNING", "COMPLETED")
    assert (await run_hook(cmd, ev, 20)).ok
    assert json.loads(sink.read_text()) == ev.to_json()


async def test_hook_failures_are_one_sentence_and_a_slow_hook_is_killed():
    ev = RunEvent.status_change("r9", "demo", "RUNNING", "FAILED")
    bad = await run_hook(
        f"{sys.executable} -c \"import sys; print('webhook said 500', file=sys.stderr); sys.exit(3)\"", ev, 20
    )
    assert not bad.ok and "exited with code 3: webhook said 500" in bad.message
    assert "could not start" in (await run_hook("/nonexistent/pager", ev)).message
    assert "cannot be parsed" in (await run_hook("pager 'unclosed", ev)).message


@pytest.mark.timeout(120)  # a bound on a hang: a hook that is not killed never ends
async def test_a_slow_hook_is_killed():
    ev = RunEvent.status_change("r9", "demo", "RUNNING", "FAILED")
    slow = await run_hook(f'{sys.executable} -c "import time; time.sleep(10**6)"', ev, 0.5)
    assert not slow.ok and "longer than 0.5 s" in slow.message


async def test_notifier_never_blocks_the_caller_and_reports_failures(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path))
    reported: list[str] = []
    written: list[str] = []
    n = Notifier(
        f'{sys.executable} -c "import time; time.sleep(30)"',
        desktop="osc9",
        timeout=0.5,
        write=written.append,
        report=reported.append,
    )
    n.emit(RunEvent.status_change("r1", "demo", "RUNNING", "FAILED"))
    assert reported == [], "emit waited for the hook (its 0.5 s timeout was already reported)"
    assert written and written[0].startswith("\x1b]9;")
    await n.drain()
    assert reported and "longer than 0.5 s" in reported[0]
    assert Notifier(None).hook is None and Notifier("x", desktop="bogus").desktop == "off"
    await asyncio.sleep(0)
