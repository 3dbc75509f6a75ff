"""Issue 40: the RL core. prime-rl's log lines (research §3, exact formats), the metric names of three
generations onto one set of keys (§2.5), a run's kind and settings, and the health flags."""

from __future__ import annotations

import math

import pytest

from tests.runs import wire_run
from primetui.api.models import EnvServer
from primetui.monitor_core import rl, rl_metrics as names
from primetui.monitor_core.anomalies import KINDS, Detector, Thresholds, detect
from primetui.monitor_core.rl_lines import orchestrator_step, rl_warning, trainer_step

ORCH_HEAD = (
    "Step 12 |    4.3s | Reward 0.8123 | Trainable 120/128 (93.8%) | Turns 1.0 | Branches 1.0 | "
    "Max Off-Policy 1 | Error 0.0% | Cancelled 0.0% | Truncation 0.8%"
)
ORCH_V08 = (
    "Step 7 |  2m 13s | Reward nan | Trainable 8/128 (6.2%) | Turns 1.0 | Branches 1.0 | "
    "Max Off-Policy 2 | Error 1.5% | Truncation 0.0%"
)
ORCH_V05 = (
    "Step 3 | Time: 4.21s | Reward: 0.4412 | Seq. Length: 120.3 tokens/sample | Async Level: 1 | Max. Off-Policy "
    "Level: 2"
)
ORCH_V04 = (
    "Step 4 | Time: 4.21s | Reward: 0.5000 | Throughput: 1234.5 tokens/s | Seq. Length: 99.0 tokens/sample | "
    "Async Level: 1 | Max. Off-Policy Level: 1"
)
TRAINER_HEAD = (
    "Step 12 |    3.9s | Loss 0.0012 | Entropy 0.2143 | Mismatch KL 0.0009 | Grad. Norm 0.1837 | LR 3.00e-06 | "
    "Throughput 21873 tokens/s | MFU 6.4% | Peak Mem. 21.7 GiB"
)
TRAINER_V04 = (
    "Step 2 | Time: 3.91s | Loss: 0.1000 | Entropy: 0.5000 | Mismatch KL: 0.0010 | Grad. Norm: 0.2000 | "
    "LR: 1.00e-06 | Throughput: 200.0 tokens/s | MFU: 3.0% | Peak Mem.: 2.0 GiB"
)


def test_orchestrator_step_lines_of_every_generation():
    head = orchestrator_step("12:00:01 SUCCESS " + ORCH_HEAD)
    assert (head.step, head.reward, head.trainable, head.effective, head.max_off_policy) == (12, 0.8123, 120, 128, 1)
    assert head.cancelled_pct == 0.0 and head.truncation_pct == 0.8 and head.trainable_share == 120 / 128
    v08 = orchestrator_step(ORCH_V08)
    assert v08.step == 7 and math.isnan(v08.reward) and v08.cancelled_pct is None and v08.error_pct == 1.5
    assert orchestrator_step(ORCH_V05).max_off_policy == 2 and orchestrator_step(ORCH_V04).reward == 0.5
    assert (
        orchestrator_step(TRAINER_HEAD) is None and orchestrator_step("Starting orchestrator (algorithm: grpo)") is None
    )


def test_trainer_step_lines_today_and_v04():
    head = trainer_step("12:00:02 SUCCESS " + TRAINER_HEAD)
    assert (head.step, head.loss, head.entropy, head.mismatch_kl, head.grad_norm, head.lr, head.throughput) == (
        12,
        0.0012,
        0.2143,
        0.0009,
        0.1837,
        3e-06,
        21873.0,
    )
    assert head.row()["trainer log/entropy"] == 0.2143
    old = trainer_step(TRAINER_V04)
    assert (old.entropy, old.mismatch_kl, old.lr) == (0.5, 0.001, 1e-06)
    no_kl = trainer_step("Step 3 |    3.9s | Loss 0.1 | Entropy 0.3 | LR 3.00e-06 | Throughput 10 tokens/s")
    assert no_kl.mismatch_kl is None and no_kl.grad_norm is None and no_kl.entropy == 0.3
    assert trainer_step(ORCH_HEAD) is None


def test_orchestrator_warnings():
    low = rl_warning("WARNING Only 8/128 effective traces are trainable (6.2%) — consider reviewing task difficulty")
    assert (low.kind, low.count, low.total) == ("trainable", 8, 128)
    can = rl_warning("Cancelled 12 train episodes past max_off_policy_steps=1. Consider increasing it to avoid this.")
    assert (can.kind, can.count, can.limit) == ("cancelled", 12, 1)
    assert rl_warning("Dropped 3 queued traces past max_off_policy_steps=2. x").kind == "dropped"
    failed = rl_warning("Trace failed in group g1 (reverse-text) — ValueError: bad reply")
    assert failed.kind == "trace_failed" and failed.env == "reverse-text" and failed.what == "ValueError: bad reply"
    assert rl_warning("request failed: TimeoutError()").kind == "env_request"
    assert rl_warning("EnvServer up: taskset=reverse-text address=tcp://127.0.0.1:5000") is None


@pytest.mark.parametrize(
    "row",
    [
        {
            "step": 5,
            "train/agg/effective/agent/reward/mean": 0.61,
            "train/agg/effective/agent/is_truncated/mean": 0.1,
            "train/agg/all/agent/solved_none": 0.2,
            "train/agg/all/agent/solved_all": 0.3,
            "train/agg/all/agent/solved_some": 0.5,
        },
        {"step": 5, "reward/all/mean": 0.61, "is_truncated/all/mean": 0.1, "solve_none/all": 0.2, "solve_all/all": 0.3},
        {"step": 5, "reward/mean": 0.61, "is_truncated/mean": 0.1, "batch/solve_none": 0.2, "batch/solve_all": 0.3},
    ],
    ids=["today", "v0.5", "v0.4"],
)
def test_three_generations_map_onto_the_same_keys(row):
    out = names.normalise(row)
    assert out[names.REWARD] == 0.61 and out[names.TRUNCATED] == 0.1
    assert (
        out[names.SOLVED_NONE] == 0.2 and out[names.SOLVED_ALL] == 0.3 and out[names.SOLVED_SOME] == pytest.approx(0.5)
    )
    assert names.reward_of(row) == 0.61 and names.is_rl_row(row)


def test_per_env_per_function_and_eval_keys():
    keys = [
        "train/agg/effective/agent/reward/mean",
        "train/a/effective/agent/reward/mean",
        "train/b/effective/agent/reward/mean",
        "train/a/effective/agent/rewards/lcs/mean",
        "eval/reverse-text/effective/agent/reward/mean",
        "eval/reverse-text/effective/agent/avg@4",
        "eval/other/effective/agent/pass@4",
    ]
    assert names.env_reward_keys(keys) == {"a": keys[1], "b": keys[2]}
    assert names.reward_fn_keys(keys) == {"lcs": keys[3]}
    assert names.eval_reward_keys(keys) == ["eval/other/effective/agent/pass@4", keys[4]]
    old = names.normalise({"step": 1, "reward/a/mean": 0.2, "reward/all/mean": 0.3, "metrics/lcs_reward_func": 0.4})
    assert old["train/a/effective/agent/reward/mean"] == 0.2 and "train/all/effective/agent/reward/mean" not in old
    assert old["train/agg/effective/agent/rewards/lcs_reward_func/mean"] == 0.4
    assert not names.is_rl_row({"step": 1, "loss/mean": 2.0})


def test_run_kind_and_settings_across_config_shapes():
    head = wire_run(
        {
            "loss": "rl",
            "runConfig": {
                "max_steps": 20,
                "orchestrator": {
                    "batch_size": 128,
                    "group_size": 16,
                    "train": {
                        "source": [
                            {"name": "rt-a", "env": {"taskset": {"id": "reverse-text"}}},
                            {"env": {"taskset": {"id": "primeintellect/x"}}},
                        ]
                    },
                },
                "trainer": {"optim": {"lr": 3e-6}},
            },
        }
    )
    assert rl.run_kind(head) == rl.RL and rl.environments(head) == ["rt-a", "primeintellect/x"]
    assert (rl.setting(head, "group_size"), rl.setting(head, "batch_size"), rl.setting(head, "lr")) == (16, 128, 3e-6)
    v04 = wire_run(
        runConfig={"orchestrator": {"rollouts_per_example": 8, "env": [{"id": "reverse-text"}]}, "trainer": {}}
    )
    assert rl.is_rl(v04) and rl.setting(v04, "group_size") == 8 and rl.environments(v04) == ["reverse-text"]
    sft = wire_run(runConfig={"data": {"batch_size": 32}, "optim": {"lr": 1e-5}})
    assert rl.run_kind(sft) == rl.SFT and rl.setting(sft, "batch_size") == 32 and rl.setting(sft, "lr") == 1e-5
    assert rl.run_kind(wire_run(loss="sft", runConfig={"trainer": {}})) == rl.SFT
    assert rl.run_kind(wire_run(id="x")) == rl.SFT and rl.run_kind(wire_run(environments=[{"id": "e"}])) == rl.RL


# ---- health flags ---------------------------------------------------------------------------------


def _orch(step: int, trainable: int, total: int = 128) -> str:
    return (
        f"12:00:{step:02d} SUCCESS Step {step} |    1.0s | Reward 0.5000 | Trainable {trainable}/{total} "
        f"({100 * trainable / total:.1f}%) | Turns 1.0 | Branches 1.0 | Max Off-Policy 1 | Error 0.0% | "
        "Cancelled 0.0% | Truncation 0.0%"
    )


def _trainer(step: int, entropy: float, kl: float = 0.0005) -> str:
    return (
        f"12:00:{step:02d} SUCCESS Step {step} |    1.0s | Loss 0.0100 | Entropy {entropy:.4f} | Mismatch KL "
        f"{kl:.4f} | "
        "Grad. Norm 0.2000 | LR 3.00e-06 | Throughput 1000 tokens/s | MFU 1.0% | Peak Mem. 1.0 GiB"
    )


def test_low_trainable_share_flags_its_step_and_line_once_per_episode():
    det = Detector()
    lines = [_orch(1, 120), _orch(2, 12), _orch(3, 9), _orch(4, 100), _orch(5, 5)]
    found = det.add_log_lines("orchestrator", list(enumerate(lines)))
    assert [(a.kind, a.step, a.line_index) for a in found] == [("low_trainable", 2, 1), ("low_trainable", 5, 4)]
    assert "12/128" in found[0].message and found[0].component == "orchestrator"


def test_entropy_collapse_on_its_step_and_none_for_a_slow_healthy_fall():
    collapse = [_trainer(s, e) for s, e in enumerate([1.8, 1.7, 1.6, 0.9, 0.3, 0.2], start=1)]
    found = Detector().add_log_lines("trainer", list(enumerate(collapse)))
    assert [(a.kind, a.step, a.line_index) for a in found] == [("entropy_collapse", 5, 4)]
    healthy = [_trainer(s, 1.8 * 0.93**s) for s in range(1, 60)]  # converging: 1.8 -> 0.03 over 60 steps
    assert Detector().add_log_lines("trainer", list(enumerate(healthy))) == []


def test_mismatch_kl_growing_step_over_step():
    kls = [0.001, 0.0012, 0.0011, 0.0013, 0.0016, 0.002, 0.0026, 0.0034, 0.0045]
    found = Detector().add_log_lines(
        "trainer", list(enumerate(_trainer(s, 1.0, k) for s, k in enumerate(kls, start=1)))
    )
    assert [(a.kind, a.step) for a in found] == [("kl_growth", 8)]
    noisy = [0.001, 0.0012, 0.0011, 0.0013, 0.0012, 0.0014, 0.0011]
    assert Detector().add_log_lines("trainer", list(enumerate(_trainer(s, 1.0, k) for s, k in enumerate(noisy)))) == []


def test_stale_episodes_and_env_errors_from_logs_and_metrics():
    det = Detector()
    det.add_log_lines("orchestrator", [(0, _orch(3, 100))])
    found = det.add_log_lines(
        "orchestrator",
        [
            (
                1,
                "12:00:04 WARNING Cancelled 12 train episodes past max_off_policy_steps=1. "
                "Consider increasing it to avoid this.",
            )
        ],
    )
    assert [(a.kind, a.step, a.line_index) for a in found] == [("off_policy_drop", 4, 1)]
    found = det.add_log_lines("env-reverse-text", [(7, "12:00:05 WARNING request failed: TimeoutError()")])
    assert [(a.kind, a.component, a.line_index) for a in found] == [("env_error", "env-reverse-text", 7)]
    rows = [
        {"step": 1, names.REWARD: 0.2, names.OFF_POLICY_DROPPED: 0, names.ERRORS: 0.0},
        {"step": 2, names.REWARD: 0.3, names.OFF_POLICY_DROPPED: 4, names.ERRORS: 0.02},
    ]
    assert sorted((a.kind, a.step) for a in detect(rows)) == [("env_error", 2), ("off_policy_drop", 2)]


def test_length_hacking_reward_up_with_outputs_cut_at_the_cap():
    rows = [
        {"step": s, "reward/all/mean": 0.2 + 0.05 * s, "is_truncated/all/mean": min(0.1 + 0.12 * s, 1.0)}
        for s in range(8)
    ]
    found = detect(rows)
    assert [(a.kind, a.step) for a in found] == [("length_hacking", 4)]
    honest = [{"step": s, names.REWARD: 0.2 + 0.05 * s, names.TRUNCATED: 0.02} for s in range(8)]
    assert detect(honest) == []


def test_reward_rising_while_the_answer_similarity_does_not_is_flagged_at_its_sample_step():
    from primetui.monitor_core.rl_health import SamplePoint

    hacked = [SamplePoint(30, 0.6, 0.31, 128), SamplePoint(10, 0.3, 0.30, 128), SamplePoint(20, 0.45, 0.305, 128)]
    found = detect([], samples=hacked)
    assert [(a.kind, a.step, a.component) for a in found] == [("answer_drift", 20, "orchestrator")]
    assert (
        "reward rose 0.3 → 0.45 from step 10 to step 20" in found[0].message
        and found[0].label == "reward without the answer"
    )
    honest = [SamplePoint(10, 0.3, 0.3, 128), SamplePoint(20, 0.6, 0.58, 128), SamplePoint(30, 0.8, 0.79, 128)]
    assert detect([], samples=honest) == []
    flat = [SamplePoint(10, 0.3, 0.3, 128), SamplePoint(20, 0.32, 0.3, 128)]  # no reward rise: nothing to explain
    assert detect([], samples=flat) == []


def test_a_sample_point_is_the_steps_mean_reward_and_the_diff_ratio_to_the_answer():
    from primetui.api.rl import sample_rows
    from primetui.viewmodel import rollouts as rv

    def row(i, text, reward, answer="olleh"):
        return {
            "step": 10,
            "problem_id": i // 2,
            "sample_id": i,
            "reward": reward,
            "task": {"idx": i // 2, "prompt": answer[::-1], "answer": answer},
            "completion": [{"role": "assistant", "content": f"<reversed_text>{text}</reversed_text>"}],
        }

    held = rv.StepSamples(10)
    held.add(
        sample_rows([row(0, "olleh", 1.0), row(1, "xxxxx", 1.0), row(2, "olle", 0.0), row(3, "", 0.0)], 10)[0], 4, True
    )
    point = rv.sample_point(held)
    assert (point.step, point.reward, point.scored) == (10, 0.5, 4)
    assert point.similarity == pytest.approx((1.0 + 0.0 + 8 / 9 + 0.0) / 4)
    no_answer = rv.StepSamples(10)
    no_answer.add(sample_rows([{**row(0, "a", 1.0), "task": {"idx": 0, "prompt": "a"}}], 10)[0], 1, True)
    assert rv.sample_point(no_answer) is None


def test_a_healthy_rl_run_raises_nothing_and_sft_rows_skip_the_rl_rules():
    rows = [
        {
            "step": s,
            names.REWARD: 0.2 + 0.03 * s,
            names.TRUNCATED: 0.01,
            names.OFF_POLICY_DROPPED: 0,
            names.ERRORS: 0.0,
            "loss/mean": 0.01,
        }
        for s in range(1, 21)
    ]
    logs = {
        "orchestrator": [_orch(s, 110) for s in range(1, 21)],
        "trainer": [_trainer(s, 1.8 - 0.02 * s) for s in range(1, 21)],
    }
    assert detect(rows, logs, status="COMPLETED") == []
    assert set(Thresholds.__dataclass_fields__) >= {"trainable_share", "entropy_ratio", "kl_rises"}
    assert {"low_trainable", "entropy_collapse", "kl_growth", "off_policy_drop", "length_hacking", "env_error"} <= set(
        KINDS
    )


def test_rl_log_streams_one_per_component_and_env_server_name_slash_n_where_names_repeat():
    from primetui.monitor_core.components import log_specs

    run = wire_run(
        {
            "loss": "rl",
            "runConfig": {
                "trainer": {},
                "orchestrator": {
                    "train": {"source": [{"name": "reverse-text"}, {"name": "alphabet"}]},
                    "eval": {"source": [{"name": "reverse-text"}]},
                },
            },
        }
    )
    specs = log_specs(run)
    assert [s.title for s in specs] == [
        "orchestrator",
        "trainer",
        "inference",
        "env:reverse-text/0",
        "env:alphabet",
        "env:reverse-text/2",
    ]
    assert [(s.component, s.env_name) for s in specs[3:]] == [
        ("env-server", "reverse-text/0"),
        ("env-server", "alphabet"),
        ("env-server", "reverse-text/2"),
    ]
    servers = [EnvServer(pod_name="env-0", status="Running", env_name="reverse-text", env_index=0)]
    assert [s.title for s in log_specs(run, servers)][3:] == ["env:reverse-text"]
