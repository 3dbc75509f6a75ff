"""``primetui wait ID…`` and ``primetui dispatch sft.toml --volume NAME [--wait]``: runs as exit codes.

``wait`` follows each run with the dashboard's own ``RunWatcher`` until it is terminal, printing a
line per status change and a progress line (rewritten in place on a terminal, plain lines with
at most one per run every PLAIN_PROGRESS_EVERY seconds elsewhere); ``--json`` prints one object per
line instead. Exit codes:

    0  every run COMPLETED
    1  a run FAILED, STOPPED or PAUSED, or cannot be followed (not found, access refused); the
       failure reason and the last error lines of the failing component are printed
    2  --timeout passed first
    3  nothing was dispatched or asked: no API key, an unreadable config file, a failed pre-flight,
       the platform's refusal of the run

``dispatch`` runs the editor's pre-flight (:mod:`primetui.sft.preflight`) and the diagnostics of
``primetui validate``, dispatches, and prints the run id on stdout (alone, so
``ID=$(primetui dispatch …)`` works); with ``--wait`` it then waits as above. No textual import.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from primetui.api.followers import PollFailed, RunUpdate, RunWatcher
from primetui.monitor_core.escapes import neutralise
from primetui.notify import Notifier, RunEvent

EXIT_OK, EXIT_FAILED, EXIT_TIMEOUT, EXIT_SETUP = 0, 1, 2, 3
PLAIN_PROGRESS_EVERY = 30.0
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
            self.record(event="status", run_id=f.run_id, name=f.name, status=f.status, previous=previous,
                        step=f.step, max_steps=f.max_steps)
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
                self.record(event="end", run_id=r.run_id, name=r.name, status=r.status if r.ended else None,
                            reason=r.reason, component=r.component, error_lines=r.error_lines)
            self.record(event="done", exit=code, timed_out=[r.run_id for r in timed_out])
            return
        for r in runs:
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


def failing_component(run: Any) -> tuple[str, int | None, str | None]:
    """(component, pod_index, env_name) of the failed part, as the Components pane decides it."""
    from primetui.monitor_core.components import log_specs

    error = str(getattr(run, "error_message", None) or "").lower()
    specs = log_specs(run, None)
    for spec in specs:
        names = [spec.component] + ([spec.env_name.lower(), spec.env_name.split("/")[-1].lower()] if spec.env_name else [])
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


async def wait_runs(client: Any, run_ids: list[str], reporter: Reporter, *, timeout: float | None = None,
                    interval: float = 3.0, notifier: Notifier | None = None) -> int:
    """Follow every run to its end; returns the exit code."""
    runs = [Followed(rid) for rid in dict.fromkeys(run_ids)]
    watchers = {r.run_id: RunWatcher(client, r.run_id, interval=interval) for r in runs}

    async def follow(f: Followed) -> None:
        watcher = watchers[f.run_id]
        async for event in watcher:
            if isinstance(event, RunUpdate):
                run = event.run
                f.name, f.max_steps = run.name, run.max_steps or f.max_steps
                if event.status_changed:
                    previous = event.previous.status if event.previous is not None else None
                    f.status = run.status
                    reporter.status(f, previous)
                    if notifier is not None:
                        notifier.emit(RunEvent.status_change(f.run_id, f.name, previous, run.status,
                                                             run.error_message if run.status == "FAILED" else None))
                if event.step_changed and event.step is not None:
                    f.step = event.step
                    reporter.progress(runs, f)
                if run.is_terminal:
                    f.ended = True
                    if run.status != "COMPLETED":
                        f.reason = _clean(run.error_message or (run.failure_analysis or {}).get("rootCause") or "")
                        f.component, f.error_lines = await last_error_lines(client, run)
            elif isinstance(event, PollFailed):
                if event.retry_in is None:
                    f.ended, f.status, f.reason = True, "UNREACHABLE", _clean(event.error)
                elif event.attempt in (1, 5, 20):
                    reporter.problem(f"run {f.run_id}: {_clean(event.error)} (retrying in {event.retry_in:.0f} s)")

    tasks = [asyncio.ensure_future(follow(f)) for f in runs]
    done, pending = await asyncio.wait(tasks, timeout=timeout)
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
    elif timed_out:
        code = EXIT_TIMEOUT
    else:
        code = EXIT_OK
    reporter.end(runs, code, timed_out)
    if notifier is not None:
        await notifier.drain()
    return code


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------


async def dispatch(client: Any, path: Path, volume_name: str, err: TextIO) -> str | None:
    """Pre-flight and dispatch ``path`` on ``volume_name``; the run id, or None (reasons on ``err``)."""
    import tomllib

    from primetui.sft.check import check_text
    from primetui.sft.cli import validate_file
    from primetui.sft.context import CheckContext
    from primetui.sft.preflight import run_preflight

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"primetui dispatch: cannot read {path} ({reason}); check the path.", file=err)
        return None
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        config = None
    volumes = {v.name: v for v in await client.list_volumes()}
    volume = volumes.get(volume_name)
    if volume is None:
        known = ", ".join(sorted(volumes)) or "none yet"
        print(f"primetui dispatch: no volume named {volume_name!r} (volumes: {known}); create it with "
              f"`prime volumes create {volume_name} --size 100Gi`.", file=err)
        return None
    if config is None:
        ctx = CheckContext(hosted=True, has_volume=True)
        for d in validate_file(path, ctx)[0]:
            print(d.format(str(path)), file=err)
        print("primetui dispatch: the file is not valid TOML; nothing was dispatched.", file=err)
        return None
    preflight = await run_preflight(client, volume, config, text, fix_hint="fix them first (listed above).")
    ctx = CheckContext(hosted=True, has_volume=True, cached_models=preflight.cached_models,
                       volume_size_bytes=preflight.volume_size_bytes)
    for d in check_text(text, ctx).diagnostics:
        print(d.format(str(path)), file=err)
    icons = {"ok": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip"}
    for c in preflight.checks:
        print(f"pre-flight {icons[c.state]} {c.name:<9}{_clean(c.detail)}", file=err)
    if preflight.blocked:
        print("primetui dispatch: the pre-flight failed; nothing was dispatched.", file=err)
        return None
    from primetui.api.errors import HTTPStatusError

    try:
        reply = await client.create_run(config, volume=volume_name)
    except HTTPStatusError as exc:  # the platform's refusal (400, 422, 409...): its words, then stop
        print(f"primetui dispatch: the platform refused the run: {_clean(exc)}", file=err)
        for issue in getattr(exc, "issues", None) or []:
            print(f"  - {_clean(issue)}", file=err)
        return None
    return str(reply.run_id)


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


async def _main(args: Any, out: TextIO, err: TextIO) -> int:
    from primetui.headless import _settings
    from primetui.ui.launch import make_client

    try:
        settings = _settings(bool(getattr(args, "local", False)))
    except Exception as exc:  # noqa: BLE001
        print(f"primetui {args.command}: could not read the platform settings ({exc}); fix ~/.prime/config.json "
              "or set PRIME_API_KEY.", file=err)
        return EXIT_SETUP
    if not getattr(settings, "api_key", ""):
        print("No API key configured. Run `prime login`, set PRIME_API_KEY, or add --local.", file=err)
        return EXIT_SETUP
    notifier = None
    hook = getattr(args, "on_event", None)
    if hook:
        notifier = Notifier(hook, report=lambda m: print(m, file=err, flush=True))
    client = make_client(settings)
    try:
        if args.command == "dispatch":
            run_id = await dispatch(client, Path(args.file), args.volume, err)
            if run_id is None:
                return EXIT_SETUP
            if args.json:
                out.write(json.dumps({"event": "dispatched", "run_id": run_id}) + "\n")
            else:
                out.write(run_id + "\n")
            out.flush()
            if not args.wait:
                return EXIT_OK
            run_ids = [run_id]
            reporter = Reporter(out if args.json else err, err, args.json)
        else:
            run_ids = list(args.run_ids)
            reporter = Reporter(out, err, args.json)
        timeout = args.timeout if args.timeout and args.timeout > 0 else None
        return await wait_runs(client, run_ids, reporter, timeout=timeout, interval=max(0.2, args.interval),
                               notifier=notifier)
    finally:
        await client.aclose()


def main(args: Any, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point of ``primetui wait`` and ``primetui dispatch``; returns the exit code."""
    try:
        return asyncio.run(_main(args, out or sys.stdout, err or sys.stderr))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
        from primetui.ui.errors import describe

        print(f"primetui {getattr(args, 'command', '')}: {describe(exc)}", file=err or sys.stderr)
        return EXIT_FAILED
