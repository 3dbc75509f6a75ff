"""A recorded run with trouble added after step 10: a CUDA error at step 13, a loss spike at step 14.

Fed into the run screen's panes as the followers would (``ChartsPane.add_metrics``,
``LogsPane.ingest``), on top of the recorded COMPLETED run of the replay set.
"""

from __future__ import annotations

SPIKE_STEP = 14
ERROR_STEP = 13


def rows(t10: float = 1_790_000_000.0) -> list[dict]:
    """Steps 11-18, 2.4 s apart after step 10 (at unix time ``t10``)."""
    out = []
    for step in range(11, 19):
        loss = 5.555 - 0.004 * (step - 11)  # the recorded run ends at 5.560
        if step in (SPIKE_STEP, SPIKE_STEP + 1):
            loss = 41.7
        out.append(
            {
                "step": step,
                "time": t10 + (step - 10) * 2.4,
                "loss/mean": loss,
                "loss/perplexity": min(2.718**loss, 1e9),
                "optim/grad_norm": 0.8,
            }
        )
    return out


def log_lines(t10: float = 1_790_000_000.0) -> list[str]:
    import time

    out = []
    for step in range(11, 19):
        clock = time.strftime("%H:%M:%S", time.gmtime(t10 + (step - 10) * 2.4))
        out.append(f"{clock} SUCCESS Step {step} |    2.4s | Loss 5.5 | Grad. Norm 0.8 | Throughput 6704 tokens/s")
        if step == ERROR_STEP:
            out += [
                "Traceback (most recent call last):",
                '  File "/app/src/prime_rl/trainer/sft/train.py", line 412, in train',
                "RuntimeError: CUDA error: an illegal memory access was encountered",
            ]
    return out


def feed(screen) -> None:
    links = screen.links
    times = links.feeder.table.get("loss/mean").times
    t10 = float(times[-1])
    links.logs.ingest("trainer", log_lines(t10))
    links.feeder.add_metrics(rows(t10))
