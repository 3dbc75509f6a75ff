"""Settings are read with the prime CLI's precedence, and saving a key keeps the CLI's file intact."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from primetui.config.settings import DEFAULT_BASE_URL, SettingsError, load_settings, save_api_key

KEY = "pk-file-0123456789abcdef"


def _write(home: Path, rel: str, data) -> Path:
    path = home / ".prime" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_nothing_configured_gives_cli_defaults_and_writes_nothing(tmp_path):
    s = load_settings(env={}, home=tmp_path)
    assert s.api_key == "" and not s.has_api_key
    assert s.base_url == DEFAULT_BASE_URL and s.frontend_url == "https://app.primeintellect.ai"
    assert s.team_id is None and s.environment == "production"
    assert s.ssh_key_path == tmp_path / ".ssh" / "id_rsa"
    assert s.problems == () and s.sources["api_key"] == "default"
    assert not (tmp_path / ".prime").exists()


def test_prime_login_file_is_enough(tmp_path):
    _write(
        tmp_path,
        "config.json",
        {
            "api_key": KEY,
            "team_id": "team1",
            "team_name": "Lab",
            "base_url": "http://127.0.0.1:8000/api/v1/",
            "ssh_key_path": "~/.ssh/id_ed25519",
            "user_id": "u1",
            "extra": [1],
        },
    )
    s = load_settings(env={}, home=tmp_path)
    assert s.api_key == KEY and s.team_id == "team1" and s.team_name == "Lab" and s.user_id == "u1"
    assert s.base_url == "http://127.0.0.1:8000" and s.is_local
    assert s.ssh_key_path == tmp_path / ".ssh" / "id_ed25519"
    assert s.sources["api_key"] == "config.json"


def test_env_beats_file(tmp_path):
    _write(tmp_path, "config.json", {"api_key": KEY, "team_id": "team1", "base_url": "http://127.0.0.1:1"})
    s = load_settings(
        env={
            "PRIME_API_KEY": "pk-env-key-999999",
            "PRIME_TEAM_ID": " team2 ",
            "PRIME_BASE_URL": "http://127.0.0.1:2/",
            "PRIME_API_BASE_URL": "http://127.0.0.1:3/api/v1",
            "PRIME_FRONTEND_URL": "http://127.0.0.1:4/",
            "PRIME_SSH_KEY_PATH": "~/k",
            "PRIME_USER_ID": "u9",
        },
        home=tmp_path,
    )
    assert s.api_key == "pk-env-key-999999" and s.sources["api_key"] == "PRIME_API_KEY"
    assert s.team_id == "team2" and s.team_name is None
    assert s.base_url == "http://127.0.0.1:3" and s.sources["base_url"] == "PRIME_API_BASE_URL"
    assert s.frontend_url == "http://127.0.0.1:4"
    assert s.ssh_key_path == tmp_path / "k" and s.user_id == "u9"


def test_blank_env_team_falls_back_to_file(tmp_path):
    _write(tmp_path, "config.json", {"team_id": "team1"})
    assert load_settings(env={"PRIME_TEAM_ID": "  "}, home=tmp_path).team_id == "team1"
    assert load_settings(env={"PRIME_BASE_URL": "http://127.0.0.1:5"}, home=tmp_path).base_url == "http://127.0.0.1:5"


def test_prime_context_loads_saved_environment_in_memory(tmp_path):
    cfg = _write(tmp_path, "config.json", {"api_key": KEY, "team_id": "team1", "base_url": "http://127.0.0.1:1"})
    before = cfg.read_text()
    _write(
        tmp_path,
        "environments/local.json",
        {"api_key": "pk-local-0000000000", "team_id": None, "base_url": "http://127.0.0.1:8000/api/v1"},
    )
    s = load_settings(env={"PRIME_CONTEXT": "local"}, home=tmp_path)
    assert s.environment == "local"
    assert s.api_key == "pk-local-0000000000" and s.team_id is None
    assert s.base_url == "http://127.0.0.1:8000" and s.sources["base_url"] == "environment local"
    assert cfg.read_text() == before  # in memory only
    # env-var URL overrides still beat the context
    s = load_settings(env={"PRIME_CONTEXT": "local", "PRIME_BASE_URL": "http://127.0.0.1:9"}, home=tmp_path)
    assert s.base_url == "http://127.0.0.1:9"


def test_context_without_api_key_keeps_file_key(tmp_path):
    _write(tmp_path, "config.json", {"api_key": KEY})
    _write(tmp_path, "environments/staging.json", {"base_url": "http://127.0.0.1:7"})
    s = load_settings(env={"PRIME_CONTEXT": "staging"}, home=tmp_path)
    assert s.api_key == KEY and s.base_url == "http://127.0.0.1:7"


def test_production_context_resets_urls_and_team(tmp_path):
    _write(
        tmp_path,
        "config.json",
        {"api_key": KEY, "team_id": "team1", "base_url": "http://127.0.0.1:1", "current_environment": "local"},
    )
    s = load_settings(env={"PRIME_CONTEXT": "production"}, home=tmp_path)
    assert s.base_url == DEFAULT_BASE_URL and s.team_id is None and s.api_key == KEY
    assert s.environment == "production"


@pytest.mark.parametrize(
    "context,content,needle",
    [
        ("missing", None, "names no saved environment"),
        ("../etc", None, "is not a valid environment name"),
        ("broken", "{nope", "is not valid JSON (line 1, column 2)"),
    ],
)
def test_bad_context_is_reported_not_fatal(tmp_path, context, content, needle):
    _write(tmp_path, "config.json", {"api_key": KEY, "base_url": "http://127.0.0.1:1"})
    if content is not None:
        _write(tmp_path, f"environments/{context}.json", content)
    s = load_settings(env={"PRIME_CONTEXT": context}, home=tmp_path)
    assert s.api_key == KEY and s.base_url == "http://127.0.0.1:1"
    assert len(s.problems) == 1 and needle in s.problems[0]


@pytest.mark.parametrize(
    "content,needle",
    [
        ('{"api_key": "x",', "is not valid JSON"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"api_key": 5}', "`api_key` in"),
    ],
)
def test_broken_config_file_falls_back_to_defaults(tmp_path, content, needle):
    _write(tmp_path, "config.json", content)
    s = load_settings(env={"PRIME_API_KEY": "pk-env-0000000000"}, home=tmp_path)
    assert s.api_key == "pk-env-0000000000" and s.base_url == DEFAULT_BASE_URL
    assert len(s.problems) == 1 and needle in s.problems[0] and s.problems[0].endswith(".")


def test_repr_masks_key(tmp_path):
    _write(tmp_path, "config.json", {"api_key": KEY})
    s = load_settings(env={}, home=tmp_path)
    assert KEY not in repr(s) and KEY not in str(s) and s.masked_api_key == "…cdef"


def test_save_api_key_creates_cli_file_with_private_modes(tmp_path):
    path = save_api_key(f"  {KEY}\n", home=tmp_path, env={})
    assert path == tmp_path / ".prime" / "config.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    data = json.loads(path.read_text())
    assert data["api_key"] == KEY and data["base_url"] == DEFAULT_BASE_URL
    assert data["current_environment"] == "production"
    assert load_settings(env={}, home=tmp_path).api_key == KEY
    assert [p.name for p in path.parent.iterdir()] == ["config.json"]  # no temp file left


def test_save_api_key_keeps_every_other_field(tmp_path):
    original = {
        "api_key": "old",
        "team_id": "team1",
        "base_url": "http://127.0.0.1:8000",
        "traces_opt_out": True,
        "future_field": {"a": 1},
    }
    _write(tmp_path, "config.json", original)
    save_api_key(KEY, home=tmp_path, env={})
    path = tmp_path / ".prime" / "config.json"
    assert json.loads(path.read_text()) == {**original, "api_key": KEY}
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_save_api_key_never_prints_the_key(tmp_path, capsys, caplog):
    save_api_key(KEY, home=tmp_path, env={})
    out = capsys.readouterr()
    assert KEY not in out.out + out.err + caplog.text


def test_save_api_key_refuses_to_clobber_a_broken_file(tmp_path):
    path = _write(tmp_path, "config.json", '{"api_key": "x", "team_id": ')
    with pytest.raises(SettingsError) as info:
        save_api_key(KEY, home=tmp_path, env={})
    assert "nothing was changed" in str(info.value)
    assert path.read_text() == '{"api_key": "x", "team_id": '


def test_save_api_key_refuses_under_context_and_rejects_spaces(tmp_path):
    with pytest.raises(SettingsError, match="PRIME_CONTEXT=local"):
        save_api_key(KEY, home=tmp_path, env={"PRIME_CONTEXT": "local"})
    with pytest.raises(SettingsError, match="no spaces"):
        save_api_key("pk a b", home=tmp_path, env={})
    assert not (tmp_path / ".prime").exists()


def test_real_prime_cli_reads_what_we_save(tmp_path, monkeypatch):
    """The official CLI's own Config class sees the key we stored."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("PRIME_API_KEY", "PRIME_CONTEXT", "PRIME_TEAM_ID", "PRIME_BASE_URL", "PRIME_API_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    save_api_key(KEY, home=tmp_path, env={})
    from prime_cli.core.config import Config

    cfg = Config()
    assert cfg.api_key == KEY and cfg.base_url == DEFAULT_BASE_URL


def test_no_home_directory_is_a_problem_not_a_crash(monkeypatch):
    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    s = load_settings(env={"PRIME_API_KEY": "pk-env-0000000000"})
    assert s.api_key == "pk-env-0000000000" and "Cannot find your home directory" in s.problems[0]
