"""The platform's transfer jobs: start, follow, cancel, and the hold a live transfer puts on its volume.

A live import holds the volume as a read-write session does: it is the volume's one writer, so a
read-write session, a direct put, another import and a volume delete are refused with 409 while it
runs, and a run dispatched on the volume waits (``queueReason``) until it ends. A live export only
reads: it holds the volume as a read-only session does (a delete is refused). Jobs run in a small
pool of their own threads (:data:`MAX_JOBS` at once; the rest stay ``queued``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from primetui.local.store import iso_now
from primetui.local.storage.room import ledger_of
from primetui.local.transfers import s3io
from primetui.local.transfers.jobs import CANCELLED, Job
from primetui.local.transfers.reach import S3Url
from primetui.local.transfers.table import Rows, wire

log = logging.getLogger("primetui.local.transfers")
MAX_JOBS = 4
CANCEL_WAIT = 5.0
"""Seconds V14 waits for a job to stop before it writes ``cancelled`` itself (the job still ends soon after)."""
STOPPED = (
    "The platform stopped while this transfer ran; start it again once it is back (files already copied are skipped)."
)
RESTARTED = (
    "The platform restarted while this transfer ran; its credentials were not kept, so start it again "
    "(files already copied are skipped)."
)


class Transfers:
    """Every transfer of one platform (``state.extras["transfers"]``); lives on the server's event loop."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.rows = Rows(state.store)
        self.jobs: dict[str, Job] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.pool = ThreadPoolExecutor(MAX_JOBS, thread_name_prefix="transfer")
        self.staging_root = Path(state.data_dir) / "transfer-staging"  # beside the volumes: renames are atomic
        self.allow_private = bool(state.extras.get("allow_private_endpoints"))
        self.rows.fail_orphans(RESTARTED)
        shutil.rmtree(self.staging_root, ignore_errors=True)

    def start(
        self,
        volume: str,
        direction: str,
        path: str,
        url: str,
        target: S3Url,
        region: str,
        endpoint: str | None,
        secret: s3io.Secret,
    ) -> dict[str, Any]:
        transfer_id = "tr_" + secrets.token_hex(8)
        self.rows.insert(transfer_id, volume, direction, path, url)
        job = Job(
            id=transfer_id,
            volume=volume,
            direction=direction,
            path=path,
            target=target,
            region=region,
            endpoint=endpoint,
            secret=secret,
            root=self.state.volume_dir(volume),
            staging=self.staging_root / transfer_id,
            ledger=ledger_of(self.state, volume),
        )
        self.jobs[transfer_id] = job
        self.tasks[transfer_id] = asyncio.get_running_loop().create_task(self._run(job))
        row = self.rows.get(volume, transfer_id)
        assert row is not None  # inserted above
        return wire(row)

    async def _run(self, job: Job) -> None:
        loop = asyncio.get_running_loop()
        started = loop.create_future()

        def work() -> None:
            loop.call_soon_threadsafe(_set, started)
            if not job.cancelled.is_set():
                job.run()
            else:
                job.outcome, job.error, job.secret = "cancelled", "Cancelled before it started.", None

        running = loop.run_in_executor(self.pool, work)
        await asyncio.wait({started, running}, return_when=asyncio.FIRST_COMPLETED)
        if not job.cancelled.is_set():
            self.rows.update(job.id, status="running", started_at=iso_now())
        try:
            await running
        finally:
            moved = job.meter.total or job.meter.done or job.outcome == "succeeded"
            progress = job.meter.progress() if moved else None
            row = self.rows.get(job.volume, job.id)
            if row is None:
                pass  # cancelled, then its volume was deleted with its rows (a cancelled job no longer holds it)
            elif row["status"] == "cancelled":  # V14 gave up waiting: it stays so
                self.rows.update(job.id, progress=progress)
            else:
                self.rows.update(
                    job.id,
                    status=job.outcome if job.outcome != "running" else "failed",
                    progress=progress,
                    completed_at=iso_now(),
                    error_message=job.error,
                )
            self.jobs.pop(job.id, None)
            self.tasks.pop(job.id, None)
            log.info("transfer %s (%s of %s) ended %s", job.id, job.direction, job.volume, job.outcome)

    # -- reads --------------------------------------------------------------------------------
    def wire_of(self, row: Any) -> dict[str, Any]:
        job = self.jobs.get(row["id"])
        live = job.meter.progress() if job is not None and row["status"] == "running" else None
        return wire(row, live)

    def live(self, volume: str, direction: str | None = None) -> Job | None:
        """A live job on ``volume`` (of ``direction``), or None."""
        # A cancelled job writes nothing more to the volume (its files land only after a check for the cancel),
        # so it stops holding the volume at once, even while a stalled request keeps its thread a little longer.
        return next(
            (
                job
                for job in self.jobs.values()
                if job.volume == volume and direction in (None, job.direction) and not job.cancelled.is_set()
            ),
            None,
        )

    # -- cancel -------------------------------------------------------------------------------
    async def cancel(self, transfer_id: str) -> None:
        """Cancel a live job and wait until its row says so (idempotent: an ended job stays as it ended)."""
        job, task = self.jobs.get(transfer_id), self.tasks.get(transfer_id)
        if job is None or task is None:
            return
        job.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), CANCEL_WAIT)
        except TimeoutError:  # a request the client cannot interrupt (a stalled read): the row says so now
            self.rows.update(transfer_id, status="cancelled", completed_at=iso_now(), error_message=CANCELLED)

    async def shutdown(self) -> None:
        for job in list(self.jobs.values()):
            job.stopping = STOPPED
            job.cancel()
        if self.tasks:
            await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        self.pool.shutdown(wait=False, cancel_futures=True)


def _set(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def transfers_of(state: Any) -> Transfers:
    found = state.extras.get("transfers")
    if found is None:
        found = state.extras["transfers"] = Transfers(state)
    return found


def live_import(state: Any, volume: str) -> str | None:
    """Id of the live import on ``volume`` (the volume's one writer while it runs), or None."""
    found = state.extras.get("transfers")
    job = found.live(volume, "import") if found is not None else None
    return job.id if job is not None else None


def live_transfer(state: Any, volume: str) -> str | None:
    """Id of any live transfer on ``volume`` (an export reads it: it blocks deletion), or None."""
    found = state.extras.get("transfers")
    job = found.live(volume) if found is not None else None
    return job.id if job is not None else None


async def shutdown_transfers(state: Any) -> None:
    """At server stop: cancel the live jobs and wait for them (their rows end ``cancelled``)."""
    found = state.extras.get("transfers")
    if found is not None:
        await found.shutdown()
