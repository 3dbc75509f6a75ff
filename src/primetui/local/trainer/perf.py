"""Throughput and MFU over a 10-step window (as prime-rl's ``perf.py``), and CPU peak memory.

MFU on a CPU: achieved model FLOPs per second over the peak FP32 FLOP rate of the cores numpy
may use (threads x clock x FLOPs/cycle: 64 with AVX-512, 32 with two AVX2 FMA units, 8 without).
The clock comes from /proc/cpuinfo; without it MFU is reported as 0.0. The peak is an estimate
(a boost clock above the one /proc/cpuinfo shows, more BLAS threads than asked): a window that
achieves more than it raises the peak to the rate reached, so MFU never reads over 100 %.
"""

from __future__ import annotations

import os
import resource
from collections import deque

FLOPS_PER_CYCLE_FP32 = 32


def cpu_peak_flops(threads: int, cpuinfo: str = "/proc/cpuinfo") -> float:
    mhz = 0.0
    flags: set[str] = set()
    try:
        with open(cpuinfo, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("cpu MHz"):
                    mhz = max(mhz, float(line.split(":", 1)[1]))
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except (OSError, ValueError):
        return 0.0
    per_cycle = 64 if "avx512f" in flags else FLOPS_PER_CYCLE_FP32 if ("avx2" in flags or not flags) else 8
    return threads * mhz * 1e6 * per_cycle


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
        """Percent of the peak over the window, at most 100 (a rate above the estimated peak becomes the peak)."""
        if len(self.times) < 2 or self.peak_flops <= 0:
            return None
        span = self.times[-1] - self.times[0]
        if span <= 0:
            return None
        rate = sum(list(self.flops)[1:]) / span
        self.peak_flops = max(self.peak_flops, rate)
        return 100.0 * rate / self.peak_flops
