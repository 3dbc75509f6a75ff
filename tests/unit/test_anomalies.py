"""Each anomaly detector on synthetic series: it fires once, at the step where the trouble starts,
and stays quiet on healthy runs (warmup noise, a falling loss, jittery throughput)."""

from __future__ import annotations

import math
import random

from primetui.monitor_core.anomalies import Detector, Thresholds, classify_line, detect


def rows(key: str, values: list[float], t0: float = 1000.0, dt: float = 1.0) -> list[dict]:
    return [{"step": i + 1, "time": t0 + i * dt, key: v} for i, v in enumerate(values)]


def healthy_loss(n: int, seed: int = 0, warmup_noise: float = 0.08) -> list[float]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        base = 2.0 + 3.5 * math.exp(-i / 12)
        noise = warmup_noise if i < 10 else 0.03
        out.append(base * (1 + rng.uniform(-noise, noise)))
    return out


def test_no_false_alarm_on_warmup_noise_and_a_falling_loss():
    for seed in range(20):
        loss = healthy_loss(200, seed)
        data = [
            {
                "step": i + 1,
                "time": 1000.0 + i,
                "loss/mean": v,
                "optim/grad_norm": 1.0 + 0.4 * random.Random(seed + i).random(),
                "perf/throughput": 60_000 * (1 + 0.15 * random.Random(seed * 7 + i).uniform(-1, 1)),
            }
            for i, v in enumerate(loss)
        ]
        assert detect(data) == [], seed


def test_loss_spike_fires_once_at_the_step_it_starts():
    loss = healthy_loss(40)
    loss[25:30] = [v * 4 for v in loss[25:30]]  # steps 26-30
    found = detect(rows("loss/mean", loss))
    assert [(a.kind, a.step) for a in found] == [("loss_spike", 26)]
    assert "rolling median" in found[0].message and "loss/mean" in found[0].line


def test_loss_spike_at_the_second_step_of_an_exploding_run():
    loss = [5.6] + [5.6 * 10 ** (i + 3) for i in range(20)]
    found = detect(rows("loss/mean", loss))
    assert [(a.kind, a.step) for a in found] == [("loss_spike", 2)]


def test_a_second_episode_after_recovery_raises_again():
    loss = healthy_loss(60)
    loss[20] *= 5
    loss[45] *= 5
    assert [a.step for a in detect(rows("loss/mean", loss))] == [21, 46]


def test_nan_and_inf_in_any_metric_and_a_nan_count():
    data = rows("loss/mean", [2.0, 1.9, 1.8, 1.7])
    data[1]["optim/lr"] = float("nan")
    data[2]["foo/bar"] = "inf"
    data[3]["loss/nan_count"] = 12
    found = detect(data)
    assert [(a.kind, a.step) for a in found] == [("nan", 2), ("nan", 3), ("nan", 4)]
    assert "optim/lr is nan" in found[0].message and "loss/nan_count = 12" in found[2].message


def test_grad_norm_blowup_needs_the_ratio():
    grad = [1.0, 1.1, 0.9, 1.0, 1.2, 5.0, 1.0, 14.0, 15.0, 1.0]
    found = detect(rows("optim/grad_norm", grad))
    assert [(a.kind, a.step) for a in found] == [("grad_blowup", 8)]


def test_throughput_collapse_and_recovery():
    tput = [60_000.0] * 10 + [8_000.0] * 3 + [60_000.0] * 3
    found = detect(rows("perf/throughput", tput))
    assert [(a.kind, a.step) for a in found] == [("throughput_collapse", 11)]


def test_stall_only_while_running_and_after_several_step_times():
    det = Detector(Thresholds(stall_min_seconds=10))
    det.add_rows(rows("loss/mean", [2.0, 1.9, 1.8, 1.7], dt=2.0))  # last step 4 at t=1006
    assert det.check_stall(1006 + 9, "RUNNING") is None  # within max(5 x 2s, 10s)
    assert det.check_stall(1006 + 60, "COMPLETED") is None
    stall = det.check_stall(1006 + 11, "RUNNING")
    assert stall is not None and stall.kind == "stall" and stall.step == 4
    assert det.check_stall(1006 + 30, "RUNNING") is None  # reported once
    det.add_rows([{"step": 5, "time": 1040.0, "loss/mean": 1.6}])
    assert det.check_stall(1040 + 11, "RUNNING") is not None  # a new stall after progress


def test_log_lines_tracebacks_oom_nccl_cuda_with_their_step():
    lines = [
        "12:00:01 SUCCESS Step 3 | Loss 2.1",
        "12:00:02 SUCCESS Step 4 | Loss 2.0",
        "Traceback (most recent call last):",
        '  File "train.py", line 3, in <module>',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "12:00:09 SUCCESS Step 5 | Loss 2.0",
        "NCCL error: unhandled system error, NCCL version 2.21",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    found = detect([], {"trainer": lines})
    assert [(a.kind, a.step, a.component) for a in found] == [
        ("oom", 4, "trainer"),
        ("nccl", 5, "trainer"),
        ("cuda", 5, "trainer"),
    ]
    assert found[0].line == "Traceback (most recent call last):"  # jump to where it starts
    det = Detector()
    det.add_log_lines("orchestrator", [(7, "Traceback (most recent call last):"), (8, "ValueError: bad")])
    assert [(a.kind, a.line_index) for a in det.anomalies] == [("traceback", 7)]


def test_classify_line_leaves_ordinary_lines_alone():
    assert classify_line("12:00:01 INFO Loaded 3 shards; memory 12.1 GiB") is None
    assert classify_line("Step 4 | Loss 2.0 | Throughput 60000 tokens/s") is None
    assert classify_line("torch.cuda.OutOfMemoryError: CUDA out of memory") == "oom"


def test_a_failed_run_is_an_exited_component():
    found = detect(rows("loss/mean", [2.0, 1.9]), status="FAILED", error="trainer exited with code 1")
    assert [(a.kind, a.step, a.component) for a in found] == [("exited", 2, "trainer")]
    assert found[0].to_json() == {
        "kind": "exited",
        "step": 2,
        "component": "trainer",
        "message": "the run failed: trainer exited with code 1",
        "line": "trainer exited with code 1",
    }


def test_thresholds_from_a_mapping_ignore_unknown_keys():
    th = Thresholds.from_mapping({"loss_z": 3.0, "nope": 1})
    assert th.loss_z == 3.0 and th.window == Thresholds().window


def test_a_clean_batch_still_tracks_the_step_for_the_next_one():
    det = Detector()
    assert (
        det.add_log_lines(
            "trainer",
            [(0, "12:00:01 SUCCESS Step 6 | Loss 2.0"), (1, "12:00:02 SUCCESS Step 7 | Loss 2.0"), (2, "saving")],
        )
        == []
    )
    found = det.add_log_lines("trainer", [(3, "Traceback (most recent call last):"), (4, "KeyError: 'x'")])
    assert [(a.kind, a.step, a.line_index) for a in found] == [("traceback", 7, 3)]
