"""Figures of the local RL run: ``uv run python -m primetui.local.trainer.rl.bench``.

Runs prime-rl's three example configs and the reverse-text example with a much too large lr the
way the platform does (a subprocess on a run dir) and prints a Markdown table: wall time from
process start to completed, the median orchestrator step, the mean reward of the first and last
three steps, and the trainer's entropy at steps 1, 5 and the last.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from primetui.local.trainer import testing as tt

REWARD = "train/agg/effective/agent/reward/mean"
ENTROPY = re.compile(r"SUCCESS Step (\d+) .*\| Entropy ([\d.]+) \|")
CASES = {
    "reverse-text example (lr 3e-6)": ("reverse-text", {}),
    "nightly file (lr 1e-6, the default)": ("nightly", {}),
    "multi-env with eval (lr 3e-6)": ("multi-env", {}),
    "reverse-text, lr 1e-4 (too large)": ("reverse-text", {"trainer": {"optim": {"lr": 1e-4}}}),
}


def _entropy(run_dir: Path) -> dict[int, float]:
    text = (run_dir / "logs" / "trainer.log").read_text()
    return {int(m.group(1)): float(m.group(2)) for m in ENTROPY.finditer(text)}


def _row(root: Path, label: str, example: str, overrides: dict) -> str:
    run_dir = root / re.sub(r"\W+", "-", label)
    tt.write_run_dir(run_dir, tt.rl_example(example, **overrides), volume_dir=None, run_id=run_dir.name)
    t0 = time.perf_counter()
    if tt.run(run_dir, timeout=600) != 0:
        raise SystemExit(f"{label} failed: {tt.status(run_dir).get('error')}")
    wall = time.perf_counter() - t0
    reward = tt.series(run_dir, REWARD)
    steps = sorted(reward)
    first, last = (statistics.mean(reward[s] for s in part) for part in (steps[:3], steps[-3:]))
    median = statistics.median(tt.series(run_dir, "time/step").values()) * 1000
    ent = _entropy(run_dir)
    return (
        f"| {label} | {len(steps)} | {wall:.2f} s | {median:.0f} ms | {first:.3f} -> {last:.3f} | "
        f"{ent[1]:.2f} / {ent[5]:.2f} / {ent[steps[-1]]:.2f} |"
    )


def main() -> int:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(
        "| config | steps | wall time (start -> completed) | median step | reward, first 3 -> last 3 steps | "
        "entropy at steps 1 / 5 / last |"
    )
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="primetui-rl-bench-") as tmp:
        for label, (example, overrides) in CASES.items():
            print(_row(Path(tmp), label, example, overrides), flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
