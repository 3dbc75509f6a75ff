"""Throughput and MFU over a 10-step window (as prime-rl's ``perf.py``), and CPU peak memory.

MFU on a CPU: achieved model FLOPs per second over the peak FP32 FLOP rate of the cores numpy
may use (threads x clock x 32 FLOPs/cycle, i.e. two AVX2 FMA units). The clock comes from
/proc/cpuinfo; without it MFU is reported as 0.0.
"""

from __future__ import annotations

import os
import resource
from collections import deque

FLOPS_PER_CYCLE_FP32 = 32


def cpu_peak_flops(threads: int) -> float:
    mhz = 0.0
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("cpu MHz"):
                    mhz = max(mhz, float(line.split(":", 1)[1]))
    except (OSError, ValueError):
        return 0.0
    return threads * mhz * 1e6 * FLOPS_PER_CYCLE_FP32


def total_memory_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return 0.0


def peak_rss_gib() -> float:
    """Peak resident set size of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


class PerfCounter:
    """Tokens/s and MFU over the last ``window`` steps; ``None`` until two steps are known."""

    def __init__(self, peak_flops: float, window: int = 10) -> None:
        self.peak_flops = peak_flops
        self.times: deque[float] = deque(maxlen=window)
        self.tokens: deque[int] = deque(maxlen=window)
        self.flops: deque[float] = deque(maxlen=window)

    def count(self, when: float, tokens: int, flops: float) -> None:
        self.times.append(when)
        self.tokens.append(tokens)
        self.flops.append(flops)

    def tokens_per_second(self) -> float | None:
        if len(self.times) < 2:
            return None
        span = self.times[-1] - self.times[0]
        return sum(list(self.tokens)[1:]) / span if span > 0 else None

    def mfu(self) -> float | None:
        if len(self.times) < 2 or self.peak_flops <= 0:
            return None
        span = self.times[-1] - self.times[0]
        return 100.0 * sum(list(self.flops)[1:]) / span / self.peak_flops if span > 0 else None
