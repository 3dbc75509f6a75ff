"""Online evals on the local platform: inference, env servers and orchestrator beside the trainer."""

from __future__ import annotations

import json
import os

import pytest

from primetui.local.evals import reverse_text
from primetui.local.trainer import testing as tt

STANDIN = {"context": 8, "embed": 16, "hidden": 64}
SMALL = {"data": {"seq_len": 512, "batch_size": 4}}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("evalruns")
    vol = root / "vol"
    tt.write_reverse_text(vol, rows=200)
    bad_taskset = tt.online_eval_block(interval=5)
    bad_taskset["eval"]["source"][0]["env"] = {"taskset": {"id": "someone/unknown-task"}}
    specs = {
        "template": (tt.walkthrough_config(optim={"lr": 3e-3}, **SMALL, **tt.online_eval_block(interval=5)), vol),
        "unknown": ({"max_steps": 5, "data": {"type": "fake", "seq_len": 64, "batch_size": 2}, **bad_taskset}, None),
    }
    launched = {}
    for name, (cfg, volume) in specs.items():
        run_dir = root / name
        tt.write_run_dir(run_dir, cfg, volume_dir=volume, run_id=name, standin=STANDIN)
        # The template run is a real trainer process; the failure case runs the trainer in-process.
        launched[name] = (run_dir, tt.start(run_dir) if name == "template" else None)
    yield launched
    for _, proc in launched.values():
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def test_reverse_text_reward_is_similarity_to_the_reversed_text():
    text = "The river carries the morning light."
    assert reverse_text.score(text[::-1], text) == 1.0
    assert reverse_text.score(f"<reversed_text>\n{text[::-1]}\n</reversed_text>", text) == 1.0
    assert 0.0 <= reverse_text.score("zzz", text) < 0.2
    assert reverse_text.examples(4) == reverse_text.examples(4)


def test_online_eval_template_evaluates_each_interval_and_completes_after_the_final_eval(runs):
    run_dir, proc = runs["template"]
    assert proc.wait(timeout=120) == 0
    status = tt.status(run_dir)
    assert status["state"] == "completed" and status["step"] == 10

    rows = [r for r in tt.metric_rows(run_dir) if "eval/reverse-text/reward/mean" in r]
    assert [r["step"] for r in rows] == [0, 5, 10]  # the startup eval, then every eval.interval
    for r in rows:
        assert 0.0 <= r["eval/reverse-text/reward/mean"] <= 1.0
        assert r["eval/reverse-text/count"] == 32
        assert r["eval/reverse-text/reward/std"] >= 0 and r["eval/reverse-text/time"] > 0
    assert rows[-1]["time"] <= status["time"]  # COMPLETED only after the final eval landed

    logs = run_dir / "logs"
    assert sorted(p.name for p in logs.iterdir()) == [
        "env-server-reverse-text.log", "inference.log", "orchestrator.log", "trainer.log"]
    trainer = (logs / "trainer.log").read_text()
    assert "Broadcasting weights at step 5" in trainer and "Broadcasting weights at step 10" in trainer
    assert trainer.index("Waiting for the evals of the final checkpoint (step 10)") < trainer.index("SFT trainer finished!")
    inference = (logs / "inference.log").read_text()
    assert "Loaded weights from broadcast step 5" in inference and "Loaded weights from broadcast step 10" in inference
    orch = (logs / "orchestrator.log").read_text()
    assert "Eval reverse-text | Step 10 | Reward" in orch
    assert "Scored 32 rollouts" in (logs / "env-server-reverse-text.log").read_text()

    comps = json.loads((run_dir / "components.json").read_text())
    assert [(c["component"], c.get("env_name"), c["status"]) for c in comps] == [
        ("trainer", None, "completed"), ("inference", None, "completed"),
        ("env-server", "reverse-text", "completed"), ("orchestrator", None, "completed")]
    assert all(not _alive(c["pid"]) for c in comps[1:])
    assert sorted(p.name for p in (run_dir / "broadcasts").iterdir()) == ["FINAL", "step_10"]  # newest kept


def test_an_unknown_taskset_fails_the_run_with_the_env_servers_reason(runs):
    run_dir, _ = runs["unknown"]
    assert tt.run_inline(run_dir) == 1
    error = tt.status(run_dir)["error"]
    assert error.startswith("env server 'reverse-text' exited with code 2: Taskset 'someone/unknown-task' is not available")
