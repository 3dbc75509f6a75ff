"""``primetui serve --local`` collects the local platform it started when that platform stops: no zombie."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.ops.script_helpers import until_gone
from tests.ops.serve_helpers import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_a_stopped_local_platform_is_reaped_by_serve(local_platform, tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("PRIMETUI_LOCAL_DATA_DIR", str(data))
    with serve(local_platform, tmp_path, "--local", keep_local_dir=True) as served:
        pid = int(json.loads((data / "server.json").read_text())["pid"])
        parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert parent == served.proc.pid, "the platform is not serve's child: nothing tests the reaping"
        os.kill(pid, signal.SIGTERM)
        until_gone(pid, "primetui serve left the platform it started as a zombie")
        assert served.proc.poll() is None, "serve must keep serving the tabs"
