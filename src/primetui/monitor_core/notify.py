"""Notifications for watched runs: one small event type, a desktop escape, and an ``on_event`` hook.

``RunEvent`` is what every notifier gets: a status change today (``kind="status"``), an anomaly
(``kind="anomaly"``) from whatever detects one, with the same fields. Where it goes:

- the dashboard's toast and bell (``primetui.ui``), as before;
- a desktop notification through the terminal, ``osc_notification`` (OSC 777 or OSC 9), opt-in;
- a hook command (``--on-event CMD`` or ``[notify] on_event``), run with the event as one JSON object
  on stdin, killed after a timeout; a failure is reported in one sentence (toast or stderr) and
  appended to ``notify.log`` in the user log dir (``$PRIMETUI_LOG_DIR``), never raised.

No textual or rich here: ``primetui wait`` uses it too. Every outside string in an event passes
through the neutraliser when the event is made, so no notifier can draw platform text raw.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shlex
import signal
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from primetui.monitor_core.escapes import neutralise

log = logging.getLogger("primetui.monitor_core.notify")
log.addHandler(logging.NullHandler())  # callers report failures themselves; no stray stderr lines

Severity = Literal["information", "warning", "error"]
_TRANSFER_SEVERITY: dict[str, Severity] = {"failed": "error", "cancelled": "warning"}
DESKTOP_MODES = ("off", "osc777", "osc9")
MAX_FIELD = 500
"""Characters kept of any outside text in an event (a hook or a desktop popup wants one line)."""


def _clean(text: Any, limit: int = MAX_FIELD) -> str:
    value = neutralise(str(text if text is not None else "")).replace("\n", " ").strip()
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def failure_log_path(env: dict[str, str] | None = None) -> Path:
    """Where hook failures are appended: ``$PRIMETUI_LOG_DIR/notify.log``, else the user log dir."""
    env = dict(os.environ) if env is None else env
    if env.get("PRIMETUI_LOG_DIR"):
        return Path(env["PRIMETUI_LOG_DIR"]).expanduser() / "notify.log"
    import platformdirs

    return Path(platformdirs.user_log_dir("primetui")) / "notify.log"


def append_failure(message: str, path: Path | None = None) -> None:
    """One line per failed hook, with the time; a log that cannot be written is skipped."""
    try:
        path = failure_log_path() if path is None else path
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{_now()} {message}\n")
    except OSError:
        pass


def severity_of(status: str | None) -> Severity:
    status = (status or "").upper()
    if status == "FAILED":
        return "error"
    if status in ("STOPPED", "PAUSED"):
        return "warning"
    return "information"


@dataclass(frozen=True)
class RunEvent:
    """Something a person watching a run wants to hear about."""

    kind: str
    """``status`` (the run's status changed) or ``anomaly`` (e.g. loss spike, stalled steps)."""
    run_id: str
    title: str
    """One line: ``Run NAME: RUNNING → FAILED``."""
    severity: Severity = "information"
    run_name: str | None = None
    status: str | None = None
    previous: str | None = None
    detail: str = ""
    """More words: a failure reason, an anomaly's description."""
    time: str = field(default_factory=_now)

    @classmethod
    def status_change(
        cls, run_id: str, name: str | None, previous: str | None, status: str, detail: str | None = None
    ) -> RunEvent:
        rid, label = _clean(run_id, 120), _clean(name or run_id, 120)
        prev, new = (_clean(previous, 40) or None), _clean(status, 40)
        title = f"Run {label}: {prev} → {new}" if prev else f"Run {label}: {new}"
        return cls("status", rid, title, severity_of(new), _clean(name, 120) or None, new, prev, _clean(detail))

    @classmethod
    def anomaly(
        cls, run_id: str, name: str | None, what: str, detail: str = "", severity: Severity = "warning"
    ) -> RunEvent:
        """For anomaly detectors: ``what`` is a few words (``loss spike at step 120``)."""
        label = _clean(name or run_id, 120)
        return cls(
            "anomaly",
            _clean(run_id, 120),
            f"Run {label}: {_clean(what, 200)}",
            severity,
            _clean(name, 120) or None,
            None,
            None,
            _clean(detail),
        )

    @classmethod
    def transfer_ended(cls, transfer: Any) -> RunEvent:
        """An S3 transfer ended (``kind="transfer"``; ``run_id`` is the transfer's id)."""
        what = "Import into" if transfer.direction == "import" else "Export of"
        where = f"{_clean(transfer.volume_name, 80)}:/{_clean(transfer.path, 120)}"
        status = _clean(transfer.status, 40)
        severity = _TRANSFER_SEVERITY.get(status, "information")
        detail = transfer.error_message or (transfer.progress.total if transfer.progress else "") or ""
        return cls(
            "transfer",
            _clean(transfer.id, 120),
            f"{what} {where} ({_clean(transfer.url, 120)}): {status}",
            severity,
            None,
            status,
            None,
            _clean(detail),
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def osc_notification(event: RunEvent, mode: str) -> str:
    """The escape that makes the terminal show a desktop notification ('' for ``off``).

    OSC 777 (``ESC ] 777 ; notify ; TITLE ; BODY BEL``) or OSC 9 (``ESC ] 9 ; TEXT BEL``). The event's
    text is neutralised already; ``;`` in the title would end it early, so it becomes ``,``.
    """
    title = event.title.replace(";", ",")
    body = event.detail or event.time
    if mode == "osc777":
        return f"\x1b]777;notify;{title};{body}\x07"
    if mode == "osc9":
        return f"\x1b]9;{title}{' — ' + body if event.detail else ''}\x07"
    return ""


@dataclass(frozen=True)
class HookResult:
    ok: bool
    message: str = ""


def _kill_group(pid: int) -> None:
    """SIGKILL the hook's whole process group (it leads one: ``start_new_session``)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _last_line(fh: Any) -> str:
    try:
        fh.seek(0)
        lines = fh.read()[-4096:].decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return _clean(lines[-1], 200) if lines else ""


async def run_hook(command: str, event: RunEvent, timeout: float = 10.0) -> HookResult:
    """Run ``command`` (split like a shell line, no shell) with the event as JSON on stdin.

    The hook leads its own process group, and a timeout kills the whole group, so a wrapper
    script's children (``sleep``, a hanging ``curl``) go with it. Its stdin and stderr are
    temporary files, not pipes: a child that keeps a pipe open after the hook ends would hold
    the wait (and the timeout warning) for as long as it lives.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return HookResult(False, f"The on-event command cannot be parsed ({exc}); fix its quoting.")
    if not argv:
        return HookResult(True)
    payload = (json.dumps(event.to_json(), ensure_ascii=False) + "\n").encode()
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        stdin.write(payload)
        stdin.flush()
        stdin.seek(0)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=stdin, stdout=asyncio.subprocess.DEVNULL, stderr=stderr, start_new_session=True
            )
        except OSError as exc:
            return HookResult(False, f"The on-event command {argv[0]!r} could not start ({exc.strerror or exc}).")
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), timeout)
        except TimeoutError:
            _kill_group(proc.pid)
            await proc.wait()
            return HookResult(
                False, f"The on-event command {argv[0]!r} took longer than {timeout:g} s and was stopped."
            )
        except asyncio.CancelledError:
            # The command is ending (Ctrl-C, its own deadline): the hook and its children go too.
            _kill_group(proc.pid)
            await proc.wait()
            raise
        if proc.returncode != 0:
            tail = _last_line(stderr)
            return HookResult(
                False,
                f"The on-event command {argv[0]!r} exited with code {proc.returncode}"
                + (f": {tail}" if tail else "")
                + ".",
            )
    return HookResult(True)


class Notifier:
    """Sends each event to the desktop escape and the hook; never blocks, never raises.

    ``write`` puts an escape on the terminal (None: no terminal); ``report`` hears a hook's failure
    in one sentence (a toast, stderr). Hooks run as tasks on the running loop; ``drain()`` waits
    for those still going (``primetui wait`` before it exits).
    """

    def __init__(
        self,
        hook: str | None = None,
        *,
        desktop: str = "off",
        timeout: float = 10.0,
        write: Callable[[str], Any] | None = None,
        report: Callable[[str], Any] | None = None,
    ) -> None:
        self.hook = (hook or "").strip() or None
        self.desktop = desktop if desktop in DESKTOP_MODES else "off"
        self.timeout = timeout
        self.write = write
        self.report = report
        self.failures: list[str] = []
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    def from_prefs(cls, prefs: Any, hook: str | None = None, **kw: Any) -> Notifier:
        notify = getattr(prefs, "notify", None)
        return cls(
            hook or getattr(notify, "on_event", None),
            desktop=str(getattr(notify, "desktop", "off")),
            timeout=float(getattr(notify, "hook_timeout", 10.0)),
            **kw,
        )

    def emit(self, event: RunEvent) -> None:
        if self.desktop != "off" and self.write is not None:
            try:
                self.write(osc_notification(event, self.desktop))
            except Exception as exc:  # noqa: BLE001 - a closed terminal must not take the caller down
                log.warning("desktop notification failed: %s", exc)
        if self.hook:
            try:
                task = asyncio.get_running_loop().create_task(self._run(event))
            except RuntimeError:
                return
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, event: RunEvent) -> None:
        assert self.hook is not None
        try:
            result = await run_hook(self.hook, event, self.timeout)
        except asyncio.CancelledError:
            self._failed(f"The on-event command {self.hook.split()[0]!r} was stopped: primetui ended before it did.")
            raise
        except Exception as exc:  # noqa: BLE001
            result = HookResult(False, f"The on-event command failed ({type(exc).__name__}).")
        if not result.ok:
            self._failed(result.message)

    def _failed(self, message: str) -> None:
        """Report one hook failure everywhere it is promised: the list, notify.log, ``report``.

        The hook line and what it wrote may quote its secrets (a webhook's token, an ``X-Api-Key``):
        they are redacted as a crash report is (``primetui.config.crash.redact``)."""
        from primetui.config.crash import redact

        message = redact(message, [self.hook])
        self.failures.append(message)
        log.warning("%s", message)
        append_failure(message)
        if self.report is not None:
            try:
                self.report(message)
            except Exception:  # noqa: BLE001 - already in the list, the log and notify.log above; the toast is extra
                pass

    async def drain(self) -> None:
        """Wait for the hooks still running; each ends by its own timeout, which kills what is left."""
        while pending := {t for t in self._tasks if not t.done()}:
            await asyncio.wait(pending)

    async def close(self) -> None:
        """Stop the hooks still running now (their process groups are killed) and wait for that."""
        tasks = set(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


__all__ = [
    "HookResult",
    "Notifier",
    "RunEvent",
    "append_failure",
    "failure_log_path",
    "osc_notification",
    "run_hook",
    "severity_of",
]
