"""``primetui sweep`` checks its grid as a whole (issue 41, finding 6 and the duplicate-names slip).

Through the CLI's own parser (``cli.main``) against the local platform: a grid whose runs each fit
the volume but not together is refused before anything is dispatched; a name the platform already
has is warned about with the prefix that makes it new, and ``--suffix`` takes it.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import httpx
import pytest
import tomlkit

from primetui.commands import waiting
from primetui.commands.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def _primetui(lp, tmp: Path, monkeypatch, capsys, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``primetui *argv`` with the platform given as a user's shell gives it."""
    for key in ("PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID"):
        monkeypatch.delenv(key, raising=False)
    (tmp / "home").mkdir(exist_ok=True)
    for key, value in (
        ("HOME", str(tmp / "home")),
        ("PRIME_API_KEY", lp.token),
        ("PRIME_BASE_URL", lp.base_url),
        ("PRIMETUI_CONFIG_DIR", str(tmp / "cfg")),
        ("PRIMETUI_LOG_DIR", str(tmp / "log")),
    ):
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _config(lp, tmp: Path, drop: tuple[str, ...] = (), **changes) -> Path:
    cfg = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    cfg.update(changes)
    for key in drop:
        cfg.pop(key, None)
    path = tmp / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    return path


def _names(lp) -> list[str]:
    reply = httpx.get(f"{lp.api_url}/rft/runs", headers=lp.headers, params={"limit": 1000}, timeout=30)
    return [r.get("name") for r in reply.json()["runs"]]


def _stop(lp, run_ids: list[str]) -> None:
    for run_id in run_ids:
        httpx.put(f"{lp.api_url}/rft/runs/{run_id}/stop", headers=lp.headers, timeout=30)


def test_three_runs_that_fit_the_volume_alone_but_not_together_are_refused(
    local_platform, tmp_path, monkeypatch, capsys
):
    # The walkthrough's 0.6B model keeping 6 checkpoints: 43.2 GB a run on the 100Gi (107.4 GB) demo volume.
    path = _config(local_platform, tmp_path, max_steps=60, ckpt={"interval": 10, "keep_last": 6})
    before = len(_names(local_platform))
    code, out, err = _primetui(
        local_platform,
        tmp_path,
        monkeypatch,
        capsys,
        "sweep",
        str(path),
        "--volume",
        "research",
        "--set",
        "optim.lr=1e-5,3e-5,1e-4",
        "--name",
        "grid",
        "--json",
    )
    assert code == waiting.EXIT_SETUP, err
    assert len(_names(local_platform)) == before  # nothing was dispatched
    assert err.count("pre-flight ok   Space    6 checkpoint(s) × 7.2 GB = 43.2 GB of 107.4 GB") == 3, err
    line = (
        "sweep grid FAIL 3 runs · 3 GPUs · cost: no on-demand GPU price listed · checkpoints 3 × 43.2 GB = "
        "129.6 GB > volume 107.4 GB — expand the volume, lower keep_last or split the sweep"
    )
    assert line in err.splitlines()
    refused, done = [json.loads(x) for x in out.splitlines()]
    assert refused["reason"] == "preflight" and line in refused["details"]
    assert refused["message"] == (
        "primetui sweep: the 3 runs do not fit on research together (checkpoints 3 × 43.2 GB "
        "= 129.6 GB > volume 107.4 GB — expand the volume, lower keep_last or split the "
        "sweep); nothing was dispatched."
    )
    assert done == {"event": "done", "status": "REFUSED", "exit": 3}


def test_names_already_taken_are_warned_about_and_suffix_makes_them_new(local_platform, tmp_path, monkeypatch, capsys):
    path = _config(local_platform, tmp_path, drop=("ckpt",), max_steps=1)
    sweep = ("sweep", str(path), "--volume", "research", "--set", "optim.lr=1e-5,3e-5", "--name", "gen")
    started: list[str] = []
    try:
        code, out, err = _primetui(local_platform, tmp_path, monkeypatch, capsys, *sweep)
        assert code == waiting.EXIT_OK and "warning" not in err, err
        started += out.split()

        code, out, err = _primetui(local_platform, tmp_path, monkeypatch, capsys, *sweep, "--json")
        lines = [json.loads(x) for x in out.splitlines()]
        started += [x["run_id"] for x in lines if x["event"] == "dispatched"]
        assert code == waiting.EXIT_OK, err
        assert (
            "warning: 2 of the 2 run names are already on the platform (gen-lr=1e-5, gen-lr=3e-5), so the runs list "
            "would mix this sweep with the earlier one under 'gen'; --name gen-2 (or --suffix) makes every name new."
        ) in err.splitlines()
        grid = next(x for x in lines if x["event"] == "grid")
        assert grid["names_taken"] == ["gen-lr=1e-5", "gen-lr=3e-5"] and grid["runs"] == 2 and grid["gpus"] == 2
        assert grid["line"] == (
            "2 runs · 2 GPUs · cost: no on-demand GPU price listed · no run keeps a checkpoint on the volume"
        )

        code, out, err = _primetui(local_platform, tmp_path, monkeypatch, capsys, *sweep, "--suffix")
        started += out.split()
        assert code == waiting.EXIT_OK and "warning" not in err, err
        names = {
            r["id"]: r.get("name")
            for r in httpx.get(
                f"{local_platform.api_url}/rft/runs", params={"limit": 1000}, headers=local_platform.headers, timeout=30
            ).json()["runs"]
        }
        assert [names[i] for i in out.split()] == ["gen-2-lr=1e-5", "gen-2-lr=3e-5"]
        assert _names(local_platform).count("gen-lr=1e-5") == 2  # the second sweep went on, warned
    finally:
        _stop(local_platform, started)
