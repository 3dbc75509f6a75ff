"""``primetui dispatch --name`` and a top-level ``name`` in the file name the run, as ``prime train`` does."""

from __future__ import annotations

import io
import tomllib
from types import SimpleNamespace

import httpx
import pytest
import tomlkit

from primetui.commands import waiting
from primetui.api.client import PrimeClient

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def _dispatch(local_platform, tmp_path, monkeypatch, cfg: dict, name: str | None) -> tuple[int, str, str]:
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    settings = SimpleNamespace(base_url=local_platform.base_url, api_key=local_platform.token, team_id=None)
    monkeypatch.setattr(waiting, "_local_settings", lambda local: (settings, None))
    monkeypatch.setattr("primetui.commands.launch.make_client", lambda s, rediscover=None: PrimeClient(s.base_url, s.api_key))
    args = SimpleNamespace(command="dispatch", file=str(path), volume="research", wait=False, timeout=None, json=False,
                           interval=1.0, local=False, on_event=None, name=name)
    out, err = io.StringIO(), io.StringIO()
    code = waiting.main(args, out, err)
    return code, out.getvalue().strip(), err.getvalue()


def _run(local_platform, run_id: str) -> dict:
    reply = httpx.get(f"{local_platform.api_url}/rft/runs/{run_id}", headers=local_platform.headers, timeout=30)
    httpx.put(f"{local_platform.api_url}/rft/runs/{run_id}/stop", headers=local_platform.headers, timeout=30)
    return reply.json()["run"]


def _config(local_platform) -> dict:
    cfg = tomllib.loads((local_platform.data_dir / "sft.toml").read_text())
    cfg.pop("ckpt", None)
    return cfg


def test_the_file_name_names_the_run_and_name_flag_wins(local_platform, tmp_path, monkeypatch):
    cfg = _config(local_platform)
    cfg = {"name": "from-file", **cfg}
    code, run_id, err = _dispatch(local_platform, tmp_path, monkeypatch, cfg, None)
    assert code == waiting.EXIT_OK, err
    run = _run(local_platform, run_id)
    assert run["name"] == "from-file" and run["runConfig"]["name"] == "from-file"  # left inside config, as prime train does
    code, run_id, err = _dispatch(local_platform, tmp_path, monkeypatch, cfg, "from-flag")
    assert code == waiting.EXIT_OK, err
    assert _run(local_platform, run_id)["name"] == "from-flag"


def test_a_bad_name_is_refused_before_anything_is_sent(local_platform, tmp_path, monkeypatch):
    before = httpx.get(f"{local_platform.api_url}/rft/runs", headers=local_platform.headers, timeout=30).json()["total"]
    code, out, err = _dispatch(local_platform, tmp_path, monkeypatch, _config(local_platform), "two\nlines")
    assert code == waiting.EXIT_SETUP and out == ""
    assert "primetui dispatch: --name: name contains a control character" in err
    cfg = {"name": 7, **_config(local_platform)}
    code, out, err = _dispatch(local_platform, tmp_path, monkeypatch, cfg, None)
    assert code == waiting.EXIT_SETUP and "name must be a string" in err
    after = httpx.get(f"{local_platform.api_url}/rft/runs", headers=local_platform.headers, timeout=30).json()["total"]
    assert after == before
