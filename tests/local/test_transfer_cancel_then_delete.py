"""A cancelled transfer whose thread outlives the cancel, on a volume deleted meanwhile (local/transfers/registry).

A cancelled job stops holding its volume at once (V14 gives up waiting after CANCEL_WAIT), so the volume
may be deleted, rows and all, while a stalled request still keeps the job's thread. When that thread
ends, the job must end quietly and leave the registry, not fail on the row that is gone.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from primetui.local.state import LocalState
from primetui.local.transfers import registry
from primetui.local.transfers.jobs import Job
from primetui.local.transfers.reach import S3Url
from primetui.local.transfers.s3io import Secret


def test_a_stalled_cancelled_transfer_ends_cleanly_after_its_volume_is_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release, running = threading.Event(), threading.Event()

    def stalled_run(job: Job) -> None:  # a request the client cannot interrupt, until released
        running.set()
        release.wait(30)
        job.outcome = "cancelled"

    monkeypatch.setattr(Job, "run", stalled_run)
    monkeypatch.setattr(registry, "CANCEL_WAIT", 0.05)
    state = LocalState.open(tmp_path / "data")

    async def scenario() -> registry.Transfers:
        transfers = registry.Transfers(state)
        row = transfers.start("data", "export", "", "s3://b/", S3Url("b", ""), "us-east-1", None, Secret("a", "s"))
        assert await asyncio.to_thread(running.wait, 30), "the job's thread never started"
        await transfers.cancel(row["id"])  # gives up waiting: the row says cancelled now
        assert transfers.rows.get("data", row["id"])["status"] == "cancelled"
        assert transfers.live("data") is None  # so the volume may be deleted
        transfers.rows.forget_volume("data")
        task = transfers.tasks[row["id"]]
        release.set()
        await task  # the job's end, with its row gone
        return transfers

    try:
        transfers = asyncio.run(scenario())
    finally:
        release.set()
    assert transfers.jobs == {} and transfers.tasks == {}
    transfers.pool.shutdown(wait=True)
