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
        "env-server-reverse-text.log",
        "inference.log",
        "orchestrator.log",
        "trainer.log",
    ]
    trainer = (logs / "trainer.log").read_text()
    assert "Broadcasting weights at step 5" in trainer and "Broadcasting weights at step 10" in trainer
    assert trainer.index("Waiting for the evals of the final checkpoint (step 10)") < trainer.index(
        "SFT trainer finished!"
    )
    inference = (logs / "inference.log").read_text()
    assert "Loaded weights from broadcast step 5" in inference and "Loaded weights from broadcast step 10" in inference
    orch = (logs / "orchestrator.log").read_text()
    assert "Eval reverse-text | Step 10 | Reward" in orch
    assert "Scored 32 rollouts" in (logs / "env-server-reverse-text.log").read_text()

    comps = json.loads((run_dir / "components.json").read_text())
    assert [(c["component"], c.get("env_name"), c["status"]) for c in comps] == [
        ("trainer", None, "completed"),
        ("inference", None, "completed"),
        ("env-server", "reverse-text", "completed"),
        ("orchestrator", None, "completed"),
    ]
    assert all(not _alive(c["pid"]) for c in comps[1:])
    assert sorted(p.name for p in (run_dir / "broadcasts").iterdir()) == ["FINAL", "step_10"]  # newest kept


def test_an_unknown_taskset_fails_the_run_with_the_env_servers_reason(runs):
    run_dir, _ = runs["unknown"]
    assert tt.run_inline(run_dir) == 1
    error = tt.status(run_dir)["error"]
    assert error.startswith(
        "env server 'reverse-text' exited with code 2: Taskset 'someone/unknown-task' is not available"
    )


def test_inference_server_loads_stable_broadcasts_and_generates(tmp_path):
    import numpy as np

    from primetui.local.evals.common import request_json
    from primetui.local.evals.inference import InferenceServer
    from primetui.local.trainer.model import ModelShape, init_params

    tt.write_run_dir(tmp_path, {"max_steps": 1}, volume_dir=None, standin=STANDIN)
    server = InferenceServer(tmp_path)
    http = server.serve()
    try:
        base = json.loads((tmp_path / "evals" / "inference.ready.json").read_text())["base_url"]
        assert request_json(f"{base}/health") == {"status": "ok", "step": None}
        assert request_json(f"{base}/v1/models")["data"][0]["id"] == tt.WALKTHROUGH_MODEL

        bcast = tmp_path / "broadcasts" / "step_3"
        bcast.mkdir(parents=True)
        params = init_params(ModelShape.from_standin(STANDIN), seed=7)
        np.savez(bcast / "model.npz", **params)
        import urllib.error

        with pytest.raises(urllib.error.HTTPError) as refused:  # no STABLE marker yet
            request_json(f"{base}/update_weights", {"path": str(bcast), "step": 3})
        assert refused.value.code == 409
        (bcast / "STABLE").write_text("3")
        assert request_json(f"{base}/update_weights", {"path": str(bcast), "step": 3}) == {"step": 3}
        assert np.array_equal(server.params["w1"], params["w1"])

        out = request_json(
            f"{base}/v1/generate", {"prompts": [[{"role": "user", "content": "abc"}]] * 2, "max_tokens": 5}
        )
        assert out["step"] == 3 and len(out["completions"]) == 2 and out["completions"][0] == out["completions"][1]
        chat = request_json(
            f"{base}/v1/chat/completions", {"messages": [{"role": "user", "content": "abc"}], "max_tokens": 5}
        )
        assert chat["choices"][0]["message"]["content"] == out["completions"][0]
        log = (tmp_path / "logs" / "inference.log").read_text()
        assert "Loaded weights from broadcast step 3" in log and "Generated 2 completions" in log
    finally:
        http.shutdown()
        http.server_close()


def test_a_restarted_run_dir_starts_fresh_eval_servers(tmp_path):
    """R5 restarts a run in its own run dir: stale readiness files and broadcasts must not leak in."""
    cfg = {
        "max_steps": 2,
        "ckpt": {},
        "data": {"type": "fake", "seq_len": 64, "batch_size": 2},
        **tt.online_eval_block(interval=1),
    }
    output = tt.write_run_dir(tmp_path, cfg, volume_dir=None, standin=STANDIN)
    assert tt.run_inline(tmp_path) == 0
    cfg["max_steps"] = 4
    tt.write_run_dir(tmp_path, cfg, volume_dir=None, standin=STANDIN, resume_from=output / "checkpoints" / "step_2")
    assert tt.run_inline(tmp_path) == 0
    assert sorted(tt.series(tmp_path, "eval/reverse-text/reward/mean")) == [0, 1, 2, 3, 4]
    assert tt.status(tmp_path)["state"] == "completed"


def test_orchestrator_says_what_it_waits_for(tmp_path):
    from primetui.local.evals.orchestrator import Orchestrator
    from primetui.local.trainer.files import write_json_atomic

    cfg = {"max_steps": 50, "log": {"interval": 2.5}, **tt.online_eval_block(interval=5)}
    cfg["eval"]["source"].append({"name": "other", "interval": 3, "env": {"taskset": {"id": "reverse-text"}}})
    tt.write_run_dir(tmp_path, cfg, volume_dir=None)
    write_json_atomic(tmp_path / "evals" / "endpoints.json", {"inference": "http://127.0.0.1:9", "envs": {}})
    write_json_atomic(tmp_path / "status.json", {"state": "running", "step": 7})
    orch = Orchestrator(tmp_path)
    assert orch.log_interval == 2.5
    assert orch.idle_note() == "Waiting for the next weight broadcast: trainer at step 7, next eval at step 9"
    orch.done.add(5)
    assert orch.idle_note().endswith("next eval at step 9, last evaluated step 5")
    assert [s.name for s in orch.due(9, final=None)] == ["other"] and len(orch.due(50, final=50)) == 2
