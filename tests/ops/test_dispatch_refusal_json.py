"""``dispatch --json`` prints the platform's refusal on stdout as JSON, then its ``done`` line (exit 3)."""

from __future__ import annotations

import json
import tomllib

import pytest
import tomlkit

from primetui.commands import waiting
from primetui.api.client import PrimeClient
from primetui.api.errors import error_from_response
from tests.ops.cli_run import primetui_main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


class RefusingPlatform(PrimeClient):
    """The real local platform for the pre-flight; the dispatch itself answered as a refusal."""

    async def create_run(self, config, **kw):  # noqa: ANN001, ANN003
        raise error_from_response(
            409,
            json.dumps({"detail": "The team's GPU quota is used up; stop a run first."}),
            method="POST",
            url=self.base_url + "/api/v1/training/runs",
        )


def test_the_platform_refusal_is_a_json_object_before_done(local_platform, tmp_path, monkeypatch, capsys):
    cfg = tomllib.loads((local_platform.data_dir / "sft.toml").read_text())
    cfg.pop("ckpt", None)
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    monkeypatch.setattr(
        "primetui.commands.launch.make_client", lambda s, rediscover=None: RefusingPlatform(s.base_url, s.api_key)
    )
    code, out, err = primetui_main(
        local_platform,
        tmp_path,
        monkeypatch,
        capsys,
        "dispatch",
        str(path),
        "--volume",
        "research",
        "--wait",
        "--json",
        "--interval",
        "1",
    )
    assert code == waiting.EXIT_SETUP, err
    refused, done = [json.loads(line) for line in out.splitlines()]
    assert refused["event"] == "refused" and refused["reason"] == "platform"
    assert refused["message"].startswith("primetui dispatch: the platform refused the run: ")
    assert "GPU quota is used up" in refused["message"]
    assert done == {"event": "done", "status": "REFUSED", "exit": 3}
    assert refused["message"] in err
