"""Pilot tests of the shell: help, palette, keymap, themes, models, first run, outage and recovery."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest
from tests.waiting import input_applied, quiet, until
from dash_helpers import (
    dispatch_walkthrough,
    make_app,
    notifications,
    palette_offers,
    record_notifications,
    screen_text,
)
from textual.widgets import DataTable, Input

from primetui.api.client import PrimeClient
from primetui.config.prefs import Prefs
from primetui.config.settings import load_settings
from primetui.ui.app import PrimeApp
from primetui.commands.launch import Connector
from primetui.ui.screens.help import HelpScreen
from primetui.ui.screens.models import ModelsScreen
from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.runs import RunsScreen
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.themes import load_themes, shipped_theme_dir
from primetui.ui.widgets import StatusBar
from primetui.viewmodel.model_list import models_empty_reason

pytestmark = pytest.mark.timeout(120)


async def test_help_is_generated_from_bindings_and_the_keymap_rebinds_by_id(local_platform):
    prefs = Prefs(keymap={"runs.filter": "f", "app.volumes": "V"})
    app = make_app(local_platform, prefs=prefs)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunsScreen), "runs screen")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        body = screen_text(app)
        for expected in ("runs.filter", "runs.watch", "app.help", "app.quit", "Next page"):
            assert expected in body
        assert "f " in body.split("runs.filter")[0].splitlines()[-1]  # shown with the user's key
        await pilot.press("escape")
        await input_applied(pilot)
        assert isinstance(app.screen, RunsScreen)
        await pilot.press("f")
        await input_applied(pilot)
        assert app.screen.query_one("#runs-filter", Input).has_focus
        await pilot.press("escape")
        await pilot.press("V")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "volumes by the remapped key")
        await pilot.press("f1")
        await until(
            pilot,
            lambda: isinstance(app.screen, HelpScreen) and "volumes.stop_live_rw" in screen_text(app),
            "help on volumes, listing the remapped action by its id",
        )


@pytest.fixture(scope="module")
def a_run(local_platform) -> str:
    """A 2-step run for the tests that only need one listed (a trainer start is seconds of CPU): dispatched once
    per module, as each of them used to dispatch one of its own, without waiting for it to end."""
    return asyncio.run(dispatch_walkthrough(local_platform, max_steps=2))


async def test_palette_finds_a_run_by_id_and_opens_it(local_platform, a_run):
    run_id = a_run
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.state.find_run(run_id) is not None, "runs loaded")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the command palette")
        palette_input = app.screen.query_one(Input)
        palette_input.value = f"open run {run_id[:10]}"
        await palette_offers(pilot, run_id[:10])
        await pilot.press("enter")
        await until(
            pilot,
            lambda: isinstance(app.screen, RunScreen) and app.screen.run_id == run_id,
            "run screen from the palette",
        )
        # The palette also offers volumes and actions on them.
        from primetui.ui.palette import PrimeCommands

        await pilot.press("v")
        await until(pilot, lambda: app.state.volumes_loaded, "volumes loaded")
        provider = PrimeCommands(app.screen)
        texts = [t for t, _, _ in provider.commands()]
        assert "Open volume research" in texts
        assert "Open read-write session on research" in texts
        assert any(t.startswith("Delete run") and run_id in t for t in texts) or any(
            t.startswith("Stop run") and run_id in t for t in texts
        )


async def test_models_screen_lists_the_cache_and_capacity(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("m")
        await until(
            pilot, lambda: isinstance(app.screen, ModelsScreen) and app.state.models is not None, "models loaded"
        )
        table = app.screen.query_one("#models-table", DataTable)
        names = [str(k.value) for k in table.rows]
        assert "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" in names
        assert "local-cpu" in screen_text(app)


def test_models_empty_states_are_told_apart():

    texts = {models_empty_reason(v) for v in (True, False, None)}
    assert len(texts) == 3
    assert "not enrolled" in models_empty_reason(False)
    assert "no on-demand capacity" in models_empty_reason(True)
    assert "warm model cache" in models_empty_reason(None)


def test_shipped_themes_load_and_a_broken_user_theme_is_a_warning(tmp_path):
    (tmp_path / "mine.toml").write_text('name = "mine"\nprimary = "#112233"\n')
    (tmp_path / "broken.toml").write_text("name = [unclosed\n")
    (tmp_path / "odd.toml").write_text('name = "odd"\nprimary = "#000000"\nsparkles = true\n')
    themes, warnings = load_themes(shipped_theme_dir(), tmp_path)
    names = {t.name for t in themes}
    assert {"primetui-dark", "primetui-light", "primetui-ansi", "mine"} <= names
    assert next(t for t in themes if t.name == "primetui-ansi").ansi
    assert len(warnings) == 2
    assert any("broken.toml could not be read" in w for w in warnings)
    assert any("unknown keys ['sparkles']" in w for w in warnings)


async def test_theme_preference_applies_and_t_cycles(local_platform):
    app = make_app(local_platform, prefs=Prefs(theme="primetui-light"))
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "primetui-light"
        await pilot.press("t")
        await input_applied(pilot)
        assert app.theme == "primetui-ansi"
        await pilot.press("t")
        await input_applied(pilot)
        assert app.theme == "primetui-dark"
    app = make_app(local_platform, prefs=Prefs(theme="no-such-theme"))
    async with app.run_test(size=(80, 24)) as pilot:
        await quiet(pilot)
        assert app.theme == "primetui-dark"
        assert any("'no-such-theme' is not installed" in n for n in notifications(app))


class Cuttable:
    """A TCP forwarder on 127.0.0.1 we can cut and restore, to play a network outage."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.server: asyncio.AbstractServer | None = None
        self.port = 0
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers += [writer, up_w]

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))

    async def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()
        for w in self.writers:
            w.close()
        self.writers.clear()


async def test_outage_keeps_last_data_with_a_marker_and_recovers_by_itself(local_platform, a_run):
    run_id = a_run
    port = int(local_platform.base_url.rsplit(":", 1)[1])
    proxy = Cuttable(port)
    await proxy.start()
    app = record_notifications(
        PrimeApp(
            PrimeClient(f"http://127.0.0.1:{proxy.port}", local_platform.token),
            None,
            None,
            poll_scale=0.05,
            platform_label="via proxy",
        )
    )
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: run_id in [k.value for k in table.rows], "listed")
        await proxy.cut()
        bar = app.screen.query_one(StatusBar)
        await until(pilot, lambda: "unreachable" in str(bar.content), "unreachable marker")
        assert run_id in [k.value for k in table.rows], "last good data stays"
        assert any("platform" in n.lower() for n in notifications(app))
        assert "Traceback" not in screen_text(app)
        await proxy.start()  # same port again: the network is back
        await until(pilot, lambda: "● live" in str(bar.content), "recovered by itself")
        assert any("Connection to the platform is back" in n for n in notifications(app))
    await proxy.cut()


async def test_first_run_without_a_key_offers_local_and_key_entry(local_platform, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("PRIME_API_KEY", "PRIME_BASE_URL", "PRIME_API_BASE_URL", "PRIME_TEAM_ID", "PRIME_CONTEXT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PRIME_BASE_URL", local_platform.base_url)
    settings = load_settings(home=tmp_path)
    assert not settings.api_key
    connector = Connector(settings, None)
    app = record_notifications(PrimeApp(None, settings, None, connect=connector, poll_scale=0))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "WelcomeScreen", "welcome")
        box = app.screen.query_one("#api-key", Input)
        assert box.password
        box.value = "wrong-key"
        await pilot.press("enter")
        await until(pilot, lambda: "401" in str(app.screen.query_one("#welcome-error").content), "401 explained inline")
        assert box.value == "wrong-key"  # nothing typed is lost
        assert "wrong-key" not in screen_text(app)
        box.value = local_platform.token
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunsScreen), "dashboard after a good key")
        config = tmp_path / ".prime" / "config.json"
        assert json.loads(config.read_text())["api_key"] == local_platform.token
        assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
        assert local_platform.token not in screen_text(app)


async def test_edit_without_a_key_opens_the_editor_first(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("PRIME_API_KEY", "PRIME_BASE_URL", "PRIME_API_BASE_URL", "PRIME_TEAM_ID", "PRIME_CONTEXT"):
        monkeypatch.delenv(var, raising=False)
    settings = load_settings(home=tmp_path)
    config = tmp_path / "sft.toml"
    config.write_text("max_steps = 10\nbogus = 1\n")
    app = record_notifications(
        PrimeApp(None, settings, None, connect=Connector(settings, None), poll_scale=0, edit_path=config)
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "EditorScreen", "the editor, before any platform")
        from textual.widgets import TextArea

        await until(pilot, lambda: "bogus = 1" in app.screen.query_one(TextArea).text, "the file's text")
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ == "WelcomeScreen", "the welcome screen after the editor")


async def test_first_run_local_choice_uses_the_launcher(local_platform):
    class FakeLauncher(Connector):
        """The real launcher would start a detached server; here it hands over the test server."""

        async def local(self):
            settings = load_settings(
                env={"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token},
                home=Path("/nonexistent"),
            )
            return PrimeClient(local_platform.base_url, local_platform.token), settings, "local platform test"

    app = record_notifications(PrimeApp(None, None, None, connect=FakeLauncher(None, None), poll_scale=0))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "WelcomeScreen", "welcome")
        await pilot.press("ctrl+l")
        await until(
            pilot, lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded, "runs on the local platform"
        )
        assert app.platform_label == "local platform test"


async def test_cached_runs_paint_first_then_live_data_replaces_them(local_platform, a_run, tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_CACHE_DIR", str(tmp_path / "cache"))
    from primetui.config.settings import load_settings as _load
    from primetui.commands.launch import LazyClient

    run_id = a_run
    settings = _load(
        env={"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}, home=tmp_path
    )
    app = record_notifications(PrimeApp(LazyClient(settings), settings, None, poll_scale=0, cache=True))
    async with app.run_test(size=(120, 30)) as pilot:
        # The cache is written once the list is complete (a first page alone would overwrite a cache of every run).
        await until(
            pilot, lambda: app.state.runs_complete and app.state.find_run(run_id) is not None, "the complete live list"
        )
    files = list((tmp_path / "cache").glob("runs-*.json"))
    assert len(files) == 1
    cached = files[0].read_text()
    assert run_id in cached and local_platform.token not in cached and "runConfig" not in cached
    # Next start: the cached list is on screen before any reply, marked as cached.
    app = record_notifications(PrimeApp(LazyClient(settings), settings, None, poll_scale=0, cache=True))
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        assert run_id in [k.value for k in table.rows]
        if not app.state.runs_loaded:
            assert "cached" in str(app.screen.query_one(StatusBar).content)
        await until(pilot, lambda: app.state.runs_loaded, "live reply")
        await until(pilot, lambda: "● live" in str(app.screen.query_one(StatusBar).content), "live marker")


async def test_edit_file_opens_the_editor_and_a_dispatch_lands_on_the_run_screen(local_platform, tmp_path):
    from primetui.ui.editor import EditorScreen

    path = tmp_path / "sft.toml"
    path.write_text((local_platform.data_dir / "sft.toml").read_text())
    app = make_app(local_platform, edit_path=path, poll_scale=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, EditorScreen), "editor on the file")
        run_id = await dispatch_walkthrough(local_platform, max_steps=2)
        app.screen.dismiss(run_id)  # what the editor does after a successful dispatch
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run_id == run_id, "run screen")
        assert run_id in app.state.watched
