"""How closely ``primetui wait --timeout T`` keeps its word: wall time from spawn to exit, minus T.

Against a real local platform with one long run, each sample is a fresh ``python -m primetui wait``
(so the interpreter's start-up is inside the figure, as a CI job sees it), in three situations:

- ``sleep``: ``--interval 60``, so the deadline falls inside the wait between polls;
- ``polls``: ``--interval 0.3``, so the deadline falls among frequent polls;
- ``hang``: every request to the platform hangs (a loopback proxy that answers after 120 s), so the
  deadline falls inside a poll's HTTP request.

Prints the overshoot (wall - T) per sample and the median and maximum of each situation.

    uv run python bench/wait_timeout.py [--timeout 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from primetui.local.testing import LocalPlatform  # noqa: E402
from tests.api.faultproxy import FaultProxy  # noqa: E402
from tests.ops.script_helpers import long_run  # noqa: E402


def sample(base_url: str, token: str, run_id: str, timeout: float, interval: float, home: Path) -> float:
    env = dict(
        os.environ,
        HOME=str(home),
        PRIME_BASE_URL=base_url,
        PRIME_API_KEY=token,
        PRIMETUI_CONFIG_DIR=str(home / "cfg"),
        PRIMETUI_LOG_DIR=str(home / "log"),
    )
    for key in ("PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID"):
        env.pop(key, None)
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "primetui",
            "wait",
            run_id,
            "--json",
            "--timeout",
            str(timeout),
            "--interval",
            str(interval),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    wall = time.monotonic() - start
    if proc.returncode != 2:
        raise SystemExit(f"expected exit 2 (timed out), got {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return wall - timeout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(Path(tmp) / "lp", demo=True) as lp:
        home = Path(tmp) / "home"
        home.mkdir()
        run_id = long_run(lp)
        results: dict[str, list[float]] = {"sleep": [], "polls": [], "hang": []}
        try:
            with FaultProxy(lp.base_url, rate=1.0, kinds=("stall",), stall_seconds=120) as proxy:
                for _ in range(opts.repeats):  # interleaved, so machine load hits each situation alike
                    results["sleep"].append(sample(lp.base_url, lp.token, run_id, opts.timeout, 60.0, home))
                    results["polls"].append(sample(lp.base_url, lp.token, run_id, opts.timeout, 0.3, home))
                    results["hang"].append(sample(proxy.base_url, lp.token, run_id, opts.timeout, 0.3, home))
        finally:
            httpx.put(f"{lp.api_url}/rft/runs/{run_id}/stop", headers=lp.headers, timeout=30)
    print(f"wait --timeout {opts.timeout:g}: overshoot = wall time from spawn to exit - timeout (s)")
    for name, values in results.items():
        shown = ", ".join(f"{v:+.3f}" for v in values)
        print(f"  {name:<6} median {statistics.median(values):+.3f}  max {max(values):+.3f}   ({shown})")


if __name__ == "__main__":
    main()
