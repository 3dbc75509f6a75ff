"""Wire models of the RL read routes: rollout samples (R11) and reward/advantage histograms (R13).

R12 (progress) is :class:`primetui.api.models.Progress`. The shapes are research/prime-rl-rl.md
§2.1 and §2.3: a sample row is the Parquet row prime-rl's orchestrator uploads (one per rollout),
a histogram the platform's binning of the raw values the orchestrator posted.

The boundary (:func:`sample_rows`, :func:`distribution_of`) makes a reply safe once:

- the JSON columns (``completion``, ``trajectory``, ``task``, ``info``, ``metrics``, ``timing``,
  and ``prompt`` when it holds messages) may arrive decoded or as JSON strings; a string is decoded
  under the same depth and size rules as a reply (:func:`primetui.api.boundary.loads`), and stays a
  string when it is not JSON;
- a number that is not one (a string, ``true``, an int too large for a float) becomes None and is
  counted in a note; a row that is not an object, or whose step is not a step, is dropped and
  counted;
- a histogram's bins are read from any of the spellings the CLI reads (``bins``,
  ``chartData.histogramData``, ``chart_data``, ``histogramData``, ``data``), with their edges from
  ``binStart``/``binEnd`` or from the ``range`` label.

Nothing here is drawn as it is: every text goes through the neutraliser where it is shown.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from primetui.api.boundary import TooDeep, TooMany, _number, loads, step_of

__all__ = [
    "DISTRIBUTION_TYPES",
    "Distribution",
    "HistogramBin",
    "HistogramStats",
    "Sample",
    "SamplesPage",
    "distribution_of",
    "sample_rows",
]

DISTRIBUTION_TYPES = ("rewards", "advantages")
"""The histogram types the orchestrator posts (research §2.0)."""

JSON_COLUMNS = ("completion", "trajectory", "task", "info", "metrics", "timing")
"""Columns prime-rl writes as JSON text into its Parquet upload; the platform may decode them or not."""

SAMPLES_PAGE_MAX = 100
"""Rows asked for per samples page: the CLI's own default page (``prime train rollouts --num``)."""


class _Wire(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True, extra="ignore", defer_build=True)


class Sample(_Wire):
    """One rollout (R11 row, snake_case on the wire: the orchestrator's Parquet columns)."""

    run_id: str | None = None
    """The run."""
    step: int
    """The training step the rollout was trained at."""
    tag: str = ""
    """Free tag; empty today."""
    problem_id: int | None = None
    """The task's index: rollouts with the same problem_id at one step are one group."""
    sample_id: int | None = None
    """Row index within the step's upload."""
    prompt: Any = ""
    """Empty today (the prompt is in ``task`` and ``completion``); legacy rows hold text or messages."""
    completion: Any = None
    """The final branch's messages (``[{role, content}]``), or text on legacy rows."""
    trajectory: Any = None
    """Every branch: ``[{messages, num_input_tokens, num_output_tokens, advantage}]``."""
    answer: Any = ""
    """Empty today (the answer is in ``task``); legacy rows hold it here."""
    env_name: str | None = None
    """The environment's id."""
    task: Any = None
    """The task data: ``{idx, prompt, system_prompt, answer, …}``."""
    info: Any = None
    """``native_wrapper`` (the episode: ``traces[].rewards {name: {score, weight}}``, stop condition) and more."""
    reward: float | None = None
    """The rollout's reward (Σ score × weight)."""
    advantage: float | None = None
    """Its advantage (reward minus the group's mean under GRPO)."""
    metrics: Any = None
    """Env metrics; on legacy (verifiers v0) rows the per-reward-function values."""
    timing: Any = None
    """Phase timings."""
    num_input_tokens: int | None = None
    """Prompt tokens of the last branch."""
    num_output_tokens: int | None = None
    """Completion tokens of the last branch."""
    created_at: str | None = None
    """When it was written, ISO 8601."""


class SamplesPage(_Wire):
    """R11 reply: one page of a step's samples."""

    _notes: list[str] = PrivateAttr(default_factory=list)

    run_id: str | None = None
    """The run."""
    samples: list[Sample] = Field(default_factory=list)
    """This page's rows."""
    total: int | None = None
    """Rows of the step."""
    page: int | None = None
    """This page (1-based)."""
    limit: int | None = None
    """Rows per page."""
    total_pages: int | None = None
    """Pages of the step."""

    @property
    def notes(self) -> list[str]:
        """What the wire boundary dropped or changed in this reply."""
        return self._notes


class HistogramBin(_Wire):
    """One bin of a histogram."""

    start: float
    """Lower edge."""
    end: float
    """Upper edge."""
    count: float
    """Values in the bin."""


class HistogramStats(_Wire):
    """``chartData.stats`` when the platform sends it (camelCase on the wire)."""

    mean: float | None = Field(default=None, alias="avgReward")
    median: float | None = Field(default=None, alias="medianReward")
    min: float | None = Field(default=None, alias="minReward")
    max: float | None = Field(default=None, alias="maxReward")
    total: float | None = Field(default=None, alias="totalResults")


class Distribution(_Wire):
    """R13 reply for one type at one step, bins in order of their lower edge."""

    _notes: list[str] = PrivateAttr(default_factory=list)

    type: str
    """``rewards`` or ``advantages``."""
    step: int | None = None
    """The step the bins are of (None: the platform did not say)."""
    bins: list[HistogramBin] = Field(default_factory=list)
    """The bins."""
    stats: HistogramStats | None = None
    """The platform's own stats, when sent."""

    @property
    def notes(self) -> list[str]:
        return self._notes

    @property
    def total(self) -> float:
        """Values counted over every bin."""
        return sum(b.count for b in self.bins)


# ---- samples ------------------------------------------------------------------------------------


def _decoded(value: Any, why: Counter[str]) -> Any:
    """A JSON column as data: a string holding a JSON object or list is decoded; other strings stay."""
    if not isinstance(value, str):
        return value
    text = value.lstrip()
    if not text or text[0] not in "[{":
        return value
    try:
        return loads(text)
    except (TooDeep, TooMany):
        why["a JSON column nested too deep"] += 1
        return None
    except ValueError:
        return value  # text that only starts like JSON: shown as text


def _int_or_none(value: Any, name: str, why: Counter[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not -(2**63) <= value < 2**63:
        why[f"{name} is not a whole number"] += 1
        return None
    return value


def _float_or_none(value: Any, name: str, why: Counter[str]) -> float | None:
    if value is None:
        return None
    number = _number(value)
    if number is None:
        why[f"{name} is not a number"] += 1
        return None
    return float(number)


def _text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _sample(row: dict[str, Any], why: Counter[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in JSON_COLUMNS:
        if key in row:
            out[key] = _decoded(row[key], why)
    prompt = row.get("prompt", "")
    out["prompt"] = _decoded(prompt, why) if isinstance(prompt, str) and prompt.lstrip().startswith("[") else prompt
    out["answer"] = row.get("answer", "")
    for key in ("problem_id", "sample_id", "num_input_tokens", "num_output_tokens"):
        out[key] = _int_or_none(row.get(key), key, why)
    for key in ("reward", "advantage"):
        out[key] = _float_or_none(row.get(key), key, why)
    for key in ("run_id", "env_name", "created_at"):
        out[key] = _text_or_none(row.get(key))
    out["tag"] = _text_or_none(row.get("tag")) or ""
    return out


def sample_rows(raw: Any, step: int | None = None) -> tuple[list[Sample], list[str]]:
    """R11 rows made safe (see the module docstring), and notes on what was dropped or changed.

    A row without a step takes ``step`` (the one asked for); a row whose step is not a step is dropped.
    """
    samples: list[Sample] = []
    dropped: Counter[str] = Counter()
    why: Counter[str] = Counter()
    for row in raw if isinstance(raw, list) else []:
        if not isinstance(row, dict):
            dropped["not an object"] += 1
            continue
        value = row.get("step", step)
        row_step, reason = step_of(value)
        if row_step is None:
            dropped[reason] += 1
            continue
        samples.append(Sample.model_construct(step=row_step, **_sample(row, why)))
    notes = [f"{n:,} sample{'s' if n != 1 else ''} ignored: {w}" for w, n in sorted(dropped.items())]
    notes += [f"{n:,} sample value{'s' if n != 1 else ''} ignored: {w}" for w, n in sorted(why.items())]
    return samples, notes


# ---- distributions ------------------------------------------------------------------------------

_RANGE = re.compile(r"^\s*(-?[\d.]+(?:e-?\d+)?)\s*(?:-|–|to|,)\s*(-?[\d.]+(?:e-?\d+)?)\s*$", re.I)


def _bins_list(data: dict[str, Any]) -> list[Any] | None:
    for key in ("chartData", "chart_data"):
        chart = data.get(key)
        if isinstance(chart, dict):
            for inner in ("histogramData", "histogram_data", "bins", "data"):
                if isinstance(found := chart.get(inner), list):
                    return found
    for key in ("bins", "histogramData", "histogram_data", "data"):
        if isinstance(found := data.get(key), list):
            return found
    return None


def _edges(item: dict[str, Any]) -> tuple[float | None, float | None]:
    start = _number(item.get("binStart", item.get("bin_start", item.get("start", item.get("min")))))
    end = _number(item.get("binEnd", item.get("bin_end", item.get("end", item.get("max")))))
    if start is None or end is None:
        label = item.get("range", item.get("label", item.get("bin")))
        match = _RANGE.match(label) if isinstance(label, str) else None
        if match:
            try:
                start, end = float(match.group(1)), float(match.group(2))
            except ValueError:
                return None, None
    if start is None or end is None or not (math.isfinite(start) and math.isfinite(end)):
        return None, None
    return float(min(start, end)), float(max(start, end))


def _count(item: dict[str, Any]) -> float | None:
    for key in ("count", "value", "frequency", "total"):
        number = _number(item.get(key))
        if number is not None and math.isfinite(number) and number >= 0:
            return float(number)
    return None


def _stats(data: dict[str, Any]) -> HistogramStats | None:
    chart = data.get("chartData", data.get("chart_data"))
    raw = chart.get("stats") if isinstance(chart, dict) else None
    raw = raw if isinstance(raw, dict) else data.get("stats")
    if not isinstance(raw, dict):
        return None
    clean: dict[str, float] = {}
    for key in ("avgReward", "medianReward", "minReward", "maxReward", "totalResults"):
        number = _number(raw.get(key))
        if number is not None and math.isfinite(number):
            clean[key] = float(number)
    return HistogramStats.model_validate(clean) if clean else None


MAX_BINS = 1000
"""Bins kept from one histogram; a platform that sends more is cut with a note."""


def distribution_of(data: Any, kind: str, step: int | None = None) -> Distribution:
    """An R13 reply made safe: bins with finite edges and non-negative counts, in edge order."""
    data = data if isinstance(data, dict) else {}
    raw = _bins_list(data) or []
    bins: list[HistogramBin] = []
    bad = 0
    for item in raw[:MAX_BINS]:
        start, end = _edges(item) if isinstance(item, dict) else (None, None)
        count = _count(item) if isinstance(item, dict) else None
        if start is None or end is None or count is None:
            bad += 1
            continue
        bins.append(HistogramBin(start=start, end=end, count=count))
    bins.sort(key=lambda b: (b.start, b.end))
    reply_step, _ = step_of(data.get("step"))
    result = Distribution(type=kind, step=reply_step if reply_step is not None else step, bins=bins, stats=_stats(data))
    if bad:
        result.notes.append(f"{bad:,} histogram bin{'s' if bad != 1 else ''} ignored: no readable edges or count")
    if len(raw) > MAX_BINS:
        result.notes.append(f"the platform sent {len(raw):,} histogram bins; showing the first {MAX_BINS:,}")
    return result
