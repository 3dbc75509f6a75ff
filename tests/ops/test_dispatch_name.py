"""``primetui dispatch --name`` and a top-level ``name`` in the file name the run, as ``prime train`` does."""

from __future__ import annotations

import tomllib

import httpx
import pytest
import tomlkit

from primetui.commands import waiting
from tests.ops.cli_run import primetui_main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def _dispatch(local_platform, tmp_path, monkeypatch, capsys, cfg: dict, name: str | None) -> tuple[int, str, str]:
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    argv = ["dispatch", str(path), "--volume", "research", *(["--name", name] if name is not None else [])]
    code, out, err = primetui_main(local_platform, tmp_path, monkeypatch, capsys, *argv)
    return code, out.strip(), err


def _run(local_platform, run_id: str) -> dict:
    reply = httpx.get(f"{local_platform.api_url}/rft/runs/{run_id}", headers=local_platform.headers, timeout=30)
    httpx.put(f"{local_platform.api_url}/rft/runs/{run_id}/stop", headers=local_platform.headers, timeout=30)
    return reply.json()["run"]


def _config(local_platform) -> dict:
    cfg = tomllib.loads((local_platform.data_dir / "sft.toml").read_text())
    cfg.pop("ckpt", None)
    return cfg


def test_the_file_name_names_the_run_and_name_flag_wins(local_platform, tmp_path, monkeypatch, capsys):
    cfg = _config(local_platform)
    cfg = {"name": "from-file", **cfg}
    code, run_id, err = _dispatch(local_platform, tmp_path, monkeypatch, capsys, cfg, None)
    assert code == waiting.EXIT_OK, err
    run = _run(local_platform, run_id)
    assert (
        run["name"] == "from-file" and run["runConfig"]["name"] == "from-file"
    )  # left inside config, as prime train does
    code, run_id, err = _dispatch(local_platform, tmp_path, monkeypatch, capsys, cfg, "from-flag")
    assert code == waiting.EXIT_OK, err
    assert _run(local_platform, run_id)["name"] == "from-flag"


def test_a_bad_name_is_refused_before_anything_is_sent(local_platform, tmp_path, monkeypatch, capsys):
    before = httpx.get(f"{local_platform.api_url}/rft/runs", headers=local_platform.headers, timeout=30).json()["total"]
    code, out, err = _dispatch(local_platform, tmp_path, monkeypatch, capsys, _config(local_platform), "two\nlines")
    assert code == waiting.EXIT_SETUP and out == ""
    assert "primetui dispatch: --name: name contains a control character" in err
    cfg = {"name": 7, **_config(local_platform)}
    code, out, err = _dispatch(local_platform, tmp_path, monkeypatch, capsys, cfg, None)
    assert code == waiting.EXIT_SETUP and "name must be a string" in err
    after = httpx.get(f"{local_platform.api_url}/rft/runs", headers=local_platform.headers, timeout=30).json()["total"]
    assert after == before
