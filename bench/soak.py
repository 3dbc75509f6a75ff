"""Fault soak: the dashboard's followers on a live run through a proxy faulting a share of all requests.

    uv run python bench/soak.py [--seconds 600] [--rate 0.5] [--flood 100]

A local platform (hosted log windows on), one real run training, a ``LogFlood`` adding ``--flood``
numbered lines/s to its trainer log, and the dashboard's ``RunWatcher``, ``MetricsFollower`` and
``LogFollower`` following it through the loopback ``FaultProxy`` of the tests, which turns
``--rate`` of all requests into one of: 5xx, HTML error page, 429 with Retry-After, stall, timeout,
reset, body cut mid-stream, malformed JSON, empty 200. After ``--seconds`` the run is stopped; the
followers make their final fetch; the log they assembled is compared with the server's own.

Reports crashes, lines lost / duplicated / gap markers against the server's count, whether the
final fetch succeeded, requests per minute (the backoff holding) and the longest staleness.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from primetui.local.testing import LocalPlatform  # noqa: E402
from tests.api.faultsoak import soak  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long faults run (default 600)")
    parser.add_argument("--rate", type=float, default=0.5, help="share of requests faulted (default 0.5)")
    parser.add_argument("--flood", type=float, default=100.0, help="extra log lines per second (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True) as lp:
        result = asyncio.run(soak(lp, seconds=args.seconds, rate=args.rate, flood_rate=args.flood, seed=args.seed))
    for line in result.lines():
        print(line)
    print(f"errors seen by the followers (all retried): {result.errors_seen}")
    print(
        f"load average {open('/proc/loadavg').read().split()[:3]} on {os.cpu_count()} cores; "
        f"took {time.monotonic() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
