"""The runs list over every run: load time and key-to-screen latency at 10,000 runs, beside one page of 20.

    uv run python bench/all_runs.py                     # 10,000 runs, then a platform with 20
    uv run python bench/all_runs.py --runs 2000 --ab /tmp/old/src   # also another checkout's code
    uv run python bench/all_runs.py --write             # also replace the section in docs/performance.md

Starts a local platform (``primetui local serve`` on 127.0.0.1, its own data dir, no demo) and
stores ``--runs`` ended runs in it at once (``LocalPlatform.insert_runs``, the row dispatch stores),
named as sweeps of six (``s0001-lr3e-4-bs16``). Then runs the real ``primetui runs`` in a pty of
its own (120x35, TERM=xterm-256color, bench/ptyapp.py) and measures, on what the terminal shows
(a pyte screen):

- load: from the start until the info line says every run is there (``N runs``, no ``of N loaded``);
- per key, from writing the key to the pty until the screen shows its effect (the time of the read
  that first made it true): each character of a sweep prefix typed in the ``/`` filter (the info
  line names the filter so far), ``esc`` (the filter gone), ``]`` (page 2), ``s`` and ``S`` (sorted
  by a column, then reversed).

The baseline is the same keys on a platform holding one page of 20 runs (what the list drew before
it read every run: one page of 20). With ``--ab OTHER/src`` the 10,000-run scene also runs another
checkout's code (``PYTHONPATH``); a list of one page there filters only its 20 runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from first_frame import BIN, env_for  # noqa: E402
from ptyapp import PtyApp  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Runs list: every run"
LRS = ("1e-4", "3e-4", "1e-3")
BATCHES = (8, 16)


def sweep_names(n: int) -> list[str]:
    """``n`` run names, oldest first, as sweeps of six (learning rate x batch size)."""
    return [f"s{i // 6:04d}-lr{LRS[i % 6 // 2]}-bs{BATCHES[i % 2]}" for i in range(n)]


def key_to_screen(app: PtyApp, key: str, shown: Callable[[str], bool], timeout: float = 30.0) -> float:
    """Seconds from writing ``key`` to the first read after which the screen satisfies ``shown``."""
    hit: list[float] = []

    def check(at: float, screen) -> None:
        if not hit and shown("\n".join(screen.display)):
            hit.append(at)

    app.after_feed = check
    t0 = time.monotonic()
    app.send(key)
    deadline = t0 + timeout
    while not hit and time.monotonic() < deadline:
        time.sleep(0.005)
    app.after_feed = None
    if not hit:
        raise RuntimeError(f"key {key!r}: the screen never showed its effect:\n{app.text()}")
    return hit[0] - t0


def scene(exe: str, env: dict[str, str], total: int, prefix: str, label: str) -> dict[str, object]:
    """Start the list, wait until every run is loaded, then time each key."""
    t0 = time.monotonic()
    with PtyApp([exe, "runs"], env, cols=120, rows=35) as app:
        app.wait_for(lambda s: f"{total} runs" in s and " loaded" not in s, timeout=600, label=f"{label}: all runs")
        load = time.monotonic() - t0
        app.wait_quiet(2.0)
        keys: list[tuple[str, float]] = []
        keys.append(("/", key_to_screen(app, "/", lambda s: "filter: words" in s)))
        typed = ""
        for ch in prefix:
            typed += ch
            keys.append((ch, key_to_screen(app, ch, lambda s, t=typed: f"filter “{t}”" in s)))
        found = app.text()
        keys.append(("esc", key_to_screen(app, "\x1b", lambda s: "filter “" not in s)))
        app.wait_quiet(1.0)
        if total > 20:
            keys.append(("]", key_to_screen(app, "]", lambda s: "page 2/" in s)))
        keys.append(("s", key_to_screen(app, "s", lambda s: "▲" in s)))
        keys.append(("S", key_to_screen(app, "S", lambda s: "▼" in s)))
    return {"label": label, "load": load, "keys": keys, "found": found}


def fmt(result: dict[str, object]) -> str:
    keys = result["keys"]
    ms = [1000 * t for _, t in keys]  # type: ignore[union-attr]
    each = ", ".join(f"`{k}` {1000 * t:.0f}" for k, t in keys)  # type: ignore[union-attr]
    return f"| {result['label']} | {result['load']:.1f} s | {statistics.median(ms):.0f} / {max(ms):.0f} ms | {each} |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--ab", help="another checkout's src/ to run on the big platform too")
    ap.add_argument("--ab-label", default="one page at a time (--ab)", help="how the table names the --ab code")
    ap.add_argument("--write", action="store_true", help="replace the section in docs/performance.md")
    args = ap.parse_args()
    from primetui.local.testing import LocalPlatform

    exe = str(BIN / "primetui")
    prefix = "s0001-"  # the second-oldest sweep: on the last page of the list
    load_start = os.getloadavg()
    results = []
    for total in (args.runs, 20):
        with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=False) as lp:
            lp.insert_runs(sweep_names(total))
            env = env_for(lp, tmp)
            env["PRIMETUI_CACHE_DIR"] = os.path.join(tmp, "cache")
            wanted = prefix
            result = scene(exe, env, total, wanted, f"{total:,} runs")
            result["sweep"] = f"filter “{wanted}”: 6 shown" in str(result["found"])
            results.append(result)
            if args.ab and total > 20:
                old = dict(env, PYTHONPATH=args.ab)
                try:
                    results.append(scene(exe, old, total, wanted, f"{total:,} runs, {args.ab_label}"))
                except RuntimeError as exc:  # a list of one page never says every run is loaded
                    print(f"--ab: {str(exc).splitlines()[0]}")
    load_end = os.getloadavg()
    lines = [
        "| Runs on the platform | All loaded after | Key to screen, median / worst | Each key (ms) |",
        "|---|---|---|---|",
        *[fmt(r) for r in results],
    ]
    sweep = ", ".join(f"{r['label']}: {'all 6' if r.get('sweep') else 'NOT all 6'}" for r in results if "sweep" in r)
    cores = os.cpu_count()
    notes = [
        f"Sweep prefix filter finds: {sweep}.",
        f"{cores} cores, load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end.",
    ]
    table = "\n".join(lines + [""] + notes)
    print(table)
    if args.write:
        doc = ROOT / "docs" / "performance.md"
        text = doc.read_text()
        start = text.index(SECTION)
        body_start = text.index("<!-- all-runs:start -->", start)
        body_end = text.index("<!-- all-runs:end -->", start)
        doc.write_text(text[:body_start] + "<!-- all-runs:start -->\n" + table + "\n" + text[body_end:])


if __name__ == "__main__":
    main()
