"""Put and get: copy a local file or folder onto a volume, or one back, straight to the volume's
storage when the platform offers it (V9 ``via: "r2"``, no session), else over a session's SFTP.

Opened from the Volumes screen (``p`` put, ``g`` get). The paths are checked with the platform's
rules (``primetui.shell.paths``) before anything connects; then the dialog asks the platform where
the transfer goes. Direct: it copies with the route's credentials and releases a put's lease at the
end; the dialog says "straight to volume storage (no session)". Otherwise the dialog finds or opens the
session (a live read-write one for put, a read-only one for get, which the platform may answer
with the live read-write one), waits for it to be ready showing phase and staging progress,
connects (``primetui.shell.open_session_connection``, everything pinned) and copies in a worker
with a progress bar. A file that already exists is replaced only after asking (``y`` replace,
``n`` keep it, ``a`` replace all); the result line lists what was skipped and why (symlinks,
FIFOs, names the server should never have sent). Escape cancels (the client removes the
half-written file). After a put the
data reaches the volume only when the session stops and syncs, so the dialog offers that on one
key and shows the final sync until stopped.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Input, Label, ProgressBar, Static

from primetui.viewmodel.fmt import fmt_bytes
from primetui.viewmodel.volume_view import session_blocks_dispatch
from primetui.ui.safe import plain
from primetui.ui.styles import tcss

if TYPE_CHECKING:
    from primetui.config.settings import Settings

PUT, GET = "put", "get"
SESSION_WAIT_S = 1800.0
_SHOW_EVERY_S = 0.1


@dataclass
class TransferOutcome:
    """What the dialog did, for the caller (the Volumes screen refreshes on it)."""

    direction: str
    volume: str
    session_id: str | None = None
    files: int = 0
    bytes: int = 0
    destination: str = ""
    cancelled: bool = False
    error: str | None = None
    stopped: str | None = None  # the final phase when the user chose stop-and-sync
    skipped: tuple[Any, ...] = ()  # primetui.shell.confine.Skipped: what was left alone, and why
    route: str = "session"  # "direct" when it went straight to volume storage (V9 via r2)


def check_put(local: str, remote: str) -> str | None:
    """The one-sentence problem with a put of ``local`` to volume path ``remote``, or None.

    The same check ``primetui.shell.put`` runs (``check_put_target``), without connecting.
    """
    from primetui.shell.errors import RemotePathError
    from primetui.shell.transfer import check_put_target

    try:
        check_put_target(local, remote)
    except RemotePathError as exc:
        return str(exc)
    return None


def check_get(remote: str, local: str) -> str | None:
    """The one-sentence problem with a get of volume path ``remote`` into ``local``, or None."""
    from primetui.shell.errors import RemotePathError
    from primetui.shell.transfer import check_get_target

    try:
        check_get_target(remote, local)
    except RemotePathError as exc:
        return str(exc)
    return None


def _is_local(settings: Settings | None, client: Any) -> bool:
    url = (settings.base_url if settings is not None else "") or str(getattr(client, "base_url", "") or "")
    host = url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1")


def _regular_files(src: Path) -> int:
    """How many files a put of ``src`` copies: links, FIFOs and the like are skipped (and listed at the end)."""
    if src.is_file():
        return 1
    return sum(
        1 for root, _, names in os.walk(src) for n in names if stat.S_ISREG(os.lstat(os.path.join(root, n)).st_mode)
    )


def _rate(n: float, seconds: float) -> str:
    return f"{fmt_bytes(n / seconds)}/s" if seconds > 0.05 else "-"


class TransferScreen(ModalScreen[TransferOutcome | None]):
    """The put / get dialog for one volume."""

    CSS_PATH = tcss("transfer.tcss")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel / close", id="transfer.cancel"),
        Binding("enter", "start", "Start", show=False, id="transfer.start"),
        Binding("s", "stop_and_sync", "Stop session and sync", show=False, id="transfer.stop_sync"),
        Binding("k", "keep", "Keep the session", show=False, id="transfer.keep"),
        Binding("y", "answer('replace')", "Replace", show=False, id="transfer.replace"),
        Binding("n", "answer('skip')", "Keep the existing file", show=False, id="transfer.skip"),
        Binding("a", "answer('all')", "Replace all", show=False, id="transfer.replace_all"),
    ]

    # Which keys are live follows these two (``check_action``): setting one refreshes the bindings.
    state: var[str] = var("form", init=False, bindings=True)
    """form -> working -> done (or back to form on an error)."""
    _answer: var[asyncio.Future[str] | None] = var(None, init=False, bindings=True)
    """Set while asking whether to replace a file (y / n / a are live meanwhile)."""

    def __init__(
        self,
        client: Any,
        volume: str,
        direction: str,
        *,
        settings: Settings | None = None,
        key_path: str | os.PathLike[str] | None = None,
        poll: float = 0.5,
        clock: Any = time.monotonic,
        source: str = "",
    ) -> None:
        super().__init__()
        self.initial_source = source  # a get opened on a browser pick or a checkpoint
        if direction not in (PUT, GET):
            raise ValueError(f"direction must be {PUT!r} or {GET!r}")
        self.client = client
        self.volume = volume
        self.direction = direction
        self.settings = settings
        self.key_path = key_path
        self.poll = poll
        self.clock = clock  # monotonic seconds; fixed in snapshot tests
        self.outcome = TransferOutcome(direction, volume)
        self.session: Any = None
        self.phases: list[str] = []
        self._job: Any = None
        self._started = 0.0
        self._shown = 0.0
        self._names: set[str] = set()
        self._files_total: int | None = None

    # ---- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if self.direction == PUT:
            title = f"Put a local file or folder onto {self.volume}"
            fields = (
                ("Local file or folder (dir/ copies its contents)", "source", ""),
                (f"Path on {self.volume} (a trailing / means into that folder)", "dest", "datasets/"),
            )
        else:
            title = f"Get a file or folder from {self.volume}"
            fields = (
                (f"Path on {self.volume}", "source", self.initial_source),
                ("Local folder to copy into", "dest", "."),
            )
        with Vertical():
            yield Static(plain(title), id="transfer-title")
            for label, key, value in fields:
                yield Label(plain(label))
                yield Input(value=value, id=f"transfer-{key}")
            yield Static("", id="transfer-error")
            yield Static("", id="transfer-phase")
            yield ProgressBar(total=None, show_eta=False, id="transfer-bar")
            yield Static("", id="transfer-stats")
            yield Static("", id="transfer-result")
            yield Static(self._form_hint(), id="transfer-hint")

    def _form_hint(self) -> str:
        if self.direction == PUT:
            return "enter: put  ·  esc: close  ·  runs/ is read-only; names use letters, digits and ._-@%+=,: only"
        return "enter: get  ·  esc: close  ·  a trailing / on the volume path copies the folder's contents"

    def on_mount(self) -> None:
        self.query_one("#transfer-dest" if self.initial_source else "#transfer-source", Input).focus()

    def _set(self, wid: str, text: str) -> None:
        # Kept by hand: the copy's messages (phase, stats, result, hint) are written as it goes,
        # each once, by the one task that runs it; nothing reads them back.
        if self.is_attached:
            self.query_one(f"#{wid}", Static).update(plain(text))

    # ---- form -------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        # Enter starts from either field (the destination has a default); a problem is shown
        # in one sentence and the cursor goes to the field to fix.
        self.action_start()

    def values(self) -> tuple[str, str]:
        return self.query_one("#transfer-source", Input).value.strip(), self.query_one(
            "#transfer-dest", Input
        ).value.strip()

    def check(self) -> str | None:
        source, dest = self.values()
        if self.direction == PUT:
            return check_put(source, dest)
        if not source:
            return f"Type the path on {self.volume} to get (e.g. datasets/ or runs/<run id>/checkpoints/)."
        return check_get(source, dest)

    def action_start(self) -> None:
        if self.state != "form":
            return
        problem = self.check()
        self._set("transfer-error", problem or "")
        if problem:
            return
        self.state = "working"
        for box in self.query(Input):
            box.disabled = True
        self._set("transfer-result", "")
        self._set("transfer-hint", "esc: cancel (a half-written file is removed)")
        self._job = self.run_worker(self._run(), exclusive=True, exit_on_error=False, group="transfer")

    # ---- the work ---------------------------------------------------------------------------
    async def _run(self) -> None:
        from primetui.shell import open_session_connection, resolve_key_path

        source, dest = self.values()
        conn = None
        try:
            route = await self._route(source, dest)
            if route is not None and route.via == "r2":
                await self._copy_direct(route, source, dest)
                return
            session = await self._session(route.session if route is not None else None)
            if session is None:
                return
            self.session = session
            self.outcome.session_id = str(session.id)
            key = self.key_path or resolve_key_path(
                self.settings.ssh_key_path if self.settings is not None else None,
                local_platform=_is_local(self.settings, self.client),
            )
            self._set("transfer-phase", f"Connecting to session {session.id}…")
            conn = await open_session_connection(session, key)
            await self._copy(conn, source, dest)
        except asyncio.CancelledError:
            self.outcome.cancelled = True
            self._finish_cancelled()
            raise
        except Exception as exc:  # noqa: BLE001 - shell/api errors are one sentence already
            self._fail(str(exc).rstrip(".") + ".")
        finally:
            if conn is not None:
                await asyncio.shield(conn.close())
            if self.direction == GET and self.session is not None and self.session.read_only:
                # Our own read-only session: nothing to sync, so free it now instead of after 30 min idle.
                await asyncio.shield(self._quiet_stop(str(self.session.id)))

    async def _quiet_stop(self, session_id: str) -> None:
        try:
            await self.client.stop_session(self.volume, session_id)
        except Exception:  # noqa: BLE001 - the idle reaper frees it anyway
            pass

    async def _route(self, source: str, dest: str) -> Any:
        """The platform's answer to "where does this transfer go" (V9), or None when it has no such route."""
        ask = getattr(self.client, "route_transfer", None)
        if ask is None:
            return None
        from primetui.api.errors import NotFoundError
        from primetui.shell.direct import put_route_args
        from primetui.shell.paths import remote_path

        if self.direction == PUT:
            path, entries = put_route_args(self._put_source(source), dest)
        else:
            path, entries = remote_path(source).rel, None
        self._set("transfer-phase", f"Asking {self.volume} where the transfer goes…")
        try:
            return await ask(self.volume, self.direction, path, entries)
        except NotFoundError:
            return None  # a platform without the direct route: through a session, as before

    @staticmethod
    def _put_source(source: str) -> str:
        from primetui.shell.transfer import copies_contents

        src = Path(source).expanduser()
        return str(src) + ("/" if copies_contents(source) and src.is_dir() else "")

    async def _copy_direct(self, route: Any, source: str, dest: str) -> None:
        """Copy straight to or from the volume's storage with the route's credentials: no session."""
        import threading

        from primetui.api.volume_storage import VolumeStorage
        from primetui.shell import direct

        self.outcome.route = "direct"
        bar = self.query_one("#transfer-bar", ProgressBar)
        bar.add_class("visible")
        self._started = self.clock()
        self._names.clear()
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def progress(done: int, total: int, name: str) -> None:
            loop.call_soon_threadsafe(self._progress, done, total, name)

        def ask(where: str) -> str:  # from the copy's thread: the question is asked on the app's loop
            return asyncio.run_coroutine_threadsafe(self._ask_overwrite(where), loop).result()

        def work() -> Any:
            with VolumeStorage(route) as storage:
                if self.direction == PUT:
                    return direct.put(
                        storage,
                        self._put_source(source),
                        dest,
                        progress,
                        stop.is_set,
                        overwrite=ask,
                        volume=self.volume,
                    )
                return direct.get(storage, source, dest, self.volume, progress, stop.is_set, overwrite=ask)

        if self.direction == PUT:
            src = Path(source).expanduser()
            self._files_total = _regular_files(src)
            self._set(
                "transfer-phase",
                f"Putting {source} → {self.volume}:/{dest.lstrip('/')} straight to volume storage (no session)",
            )
        else:
            self._files_total = None
            self._set(
                "transfer-phase",
                f"Getting {self.volume}:/{source.lstrip('/')} → {dest} straight from volume storage (no session)",
            )
        try:
            result = await asyncio.to_thread(work)
        except BaseException:
            stop.set()
            if self._answer is not None:
                self._answer.cancel()  # a copy waiting on an overwrite question ends too
            raise
        finally:
            if route.lease_id:
                await asyncio.shield(self._release(route.lease_id))
        where = (
            f"{self.volume}:{result.destination}" if self.direction == PUT else str(Path(result.destination).resolve())
        )
        self._show_result(result, where)
        self._set(
            "transfer-phase",
            "Straight to volume storage, no session: the files are on the volume now, and a run can start on it."
            if self.direction == PUT
            else "Straight from volume storage, no session (the volume as of its last sync).",
        )
        self._set("transfer-hint", "esc: close")

    async def _release(self, lease_id: str) -> None:
        try:
            await self.client.release_transfer(self.volume, lease_id)
        except Exception:  # noqa: BLE001 - an unreleased lease lapses by itself within 15 minutes
            pass

    async def _session(self, existing: Any = None) -> Any:
        """The ready session to copy through: the route's live RW one, else reuse a live RW one for put,
        RO (or the live RW) for get."""
        if existing is not None:
            self._set("transfer-phase", f"{self.volume} has a live read-write session: the transfer goes through it.")
            return await self._wait_ready(existing)
        if self.direction == PUT:
            self._set("transfer-phase", f"Looking for a live read-write session on {self.volume}…")
            sessions = await self.client.list_sessions(self.volume)
            live = [s for s in sessions if session_blocks_dispatch(s)]
            moving = [s for s in live if str(s.phase or "").lower() in ("syncing", "finalizing")]
            usable = [s for s in live if s not in moving]
            if usable:
                session = usable[0]
            elif moving:
                self._fail(
                    f"Session {moving[0].id} on {self.volume} is still syncing its changes back; wait until it is "
                    f"stopped, then put again."
                )
                return None
            else:
                self._set("transfer-phase", f"Opening a read-write session on {self.volume}…")
                session = await self.client.create_session(self.volume, read_only=False)
        else:
            self._set("transfer-phase", f"Opening a read-only session on {self.volume}…")
            session = await self.client.create_session(self.volume, read_only=True, allow_writable=True)
        return await self._wait_ready(session)

    async def _wait_ready(self, session: Any) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SESSION_WAIT_S
        mode = "read-only" if session.read_only else "read-write"
        while True:
            phase = str(session.phase or session.status or "").lower()
            if not self.phases or self.phases[-1] != phase:
                self.phases.append(phase)
            progress = f"\n{session.progress}" if session.progress else ""
            self._set("transfer-phase", f"Session {session.id} ({mode}): {' → '.join(self.phases)}{progress}")
            if phase == "ready" or (
                session.ssh_connection and str(session.status).upper() == "RUNNING" and not session.phase
            ):
                return session
            if session.is_dead:
                why = session.error_message or f"it is {phase}"
                self._fail(f"Session {session.id} did not become ready ({why}); open another one and retry.")
                return None
            if loop.time() > deadline:
                self._fail(
                    f"Session {session.id} is still {phase} after {SESSION_WAIT_S / 60:.0f} minutes; try again later."
                )
                return None
            await asyncio.sleep(self.poll)
            session = await self.client.get_session(self.volume, session.id)

    async def _copy(self, conn: Any, source: str, dest: str) -> None:
        from primetui.shell import get, put

        bar = self.query_one("#transfer-bar", ProgressBar)
        bar.add_class("visible")
        self._started = self.clock()
        self._names.clear()
        if self.direction == PUT:
            src = Path(source).expanduser()
            self._files_total = _regular_files(src)
            self._set(
                "transfer-phase",
                f"Putting {source} → {self.volume}:/{dest.lstrip('/')} over session {conn.endpoint.session_id}",
            )
            result = await put(conn, source, dest, self._progress, overwrite=self._ask_overwrite)
            where = f"{self.volume}:{result.destination}"
        else:
            self._files_total = None
            self._set(
                "transfer-phase",
                f"Getting {self.volume}:/{source.lstrip('/')} → {dest} over session {conn.endpoint.session_id}",
            )
            result = await get(conn, source, dest, self._progress, overwrite=self._ask_overwrite)
            where = str(Path(result.destination).resolve())
        self._show_result(result, where)
        if self.direction == PUT:
            self._set(
                "transfer-phase",
                f"The files are in session {conn.endpoint.session_id}; they reach the volume when it stops and syncs. "
                "Until then the session blocks training on this volume.",
            )
            self._set("transfer-hint", "s: stop the session and sync now  ·  k / esc: keep it open (S stops it later)")
        else:
            self._set("transfer-phase", "")
            self._set("transfer-hint", "esc: close")

    def _show_result(self, result: Any, where: str) -> None:
        """The result line of a finished copy (either route), with what it skipped and why."""
        from primetui.shell.confine import describe_skipped

        self.outcome.files, self.outcome.bytes, self.outcome.destination = result.files, result.bytes, where
        self.outcome.skipped = result.skipped
        self._progress(result.bytes, result.bytes, "", force=True)
        seconds = self.clock() - self._started
        verb = "Put" if self.direction == PUT else "Got"
        skipped = describe_skipped(result.skipped)
        self._set(
            "transfer-result",
            f"{verb} {result.files} file(s), {fmt_bytes(result.bytes)} in {seconds:.1f} s → {where}"
            + (f"\n{skipped}" if skipped else ""),
        )
        self.state = "done"

    async def _ask_overwrite(self, where: str) -> str:
        """Ask whether to replace ``where`` (y / n / a); the copy waits for the answer."""
        self._answer = asyncio.get_running_loop().create_future()
        self._set("transfer-result", f"{where} already exists. Replace it?")
        self._set("transfer-hint", "y: replace  ·  n: keep it (skip)  ·  a: replace all  ·  esc: cancel")
        try:
            return await self._answer
        finally:
            self._answer = None
            self._set("transfer-result", "")
            self._set("transfer-hint", "esc: cancel (a half-written file is removed)")

    def action_answer(self, answer: str) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(answer)

    def _progress(self, done: int, total: int, name: str, force: bool = False) -> None:
        if name:
            self._names.add(name)
        now = self.clock()
        if not force and now - self._shown < _SHOW_EVERY_S:
            return
        self._shown = now
        if not self.is_attached:
            return
        self.query_one("#transfer-bar", ProgressBar).update(
            total=max(total, 1), progress=done if total else 1
        )  # the bar's own reactives
        files = f"{len(self._names)}" + (f"/{self._files_total}" if self._files_total is not None else "")
        current = f"\n{name}" if name else ""
        self._set(
            "transfer-stats",
            f"{fmt_bytes(done)} of {fmt_bytes(total)}  ·  files {files}  ·  "
            f"{_rate(done, now - self._started)}{current}",
        )

    def _still_open(self) -> str:
        """After a failed or cancelled put: the read-write session is still open and blocks training."""
        if self.direction != PUT or self.session is None:
            return ""
        return f" Session {self.session.id} stays open (read-write): put again, or close and stop it with S."

    def _fail(self, message: str) -> None:
        message += self._still_open()
        self.outcome.error = message
        self.state = "form"
        self._set("transfer-error", message)
        self._set("transfer-phase", "")
        self._hide_bar()
        self._back_to_form()

    def _hide_bar(self) -> None:
        """A transfer that ended without finishing shows no bar (an indeterminate one keeps animating)."""
        if self.is_attached:
            bar = self.query_one("#transfer-bar", ProgressBar)
            bar.remove_class("visible")
            bar.update(total=None, progress=0)
            self._set("transfer-stats", "")

    def _finish_cancelled(self) -> None:
        self._set(
            "transfer-error",
            "Cancelled; the file being copied was removed, files already copied stay." + self._still_open(),
        )
        self.state = "form"
        self._hide_bar()
        self._back_to_form()

    def _back_to_form(self) -> None:
        if not self.is_attached:
            return
        for box in self.query(Input):
            box.disabled = False
        self.query_one("#transfer-source", Input).focus()
        self._set("transfer-hint", self._form_hint())

    # ---- keys -------------------------------------------------------------------------------
    def action_cancel(self) -> None:
        if self.state == "working" and self._job is not None and self._job.is_running:
            self._job.cancel()
            return
        self.dismiss(self.outcome)

    def action_keep(self) -> None:
        if self.state == "done":
            self.dismiss(self.outcome)

    def action_stop_and_sync(self) -> None:
        if self.state != "done" or self.direction != PUT or self.session is None:
            return
        from primetui.ui.terminal.dialogs import StopSessionScreen

        def stopped(phase: str | None) -> None:
            self.outcome.stopped = phase
            self.dismiss(self.outcome)

        self.app.push_screen(StopSessionScreen(self.client, self.volume, str(self.session.id), poll=self.poll), stopped)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # s / k are letters: only live once the form is done, so they never eat typing.
        if action in ("stop_and_sync", "keep"):
            return self.state == "done" and (action == "keep" or self.direction == PUT)
        if action == "answer":
            return self._answer is not None
        return True
