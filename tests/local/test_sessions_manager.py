"""The session manager in-process: the idle reaper, restart recovery, and the single-writer answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import primetui.local.sessions as sessions
from primetui.local.sessions.manager import SessionManager, VolumeNotFound, WriterConflict


async def _wait(rec, phases, timeout=20.0):
    async def poll():
        while rec.phase not in phases:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PRIME_SSH_KEY_PATH", raising=False)
    (tmp_path / "data" / "volumes" / "vol" / "datasets").mkdir(parents=True)
    (tmp_path / "data" / "volumes" / "vol" / "datasets" / "a.txt").write_text("a\n")
    return tmp_path / "data"


async def test_idle_session_is_reaped_and_writer_slot_freed(data_dir):
    manager = SessionManager(data_dir, idle_timeout=0.3, speed=100)
    await manager.start()
    try:
        rec = manager.create("vol", read_only=False)
        assert sessions.live_read_write("vol") is rec  # what dispatch and volume delete ask
        with pytest.raises(WriterConflict, match="active read-write session"):
            manager.create("vol", read_only=False)
        await _wait(rec, {"ready"})
        await _wait(rec, {"stopped", "failed"})
        assert rec.phase == "stopped" and rec.stop_reason.startswith("idle for")
        assert sessions.live_read_write("vol") is None
        with pytest.raises(VolumeNotFound, match="prime volumes create nope"):
            manager.create("nope", read_only=True)
    finally:
        await manager.close()
    # with no ssh_key_path .pub, the platform made its own key and said where
    assert (Path.home() / ".prime" / "local" / "id_ed25519.pub").exists()


async def test_restart_syncs_a_session_left_live(data_dir):
    manager = SessionManager(data_dir, idle_timeout=3600, speed=100)
    await manager.start()
    rec = manager.create("vol", read_only=False)
    await _wait(rec, {"ready"})
    (manager.work_dir(rec.id) / "datasets" / "b.txt").write_text("made in the session\n")
    await manager.close()  # the platform goes away with the session still ready
    assert rec.phase == "ready"

    again = SessionManager(data_dir, idle_timeout=3600, speed=100)
    await again.start()
    try:
        recovered = again.get("vol", rec.id)
        await _wait(recovered, {"stopped", "failed"})
        assert recovered.phase == "stopped", recovered.error_message
        assert (data_dir / "volumes" / "vol" / "datasets" / "b.txt").read_text() == "made in the session\n"
        assert not again.work_dir(rec.id).exists()
    finally:
        await again.close()


async def test_stop_before_ready_cleans_up_and_read_only_never_blocks_writers(data_dir):
    manager = SessionManager(data_dir, idle_timeout=3600, speed=100)
    await manager.start()
    try:
        ro = manager.create("vol", read_only=True)
        assert sessions.live_session("vol") is ro and sessions.live_read_write("vol") is None
        rw = manager.create("vol", read_only=False)  # a reader never blocks the writer
        manager.stop("vol", rw.id)  # stopped while creating/staging: nothing to sync
        await _wait(rw, {"stopped", "failed"})
        assert rw.phase == "stopped" and not manager.work_dir(rw.id).exists()
        assert manager.stop("vol", rw.id) is rw  # stopping twice is fine (DELETE is idempotent)
        reuse = manager.create("vol", read_only=False)
        await _wait(reuse, {"ready"})
        # a get (readOnly + allowWritable) reuses the caller's live read-write session
        assert manager.create("vol", read_only=True, allow_writable=True) is reuse
    finally:
        await manager.close()


async def test_a_dropped_link_is_reported_not_hung(data_dir, tmp_path):
    import asyncssh

    from primetui.api.models import VolumeSession
    from primetui.local.sessions.routes import to_wire
    from primetui.shell import ConnectionDropped, SessionStopped, open_session_connection, open_shell

    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path = tmp_path / "id_ed25519"
    key_path.write_bytes(key.export_private_key())
    (data_dir / "sessions").mkdir(exist_ok=True)
    (data_dir / "sessions" / "authorized_keys").write_bytes(key.export_public_key())
    manager = SessionManager(data_dir, idle_timeout=3600, speed=100)
    await manager.start()
    try:
        rec = manager.create("vol", read_only=True)
        await _wait(rec, {"ready"})
        # through the gateway, with the session as the client reads it (the wire model)
        conn = await open_session_connection(VolumeSession.model_validate(to_wire(manager, rec)), key_path)
        proc = await open_shell(conn, "xterm-256color", 80, 24)
        await proc.read()
        await manager.gateway.close()  # the network path goes away under the shell
        end = await asyncio.wait_for(proc.wait(), 15)
        assert isinstance(end.error, ConnectionDropped) and not isinstance(end.error, SessionStopped)
        assert "reconnect" in str(end.error)
        proc.write(b"ignored after the end\r")  # writing to a dead shell is harmless
        proc.resize(100, 30)
        await conn.close()
    finally:
        await manager.close()


async def test_a_failed_start_says_why_and_leaves_no_copy(data_dir):
    manager = SessionManager(data_dir, idle_timeout=3600, speed=100)
    await manager.start()
    try:
        rec = manager.create("vol", read_only=False)
        # the volume disappears before staging can read it (deleted by hand on disk)
        import shutil

        shutil.rmtree(data_dir / "volumes" / "vol")
        await _wait(rec, {"failed", "ready"})
        assert rec.phase == "failed" and rec.status == "FAILED"
        assert (
            rec.error_message.startswith("The session could not start (") and "open a new session" in rec.error_message
        )
        assert not manager.work_dir(rec.id).exists()
        assert sessions.live_read_write("vol") is None  # a failed session blocks nothing
    finally:
        await manager.close()
