"""First useful frame of ``primetui serve`` in headless Chromium, next to the terminal's, same run.

    uv run python bench/serve_first_frame.py [--repeat 5] [--baseline-src OTHER/src | --baseline-no-spare]

One local platform (demo data plus a few finished runs) and one ``primetui serve`` on it; then,
interleaved, ``--repeat`` times each:

- terminal: ``primetui runs`` started in a private tmux server (120x36), until ``tmux capture-pane``
  shows a run id (``bench/first_frame.py``'s measurement);
- browser: a new tab in an already running headless Chromium (Debian's, through Playwright)
  opens the served URL; the clock runs from ``goto`` until the bytes the page received over its
  websocket (fed to primetui's screen model, as tests/ops/test_serve_browser.py feeds them to
  pyte) show a run id. Each tab starts its own app process; the bench waits for it to end before the next.

Both use one runs cache (``PRIMETUI_CACHE_DIR``), which the warm-ups fill (the usual case: not the
first start ever); the browser warm-up leaves the runs' loss series in it. With
``--baseline-src``, a second ``primetui serve`` runs another checkout's code (``PYTHONPATH``), and
its tab is timed in the same rounds; with ``--baseline-no-spare`` the second server runs this code
with ``--no-spare`` (each tab starts its own process when its websocket opens). Before each round
the bench waits until the server's spare (``primetui.commands.spare``) has finished its imports, so
a spare warming up never shares the CPU with a timed start.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from first_frame import env_for, seed, time_dashboard  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Screen:
    """What the page's terminal shows, from the websocket's frames, on primetui's screen model
    (pyte, as the browser test uses, takes ~0.3 s per truecolor frame: it would be the bottleneck)."""

    def __init__(self) -> None:
        from primetui.shell.term import Terminal

        self.term = Terminal(240, 80, scrollback=0)

    def feed(self, payload: object) -> None:
        if isinstance(payload, (bytes, bytearray)):
            self.term.feed(bytes(payload))

    def text(self) -> str:
        return "\n".join(self.term.display())


STAGES: list[tuple[float, float]] = []
"""Per browser sample: (websocket opened, first app frame received), seconds after ``goto``."""


def time_browser(context, url: str, run_ids: list[str], served) -> float:
    page = context.new_page()
    screen = Screen()
    marks: dict[str, float] = {}

    def on_frame(payload: object) -> None:
        if isinstance(payload, (bytes, bytearray)):  # the app's output; text frames are textual-serve's (the pong)
            marks.setdefault("frame", time.perf_counter())
        screen.feed(payload)

    def on_ws(ws) -> None:
        marks.setdefault("ws", time.perf_counter())
        ws.on("framereceived", on_frame)

    page.on("websocket", on_ws)
    start = time.perf_counter()
    page.goto(url)
    try:
        while True:
            text = screen.text()
            if any(r in text for r in run_ids):
                STAGES.append((marks.get("ws", start) - start, marks.get("frame", start) - start))
                return time.perf_counter() - start
            if time.perf_counter() - start > 60:
                raise RuntimeError("the page never showed the runs:\n" + text)
            page.wait_for_timeout(5)
    finally:
        page.close()
        served.wait_processes(0)


def settle(served) -> None:
    """Wait until the served code's spare (if it keeps one) has done its imports: no timed start shares the CPU with
    it."""
    if "--no-spare" in served.proc.args:
        return
    served.wait_spare_warm()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-src", default=None, help="another checkout's src/, served beside this one")
    parser.add_argument("--baseline-no-spare", action="store_true", help="this code with --no-spare, served beside")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from primetui.local.testing import LocalPlatform
    from tests.ops.serve_helpers import serve

    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp_s, LocalPlatform.start(tmp_s, demo=True, speed="20") as lp:
        tmp = Path(tmp_s)
        run_ids = asyncio.run(seed(lp, args.runs))
        env = env_for(lp, str(tmp))
        cache = str(tmp / "term-cache")
        time_dashboard(env, run_ids, f"sff-{os.getpid()}-w", cache)  # warm-up: fills the runs cache
        term: list[float] = []
        web: list[float] = []
        base: list[float] = []
        from contextlib import ExitStack

        with ExitStack() as stack, sync_playwright() as pw:
            # The tabs read and write the terminal's runs cache: one file, so both start from the same
            # content. With caches of their own the tabs' held loss series (a tab lives long enough for
            # its metrics to be saved; tmux ends the terminal's at once) and the terminal's did not,
            # and painting them costs the first frame ~250 ms (bench/serve_trace.py).
            os.environ["PRIMETUI_CACHE_DIR"] = cache
            served = stack.enter_context(serve(lp, tmp))
            other = None
            if args.baseline_no_spare:
                (tmp / "base").mkdir()
                other = stack.enter_context(serve(lp, tmp / "base", "--no-spare"))
            elif args.baseline_src:
                (tmp / "base").mkdir()
                saved = os.environ.get("PYTHONPATH")
                os.environ["PYTHONPATH"] = str(Path(args.baseline_src).resolve())
                try:
                    other = stack.enter_context(serve(lp, tmp / "base"))
                finally:
                    if saved is None:
                        os.environ.pop("PYTHONPATH")
                    else:
                        os.environ["PYTHONPATH"] = saved
            context = pw.chromium.launch_persistent_context(
                str(tmp / "chromium-profile"),
                executable_path=CHROMIUM,
                headless=True,
                args=FLAGS,
                viewport={"width": 1440, "height": 760},
            )
            try:
                time_browser(context, served.url, run_ids, served)  # warm-up: the browser, the app's cache
                if other is not None:
                    time_browser(context, other.url, run_ids, other)
                for i in range(args.repeat):
                    settle(served)
                    term.append(time_dashboard(env, run_ids, f"sff-{os.getpid()}-{i}", cache)[0])
                    web.append(time_browser(context, served.url, run_ids, served))
                    extra = ""
                    if other is not None:
                        settle(served)
                        base.append(time_browser(context, other.url, run_ids, other))
                        extra = f", baseline browser {base[-1] * 1000:.0f} ms (x{base[-1] / term[-1]:.2f})"
                    ws_at, frame_at = STAGES[-2] if other is not None else STAGES[-1]
                    print(
                        f"  round {i + 1}: terminal {term[-1] * 1000:.0f} ms, browser {web[-1] * 1000:.0f} ms "
                        f"(x{web[-1] / term[-1]:.2f}; websocket at {ws_at * 1000:.0f} ms, first app frame at "
                        f"{frame_at * 1000:.0f} ms){extra}",
                        flush=True,
                    )
            finally:
                context.close()
    load1 = os.getloadavg()
    ratio = statistics.median(w / t for w, t in zip(web, term))
    print("\n| first useful frame (runs list with a run id) | median | runs (ms) |")
    print("|---|---:|---|")
    print(
        f"| terminal: `primetui runs` in tmux | {statistics.median(term) * 1000:.0f} ms | "
        f"{', '.join(f'{x * 1000:.0f}' for x in term)} |"
    )
    print(
        f"| browser: `primetui serve`, a new tab in headless Chromium | {statistics.median(web) * 1000:.0f} ms | "
        f"{', '.join(f'{x * 1000:.0f}' for x in web)} |"
    )
    if base:
        label = "`--no-spare`" if args.baseline_no_spare else args.baseline_src
        print(
            f"| browser, baseline ({label}) | {statistics.median(base) * 1000:.0f} ms | "
            f"{', '.join(f'{x * 1000:.0f}' for x in base)} |"
        )
    print(f"\nbrowser / terminal, median of the per-round ratios: x{ratio:.2f} (goal: at most x1.2)")
    if base:
        print(f"baseline browser / terminal: x{statistics.median(b / t for b, t in zip(base, term)):.2f}")
    print(
        f"load average {' '.join(f'{x:.2f}' for x in load0)} at the start, {' '.join(f'{x:.2f}' for x in load1)} at "
        f"the end "
        f"({os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
