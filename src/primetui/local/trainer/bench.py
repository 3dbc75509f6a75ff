"""Speed figures of the local trainer: ``uv run python -m primetui.local.trainer.bench``.

Runs the trainer process the way the platform does (a subprocess on a run dir) on the demo's
1,000-row reverse-text dataset, with the default stand-in, and prints a Markdown table:

- the walkthrough sft.toml (10 steps, batch 8 x seq_len 2048), process start -> completed;
- the same with a higher LR for 300 steps (loss must clearly fall);
- the walkthrough plus the seed's online-eval block (interval 5), start -> completed after the final eval;
- side by side, the baseline every process pays: a bare ``python -c "import numpy, pyarrow"``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from primetui.local.trainer import testing as tt


def _run(root: Path, name: str, cfg: dict, volume: Path) -> tuple[float, Path]:
    run_dir = root / name
    tt.write_run_dir(run_dir, cfg, volume_dir=volume, run_id=name)
    t0 = time.perf_counter()
    rc = tt.run(run_dir, timeout=1800)
    wall = time.perf_counter() - t0
    if rc != 0:
        raise SystemExit(f"{name} failed: {tt.status(run_dir).get('error')}")
    return wall, run_dir


def _step_times(run_dir: Path) -> list[float]:
    return list(tt.series(run_dir, "time/step").values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.local.trainer.bench")
    parser.add_argument("--long-steps", type=int, default=300)
    parser.add_argument("--long-lr", type=float, default=3e-3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="primetui-bench-") as tmp:
        root = Path(tmp)
        volume = root / "volume"
        tt.write_reverse_text(volume, rows=1000, seed=20260928)

        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy, pyarrow"], check=True)
        baseline = time.perf_counter() - t0

        walk_wall, walk = _run(root, "walkthrough", tt.walkthrough_config(), volume)
        eval_wall, ev = _run(root, "online-evals", tt.walkthrough_config(**tt.online_eval_block(interval=5)), volume)
        long_wall, long = _run(
            root,
            "long",
            tt.walkthrough_config(
                max_steps=args.long_steps, optim={"lr": args.long_lr}, ckpt={"interval": 100, "keep_last": 1}
            ),
            volume,
        )

        def loss_at(run_dir: Path) -> dict[int, float]:
            return tt.series(run_dir, "loss/mean")

        wl, ll = loss_at(walk), loss_at(long)
        rewards = tt.series(ev, "eval/reverse-text/reward/mean")
        print("| case | wall time (process start -> completed) | median step | loss (first -> last) |")
        print("|---|---|---|---|")
        print(f'| baseline: `python -c "import numpy, pyarrow"` | {baseline:.2f} s | - | - |')
        print(
            f"| walkthrough (10 steps, lr 2e-5) | {walk_wall:.2f} s | "
            f"{statistics.median(_step_times(walk)) * 1000:.0f} ms "
            f"| {wl[1]:.4f} -> {wl[max(wl)]:.4f} |"
        )
        print(
            f"| walkthrough + online evals (interval 5) | {eval_wall:.2f} s | "
            f"{statistics.median(_step_times(ev)) * 1000:.0f} ms "
            f"| rewards {', '.join(f'step {k}: {v:.3f}' for k, v in sorted(rewards.items()))} |"
        )
        marks = [s for s in (1, 10, 50, 100, 200, args.long_steps) if s in ll]
        print(
            f"| {args.long_steps} steps, lr {args.long_lr:g} | {long_wall:.1f} s | "
            f"{statistics.median(_step_times(long)) * 1000:.0f} ms "
            f"| {' -> '.join(f'{ll[s]:.3f}' for s in marks)} (steps {', '.join(map(str, marks))}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
