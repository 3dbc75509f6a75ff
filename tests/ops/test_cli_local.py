"""``--local`` wherever it is typed (issue 41, finding 11): before the subcommand as after it, and on
``validate`` too, whose model-cache rule then asks the embedded platform. Through the real parser, with
the environment of a user whose local platform is the shared one and who has no prime config."""

from __future__ import annotations

import json

import pytest
import tomlkit

from primetui.commands.cli import main
from tests.ops.script_helpers import script_env

pytestmark = [pytest.mark.timeout(120)]


@pytest.fixture
def local_user(local_platform, tmp_path, monkeypatch):
    for key in ("PRIME_API_KEY", "PRIME_BASE_URL", "PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID"):
        monkeypatch.delenv(key, raising=False)
    for key, value in script_env(local_platform, tmp_path).items():
        if key.startswith(("PRIMETUI_", "HOME")):
            monkeypatch.setenv(key, value)
    return local_platform


@pytest.mark.parametrize("argv", [["--local", "runs", "--once", "--json"], ["runs", "--once", "--json", "--local"]])
def test_local_before_or_after_the_subcommand_reaches_the_local_platform(local_user, capsys, argv):
    """``primetui --local runs --once`` used to drop the --local and stop at 'No API key configured' (78)."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert isinstance(json.loads(out)["runs"], list)


@pytest.mark.parametrize("before", [False, True])
def test_validate_takes_local_and_asks_the_local_platform_for_its_models(local_user, tmp_path, capsys, before):
    """``validate --local`` used to be a usage error (64); now the model-cache rule asks the local platform."""
    cfg = tomlkit.parse((local_user.data_dir / "sft.toml").read_text())
    cfg["model"]["name"] = "no-such-org/no-such-model"
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    argv = ["--local", "validate", str(path), "--json"] if before else ["validate", str(path), "--json", "--local"]
    code = main(argv)
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["model_cache"].endswith(f"models from {local_user.base_url}."), report["model_cache"]
    assert any(d["code"] == "model-cache" for d in report["files"][0]["diagnostics"]), report
    assert code == 1, err
