"""load_settings() agrees with the official `prime` CLI's own Config() on every precedence case."""

from __future__ import annotations

import json

import pytest

from primetui.config.settings import load_settings

cli_config = pytest.importorskip("prime_cli.core.config")

VARS = (
    "PRIME_API_KEY",
    "PRIME_TEAM_ID",
    "PRIME_BASE_URL",
    "PRIME_API_BASE_URL",
    "PRIME_FRONTEND_URL",
    "PRIME_SSH_KEY_PATH",
    "PRIME_CONTEXT",
    "PRIME_USER_ID",
)

FILE = {
    "api_key": "pk-file-000000000000",
    "team_id": "team-file",
    "base_url": "http://127.0.0.1:8001/api/v1/",
    "frontend_url": "http://127.0.0.1:8002/",
    "ssh_key_path": "/keys/id_file",
    "user_id": "u-file",
}
LOCAL_ENV = {
    "api_key": "pk-ctx-000000000000",
    "team_id": None,
    "base_url": "http://127.0.0.1:8003/api/v1",
    "frontend_url": "http://127.0.0.1:8004",
}
NO_KEY_ENV = {"team_id": "team-ctx", "base_url": "http://127.0.0.1:8005"}

SCENARIOS = {
    "file only": ({}, {}),
    "env beats file": (
        {
            "PRIME_API_KEY": "pk-env-000000000000",
            "PRIME_TEAM_ID": "team-env",
            "PRIME_BASE_URL": "http://127.0.0.1:9001/",
            "PRIME_FRONTEND_URL": "http://127.0.0.1:9002/",
            "PRIME_SSH_KEY_PATH": "~/.ssh/id_env",
            "PRIME_USER_ID": "u-env",
        },
        {},
    ),
    "api base url wins": (
        {"PRIME_BASE_URL": "http://127.0.0.1:9001", "PRIME_API_BASE_URL": "http://127.0.0.1:9003/api/v1"},
        {},
    ),
    "blank team falls back": ({"PRIME_TEAM_ID": "   "}, {}),
    "context": ({"PRIME_CONTEXT": "local"}, {"local": LOCAL_ENV}),
    "context without key": ({"PRIME_CONTEXT": "nokey"}, {"nokey": NO_KEY_ENV}),
    "context then env url": (
        {"PRIME_CONTEXT": "local", "PRIME_BASE_URL": "http://127.0.0.1:9009"},
        {"local": LOCAL_ENV},
    ),
    "production context": ({"PRIME_CONTEXT": "production"}, {}),
    "unknown context": ({"PRIME_CONTEXT": "missing"}, {}),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_answers_as_the_prime_cli(name, tmp_path, monkeypatch):
    env_vars, environments = SCENARIOS[name]
    prime = tmp_path / ".prime"
    (prime / "environments").mkdir(parents=True)
    (prime / "config.json").write_text(json.dumps(FILE))
    for env_name, data in environments.items():
        (prime / "environments" / f"{env_name}.json").write_text(json.dumps(data))
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in VARS:
        monkeypatch.delenv(var, raising=False)
    for var, value in env_vars.items():
        monkeypatch.setenv(var, value)

    cli = cli_config.Config()
    ours = load_settings(env={k: v for k, v in env_vars.items()}, home=tmp_path)

    assert ours.api_key == cli.api_key
    assert ours.team_id == (cli.team_id.strip() if cli.team_id else None)
    assert ours.base_url == cli.base_url
    assert ours.frontend_url == cli.frontend_url
    assert str(ours.ssh_key_path) == str(cli.ssh_key_path)
    assert ours.user_id == cli.user_id
