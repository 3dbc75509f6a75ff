"""Issue 40: an RL run in the real terminal (tmux), at 80x24: its Overview says Trainable k/n, its Charts tab draws the
reward and says the trainer log's charts' source."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_dashboard_tmux import ROOT, Tmux
from tests.local.conftest import http, wait_status
from tests.ui.test_rl_dashboard import dispatch_rl

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]


def test_an_rl_run_in_the_real_terminal(local_platform, tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    with http(local_platform) as c:
        run_id = dispatch_rl(c, "rt-rl-in-tmux", 3e-6)
        assert wait_status(c, run_id, timeout=180)["status"] == "COMPLETED"
    env = {
        "HOME": str(tmp_path / "home"),
        "PRIMETUI_CONFIG_DIR": str(tmp_path / "config"),
        "TERM": "xterm-256color",
        "PRIME_BASE_URL": local_platform.base_url,
        "PRIME_API_KEY": local_platform.token,
        "PATH": os.environ["PATH"],
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv"),
    }
    (tmp_path / "home").mkdir()
    tmux = Tmux(f"primetui-rl-{os.getpid()}")
    command = " ".join(f"{k}={v}" for k, v in env.items()) + f" uv run primetui run {run_id}"
    try:
        tmux.run("new-session", "-d", "-s", tmux.target, "-x", "80", "-y", "24", "-c", str(ROOT), f"env -i {command}")
        tmux.wait("Trainable", limit=90)
        tmux.wait("128/128", "16 per prompt / 128 rollouts", "reverse-text", limit=60)
        tmux.keys("4")  # the Charts tab
        # 12 charts at 80x24: the grid scrolls; the status line says where the trainer's numbers come from.
        screen = tmux.wait("reward (mean, p10–p90)", "12 charts", "trainer log charts", "reward fn lcs", limit=30)
        assert "Traceback" not in screen
    finally:
        tmux.run("kill-server")
