"""Where a browser tab's first useful frame goes: one timeline per tab (and per terminal start).

    uv run python bench/serve_trace.py [ROUNDS]

Like bench/serve_first_frame.py (a local platform, `primetui runs` in tmux, then a tab in headless
Chromium), but every process loads bench/serve_trace/sitecustomize.py (PYTHONPATH), which writes
wall-clock stamps to one log: the server's page and websocket handlers, the app process's spawn,
its Python start, its driver's start, the resize it gets, the runs screen's mount and first reply,
the first write holding a run id, the server relaying it; the bench adds what Playwright saw
(websocket frames, the run id on the page's screen model) and the page's own Performance timings.
It prints each timeline in ms from `goto` (or from the tmux start). A measuring aid: not a test.
The server runs with --no-spare (SERVE_TRACE_SPARE=1 keeps its spare): the timeline it splits is
a tab's own process start, which a spare has done before the page asks.
"""

import asyncio, json, os, shutil, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from first_frame import env_for, seed, time_dashboard
from serve_first_frame import CHROMIUM, FLAGS, Screen

TRACE = Path(os.environ.get("SERVE_TRACE_LOG", "/tmp/serve_trace.log"))
SERVE_ARGS = () if os.environ.get("SERVE_TRACE_SPARE") else ("--no-spare",)


def main(n=3):
    from playwright.sync_api import sync_playwright
    from primetui.local.testing import LocalPlatform
    from tests.ops.serve_helpers import serve

    TRACE.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp_s, LocalPlatform.start(tmp_s, demo=True, speed="20") as lp:
        tmp = Path(tmp_s)
        run_ids = asyncio.run(seed(lp, 3))
        os.environ.update(
            TRACE_FILE=str(TRACE),
            TRACE_RUNS=",".join(run_ids),
            PYTHONPATH=str(Path(__file__).resolve().parent / "serve_trace")
            + os.pathsep
            + os.environ.get("PYTHONPATH", ""),
        )
        env = env_for(lp, str(tmp))
        env.update(
            TRACE_FILE=str(TRACE),
            TRACE_RUNS=",".join(run_ids),
            PYTHONPATH=str(Path(__file__).resolve().parent / "serve_trace"),
        )
        cache = str(tmp / "term-cache")
        time_dashboard(env, run_ids, f"tr-{os.getpid()}-w", cache)

        def mark(tag, extra=""):
            with open(TRACE, "a") as f:
                f.write(f"{time.time():.4f} 0 bench {tag} {extra}\n")

        if os.environ.get("SERVE_TRACE_ONE_CACHE"):  # as bench/serve_first_frame.py: the tabs use the terminal's cache
            os.environ["PRIMETUI_CACHE_DIR"] = cache
        with serve(lp, tmp, *SERVE_ARGS) as served, sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(
                str(tmp / "prof"),
                executable_path=CHROMIUM,
                headless=True,
                args=FLAGS,
                viewport={"width": 1440, "height": 760},
            )
            for i in range(n + 1):
                mark("TERM-START", str(i))
                el, _ = time_dashboard(env, run_ids, f"tr-{os.getpid()}-{i}", cache)
                mark("TERM-SEEN", f"{el * 1000:.0f}ms")
                page = ctx.new_page()
                screen = Screen()
                st = {"f": 0}

                def on_frame(p, st=st, screen=screen):
                    st["f"] += 1
                    if st["f"] <= 2 or isinstance(p, str):
                        mark("browser-frame", f"#{st['f']} {len(p)}")
                    screen.feed(p)
                    if any(r in screen.text() for r in run_ids) and not st.get("seen"):
                        st["seen"] = 1
                        mark("browser-frame-RUNID", f"#{st['f']} {len(p)}")

                def on_ws(ws):
                    mark("browser-ws")
                    ws.on("framereceived", on_frame)
                    ws.on("framesent", lambda p: mark("browser-sent", str(p)[:80]))

                page.on("websocket", on_ws)
                mark("GOTO", str(i))
                t = time.perf_counter()
                page.goto(served.url)
                mark("goto-returned")
                while not st.get("seen"):
                    page.wait_for_timeout(5)
                    if time.perf_counter() - t > 30:
                        raise SystemExit("timeout")
                mark("BROWSER-SEEN", f"{(time.perf_counter() - t) * 1000:.0f}ms")
                nav = page.evaluate(
                    "JSON.stringify([performance.getEntriesByType('navigation').map(e=>[e.requestStart,e.responseEnd,"
                    "e.domContentLoadedEventEnd,e.loadEventStart,e.loadEventEnd]), "
                    "performance.getEntriesByType('resource').map(e=>[e.name.split('/').pop(),Math.round(e.startTime),"
                    "Math.round(e.responseEnd),e.transferSize]), "
                    "performance.getEntriesByType('paint').map(e=>[e.name,Math.round(e.startTime)])])"
                )
                print(i, nav, flush=True)
                page.close()
                served.wait_processes(0)
                if os.environ.get("SERVE_TRACE_SHARE_CACHE"):  # the terminal then reads the cache the tabs wrote
                    for f in (tmp / "home" / ".cache" / "primetui").glob("runs-*.json"):
                        shutil.copy(f, Path(cache) / f.name)
                        print(
                            "cache",
                            f.name,
                            len(json.loads(f.read_text()).get("losses") or {}),
                            "loss series",
                            flush=True,
                        )
            ctx.close()


def show() -> None:
    rows = [line.split(" ", 4) for line in TRACE.read_text().splitlines()]
    segments: list[list[list[str]]] = []
    for row in rows:
        if row[3] in ("TERM-START", "GOTO"):
            segments.append([])
        if segments:
            segments[-1].append(row)
    for seg in segments:
        t0 = float(seg[0][0])
        print("-----")
        for row in seg:
            extra = row[4] if len(row) > 4 else ""
            if row[3] == "AppService.on_data" and "RUNID" not in extra:
                continue
            if row[3] == "browser-sent" and "ping" in extra:
                continue
            print(f"{(float(row[0]) - t0) * 1000:7.0f} {row[2]:8} {row[3]} {extra[:110]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    show()
