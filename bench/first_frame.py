"""Time to the first useful frame: the dashboard's runs list filled, vs `prime train list`.

Both run against the same local platform (demo data plus a few finished runs), side by side,
in the same process, several times each (median reported):

- primetui: `primetui runs` started inside a private tmux server (120x36); the clock stops when
  `tmux capture-pane` first shows a run id in the table. That is what a user sees, including
  Python start-up, imports, the first poll and the paint.
- prime CLI: `prime train list` (the official CLI 0.18.0 in this venv) from start to exit.

    uv run python bench/first_frame.py [--repeat 5] [--write] [--baseline OTHER/.venv/bin/primetui]

``--write`` replaces the `## First frame` section of docs/performance.md with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


async def seed(lp, n: int) -> list[str]:
    from primetui.api.client import PrimeClient

    cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
    cfg["max_steps"] = 3
    async with PrimeClient(lp.base_url, lp.token) as c:
        ids = [(await c.create_run(cfg, volume="research")).run_id for _ in range(n)]
        while True:
            runs = {r.id: r.status for r in (await c.list_runs(limit=50)).runs}
            if all(runs.get(i) in ("COMPLETED", "FAILED", "STOPPED") for i in ids):
                return ids
            await asyncio.sleep(0.3)


def env_for(lp, home: str, pycache: str | None = None, write_bytecode: bool = True) -> dict[str, str]:
    """The programs' environment; with ``pycache``, Python keeps bytecode there (PYTHONPYCACHEPREFIX).

    With a prefix every program reads and writes its .pyc files in that one fresh tree (the
    warm-up runs fill it), as on a machine where Python can keep its bytecode, whatever the
    environment says (PYTHONDONTWRITEBYTECODE) and whatever each install's __pycache__ holds.
    With ``write_bytecode`` False the prefix stays empty: every start compiles every module, as
    the very first start of a fresh install does.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIME")}
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
        if not write_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(
        HOME=home,
        PRIME_BASE_URL=lp.base_url,
        PRIME_API_KEY=lp.token,
        PRIME_DISABLE_VERSION_CHECK="1",
        PRIMETUI_CONFIG_DIR=os.path.join(home, "cfg"),
        TERM="xterm-256color",
    )
    return env


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a live process (all its threads), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_dashboard(
    env: dict[str, str], run_ids: list[str], sock: str, cache_dir: str, exe: Path | None = None
) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the dashboard process) until the runs list shows a run id."""
    env = dict(env, PRIMETUI_CACHE_DIR=cache_dir)
    exports = " ".join(
        f"{k}='{v}'" for k, v in env.items() if k.startswith(("PRIME", "HOME", "TERM", "PATH", "PYTHONPYCACHEPREFIX"))
    )
    unset = (
        "" if "PYTHONDONTWRITEBYTECODE" in env else "-u PYTHONDONTWRITEBYTECODE "
    )  # the tmux server has the bench's env
    cmd = f"exec env {unset}{exports} {exe or BIN / 'primetui'} runs"
    start = time.perf_counter()
    subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-s", "ff", "-x", "120", "-y", "36", cmd], check=True)
    pid = 0
    try:
        while True:
            screen = subprocess.run(
                ["tmux", "-L", sock, "capture-pane", "-p", "-t", "ff"], capture_output=True, text=True
            ).stdout
            if any(r in screen for r in run_ids):
                elapsed = time.perf_counter() - start
                if not pid:
                    pid = pane_pid(sock)
                return elapsed, cpu_seconds(pid) if pid else float("nan")
            if not pid:
                pid = pane_pid(sock)
            if time.perf_counter() - start > 60:
                raise RuntimeError("the dashboard never showed the runs:\n" + screen)
            time.sleep(0.005)
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)


def pane_pid(sock: str) -> int:
    out = subprocess.run(
        ["tmux", "-L", sock, "display-message", "-p", "-t", "ff", "#{pane_pid}"], capture_output=True, text=True
    ).stdout
    return int(out.strip()) if out.strip().isdigit() else 0


def time_cli(env: dict[str, str], run_ids: list[str]) -> float:
    start = time.perf_counter()
    out = subprocess.run([str(BIN / "prime"), "train", "list"], capture_output=True, text=True, env=env, timeout=120)
    elapsed = time.perf_counter() - start
    if out.returncode != 0 or not any(r[:8] in out.stdout for r in run_ids):
        raise RuntimeError(f"prime train list failed ({out.returncode}): {out.stderr or out.stdout}")
    return elapsed


def write_section(text: str) -> None:
    path = ROOT / "docs" / "performance.md"
    doc = path.read_text() if path.exists() else "# Performance\n"
    head = "## First frame"
    if head in doc:
        before, rest = doc.split(head, 1)
        after = rest.split("\n## ", 1)
        doc = before + text + ("\n## " + after[1] if len(after) > 1 else "")
    else:
        doc = doc.rstrip() + "\n\n" + text
    path.write_text(doc)


def fmt_runs(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="PRIMETUI",
        help="another build's primetui executable, timed in the same rounds (A/B)",
    )
    parser.add_argument(
        "--keep-bytecode",
        action="store_true",
        help="run every program with its bytecode kept in one fresh PYTHONPYCACHEPREFIX (filled by the "
        "warm-up), as on a machine where Python writes .pyc files (default: the environment's "
        "bytecode settings and each install's __pycache__ as they are)",
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run every program with no bytecode at all (an empty PYTHONPYCACHEPREFIX that is never "
        "written): each start compiles every module, as the first start of a fresh install",
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed for this benchmark")
    from primetui.local.testing import LocalPlatform

    builds: list[tuple[str, Path | None]] = [("this build", None)]
    if args.baseline:
        builds.append(("baseline", args.baseline.resolve()))
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp, demo=True, speed="20") as lp:
        run_ids = asyncio.run(seed(lp, args.runs))
        prefix = os.path.join(tmp, "pycache") if args.keep_bytecode or args.no_bytecode else None
        env = env_for(lp, tmp, prefix, write_bytecode=not args.no_bytecode)
        time_cli(env, run_ids)  # warm the OS file cache (and the bytecode) for both programs once
        warm = {}
        for n, (_, exe) in enumerate(builds):
            warm[n] = os.path.join(tmp, f"warm-cache-{n}")
            time_dashboard(env, run_ids, f"ff-{os.getpid()}-w{n}", warm[n], exe)  # also fills the runs cache
        # per build: cached (wall, cpu), cold (wall, cpu)
        dash = {n: [] for n in warm}
        cold = {n: [] for n in warm}
        cli: list[float] = []
        for i in range(args.repeat):  # interleaved, so machine load hits all of them alike
            for n, (_, exe) in enumerate(builds):
                dash[n].append(time_dashboard(env, run_ids, f"ff-{os.getpid()}-{n}-{i}", warm[n], exe))
                cold[n].append(
                    time_dashboard(env, run_ids, f"ff-{os.getpid()}-{n}-c{i}", os.path.join(tmp, f"cold-{n}-{i}"), exe)
                )
            cli.append(time_cli(env, run_ids))
    load = os.getloadavg()[0]
    c = statistics.median(cli)
    lines = [
        "## First frame",
        "",
        "Time from launch to the runs list on screen, against the same local platform "
        f"({len(run_ids)} finished runs plus whatever the demo holds), median of {args.repeat} interleaved runs "
        f"on this machine (2 cores, load average {load:.1f} while measuring), "
        + (
            "every program with its bytecode kept (a fresh PYTHONPYCACHEPREFIX filled by one warm-up start)"
            if args.keep_bytecode
            else "every program with no bytecode at all (each start compiles every module, as a fresh install's "
            "first start)"
            if args.no_bytecode
            else "with the environment's bytecode settings as they are"
            + (" (PYTHONDONTWRITEBYTECODE=1: no .pyc written)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "")
        )
        + ". CPU is the dashboard process's user + system time (all threads) at the moment the list shows:",
        "",
        "| | median | CPU (median) | runs (s) |",
        "|---|---|---|---|",
    ]
    ratios = []
    for n, (name, _) in enumerate(builds):
        tag = f" ({name})" if len(builds) > 1 else ""
        for label, samples in (
            ("runs list filled (from the on-disk cache of the last session)", dash[n]),
            ("first start ever (no cache: live reply)", cold[n]),
        ):
            walls = [w for w, _ in samples]
            cpus = [u for _, u in samples]
            lines.append(
                f"| `primetui runs`{tag} under tmux, {label} | **{statistics.median(walls) * 1000:.0f} ms** | "
                f"{statistics.median(cpus) * 1000:.0f} ms | {fmt_runs(walls)} |"
            )
        # Load on a shared machine drifts between rounds; the ratio within one round (same load)
        # is the robust figure, so the headline is the median of per-round ratios.
        ratios.append(
            (
                tag,
                statistics.median(x[0] / y for x, y in zip(dash[n], cli)),
                statistics.median(x[0] / y for x, y in zip(cold[n], cli)),
            )
        )
    lines.append(f"| `prime train list` (official CLI 0.18.0, to exit) | **{c * 1000:.0f} ms** | | {fmt_runs(cli)} |")
    lines.append("")
    for tag, ratio, ratio_cold in ratios:
        lines.append(
            f"Ratio{tag} (median of the per-round ratios): the dashboard's first useful frame takes **{ratio:.2f}×** "
            f"the CLI's "
            f"wall time with the cache (goal: at most 0.5×), **{ratio_cold:.2f}×** on a first start without one."
        )
        lines.append("")
    lines += [
        'The cached list is marked "◌ cached HH:MM · refreshing" in the header until the live reply replaces it.',
        "",
        "Reproduce: `uv run python bench/first_frame.py --repeat 5 --write` (`--keep-bytecode`: with .pyc files kept; "
        "`--no-bytecode`: none at all, every module compiled; `--baseline OTHER/.venv/bin/primetui`: another build "
        "in the same rounds).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
