"""Local platform: dispatch -> COMPLETED for the walkthrough, against the bare trainer as baseline.

    uv run python bench/local_platform.py            # walkthrough + 300-step run (seq_len 512)
    uv run python bench/local_platform.py --quick    # walkthrough only
    uv run python bench/local_platform.py --full     # the 300-step run at the walkthrough's seq_len 2048

1. A real ``primetui local serve --demo`` (subprocess, no speed-up: the platform's own scheduling
   delays count) gets the walkthrough's sft.toml through HTTP exactly as ``prime train sft.toml
   --volume research`` sends it; the clock runs from the POST until R2 says COMPLETED.
2. Baseline, side by side: the same config run by the bare trainer process
   (``python -m primetui.local.trainer``) with no server around it.
3. A 300-step run with a higher LR (3e-3) shows the loss falling (first vs last values).
Numbers go to stdout as Markdown rows for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from primetui.local.testing import LocalPlatform  # noqa: E402


def dispatch_and_wait(api: httpx.Client, config: dict, volume: str = "research") -> tuple[str, float]:
    t0 = time.perf_counter()
    reply = api.post("/training/runs", json={"config": config, "mode": "sft", "volume": volume})
    reply.raise_for_status()
    run_id = reply.json()["runId"]
    while True:
        run = api.get(f"/rft/runs/{run_id}").json()["run"]
        if run["status"] in ("COMPLETED", "FAILED", "STOPPED"):
            break
        time.sleep(0.1)
    elapsed = time.perf_counter() - t0
    if run["status"] != "COMPLETED":
        raise SystemExit(f"run {run_id} ended {run['status']}: {run.get('errorMessage')}")
    return run_id, elapsed


def losses(api: httpx.Client, run_id: str) -> list[float]:
    return [m["loss/mean"] for m in api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]]


def bare_trainer(lp: LocalPlatform, config: dict, work: Path) -> float:
    """The same run with no server: config.json written by hand, the trainer timed as a process."""
    run_dir = work / "bare-run"
    run_dir.mkdir(parents=True)
    cache = tomllib.loads((lp.data_dir / "models.toml").read_text())
    standin = next(m["standin"] for m in cache["models"] if m["name"] == config["model"]["name"])
    volume_dir = lp.data_dir / "volumes" / "research"
    (run_dir / "config.json").write_text(
        json.dumps(
            {
                "run_id": "bare",
                "config": config,
                "volume_dir": str(volume_dir),
                "output_dir": str(work / "bare-out"),
                "model": {"name": config["model"]["name"], "standin": standin},
                "resume_from": None,
            }
        )
    )
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "primetui.local.trainer", "--run-dir", str(run_dir)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the walkthrough only")
    parser.add_argument("--full", action="store_true", help="300-step run at seq_len 2048 (slow)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True, speed=None) as lp:
        walkthrough = tomllib.loads((lp.data_dir / "sft.toml").read_text())
        with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=60) as api:
            run_id, platform_s = dispatch_and_wait(api, walkthrough)
            series = losses(api, run_id)
            bare_s = bare_trainer(lp, walkthrough, Path(tmp))
            assert len(series) == 10 and all(math.isfinite(x) for x in series)
            print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
            print("| run | dispatch -> COMPLETED | bare trainer (baseline) | platform overhead |")
            print("|---|---|---|---|")
            print(
                f"| walkthrough, 10 steps, lr 2e-5, seq_len 2048, batch 8 | {platform_s:.1f} s | {bare_s:.1f} s "
                f"| {platform_s - bare_s:+.1f} s ({platform_s / bare_s:.2f}x) |"
            )
            print()
            print("walkthrough loss/mean per step: " + ", ".join(f"{x:.4f}" for x in series))
            if args.quick:
                return
            long_cfg = json.loads(json.dumps(walkthrough))
            long_cfg["max_steps"] = 300
            long_cfg["optim"]["lr"] = 3e-3
            long_cfg["ckpt"] = {"interval": 100, "keep_last": 1}
            if not args.full:
                long_cfg["data"]["seq_len"] = 512
            run_id, long_s = dispatch_and_wait(api, long_cfg)
            series = losses(api, run_id)
            picks = [1, 10, 50, 100, 200, 300]
            print()
            print(
                f"300 steps, lr 3e-3, seq_len {long_cfg['data']['seq_len']}, batch 8: dispatch -> COMPLETED "
                f"{long_s:.1f} s; loss/mean at steps {', '.join(map(str, picks))}: "
                + " -> ".join(f"{series[s - 1]:.3f}" for s in picks)
                + f"; first 10 mean {sum(series[:10]) / 10:.3f}, last 10 mean {sum(series[-10:]) / 10:.3f}"
            )


if __name__ == "__main__":
    main()
