"""Pods of a multi-node run: each node's latest step time, the slowest node, the failed one.

Read from what every platform gives: each pod's own log stream (R7 with ``pod_index``), whose step
lines carry prime-rl's step time (``Step 4 |    1.2s | ...``), and the run's ``errorMessage``,
which names the pod that brought the run down (``Pod <runId>-trainer-3 ... failed``).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_STEP = re.compile(r"\bStep (\d+) \|\s*((?:\d+(?:\.\d+)?(?:ms|s|m|h|d)\s?)+)\s*\|")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_POD_IN_ERROR = re.compile(r"-(trainer|inference)-(\d+)\b")


def parse_duration(text: str) -> float | None:
    """prime-rl's ``format_time`` back to seconds: ``850ms``, ``8.5s``, ``2m 5s``, ``1h 3m``."""
    parts = _PART.findall(text)
    if not parts:
        return None
    return sum(float(n) * _UNITS[u] for n, u in parts)


def step_time(line: str) -> tuple[int, float] | None:
    """(step, seconds) of a trainer step line, or None."""
    match = _STEP.search(_ANSI.sub("", line) if "\x1b" in line else line)
    if not match:
        return None
    seconds = parse_duration(match.group(2))
    return (int(match.group(1)), seconds) if seconds is not None else None


def failed_pod(error: str | None, component: str = "trainer") -> int | None:
    """The pod index the run's error message names (``...-trainer-3 ...``), or None."""
    for comp, index in _POD_IN_ERROR.findall(error or ""):
        if comp == component:
            return int(index)
    return None


@dataclass
class PodBoard:
    """The latest step and its time per pod, fed with each pod's raw log lines."""

    pods: list[int]
    steps: dict[int, tuple[int, float]] = field(default_factory=dict)
    errors: set[int] = field(default_factory=set)

    def observe(self, pod: int, lines: list[str]) -> bool:
        """Take new lines of ``pod``; True when its step or error state changed."""
        changed = False
        for line in lines:
            got = step_time(line)
            if got is not None and got[0] >= self.steps.get(pod, (-1, 0.0))[0]:
                self.steps[pod] = got
                changed = True
            elif " ERROR " in line and pod not in self.errors:
                self.errors.add(pod)
                changed = True
        return changed

    def slowest(self) -> tuple[int, int, float, float] | None:
        """(pod, step, seconds, median seconds) at the latest step every reporting pod reached."""
        if len(self.steps) < 2:
            return None
        step = min(s for s, _ in self.steps.values())
        at = {p: t for p, (s, t) in self.steps.items() if s == step} or {p: t for p, (_, t) in self.steps.items()}
        pod = max(sorted(at), key=lambda p: at[p])
        return pod, step, at[pod], statistics.median(at.values())

    def summary(self, error: str | None, label: str = "trainer") -> str:
        """One line: how many pods, the slowest, the failed one."""
        bits = [f"{len(self.pods)} {label} pods"]
        latest = max((s for s, _ in self.steps.values()), default=None)
        if latest is not None:
            bits.append(f"step {latest}")
        slow = self.slowest()
        if slow is not None:
            pod, step, secs, median = slow
            bits.append(f"slowest {label}/{pod}: {secs:.2f}s at step {step} (median {median:.2f}s)")
        failed = failed_pod(error, label)
        if failed is not None:
            bits.append(f"FAILED {label}/{failed}")
        elif self.errors:
            bits.append("errors in " + ", ".join(f"{label}/{p}" for p in sorted(self.errors)))
        return " · ".join(bits)
