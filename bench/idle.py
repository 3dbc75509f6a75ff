"""Idle cost of the run monitor with a finished run open; next to an empty Textual app.

    uv run python bench/idle.py            # print the table
    uv run python bench/idle.py --write    # also update docs/performance.md

Starts the local platform, runs the walkthrough (10 steps) to COMPLETED, then in a fresh
interpreter opens the monitor panes on that run (logs for every component, charts, components)
through the real client, waits until every follower has made its final fetch and stopped, and
measures the process CPU time over ``--seconds`` of idling. The baseline is an app showing one
static line, measured the same way in the same run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def finished_run(lp) -> str:
    import httpx

    config = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
        reply = c.post("/training/runs", json={"config": config, "mode": "sft", "volume": "research"})
        reply.raise_for_status()
        run_id = reply.json()["runId"]
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            status = c.get(f"/rft/runs/{run_id}").json()["run"]["status"]
            if status in ("COMPLETED", "FAILED", "STOPPED"):
                return run_id
            time.sleep(0.5)
    raise SystemExit("the walkthrough run did not finish in 5 minutes")


def child(kind: str, base_url: str, token: str, run_id: str, seconds: float) -> dict:
    import asyncio

    from textual.app import App, ComposeResult
    from textual.widgets import Static

    async def main() -> dict:
        client = None
        if kind == "monitor":
            from primetui.api.client import PrimeClient

            client = PrimeClient(base_url, token)
            run = await client.get_run(run_id)

        class Host(App):
            CSS = "Screen { layout: vertical; } LogsPane, ChartsPane { height: 1fr; } ComponentsPane { height: 8; }"

            def compose(self) -> ComposeResult:
                if kind == "monitor":
                    from primetui.ui.monitor import ChartsPane, ComponentsPane, LogsPane

                    yield LogsPane(client, run)
                    yield ChartsPane(client, run)
                    yield ComponentsPane(client, run)
                else:
                    yield Static("idle")

        app = Host()
        async with app.run_test(size=(160, 60)) as pilot:
            if kind == "monitor":
                from primetui.ui.monitor import ChartsPane, LogsPane

                logs, charts = app.query_one(LogsPane), app.query_one(ChartsPane)
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    followers = logs._followers + charts._followers
                    if followers and all(f.done for f in followers) and len(logs.stores["trainer"]):
                        break
                    await pilot.pause(0.2)
                lines = sum(len(s) for s in logs.stores.values())
                points = sum(len(s) for s in charts.table.series.values())
            else:
                lines = points = 0
            await pilot.pause(1.0)  # let the last repaint settle
            before = time.process_time()
            wall0 = time.monotonic()
            await asyncio.sleep(seconds)
            cpu = time.process_time() - before
            wall = time.monotonic() - wall0
        if client is not None:
            await client.aclose()
        return {"kind": kind, "cpu_s": cpu, "wall_s": wall, "percent": 100 * cpu / wall, "lines": lines, "points": points}

    return asyncio.run(main())


def run_child(kind: str, lp, run_id: str, seconds: float) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, lp.base_url, lp.token, run_id, "--seconds", str(seconds)],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(seconds: float) -> str:
    from primetui.local.testing import LocalPlatform

    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True) as lp:
        run_id = finished_run(lp)
        mon = run_child("monitor", lp, run_id, seconds)
        base = run_child("empty", lp, run_id, seconds)
    return "\n".join([
        "## Run monitor: idle",
        "",
        f"CPU used by the whole process over {seconds:.0f} s of idling with a COMPLETED run open (the walkthrough, "
        f"{mon['lines']:,} log lines over every component tab and the merged view, {mon['points']:,} metric points in the "
        "charts, the components table), after every follower made its final fetch and stopped; next to an app showing one "
        "static line, in the same run. Reproduce with `uv run python bench/idle.py --write`.",
        "",
        "| app | CPU over the window | share of one core |",
        "|---|---:|---:|",
        f"| monitor panes on a finished run | {mon['cpu_s'] * 1000:.1f} ms | {mon['percent']:.3f}% |",
        f"| empty Textual app (baseline) | {base['cpu_s'] * 1000:.1f} ms | {base['percent']:.3f}% |",
        "",
        "Target: under 2% CPU idle with a finished run open. The followers stop at a terminal status (one final fetch "
        "each), and the monitor has no timers of its own: it repaints only when data or keys change something.",
        "",
    ])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--write", action="store_true", help="update docs/performance.md")
    ap.add_argument("--child", nargs=4, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, base_url, token, run_id = args.child
        print(json.dumps(child(kind, base_url, token, run_id, args.seconds)))
        return
    text = report(args.seconds)
    print(text)
    if args.write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from logview import write_section  # type: ignore[import-not-found]

        write_section(text, "## Run monitor: idle")


if __name__ == "__main__":
    main()
