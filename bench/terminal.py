"""Terminal pane throughput and keyboard latency, side by side with pyte in the same run.

    uv run python bench/terminal.py              # everything (a few minutes)
    uv run python bench/terminal.py --quick      # smaller screen/pty inputs; SSH at full size, best of 2
    uv run python bench/terminal.py --ssh-only   # just the SSH -> pane figures (3.)
    uv run python bench/terminal.py --vs-tmux    # the real dashboard's shell pane next to a tmux pane:
                                                 # key -> echo during seq 1 2000000, end of output drawn
    uv run python bench/terminal.py --ssh-only --ab OTHER/src   # the same for another checkout's
                                                 # src/, alternating runs in one invocation (A/B)

Measures, for ``seq 1 1500000`` (12.39 MB once the pty turns each newline into CRLF):

1. the screen model alone (bytes fed in 4 KiB and 64 KiB chunks) vs ``pyte.ByteStream``;
2. a real pty through the pane (``TerminalView`` in a headless Textual app) vs a pty into pyte;
3. the same through SSH on a local-platform volume session (gateway, pinned keys): wall MB/s and
   CPU per MB of the app process and of the platform process (SSH server + TLS gateway), and the
   same SSH stream read with no screen (the transport's own ceiling);
4. echo latency while output pours: a key sent through the pane during a flood, until its echo
   reaches the screen, plus the event-loop lag seen by a 10 ms ticker.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

_SRC = str(Path(__file__).resolve().parents[1] / "src")
if "--src" in sys.argv:  # measure another checkout's code (the platform subprocess inherits it)
    _SRC = str(Path(sys.argv[sys.argv.index("--src") + 1]).resolve())
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_SRC, os.environ.get("PYTHONPATH")) if p)
sys.path.insert(0, _SRC)

from primetui.shell.term import Terminal  # noqa: E402
from primetui.shell.term.transport import PtyTransport  # noqa: E402

COLS, ROWS = 120, 40


def seq_bytes(n: int) -> bytes:
    return b"".join(b"%d\r\n" % i for i in range(1, n + 1))


def coloured_log(lines: int) -> bytes:
    out = []
    for i in range(lines):
        out.append(
            f"\x1b[38;5;244m2026-12-02 12:00:{i % 60:02d}\x1b[0m \x1b[32mINFO\x1b[0m step {i} "
            f"loss \x1b[1m{1 / (i + 1):.5f}\x1b[0m lr 3e-4 tokens/s 5321 \x1b[33mgrad_norm\x1b[0m 0.91\r\n"
        )
    return "".join(out).encode()


def mbps(nbytes: int, seconds: float) -> float:
    return nbytes / seconds / 1e6


def feed_ours(data: bytes, chunk: int) -> float:
    """CPU seconds to feed ``data`` (CPU time, so other work on the machine does not count)."""
    term = Terminal(COLS, ROWS, scrollback=10_000)
    t0 = time.process_time()
    for i in range(0, len(data), chunk):
        term.feed(data[i : i + chunk])
    return time.process_time() - t0


def feed_pyte(data: bytes, chunk: int) -> float:
    import pyte

    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    t0 = time.process_time()
    for i in range(0, len(data), chunk):
        stream.feed(data[i : i + chunk])
    return time.process_time() - t0


async def pty_raw(n: int) -> tuple[int, float]:
    t = PtyTransport(["seq", "1", str(n)])
    await t.start(COLS, ROWS)
    t0 = time.perf_counter()
    total = 0
    while data := await t.read():
        total += len(data)
    dt = time.perf_counter() - t0
    await t.close()
    return total, dt


async def pty_pyte(n: int) -> tuple[int, float, float]:
    import pyte

    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    t = PtyTransport(["seq", "1", str(n)])
    await t.start(COLS, ROWS)
    t0, c0 = time.perf_counter(), time.process_time()
    total = 0
    while data := await t.read():
        total += len(data)
        stream.feed(data)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    await t.close()
    return total, dt, cpu


async def through_pane(make_transport, last_line: str) -> tuple[int, float, int, float]:
    """Run a transport in a TerminalView under a headless app until ``last_line`` is on screen."""
    from textual.app import App, ComposeResult

    from primetui.ui.terminal.view import TerminalView

    class Bench(App):
        def compose(self) -> ComposeResult:
            yield TerminalView(make_transport, id="t")

    app = Bench()
    async with app.run_test(size=(COLS, ROWS)) as pilot:
        view = app.query_one(TerminalView)
        while not view.running and view.ended_reason is None:
            await asyncio.sleep(0.005)
        t0, c0 = time.perf_counter(), time.process_time()
        await view.ended.wait()  # the program printed everything and exited
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        await pilot.pause()
        text = "\n".join(view.term.history_text())
        if last_line not in text:
            raise RuntimeError(f"the last line never arrived: {view.ended_reason}")
        return view.bytes_in, dt, view.frames, cpu


async def echo_latency(samples: int, flood: bool = True, transport=None) -> tuple[list[float], list[float]]:
    """Keys typed into a bash running a long seq: time until each key's echo is on the screen.
    ``transport`` defaults to bash on a local pty (an SSH session's login shell in section 3)."""
    from textual.app import App, ComposeResult
    from textual import events

    from primetui.ui.terminal.view import TerminalView

    if transport is None:
        transport = PtyTransport(["bash", "--norc", "--noprofile", "-i"], env={"PS1": "$ "})

    class Bench(App):
        def compose(self) -> ComposeResult:
            yield TerminalView(transport, id="t")

    app = Bench()
    latencies: list[float] = []
    lags: list[float] = []
    async with app.run_test(size=(COLS, ROWS)) as pilot:
        view = app.query_one(TerminalView)
        while not view.running:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)  # the prompt is up
        seen: dict[bytes, float] = {}
        original = view.term.feed

        def spying_feed(data: bytes) -> None:
            original(data)
            for marker in list(pending):
                if marker in data:
                    seen[marker] = time.perf_counter()
                    pending.discard(marker)

        pending: set[bytes] = set()
        view.term.feed = spying_feed  # type: ignore[method-assign]
        view.focus()
        if flood:
            transport.write(b"seq 1 20000000\r")
            await asyncio.sleep(0.5)  # the flood is on
        else:
            await asyncio.sleep(0.3)  # keys land on bash's idle prompt, which echoes them

        stop = False

        async def ticker() -> None:
            last = time.perf_counter()
            while not stop:
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                lags.append((now - last - 0.01) * 1000)
                last = now

        tick = asyncio.get_running_loop().create_task(ticker())
        for i in range(samples):
            marker = chr(ord("a") + i % 26)  # seq prints only digits: any letter is its own echo
            code = marker.encode()
            pending.add(code)
            t0 = time.perf_counter()
            # Through the app's key path, as a user's key arrives: a Key event to the focused view.
            view.post_message(events.Key(marker, marker))
            while code in pending and time.perf_counter() - t0 < 2:
                await asyncio.sleep(0.001)
            latencies.append((seen.get(code, t0 + 2) - t0) * 1000)
            await asyncio.sleep(0.1)
        stop = True
        await tick
        transport.write(b"\x03")
        await pilot.pause(0.2)
    return latencies, lags


def process_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` so far, summed over its threads (nanoseconds from
    /proc/<pid>/task/*/schedstat; /proc/<pid>/stat's 10 ms ticks are too coarse for a 1 s run).
    Threads that ended in between are missed, so this is for the long-lived platform process."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


async def ssh_runs(n: int, repeat: int, echo_keys: int = 0) -> list[dict] | None:
    """seq through a real local-platform volume session (HTTP + TLS gateway + SSH), ``repeat``
    times into the pane and ``repeat`` times read with no screen, alternating. Each result has the
    bytes, wall seconds, and CPU seconds of this (app) process and of the platform process. With
    ``echo_keys``, first that many keys typed into the session's shell while seq floods it."""
    try:
        from ptyapp import ssh_key_home

        from primetui.local.testing import LocalPlatform
        from primetui.shell import open_session_connection, open_shell
        from primetui.shell.term.transport import SessionTransport
    except ImportError as exc:
        print(f"  (ssh bench skipped: {exc})")
        return None
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        home, key_path = ssh_key_home(Path(tmp))
        with LocalPlatform.start(
            Path(tmp), demo=False, env={"HOME": str(home), "PRIME_SSH_KEY_PATH": str(key_path)}
        ) as lp:
            import httpx

            with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
                c.post("/training/volumes", json={"name": "bench", "size": "10Gi", "warm": False}).raise_for_status()
            client = lp.client()
            try:
                s = await client.create_session("bench")
                for _ in range(3000):
                    s = await client.get_session("bench", s.id)
                    if s.phase in ("ready", "failed"):
                        break
                    await asyncio.sleep(0.02)
                if s.phase != "ready":
                    print(f"  (ssh bench skipped: session {s.phase})")
                    return None

                class SeqOverSSH(SessionTransport):
                    async def start(self, cols: int, rows: int) -> None:
                        await super().start(cols, rows)
                        self.write(b"stty -echo; clear; seq 1 %d; exit\r" % n)

                async def no_screen() -> tuple[int, float, float]:
                    conn = await open_session_connection(s, key_path)
                    try:
                        proc = await open_shell(conn, "xterm-256color", COLS, ROWS, command=f"seq 1 {n}")
                        t0, c0 = time.perf_counter(), time.process_time()
                        total = 0
                        while data := await proc.read():
                            total += len(data)
                        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
                        await proc.wait()
                    finally:
                        await conn.close()
                    return total, dt, cpu

                if echo_keys:
                    lat, lags = await echo_latency(echo_keys, transport=SessionTransport(s, key_path))
                    results.append(dict(kind="echo", latencies=lat, lags=lags))
                for _ in range(repeat):
                    s0 = process_cpu(lp.pid)
                    total, dt, frames, cpu = await through_pane(lambda: SeqOverSSH(s, key_path), str(n))
                    results.append(
                        dict(
                            kind="pane",
                            bytes=total,
                            wall=dt,
                            app_cpu=cpu,
                            frames=frames,
                            server_cpu=process_cpu(lp.pid) - s0,
                        )
                    )
                    s0 = process_cpu(lp.pid)
                    total, dt, cpu = await no_screen()
                    results.append(
                        dict(
                            kind="raw", bytes=total, wall=dt, app_cpu=cpu, frames=0, server_cpu=process_cpu(lp.pid) - s0
                        )
                    )
                await client.stop_session("bench", s.id)
            finally:
                await client.aclose()
    return results


def print_ssh(results: list[dict], label: str = "") -> None:
    """Best wall run of each kind, and the median MB per CPU-second of each process over the runs
    (the platform's CPU comes from /proc in 10 ms ticks, so one run alone is coarse)."""
    names = {"pane": "ssh (gateway, pinned) -> primetui pane", "raw": "ssh (gateway, pinned), read with no screen"}
    echoes = [r for r in results if r["kind"] == "echo"]
    if echoes:
        lat = [x for r in echoes for x in r["latencies"]]
        lags = [x for r in echoes for x in r["lags"]]
        print(f"  {label}ssh key -> echo on screen while seq floods the pane: {describe_latency(lat, lags)}")
    for kind in ("pane", "raw"):
        runs = [r for r in results if r["kind"] == kind]
        if not runs:
            continue
        best = min(runs, key=lambda r: r["wall"])
        walls = ", ".join(f"{mbps(r['bytes'], r['wall']):.1f}" for r in runs)
        app = statistics.median(mbps(r["bytes"], r["app_cpu"]) for r in runs)
        platform = statistics.median(mbps(r["bytes"], max(r["server_cpu"], 0.01)) for r in runs)
        frames = f", {best['frames']} frames" if kind == "pane" else ""
        print(
            f"  {label}{names[kind]:44s} {mbps(best['bytes'], best['wall']):6.1f} MB/s wall (runs: {walls}); "
            f"MB per CPU-s (median): app {app:5.1f}, platform {platform:5.1f} ({best['wall']:.2f} s{frames})"
        )


def describe_latency(lat: list[float], lags: list[float]) -> str:
    lat, lags = sorted(lat), sorted(lags)
    return (
        f"p50 {statistics.median(lat):.1f} ms, p95 {lat[max(int(len(lat) * 0.95) - 1, 0)]:.1f} ms, max "
        f"{max(lat):.1f} ms "
        f"({len(lat)} keys); loop lag p50 {statistics.median(lags):.1f} ms, max {max(lags):.1f} ms"
    )


def ab_compare(other_src: str, n: int, repeat: int, echo_keys: int) -> None:
    """Section 3 for another checkout's src/ and for this one, alternating in subprocesses."""
    import json
    import subprocess

    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = {"A (other)": str(Path(other_src).resolve()), "B (this)": here}
    collected: dict[str, list[dict]] = {k: [] for k in sides}
    for _ in range(repeat):
        for name, src in sides.items():
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--ssh-json",
                    "--src",
                    src,
                    "--n",
                    str(n),
                    "--repeat",
                    "1",
                    "--echo-keys",
                    str(echo_keys),
                ],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            collected[name].extend(json.loads(out.strip().splitlines()[-1]))
    for name, src in sides.items():
        print(f"  {name}: {src}")
        print_ssh(collected[name], label="  ")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--quick", action="store_true", help="smaller screen and pty inputs; SSH at full size, best of 2"
    )
    parser.add_argument("--no-ssh", action="store_true")
    parser.add_argument("--ssh-only", action="store_true", help="only the SSH -> pane figures")
    parser.add_argument(
        "--ab", metavar="SRC", help="with --ssh-only or --vs-tmux: also measure another checkout's src/, alternating"
    )
    parser.add_argument("--src", metavar="SRC", help="import primetui from SRC (the platform subprocess too)")
    parser.add_argument("--n", type=int, default=1_500_000, help="seq 1 N over SSH (default 1500000)")
    parser.add_argument("--repeat", type=int, default=0, help="SSH runs of each kind (default 3, 2 with --quick)")
    parser.add_argument(
        "--echo-keys",
        type=int,
        default=None,
        help="keys typed over SSH during a flood (default 25, 10 with --quick; 0: none)",
    )
    parser.add_argument(
        "--vs-tmux",
        action="store_true",
        help="the real dashboard's shell pane next to a plain tmux pane: key -> echo during a flood, "
        "end of output drawn (bench/pane_vs_tmux.py)",
    )
    parser.add_argument("--key-gap", type=float, default=0.1, help="with --vs-tmux: seconds between keys")
    parser.add_argument("--ssh-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ssh_repeat = args.repeat or (2 if args.quick else 3)
    echo_keys = args.echo_keys if args.echo_keys is not None else (10 if args.quick else 25)
    if args.vs_tmux:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from pane_vs_tmux import run as vs_tmux

        vs_tmux(
            args.n if args.n != 1_500_000 else 2_000_000,
            args.repeat or 3,
            args.key_gap,
            _SRC,
            str(Path(args.ab).resolve()) if args.ab else None,
        )
        return
    if args.ssh_json:
        import json

        print(json.dumps(asyncio.run(ssh_runs(args.n, ssh_repeat, args.echo_keys)) or []))
        return
    print(
        f"machine: {os.cpu_count()} cores, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; python "
        f"{sys.version.split()[0]}"
    )
    if args.ssh_only:
        print(f"\n3. SSH on a local-platform volume session, seq 1 {args.n}; best wall of {ssh_repeat}")
        if args.ab:
            ab_compare(args.ab, args.n, ssh_repeat, echo_keys)
        else:
            print_ssh(asyncio.run(ssh_runs(args.n, ssh_repeat, echo_keys)) or [])
        print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    n = 300_000 if args.quick else 1_500_000
    pyte_n = 50_000 if args.quick else 150_000
    data = seq_bytes(n)
    pyte_data = seq_bytes(pyte_n)
    log = coloured_log(20_000 if args.quick else 60_000)
    pyte_log = coloured_log(3_000 if args.quick else 10_000)
    print(
        f"seq 1 {n}: {len(data) / 1e6:.2f} MB (pyte gets seq 1 {pyte_n}, {len(pyte_data) / 1e6:.2f} MB, to keep the "
        f"run short)"
    )
    print(f"coloured log: {len(log) / 1e6:.2f} MB (pyte gets {len(pyte_log) / 1e6:.2f} MB)")

    print("\n1. screen model alone (MB per CPU-second, best of 3; pyte best of 2)")
    rows = []
    for chunk in (4096, 65536):
        ours = mbps(len(data), min(feed_ours(data, chunk) for _ in range(3)))
        theirs = mbps(len(pyte_data), min(feed_pyte(pyte_data, chunk) for _ in range(2)))
        rows.append((f"seq, {chunk // 1024} KiB chunks", ours, theirs))
    ours = mbps(len(log), min(feed_ours(log, 65536) for _ in range(3)))
    theirs = mbps(len(pyte_log), min(feed_pyte(pyte_log, 65536) for _ in range(2)))
    rows.append(("coloured log (SGR every few words), 64 KiB chunks", ours, theirs))
    for name, ours, theirs in rows:
        print(f"  {name:52s} primetui {ours:7.1f} MB/s   pyte {theirs:5.2f} MB/s   x{ours / theirs:5.1f}")

    print("\n2. local pty -> pane (TerminalView, 120x40, headless app); wall MB/s and MB per CPU-second, best of 3")
    raw = [asyncio.run(pty_raw(n)) for _ in range(3)]
    raw_total, raw_dt = min(raw, key=lambda r: r[1])
    print(f"  pty raw read, no screen                              {mbps(raw_total, raw_dt):7.1f} MB/s wall")
    runs = [asyncio.run(through_pane(lambda: PtyTransport(["seq", "1", str(n)]), str(n))) for _ in range(3)]
    total, dt, frames, cpu = min(runs, key=lambda r: r[1])
    p_total, p_dt, p_cpu = asyncio.run(pty_pyte(pyte_n))
    print(
        f"  pty -> primetui pane                                 {mbps(total, dt):7.1f} MB/s wall, "
        f"{mbps(total, cpu):6.1f} MB/CPU-s  ({dt:.2f} s, {frames} frames)"
    )
    print(
        f"  pty -> pyte feed only                                {mbps(p_total, p_dt):7.2f} MB/s wall, "
        f"{mbps(p_total, p_cpu):6.2f} MB/CPU-s"
    )
    print(
        f"  ratio pane / pyte                                    x{mbps(total, dt) / mbps(p_total, p_dt):.1f} wall, "
        f"x{mbps(total, cpu) / mbps(p_total, p_cpu):.1f} CPU"
    )

    if not args.no_ssh:
        print(
            f"\n3. SSH on a local-platform volume session (TLS gateway, pinned keys), seq 1 {args.n}; best wall of "
            f"{ssh_repeat}"
        )
        print_ssh(asyncio.run(ssh_runs(args.n, ssh_repeat, echo_keys)) or [])

    print("\n4. echo latency at an idle prompt (baseline), then while seq floods the pane (bash on a pty)")
    idle_lat, idle_lags = asyncio.run(echo_latency(10 if args.quick else 25, flood=False))
    idle_lat.sort()
    idle_lags.sort()
    print(
        f"  idle:  key -> echo p50 {statistics.median(idle_lat):.1f} ms, max {max(idle_lat):.1f} ms; loop lag p50 "
        f"{statistics.median(idle_lags):.1f} ms, max {max(idle_lags):.1f} ms"
    )
    lat, lags = asyncio.run(echo_latency(10 if args.quick else 25))
    lat.sort()
    print(
        f"  key -> echo on screen: p50 {statistics.median(lat):.1f} ms, p95 {lat[int(len(lat) * 0.95) - 1]:.1f} ms, "
        f"max {max(lat):.1f} ms ({len(lat)} keys)"
    )
    lags.sort()
    print(
        f"  event-loop lag (10 ms ticker): p50 {statistics.median(lags):.1f} ms, p99 "
        f"{lags[int(len(lags) * 0.99) - 1]:.1f} ms, max {max(lags):.1f} ms"
    )


if __name__ == "__main__":
    main()
