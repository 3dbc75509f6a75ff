"""What ``primetui run ID --once`` adds to the run it prints: its anomalies and its loss chart.

The data comes from :mod:`primetui.viewmodel.run_data` (the same detector and thresholds as the
dashboard); this module formats it. No textual or rich import.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from primetui.monitor_core.escapes import neutralise
from primetui.viewmodel.run_data import run_anomalies, series, thresholds  # noqa: F401 - used by primetui.commands.headless


def format_anomalies(anomalies: list[dict[str, Any]]) -> list[str]:
    """The text form: one line per anomaly (and its log line, indented)."""
    if not anomalies:
        return ["  Anomalies:  none"]
    out = [f"  Anomalies:  {len(anomalies)}"]
    for a in anomalies:
        step = f"step {a['step']}" if a.get("step") is not None else "step -"
        out.append(f"    ! {step:<10} {a['kind']:<20} {a['component']:<12} {neutralise(str(a['message']))}")
        if a.get("line") and a["line"] not in a["message"]:
            out.append(f"        {neutralise(str(a['line']))[:160]}")
    return out


def loss_chart(detail: Mapping[str, Any]) -> str:
    """The loss curve as plain text (plotext), anomaly steps marked; '' without points."""
    from primetui.commands.chart import line_chart

    loss = (detail.get("series") or {}).get("loss/mean")
    if not loss:
        return ""
    marks = sorted({a["step"] for a in detail.get("anomalies") or [] if a.get("step") is not None})
    values = [v if v is not None else math.nan for v in loss["values"]]
    return line_chart({"loss/mean": (loss["steps"], values)}, title="loss/mean", marks=marks)
