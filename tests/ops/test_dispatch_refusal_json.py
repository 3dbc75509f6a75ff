"""``dispatch --json`` prints the platform's refusal on stdout as JSON, then its ``done`` line (exit 3)."""

from __future__ import annotations

import io
import json
import tomllib
from types import SimpleNamespace

import pytest
import tomlkit

from primetui.commands import waiting
from primetui.api.client import PrimeClient
from primetui.api.errors import error_from_response

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


class RefusingPlatform(PrimeClient):
    """The real local platform for the pre-flight; the dispatch itself answered as a refusal."""

    async def create_run(self, config, **kw):  # noqa: ANN001, ANN003
        raise error_from_response(409, json.dumps({"detail": "The team's GPU quota is used up; stop a run first."}),
                                  method="POST", url=self.base_url + "/api/v1/training/runs")


def test_the_platform_refusal_is_a_json_object_before_done(local_platform, tmp_path, monkeypatch):
    cfg = tomllib.loads((local_platform.data_dir / "sft.toml").read_text())
    cfg.pop("ckpt", None)
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    settings = SimpleNamespace(base_url=local_platform.base_url, api_key=local_platform.token, team_id=None)
    monkeypatch.setattr(waiting, "_local_settings", lambda local: (settings, None))
    monkeypatch.setattr("primetui.commands.launch.make_client",
                        lambda s, rediscover=None: RefusingPlatform(s.base_url, s.api_key))
    args = SimpleNamespace(command="dispatch", file=str(path), volume="research", wait=True, timeout=None, json=True,
                           interval=1.0, local=False, on_event=None)
    out, err = io.StringIO(), io.StringIO()
    assert waiting.main(args, out, err) == waiting.EXIT_SETUP, err.getvalue()
    refused, done = [json.loads(line) for line in out.getvalue().splitlines()]
    assert refused["event"] == "refused" and refused["reason"] == "platform"
    assert refused["message"].startswith("primetui dispatch: the platform refused the run: ")
    assert "GPU quota is used up" in refused["message"]
    assert done == {"event": "done", "status": "REFUSED", "exit": 3}
    assert refused["message"] in err.getvalue()
