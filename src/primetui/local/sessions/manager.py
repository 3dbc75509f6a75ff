"""Volume sessions on the local platform: phases, staging, the SSH endpoint, the final sync, the reaper.

Life of a session::

    creating -> staging -> ready -> [syncing ->] finalizing -> stopped      (failed on error)

- creating: the record exists; the working dir is being prepared.
- staging: the volume is copied into ``<data_dir>/sessions/work/<id>/`` (``progress`` carries an
  rclone-style stats line).
- ready: an SSH endpoint listens on 127.0.0.1 and is reachable directly or through the gateway.
- syncing (read-write only): after a stop, clients are disconnected and the working dir is written
  back to the volume (except ``runs/``).
- finalizing: the working dir is removed. stopped: done.

One live read-write session per volume: a second one is refused (:class:`WriterConflict`, HTTP 409)
until the first is stopped, i.e. until its final sync has finished. A ready session with no SSH
connection for ``idle_timeout`` seconds is stopped by the reaper, which is what the hosted
platform's idle watchdog does after 30 minutes.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import datetime as _dt
import logging
import os
import secrets
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from primetui.local.paths import PathEscapeError, safe_join, split_volume_key, volume_key, volume_name_of
from primetui.local.sessions import keys, mountns, sshd, staging
from primetui.local.sessions.gateway import Gateway
from primetui.local.sessions.store import SessionRecord, SessionStore

if TYPE_CHECKING:
    import asyncssh

log = logging.getLogger("primetui.local.sessions")

IDLE_TIMEOUT_ENV = "PRIMETUI_SESSION_IDLE_TIMEOUT"
SPEED_ENV = "PRIMETUI_LOCAL_SPEED"
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
_STAGING_MIN = 1.0
_CREATING_DELAY = 0.5  # seconds at speed 1: the "creating" phase is visible, as on the platform


class _StagingAbandoned(Exception):
    """Raised inside the staging thread when the session is stopped before it is ready."""


class SessionError(Exception):
    """Base for errors the routes turn into HTTP replies; ``str()`` is the ``detail``."""


class VolumeNotFound(SessionError):
    pass


class SessionNotFound(SessionError):
    pass


class WriterConflict(SessionError):
    """A second writer on a volume that already has a live read-write session (HTTP 409)."""


def _now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        value = float(raw) if raw else default
    except ValueError:
        log.warning("ignoring %s=%r: not a number", name, raw)
        return default
    return value if value > 0 else default


class SessionManager:
    """Owns every session of one data dir; lives on the server's event loop."""

    def __init__(
        self,
        data_dir: Path,
        *,
        idle_timeout: float | None = None,
        speed: float | None = None,
        volume_size=None,
        hf_endpoint=None,
        room=None,
    ):
        self.data_dir = Path(data_dir)
        self._volume_size = volume_size or (lambda _name: None)  # name -> size cap in bytes, or None
        self._room = room or (lambda _name: None)  # name -> the volume's room ledger (storage.room), or None
        self._hf_endpoint = hf_endpoint or (lambda: None)  # -> the platform's base URL (its Hub endpoint)
        self.isolation: mountns.Isolation | None = None
        self.idle_timeout = (
            idle_timeout if idle_timeout is not None else _env_float(IDLE_TIMEOUT_ENV, DEFAULT_IDLE_TIMEOUT)
        )
        self.speed = speed if speed is not None else _env_float(SPEED_ENV, 1.0)
        self._folder = keys.sessions_dir(self.data_dir)
        self._work_root = self._folder / "work"
        self._store = SessionStore(self._folder / "sessions.sqlite3")
        self._records: dict[str, SessionRecord] = {}
        self._endpoints: dict[str, tuple[asyncssh.SSHAcceptor, sshd.EndpointConfig]] = {}
        self._last_activity: dict[str, float] = {}
        self._tasks: dict[str, asyncio.Task] = {}
        self._staging: dict[str, asyncio.Future] = {}
        self._host_key: asyncssh.SSHKey | None = None
        self.host_public_key = ""
        self.gateway: Gateway | None = None
        self._reaper: asyncio.Task | None = None
        self._closing = False

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Load keys, start the gateway and the reaper, and finish sessions a previous run left live."""
        self._host_key = keys.load_host_key(self.data_dir)
        self.host_public_key = keys.host_public_key_line(self._host_key)
        if log.level == logging.NOTSET:
            log.setLevel(logging.INFO)  # session lifecycle and key sources belong in the server's output
        sources = keys.describe_accepted_keys(self.data_dir)
        if sources:
            log.info("volume sessions accept SSH keys from: %s", ", ".join(sources))
        else:
            log.info(
                "no SSH public key beside ssh_key_path; the first session creates %s and accepts it",
                keys.local_client_key_path(),
            )
        self.isolation = await asyncio.to_thread(mountns.probe)
        if self.isolation.namespaces:
            log.info(
                "volume sessions run in a bubblewrap sandbox that reaches only their volume, at %s", mountns.MOUNT_POINT
            )
        else:
            log.warning("volume sessions are NOT sandboxed and run in the working copy: %s", self.isolation.why)
        from primetui.local.hub.hf_cli import install_launcher

        self._bin_dir = self._folder / "bin"
        await asyncio.to_thread(install_launcher, self._bin_dir)
        self.gateway = Gateway(keys.load_gateway_cert(self.data_dir), self._port_for_alias)
        await self.gateway.start()
        for rec in self._store.load_all():
            self._records[rec.id] = rec
            if rec.live:
                self._tasks[rec.id] = asyncio.create_task(self._recover(rec))
        self._reaper = asyncio.create_task(self._reap_forever())
        _register(self)

    async def close(self) -> None:
        """Stop serving. Live sessions stay live in the table; the next start finishes them."""
        self._closing = True
        _unregister(self)
        if self._reaper:
            self._reaper.cancel()
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        if self._reaper:
            await asyncio.gather(self._reaper, return_exceptions=True)
        for sid in list(self._endpoints):
            await self._close_endpoint(sid, "the local platform is shutting down")
        for rec in self._records.values():  # no session disk outlives the platform
            work = self.work_dir(rec.id)
            try:
                if rec.read_only and rec.live:
                    await asyncio.to_thread(_discard, work)
                elif rec.live:
                    await asyncio.to_thread(mountns.spill_to_disk, work)
            except OSError:
                log.exception("session %s: could not release its disk at %s", rec.id, work)
        if self.gateway:
            await self.gateway.close()
        self._store.close()

    # -- queries --------------------------------------------------------------------------------
    # A volume is named by its key (``paths.volume_key``: owner and name); messages show the name.
    def volume_path(self, key: str) -> Path:
        return safe_join(self.data_dir / "volumes", key)

    def _require_volume(self, key: str) -> Path:
        team, name = split_volume_key(key)
        path = None
        # Only a volume's own folder: not ``_teams`` or a team's folder, which hold other volumes.
        if name and "/" not in name and not name.startswith(("_", ".")) and volume_key(team, name) == key:
            with contextlib.suppress(PathEscapeError):
                path = self.volume_path(key)
        if path is None or not path.is_dir():
            raise VolumeNotFound(
                f"Volume '{name}' not found; list your volumes with `prime volumes list` "
                f"or create it with `prime volumes create {name}`."
            )
        return path

    def get(self, volume_name: str, session_id: str) -> SessionRecord:
        rec = self._records.get(session_id)
        if rec is None or rec.volume_name != volume_name:
            raise SessionNotFound(f"Session '{session_id}' not found on volume '{volume_name_of(volume_name)}'")
        return rec

    def list(self, volume_name: str) -> list[SessionRecord]:
        self._require_volume(volume_name)
        mine = [r for r in self._records.values() if r.volume_name == volume_name]
        return sorted(mine, key=lambda r: r.created_at, reverse=True)

    def list_all(self) -> builtins.list[SessionRecord]:  # builtins: ``list`` here is the method above
        return list(self._records.values())

    def live_read_write(self, volume_name: str) -> SessionRecord | None:
        """The volume's live read-write session (any phase before stopped), or None."""
        for rec in self._records.values():
            if rec.volume_name == volume_name and not rec.read_only and rec.live:
                return rec
        return None

    def work_dir(self, session_id: str) -> Path:
        return self._work_root / session_id

    # -- create / stop --------------------------------------------------------------------------
    def create(self, volume_name: str, *, read_only: bool, allow_writable: bool = False) -> SessionRecord:
        """Start a session; raises VolumeNotFound or WriterConflict."""
        self._require_volume(volume_name)
        writer = self.live_read_write(volume_name)
        if read_only and allow_writable and writer is not None and writer.phase in ("creating", "staging", "ready"):
            return writer  # a get may reuse the caller's own live read-write session (CLI 0.18 behaviour)
        if not read_only and writer is not None:
            name = volume_name_of(volume_name)
            raise WriterConflict(
                f"Volume '{name}' has an active read-write session ({writer.id}, {writer.phase}); "
                f"stop it (prime volumes stop {name} {writer.id}) or open a read-only session"
            )
        if not keys.has_usable_key(keys.configured_key_path()):
            keys.ensure_local_client_key()  # so a laptop without ~/.ssh keys can still open a shell
        token = secrets.token_hex(6)
        rec = SessionRecord(
            id=f"vs_{token}",
            volume_name=volume_name,
            read_only=read_only,
            alias=f"vol-ssh-{token}",
            created_at=_now_iso(),
        )
        self._records[rec.id] = rec
        self._store.save(rec)
        self._tasks[rec.id] = asyncio.create_task(self._bring_up(rec))
        return rec

    def stop(self, volume_name: str, session_id: str, reason: str = "stopped on request") -> SessionRecord:
        """Ask a session to stop; returns at once (the final sync runs in the background)."""
        rec = self.get(volume_name, session_id)
        if rec.phase in ("syncing", "finalizing", "stopped", "failed") or rec.stop_reason:
            return rec  # idempotent, like the CLI expects from DELETE
        rec.stop_reason = reason
        log.info("session %s (%s): stopping, %s", rec.id, rec.volume_name, reason)
        bring_up = self._tasks.get(rec.id)
        if bring_up is not None and not bring_up.done():
            bring_up.cancel()
        self._tasks[rec.id] = asyncio.create_task(self._shut_down(rec, bring_up))
        return rec

    # -- internals ------------------------------------------------------------------------------
    def _set_phase(self, rec: SessionRecord, phase: str, *, error: str | None = None) -> None:
        rec.phase = phase
        if error is not None:
            rec.error_message = error
        if phase in ("stopped", "failed"):
            rec.stopped_at = _now_iso()
        self._store.save(rec)
        log.info("session %s (%s, %s): %s", rec.id, rec.volume_name, "ro" if rec.read_only else "rw", phase)

    def _touch(self, session_id: str) -> None:
        self._last_activity[session_id] = time.monotonic()

    def _port_for_alias(self, alias: str) -> int | None:
        for rec in self._records.values():
            if rec.alias == alias and rec.phase == "ready":
                return rec.ssh_port
        return None

    async def _bring_up(self, rec: SessionRecord) -> None:
        try:
            volume = self._require_volume(rec.volume_name)
            work = self.work_dir(rec.id)
            await asyncio.sleep(_CREATING_DELAY / self.speed)
            self._set_phase(rec, "staging")

            def report(line: str) -> None:
                if rec.stop_reason:  # stopped while staging: end the copy thread at the next tick
                    raise _StagingAbandoned()
                rec.progress = line

            started = time.monotonic()
            isolated = bool(self.isolation and self.isolation.namespaces)
            disks = bool(self.isolation and self.isolation.disks)
            size = self._volume_size(rec.volume_name)
            if disks and size:
                await asyncio.to_thread(mountns.mount_work, work, size)
            copy = asyncio.get_running_loop().run_in_executor(None, staging.stage, volume, work, report)
            self._staging[rec.id] = copy
            rec.progress = await copy
            if rec.read_only and disks and mountns.is_session_mount(work):
                await asyncio.to_thread(mountns.seal_read_only, work)
            elif rec.read_only:
                await asyncio.to_thread(staging.make_read_only, work)
            # A tiny volume stages in a blink; hold the phase briefly so a watcher can see it happen.
            await asyncio.sleep(max(0.0, _STAGING_MIN / self.speed - (time.monotonic() - started)))
            cfg = sshd.EndpointConfig(
                session_id=rec.id,
                volume_name=volume_name_of(rec.volume_name),
                root=work,
                read_only=rec.read_only,
                data_dir=self.data_dir,
                on_activity=partial(self._touch, rec.id),
                namespaces=isolated,
                no_namespace_why=self.isolation.why if self.isolation else "",
                hf_endpoint=self._hf_endpoint(),
                bin_dir=self._bin_dir,
                disk_line=partial(_disk_line, work),
            )
            assert self._host_key is not None  # start() loaded it
            acceptor = await sshd.start_endpoint(cfg, self._host_key)
            self._staging.pop(rec.id, None)
            self._endpoints[rec.id] = (acceptor, cfg)
            rec.ssh_port = acceptor.sockets[0].getsockname()[1]
            self._touch(rec.id)
            self._set_phase(rec, "ready")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("session %s failed to start", rec.id)
            await self._close_endpoint(rec.id, "the session failed")
            with contextlib.suppress(OSError):
                await asyncio.to_thread(_discard, self.work_dir(rec.id))
            why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            self._set_phase(
                rec,
                "failed",
                error=f"The session could not start ({why}); open a new session, and see the platform's output if it "
                f"fails again.",
            )

    async def _close_endpoint(self, session_id: str, reason: str) -> None:
        entry = self._endpoints.pop(session_id, None)
        if entry is not None:
            acceptor, cfg = entry
            await sshd.close_endpoint(acceptor, cfg, reason)

    async def _shut_down(self, rec: SessionRecord, bring_up: asyncio.Task | None) -> None:
        if bring_up is not None:
            await asyncio.gather(bring_up, return_exceptions=True)
        copy = self._staging.pop(rec.id, None)
        if copy is not None:  # the copy thread outlives the cancelled task; let it notice and end
            await asyncio.gather(copy, return_exceptions=True)
        was_ready = rec.phase == "ready"
        await self._close_endpoint(
            rec.id, f"session {rec.id} on volume '{volume_name_of(rec.volume_name)}' stopped: {rec.stop_reason}"
        )
        work = self.work_dir(rec.id)
        try:
            if was_ready and not rec.read_only and work.is_dir():
                self._set_phase(rec, "syncing")

                def report(line: str) -> None:
                    rec.progress = line

                rec.progress = await self._sync_back_within_room(rec, work, report)
            self._set_phase(rec, "finalizing")
            await asyncio.to_thread(_discard, work)
            self._set_phase(rec, "stopped")
        except asyncio.CancelledError:
            raise
        except _TooBig as exc:
            self._set_phase(rec, "failed", error=str(exc))
        except Exception as exc:
            log.exception("session %s: final sync failed", rec.id)
            self._set_phase(
                rec,
                "failed",
                error=f"The final sync failed ({exc}); the session's files are kept in {work}",
            )

    async def _sync_back_within_room(self, rec: SessionRecord, work: Path, report: staging.Report) -> str:
        """The final sync, holding room on the volume's ledger for what it adds (refused when it does not fit)."""
        volume = self._require_volume(rec.volume_name)
        ledger = self._room(rec.volume_name)
        if ledger is None:
            self._refuse_oversize(rec, work)
            return await asyncio.to_thread(staging.sync_back, work, volume, report)
        grown = max(0, await asyncio.to_thread(_synced_bytes, work) - await asyncio.to_thread(_synced_bytes, volume))
        await asyncio.to_thread(ledger.refresh)
        held = ledger.reservation()
        if not held.add(grown):
            self._refuse_oversize(rec, work)  # bigger than the volume itself: says so
            room = max(0, ledger.room)
            raise _TooBig(
                f"No space left on device: the session's files add {staging.human_bytes(grown)} to the volume, which "
                f"has {staging.human_bytes(room)} free, so nothing was written back; expand the volume "
                f"(prime volumes expand {volume_name_of(rec.volume_name)} --size <larger>) and copy them again. "
                f"They are kept in {work}"
            )
        try:
            return await asyncio.to_thread(staging.sync_back, work, volume, report)
        finally:
            ledger.settle(held, grown)  # counted as grown even when cut short: the next reservation walks again

    def _refuse_oversize(self, rec: SessionRecord, work: Path) -> None:
        """Without a disk of the volume's size, the final sync refuses a copy that outgrew the volume."""
        size = self._volume_size(rec.volume_name)
        if not size or mountns.is_session_mount(work):
            return
        from primetui.local.paths import dir_size_bytes

        used = dir_size_bytes(work)
        if used > size:
            raise _TooBig(
                f"No space left on device: the session's files take {staging.human_bytes(used)}, more than the "
                f"volume's {staging.human_bytes(size)}, so nothing was written back; expand the volume "
                f"(prime volumes expand {volume_name_of(rec.volume_name)} --size <larger>) and copy them again. They "
                f"are kept in {work}"
            )

    async def _recover(self, rec: SessionRecord) -> None:
        """A session live when the platform last stopped: sync it if it was usable, then stop it."""
        rec.stop_reason = "the local platform restarted"
        work = self.work_dir(rec.id)
        try:
            if not rec.read_only and rec.phase in ("ready", "syncing") and work.is_dir():
                self._set_phase(rec, "syncing")
                rec.progress = await self._sync_back_within_room(rec, work, lambda line: None)
            self._set_phase(rec, "finalizing")
            await asyncio.to_thread(_discard, work)
            self._set_phase(rec, "stopped")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._set_phase(rec, "failed", error=f"The final sync after a restart failed ({exc}); files kept in {work}")

    async def _reap_forever(self) -> None:
        interval = max(0.2, min(30.0, self.idle_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            self.reap_idle()

    def reap_idle(self) -> builtins.list[str]:
        """Stop every ready session with no connection and no activity for ``idle_timeout``."""
        now = time.monotonic()
        reaped = []
        for sid, (_, cfg) in list(self._endpoints.items()):
            rec = self._records.get(sid)
            if rec is None or rec.phase != "ready" or cfg.connections:
                continue
            if now - self._last_activity.get(sid, now) >= self.idle_timeout:
                minutes = self.idle_timeout / 60
                span = f"{minutes:g} min" if minutes >= 1 else f"{self.idle_timeout:g} s"
                self.stop(rec.volume_name, sid, reason=f"idle for {span}")
                reaped.append(sid)
        return reaped


def _synced_bytes(tree: Path) -> int:
    """Bytes of ``tree`` the final sync writes or replaces (``runs/`` is never synced)."""
    from primetui.local.paths import dir_size_bytes

    return dir_size_bytes(tree) - dir_size_bytes(tree / staging.RUNS_DIR)


class _TooBig(Exception):
    """The working copy is larger than the volume (checked at the final sync when sizes are not enforced)."""


def _disk_line(work: Path) -> str:
    usage = mountns.disk_usage(work)
    if usage is None:
        return ""
    used, free = usage
    return f"{staging.human_bytes(used)} used, {staging.human_bytes(free)} free"


def _discard(work: Path) -> None:
    """Unmount the session's disk (if it has one) and remove the working dir."""
    mountns.unmount_work(work)
    staging.remove_tree(work)


_current: list[SessionManager] = []


def _register(manager: SessionManager) -> None:
    _current.append(manager)


def _unregister(manager: SessionManager) -> None:
    with contextlib.suppress(ValueError):
        _current.remove(manager)


def current_manager() -> SessionManager | None:
    """The manager of the platform running in this process, if any."""
    return _current[-1] if _current else None
