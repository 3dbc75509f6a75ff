"""ETA of a resumed run and the GPU count of a run with an inference server (issue 18 #6, #7)."""

from __future__ import annotations

from datetime import datetime, timezone

from primetui.api.models import RLRun
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import resume_base_step, run_eta, run_gpus, run_gpus_detail, run_row

NOW = datetime(2026, 9, 28, 20, 40, 20, tzinfo=timezone.utc)


def run(**kw) -> RLRun:
    base = {
        "id": "b",
        "userId": "u",
        "status": "RUNNING",
        "createdAt": "2026-09-28T20:40:00Z",
        "updatedAt": "2026-09-28T20:40:00Z",
        "startedAt": "2026-09-28T20:40:00Z",
        "maxSteps": 300,
    }
    base.update(kw)
    return RLRun.model_validate(base)


def test_eta_of_a_resumed_run_counts_steps_since_the_resume():
    r = run(notice="Resumed from run a at checkpoint step 100.")
    progress = RunProgress.from_metric_rows([{"step": s} for s in range(101, 178)])
    assert resume_base_step(r) == 100
    eta = run_eta(r, progress, NOW)  # 77 steps in 20 s, 123 to go
    assert eta is not None and abs(eta - 20 / 77 * 123) < 0.01
    assert run_row(r, progress, NOW).eta == "32s"


def test_eta_of_a_fresh_run_is_unchanged():
    progress = RunProgress.from_metric_rows([{"step": s} for s in range(1, 101)])
    assert abs(run_eta(run(), progress, NOW) - 20 / 100 * 200) < 0.01


def test_gpus_count_train_and_inference():
    cfg = {"deployment": {"num_train_gpus": 1, "gpus_per_node": 1}, "eval": {"interval": 5}}
    r = run(runConfig=cfg)
    assert run_gpus(r) == "2"
    assert run_gpus_detail(r) == "2 (1 train + 1 inference)"
    r = run(runConfig={"deployment": {"num_train_gpus": 4, "num_infer_gpus": 4, "gpus_per_node": 8}})
    assert run_gpus_detail(r) == "8 (4 train + 4 inference)"
    r = run(runConfig={"deployment": {"num_train_gpus": 1}})
    assert run_gpus_detail(r) == "1"
    r = run(
        runConfig={"deployment": {"type": "multi_node", "num_train_nodes": 2, "num_infer_nodes": 1, "gpus_per_node": 8}}
    )
    assert run_gpus(r) == "24"
    assert run_gpus(run(gpuCount=3)) == "3"


def test_the_early_eta_leaves_out_the_start_up_before_the_first_step():
    """Issue 41, finding 11: the early ETA ran 32 % long. 60 s of start-up, then a step a second: at step 10 of
    100 (70 s after the start, the row of step 10 just written) 90 steps are left, 90 s, not 70 / 10 * 90 = 630 s."""
    start = datetime(2026, 9, 28, 20, 40, 0, tzinfo=timezone.utc).timestamp()
    rows = [{"step": s, "time": start + 60 + s, "loss/mean": 1.0} for s in range(1, 11)]
    now = datetime.fromtimestamp(start + 70, tz=timezone.utc)
    r = run(maxSteps=100)
    eta = run_eta(r, RunProgress.from_metric_rows(rows), now)
    assert eta is not None and abs(eta - 90.0) < 0.01
    later = datetime.fromtimestamp(start + 70.5, tz=timezone.utc)  # half-way through step 11
    assert abs(run_eta(r, RunProgress.from_metric_rows(rows), later) - 89.5) < 0.01
