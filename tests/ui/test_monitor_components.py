"""The components view: which process failed, env servers from R8, trainer-only runs."""

from __future__ import annotations

from primetui.api.models import EnvServer
from tests.runs import wire_run
from primetui.ui.monitor import ComponentsPane
from primetui.ui.monitor.components_pane import component_rows
from tests.ui.monitor_helpers import PaneApp, screen_text
from tests.waiting import quiet

EVAL_CFG = {"eval": {"source": [{"name": "reverse-text"}]}}
SERVER = EnvServer(env_name="reverse-text", env_index=0, pod_name="r1-env-reverse-text-0", status="FAILED")


def test_a_killed_env_server_is_the_component_marked_failed():
    run = wire_run(
        {
            "id": "r1",
            "status": "FAILED",
            "errorMessage": "env server 'reverse-text' exited with code -9",
            "runConfig": EVAL_CFG,
        }
    )
    rows = {name: (state, detail) for name, _, state, detail in component_rows(run, [SERVER])}
    assert rows["env:reverse-text"] == ("failed", "env server 'reverse-text' exited with code -9")
    assert rows["trainer"][0] == rows["orchestrator"][0] == rows["inference"][0] == "stopped"


def test_a_trainer_failure_blames_the_trainer():
    run = wire_run({"id": "r1", "status": "FAILED", "errorMessage": "Trainer failed with exit code 1", "runConfig": {}})
    assert component_rows(run, None) == [("trainer", "training", "failed", "Trainer failed with exit code 1")]


def test_running_eval_run_lists_every_process_with_env_server_status():
    run = wire_run({"id": "r1", "status": "RUNNING", "runConfig": EVAL_CFG})
    rows = component_rows(run, [SERVER.model_copy(update={"status": "Running"})])
    assert [(r[0], r[2]) for r in rows] == [
        ("trainer", "running"),
        ("orchestrator", "running"),
        ("inference", "running"),
        ("env:reverse-text", "running"),
    ]
    assert "pod r1-env-reverse-text-0" in rows[-1][3]


async def test_components_pane_updates_when_the_run_changes():
    run = wire_run({"id": "r1", "status": "RUNNING", "runConfig": EVAL_CFG})
    app = PaneApp(lambda: ComponentsPane(None, run, follow=False))
    async with app.run_test(size=(120, 12)) as pilot:
        pane = app.query_one(ComponentsPane)
        await quiet(pilot)
        assert "not listed by the platform yet" in screen_text(app)
        pane.set_env_servers([SERVER.model_copy(update={"status": "Running"})])
        pane.set_run(run.model_copy(update={"status": "COMPLETED"}))
        await quiet(pilot)
        text = screen_text(app)
        assert "env:reverse-text" in text and "completed" in text and "not listed" not in text
