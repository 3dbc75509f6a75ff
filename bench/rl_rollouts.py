"""The Rollouts tab on a step of 1,024 samples with 4 KB completions, in the real dashboard in a pty.

    uv run python bench/rl_rollouts.py            # prints the table for docs/performance.md
    uv run python bench/rl_rollouts.py --write    # and writes it there

What runs: a local platform (its own temp data dir) and a real reverse-text RL run on it (10 steps,
batch 128 in groups of 16: its samples at step 10, 128 rollouts of ~100 characters). Into that
run's ``samples/`` folder the bench then writes one more step, 1000, in the file protocol's row
shape (RL-FILES): 1,024 rollouts in 64 groups of 16, each completion 4,096 characters (its prompt
and answer too), ~24 KB a row with the trajectory; the platform serves it page by page like any
step. The dashboard (``primetui run RUN``, the same app a user opens) runs in a pty of 120x36 and is
driven by keys, as a user would:

- open: ``6`` (the Rollouts tab, which opens on the latest step: 1000) until the status line says
  ``1,024 samples`` (11 pages of 100 read, grouped, drawn); the time to the first groups drawn too;
- scroll the groups: ``down`` 63 times, each until the detail names the next problem (its
  completions listed, the best one's 4 KB text laid out);
- scroll the completions: ``tab``, then ``down`` 15 times in the group, each until the detail names
  the next sample;
- the baseline, in the same app: ``[`` to step 10 (128 short rollouts, two pages), the same
  measures on its 8 groups.

Key latencies are from writing the key to the pty until the drawn screen shows the change. CPU is
the app process's user + system time over each phase.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ptyapp import PtyApp, cpu_seconds  # noqa: E402

from primetui.local.testing import LocalPlatform  # noqa: E402
from tests.local.conftest import http, wait_status  # noqa: E402
from tests.local.rl_run import REVERSE_TEXT_RL  # noqa: E402

BIG_STEP, GROUPS, GROUP_SIZE, CHARS = 1000, 64, 16, 4096
SYSTEM = "Reverse the text character-by-character. Put your answer in <reversed_text> tags."
WORDS = (
    "the river library village cathedral railway observatory island harbour mountain university market "
    "lighthouse bridge garden canal built rebuilt known restored opened surveyed"
).split()
DOWN, BACK_TAB = "\x1b[B", "\x1b[Z"


def paragraph(seed: int, n: int) -> str:
    out, i = [], seed
    while sum(len(w) + 1 for w in out) < n:
        out.append(WORDS[(i * 7 + len(out) * 3) % len(WORDS)])
        i += 1
    return " ".join(out)[:n]


def big_step_rows(run_id: str) -> list[str]:
    """1,024 rows of step ``BIG_STEP`` in RL-FILES' shape (decoded JSON columns); group g's mean reward falls with g."""
    rows = []
    for g in range(GROUPS):
        prompt = paragraph(g, CHARS)
        answer = prompt[::-1]
        for k in range(GROUP_SIZE):
            sample_id = g * GROUP_SIZE + k
            reward = round(0.99 - g * 0.01 - k * 0.0004, 6)
            text = f"<reversed_text>\n{answer[: CHARS - 40 - k]}x{k}\n</reversed_text>"
            messages = [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": prompt},
                {"role": "assistant", "content": text},
            ]
            rows.append(
                json.dumps(
                    {
                        "run_id": run_id,
                        "step": BIG_STEP,
                        "tag": "",
                        "problem_id": g,
                        "sample_id": sample_id,
                        "prompt": "",
                        "completion": messages,
                        "trajectory": [
                            {
                                "messages": messages,
                                "num_input_tokens": len(prompt),
                                "num_output_tokens": len(text),
                                "advantage": 0.0,
                            }
                        ],
                        "answer": "",
                        "env_name": "reverse-text",
                        "task": {"idx": g, "prompt": prompt, "system_prompt": SYSTEM, "answer": answer},
                        "info": {
                            "native_trace_index": 0,
                            "native_wrapper": {
                                "env": {"id": "reverse-text"},
                                "traces": [
                                    {
                                        "rewards": {"lcs": {"score": reward, "weight": 1.0}},
                                        "stop_condition": "single_turn",
                                        "is_truncated": False,
                                    }
                                ],
                            },
                        },
                        "reward": reward,
                        "advantage": round((GROUP_SIZE - 1) / 2 * 0.0004 - k * 0.0004, 6),
                        "metrics": {},
                        "timing": {},
                        "num_input_tokens": len(prompt) + len(SYSTEM),
                        "num_output_tokens": len(text),
                        "created_at": "2026-12-06T09:00:00Z",
                    }
                )
            )
    return rows


def write_big_step(run_dir: Path, run_id: str) -> int:
    folder = run_dir / "samples"
    tmp = folder / f".step_{BIG_STEP:06d}.jsonl.tmp"
    data = "\n".join(big_step_rows(run_id)) + "\n"
    tmp.write_text(data, encoding="utf-8")
    os.replace(tmp, folder / f"step_{BIG_STEP:06d}.jsonl")  # whole or not at all, as the protocol says
    return len(data.encode())


DETAIL = re.compile(r"Step (\d+) · problem (\d+) · sample (\d+)")


def shown(app: PtyApp) -> tuple[str, ...] | None:
    """(step, problem, sample) the detail names now."""
    match = DETAIL.search(app.text())
    return match.groups() if match else None


def key_latencies(app: PtyApp, key: str, presses: int, part: int) -> list[float]:
    """Per press of ``key``: the time until the detail names another problem (``part`` 1) or sample (2)."""
    out = []
    for _ in range(presses):
        before = shown(app)
        t0 = time.monotonic()
        app.send(key)
        app.wait_for(
            lambda _s, was=before: (now := shown(app)) is not None and was is not None and now[part] != was[part],
            timeout=60,
            label="the next row in the detail",
        )
        out.append(time.monotonic() - t0)
    return out


def phase(app: PtyApp, step: int, samples: str, groups: int) -> dict:
    """Open ``step`` (its key just sent), then scroll its groups and one group's completions."""
    cpu0, t0 = cpu_seconds(app.pid), time.monotonic()
    app.wait_for(
        lambda s: f"Step {step} " in s and (d := shown(app)) is not None and d[0] == str(step),
        label=f"step {step}'s first group",
    )
    first = time.monotonic() - t0
    app.wait_for(lambda s: f"Step {step} " in s and f"· {samples} samples" in s, label=f"all of step {step}")
    opened = time.monotonic() - t0
    groups_lat = key_latencies(app, DOWN, groups - 1, 1)  # the groups table holds the keys
    app.send("\t")  # to the completions
    comp_lat = key_latencies(app, DOWN, GROUP_SIZE - 1, 2)
    app.send(BACK_TAB)  # back to the groups for the next phase
    cpu = cpu_seconds(app.pid) - cpu0
    return {"first": first, "open": opened, "groups": groups_lat, "completions": comp_lat, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the section into docs/performance.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="primetui-bench-rl-") as tmp:
        lp = LocalPlatform.start(tmp, demo=True)
        try:
            config = tomllib.loads(REVERSE_TEXT_RL)
            config["max_steps"] = 10
            with http(lp) as c:
                reply = c.post("/training/runs", json={"config": config, "name": "bench-rollouts"})
                reply.raise_for_status()
                run_id = reply.json()["runId"]
                run = wait_status(c, run_id, timeout=300)
                assert run["status"] == "COMPLETED", run
            size = write_big_step(lp.data_dir / "runs" / run_id, run_id)
            result = drive(lp, run_id, tmp)
        finally:
            lp.stop()
    print(report(result, size))
    if args.write:
        write_section(report(result, size))


def drive(lp: LocalPlatform, run_id: str, tmp: str) -> dict:
    env = dict(
        os.environ,
        HOME=str(Path(tmp) / "home"),
        PRIMETUI_CONFIG_DIR=str(Path(tmp) / "cfg"),
        PRIME_BASE_URL=lp.base_url,
        PRIME_API_KEY=lp.token,
    )
    Path(env["HOME"]).mkdir(exist_ok=True)
    exe = str(Path(sys.executable).parent / "primetui")
    with PtyApp([exe, "run", run_id], env, cols=120, rows=36) as app:
        app.wait_for(lambda s: "Distributions" in s, timeout=120, label="the run's tabs")
        app.wait_quiet(1.0)
        app.send("6")
        big = phase(app, BIG_STEP, "1,024", GROUPS)
        app.send("[")
        small = phase(app, 10, "128", 8)
        return {"big": big, "small": small, "load": os.getloadavg(), "cores": os.cpu_count()}


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms (max {max(values) * 1000:.0f})"


def report(r: dict, size: int) -> str:
    big, small = r["big"], r["small"]
    load = " ".join(f"{x:.2f}" for x in r["load"])
    return "\n".join(
        [
            "## RL: the Rollouts tab on a big step",
            "",
            f"A step of 1,024 rollouts with 4 KB completions (64 groups of 16, {size / 1e6:.1f} MB as the platform "
            f"stores",
            "it) next to a real reverse-text step of 128 short rollouts (the baseline), in the real dashboard in a "
            "pty of",
            "120x36, driven by keys. Reproduce with `uv run python bench/rl_rollouts.py` (what it does is in its "
            "docstring).",
            "",
            "The tab is usable from its first page: the groups of the first 100 rows are drawn and take keys while the",
            "other pages arrive (the status line counts them), and a key moves to the next group or completion in "
            "about",
            "the time it takes on the small step (the detail lays out one completion, the lists are tables of a few "
            "dozen",
            "rows); on a machine this loaded every number is inflated, so read the ratios.",
            "",
            "| measure | 1,024 x 4 KB | 128 short (baseline) | ratio |",
            "|---|---|---|---|",
            f"| key to the first groups drawn | {big['first'] * 1000:.0f} ms | {small['first'] * 1000:.0f} ms | "
            f"{big['first'] / small['first']:.1f}x |",
            f"| key to every sample read and grouped | {big['open'] * 1000:.0f} ms | {small['open'] * 1000:.0f} ms | "
            f"{big['open'] / small['open']:.1f}x |",
            f"| next group (down), median | {_ms(big['groups'])} | {_ms(small['groups'])} | "
            f"{statistics.median(big['groups']) / statistics.median(small['groups']):.1f}x |",
            f"| next completion (down), median | {_ms(big['completions'])} | {_ms(small['completions'])} | "
            f"{statistics.median(big['completions']) / statistics.median(small['completions']):.1f}x |",
            f"| app CPU over the phase | {big['cpu']:.2f} s | {small['cpu']:.2f} s | |",
            "",
            f"Machine: {r['cores']} cores, load average {load} at the end of the run.",
            "",
        ]
    )


def write_section(text: str, heading: str = "## RL: the Rollouts tab on a big step") -> None:
    path = ROOT / "docs" / "performance.md"
    doc = path.read_text(encoding="utf-8")
    if heading in doc:
        start = doc.index(heading)
        end = doc.find("\n## ", start + len(heading))
        doc = doc[:start] + text + (doc[end + 1 :] if end != -1 else "")
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    path.write_text(doc, encoding="utf-8")


if __name__ == "__main__":
    main()
