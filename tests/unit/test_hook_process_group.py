"""A hook that leaves a child behind (``cat >> log; sleep 300``) is stopped whole, and said so once."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from primetui.monitor_core.notify import Notifier, RunEvent, run_hook

WRAPPER = """#!/bin/sh
echo $$ > "$1"
cat >> "$2"
sleep 300 &
echo $! >> "$1"
wait
"""


def wrapper(tmp_path: Path) -> tuple[str, Path, Path]:
    script = tmp_path / "hook.sh"
    script.write_text(WRAPPER)
    script.chmod(0o755)
    pids, log = tmp_path / "pids", tmp_path / "events.log"
    return f"{script} {pids} {log}", pids, log


def running(pid: int) -> bool:
    """True while ``pid`` is a live process (a zombie waiting for init to reap it has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def gone(pids: list[int], what: str, limit: float = 30.0) -> None:
    """Wait until none of ``pids`` runs: a SIGKILLed grandchild dies when it is next scheduled, not
    within the kill() call, so on a busy machine it can linger for a moment after its group was killed."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while any(running(pid) for pid in pids):
        if loop.time() > end:
            raise AssertionError(f"{what}: still running after {limit:.0f} s: {[p for p in pids if running(p)]}")
        await asyncio.sleep(0.02)


def hook_pids(pids: Path) -> list[int]:
    return [int(x) for x in pids.read_text().split()] if pids.exists() else []


async def test_a_timed_out_hook_and_its_child_are_killed_even_while_the_child_holds_its_pipes(tmp_path):
    command, pids, log = wrapper(tmp_path)
    event = RunEvent.status_change("r1", "demo", "RUNNING", "COMPLETED")
    result = await asyncio.wait_for(run_hook(command, event, timeout=1.0), 30)
    assert not result.ok and "took longer than 1 s and was stopped" in result.message
    assert '"run_id": "r1"' in log.read_text(), "the hook got the event on stdin"
    await gone(hook_pids(pids), "the hook's process group outlived its timeout")


async def test_the_timeout_warning_is_reported_once_and_logged_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path / "logs"))
    command, pids, _ = wrapper(tmp_path)
    reported: list[str] = []
    notifier = Notifier(command, timeout=1.0, report=reported.append)
    notifier.emit(RunEvent.status_change("r1", "demo", "RUNNING", "COMPLETED"))
    await asyncio.wait_for(notifier.drain(), 30)
    assert len(reported) == 1 and "took longer than 1 s and was stopped" in reported[0]
    logged = (tmp_path / "logs" / "notify.log").read_text().splitlines()
    assert len(logged) == 1 and reported[0] in logged[0]
    await gone(hook_pids(pids), "the timed-out hook's process group")


async def test_closing_the_notifier_stops_a_running_hook_and_its_children(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path / "logs"))
    command, pids, log = wrapper(tmp_path)
    reported: list[str] = []
    notifier = Notifier(command, timeout=300.0, report=reported.append)
    notifier.emit(RunEvent.status_change("r1", "demo", "RUNNING", "COMPLETED"))
    while len(hook_pids(pids)) < 2:  # the hook started its child
        await asyncio.sleep(0.02)
    await asyncio.wait_for(notifier.close(), 30)
    await gone(hook_pids(pids), "the hook closed with the notifier")
    assert reported == [f"The on-event command {command.split()[0]!r} was stopped: primetui ended before it did."]
    assert os.path.exists(log)
