"""The Evals pane: online-eval results by step (a table) and a chart per eval metric."""

from __future__ import annotations

import math
from typing import Any

from textual.app import ComposeResult

from primetui.ui.safe import SafeTable
from primetui.monitor_core.chartframe import fmt_step, fmt_value
from primetui.ui.monitor.charts_pane import ChartsPane


def eval_results(table) -> list[tuple[float, str, dict[str, float]]]:
    """(step, env, {metric: value}) for every eval recorded, newest first."""
    out: dict[tuple[float, str], dict[str, float]] = {}
    for key, series in table.series.items():
        if not key.startswith("eval/") or key.count("/") < 2:
            continue
        _, env, metric = key.split("/", 2)
        for step, value in zip(series.steps.tolist(), series.values.tolist()):
            out.setdefault((step, env), {})[metric] = value
    return [(step, env, vals) for (step, env), vals in sorted(out.items(), key=lambda kv: (-kv[0][0], kv[0][1]))]


class EvalsPane(ChartsPane):
    """``EvalsPane(client, run)``: every eval metric charted, and each eval's results in a table."""

    _ready = False
    DEFAULT_CSS = """
    EvalsPane > DataTable { height: auto; max-height: 9; }
    """

    def __init__(self, client: Any, run: Any, **kw: Any) -> None:
        kw.setdefault("keys", ())
        kw.setdefault("eval_only", True)
        super().__init__(client, run, **kw)
        self._results = SafeTable(cursor_type="row", zebra_stripes=True)

    def compose(self) -> ComposeResult:
        yield self._results
        yield from super().compose()

    def on_mount(self) -> None:
        self._ready = True
        for key, label in (
            ("step", "Step"),
            ("env", "Environment"),
            ("reward", "Reward mean"),
            ("count", "Samples"),
            ("other", "Other"),
        ):
            self._results.add_column(label, key=key)
        super().on_mount()
        self._fill_results()

    def add_metrics(self, rows: list[dict]) -> None:
        super().add_metrics(rows)
        self._fill_results()

    def _fill_results(self) -> None:
        if not self._ready:
            return
        t = self._results
        t.clear()
        results = eval_results(self.table)
        if not results:
            t.add_row("-", "no eval results yet", "", "", "evals run every eval.interval steps", key="none")
            return
        for step, env, vals in results[:200]:
            reward = next((v for k, v in vals.items() if k.endswith("reward/mean") or k == "reward"), math.nan)
            count = next((v for k, v in vals.items() if k.endswith("count") or k.endswith("num_samples")), math.nan)
            other = "  ".join(
                f"{k}={fmt_value(v)}"
                for k, v in sorted(vals.items())
                if not (k.endswith("reward/mean") or k == "reward" or k.endswith("count") or k.endswith("num_samples"))
            )
            t.add_row(
                fmt_step(step),
                env,
                fmt_value(reward),
                "" if count != count else fmt_step(count),
                other[:80],
                key=f"{step}-{env}",
            )
