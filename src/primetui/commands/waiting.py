"""``primetui wait ID…`` and ``primetui dispatch sft.toml --volume NAME [--wait]``: runs as exit codes.

``wait`` follows each run with the dashboard's own ``RunWatcher`` until it is terminal, printing a
line per status change and a progress line (rewritten in place on a terminal, plain lines with
at most one per run every PLAIN_PROGRESS_EVERY seconds elsewhere); ``--json`` prints one object per
line instead. Exit codes (one meaning each, for every command: :mod:`primetui.commands.exits`):

    0  every run COMPLETED (dispatch without --wait: dispatched)
    1  a run FAILED, STOPPED or PAUSED, or cannot be followed (not found, access refused); the
       failure reason and the last error lines of the failing component are printed
    2  --timeout passed first
    3  nothing was dispatched: an unreadable file, no such volume, a failed pre-flight, the
       platform's refusal of the run
    4  every run ended, but one COMPLETED with a NaN (or inf) final loss or an error-level anomaly
       (NaN, traceback, OOM, NCCL, CUDA, a component that exited with an error): the last lines say which
   64  a usage error (``primetui.commands.cli``), 70 a bug (a crash report is written)
   78  nothing was asked: no API key, an unreadable ~/.prime/config.json, a setting that cannot
       work (a bad URL, port, key, team id or deadline: one sentence naming it and its source)
  130  interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: the runs go on, the last lines say so

``--timeout`` counts from the process's start (interpreter start-up and the local platform's
included) and is honoured within a fraction of a second: the wait between polls and the poll
itself are cut at the deadline. With ``--json`` the stream always ends with ``{"event": "done",
"status": ..., "exit": N}``, whatever the outcome, and a refusal is a ``refused`` object on stdout
too. A SIGINT or SIGTERM at any instant, even before the first poll, ends the stream with ``done``
naming each run's last status seen (fetched once, briefly, when none was seen yet); a run whose
status nobody saw is listed as ``unknown``, never as running or ended.

``dispatch`` runs the editor's pre-flight (:mod:`primetui.sft.preflight`) and the diagnostics of
``primetui validate``, dispatches, and prints the run id on stdout (alone, so
``ID=$(primetui dispatch …)`` works); with ``--wait`` it then waits as above. No textual import.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from primetui.api.followers import PollFailed, RunUpdate, RunWatcher
from primetui.commands.exits import (
    EXIT_BUG,
    EXIT_CONFIG,
    EXIT_ENDED_BADLY,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_TIMEOUT,
    EXIT_USAGE,
)
from primetui.config.mistakes import SettingsMistake
from primetui.sft.dispatching import Refusal, dispatch
from primetui.monitor_core.escapes import neutralise
from primetui.monitor_core.notify import Notifier, RunEvent

EXIT_SETUP = EXIT_REFUSED
EXIT_ANOMALY = EXIT_ENDED_BADLY
"""Every run ended, but one COMPLETED with a NaN final loss or an error-level anomaly."""
"""Nothing was dispatched (the name kept for callers of the refusal code)."""
OUTCOME = {
    EXIT_OK: "COMPLETED",
    EXIT_FAILED: "FAILED",
    EXIT_TIMEOUT: "TIMEOUT",
    EXIT_REFUSED: "REFUSED",
    EXIT_ANOMALY: "ANOMALY",
    EXIT_USAGE: "USAGE",
    EXIT_BUG: "BUG",
    EXIT_CONFIG: "MISCONFIGURED",
    EXIT_SIGINT: "INTERRUPTED",
    EXIT_SIGTERM: "INTERRUPTED",
}
"""The ``status`` of the final JSON ``done`` event, by exit code (``dispatch`` without --wait: DISPATCHED)."""
SETTLE_SECONDS = 1.0
"""On a signal, a run whose status was never seen is fetched once, for at most this long."""
READY_ENV = "PRIMETUI_DEBUG_READY"
"""Set: ``primetui: ready (pid N)`` on stderr once the signal handlers are in, before the platform is asked."""
PLAIN_PROGRESS_EVERY = 30.0
RETRY_NOTE_EVERY = 60.0
"""While a run cannot be polled, ``wait`` says so at least this often (seconds)."""
ERROR_LINES = 10


def _clean(text: Any) -> str:
    return neutralise(str(text if text is not None else "")).replace("\n", " ")


@dataclass
class Followed:
    run_id: str
    name: str | None = None
    status: str | None = None
    step: int | None = None
    max_steps: int | None = None
    reason: str = ""
    error_lines: list[str] = field(default_factory=list)
    component: str | None = None
    ended: bool = False
    last_plain: float = 0.0
    loss_nonfinite: str | None = None  # "NaN" when a COMPLETED run's final loss was not finite
    final_loss_step: int | None = None
    anomalies: list[str] = field(default_factory=list)  # its error-level anomalies, as sentences

    @property
    def broken(self) -> bool:
        """COMPLETED, but ended NaN or with an error-level anomaly (exit code 4)."""
        return self.status == "COMPLETED" and (self.loss_nonfinite is not None or bool(self.anomalies))

    @property
    def label(self) -> str:
        return f"{self.run_id} ({_clean(self.name)})" if self.name else self.run_id

    def progress(self) -> str:
        if self.step is None:
            return f"{self.run_id} {self.status or '?'}"
        total = f"/{self.max_steps}" if self.max_steps else ""
        return f"{self.run_id} step {self.step}{total}"


class Reporter:
    """Prints what ``wait`` sees: text for people (a live progress line on a tty) or JSON lines."""

    def __init__(self, out: TextIO, err: TextIO, as_json: bool) -> None:
        self.out, self.err, self.json = out, err, as_json
        self.tty = not as_json and bool(getattr(out, "isatty", lambda: False)())
        self._live = False

    def _emit(self, line: str) -> None:
        if self._live:
            self.out.write("\r\x1b[2K")
            self._live = False
        self.out.write(line + "\n")
        self.out.flush()

    def record(self, **obj: Any) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    def status(self, f: Followed, previous: str | None) -> None:
        stamp = time.strftime("%H:%M:%S")
        if self.json:
            self.record(
                event="status",
                run_id=f.run_id,
                name=f.name,
                status=f.status,
                previous=previous,
                step=f.step,
                max_steps=f.max_steps,
            )
        else:
            arrow = f"{previous} → {f.status}" if previous else str(f.status)
            self._emit(f"{stamp}  run {f.label}: {arrow}")

    def progress(self, runs: list[Followed], changed: Followed) -> None:
        if self.json:
            self.record(event="progress", run_id=changed.run_id, step=changed.step, max_steps=changed.max_steps)
            return
        if self.tty:
            self.out.write("\r\x1b[2K" + "  ·  ".join(r.progress() for r in runs))
            self.out.flush()
            self._live = True
            return
        now = time.monotonic()
        if now - changed.last_plain >= PLAIN_PROGRESS_EVERY or changed.step == changed.max_steps:
            changed.last_plain = now
            self._emit(f"{time.strftime('%H:%M:%S')}  run {changed.run_id}: {changed.progress().split(' ', 1)[1]}")

    def problem(self, message: str) -> None:
        if self.json:
            self.record(event="warning", message=message)
        else:
            if self._live:
                self.out.write("\r\x1b[2K")
                self._live = False
            print(message, file=self.err, flush=True)

    def end(self, runs: list[Followed], code: int, timed_out: list[Followed]) -> None:
        if self.json:
            for r in runs:
                self._record_end(r, verdict=True)
            self.done(code, timed_out=[r.run_id for r in timed_out])
            return
        for r in runs:
            if r.broken:
                if r.loss_nonfinite:
                    self._emit(
                        f"run {r.label} is COMPLETED, but its loss ended {r.loss_nonfinite} at step {r.final_loss_step}"
                    )
                for what in r.anomalies:
                    self._emit(f"run {r.label} is COMPLETED, with an error-level anomaly: {what}")
            if r.ended and r.status != "COMPLETED":
                self._emit(f"run {r.label} is {r.status}" + (f": {r.reason}" if r.reason else ""))
                if r.error_lines:
                    self._emit(f"last error lines of {r.component}:")
                    for line in r.error_lines:
                        self._emit(f"  {line}")
        for r in timed_out:
            self._emit(f"timed out: run {r.label} is still {r.status or 'unknown'}")
        if code == EXIT_OK:
            self._emit(f"{len(runs)} run(s) COMPLETED")

    def _record_end(self, r: Followed, *, verdict: bool) -> None:
        """A run's ``end`` object; with ``verdict`` (the runs were followed to their end) also its loss and
        error-level anomalies."""
        extra = (
            {"loss_nonfinite": r.loss_nonfinite, "final_loss_step": r.final_loss_step, "anomalies": r.anomalies}
            if verdict
            else {}
        )
        self.record(
            event="end",
            run_id=r.run_id,
            name=r.name,
            status=r.status,
            ended=r.ended,
            reason=r.reason,
            component=r.component,
            error_lines=r.error_lines,
            **extra,
        )

    def done(self, code: int, status: str | None = None, **extra: Any) -> None:
        """The last JSON line of every stream: the outcome and the exit code."""
        if self.json:
            self.record(event="done", status=status or OUTCOME.get(code, "FAILED"), exit=code, **extra)

    def refused(self, kind: str, message: str, details: list[str] | None = None) -> None:
        """Nothing was dispatched or asked: the sentence on stderr, and a ``refused`` object with --json."""
        print(message, file=self.err, flush=True)
        if self.json:
            self.record(event="refused", reason=kind, message=message, details=details or [])

    def interrupted(self, runs: list[Followed], signum: int) -> None:
        """Ctrl-C or SIGTERM: end the live line and say that the runs go on without us."""
        name = signal.Signals(signum).name
        code = 128 + signum
        if self.json:
            for r in runs:
                self._record_end(r, verdict=False)
            self.done(
                code,
                signal=name,
                running=[r.run_id for r in runs if not r.ended and r.status is not None],
                unknown=[r.run_id for r in runs if r.status is None],
            )
            return
        if self._live:
            self.out.write("\n")  # keep the progress on screen; the note starts a line of its own
            self._live = False
        going = [r for r in runs if not r.ended]
        if not runs:  # dispatch stopped before a run id came back: whether one was sent is not known here
            self._emit(
                f"{name}: stopped before any run was followed; check `primetui runs --once` for a run "
                "dispatched just then."
            )
        elif going:
            ids = " ".join(r.run_id for r in going)
            for r in going:
                if r.status is None:  # never seen: neither "goes on" nor "ended" would be known
                    self._emit(f"{name}: stopped following; the status of run {r.label} was not seen yet.")
                else:
                    self._emit(f"{name}: stopped following; run {r.label} goes on ({r.status}).")
            self._emit(f"Follow again with `primetui wait {ids}`.")
        else:
            self._emit(f"{name}: stopped; every run had ended.")


def failing_component(run: Any) -> tuple[str, int | None, str | None]:
    """(component, pod_index, env_name) of the failed part, as the Components pane decides it."""
    from primetui.monitor_core.components import log_specs

    error = str(getattr(run, "error_message", None) or "").lower()
    specs = log_specs(run, None)
    for spec in specs:
        names = [spec.component] + (
            [spec.env_name.lower(), spec.env_name.split("/")[-1].lower()] if spec.env_name else []
        )
        if spec.component != "trainer" and any(n and n in error for n in names):
            return spec.component, spec.pod_index, spec.env_name
    trainer = specs[0]
    return trainer.component, trainer.pod_index, trainer.env_name


async def last_error_lines(client: Any, run: Any, n: int = ERROR_LINES) -> tuple[str, list[str]]:
    """The failing component's name and its last ``n`` ERROR lines (none when it logged no error)."""
    component, pod, env = failing_component(run)
    title = component if env is None else f"env-server {env}"
    try:
        reply = await client.get_logs(run.id, 500, component=component, pod_index=pod, env_name=env, level="ERROR")
    except Exception:  # noqa: BLE001 - the reason is still printed without its log
        return title, []
    lines = [ln for ln in str(getattr(reply, "logs", "") or "").splitlines() if ln.strip()]
    return title, [_clean(ln)[:400] for ln in lines[-n:]]


async def settle(client: Any, runs: list[Followed], bound: float = SETTLE_SECONDS) -> None:
    """Fetch once, for at most ``bound`` seconds in all, the status of each run never seen (a signal came first).

    A run still unseen after that keeps ``status`` None: reported as unknown, never as running.
    """
    unseen = [r for r in runs if r.status is None and not r.ended]
    if not unseen or client is None:
        return

    async def one(f: Followed) -> None:
        run = await client.get_run(f.run_id)
        f.name, f.status, f.max_steps = run.name, run.status, run.max_steps or f.max_steps
        f.ended = bool(run.is_terminal)

    try:
        async with asyncio.timeout(bound):
            await asyncio.gather(*(one(f) for f in unseen), return_exceptions=True)
    except (TimeoutError, asyncio.CancelledError):
        pass  # a second signal, or the platform too slow: what was not seen stays unknown


@dataclass
class Interrupt:
    """The signal that ended the command (None while it runs); the main task is cancelled with it."""

    signum: int | None = None


async def wait_runs(
    client: Any,
    run_ids: list[str],
    reporter: Reporter,
    *,
    timeout: float | None = None,
    deadline: float | None = None,
    interval: float = 3.0,
    notifier: Notifier | None = None,
    interrupt: Interrupt | None = None,
    runs: list[Followed] | None = None,
) -> int:
    """Follow every run to its end; returns the exit code.

    ``deadline`` (``time.monotonic()``) ends the wait like ``timeout`` seconds from now would. A
    cancellation with ``interrupt.signum`` set (Ctrl-C, SIGTERM) stops the hooks, reports what
    goes on, and returns 128 + the signal. ``runs`` (filled in place) lets the caller report them too.
    """
    if runs is None:
        runs = [Followed(rid) for rid in dict.fromkeys(run_ids)]
    watchers = {r.run_id: RunWatcher(client, r.run_id, interval=interval) for r in runs}
    if timeout is not None:
        deadline = min(deadline or float("inf"), time.monotonic() + timeout)
    last_note: dict[str, float] = {}

    async def judge(f: Followed, run: Any) -> None:
        """A COMPLETED run's ending, told right: a final NaN loss or an error-level anomaly."""
        from primetui.viewmodel.run_data import run_verdict

        from primetui.monitor_core.anomalies import ERROR_KINDS

        try:
            final, found = await run_verdict(client, run, time.time())
        except Exception as exc:  # noqa: BLE001 - said, and the run still counts as COMPLETED
            reporter.problem(f"run {f.run_id}: could not read its metrics and logs ({_clean(exc)})")
            return
        if final is not None and final.nonfinite:
            f.loss_nonfinite, f.final_loss_step = final.mark, final.step
        f.anomalies = [_clean(a.message)[:400] for a in found if a.kind in ERROR_KINDS]
        if notifier is not None:  # --on-event: every flag the run raised (an RL run's health flags too)
            for a in found:
                where = f" at step {a.step}" if a.step is not None else ""
                notifier.emit(
                    RunEvent.anomaly(
                        f.run_id,
                        f.name,
                        f"{a.label}{where}",
                        a.message,
                        "error" if a.kind in ERROR_KINDS else "warning",
                    )
                )

    async def follow(f: Followed) -> None:
        watcher = watchers[f.run_id]
        async for event in watcher:
            if isinstance(event, RunUpdate):
                last_note.pop(f.run_id, None)
                run = event.run
                f.name, f.max_steps = run.name, run.max_steps or f.max_steps
                if event.status_changed:
                    previous = event.previous.status if event.previous is not None else None
                    f.status = run.status
                    reporter.status(f, previous)
                    if notifier is not None:
                        notifier.emit(
                            RunEvent.status_change(
                                f.run_id,
                                f.name,
                                previous,
                                run.status,
                                run.error_message if run.status == "FAILED" else None,
                            )
                        )
                if event.step_changed and event.step is not None:
                    f.step = event.step
                    reporter.progress(runs, f)
                if run.is_terminal:
                    f.ended = True
                    if run.status == "COMPLETED":
                        await judge(f, run)
                    else:
                        f.reason = _clean(run.error_message or (run.failure_analysis or {}).get("rootCause") or "")
                        f.component, f.error_lines = await last_error_lines(client, run)
            elif isinstance(event, PollFailed):
                if event.retry_in is None:
                    f.ended, f.status, f.reason = True, "UNREACHABLE", _clean(event.error)
                    continue
                now = time.monotonic()
                if now - last_note.get(f.run_id, -RETRY_NOTE_EVERY) >= RETRY_NOTE_EVERY or event.attempt in (1, 5):
                    last_note[f.run_id] = now
                    reporter.problem(
                        f"run {f.run_id}: {_clean(event.error)} (attempt {event.attempt}; "
                        f"retrying in {event.retry_in:.0f} s)"
                    )

    tasks = [asyncio.ensure_future(follow(f)) for f in runs]
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        done, pending = await asyncio.wait(tasks, timeout=remaining)
    except asyncio.CancelledError:
        for w in watchers.values():
            w.stop()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if notifier is not None:
            await notifier.close()
        if interrupt is None or interrupt.signum is None:
            raise
        await settle(client, runs)
        reporter.interrupted(runs, interrupt.signum)
        return 128 + interrupt.signum
    for w in watchers.values():
        w.stop()
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for t in done:
        if t.exception() is not None:
            raise t.exception()  # type: ignore[misc]
    timed_out = [r for r in runs if not r.ended]
    if any(r.ended and r.status != "COMPLETED" for r in runs):
        code = EXIT_FAILED
    elif any(r.broken for r in runs):
        code = EXIT_ANOMALY
    elif timed_out:
        code = EXIT_TIMEOUT
    else:
        code = EXIT_OK
    if notifier is not None:
        try:
            await notifier.drain()  # each hook ends by its own timeout; their warnings come before the end
        except asyncio.CancelledError:
            await notifier.close()
            if interrupt is None or interrupt.signum is None:
                raise
            reporter.interrupted(runs, interrupt.signum)
            return 128 + interrupt.signum
    reporter.end(runs, code, timed_out)
    return code


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


async def _off_loop(fn: Callable[[], Any]) -> Any:
    """``fn()`` in a daemon thread: a deadline or Ctrl-C can leave it behind (a platform start)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, exc: BaseException | None) -> None:
        if not future.done():
            future.set_exception(exc) if exc is not None else future.set_result(value)

    def work() -> None:
        try:
            value, exc = fn(), None
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting task
            value, exc = None, e
        try:
            loop.call_soon_threadsafe(settle, value, exc)
        except RuntimeError:
            pass  # the loop ended first: nobody waits for it any more

    threading.Thread(target=work, name="primetui-setup", daemon=True).start()
    return await future


def _local_settings(local: bool) -> tuple[Any, Any]:
    """The platform settings and, for ``--local``, how the client finds a restarted platform."""
    from primetui.commands.headless import _settings

    settings = _settings(local)
    if not local:
        return settings, None
    from primetui.local.launcher import following

    return settings, following(None)


async def _sweep(
    client: Any, args: Any, reporter: Reporter, out: TextIO, err: TextIO, as_json: bool
) -> list[str] | int:
    """Dispatch the sweep: the run ids to wait for, or the exit code when it ends here."""
    from primetui.sft.dispatching import dispatch_sweep

    result = await dispatch_sweep(
        client,
        Path(args.file),
        args.volume,
        list(args.set or []),
        args.name,
        err,
        suffix=bool(getattr(args, "suffix", False)),
    )
    if isinstance(result, Refusal):
        reporter.refused(result.kind, result.message, result.details)
        reporter.done(EXIT_SETUP)
        return EXIT_SETUP
    if as_json and result.grid is not None:  # the grid's totals, as the `sweep grid` line on stderr says them
        reporter.record(event="grid", **result.grid.to_json())
    for run_id, name in result.runs:
        if as_json:
            reporter.record(event="dispatched", run_id=run_id, name=name)
        else:
            out.write(run_id + "\n")
    out.flush()
    if result.stopped is not None:
        reporter.refused(result.stopped.kind, result.stopped.message, result.stopped.details)
        reporter.done(EXIT_SETUP, run_ids=[r for r, _ in result.runs])
        return EXIT_SETUP
    if not args.wait:
        reporter.done(EXIT_OK, status="DISPATCHED", run_ids=[r for r, _ in result.runs])
        return EXIT_OK
    return [r for r, _ in result.runs]


async def _platform_settings(
    args: Any, reporter: Reporter, err: TextIO, deadline: float | None
) -> tuple[Any, Any] | int:
    """The platform's settings (and how to find a local platform again), or the exit code of a refusal,
    already reported."""
    timeout = getattr(args, "timeout", None)
    try:
        setup = _off_loop(lambda: _local_settings(bool(getattr(args, "local", False))))
        settings, rediscover = await asyncio.wait_for(
            setup, None if deadline is None else max(0.0, deadline - time.monotonic())
        )
    except TimeoutError:
        print(f"primetui {args.command}: timed out after {timeout:g} s while the platform was starting.", file=err)
        from primetui.commands.transfers import is_transfer_ref

        asked = getattr(args, "run_ids", None) or []
        unseen = [Followed(rid) for rid in dict.fromkeys(asked) if not is_transfer_ref(rid)]
        reporter.end(unseen, EXIT_TIMEOUT, unseen)  # one ``end`` per run, its status never seen
        return EXIT_TIMEOUT
    except SettingsMistake as exc:  # a setting that cannot work: it says which and where, never "a bug"
        reporter.refused("settings", f"primetui {args.command}: {_clean(exc)}")
        reporter.done(EXIT_CONFIG)
        return EXIT_CONFIG
    except Exception as exc:  # noqa: BLE001
        reporter.refused(
            "settings",
            f"primetui {args.command}: could not read the platform settings ({_clean(exc)}); "
            "fix ~/.prime/config.json or set PRIME_API_KEY.",
        )
        reporter.done(EXIT_CONFIG)
        return EXIT_CONFIG
    if not getattr(settings, "api_key", ""):
        reporter.refused("settings", "No API key configured. Run `prime login`, set PRIME_API_KEY, or add --local.")
        reporter.done(EXIT_CONFIG)
        return EXIT_CONFIG
    return settings, rediscover


async def _main(
    args: Any, out: TextIO, err: TextIO, started: float, interrupt: Interrupt, followed: list[Followed]
) -> int:
    from primetui.commands.launch import make_client

    as_json = bool(getattr(args, "json", False))
    dispatching = args.command in ("dispatch", "sweep")
    # dispatch keeps stdout for the run id alone; its progress goes to stderr unless it is JSON
    reporter = Reporter(out if as_json or not dispatching else err, err, as_json)
    timeout = getattr(args, "timeout", None)  # validated by the parser: positive and finite
    deadline = started + timeout if timeout is not None else None
    found = await _platform_settings(args, reporter, err, deadline)
    if isinstance(found, int):
        return found
    settings, rediscover = found
    notifier = None
    if getattr(args, "on_event", None):
        from primetui.commands.launch import load_prefs

        notifier = Notifier.from_prefs(load_prefs()[0], args.on_event, report=lambda m: print(m, file=err, flush=True))
    client = make_client(settings, rediscover)
    try:
        if args.command == "sweep":
            run_ids = await _sweep(client, args, reporter, out, err, as_json)
            if isinstance(run_ids, int):
                return run_ids
        elif dispatching:
            result = await dispatch(client, Path(args.file), args.volume, err, name=getattr(args, "name", None))
            if isinstance(result, Refusal):
                reporter.refused(result.kind, result.message, result.details)
                reporter.done(EXIT_SETUP)
                return EXIT_SETUP
            if as_json:
                reporter.record(event="dispatched", run_id=result)
            else:
                out.write(result + "\n")
                out.flush()
            if not args.wait:  # dispatched is all that was seen: never a status of the run's own
                reporter.done(EXIT_OK, status="DISPATCHED", run_id=result)
                return EXIT_OK
            run_ids = [result]
        else:
            run_ids = list(args.run_ids)
            from primetui.commands.transfers import is_transfer_ref, wait_transfers

            refs = [rid for rid in run_ids if is_transfer_ref(rid)]
            if refs:  # S3 transfers: their own follow, the same exit codes
                run_ids = [rid for rid in run_ids if rid not in refs]
                code = await wait_transfers(
                    client, refs, out, as_json, interval=max(0.2, args.interval), deadline=deadline, notifier=notifier
                )
                if notifier is not None:
                    await notifier.drain()
                if not run_ids or code != EXIT_OK:
                    reporter.done(code, status="SUCCEEDED" if code == EXIT_OK else None)
                    return code
        followed[:] = [Followed(rid) for rid in dict.fromkeys(run_ids)]
        return await wait_runs(
            client,
            run_ids,
            reporter,
            deadline=deadline,
            interval=max(0.2, args.interval),
            notifier=notifier,
            interrupt=interrupt,
            runs=followed,
        )
    except asyncio.CancelledError:
        if interrupt.signum is None:
            raise
        if notifier is not None:
            await notifier.close()
        await settle(client, followed)
        reporter.interrupted(followed, interrupt.signum)
        return 128 + interrupt.signum
    finally:
        await client.aclose()


async def _guarded(args: Any, out: TextIO, err: TextIO, started: float, held: dict[Any, Any] | None = None) -> int:
    """``_main`` with SIGINT and SIGTERM turned into a clean end: the last lines, then 130 or 143."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    interrupt = Interrupt()
    as_json = bool(getattr(args, "json", False))

    def on_signal(signum: int) -> None:
        if interrupt.signum is None and task is not None:
            interrupt.signum = signum
            task.cancel()

    installed = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, on_signal, signum)
            installed.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread (a test): KeyboardInterrupt still ends it below
    if os.environ.get(READY_ENV):
        print(f"primetui: ready (pid {os.getpid()})", file=err, flush=True)
    # The runs asked for (wait) are known before anything is sent; dispatch adds its run once dispatched.
    followed = [Followed(rid) for rid in dict.fromkeys(getattr(args, "run_ids", None) or [])]
    pending = (held or {}).pop("pending", None)
    if pending is not None:  # it came while Python was starting (primetui.commands.cli held it)
        on_signal(pending)
    try:
        return await _main(args, out, err, started, interrupt, followed)
    except asyncio.CancelledError:
        if interrupt.signum is None:
            raise
        # Cancelled before _main could report (setup): the stream still ends with its done line, and the
        # runs asked for are unknown (no client to ask yet), never "not running".
        reporter = Reporter(out if as_json or args.command not in ("dispatch", "sweep") else err, err, as_json)
        reporter.interrupted(followed, interrupt.signum)
        return 128 + interrupt.signum
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def process_started() -> float:
    """The ``time.monotonic()`` at which this process started (Linux: from /proc), else now.

    ``--timeout`` counts from there, so the interpreter's own start-up (a second or more on a busy
    machine) is inside it.
    """
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        since_boot = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, counted after "pid (comm)"
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - since_boot
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age < 60.0 else now  # not a plausible start-up: count from now


def main(
    args: Any,
    out: TextIO | None = None,
    err: TextIO | None = None,
    held: dict[Any, Any] | None = None,
    started: float | None = None,
) -> int:
    """Entry point of ``primetui wait``, ``dispatch`` and ``sweep``; returns the exit code.

    ``held``: where ``primetui.commands.cli`` notes a SIGINT or SIGTERM that came while the process was
    starting (key ``"pending"``); once this command's own handlers are in, it is reported like one now.
    ``started``: the ``time.monotonic()`` ``--timeout`` counts from (the CLI passes the process's start,
    :func:`process_started`); now by default, for a caller in a process of its own.
    """
    started = time.monotonic() if started is None else started
    out, err = out or sys.stdout, err or sys.stderr
    as_json = bool(getattr(args, "json", False))
    try:
        return asyncio.run(_guarded(args, out, err, started, held))
    except KeyboardInterrupt:
        if as_json:
            Reporter(out, err, True).done(
                EXIT_SIGINT, signal="SIGINT", running=[], unknown=list(getattr(args, "run_ids", None) or [])
            )
        return EXIT_SIGINT
    except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
        from primetui.api.errors import PrimeAPIError
        from primetui.viewmodel.errors import describe

        if isinstance(exc, (PrimeAPIError, OSError)):  # the platform's answer, or the network
            code, sentence = EXIT_FAILED, describe(exc)
            print(f"primetui {getattr(args, 'command', '')}: {sentence}", file=err)
        else:  # a bug: a report (secrets redacted) and its path, never a traceback
            from primetui.config import crash

            path = crash.write_report(exc, context=f"primetui {getattr(args, 'command', '')}")
            code, sentence = EXIT_BUG, crash.crash_sentence(path)
            print(_clean(sentence), file=err)
        if as_json:
            Reporter(out, err, True).done(code, error=_clean(sentence))
        return code
