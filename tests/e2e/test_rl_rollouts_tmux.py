"""The RL tabs in a real terminal (tmux): `primetui run RUN` on a finished reverse-text RL run, the
Rollouts tab read through the real key path (step keys, the diff), then the Distributions tab (the
heat strip, an overlay). Asserted on `tmux capture-pane`; the platform is the suite's local one."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_dashboard_tmux import Tmux
from tests.local.rl_run import demo_rl_run

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is needed"),
]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rl_run(local_platform) -> dict[str, Any]:
    return demo_rl_run(local_platform)


def test_rollouts_and_distributions_through_the_real_terminal(local_platform, rl_run, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PRIMETUI_CONFIG_DIR": str(tmp_path / "cfg"),
        "PRIME_BASE_URL": local_platform.base_url,
        "PRIME_API_KEY": local_platform.token,
        "TERM": "xterm-256color",
        "PATH": os.environ["PATH"],
    }
    command = " ".join(f"{k}={v}" for k, v in env.items()) + f" {sys.executable} -m primetui run {rl_run['id']}"
    tmux = Tmux(f"primetui-rl-e2e-{os.getpid()}-{time.monotonic_ns()}")
    tmux.run("new-session", "-d", "-s", tmux.target, "-x", "120", "-y", "36", "-c", str(ROOT), f"env -i {command}")
    try:
        tmux.wait("Distributions", limit=90)
        tmux.keys("6")
        tmux.wait("Step 20 (2/2) · live · 128 samples · 8 groups", "Problem", "Signal", "lcs=", limit=60)
        tmux.keys("v")
        tmux.wait("Diff against the answer (ratio")
        tmux.keys("[")
        tmux.wait("Step 10 (1/2)")
        tmux.keys("7")
        screen = tmux.wait("Rewards · step 20 (20/20)", limit=60)
        tmux.wait("All steps (x: step 1–20", limit=60)
        tmux.keys("o", "Left")
        screen = tmux.wait("overlay 20", "step 19 (19/20)", "▲", "△")
        assert "Traceback" not in screen
    finally:
        tmux.run("kill-server")
