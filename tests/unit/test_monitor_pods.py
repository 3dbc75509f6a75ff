"""Pods of a multi-node run: step times from each pod's log, the slowest pod, the failed one."""

from __future__ import annotations

from tests.runs import wire_run
from primetui.monitor_core.pods import PodBoard, failed_pod, parse_duration, step_time
from primetui.ui.monitor.components_pane import component_rows

RUN = wire_run(
    {
        "id": "r1",
        "status": "FAILED",
        "errorMessage": "Pod r1-trainer-2 (node 2 of 4) failed at step 2: simulated node failure",
        "runConfig": {"deployment": {"type": "multi_node", "num_train_nodes": 4, "gpus_per_node": 8}},
    }
)


def test_durations_and_step_lines():
    assert parse_duration("850ms") == 0.85 and parse_duration("8.5s") == 8.5 and parse_duration("2m 5s") == 125
    assert step_time("11:20:21 SUCCESS Step 3 |   1.4s | Node 5 | Local Loss 1.6550") == (3, 1.4)
    assert step_time("\x1b[2m20:35:39\x1b[0m SUCCESS Step 12 |  850ms | Loss 1.1") == (12, 0.85)
    assert step_time("11:20:21    INFO Saving checkpoint at step 3") is None


def test_slowest_pod_is_compared_at_a_step_every_pod_reached():
    board = PodBoard([0, 1, 2])
    board.observe(0, ["x SUCCESS Step 1 |   0.5s | a", "x SUCCESS Step 2 |   0.5s | a"])
    board.observe(1, ["x SUCCESS Step 1 |   2.0s | a"])  # behind: still at step 1
    board.observe(2, ["x SUCCESS Step 1 |   0.6s | a", "x SUCCESS Step 2 |   9.0s | a"])
    assert board.slowest() == (1, 1, 2.0, 2.0)
    board.observe(1, ["x SUCCESS Step 2 |   0.4s | a"])
    pod, step, secs, median = board.slowest()
    assert (pod, step, secs, median) == (2, 2, 9.0, 0.5)
    assert board.summary(None) == "3 trainer pods · step 2 · slowest trainer/2: 9.00s at step 2 (median 0.50s)"


def test_the_failed_pod_is_the_one_the_error_names():
    assert failed_pod(RUN.error_message) == 2 and failed_pod("env server 'x' exited") is None
    assert PodBoard([0, 1, 2, 3]).summary(RUN.error_message).endswith("· FAILED trainer/2")
    rows = component_rows(RUN, None)
    assert [(name, state) for name, _, state, _ in rows] == [
        ("trainer/0", "stopped"),
        ("trainer/1", "stopped"),
        ("trainer/2", "failed"),
        ("trainer/3", "stopped"),
    ]
    assert rows[2][3] == RUN.error_message


def test_multi_node_evals_have_a_tab_per_inference_node_and_the_router():
    from primetui.monitor_core.components import log_specs

    run = wire_run(
        runConfig={
            "deployment": {"type": "multi_node", "num_train_nodes": 2, "num_infer_nodes": 2},
            "eval": {"source": [{"name": "reverse-text"}]},
            "inference": {"router": {"type": "vllm-router"}},
        }
    )
    assert [(s.title, s.component, s.pod_index) for s in log_specs(run)] == [
        ("trainer/0", "trainer", 0),
        ("trainer/1", "trainer", 1),
        ("orchestrator", "orchestrator", None),
        ("inference/0", "inference", 0),
        ("inference/1", "inference", 1),
        ("router", "router", None),
        ("env:reverse-text", "env-server", None),
    ]
