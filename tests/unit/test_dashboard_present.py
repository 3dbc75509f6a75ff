"""The dashboard's view model (no textual): formatting, rules, sizes, health."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from primetui.api.models import VolumeSession
from primetui.api.models import RLRun
from primetui.viewmodel.checkpoints import checkpoint_command
from primetui.viewmodel.fmt import sparkline
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import run_row
from primetui.viewmodel.statuses import run_actions, run_lifecycle, status_label
from primetui.viewmodel.volume_view import check_volume_name, check_volume_size, session_blocks_dispatch
from primetui.viewmodel.sizing_hook import parse_bytes, parse_params, size_report
from primetui.viewmodel.state import Connection, DashboardState

NOW = datetime(2026, 9, 28, 20, 40, tzinfo=timezone.utc)


def run(**kw) -> RLRun:
    base = {
        "id": "r1",
        "userId": "u",
        "status": "RUNNING",
        "createdAt": "2026-09-28T20:30:00Z",
        "updatedAt": "2026-09-28T20:39:00Z",
        "startedAt": "2026-09-28T20:36:00Z",
        "maxSteps": 10,
        "baseModel": "Qwen/Qwen3-0.6B",
    }
    base.update(kw)
    return RLRun.model_validate(base)


def test_run_row_progress_eta_and_sparkline():
    progress = RunProgress.from_metric_rows([{"step": s, "loss/mean": 2.0 - s / 10} for s in range(1, 5)])
    progress.extend([{"step": 4, "eval/score": 0.5}])  # a late row for a known step merges
    row = run_row(run(), progress, NOW)
    assert (row.step, row.max_steps, row.steps_text()) == (4, 10, "4/10")
    assert row.bar == "████░░░░░░"
    assert row.elapsed == "4m00s" and row.eta == "6m00s"  # 60 s per step, 6 steps left
    assert row.spark == "█▅▃▁" and row.loss == 1.6
    assert status_label("RUNNING") == "▶ RUNNING"


def test_unknown_status_and_missing_fields_render_as_words_and_dashes():
    r = run(status="WARMING_UP", startedAt=None, maxSteps=None, baseModel=None)
    row = run_row(r, None, NOW)
    assert row.status == "WARMING_UP" and row.tone == "plain"
    assert status_label("WARMING_UP") == "? WARMING_UP"
    assert (row.elapsed, row.eta, row.model, row.steps_text()) == ("-", "-", "-", "-/-")


def test_actions_follow_the_status():
    assert run_actions("RUNNING") >= {"stop", "pause", "restart"}
    assert "resume" not in run_actions("RUNNING")
    assert run_actions("PAUSED") & {"resume", "delete"} == {"resume", "delete"}
    assert {"stop", "pause", "restart", "resume"} & run_actions("COMPLETED") == set()
    assert "stop" in run_actions("QUEUED")


def test_lifecycle_names_the_end_by_status():
    r = run(status="FAILED", completedAt="2026-09-28T20:38:00Z")
    assert [e.label for e in run_lifecycle(r)] == ["Created", "Started", "Failed"]
    assert run_lifecycle(r)[2].when == "2026-09-28 20:38"


def test_sparkline_marks_nan():
    assert sparkline([1.0, float("nan"), 0.0]) == "█!▁"


def test_volume_name_and_size_checks_are_one_sentence():
    assert check_volume_name("research") is None
    assert "lowercase" in check_volume_name("Research")
    assert check_volume_size("100Gi") is None and check_volume_size("5Ti") is None
    assert "whole number" in check_volume_size("1.5Ti")
    assert "only grow" in check_volume_size("50Gi", current="100Gi")


def test_session_rules():
    live_rw = VolumeSession(id="s", volume_name="v", status="RUNNING", read_only=False, phase="ready")
    syncing = live_rw.model_copy(update={"status": "TERMINATING", "phase": "syncing"})
    stopped = live_rw.model_copy(update={"status": "STOPPED", "phase": "stopped"})
    ro = live_rw.model_copy(update={"read_only": True})
    assert session_blocks_dispatch(live_rw)
    assert session_blocks_dispatch(syncing)  # its final sync is still running: wait for it
    assert not session_blocks_dispatch(stopped)
    assert not session_blocks_dispatch(ro)


def test_size_helper_uses_the_sft_sizing_rule():
    assert parse_params("0.6B") == 0.6e9 and parse_params("600M") == 6e8 and parse_params("x") is None
    assert parse_bytes("2Gi") == 2 * 1024**3 and parse_bytes("0") == 0
    report = size_report({"params": "7B", "keep_last": "2", "dataset": "10Gi"}, "100Gi")
    assert "78.2 GiB per checkpoint × 2 kept" in report and "does NOT fit in 100Gi" in report


def test_connection_marker_goes_stale_then_unreachable_then_live():
    c = Connection()
    assert c.describe(NOW) == ("muted", "◌ connecting")
    c.ok(NOW)
    assert c.describe(NOW + timedelta(seconds=5)) == ("success", "● live")
    assert c.describe(NOW + timedelta(seconds=45))[1] == "◌ stale 45s"
    c.failed("Cannot reach it.", NOW + timedelta(seconds=50))
    tone, text = c.describe(NOW + timedelta(seconds=50))
    assert tone == "error" and "unreachable" in text and "50s old" in text
    c.ok(NOW + timedelta(seconds=60))
    assert c.describe(NOW + timedelta(seconds=60))[1] == "● live"


def test_watched_status_change_is_reported_once():
    state = DashboardState(clock=lambda: NOW)
    state.watched.add("r1")
    assert state.observe_run(run()) is None  # first sighting
    assert state.observe_run(run(status="COMPLETED")) == ("RUNNING", "COMPLETED")
    assert state.observe_run(run(status="COMPLETED")) is None


def test_every_dashboard_binding_has_an_id():
    from textual.binding import Binding

    from primetui.ui.keys_doc import all_owners

    for area, owner in all_owners()[:7]:
        for b in owner.__dict__.get("BINDINGS", []):
            assert isinstance(b, Binding) and b.id, f"{area}: {b} has no id"


def test_checkpoint_command_matches_the_seed():
    assert (
        checkpoint_command("research", "abc", 10)
        == "prime volumes get research runs/abc/checkpoints/step_10/ ./step_10"
    )
