"""The dashboard's log follower on a run writing 1,000 lines/s, through the hosted log windows.

    uv run python bench/log_windows.py [--seconds 30] [--rate 1000]

A real run trains on a local platform serving the hosted windows (the default: plain fetches from a
200-line snapshot, search/level/since through the search backend up to 5000 lines), while a
``LogFlood`` adds ``--rate`` numbered lines per second to its trainer log. Two followers watch the
same run at once, each next to the other:

- the dashboard's: ``LogFollower`` as ``ui/monitor/feed.py`` builds it (2 s polls, search backend,
  a catch-up read of 5,000 lines when a window fills);
- the CLI's way: plain fetches of 1,000 lines every 2 s (what ``prime train logs -f`` polls),
  i.e. the 200-line snapshot, with the same dedupe and gap markers.

At the end the run is stopped, both make their final fetch, and what each assembled is aligned with
the server's own log (read from its database): lines shown vs written, lines lost with a gap marker
at the place they are missing (and its reason), lines lost without one, lines repeated.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from primetui.api import followers as f  # noqa: E402
from primetui.api.client import PrimeClient  # noqa: E402
from primetui.local.logflood import LogFlood  # noqa: E402
from primetui.local.testing import LocalPlatform  # noqa: E402


class Gap:
    def __init__(self, reason: str) -> None:
        self.reason = reason


def server_log(lp: LocalPlatform, run_id: str) -> list[str]:
    db = sqlite3.connect(f"file:{lp.data_dir / 'state.sqlite3'}?mode=ro", uri=True, timeout=10)
    try:
        return [
            r[0]
            for r in db.execute(
                "SELECT line FROM log_lines WHERE run_id = ? AND component = 'trainer' ORDER BY seq", (run_id,)
            )
        ]
    finally:
        db.close()


def align(full: list[str], shown: list[object]) -> dict[str, object]:
    """Walk the server's log against what a follower showed (lines and gap markers, in order)."""
    lines = [s for s in shown if isinstance(s, str)]
    index = {line: i for i, line in enumerate(full)}
    marked = unmarked = 0
    reasons: dict[str, int] = {}
    pos = 0  # next server line expected
    pending_gap: str | None = None
    for item in shown:
        if isinstance(item, Gap):
            pending_gap = item.reason
            continue
        at = index.get(item)
        if at is None or at < pos:
            continue  # a repeat (counted below) or a line the server no longer has
        missing = at - pos
        if missing:
            if pending_gap is not None:
                marked += missing
                reasons[pending_gap] = reasons.get(pending_gap, 0) + missing
            else:
                unmarked += missing
        pending_gap = None
        pos = at + 1
    tail = len(full) - pos
    unmarked += tail
    return {
        "written": len(full),
        "shown": len(lines),
        "lost_marked": marked,
        "lost_unmarked": unmarked,
        "repeated": len(lines) - len(set(lines)),
        "gap_markers": sum(isinstance(s, Gap) for s in shown),
        "reasons": reasons,
    }


async def follow(follower: f.LogFollower, shown: list[object]) -> None:
    async for event in follower:
        if isinstance(event, f.LogLines):
            shown.extend(event.lines)
        elif isinstance(event, f.LogGap):
            shown.append(Gap(event.reason))


async def bench(seconds: float, rate: float) -> None:
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True) as lp:
        async with PrimeClient(lp.base_url, lp.token) as client:
            config = tomllib.loads((lp.data_dir / "sft.toml").read_text())
            config["max_steps"] = 1_000_000
            config["data"].update(batch_size=4, seq_len=256)
            config.pop("ckpt", None)
            run_id = (await client.create_run(config, volume="research", name="bench-log-windows")).run_id
            while (await client.get_run(run_id)).status != "RUNNING":
                await asyncio.sleep(0.2)
            watcher = f.RunWatcher(client, run_id, interval=3.0, track_step=False)
            dashboard = f.LogFollower(
                client, run_id, "trainer", interval=2.0, backlog_lines=f.MAX_TAIL_LINES, catch_up=True, watcher=watcher
            )
            cli_like = f.LogFollower(
                client,
                run_id,
                "trainer",
                interval=2.0,
                backlog_lines=1000,
                tail_lines=1000,
                search_backend=False,
                watcher=watcher,
            )
            shown_dash: list[object] = []
            shown_cli: list[object] = []

            async def watch() -> None:
                async for _ in watcher:
                    pass

            tasks = [
                asyncio.create_task(c) for c in (watch(), follow(dashboard, shown_dash), follow(cli_like, shown_cli))
            ]
            with LogFlood(lp.data_dir / "runs" / run_id, rate=rate, tag="bench") as flood:
                await asyncio.sleep(seconds)
            await client.stop_run(run_id)
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
            full = server_log(lp, run_id)
            requests = {"dashboard": dashboard.polls, "cli": cli_like.polls}
    print(
        f"run wrote {flood.written} flood lines at {rate:.0f}/s for {seconds:.0f} s; the server holds {len(full)} "
        "trainer lines"
    )
    for name, shown in (
        ("dashboard follower (search backend + catch-up)", shown_dash),
        ("CLI-style plain fetch (200-line snapshot)", shown_cli),
    ):
        r = align(full, shown)
        print(
            f"{name}: shown {r['shown']} / written {r['written']}; lost with a gap marker {r['lost_marked']} "
            f"{r['reasons'] or ''}; lost unmarked {r['lost_unmarked']}; repeated {r['repeated']}; "
            f"gap markers {r['gap_markers']}"
        )
    print(f"polls: dashboard {requests['dashboard']}, cli-style {requests['cli']}")
    print(f"load average {open('/proc/loadavg').read().split()[:3]} on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    args = parser.parse_args()
    t0 = time.monotonic()
    asyncio.run(bench(args.seconds, args.rate))
    print(f"took {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
