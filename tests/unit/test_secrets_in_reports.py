"""Issue 42 findings 5 and 6: nothing secret in a crash report, on stderr or in a log.

Secrets are planted where a user keeps them: ``--on-event`` on the command line (both spellings and
an argparse prefix), the API key in ``~/.prime/config.json``, a secret-named variable and a webhook
URL with a user:password, a token path segment and ``?token=`` in the environment, and a key holding
a line break. Then the real command line (``primetui.commands.cli.main``, with ``sys.argv`` as the
shell gives it) is made to crash, and to fail on a mistake, and none of the secrets is found.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from primetui.commands import cli, headless
from primetui.config import crash
from tests.settings_isolation import closed_port, isolate_settings

CONFIG_KEY = "pit_config_file_key_5f3a9c"
ENV_TOKEN = "hf_environment_token_77d1e2"
URL_PASSWORD = "urlpass-9e8d7c"
PATH_TOKEN = "XyZ0123456789abcdefGHIJK"
QUERY_TOKEN = "querytoken-4b5c6d"
HEADER_KEY = "hook-header-key-a1b2c3"
HOOK = f'curl -H "X-Api-Key: {HEADER_KEY}" https://hooks.example.com/services/T0/B0/{PATH_TOKEN}?token={QUERY_TOKEN}'
HOOK_URL = f"https://bot:{URL_PASSWORD}@hooks.example.com/services/T1/B1/{PATH_TOKEN}?token={QUERY_TOKEN}"
NEWLINE_KEY = "pit_newline_key_31c7\nX-Evil: 1"
SECRETS = [CONFIG_KEY, ENV_TOKEN, URL_PASSWORD, PATH_TOKEN, QUERY_TOKEN, HEADER_KEY, "pit_newline_key_31c7"]


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home whose config file holds the key, an environment holding a token and a webhook URL."""
    isolate_settings(tmp_path, monkeypatch)
    (tmp_path / ".prime").mkdir()
    (tmp_path / ".prime" / "config.json").write_text(
        json.dumps({"api_key": CONFIG_KEY, "base_url": f"http://127.0.0.1:{closed_port()}"})
    )
    monkeypatch.setenv("HF_TOKEN", ENV_TOKEN)
    monkeypatch.setenv("TEAM_WEBHOOK", HOOK_URL)  # no secret-like name: its URL parts are what give it away
    return tmp_path


def _everything_written(home: Path, err: str) -> str:
    """stderr, every crash report and every log file the run left."""
    files = [p for d in ("crashes", "logs") if (home / d).exists() for p in (home / d).rglob("*") if p.is_file()]
    return "\n".join([err, *(p.read_text(errors="replace") for p in files)])


def _assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, (secret, text)
    assert "pit_newline_key_31c7\\nX-Evil" not in text


@pytest.mark.parametrize(
    "spelling", [["--on-event", HOOK], [f"--on-event={HOOK}"], ["--on", HOOK]], ids=["separate", "equals", "prefix"]
)
def test_a_crash_report_holds_none_of_the_planted_secrets(spelling, planted, monkeypatch, capsys):
    argv = [*spelling, "runs", "--once"]
    monkeypatch.setattr(sys, "argv", ["primetui", *argv])

    async def bug(*args, **kwargs):  # a bug whose message quotes what a careless line of code might
        raise RuntimeError(
            f"boom: key {CONFIG_KEY}, hook {HOOK}, webhook {HOOK_URL}, env {ENV_TOKEN}, "
            f"header Illegal header value {('Bearer ' + CONFIG_KEY + '-x').encode()!r}"
        )

    monkeypatch.setattr(headless, "collect_runs", bug)
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == crash.EXIT_CRASH
    reports = list((planted / "crashes").glob("crash-*.txt"))
    assert len(reports) == 1 and str(reports[0]) in err
    report = reports[0].read_text()
    assert "RuntimeError: boom" in report and "Traceback" in report  # still a useful report
    command = report.split("command: ", 1)[1].splitlines()[0]
    assert shlex.split(command)[:2] in (
        ["primetui", "--on-event"],
        ["primetui", "--on-event=***"],
        ["primetui", "--on"],
    )
    assert "***" in command and "runs --once" in command
    assert "https://***@hooks.example.com/services/T1/B1/***?***" in report  # what is left of the URL says what it was
    _assert_no_secret(_everything_written(planted, err))


def test_a_key_with_a_line_break_is_named_never_printed(planted, monkeypatch, capsys):
    monkeypatch.setenv("PRIME_API_KEY", NEWLINE_KEY)
    monkeypatch.setattr(sys, "argv", ["primetui", "--on-event", HOOK, "runs", "--once"])
    code = cli.main(sys.argv[1:])
    err = capsys.readouterr().err
    assert code == 78 and "PRIME_API_KEY holds a line break" in err
    _assert_no_secret(_everything_written(planted, err))
    assert "X-Evil" not in err  # the key's second line, which a header would have carried


def test_a_platform_error_on_stderr_holds_no_secret(planted, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["primetui", "--on-event", HOOK, "run", "r1", "--once"])
    code = cli.main(sys.argv[1:])
    err = capsys.readouterr().err
    assert code == 1 and "Cannot reach http://127.0.0.1:" in err and "connection refused" in err
    _assert_no_secret(_everything_written(planted, err))


def test_redaction_rules():
    assert crash.redact_argv(
        ["primetui", "wait", "r1", "--on-event", "x y", "--on-event=z", "--on-e", "w", "--json"]
    ) == ["primetui", "wait", "r1", "--on-event", "***", "--on-event=***", "--on-e", "***", "--json"]
    assert (
        crash.redact_url("https://u:p@h.example:8443/a/run/0123456789abcdefXYZ?x=1#f")
        == "https://***@h.example:8443/a/run/***?***#***"
    )
    assert (
        crash.redact_url("http://127.0.0.1:8000/api/v1/rft/runs/r1/logs")
        == "http://127.0.0.1:8000/api/v1/rft/runs/r1/logs"
    )
    text = crash.redact('X-Api-Key: abc123 token=t0k3n "password": "hunter2" Authorization: Bearer e.y.J', [])
    assert text == 'X-Api-Key: *** token=*** "password": "***" Authorization: ***'


async def test_a_failing_hook_leaves_no_secret_in_its_log_or_its_warning(planted):
    from primetui.monitor_core.notify import Notifier, RunEvent

    said = (
        f"POST https://bot:{URL_PASSWORD}@hooks.example.com/x/{PATH_TOKEN}?token={QUERY_TOKEN} failed: X-Api-Key: "
        f"{HEADER_KEY}"
    )
    hook = (
        f"{shlex.quote(sys.executable)} -c {shlex.quote(f'import sys; print({said!r}, file=sys.stderr); sys.exit(1)')}"
    )
    reported: list[str] = []
    notifier = Notifier(hook, timeout=60, report=reported.append)
    notifier.emit(RunEvent.status_change("r1", "demo", "RUNNING", "FAILED"))
    await notifier.drain()
    log = (planted / "logs" / "notify.log").read_text()
    assert "exited with code 1" in log and "https://***@hooks.example.com/x/***?***" in log and reported
    _assert_no_secret(log + "\n".join(reported))
