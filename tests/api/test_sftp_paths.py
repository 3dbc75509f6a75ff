"""SFTP in a read-write session decides each path once: the ``runs/`` rule reads the resolved place.

Regression of issue 42's first finding for sessions: ``x\\..\\runs\\r1\\keep.txt`` passed the
``runs/`` check (which split on ``/``) and was then joined with ``\\`` as a separator, so the write
landed in the working copy's ``runs/`` (lost at the final sync, which skips ``runs/``). A link to
``runs/`` did the same.
"""

from __future__ import annotations

import asyncssh
import pytest

from primetui.shell import open_session_connection
from tests.api import ssh_helpers
from tests.api.ssh_helpers import create_volume, ssh_platform_fixture, wait_phase

pytestmark = pytest.mark.timeout(120)

KEEP = b"run output\n"


ssh_platform = ssh_platform_fixture("sftp-paths")
api = ssh_helpers.api


async def test_a_backslash_or_a_link_does_not_write_into_runs(ssh_platform, api):
    lp, key = ssh_platform
    root = create_volume(lp, "sftp-paths", {"data.txt": b"data\n", "runs/r1/keep.txt": KEEP})
    s = await api.create_session("sftp-paths", read_only=False)
    s = await wait_phase(api, "sftp-paths", s.id, {"ready", "failed"})
    assert s.phase == "ready"
    work = lp.data_dir / "sessions" / "work" / s.id
    conn = await open_session_connection(s, key)
    try:
        async with conn.conn.start_sftp_client() as sftp:
            for path in (
                "/volume/x\\..\\runs\\r1\\keep.txt",
                "x\\..\\runs\\r1\\new.txt",
                "/volume/ｒｕｎｓ/r1/keep.txt",
            ):
                with pytest.raises(
                    (asyncssh.SFTPPermissionDenied, asyncssh.SFTPFailure),
                    match="runs/ holds run outputs|look-alike of runs",
                ):
                    async with sftp.open(path, "wb") as f:
                        await f.write(b"clobbered\n")
            with pytest.raises(asyncssh.SFTPPermissionDenied, match="runs/ holds run outputs"):
                await sftp.mkdir("/volume/a\\..\\runs\\made")
            with pytest.raises(asyncssh.SFTPPermissionDenied, match="runs/ holds run outputs"):
                await sftp.rename("/volume/data.txt", "/volume/a\\..\\runs\\r1\\moved.txt")
            await sftp.symlink("runs/r1", "/volume/to-runs")  # a link may point there; writing through it may not
            with pytest.raises(asyncssh.SFTPPermissionDenied, match="runs/ holds run outputs"):
                async with sftp.open("/volume/to-runs/keep.txt", "wb") as f:
                    await f.write(b"clobbered\n")
            await sftp.remove("/volume/to-runs")  # the link itself is not under runs/
            await sftp.mkdir("/volume/sub")
            async with sftp.open("/volume/sub\\ok.txt", "wb") as f:  # a backslash is a separator, both ways
                await f.write(b"fine\n")
            assert [n for n in await sftp.listdir("/volume/sub") if n not in (".", "..")] == ["ok.txt"]
        assert (work / "runs" / "r1" / "keep.txt").read_bytes() == KEEP
        assert sorted(p.name for p in (work / "runs" / "r1").iterdir()) == ["keep.txt"]
        assert (work / "data.txt").read_bytes() == b"data\n" and not (work / "to-runs").is_symlink()
        assert (work / "sub" / "ok.txt").read_bytes() == b"fine\n"
    finally:
        await conn.close()
    await api.stop_session("sftp-paths", s.id)
    await wait_phase(api, "sftp-paths", s.id, {"stopped"})
    assert (root / "runs" / "r1" / "keep.txt").read_bytes() == KEEP
    assert (root / "sub" / "ok.txt").read_bytes() == b"fine\n"
