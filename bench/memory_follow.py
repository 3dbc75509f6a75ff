"""Memory over a long session: RSS while following a log, and across run screens opened and closed.

    uv run python bench/memory_follow.py                     # 4 minutes of following, 50 cycles
    uv run python bench/memory_follow.py --minutes 2 --cycles 20
    uv run python bench/memory_follow.py --baseline /tmp/old/src   # the same against another tree

Starts a local platform with one run training for hours (the walkthrough with 100,000 steps) and a
``LogFlood`` adding 15 numbered lines/s to its trainer log. Then, side by side in the same run, two
copies of the dashboard in ptys of their own (120x35, bench/ptyapp.py): this tree, and a baseline
tree (``--baseline``: a ``src`` directory, e.g. ``git archive main src | tar -x -C /tmp/old``; by
default this tree again with the memory budget off, ``log_memory_lines`` at its maximum).

1. Follow: each opens the run on its Logs tab and follows it for ``--minutes``; RSS (/proc VmRSS)
   is sampled every 10 s. The growth rate is the least-squares slope after the first minute, and an
   8-hour follow is projected as the last sample plus that slope over the remaining time (a straight
   line: the budget's plateau is not assumed).
2. Cycles: each, from the runs list, opens the run's screen (enter), waits for its Logs tab to
   show the flood, and closes it (escape), ``--cycles`` times; RSS before, after and the growth per
   cycle over the second half.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from first_frame import env_for  # noqa: E402
from idle import running_run  # noqa: E402
from ptyapp import PtyApp  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RATE = 15.0
SAMPLE = 10.0
HOURS = 8.0
TARGET_MB = 300.0


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


async def stop_run(lp, run_id: str) -> None:
    from primetui.api.client import PrimeClient

    async with PrimeClient(lp.base_url, lp.token) as c:
        await c.stop_run(run_id)


def slope_per_min(samples: list[tuple[float, float]]) -> float:
    """Least-squares MB per minute over (seconds, MB) samples."""
    xs = [t / 60 for t, _ in samples]
    ys = [m for _, m in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


class Variant:
    def __init__(self, name: str, src: Path, env: dict[str, str]) -> None:
        self.name = name
        self.env = dict(env, PYTHONPATH=str(src))
        self.follow: list[tuple[float, float]] = []
        self.cycles: list[float] = []
        self.error: str | None = None

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "primetui", *args]

    def run_follow(self, run_id: str, seconds: float) -> None:
        with PtyApp(self.argv("run", run_id), self.env) as app:
            app.wait_for(lambda s: "RUNNING" in s, timeout=120, label=f"{self.name}: the run")
            app.send("3")
            app.wait_for(lambda s: "flood mem" in s, timeout=120, label=f"{self.name}: the flooded log")
            t0 = time.monotonic()
            while (now := time.monotonic() - t0) <= seconds:
                self.follow.append((now, rss_mb(app.pid)))
                time.sleep(SAMPLE - (time.monotonic() - t0) % SAMPLE)

    def run_cycles(self, run_id: str, cycles: int) -> None:
        short = run_id[:8]
        with PtyApp(self.argv("runs"), self.env) as app:
            app.wait_for(lambda s: short in s, timeout=120, label=f"{self.name}: the runs list")
            app.wait_quiet(2.0, timeout=60)
            self.cycles.append(rss_mb(app.pid))
            for _ in range(cycles):
                app.send("\r")
                app.wait_for(
                    lambda s: "Overview" in s and "Logs" in s, timeout=120, label=f"{self.name}: the run screen"
                )
                app.send("3")
                app.wait_for(lambda s: "flood mem" in s, timeout=120, label=f"{self.name}: its Logs tab")
                app.send("\x1b")
                app.wait_for(
                    lambda s: "Overview" not in s and short in s, timeout=120, label=f"{self.name}: back on the list"
                )
                app.wait_quiet(1.0, timeout=60)
                self.cycles.append(rss_mb(app.pid))

    def go(self, run_id: str, seconds: float, cycles: int) -> None:
        try:
            self.run_follow(run_id, seconds)
            if cycles:
                self.run_cycles(run_id, cycles)
        except Exception as exc:  # noqa: BLE001 - reported with the figures
            self.error = str(exc).splitlines()[0]

    def report(self, seconds: float) -> list[str]:
        out = [f"**{self.name}**" + (f" (stopped early: {self.error})" if self.error else "")]
        after = [s for s in self.follow if s[0] >= 60] or self.follow
        if len(after) >= 2:
            rate = slope_per_min(after)
            last_t, last = self.follow[-1]
            projected = last + max(rate, 0.0) * (HOURS * 60 - last_t / 60)
            verdict = "under" if projected < TARGET_MB else "OVER"
            out.append(
                f"- follow, {RATE:.0f} lines/s for {seconds / 60:.1f} min: RSS {self.follow[0][1]:.1f} → "
                f"{last:.1f} MB, {rate:+.2f} MB/min after the first minute; an {HOURS:.0f}-hour follow projects to "
                f"{projected:.0f} MB ({verdict} {TARGET_MB:.0f} MB)"
            )
            tail = [s for s in self.follow if s[0] >= self.follow[-1][0] * 2 / 3]
            if self.follow[-1][0] >= 15 * 60 and len(tail) >= 3:
                late = slope_per_min(tail)
                level = last + max(late, 0.0) * (HOURS * 60 - last_t / 60)
                every = "; ".join(f"{t / 60:.0f} min {m:.1f}" for t, m in self.follow if round(t) % 300 < SAMPLE)
                out.append(
                    f"- RSS by the minute (MB): {every}; over the last third ({tail[0][0] / 60:.0f}-{last_t / 60:.0f} "
                    f"min) {late:+.2f} MB/min, which projects an {HOURS:.0f}-hour follow to {level:.0f} MB"
                )
        if len(self.cycles) >= 3:
            half = len(self.cycles) // 2
            per = (self.cycles[-1] - self.cycles[half]) / (len(self.cycles) - 1 - half)
            out.append(
                f"- {len(self.cycles) - 1} open/close cycles of the run screen: RSS {self.cycles[0]:.1f} → "
                f"{self.cycles[-1]:.1f} MB, {per:+.3f} MB a cycle over the second half"
            )
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=4.0, help="how long to follow (default 4)")
    ap.add_argument("--cycles", type=int, default=50, help="open/close cycles (default 50; 0 skips them)")
    ap.add_argument("--baseline", type=Path, default=None, help="a src directory to run as the baseline")
    args = ap.parse_args()
    from primetui.local.logflood import LogFlood
    from primetui.local.testing import LocalPlatform

    load_start = os.getloadavg()
    seconds = args.minutes * 60
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True) as lp:
        run_id = asyncio.run(running_run(lp))
        base_env = env_for(lp, tmp)
        variants = [
            Variant("this tree", ROOT / "src", dict(base_env, PRIMETUI_CONFIG_DIR=os.path.join(tmp, "cfg-new")))
        ]
        if args.baseline is not None:
            variants.append(
                Variant(
                    f"baseline ({args.baseline})",
                    args.baseline,
                    dict(base_env, PRIMETUI_CONFIG_DIR=os.path.join(tmp, "cfg-old")),
                )
            )
        else:
            off = os.path.join(tmp, "cfg-off")
            os.makedirs(off)
            Path(off, "config.toml").write_text("log_memory_lines = 2000000\n")
            variants.append(Variant("this tree, budget off", ROOT / "src", dict(base_env, PRIMETUI_CONFIG_DIR=off)))
        for v in variants:
            v.env["PRIMETUI_CACHE_DIR"] = os.path.join(tmp, "cache-" + v.name.split()[0])
        try:
            with LogFlood(Path(lp.data_dir) / "runs" / run_id, rate=RATE, tag="mem") as flood:
                threads = [threading.Thread(target=v.go, args=(run_id, seconds, args.cycles)) for v in variants]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                written = flood.written
        finally:
            asyncio.run(stop_run(lp, run_id))
    load_end = os.getloadavg()
    lines = [
        f"{os.cpu_count()} cores, load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} at the "
        f"start, "
        f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} at the end; {written:,} flood lines written.",
        "",
    ]
    for v in variants:
        lines += v.report(seconds) + [""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
