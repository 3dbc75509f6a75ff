"""The slow-pod knob on a single-node run: its one node (pod 0) sleeps per micro-batch (an RL run: per
step), as node N of a multi-node run does. It is what makes ``primetui.local.testing.IDLE_PACE`` idle:
tests whose run only has to be RUNNING dispatch the walkthrough (single-node) with it, and without the
knob its trainer took a core for the whole test."""

from __future__ import annotations

from primetui.local.testing import IDLE_PACE
from primetui.local.trainer import testing as tt

STANDIN = {"context": 8, "embed": 16, "hidden": 64}


def paced(env: dict[str, str]) -> dict:
    # batch 4 of micro-batch 2: two micro-batches a step
    data = {"type": "fake", "seq_len": 64, "batch_size": 4, "micro_batch_size": 2}
    return {"max_steps": 2, "data": data, "env_vars": env}


def test_a_single_node_run_sleeps_per_micro_batch_on_its_one_pod(tmp_path):
    assert IDLE_PACE["PRIMETUI_LOCAL_SLOW_POD"] == "0"  # the knob tests use names the single node
    env = {"PRIMETUI_LOCAL_SLOW_POD": "0", "PRIMETUI_LOCAL_SLOW_SECONDS": "0.2"}
    tt.write_run_dir(tmp_path, paced(env), volume_dir=None, standin=STANDIN)
    assert tt.run_inline(tmp_path) == 0
    log = (tmp_path / "logs" / "trainer.log").read_text()
    assert "Local pace: node 0 sleeps 0.2 s per micro-batch (PRIMETUI_LOCAL_SLOW_POD)" in log
    step_time = tt.series(tmp_path, "time/step")
    # each step slept 0.2 s before each of its two micro-batches: a lower bound, whatever the load
    assert sorted(step_time) == [1, 2] and all(step_time[s] >= 0.4 for s in (1, 2)), step_time


def test_an_unpaced_run_does_not_say_so_and_a_pod_a_single_node_run_lacks_is_refused(tmp_path):
    tt.write_run_dir(tmp_path / "plain", paced({}), volume_dir=None, standin=STANDIN)
    assert tt.run_inline(tmp_path / "plain") == 0
    assert "Local pace" not in (tmp_path / "plain" / "logs" / "trainer.log").read_text()
    tt.write_run_dir(tmp_path / "bad", paced({"PRIMETUI_LOCAL_SLOW_POD": "1"}), volume_dir=None, standin=STANDIN)
    assert tt.run_inline(tmp_path / "bad") == 1
    st = tt.status(tmp_path / "bad")
    assert st["state"] == "failed"
    assert st["error"] == "[env_vars] PRIMETUI_LOCAL_SLOW_POD = 1 names no pod: this run has pods 0..0."


def test_an_rl_run_sleeps_per_step_on_its_one_pod(tmp_path):
    """The same knob on an RL run (prime-rl's reverse-text example at 2 steps): an idle or paced RL run."""
    env = {"PRIMETUI_LOCAL_SLOW_POD": "0", "PRIMETUI_LOCAL_SLOW_SECONDS": "0.3"}
    tt.write_run_dir(tmp_path, tt.rl_example("reverse-text", max_steps=2, ckpt=None, env_vars=env), volume_dir=None)
    assert tt.run_inline(tmp_path) == 0
    log = (tmp_path / "logs" / "trainer.log").read_text()
    assert "Local pace: node 0 sleeps 0.3 s per step (PRIMETUI_LOCAL_SLOW_POD)" in log
    step_time = tt.series(tmp_path, "time/step")
    # each step slept 0.3 s before it sampled: a lower bound, whatever the load
    assert sorted(step_time) == [1, 2] and all(step_time[s] >= 0.3 for s in (1, 2)), step_time
