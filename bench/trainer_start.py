"""Local platform: what starting a trainer costs, forked from the fork server against a fresh interpreter.

    uv run python bench/trainer_start.py            # 8 one-step runs each way
    uv run python bench/trainer_start.py --runs 20

For each way (``PRIMETUI_LOCAL_TRAINER_FORKS`` on, the product's default, and ``0``, every trainer a fresh
interpreter, the baseline), in the same invocation: a real ``primetui local serve`` trains ``--runs``
one-step runs of the walkthrough on short rows, one after the other, each from its dispatch to COMPLETED.
The CPU is that of the platform and every process under it over its whole life (the bench's reaped
children), less that of a platform that trained nothing; the wall time is the median from a dispatch to
COMPLETED. Markdown rows for docs/performance.md go to stdout.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from primetui.local.demo import WALKTHROUGH_TOML, reverse_text_rows, write_dataset  # noqa: E402
from primetui.local.testing import LocalPlatform  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_step_config() -> dict:
    config = tomllib.loads(WALKTHROUGH_TOML)
    config["max_steps"] = 1
    config["data"].update(seq_len=256, batch_size=4)
    config.pop("ckpt", None)
    return config


def platform_life(work: Path, forks: bool, runs: int) -> tuple[float, list[float]]:
    """CPU of one platform's life (and all under it) training ``runs`` runs, and each run's wall time."""
    before = children_cpu()
    walls: list[float] = []
    env = {"PRIMETUI_LOCAL_TRAINER_FORKS": "1" if forks else "0"}
    with LocalPlatform.start(work, env=env) as lp:
        with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as api:
            if runs:
                api.post("/training/volumes", json={"name": "research", "size": "1Gi"}).raise_for_status()
                write_dataset(
                    lp.data_dir / "volumes" / "research" / "datasets" / "reverse-text", reverse_text_rows(200)
                )
            for _ in range(runs):
                t0 = time.perf_counter()
                reply = api.post(
                    "/training/runs", json={"config": one_step_config(), "mode": "sft", "volume": "research"}
                )
                reply.raise_for_status()
                run_id = reply.json()["runId"]
                while (run := api.get(f"/rft/runs/{run_id}").json()["run"])["status"] not in ("COMPLETED", "FAILED"):
                    time.sleep(0.02)
                if run["status"] != "COMPLETED":
                    raise SystemExit(f"run {run_id} ended {run['status']}: {run.get('errorMessage')}")
                walls.append(time.perf_counter() - t0)
    return children_cpu() - before, walls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    load = open("/proc/loadavg").read().split()[:3]
    with tempfile.TemporaryDirectory() as tmp:
        idle, _ = platform_life(Path(tmp) / "idle", forks=True, runs=0)
        rows = []
        for forks in (True, False):
            cpu, walls = platform_life(Path(tmp) / f"forks-{forks}", forks, args.runs)
            rows.append((forks, (cpu - idle) / args.runs, statistics.median(walls)))
    print(f"{os.cpu_count()} cores, load average {' '.join(load)} at the start; {args.runs} runs each way\n")
    print("| trainers | CPU per run (platform and all under it) | dispatch -> COMPLETED (median) |")
    print("|---|---|---|")
    for forks, per_run, wall in rows:
        name = "forked from the fork server" if forks else "fresh interpreters (`PRIMETUI_LOCAL_TRAINER_FORKS=0`)"
        print(f"| {name} | {per_run:.2f} s | {wall:.2f} s |")


if __name__ == "__main__":
    main()
