"""R11's sample pages on a big RL step: 1,024 rollouts with 4 KB completions, 20 such steps.

    uv run python bench/rl_samples.py [--steps 20] [--rows 1024] [--text 4096]

Writes ``--steps`` sample files the way an RL run writes them (``samples/step_N.jsonl``, whole, then
renamed; synthetic rows in the uploaded row shape, each completion ``--text`` characters, so a step
is ~9 MB) and times the platform's reader (``primetui.local.rl_samples``) as the route calls it:
listing the steps, the first page of a step (which builds its line index), and every later page of
100 rows. Prints the load average, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from primetui.local.rl_samples import SampleFiles, sample_files  # noqa: E402


def row(step: int, i: int, text: str) -> dict:
    messages = [
        {"role": "system", "content": "Reverse the text character-by-character."},
        {"role": "user", "content": text[::-1]},
        {"role": "assistant", "content": text},
    ]
    return {
        "run_id": "bench",
        "step": step,
        "tag": "",
        "problem_id": i // 16,
        "sample_id": i,
        "prompt": "",
        "completion": messages,
        "trajectory": [{"messages": messages}],
        "answer": "",
        "env_name": "reverse-text",
        "task": {"idx": i // 16, "prompt": text[::-1], "answer": text},
        "reward": 0.5,
        "advantage": 0.0,
        "info": {"native_wrapper": {"traces": [{"rewards": {"lcs": {"score": 0.5, "weight": 1.0}}}]}},
        "metrics": {},
        "timing": {},
        "num_input_tokens": len(text),
        "num_output_tokens": len(text),
        "created_at": "2026-12-06T08:00:00Z",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--text", type=int, default=4096)
    args = parser.parse_args()
    run_dir = Path(tempfile.mkdtemp(prefix="rl-samples-"))
    (run_dir / "samples").mkdir()
    text = ("abcdefghij" * (args.text // 10 + 1))[: args.text]
    for n in range(1, args.steps + 1):
        final = run_dir / "samples" / f"step_{10 * n:06d}.jsonl"
        tmp = final.with_name(f".{final.name}.tmp")
        tmp.write_text("".join(json.dumps(row(10 * n, i, text)) + "\n" for i in range(args.rows)))
        os.replace(tmp, final)
    size = (run_dir / "samples" / f"step_{10 * args.steps:06d}.jsonl").stat().st_size
    reader = SampleFiles()
    t0 = time.perf_counter()
    files = sample_files(run_dir)
    listing = time.perf_counter() - t0
    last = files[max(files)]
    t0 = time.perf_counter()
    reader.page(last, 0, 100)
    first = time.perf_counter() - t0
    pages = []
    for offset in range(100, args.rows, 100):
        t0 = time.perf_counter()
        got, total = reader.page(last, offset, 100)
        pages.append(time.perf_counter() - t0)
        assert total == args.rows and got
    print(
        f"{args.steps} steps x {args.rows} rollouts, {size / 1e6:.1f} MB per step; load average "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    print(
        f"list the steps: {listing * 1000:.2f} ms; first page (indexes the step): {first * 1000:.1f} ms; "
        f"later pages of 100: median {statistics.median(pages) * 1000:.1f} ms, max {max(pages) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
