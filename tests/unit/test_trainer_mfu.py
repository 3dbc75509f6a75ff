"""The local trainer's MFU (issue 41, finding 11): it showed over 100 % when the peak was estimated too low."""

from __future__ import annotations

from primetui.local.trainer.perf import PerfCounter, cpu_peak_flops


def test_mfu_never_reads_over_100_percent():
    perf = PerfCounter(peak_flops=1e9)
    for second in range(5):
        perf.count(float(second), tokens=100, flops=3e9)  # 3 GFLOP/s against a 1 GFLOP/s estimate
    assert perf.mfu() == 100.0  # was 300.0
    perf.count(5.0, tokens=100, flops=1.5e9)
    perf.count(6.0, tokens=100, flops=1.5e9)
    mfu = perf.mfu()
    assert mfu is not None and 0 < mfu < 100  # measured against the peak reached since


def test_the_peak_counts_the_vector_width_the_cpu_has(tmp_path):
    def peak(flags: str) -> float:
        info = tmp_path / "cpuinfo"
        info.write_text(f"processor\t: 0\ncpu MHz\t\t: 1000.000\nflags\t\t: {flags}\n")
        return cpu_peak_flops(2, str(info))

    assert peak("fpu sse2 avx avx2 fma") == 2 * 1e9 * 32
    assert peak("fpu sse2 avx avx2 fma avx512f") == 2 * 1e9 * 64  # was 32: twice the MFU an AVX-512 core reads
    assert peak("fpu sse2") == 2 * 1e9 * 8
