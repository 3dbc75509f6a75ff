"""Issue 42 finding 7: a configuration mistake is a mistake, never a bug and never "unreachable".

Each case runs the real command line (``primetui.commands.cli.main``) with the mistake in the
environment, in ``~/.prime/config.json`` or in a saved environment (HOME is a temporary directory).
Every command then prints ONE sentence naming the setting and where it was set, exits 78 (the one
configuration code of every command, docs/ops.md), writes no crash report, and never says "bug" or "Unexpected". An
oversized value is cut when echoed
and its control characters are shown, not sent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from primetui.commands import cli
from tests.settings_isolation import closed_port, isolate_settings

KEY = "pit_test_key_0123456789"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with a valid key and a platform URL nothing listens on; no variable from outside leaks in."""
    isolate_settings(tmp_path, monkeypatch)
    monkeypatch.setenv("PRIME_API_KEY", KEY)
    monkeypatch.setenv("PRIME_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    return tmp_path


def _config(home: Path, rel: str, data: dict) -> Path:
    path = home / ".prime" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().err


def _is_a_mistake(code: int, err: str, home: Path, expected_code: int, *named: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err  # one sentence
    for word in named:
        assert word in lines[0], (word, err)
    for wrong in ("bug", "Unexpected", "Traceback", "unreachable", "Cannot reach"):
        assert wrong not in err, err
    assert code == expected_code, err
    assert not (home / "crashes").exists() or not any((home / "crashes").iterdir())


ENV_MISTAKES = [
    ({"PRIME_BASE_URL": "http://127.0.0.1:99999"}, ["PRIME_BASE_URL", "99999", "port"]),
    ({"PRIME_BASE_URL": "http://[::1"}, ["PRIME_BASE_URL", "'http://[::1'", "not a valid URL"]),
    ({"PRIME_API_BASE_URL": "ftp://127.0.0.1"}, ["PRIME_API_BASE_URL", "http://"]),
    ({"PRIME_API_KEY": "pit_é_0123456789"}, ["PRIME_API_KEY", "not ASCII"]),
    ({"PRIME_API_KEY": "pit_0123\nX-Evil: 1"}, ["PRIME_API_KEY", "line break"]),
    ({"PRIME_TEAM_ID": "team/../x"}, ["PRIME_TEAM_ID", "not a team id"]),
    ({"PRIMETUI_HEADLESS_DEADLINE": "abc"}, ["PRIMETUI_HEADLESS_DEADLINE", "'abc'", "seconds"]),
    ({"PRIMETUI_HEADLESS_DEADLINE": "nan"}, ["PRIMETUI_HEADLESS_DEADLINE", "'nan'", "positive"]),
    ({"PRIMETUI_HEADLESS_DEADLINE": "-1"}, ["PRIMETUI_HEADLESS_DEADLINE", "'-1'", "positive"]),
    ({"PRIMETUI_REPLY_DEADLINE": "inf"}, ["PRIMETUI_REPLY_DEADLINE", "'inf'"]),
]


@pytest.mark.parametrize(
    "env,named", ENV_MISTAKES, ids=[next(iter(e)) + "=" + repr(v)[:20] for e, _ in ENV_MISTAKES for v in e.values()]
)
def test_runs_once_names_each_mistake_and_exits_78(env, named, home, monkeypatch, capsys):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, err = _run(["runs", "--once"], capsys)
    _is_a_mistake(code, err, home, 78, *named)
    assert "X-Evil" not in err and "pit_0123" not in err and "pit_é" not in err  # never a piece of the key


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["run", "r1", "--once"], 78),
        (["compare", "r1", "r2", "--once"], 78),
        (["serve"], 78),
        (["wait", "r1", "--timeout", "20"], 78),
        (["dispatch", "sft.toml", "--volume", "research", "--timeout", "20"], 78),
        (["sweep", "sft.toml", "--volume", "research", "--set", "optim.lr=1e-5,2e-5", "--timeout", "20"], 78),
    ],
)
@pytest.mark.parametrize(
    "env,named",
    [
        ({"PRIME_BASE_URL": "http://127.0.0.1:99999"}, ["PRIME_BASE_URL", "port"]),
        ({"PRIME_API_KEY": "pit_é_0123456789"}, ["PRIME_API_KEY", "not ASCII"]),
        ({"PRIMETUI_REPLY_DEADLINE": "abc"}, ["PRIMETUI_REPLY_DEADLINE", "'abc'"]),
    ],
    ids=["port", "key", "deadline"],
)
def test_every_headless_command_says_the_same(argv, expected, env, named, home, monkeypatch, capsys):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, err = _run(argv, capsys)
    _is_a_mistake(code, err, home, expected, *named)


def test_wait_json_ends_with_done_after_a_mistake(home, monkeypatch, capsys):
    monkeypatch.setenv("PRIME_BASE_URL", "http://[::1")
    code = cli.main(["wait", "r1", "--json", "--timeout", "20"])
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 78 and records[-1] == {"event": "done", "status": "MISCONFIGURED", "exit": 78}
    assert records[0]["event"] == "refused" and records[0]["reason"] == "settings"
    assert "PRIME_BASE_URL" in records[0]["message"] and "PRIME_BASE_URL" in err


def test_a_mistake_in_the_config_file_names_the_file(home, monkeypatch, capsys):
    monkeypatch.delenv("PRIME_BASE_URL")
    path = _config(home, "config.json", {"api_key": KEY, "base_url": "http://127.0.0.1:99999/api/v1"})
    code, err = _run(["runs", "--once"], capsys)
    _is_a_mistake(code, err, home, 78, f"`base_url` in {path}", "port")


def test_a_mistake_in_a_saved_environment_names_its_file(home, monkeypatch, capsys):
    monkeypatch.delenv("PRIME_API_KEY")
    monkeypatch.setenv("PRIME_CONTEXT", "lab")
    _config(home, "config.json", {"api_key": KEY})
    path = _config(home, "environments/lab.json", {"api_key": "pit_ü_0123456789", "base_url": "http://127.0.0.1:1"})
    code, err = _run(["runs", "--once"], capsys)
    _is_a_mistake(code, err, home, 78, f"`api_key` in {path}", "not ASCII")


def test_a_team_id_from_the_config_file(home, monkeypatch, capsys):
    path = _config(home, "config.json", {"api_key": KEY, "team_id": "x" * 500})
    code, err = _run(["run", "r1", "--once"], capsys)
    _is_a_mistake(code, err, home, 78, f"`team_id` in {path}", "not a team id", "x" * 79 + "…'")
    assert "x" * 81 not in err


def test_an_oversized_value_is_cut_and_its_controls_are_shown(home, monkeypatch, capsys):
    monkeypatch.setenv("PRIME_BASE_URL", "http://\x1b]52;c;ZXZpbA==\x07" + "a" * 5000 + ":99999")
    code, err = _run(["runs", "--once"], capsys)
    _is_a_mistake(code, err, home, 78, "PRIME_BASE_URL", "…", "␛")
    assert "\x1b" not in err and "\x07" not in err and len(err) < 400


def test_credentials_in_the_base_url_are_a_mistake_and_never_echoed(home, monkeypatch, capsys):
    monkeypatch.setenv("PRIME_BASE_URL", "https://alice:s3cr3t-pass@127.0.0.1:8443/?token=q-secret-123")
    code, err = _run(["runs", "--once"], capsys)
    _is_a_mistake(code, err, home, 78, "PRIME_BASE_URL", "user name or password", "***@127.0.0.1:8443")
    assert "s3cr3t-pass" not in err and "alice" not in err and "q-secret-123" not in err


def test_validate_offline_needs_no_settings_and_online_names_the_mistake(home, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("PRIME_BASE_URL", "http://127.0.0.1:99999")
    toml = tmp_path / "sft.toml"
    toml.write_text('model = { name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" }\n')
    cli.main(["validate", "--offline", str(toml)])
    assert "PRIME_BASE_URL" not in capsys.readouterr().err
    cli.main(["validate", str(toml)])
    err = capsys.readouterr().err
    assert "model cache: skipped: PRIME_BASE_URL ('http://127.0.0.1:99999') has port" in err
    assert "bug" not in err and "Unexpected" not in err
