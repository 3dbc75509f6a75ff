"""``primetui sweep``: a grid of configs pre-flighted as a whole, then one named run each (all or none)."""

from __future__ import annotations

import json
import tomllib

import httpx
import pytest
import tomlkit

from primetui.commands import waiting
from tests.ops.cli_run import primetui_main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def _sweep(
    local_platform,
    tmp_path,
    monkeypatch,
    capsys,
    sets: list[str],
    *,
    name: str | None = "lr",
    as_json=False,
    wait=False,
) -> tuple[int, str, str]:
    cfg = tomllib.loads((local_platform.data_dir / "sft.toml").read_text())
    cfg.pop("ckpt", None)
    cfg["max_steps"] = 1  # the tests read names, configs and endings, never a step: one step a run
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    argv = ["sweep", str(path), "--volume", "research", *(a for s in sets for a in ("--set", s))]
    argv += ["--name", name] if name is not None else []
    argv += ["--json"] if as_json else []
    argv += ["--wait", "--timeout", "120", "--interval", "0.5"] if wait else []
    return primetui_main(local_platform, tmp_path, monkeypatch, capsys, *argv)


def _runs(local_platform) -> list[dict]:
    reply = httpx.get(
        f"{local_platform.api_url}/rft/runs", headers=local_platform.headers, params={"limit": 100}, timeout=30
    )
    return reply.json()["runs"]


def test_four_learning_rates_are_four_named_runs_and_wait_follows_them(local_platform, tmp_path, monkeypatch, capsys):
    code, out, err = _sweep(
        local_platform, tmp_path, monkeypatch, capsys, ["optim.lr=1e-5,3e-5,1e-4,1e-1"], as_json=True, wait=True
    )
    lines = [json.loads(line) for line in out.splitlines()]
    dispatched = [x for x in lines if x["event"] == "dispatched"]
    assert [x["name"] for x in dispatched] == ["lr-lr=1e-5", "lr-lr=3e-5", "lr-lr=1e-4", "lr-lr=1e-1"]
    assert lines[-1] == {"event": "done", "status": "COMPLETED", "exit": 0, "timed_out": []}, err
    assert code == waiting.EXIT_OK
    ended = {x["run_id"]: x for x in lines if x["event"] == "end"}
    assert set(ended) == {x["run_id"] for x in dispatched}
    by_id = {r["id"]: r for r in _runs(local_platform)}
    for x in dispatched:
        run = by_id[x["run_id"]]
        assert run["name"] == x["name"]
        assert run["runConfig"]["optim"]["lr"] == float(x["name"].rsplit("=", 1)[1])


def test_one_failing_variant_dispatches_none(local_platform, tmp_path, monkeypatch, capsys):
    before = len(_runs(local_platform))
    code, out, err = _sweep(
        local_platform,
        tmp_path,
        monkeypatch,
        capsys,
        ['model.name="PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT","nobody/not-cached"'],
        name="m",
        as_json=True,
    )
    assert code == waiting.EXIT_SETUP and len(_runs(local_platform)) == before
    refused, done = [json.loads(line) for line in out.splitlines()]
    assert refused["reason"] == "preflight"
    assert refused["message"].startswith(
        "primetui sweep: the pre-flight failed for 1 of 2 runs (m-name=nobody/not-cached)"
    )
    assert refused["message"].endswith("nothing was dispatched.")
    assert done == {"event": "done", "status": "REFUSED", "exit": 3}


def test_plain_output_is_the_ids_alone_and_a_bad_set_is_a_sentence(local_platform, tmp_path, monkeypatch, capsys):
    code, out, err = _sweep(local_platform, tmp_path, monkeypatch, capsys, ["max_steps=2,3"], name=None)
    ids = out.split()
    assert code == waiting.EXIT_OK and len(ids) == 2
    names = {r["id"]: r.get("name") for r in _runs(local_platform)}
    assert [names[i] for i in ids] == ["sft-max_steps=2", "sft-max_steps=3"]
    code, out, err = _sweep(local_platform, tmp_path, monkeypatch, capsys, ["model.name=Qwen/x"])
    assert code == waiting.EXIT_SETUP and out == ""
    assert "primetui sweep: --set model.name: 'Qwen/x' is not a TOML value; quote a string" in err
    for run_id in ids:
        httpx.put(f"{local_platform.api_url}/rft/runs/{run_id}/stop", headers=local_platform.headers, timeout=30)


def _rl_sweep(local_platform, tmp_path, monkeypatch, capsys, sets: list[str], name: str) -> tuple[int, str, str]:
    from primetui.sft.templates import RL_REVERSE_TEXT

    path = tmp_path / "rl.toml"
    path.write_text(RL_REVERSE_TEXT)
    argv = [
        "sweep",
        str(path),
        "--volume",
        "research",
        "--name",
        name,
        "--json",
        *(a for s in sets for a in ("--set", s)),
    ]
    return primetui_main(local_platform, tmp_path, monkeypatch, capsys, *argv)


def test_an_rl_toml_sweeps_into_rl_runs_and_a_bad_group_stops_the_grid(local_platform, tmp_path, monkeypatch, capsys):
    before = len(_runs(local_platform))
    code, out, err = _rl_sweep(local_platform, tmp_path, monkeypatch, capsys, ["orchestrator.group_size=16,24"], "g")
    assert code == waiting.EXIT_SETUP and len(_runs(local_platform)) == before, err
    refused = json.loads(out.splitlines()[0])
    assert refused["reason"] == "preflight" and "(g-group_size=24)" in refused["message"]
    assert "pre-flight FAIL Batch    batch_size 128 does not divide by group_size 24" in err
    code, out, err = _rl_sweep(local_platform, tmp_path, monkeypatch, capsys, ["trainer.optim.lr=1e-6,3e-6"], "rl-lr")
    lines = [json.loads(line) for line in out.splitlines()]
    dispatched = [x for x in lines if x["event"] == "dispatched"]
    assert code == waiting.EXIT_OK and [x["name"] for x in dispatched] == ["rl-lr-lr=1e-6", "rl-lr-lr=3e-6"], err
    assert "pre-flight ok   Taskset  reverse-text: known to the platform" in err
    by_id = {r["id"]: r for r in _runs(local_platform)}
    for x in dispatched:
        config = by_id[x["run_id"]]["runConfig"]
        assert config["trainer"]["optim"]["lr"] == float(x["name"].rsplit("=", 1)[1])
        assert config["orchestrator"]["group_size"] == 16
        httpx.put(f"{local_platform.api_url}/rft/runs/{x['run_id']}/stop", headers=local_platform.headers, timeout=30)
