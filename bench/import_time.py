"""Import time of the headless core (`primetui.api`) next to Textual's, measured side by side.

Each sample is a fresh interpreter (`python -c`) that times one import with perf_counter, so
nothing is cached in-process; samples of all modules are interleaved so machine load hits them
alike. Prints a table and, with --write, replaces the `## Import time` section of
docs/performance.md (other sections stay intact).

    uv run python bench/import_time.py [--repeats 9] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
from pathlib import Path

MODULES = [
    ("primetui.api", "the core package (names load lazily)"),
    ("primetui.api.client", "PrimeClient + wire models + errors (httpx, pydantic)"),
    ("primetui.api.followers", "followers (pulls in the client)"),
    ("primetui.config.settings", "settings shared with the prime CLI"),
    ("textual", "Textual's package"),
    ("textual.app", "Textual's App (what any UI needs)"),
]

SNIPPET = "import time; t = time.perf_counter(); import {mod}; print(time.perf_counter() - t)"
DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
HEADING = "## Import time"


def sample(module: str) -> float:
    out = subprocess.run([sys.executable, "-c", SNIPPET.format(mod=module)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def measure(repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {m: [] for m, _ in MODULES}
    for m, _ in MODULES:  # warm the OS file cache once, not counted
        sample(m)
    for _ in range(repeats):
        for m, _ in MODULES:
            times[m].append(sample(m))
    return times


def render(times: dict[str, list[float]], repeats: int) -> str:
    med = {m: statistics.median(v) * 1000 for m, v in times.items()}
    lines = [
        HEADING,
        "",
        "Import time of the headless core next to Textual's, in fresh interpreters (median of "
        f"{repeats} interleaved runs, same machine, same run). Reproduce with "
        "`uv run python bench/import_time.py --write`.",
        "",
        "| module | what | median ms | min ms | max ms |",
        "|---|---|---:|---:|---:|",
    ]
    for m, what in MODULES:
        v = [x * 1000 for x in times[m]]
        lines.append(f"| `{m}` | {what} | {med[m]:.1f} | {min(v):.1f} | {max(v):.1f} |")
    low = {m: min(v) * 1000 for m, v in times.items()}
    lines += [
        "",
        "The minimum is the estimate least disturbed by the machine's load, "
        "so the comparison uses it: "
        f"`import primetui.api` {low['primetui.api']:.0f} ms vs `import textual` {low['textual']:.0f} ms; "
        f"the whole platform client (`primetui.api.client`: httpx, pydantic, every wire model) "
        f"{low['primetui.api.client']:.0f} ms vs `textual.app` {low['textual.app']:.0f} ms "
        f"({low['textual.app'] / low['primetui.api.client']:.1f}x). Headless commands "
        "(`primetui validate`, `primetui runs --once`) never load Textual or rich at all.",
        "",
        f"Machine: Python {platform.python_version()}, {platform.machine()}, "
        f"{platform.system()}, {os.cpu_count()} cores, load average {_load()} at the end of the run "
        "(absolute numbers vary with the load by up to 2x; compare rows of the same run only).",
        "",
    ]
    return "\n".join(lines)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_section(text: str) -> None:
    doc = DOC.read_text() if DOC.exists() else "# Performance\n\n"
    pattern = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(doc):
        doc = pattern.sub(lambda _: text + "\n", doc, count=1)
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(doc.rstrip("\n") + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--write", action="store_true", help="update docs/performance.md")
    args = parser.parse_args()
    text = render(measure(args.repeats), args.repeats)
    print(text)
    if args.write:
        write_section(text)
        print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
