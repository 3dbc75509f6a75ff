"""A slow link: the dashboard through a pty relay at 1,200 B/s (about 9600 baud) beside a direct terminal.

    uv run python bench/slow_link.py                    # 5 minutes, 1200 B/s, 80x24
    uv run python bench/slow_link.py --seconds 60 --rate 1200
    uv run python bench/slow_link.py --ab OTHER/src     # also another checkout's code, same run

Starts a local platform (``primetui local serve`` on 127.0.0.1, its own data dir, demo data) with
finished runs and one RUNNING run (100,000 steps), then runs ``primetui`` twice at the same time,
each on a pty of its own at 80x24:

- direct: the terminal reads all the app writes at once (bench/ptyapp.py);
- relayed: ``SlowTerminal`` reads the pty at ``--rate`` bytes per second (a token bucket, 50 ms
  ticks), as a 9600-baud line or a throttled SSH hop would; what it has not read waits in the
  kernel, and the app's writes block behind it.

Both terminals answer a cursor position request (``CSI 6n``), as real terminals do; that is what
primetui's output gate measures the drain with (primetui.ui.output_gate). Every ``--every`` seconds
the same key goes to both (``v`` volumes, ``r`` runs, ``enter`` the running run, ``escape`` back), and
the time until the screen shows its answer is recorded. At the end: each terminal's key latencies
(median, worst, the first and the last one: whether the app kept up; each key's worst), the bytes
each delivered, and whether the relayed header said ``⏸ slow link``.
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

from first_frame import BIN, env_for, seed  # noqa: E402
from ptyapp import PtyApp  # noqa: E402

TICK = 0.05


class SlowTerminal(PtyApp):
    """A terminal on a pty that answers cursor position requests, reading at most ``rate`` bytes/s (None: all)."""

    def __init__(
        self, argv: list[str], env: dict[str, str], *, cols: int = 80, rows: int = 24, rate: float | None = None
    ) -> None:
        self.rate = rate
        self.badge_seen = False
        super().__init__(argv, env, cols=cols, rows=rows)
        self.screen.write_process_input = self._answer  # pyte's reply to CSI 6n goes back to the app

    def _answer(self, data: str) -> None:
        if self.closing:
            return
        try:
            os.write(self.fd, data.encode())
        except OSError:
            pass

    def _read(self) -> None:
        if self.rate is None:
            super()._read()
            return
        budget, last = 0.0, time.monotonic()
        while not self.closing:
            now = time.monotonic()
            budget = min(budget + (now - last) * self.rate, self.rate * TICK * 2)
            last = now
            want = int(budget)
            if want < 1:
                time.sleep(TICK)
                continue
            try:
                data = os.read(self.fd, want)
            except OSError:
                return
            if not data:
                return
            budget -= len(data)
            with self._lock:
                self.reads.append((time.monotonic(), len(data)))
                self._stream.feed(data)
                self.badge_seen = self.badge_seen or "slow link" in self.screen.display[0]
            time.sleep(TICK)


KEYS = [
    ("v", lambda s: "GiB free" in s, "volumes"),
    ("r", lambda s: "bench-live" in s and "page" in s, "runs"),
    ("\r", lambda s: "Lifecycle" in s, "the running run"),
    ("\x1b", lambda s: "bench-live" in s and "page" in s, "runs again"),
]


def latency(app: SlowTerminal, key: str, shown, label: str, timeout: float) -> float | None:
    t0 = time.monotonic()
    app.send(key)
    try:
        app.wait_for(shown, timeout=timeout, label=label)
    except RuntimeError:
        return None
    return time.monotonic() - t0


def drive(app: SlowTerminal, seconds: float, every: float, out: list, timeout: float) -> None:
    end, i = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        key, shown, label = KEYS[i % len(KEYS)]
        took = latency(app, key, shown, label, timeout)
        out.append((label, took))
        i += 1
        time.sleep(max(0.0, every - (took or timeout)))


def fmt(values: list) -> str:
    got = [v for _, v in values if v is not None]
    lost = sum(1 for _, v in values if v is None)
    if not got:
        return f"no answer ({lost} keys)"
    first, last = values[0][1], values[-1][1]
    return (
        f"median {statistics.median(got):.2f} s, worst {max(got):.2f} s, first "
        f"{'-' if first is None else f'{first:.2f} s'}, last "
        f"{'-' if last is None else f'{last:.2f} s'}" + (f", {lost} unanswered" if lost else "")
    )


def by_key(values: list) -> str:
    """Each key's worst latency ("-" for a key never answered within the timeout)."""
    worst: dict[str, float | None] = {}
    for label, took in values:
        if label not in worst or took is None or (worst[label] is not None and took > worst[label]):
            worst[label] = took
    return ", ".join(f"{label} {'-' if t is None else f'{t:.2f} s'}" for label, t in worst.items())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--rate", type=float, default=1200.0)
    ap.add_argument("--every", type=float, default=15.0)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--ab", help="another checkout's src/: measured through the relay too, in the same run")
    ap.add_argument("--bytes", type=float, metavar="SECONDS", help="only the bytes each key writes (direct)")
    args = ap.parse_args()
    from primetui.local.testing import LocalPlatform

    if args.bytes:
        with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True, env={"HOME": tmp}) as lp:
            asyncio.run(seed(lp, 3))
            asyncio.run(live_run(lp))
            bytes_per_key(env_for(lp, tmp), args.bytes)
        return

    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True, env={"HOME": tmp}) as lp:
        asyncio.run(seed(lp, 3))
        asyncio.run(live_run(lp))
        env = env_for(lp, tmp)
        kinds = [("direct", None, env), ("relayed", args.rate, env)]
        if args.ab:
            kinds.append(("relayed, --ab", args.rate, dict(env, PYTHONPATH=args.ab)))
        apps = [(name, SlowTerminal([str(BIN / "primetui"), "runs"], e, rate=rate)) for name, rate, e in kinds]
        results: dict[str, list] = {name: [] for name, _ in apps}
        first: dict[str, float] = {}
        t0 = time.monotonic()
        try:
            for name, app in apps:
                app.wait_for(lambda s: "bench-live" in s, timeout=args.timeout, label="the runs list")
                first[name] = time.monotonic() - t0
            threads = [
                threading.Thread(target=drive, args=(app, args.seconds, args.every, results[name], args.timeout))
                for name, app in apps
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            for _, app in apps:
                app.close()
        print(
            f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {args.seconds:.0f} s at {args.rate:.0f} B/s, "
            f"80x24, "
            f"one RUNNING run, a key every {args.every:.0f} s"
        )
        for name, app in apps:
            sent = sum(n for _, n in app.reads)
            print(
                f"{name:>14}: runs list shown after {first[name]:.1f} s; keys: {fmt(results[name])}; "
                f"{sent / 1000:.0f} kB delivered; badge {'shown' if app.badge_seen else 'not shown'}"
            )
            print(f"{'':>14}  worst by key: {by_key(results[name])}")


def bytes_per_key(env: dict[str, str], hold: float) -> None:
    """What each key writes on a direct 80x24 pty: the bytes in ``hold`` seconds after it, and per second."""
    app = SlowTerminal([str(BIN / "primetui"), "runs"], env, rate=None)
    try:
        app.wait_for(KEYS[1][1], timeout=90, label="the runs list")
        app.wait_quiet(2.0)
        print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; bytes written in {hold:.0f} s (80x24, direct)")
        for key, shown, label in [("", None, "the runs list, no key"), *KEYS]:
            start = len(app.reads)
            if key:
                app.send(key)
                app.wait_for(shown, timeout=90, label=label)
            time.sleep(max(0.0, hold - (time.monotonic() - app.reads[start][0] if len(app.reads) > start else 0)))
            reads = app.reads[start:]
            t0 = reads[0][0] if reads else 0.0
            per_s = [sum(n for at, n in reads if int(at - t0) == i) for i in range(int(hold))]
            print(f"{label:>22}: {sum(per_s)} B; per second {per_s}")
    finally:
        app.close()


async def live_run(lp) -> str:
    """The RUNNING run, named ``bench-live``: the newest, so the runs list's first row and what enter opens."""
    import tomllib

    from primetui.api.client import PrimeClient

    cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
    cfg.update(max_steps=100_000, name="bench-live")
    async with PrimeClient(lp.base_url, lp.token) as c:
        run_id = (await c.create_run(cfg, volume="research")).run_id
        while (await c.get_run(run_id)).status != "RUNNING":
            await asyncio.sleep(0.3)
    return run_id


if __name__ == "__main__":
    main()
