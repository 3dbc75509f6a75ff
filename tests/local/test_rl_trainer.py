"""The local RL run by its file contract (RL-FILES): prime-rl's example configs, run as the supervisor runs them.

One run per config for the module: the reverse-text example runs as a real process (``python -m
primetui.local.trainer --run-dir``, as the supervisor starts it); the others run in this process,
which skips the interpreter start-up.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import numpy as np
import pytest

from primetui.local.ingest import LEVEL_RE
from primetui.local.trainer import testing as tt

REWARD = "train/agg/effective/agent/reward/mean"
ORCH_STEP = re.compile(  # the research's regex for prime-rl HEAD's orchestrator Step line
    r"^Step (?P<step>\d+) \|\s+(?P<t>\S+(?: \S+)?) \| Reward (?P<reward>-?[\d.]+|nan) \| Trainable "
    r"(?P<tr>\d+)/(?P<eff>\d+) "
    r"\((?P<trp>[\d.]+)%\) \| Turns (?P<turns>[\d.]+) \| Branches (?P<br>[\d.]+) \| Max Off-Policy (?P<mop>\d+) \| "
    r"Error (?P<err>[\d.]+)% \| Cancelled (?P<can>[\d.]+)% \| Truncation (?P<trunc>[\d.]+)%$"
)
TRAINER_STEP = re.compile(
    r"^Step (?P<step>\d+) \|\s+(?P<t>\S+(?: \S+)?) \| Loss (?P<loss>-?[\d.]+) \| Entropy (?P<entropy>[\d.]+) \| "
    r"Mismatch KL (?P<kl>[\d.]+) \| Grad\. Norm (?P<gn>[\d.]+) \| LR (?P<lr>\S+) \| Throughput (?P<tp>\d+) tokens/s \| "
    r"MFU (?P<mfu>[\d.]+)% \| Peak Mem\. (?P<mem>[\d.]+) GiB$"
)
ENGINE = re.compile(
    r"^Engine 000: Avg prompt throughput: [\d.]+ tokens/s, Avg generation throughput: [\d.]+ tokens/s, "
    r"Running: 16 reqs, Waiting: 0 reqs$"
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("rl")
    specs = {
        "example": tt.rl_example("reverse-text"),
        "nightly": tt.rl_example("nightly"),
        "multi": tt.rl_example("multi-env"),
        "hot": tt.rl_example("reverse-text", max_steps=8, ckpt=None, trainer={"optim": {"lr": 1e-4}}),
        "first": tt.rl_example("reverse-text", max_steps=6, ckpt={"interval": 3}),
        "trunc": _truncating(tt.rl_example("reverse-text", max_steps=2, ckpt=None)),
        "unknown": _unknown_taskset(tt.rl_example("reverse-text")),
        "badsplit": _split(tt.rl_example("reverse-text"), "test[:40]"),
        "onpolicy": _on_policy(tt.rl_example("reverse-text", max_steps=3, ckpt=None)),
        "pause": tt.rl_example("reverse-text", max_steps=100000, ckpt=None),
    }
    dirs = {}
    for name, cfg in specs.items():
        dirs[name] = root / name
        tt.write_run_dir(dirs[name], cfg, volume_dir=None, run_id=name)
    proc, paused = tt.start(dirs["example"]), tt.start(dirs["pause"])
    try:
        # Pause the endless run as soon as it has done two steps, so it does not compete with the others.
        assert tt.wait_for(lambda: tt.status(dirs["pause"]).get("step", 0) >= 2, timeout=120)
        paused.send_signal(signal.SIGUSR1)
        codes = {name: tt.run_inline(d) for name, d in dirs.items() if name not in ("example", "pause")}
        codes["example"] = proc.wait(timeout=120)
        yield dirs, codes, paused
    finally:
        for p in (proc, paused):
            if p.poll() is None:
                p.kill()
                p.wait()


def _truncating(cfg):
    cfg["orchestrator"]["train"]["sampling"]["max_completion_tokens"] = 64
    return cfg


def _on_policy(cfg):
    cfg["orchestrator"]["max_off_policy_steps"] = 0
    return cfg


def _unknown_taskset(cfg):
    cfg["orchestrator"]["train"]["source"][0]["env"]["taskset"]["id"] = "primeintellect/no-such-env"
    return cfg


def _split(cfg, split):
    cfg["orchestrator"]["train"]["source"][0]["env"]["taskset"]["dataset_split"] = split
    return cfg


def _lines(run_dir: Path, stem: str) -> list[str]:
    return (run_dir / "logs" / f"{stem}.log").read_text().splitlines()


def _messages(run_dir: Path, stem: str) -> list[str]:
    return [LEVEL_RE.sub("", line, count=1) for line in _lines(run_dir, stem) if LEVEL_RE.match(line)]


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def test_the_reverse_text_example_learns_with_its_own_settings(runs):
    dirs, codes, _ = runs
    run_dir = dirs["example"]
    assert codes["example"] == 0 and tt.status(run_dir)["state"] == "completed" and tt.status(run_dir)["step"] == 20
    reward = tt.series(run_dir, REWARD)
    assert sorted(reward) == list(range(1, 21))
    first, last = _mean(reward[s] for s in (1, 2, 3)), _mean(reward[s] for s in (18, 19, 20))
    assert 0.1 < first < 0.3 and last >= first + 0.15, (first, last)
    trainer = [m.groupdict() for line in _messages(run_dir, "trainer") if (m := TRAINER_STEP.match(line))]
    assert [int(t["step"]) for t in trainer] == list(range(1, 21)) and {t["lr"] for t in trainer} == {"3.00e-06"}
    assert float(trainer[0]["kl"]) == 0.0 and all(float(t["kl"]) > 0 for t in trainer[1:])  # one step stale from step 2
    assert float(trainer[-1]["entropy"]) < float(trainer[0]["entropy"])
    orch = [m.groupdict() for line in _messages(run_dir, "orchestrator") if (m := ORCH_STEP.match(line))]
    assert [int(o["step"]) for o in orch] == list(range(1, 21))
    assert [float(o["reward"]) for o in orch] == [round(reward[s], 4) for s in range(1, 21)]
    assert orch[0]["mop"] == "0" and {o["mop"] for o in orch[1:]} == {"1"} and {o["eff"] for o in orch} == {"128"}


def test_a_much_too_large_lr_collapses_the_entropy_early(runs):
    dirs, codes, _ = runs
    assert codes["hot"] == 0
    good = [float(m["entropy"]) for line in _messages(dirs["example"], "trainer") if (m := TRAINER_STEP.match(line))]
    hot = [float(m["entropy"]) for line in _messages(dirs["hot"], "trainer") if (m := TRAINER_STEP.match(line))]
    assert good[4] > 1.5 and hot[4] < 0.3 and hot[-1] < 0.05
    kl = [float(m["kl"]) for line in _messages(dirs["hot"], "trainer") if (m := TRAINER_STEP.match(line))]
    good_kl = [float(m["kl"]) for line in _messages(dirs["example"], "trainer") if (m := TRAINER_STEP.match(line))]
    assert max(kl) > 1.0 > 0.1 > max(good_kl)  # each step moved the sampling policy far: a mismatch-KL spike
    assert good[0] == hot[0]  # same start, same first batch
    assert tt.series(dirs["hot"], REWARD)[8] < 0.95  # collapsed onto what it had: a plateau below a perfect copy


def test_the_nightly_config_and_the_default_lr_run_and_rise(runs):
    dirs, codes, _ = runs
    assert codes["nightly"] == 0
    reward = tt.series(dirs["nightly"], REWARD)
    assert _mean(reward[s] for s in (18, 19, 20)) > _mean(reward[s] for s in (1, 2, 3)) + 0.05
    assert "LR 1.00e-06" in _lines(dirs["nightly"], "trainer")[-3]


def test_every_log_line_parses_and_carries_prime_rl_messages(runs):
    dirs, _, _ = runs
    run_dir = dirs["example"]
    for path in (run_dir / "logs").iterdir():
        for line in path.read_text().splitlines():
            assert LEVEL_RE.match(line), (path.name, line)
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == [
        "env-server-reverse-text.log",
        "inference.log",
        "orchestrator.log",
        "trainer.log",
    ]
    env = _messages(run_dir, "env-server-reverse-text")
    assert env[0].startswith("EnvServerPool up: address=") and env[1].startswith(
        "EnvServer up: taskset=reverse-text address="
    )
    engine = [m for m in _messages(run_dir, "inference") if m.startswith("Engine 000")]
    assert len(engine) == 20 and all(ENGINE.match(m) for m in engine)
    orch = _messages(run_dir, "orchestrator")
    assert orch[0] == "Starting orchestrator (algorithm: grpo)"
    assert "Train batch 64/128 (50.0%); 16 inflight episodes (train=16, eval=0)" in orch
    assert orch[-2].startswith("Orchestrator step loop done in ") and orch[-1] == "Orchestrator finished."
    assert _messages(run_dir, "trainer")[-1] == "RL trainer finished!"


def test_metrics_rows_use_prime_rl_names_and_agree_with_the_samples(runs):
    dirs, _, _ = runs
    run_dir = dirs["example"]
    rows = tt.metric_rows(run_dir)
    assert [r["step"] for r in rows] == list(range(1, 21))
    row = rows[9]
    for key in (
        REWARD,
        "train/agg/effective/agent/reward/p10",
        "train/reverse-text/effective/agent/rewards/lcs/mean",
        "train/agg/effective/num_output_tokens/mean",
        "train/agg/effective/agent/is_truncated/mean",
        "train/agg/all/agent/solved_none",
        "train/agg/all/agent/solved_all",
        "train/agg/all/agent/solved_some",
        "train/agg/all/has_error/mean",
        "off_policy/mean",
        "off_policy/max",
        "off_policy/dropped",
        "progress/tokens",
        "progress/rollouts",
        "progress/tasks",
        "progress/total_tokens",
        "time/step",
        "time/wait_for_policy",
        "batch/reverse-text",
    ):
        assert key in row, key
    assert row["progress/rollouts"] == 128 and row["progress/tasks"] == 8 and row["batch/reverse-text"] == 1.0
    assert rows[1]["progress/total_rollouts"] == 128 and row["off_policy/mean"] == 1.0
    samples = [json.loads(line) for line in (run_dir / "samples" / "step_000010.jsonl").read_text().splitlines()]
    assert len(samples) == 128
    assert row[REWARD] == pytest.approx(_mean(s["reward"] for s in samples))
    assert row["train/agg/effective/num_output_tokens/mean"] == pytest.approx(
        _mean(s["num_output_tokens"] for s in samples)
    )
    assert all(isinstance(v, (int, float)) for r in rows for v in r.values())


def test_sample_rows_have_the_hosted_shape_with_decoded_columns(runs):
    dirs, _, _ = runs
    run_dir = dirs["example"]
    assert sorted(p.name for p in (run_dir / "samples").iterdir()) == ["step_000010.jsonl", "step_000020.jsonl"]
    samples = [json.loads(line) for line in (run_dir / "samples" / "step_000020.jsonl").read_text().splitlines()]
    s = samples[3]
    assert set(s) == {
        "run_id",
        "step",
        "tag",
        "problem_id",
        "sample_id",
        "prompt",
        "completion",
        "trajectory",
        "answer",
        "env_name",
        "task",
        "info",
        "reward",
        "advantage",
        "metrics",
        "timing",
        "num_input_tokens",
        "num_output_tokens",
        "created_at",
    }
    assert (s["run_id"], s["step"], s["sample_id"], s["tag"], s["prompt"], s["answer"]) == (
        "example",
        20,
        3,
        "",
        "",
        "",
    )
    system, user, assistant = s["completion"]
    assert (system["role"], user["role"], assistant["role"]) == ("system", "user", "assistant")
    assert s["task"] == {
        "idx": s["problem_id"],
        "prompt": user["content"],
        "system_prompt": system["content"],
        "answer": user["content"][::-1],
    }
    [trace] = s["info"]["native_wrapper"]["traces"]
    assert trace["rewards"] == {"lcs": {"score": s["reward"], "weight": 1.0}}
    assert s["trajectory"][0]["messages"] == s["completion"] and s["trajectory"][0]["advantage"] == s["advantage"]
    assert s["num_output_tokens"] == len(assistant["content"]) and re.fullmatch(
        r"\d{4}-\d\d-\d\dT[\d:.]+Z", s["created_at"]
    )
    assert set(s["timing"]) == {"start", "boot", "setup", "agent", "finalize", "scoring"}
    groups: dict[int, list[dict]] = {}
    for row in samples:
        groups.setdefault(row["problem_id"], []).append(row)
    assert len(groups) == 8 and all(len(g) == 16 for g in groups.values())
    for group in groups.values():  # GRPO: reward minus the group mean, no std
        mean = _mean(r["reward"] for r in group)
        assert all(r["advantage"] == pytest.approx(r["reward"] - mean) for r in group)


def _group_means(run_dir: Path, step: int) -> dict[int, float]:
    groups: dict[int, list[float]] = {}
    for line in (run_dir / "samples" / f"step_{step:06d}.jsonl").read_text().splitlines():
        row = json.loads(line)
        groups.setdefault(row["problem_id"], []).append(row["reward"])
    return {k: _mean(v) for k, v in groups.items()}


def test_the_prompts_of_step_10_come_back_at_step_20_and_score_higher(runs):
    """The template's dataset_split = "train[:40]" and prime-rl's in-order sampler: 8 prompts a step
    cycle through 40, so step 20 draws the prompts of step 10 again, and the trained policy does better."""
    dirs, _, _ = runs
    run_dir = dirs["example"]
    at10, at20 = _group_means(run_dir, 10), _group_means(run_dir, 20)
    assert sorted(at10) == sorted(at20) == list(range(32, 40))
    assert all(at20[p] > at10[p] + 0.1 for p in at10), (at10, at20)


def test_a_split_the_local_corpus_lacks_fails_the_run_saying_which_it_has(runs):
    dirs, codes, _ = runs
    assert codes["badsplit"] == 1
    assert tt.status(dirs["badsplit"])["error"] == (
        "Source 'reverse-text': Unknown split 'test': the local reverse-text corpus has one split, 'train' "
        "(slices such as 'train[:40]' work)."
    )


def test_distributions_are_the_raw_rewards_and_advantages_of_every_step(runs):
    dirs, _, _ = runs
    run_dir = dirs["example"]
    lines = [json.loads(x) for x in (run_dir / "distributions.jsonl").read_text().splitlines()]
    assert [d["step"] for d in lines] == list(range(1, 21)) and all(
        set(d) == {"step", "rewards", "advantages"} for d in lines
    )
    samples = [json.loads(x) for x in (run_dir / "samples" / "step_000010.jsonl").read_text().splitlines()]
    assert lines[9]["rewards"] == [s["reward"] for s in samples]
    assert lines[9]["advantages"] == [s["advantage"] for s in samples]
    assert abs(sum(lines[0]["advantages"])) < 1e-9


def test_components_checkpoint_and_status(runs):
    dirs, _, _ = runs
    run_dir = dirs["example"]
    comps = json.loads((run_dir / "components.json").read_text())
    assert [(c["component"], c.get("env_name"), c["status"]) for c in comps] == [
        ("trainer", None, "completed"),
        ("orchestrator", None, "completed"),
        ("inference", None, "completed"),
        ("env-server", "reverse-text", "completed"),
    ]
    assert comps[3]["env_index"] == 0 and comps[3]["pod_name"] == "example-env-server-0"
    [ck] = [json.loads(x) for x in (run_dir / "checkpoints.jsonl").read_text().splitlines()]
    assert ck["step"] == 20 and Path(ck["path"], "trainer", "model.npz").is_file()  # a bare [ckpt]: the end only


def test_multi_env_with_eval_runs_per_source(runs):
    dirs, codes, _ = runs
    run_dir = dirs["multi"]
    assert codes["multi"] == 0
    comps = json.loads((run_dir / "components.json").read_text())
    servers = [(c["env_name"], c["env_index"]) for c in comps if c["component"] == "env-server"]
    assert servers == [("reverse-text-a", 0), ("reverse-text-b", 1), ("reverse-text", 2)]
    rows = tt.metric_rows(run_dir)
    evals = {r["step"]: r for r in rows if "eval/reverse-text/policy_version" in r}
    assert sorted(evals) == [1, 5, 10]  # the base eval at step 1, then every interval, as prime-rl fires them
    assert [evals[s]["eval/reverse-text/policy_version"] for s in (1, 5, 10)] == [0, 3, 8]
    assert all(e["eval/reverse-text/all/num_output_tokens/mean"] > 0 for e in evals.values())
    assert evals[10]["eval/reverse-text/effective/agent/avg@1"] > evals[1]["eval/reverse-text/effective/agent/avg@1"]
    train = [r for r in rows if REWARD in r]
    assert all(r["batch/reverse-text-a"] + r["batch/reverse-text-b"] == 1.0 for r in train)
    assert 0.3 < _mean(r["batch/reverse-text-a"] for r in train) < 0.7  # ratio 1:1
    assert "train/reverse-text-b/effective/agent/rewards/lcs/mean" in train[0]
    orch = _lines(run_dir, "orchestrator")
    step3 = orch.index(next(line for line in orch if " Step 3 |" in line))
    assert orch[step3 + 1].startswith("\t\t ╰─ reverse-text-a | Ratio ") and orch[step3 + 2].startswith(
        "\t\t ╰─ reverse-text-b"
    )
    assert any(
        line.endswith("SUCCESS Evaluated reverse-text (Step 5) | Policy v3 |" + line.split("Policy v3 |")[1])
        for line in orch
        if "Policy v3" in line
    )
    assert len(tt.series(run_dir, "eval/reverse-text/effective/agent/reward/mean")) == 3


def test_resume_continues_the_same_run_exactly(runs, tmp_path):
    dirs, codes, _ = runs
    first = dirs["first"]
    assert codes["first"] == 0
    assert [json.loads(x)["step"] for x in (first / "checkpoints.jsonl").read_text().splitlines()] == [3, 6]
    cfg = json.loads((first / "config.json").read_text())["config"]
    second = tmp_path / "second"
    tt.write_run_dir(
        second,
        {**cfg, "resume": {"dir": str(first / "output" / "checkpoints" / "step_3")}},
        volume_dir=None,
        run_id="second",
    )
    assert tt.run_inline(second) == 0
    assert "Resuming training from checkpoint step 3" in (second / "logs" / "trainer.log").read_text()
    a, b = tt.series(first, REWARD), tt.series(second, REWARD)
    assert sorted(b) == [4, 5, 6] and all(b[s] == a[s] for s in b)
    assert tt.series(second, "progress/total_rollouts")[4] == 3 * 128


def test_max_off_policy_steps_0_samples_with_the_trainers_own_weights(runs):
    dirs, codes, _ = runs
    run_dir = dirs["onpolicy"]
    assert codes["onpolicy"] == 0
    trainer = [m.groupdict() for line in _messages(run_dir, "trainer") if (m := TRAINER_STEP.match(line))]
    orch = [m.groupdict() for line in _messages(run_dir, "orchestrator") if (m := ORCH_STEP.match(line))]
    assert [t["kl"] for t in trainer] == ["0.0000"] * 3 and [o["mop"] for o in orch] == ["0"] * 3
    assert tt.series(run_dir, "off_policy/max") == {1: 0.0, 2: 0.0, 3: 0.0}
    # the same first batch as the example; from step 2 on the batch comes from newer weights
    assert tt.series(run_dir, REWARD)[1] == tt.series(dirs["example"], REWARD)[1]


def test_a_cut_completion_is_truncated_and_scores_zero(runs):
    dirs, codes, _ = runs
    run_dir = dirs["trunc"]
    assert codes["trunc"] == 0
    samples = [json.loads(x) for x in (run_dir / "samples" / "step_000002.jsonl").read_text().splitlines()]
    cut = [s for s in samples if s["info"]["is_truncated"]]
    assert cut and all(s["reward"] == 0.0 and s["num_output_tokens"] == 64 for s in cut)
    row = tt.metric_rows(run_dir)[1]
    assert row["train/agg/effective/agent/is_truncated/mean"] == pytest.approx(len(cut) / len(samples))


def test_an_unknown_taskset_fails_the_run_with_what_is_available(runs):
    dirs, codes, _ = runs
    assert codes["unknown"] == 1
    st = tt.status(dirs["unknown"])
    assert st["state"] == "failed" and st["error"] == (
        "Taskset 'primeintellect/no-such-env' of source 'reverse-text' is not available on the local platform "
        "(available: reverse-text, primeintellect/reverse-text); change its env.taskset.id."
    )


def test_sigusr1_pauses_at_a_step_boundary_with_a_checkpoint_of_both_policies(runs):
    dirs, _, proc = runs
    run_dir = dirs["pause"]  # SIGUSR1 was sent once it had done two steps
    assert proc.wait(timeout=60) == 0
    st = tt.status(run_dir)
    assert st["state"] == "paused" and st["step"] >= 2
    with np.load(run_dir / "output" / "checkpoints" / f"step_{st['step']}" / "trainer" / "model.npz") as z:
        assert {"current.pointer", "behaviour.pointer", "current.format", "behaviour.length"} <= set(z.files)
    assert sorted(tt.series(run_dir, REWARD)) == list(range(1, st["step"] + 1))
    comps = json.loads((run_dir / "components.json").read_text())
    assert {c["status"] for c in comps} == {"stopped"} and len(comps) == 4


def test_the_platform_says_what_an_rl_run_trains_here(api):
    """The supervisor's first line in an RL run's trainer log names the RL stand-in, not the SFT one."""
    from tests.local.conftest import wait_status

    runs = api.get("/rft/runs", params={"limit": 1000}).json()["runs"]
    demo = next(r for r in runs if r.get("name") == "reverse-text-rl")  # the demo platform's real RL run
    assert wait_status(api, demo["id"], timeout=240)["status"] == "COMPLETED"
    logs = api.get(
        f"/rft/runs/{demo['id']}/logs",
        params={"component": "trainer", "search": "Local platform:", "since_seconds": 86400},
    ).json()["logs"]
    assert "runs here as a stand-in pointer policy over the prompt's characters (40 logits)" in logs, logs
    assert "MLP" not in logs
