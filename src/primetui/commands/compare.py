"""``primetui compare A B [C…] --once [--json]`` and ``primetui compare --config a.toml b.toml``.

What the compare screen shows, printed: a summary table (final and best loss, best eval, steps,
duration, status, anomalies), the config keys that differ (defaults marked as such) and the loss
curves overlaid by step. JSON carries ``runs`` (each with its ``series`` by metric name) and
``config_diff`` (dotted keys). No textual or rich import. Exit codes as ``primetui run --once``.
"""

from __future__ import annotations

import json
import math
import sys
import tomllib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from primetui.commands.exits import EXIT_CONFIG, EXIT_REFUSED, EXIT_USAGE
from primetui.viewmodel.run_columns import headline_label
from primetui.viewmodel.run_data import headline_cells
from primetui.monitor_core.numbers import fmt_loss
from primetui.monitor_core.escapes import neutralise
from primetui.viewmodel.run_data import collect, diff_json


def _num(v: float | None) -> str:
    return "-" if v is None or not math.isfinite(v) else fmt_loss(v)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    cells = [header, *rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]


def format_summary(runs: list[dict[str, Any]]) -> list[str]:
    what = headline_label((r.get("kind", "sft") for r in runs), upper=True)  # LOSS, REWARD or LOSS/REWARD
    header = ["RUN", "STATUS", "STEPS", f"FINAL {what}", f"BEST {what}", "BEST EVAL", "DURATION", "ANOMALIES"]
    rows = []
    for r in runs:
        final, best = headline_cells(r, _num)
        ev = f"{_num(r['best_eval'])} @{r['best_eval_step']}" if r["best_eval"] is not None else "-"
        flags = ", ".join(sorted({a["kind"] for a in r["anomalies"]}))
        name = neutralise(r["id"] + (f" ({r['name']})" if r["name"] else ""))
        rows.append(
            [
                name,
                r["status"],
                str(r["steps"] if r["steps"] is not None else "-"),
                final,
                best,
                ev,
                r["duration"],
                f"{len(r['anomalies'])} {flags}".strip() if r["anomalies"] else "0",
            ]
        )
    return _table(header, rows)


def format_diff(labels: list[str], diff: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    if not diff:
        return ["  (the configs are the same, defaults included)"]
    from primetui.sft.diff import Value

    rows = [
        [key, *[neutralise(Value(v[label]["value"], v[label]["source"]).text()) for label in labels]]
        for key, v in diff.items()
    ]
    return _table(["KEY", *[neutralise(label) for label in labels]], rows)


def format_compare(data: dict[str, Any]) -> str:
    runs = data["runs"]
    labels = [r["id"] for r in runs]
    lines = [
        f"Compare {', '.join(neutralise(x) for x in labels)}",
        "",
        "Summary",
        *format_summary(runs),
        "",
        "Config diff",
        *format_diff(labels, data["config_diff"]),
    ]
    for metric in ("loss/mean", *sorted({r["eval_key"] for r in runs if r["eval_key"]})):
        chart = overlay_chart(runs, metric)
        if chart:
            lines += ["", chart]
    return "\n".join(lines)


def overlay_chart(runs: list[dict[str, Any]], metric: str) -> str:
    """The runs' ``metric`` overlaid, each run by its own marker, and the legend under it: every
    run's number, marker and name (a run without the metric says so)."""
    from primetui.commands.chart import line_chart, overlay_marker

    series, markers, legend = {}, {}, []
    for n, r in enumerate(runs):
        s = r["series"].get(metric)
        label = neutralise(r["id"] + (f" ({r['name']})" if r["name"] else ""))
        if s:
            series[r["id"]] = (s["steps"], [v if v is not None else math.nan for v in s["values"]])
            markers[r["id"]] = overlay_marker(n)
        legend.append(
            f"  {n + 1:>{len(str(len(runs)))}} {overlay_marker(n) if s else ' '} {label}"
            + ("" if s else f"  (no {metric})")
        )
    chart = line_chart(series, title=metric, markers=markers) if series else ""
    return "\n".join([chart, "  Legend", *legend]) if chart and len(runs) > 1 else chart


def _load_config(path: str) -> dict[str, Any]:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} cannot be read ({exc.__class__.__name__}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path} is not valid TOML ({exc}).") from None


def compare_files(paths: list[str], as_json: bool, out: TextIO) -> int:
    """Diff sft.toml files before dispatch (no platform needed)."""
    try:
        configs = [_load_config(p) for p in paths]
    except ValueError as exc:
        print(f"primetui: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    diff = diff_json(paths, configs)
    if as_json:
        json.dump({"files": paths, "config_diff": diff}, out, indent=2)
        out.write("\n")
    else:
        out.write(
            "\n".join([f"Config diff {' vs '.join(neutralise(p) for p in paths)}", *format_diff(paths, diff)]) + "\n"
        )
    return 0


async def _main(args: Any, out: TextIO, notes: list[str]) -> int:
    from primetui.commands.headless import _settings
    from primetui.commands.launch import make_client

    settings = _settings(bool(getattr(args, "local", False)))
    if not getattr(settings, "api_key", ""):
        print("No API key configured. Run `prime login`, set PRIME_API_KEY, or add --local.", file=sys.stderr)
        return EXIT_CONFIG
    client = make_client(settings)
    try:
        data = await collect(client, list(args.targets), datetime.now(timezone.utc), notes)
    finally:
        close = getattr(client, "aclose", None)
        if close:
            await close()
    if args.json:
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        out.write(format_compare(data) + "\n")
    return 0


def main(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    targets = list(getattr(args, "targets", []) or [])
    if len(targets) < 2:
        print("primetui: compare needs at least two runs (or two files with --config).", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "config", False):
        return compare_files(targets, bool(args.json), out)
    if len(set(targets)) != len(targets):
        print("primetui: each run can be compared once; remove the repeated id.", file=sys.stderr)
        return EXIT_USAGE
    from primetui.commands.headless import run_guarded

    notes: list[str] = []
    return run_guarded(lambda: _main(args, out, notes), notes, "primetui compare --once")
