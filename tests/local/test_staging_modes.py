"""The local platform's own copies (staging a volume into a session, the final sync back) keep only
safe permission bits: a setuid file made in a session never lands setuid in the volume folder."""

from __future__ import annotations

import os
import stat

from primetui.local.sessions.staging import stage, sync_back


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_sync_back_and_stage_strip_setuid_and_new_group_write(tmp_path):
    volume, work = tmp_path / "volume", tmp_path / "work"
    volume.mkdir()
    (volume / "shared.txt").write_text("old")
    os.chmod(volume / "shared.txt", 0o664)
    (volume / "suid").write_text("x")
    os.chmod(volume / "suid", 0o4755)
    stage(volume, work, lambda _line: None)
    assert _mode(work / "suid") == 0o755
    (work / "tool").write_text("#!/bin/sh\n")
    os.chmod(work / "tool", 0o6777)
    (work / "shared.txt").write_text("changed in the session")
    os.chmod(work / "shared.txt", 0o666)
    sync_back(work, volume, lambda _line: None)
    assert _mode(volume / "tool") == 0o755
    assert _mode(volume / "shared.txt") == 0o664  # group write kept: the replaced file had it
    assert (volume / "shared.txt").read_text() == "changed in the session"
