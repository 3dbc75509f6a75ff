"""Issue 42 finding 7, in the dashboard: the status line names the setting that is wrong.

The dashboard is built as ``primetui`` builds it (``launch.build_app`` on the parsed command line),
with the mistake in the environment or in ``~/.prime/config.json``. The header then says which
setting is bad, never "unreachable"; its sentence (setting and source) is a toast and what the runs
screen says; and no toast calls it an "Unexpected problem". A key that only the client sees (pasted
on the first screen) is named the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from primetui.commands import cli, launch
from tests.settings_isolation import closed_port, isolate_settings
from tests.ui.dash_helpers import notifications, record_notifications
from tests.waiting import until


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolate_settings(tmp_path, monkeypatch)
    monkeypatch.setenv("PRIME_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    return tmp_path


async def _status_of(*, what: str) -> tuple[str, list[str], str]:
    app, code = launch.build_app(cli.build_parser().parse_args([]))
    assert app is not None and code == 0
    record_notifications(app)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await until(pilot, lambda: app.health[0] == "error", what=what)
        await until(pilot, lambda: notifications(app), what="the toast")
        health, toasts = app.health[1], notifications(app)
        screen_says = app.screen.loading_text("") if hasattr(app.screen, "loading_text") else ""
    assert not any((Path(str(app.settings.config_file)).parents[1] / "crashes").glob("*"))
    return health, toasts, screen_says


def _no_misreading(health: str, toasts: list[str]) -> None:
    assert "unreachable" not in health
    assert not any("Unexpected problem" in t or "TaskGroup" in t or "bug" in t for t in toasts), toasts


async def test_a_non_ascii_key_is_named_in_the_status_line(home, monkeypatch):
    monkeypatch.setenv("PRIME_API_KEY", "pit_ключ_0123456789")
    health, toasts, screen_says = await _status_of(what="the status line's error")
    assert health == "✗ bad setting: PRIME_API_KEY"
    assert any(t.startswith("PRIME_API_KEY holds a character that is not ASCII") for t in toasts), toasts
    assert screen_says.startswith("PRIME_API_KEY holds")
    assert not any("ключ" in t for t in toasts)
    _no_misreading(health, toasts)


async def test_a_bad_port_in_the_config_file_is_named_with_the_file(home, monkeypatch):
    monkeypatch.delenv("PRIME_BASE_URL")
    path = home / ".prime" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"api_key": "pit_0123456789abcdef", "base_url": "http://127.0.0.1:99999"}))
    health, toasts, _ = await _status_of(what="the status line's error")
    assert health == f"✗ bad setting: base_url in {path}"
    assert any(t.startswith(f"`base_url` in {path} ('http://127.0.0.1:99999') has port") for t in toasts), toasts
    _no_misreading(health, toasts)


async def test_a_key_only_the_client_sees_is_named_too(home, local_platform):
    from primetui.api.client import PrimeClient
    from primetui.ui.app import PrimeApp

    app = record_notifications(
        PrimeApp(
            PrimeClient(local_platform.base_url, "pit_pasted\r\nX-Evil: 1"),
            None,
            None,
            poll_scale=0.1,
            platform_label="local test",
        )
    )
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await until(pilot, lambda: app.health[0] == "error", what="the status line's error")
        await until(pilot, lambda: notifications(app), what="the toast")
        health, toasts = app.health[1], notifications(app)
    assert health == "✗ bad setting: API key"
    assert any("The API key holds a line break" in t for t in toasts) and not any("X-Evil" in t for t in toasts)
    _no_misreading(health, toasts)
