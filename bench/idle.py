"""What the dashboard costs on a real terminal: bytes written and CPU, idle and streaming, beside baselines.

    uv run python bench/idle.py                 # every scene, 30 s windows; prints the table
    uv run python bench/idle.py --seconds 10    # shorter windows
    uv run python bench/idle.py --write         # also replace the section in docs/performance.md

Starts a local platform (``primetui local serve`` on 127.0.0.1, its own data dir, demo data) with
finished runs, then runs ``primetui`` in a pty of its own (120x35, TERM=xterm-256color, see
bench/ptyapp.py). For each scene it waits until the screen shows it and the first loads are drawn
(nothing written for 3 s), then counts over a fixed window the bytes the app writes to the terminal
and its CPU time (/proc/PID/stat). Scenes:

  a  the runs list, only finished runs          d  the Logs tab of a running run, 10 lines/s added
  b  a finished run's Overview                  s  that Logs tab scrolled back (not following)
  c  the Volumes screen                         e  the Charts tab of that running run
  f  the shell pane idle at a prompt

(s) must change nothing on screen but the status line's count of new lines; (e) is measured twice,
while points arrive and with the trainer stopped (SIGSTOP, so no point arrives): then it must write
nothing at all.

Baselines, in the same invocation and the same pty: a bare Textual app (Header, DataTable, Footer;
bench/bare_app.py) for a, b, c and f, and ``prime train logs -f`` (the official CLI) on the same
run for d. The running run is the walkthrough with 100,000 steps (it stays RUNNING for the whole
bench and logs a step line and a metric point every few hundred ms); the 10 lines/s on top come
from a ``LogFlood`` appending to its trainer log.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from first_frame import BIN, env_for, seed  # noqa: E402
from ptyapp import PtyApp, Window  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Idle and streaming cost on a terminal"
SETTLE = 3.0


async def running_run(lp) -> str:
    from primetui.api.client import PrimeClient

    cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
    cfg["max_steps"] = 100_000
    async with PrimeClient(lp.base_url, lp.token) as c:
        run_id = (await c.create_run(cfg, volume="research")).run_id
        while (await c.get_run(run_id)).status != "RUNNING":
            await asyncio.sleep(0.3)
    return run_id


@contextlib.contextmanager
def sessions_key(home: str):
    """A throwaway SSH key the platform's sessions accept (the platform and the app both get its path)."""
    path = os.path.join(home, ".ssh", "id_ed25519")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path], check=True)
    yield path


def scene(argv: list[str], env: dict[str, str], seconds: float, shown, keys=(), label: str = "") -> tuple[Window, str]:
    """Start ``argv`` on a pty, press ``keys`` (each a (key, what-to-wait-for) pair), settle, measure."""
    with PtyApp(argv, env) as app:
        app.wait_for(shown, label=label or "the first screen")
        for key, then, what in keys:
            app.send(key)
            app.wait_for(then, label=what)
        app.wait_quiet(SETTLE, timeout=60)
        return app.measure(seconds), app.text()


def trainer_pid(run_id: str) -> int:
    """The local trainer process of ``run_id`` (``python -m primetui.local.trainer --run-dir .../<run_id>``)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"primetui.local.trainer" in argv and any(a.rstrip(b"/").endswith(run_id.encode()) for a in argv):
            return int(entry)
    raise RuntimeError(f"no trainer process for run {run_id}")


@contextlib.contextmanager
def stopped(pid: int):
    """The process stopped (SIGSTOP) for the duration, then continued."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def changed_rows(before: str, after: str) -> list[str]:
    """The screen rows that differ between two captures (as they read after)."""
    return [b for a, b in zip(before.splitlines(), after.splitlines()) if a != b]


def frames(w: Window) -> int:
    """Bursts of output at least 50 ms apart: one repaint of the screen (or of part of it) each."""
    count, last = 0, -1.0
    for t, _ in w.reads:
        if t - last > 0.05:
            count += 1
        last = t
    return count


def row(name: str, w: Window, base: Window | None, base_name: str, target: str) -> str:
    def fmt(x: Window) -> str:
        return (
            f"{x.per_30s(x.bytes):,.0f} B in {x.per_30s(frames(x)):.0f} frames, CPU {x.per_30s(x.cpu) * 1000:.0f} ms "
            f"({100 * x.cpu / x.seconds:.2f} %)"
        )

    return f"| {name} | {fmt(w)} | {f'{base_name}: {fmt(base)}' if base else '-'} | {target} |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30.0, help="length of each measured window")
    ap.add_argument("--write", action="store_true", help="replace the section in docs/performance.md")
    ap.add_argument("--scenes", default="abcdsef")
    args = ap.parse_args()
    from primetui.local.logflood import LogFlood
    from primetui.local.testing import LocalPlatform

    secs = args.seconds
    exe = str(BIN / "primetui")
    rows: list[str] = []
    notes: list[str] = []
    load_start = os.getloadavg()
    with (
        tempfile.TemporaryDirectory() as tmp,
        sessions_key(tmp) as key,
        LocalPlatform.start(tmp, demo=True, speed="20", env={"HOME": tmp, "PRIME_SSH_KEY_PATH": key}) as lp,
    ):
        ids = asyncio.run(seed(lp, 2))
        env = env_for(lp, tmp)
        env["PRIMETUI_CACHE_DIR"] = os.path.join(tmp, "cache")
        env["PRIME_SSH_KEY_PATH"] = key
        has = lambda text: lambda screen: text in screen  # noqa: E731
        bare, _ = scene(
            [sys.executable, str(ROOT / "bench" / "bare_app.py")], env, secs, has("bare-run-2"), label="bare app"
        )
        idle_target = "≤ 1,000 B; CPU ≤ bare + 60 ms"
        if "a" in args.scenes:
            w, _ = scene([exe, "runs"], env, secs, has(ids[0][:8]), label="runs list")
            rows.append(row("(a) runs list, finished runs only", w, bare, "bare app", idle_target))
        if "b" in args.scenes:
            w, _ = scene([exe, "run", ids[0]], env, secs, has("COMPLETED"), label="run overview")
            rows.append(row("(b) a finished run's Overview", w, bare, "bare app", idle_target))
        if "c" in args.scenes:
            w, _ = scene([exe, "runs"], env, secs, has(ids[0][:8]), [("v", has("Used / free"), "volumes")])
            rows.append(row("(c) Volumes screen", w, bare, "bare app", idle_target))
        if "f" in args.scenes:
            try:
                w, _ = scene(
                    [exe, "runs"],
                    env,
                    secs,
                    has(ids[0][:8]),
                    [
                        ("v", has("GiB free"), "volumes"),
                        ("O", lambda s: "no sessions" not in s and " ready " in s, "a live session"),
                        ("\t", lambda s: True, "focus on the sessions"),
                        ("\r", lambda s: "$ " in s or "# " in s, "a shell prompt"),
                    ],
                )
                rows.append(row("(f) shell pane idle at a prompt", w, bare, "bare app", idle_target))
            except RuntimeError as exc:
                notes.append(f"(f) not measured: {str(exc).splitlines()[0]}")
                print(exc, file=sys.stderr)
        if any(x in args.scenes for x in "dse"):
            live = asyncio.run(running_run(lp))
            with LogFlood(Path(lp.data_dir) / "runs" / live, rate=10, tag="bench") as flood:
                time.sleep(3)
                if "d" in args.scenes:
                    w, _ = scene([exe, "run", live], env, secs, has("RUNNING"), [("3", has("flood bench"), "the log")])
                    cli, _ = scene(
                        [str(BIN / "prime"), "train", "logs", live, "-f"],
                        env,
                        secs,
                        has("flood bench"),
                        label="prime train logs -f",
                    )
                    rows.append(
                        row(
                            "(d) Logs tab, following, 10 lines/s",
                            w,
                            cli,
                            "`prime train logs -f`",
                            "CPU ≤ 2 %; ≤ 10 KB/s; ≤ 2 repaints/s",
                        )
                    )
                if "s" in args.scenes:
                    with PtyApp([exe, "run", live], env) as app:
                        app.wait_for(has("RUNNING"), label="the run")
                        app.send("3")
                        app.wait_for(has("flood bench"), label="the log")
                        app.wait_quiet(SETTLE, timeout=60)
                        for key in ("\x1b[A", "\x1b[5~", "\x1b[5~"):  # up, page up twice: scrolled back
                            app.send(key)
                        app.wait_for(has("○ scrolled"), label="the log scrolled back")
                        app.wait_quiet(SETTLE, timeout=60)
                        before = app.text()
                        w = app.measure(secs)
                        moved = changed_rows(before, app.text())
                    rows.append(
                        row(
                            "(s) Logs tab scrolled back, 10 lines/s",
                            w,
                            None,
                            "",
                            "only the status line's count changes",
                        )
                    )
                    notes.append(
                        f"(s) screen rows that changed over the window: {len(moved)}"
                        + (f" ({'; '.join(r.strip()[:60] for r in moved)})" if moved else "")
                    )
                if "e" in args.scenes:
                    with PtyApp([exe, "run", live], env) as app:
                        app.wait_for(has("RUNNING"), label="the run")
                        app.send("4")
                        app.wait_for(has("loss"), label="the charts")
                        app.wait_quiet(SETTLE, timeout=60)
                        w = app.measure(secs)
                        with stopped(trainer_pid(live)):
                            time.sleep(SETTLE + 5)  # points already written are read by the next poll (5 s)
                            still = app.measure(secs)
                    rows.append(
                        row("(e) Charts tab of the running run", w, None, "", "repaints only when a point arrives")
                    )
                    rows.append(
                        row("(e) same, trainer stopped (SIGSTOP): no point arrives", still, None, "", "0 B in 0 frames")
                    )
                notes.append(f"flood lines written during the bench: {flood.written:,}")
    load_end = os.getloadavg()
    text = "\n".join(
        [
            SECTION,
            "",
            f"`primetui` in a pty of its own (120x35), against a local platform, each scene measured over {secs:.0f} "
            f"s after "
            f"its screen is drawn and nothing has been written for {SETTLE:.0f} s; figures scaled to 30 s. Bytes are "
            f"what "
            "the app wrote to the terminal (they do not depend on the machine's load); a frame is a burst of output at "
            "least 50 ms after the one before (a repaint of the screen or of part of it); CPU is the process's user + "
            f"system time. 2 cores, load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} at the "
            f"start, "
            f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} at the end. Reproduce with "
            f"`uv run python bench/idle.py{'' if secs == 30 else f' --seconds {secs:.0f}'}`.",
            "",
            "| scene | primetui | baseline, same run | target |",
            "|---|---|---|---|",
            *rows,
            "",
            *[f"- {n}" for n in notes],
            "",
        ]
    )
    print(text)
    if args.write:
        from logview import write_section  # type: ignore[import-not-found]

        write_section(text, SECTION)


if __name__ == "__main__":
    main()
