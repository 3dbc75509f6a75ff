"""The run supervisor: one trainer process per run, its files tailed into the store, its exit judged.

Lifecycle it drives: PENDING -> CREATING (process spawned) -> RUNNING (the process reports
``running``) -> COMPLETED / FAILED / STOPPED, plus PAUSING -> PAUSED. A PENDING run whose volume
has a live read-write session stays PENDING with ``queueReason`` saying so.

Crashes and restarts of the server lose nothing recorded:

* On a clean shutdown (SIGTERM/SIGINT) every running trainer is asked to pause (SIGUSR1: it writes a
  checkpoint at the next step boundary); stragglers get SIGTERM, then SIGKILL. Their runs stay
  RUNNING in the store.
* On start, each non-terminal run is looked at again. A trainer still alive (the server was killed,
  its child was not) is adopted by pid and followed to its end. A trainer that is gone and wrote a
  terminal state gets that state. Otherwise the run is **resumed in place** from its latest
  checkpoint (from the start if it has none) as a new attempt, and its log says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from primetui.local.paths import safe_join
from primetui.local.environ import worker_environment
from primetui.local.ingest import PROTOCOL_FILES, RunIngestor
from primetui.local.paths import dir_size_bytes, volume_key
from primetui.local.procs import Child, pid_alive, trainer_in
from primetui.local.session_hooks import live_read_write_session
from primetui.local.storage.grants import live_upload_lease
from primetui.local.transfers.registry import live_import
from primetui.local.state import LocalState
from primetui.local.state import MAX_RUNS_ENV
from primetui.local.store import ACTIVE_RUN_STATUSES, BUSY_RUN_STATUSES, WAITING_RUN_STATUSES, iso_now
from primetui.local.trainer.forks import ForkServer, ForkedTrainer
from primetui.local.trainer.rl import STANDIN as RL_STANDIN
from primetui.local.trainer.rl import is_rl_config

log = logging.getLogger("primetui.local.supervisor")

TICK_SECONDS = 0.2
PENDING_SECONDS = 1.0  # the hosted platform takes a while to schedule; shortened by PRIMETUI_LOCAL_SPEED
STOP_GRACE_SECONDS = 10.0
SHUTDOWN_PAUSE_SECONDS = 8.0


def _pid_runs(pid: int, run_dir: Path) -> bool:
    """True when ``pid`` is alive and is the trainer of ``run_dir`` (guards against pid reuse)."""
    return trainer_in(pid, run_dir, exact=True)


class Supervisor:
    """Owns the trainer processes of one local platform."""

    def __init__(self, state: LocalState) -> None:
        self.state = state
        self.store = state.store
        self.procs: dict[str, Child] = {}
        self.forks = ForkServer()
        self.adopted: dict[str, int] = {}
        self.ingestors: dict[str, RunIngestor] = {}
        self.busy: set[str] = set()  # runs a request handler is restarting right now
        self.restarting: set[str] = set()  # runs between a restart's request and their respawn (pause refused)
        self.fail_reason: dict[str, str] = {}
        self.signal_sent_at: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None
        self._training = 0
        self._queued_ahead = 0
        self._stopping = False

    # lifecycle of the supervisor itself ------------------------------------------------------
    async def start(self) -> None:
        self.recover()
        self._task = asyncio.create_task(self._loop(), name="primetui-local-supervisor")

    async def _loop(self) -> None:
        while not self._stopping:
            try:
                self.tick()
            except Exception:  # one bad run must not stop supervising the others
                log.exception("supervisor tick failed")
            await asyncio.sleep(TICK_SECONDS)

    async def shutdown(self) -> None:
        """Pause running trainers (checkpoint), then stop what is left; runs stay RUNNING for recovery."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        live = {rid: pid for rid, pid in self._live_pids().items()}
        for run_id, pid in live.items():
            row = self.store.get_run(run_id)
            sig = signal.SIGTERM if row is not None and row["requested"] == "stop" else signal.SIGUSR1
            self._signal(pid, sig)
        deadline = time.monotonic() + SHUTDOWN_PAUSE_SECONDS
        while time.monotonic() < deadline and any(self._alive(rid) for rid in live):
            await asyncio.sleep(0.1)
        for run_id, pid in live.items():
            if self._alive(run_id):
                self._signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline and any(self._alive(rid) for rid in live):
            await asyncio.sleep(0.1)
        for run_id, pid in live.items():
            if self._alive(run_id):
                self._signal(pid, signal.SIGKILL)
        for run_id in live:
            try:
                self._ingestor(run_id).ingest()
            except Exception:
                log.exception("final ingest of %s failed", run_id)
            proc = self.procs.get(run_id)
            if proc is not None:
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass
        self.forks.close()

    # process helpers -------------------------------------------------------------------------
    def _live_pids(self) -> dict[str, int]:
        pids = {rid: p.pid for rid, p in self.procs.items() if p.poll() is None}
        pids.update({rid: pid for rid, pid in self.adopted.items() if pid_alive(pid)})
        return pids

    def _alive(self, run_id: str) -> bool:
        proc = self.procs.get(run_id)
        if isinstance(proc, ForkedTrainer) and proc.lost:
            # The fork server stopped before this trainer's exit: follow it by its pid, as after a restart.
            del self.procs[run_id]
            self.adopted[run_id] = proc.pid
            proc = None
        if proc is not None:
            return proc.poll() is None
        pid = self.adopted.get(run_id)
        return pid is not None and _pid_runs(pid, self.state.run_dir(run_id))

    def _exit_code(self, run_id: str) -> int | None:
        proc = self.procs.get(run_id)
        return None if proc is None else proc.returncode

    @staticmethod
    def _signal(pid: int, sig: int) -> None:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass

    def _ingestor(self, run_id: str) -> RunIngestor:
        ing = self.ingestors.get(run_id)
        if ing is None:
            ing = RunIngestor(self.store, run_id, self.state.run_dir(run_id))
            self.ingestors[run_id] = ing
        return ing

    def platform_log(self, run_id: str, level: str, message: str) -> None:
        """A line from the platform itself in the run's trainer log (prime-rl's console format)."""
        stamp = time.strftime("%H:%M:%S")
        with self.store.tx() as db:
            self.store.add_log_lines(db, run_id, "trainer", 0, [(time.time(), level, f"{stamp} {level:>7} {message}")])

    # spawning ---------------------------------------------------------------------------------
    def run_config_doc(self, row: Any, resume_from: str | None) -> dict[str, Any]:
        config = json.loads(row["config"])
        volume = row["volume"]  # a name in the run's own scope
        volume_dir = self.state.volume_dir(volume_key(row["team_id"], volume)) if volume else None
        # The safe join: a ``runs`` symlink placed inside the volume must not send checkpoints outside it.
        output_dir = (
            safe_join(volume_dir, f"runs/{row['id']}") if volume_dir else (self.state.run_dir(row["id"]) / "outputs")
        )
        model = self.state.models.get(row["model"])
        return {
            "run_id": row["id"],
            "config": config,
            "volume_dir": str(volume_dir) if volume_dir else None,
            "output_dir": str(output_dir),
            "model": {"name": row["model"], "standin": dict(model.standin) if model else {}},
            "resume_from": resume_from,
        }

    def spawn(self, run_id: str) -> None:
        """Write ``config.json`` and start the trainer; the run becomes CREATING."""
        from primetui.config.fileio import write_json_atomic

        row = self.store.get_run(run_id)
        if row is None:
            return  # the run was deleted meanwhile: nothing to start
        run_dir = self.state.run_dir(run_id)
        run_dir.mkdir(parents=True, exist_ok=True)
        doc = self.run_config_doc(row, row["resume_from"])
        write_json_atomic(run_dir / "config.json", doc, mode=0o644)
        model = self.state.models.get(row["model"])
        summary = model.standin_summary() if model else "stand-in model"
        if is_rl_config(doc.get("config")):
            summary = RL_STANDIN
        self.platform_log(
            run_id,
            "INFO",
            f"Local platform: {row['model']} runs here as a {summary}; real weights do not run on this machine.",
        )
        if row["resume_from"]:
            self.platform_log(run_id, "INFO", f"Local platform: resuming from {row['resume_from']}")
        env = worker_environment(PYTHONUNBUFFERED="1")
        proc: Child | None = self.forks.spawn(run_dir, env)  # the same process, without its imports
        if proc is None:
            out = open(run_dir / "process.out", "ab")
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "primetui.local.trainer", "--run-dir", str(run_dir)],
                    cwd=run_dir,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,
                    close_fds=True,
                )
            finally:
                out.close()
        self.procs[run_id] = proc
        self.adopted.pop(run_id, None)
        self.store.update_run(run_id, status="CREATING", pid=proc.pid, queue_reason=None, runs_ahead=None)

    def archive_attempt(self, run_id: str, attempt: int) -> None:
        """Move the protocol files of a finished attempt aside so the next attempt starts clean."""
        self._ingestor(run_id).ingest()
        run_dir = self.state.run_dir(run_id)
        dest = run_dir / f"attempt_{attempt}"
        dest.mkdir(parents=True, exist_ok=True)
        for name in PROTOCOL_FILES + ("process.out", "process.out.1"):  # .1: rotated by the trainer
            src = run_dir / name
            if src.exists():
                shutil.move(str(src), str(dest / name))
        self.store.clear_offsets(run_id)
        self.ingestors.pop(run_id, None)

    def respawn_from_latest(self, run_id: str, why: str) -> None:
        """Start a new attempt of ``run_id`` from its latest checkpoint still on disk (or from scratch)."""
        row = self.store.get_run(run_id)
        if row is None:
            return  # the run was deleted meanwhile: no next attempt
        ckpt = self.latest_checkpoint_on_disk(run_id)
        self.archive_attempt(run_id, row["attempt"])
        resume = ckpt["path"] if ckpt else None
        self.store.update_run(run_id, attempt=row["attempt"] + 1, resume_from=resume, requested=None, pid=None)
        where = f"checkpoint step {ckpt['step']}" if ckpt else "the start (no checkpoint was written yet)"
        self.platform_log(run_id, "WARNING", f"Local platform: {why}; continuing from {where}.")
        self.procs.pop(run_id, None)
        self.spawn(run_id)

    def latest_checkpoint_on_disk(self, run_id: str) -> Any:
        for row in reversed(self.store.list_checkpoints(run_id)):
            if Path(row["path"]).is_dir():
                return row
        return None

    # recovery ---------------------------------------------------------------------------------
    def recover(self) -> None:
        for row in self.store.runs_with_status(ACTIVE_RUN_STATUSES):
            run_id = row["id"]
            if row["status"] in WAITING_RUN_STATUSES:
                continue
            run_dir = self.state.run_dir(run_id)
            if row["pid"] and _pid_runs(row["pid"], run_dir):
                self.adopted[run_id] = row["pid"]
                log.info("adopted the still-running trainer of %s (pid %s)", run_id, row["pid"])
                continue
            ing = self._ingestor(run_id)
            ing.ingest()
            status = ing.read_status() or {}
            state = status.get("state")
            # "stopped"/"paused" are final only when the user asked for them; otherwise the trainer was
            # interrupted by our own shutdown and the run goes on.
            asked = row["requested"]
            if (
                state in ("completed", "failed")
                or (state == "stopped" and asked == "stop")
                or (state == "paused" and asked == "pause")
            ):
                self.finish(run_id, exit_code=None)
            elif row["pid"] is None and row["status"] == "CREATING":
                self.spawn(run_id)
            else:
                self.respawn_from_latest(run_id, "the local server restarted while this run was active")

    # the tick -----------------------------------------------------------------------------------
    def tick(self) -> None:
        now = time.time()
        rows = self.store.runs_with_status(ACTIVE_RUN_STATUSES)
        self._training = sum(1 for r in rows if r["status"] in BUSY_RUN_STATUSES)
        self._queued_ahead = 0
        for row in rows:  # oldest first, so the capacity queue is FIFO
            run_id = row["id"]
            if run_id in self.busy:
                continue
            try:
                if row["status"] in WAITING_RUN_STATUSES:
                    self._tick_pending(row, now)
                else:
                    self._tick_active(row, now)
            except Exception as exc:  # one broken run must not stall the others
                log.exception("supervising run %s failed", run_id)
                self._fail_platform_error(run_id, exc)

    def _tick_pending(self, row: Any, now: float) -> None:
        run_id = row["id"]
        if row["volume"]:
            key = volume_key(row["team_id"], row["volume"])
            session = live_read_write_session(self.state, key)
            if session:
                reason = (
                    f"Waiting for read-write session {session} on volume '{row['volume']}' to stop: "
                    f"a run starts only when no one else writes to its volume "
                    f"(prime volumes stop {row['volume']} {session})."
                )
                if row["queue_reason"] != reason:
                    self.store.update_run(run_id, queue_reason=reason, phase_since=now)
                return
            importing = live_import(self.state, key)
            if importing:
                reason = (
                    f"Waiting for the S3 import {importing} into volume '{row['volume']}' to finish: a run starts "
                    "only when no one else writes to its volume."
                )
                if row["queue_reason"] != reason:
                    self.store.update_run(run_id, queue_reason=reason, phase_since=now)
                return
            if live_upload_lease(self.state, key) is not None:
                reason = (
                    f"Waiting for the upload to volume '{row['volume']}' to finish: a run starts only "
                    "when no one else writes to its volume (a direct put holds its write lease)."
                )
                if row["queue_reason"] != reason:
                    self.store.update_run(run_id, queue_reason=reason, phase_since=now)
                return
        if row["status"] == "PENDING" and now - row["phase_since"] < self.state.delay(PENDING_SECONDS):
            return
        limit = self.state.max_runs
        if limit is not None and (self._training >= limit or self._queued_ahead > 0):
            ahead = self._queued_ahead
            self._queued_ahead += 1
            reason = (
                f"Waiting for a free slot: {self._training} run(s) are training on this machine, "
                f"the limit is {limit} ({MAX_RUNS_ENV}); it starts when one ends."
            )
            if row["status"] != "QUEUED" or row["runs_ahead"] != ahead or row["queue_reason"] != reason:
                self.store.update_run(
                    run_id, status="QUEUED", runs_ahead=ahead, queue_reason=reason, phase_since=row["phase_since"]
                )
            return
        self.spawn(run_id)
        self._training += 1

    def _tick_active(self, row: Any, now: float) -> None:
        run_id = row["id"]
        if run_id not in self.procs and run_id not in self.adopted:
            # The store says active but nothing runs (e.g. spawn failed mid-way): recover it.
            self.respawn_from_latest(run_id, "the trainer process was missing")
            return
        ingestor = self._ingestor(run_id)
        creating = row["status"] == "CREATING"
        if creating:
            # Promote before ingesting: the trainer marks itself running before its first step, and a
            # run still CREATING gets no steps this tick, so a reader never sees progress on it.
            status = ingestor.read_status() or {}
            if status.get("state") in ("running", "completed", "paused", "stopped"):
                self.store.update_run(run_id, status="RUNNING", started_at=row["started_at"] or iso_now())
                creating = False
        result = ingestor.ingest(metrics=not creating)
        if result.new_checkpoints and row["volume"]:
            self._check_quota(row)
        if row["requested"] == "stop":
            sent = self.signal_sent_at.get(run_id)
            if sent is not None and now - sent > STOP_GRACE_SECONDS and self._alive(run_id):
                pid = self._live_pids().get(run_id)
                if pid:
                    self._signal(pid, signal.SIGKILL)
        if not self._alive(run_id):
            self.finish(run_id, exit_code=self._exit_code(run_id))

    def _fail_platform_error(self, run_id: str, exc: Exception) -> None:
        """Give up on a run the platform itself cannot handle (e.g. the trainer cannot be spawned)."""
        pid = self._live_pids().get(run_id)
        if pid:
            self._signal(pid, signal.SIGKILL)
        self.procs.pop(run_id, None)
        self.adopted.pop(run_id, None)
        self.store.update_run(
            run_id,
            status="FAILED",
            completed_at=iso_now(),
            pid=None,
            requested=None,
            error_message=f"The local platform could not run this job ({type(exc).__name__}: {exc}); "
            "see the server's output, fix the cause and dispatch again.",
        )

    def _check_quota(self, row: Any) -> None:
        volume = self.store.get_volume(row["team_id"], row["volume"])
        if volume is None:
            return
        used = dir_size_bytes(self.state.volume_dir(volume_key(row["team_id"], row["volume"])))
        if used > volume["size_bytes"]:
            gib = used / 1024**3
            self.fail_reason[row["id"]] = (
                f"Volume '{row['volume']}' is full ({gib:.2f} GiB used of its {volume['size']} cap); "
                f"expand it with `prime volumes expand {row['volume']} --size <larger>` and dispatch again."
            )
            self.request_stop(row["id"], record=False)

    # controls ---------------------------------------------------------------------------------
    def request_stop(self, run_id: str, record: bool = True) -> None:
        if record:
            self.store.update_run(run_id, requested="stop")
        pid = self._live_pids().get(run_id)
        if pid:
            self._signal(pid, signal.SIGTERM)
            self.signal_sent_at[run_id] = time.time()

    def request_pause(self, run_id: str) -> None:
        self.store.update_run(run_id, requested="pause", status="PAUSING")
        pid = self._live_pids().get(run_id)
        if pid:
            self._signal(pid, signal.SIGUSR1)

    async def _terminate(self, run_id: str, pid: int, *, wait_after_kill: bool) -> None:
        """SIGTERM the run's trainer, give it STOP_GRACE_SECONDS to exit, then SIGKILL (and maybe wait for it)."""
        self._signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while self._alive(run_id) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if self._alive(run_id):
            self._signal(pid, signal.SIGKILL)
            if wait_after_kill:
                while self._alive(run_id):
                    await asyncio.sleep(0.05)

    async def restart(self, run_id: str) -> None:
        """Stop the trainer and start it again from the run's latest checkpoint (same run id)."""
        self.busy.add(run_id)
        self.restarting.add(run_id)
        try:
            pid = self._live_pids().get(run_id)
            if pid:
                await self._terminate(run_id, pid, wait_after_kill=True)
            row = self.store.get_run(run_id)
            if row is None:
                return  # deleted while its trainer was ending
            if row["requested"] == "stop":
                self.finish(run_id, None)  # a stop sent while the old trainer was ending wins over the restart
                return
            self.respawn_from_latest(run_id, "restart requested (prime train restart)")
        finally:
            self.busy.discard(run_id)
            self.restarting.discard(run_id)

    async def kill_for_delete(self, run_id: str) -> None:
        """Stop a run's process for good before its records are deleted."""
        self.busy.add(run_id)
        pid = self._live_pids().get(run_id)
        if pid:
            await self._terminate(run_id, pid, wait_after_kill=False)
        self.procs.pop(run_id, None)
        self.adopted.pop(run_id, None)
        self.ingestors.pop(run_id, None)
        self.busy.discard(run_id)

    # the end of a run ---------------------------------------------------------------------------
    def finish(self, run_id: str, exit_code: int | None) -> None:
        """Judge a trainer that has exited: the final state comes from status.json and what was asked."""
        row = self.store.get_run(run_id)
        if row is None:  # deleted while its trainer was ending: nothing to judge, only bookkeeping to drop
            self._forget(run_id)
            return
        ing = self._ingestor(run_id)
        ing.ingest()
        status = ing.read_status() or {}
        state = status.get("state")
        requested = row["requested"]
        error = None
        if run_id in self.fail_reason:
            final, error = "FAILED", self.fail_reason.pop(run_id)
        elif requested == "stop":
            final = "STOPPED"
        elif state == "completed":
            final = "COMPLETED"
        elif state == "paused":
            final = "PAUSED"
        elif state == "stopped":
            final = "STOPPED"
        elif state == "failed":
            final = "FAILED"
            error = status.get("error") or f"The trainer failed; see `prime train logs {run_id}`."
        else:
            final = "FAILED"
            tail = self._process_tail(run_id)
            code = f"code {exit_code}" if exit_code is not None else "an unknown status"
            error = f"The trainer process exited with {code} before finishing" + (f": {tail}" if tail else ".")
        self.store.update_run(
            run_id,
            status=final,
            completed_at=iso_now(),
            pid=None,
            requested=None,
            error_message=error,
            started_at=row["started_at"] or (iso_now() if final in ("COMPLETED", "PAUSED") else None),
        )
        self._forget(run_id)

    def _forget(self, run_id: str) -> None:
        """Drop what is held for a run's ended trainer process."""
        self.procs.pop(run_id, None)
        self.adopted.pop(run_id, None)
        self.signal_sent_at.pop(run_id, None)

    def _process_tail(self, run_id: str) -> str:
        path = self.state.run_dir(run_id) / "process.out"
        try:
            lines = [ln for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        except OSError:
            return ""
        return lines[-1].strip()[:300] if lines else ""
