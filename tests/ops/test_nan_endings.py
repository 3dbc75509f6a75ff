"""A real local run that diverges to NaN, seen by scripts: ``runs --json``, ``run ID --once --json`` and
``compare --json`` say null plus ``"NaN"`` at the last step; ``wait`` and ``dispatch --wait`` exit 4.

With ``lr = 1e12`` the walkthrough's steps 1-2 are finite and steps 3-5 NaN. The local trainer writes
no ``loss/mean`` for a NaN step (JSON has no NaN), only ``loss/nan_count``.
"""

from __future__ import annotations

import json

import pytest
from tests.local.conftest import http, wait_status
from tests.ops.cli_run import primetui_main
from tests.ops.test_wait_dispatch import config, post_run, primetui, write

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def nan_config(lp, max_steps: int = 5) -> dict:
    cfg = config(lp, max_steps)
    cfg["optim"] = {"lr": 1e12}
    return cfg


def until_completed(lp, run_id: str) -> None:
    with http(lp) as c:
        wait_status(c, run_id, {"COMPLETED"})


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def ended(local_platform) -> tuple[str, str]:
    """(a run that ended NaN, a healthy run), both COMPLETED: what the first two tests read and wait on.
    The third follows a run of its own as it diverges."""
    nan, healthy = (
        post_run(local_platform, nan_config(local_platform)),
        post_run(local_platform, config(local_platform, 3)),
    )
    for run_id in (nan, healthy):
        until_completed(local_platform, run_id)
    return nan, healthy


def test_scripts_see_a_nan_ending_as_null_with_its_mark(local_platform, ended, tmp_path, monkeypatch, capsys):
    run_id, other = ended

    def primetui_cli(*argv: str) -> tuple[int, str]:
        code, out, err = primetui_main(local_platform, tmp_path, monkeypatch, capsys, *argv)
        assert code == 0, err
        return code, out

    _, listing = primetui_cli("runs", "--once", "--json")
    row = next(r for r in json.loads(listing)["runs"] if r["id"] == run_id)
    assert (row["loss"], row["loss_nonfinite"], row["loss_step"]) == (None, "NaN", 5), row

    _, detail = primetui_cli("run", run_id, "--once", "--json")
    d = json.loads(detail)
    assert (d["loss"], d["loss_nonfinite"], d["loss_step"]) == (None, "NaN", 5)
    assert d["series"]["loss/mean"]["steps"] == [1, 2, 3, 4, 5]  # the NaN steps are points (null), not a gap
    assert d["series"]["loss/mean"]["values"][2:] == [None, None, None]

    _, table = primetui_cli("run", run_id, "--once")
    assert "NaN @5" in table, table

    _, compared = primetui_cli("compare", run_id, other, "--once", "--json")
    by_id = {r["id"]: r for r in json.loads(compared)["runs"]}
    nan = by_id[run_id]
    assert (nan["final_loss"], nan["final_loss_nonfinite"], nan["final_loss_step"]) == (None, "NaN", 5), nan
    assert by_id[other]["final_loss_nonfinite"] is None and isinstance(by_id[other]["final_loss"], float)
    _, text = primetui_cli("compare", run_id, other, "--once")
    assert "NaN @5" in text, text


def test_wait_on_a_run_that_ended_nan_exits_4(local_platform, ended, tmp_path):
    run_id, healthy = ended
    out = primetui(local_platform, tmp_path, "wait", run_id, "--json", "--interval", "0.2")
    assert out.returncode == 4, (out.stdout, out.stderr)  # "ended NaN or with an error-level anomaly"
    lines = events(out.stdout)
    end = next(e for e in lines if e["event"] == "end")
    assert end["status"] == "COMPLETED" and end["loss_nonfinite"] == "NaN" and end["final_loss_step"] == 5
    assert any("nan_count" in a for a in end["anomalies"]), end["anomalies"]  # the error-level NaN anomaly
    assert lines[-1] == {"event": "done", "status": "ANOMALY", "exit": 4, "timed_out": []}

    text = primetui(local_platform, tmp_path, "wait", run_id)
    assert text.returncode == 4
    assert f"run {run_id} is COMPLETED, but its loss ended NaN at step 5" in text.stdout + text.stderr

    both = primetui(local_platform, tmp_path, "wait", healthy, "--interval", "0.2")
    assert both.returncode == 0, (both.stdout, both.stderr)  # a healthy run still exits 0


def test_dispatch_wait_of_a_run_that_diverges_to_nan_exits_4(local_platform, tmp_path):
    path = write(tmp_path, nan_config(local_platform))
    out = primetui(
        local_platform, tmp_path, "dispatch", str(path), "--volume", "research", "--wait", "--json", "--interval", "0.2"
    )
    assert out.returncode == 4, (out.stdout, out.stderr)
    assert events(out.stdout)[-1]["status"] == "ANOMALY"
