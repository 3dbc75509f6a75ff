"""SVG snapshots of every dashboard screen at 80x24 and 160x48, from a recorded reply set.

Deterministic: a fixed clock, the recorded replies (tests/snapshots/screens_data), the shipped
dark theme, no periodic polling. Update with ``uv run pytest tests/snapshots/test_screens.py
--snapshot-update`` after an intended change, and look at the report before committing.
"""

from __future__ import annotations

import pytest
from screens_data import replay
from textual.widgets import TabbedContent

from primetui.config.prefs import Prefs
from tests.waiting import quiet, until
from primetui.ui.app import PrimeApp
from primetui.ui.themes import shipped_theme_dir

SIZES = [(80, 24), (160, 48)]
COMPLETED = "kqeggj5dl7k85bc0mk1i4y5i"
FAILED = "f4iled000000000000000000"


def make_app(**kw) -> PrimeApp:
    data = replay.load()
    return PrimeApp(
        replay.client(data),
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        platform_label="local platform 127.0.0.1:8765",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        **kw,
    )


async def settle(pilot, cond, what: str) -> None:
    """Wait for ``cond`` (the screen's data is in), then for the repaint it asks for; raise if it never holds,
    so ``--snapshot-update`` can never record a half-loaded screen as the truth."""
    await until(pilot, cond, what)
    await quiet(pilot, workers=True)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_runs_screen(snap_compare, size):
    app = make_app()

    async def ready(pilot):
        await settle(
            pilot,
            lambda: app.state.runs_loaded and len(app.state.progress) >= 2,
            "app.state.runs_loaded and len(app.state.progress) >= 2",
        )

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_screen_completed(snap_compare, size):
    app = make_app(run_id=COMPLETED)

    async def ready(pilot):
        await settle(
            pilot,
            lambda: getattr(app.screen, "terminal_polls", 0) >= 1,
            'getattr(app.screen, "terminal_polls", 0) >= 1',
        )

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_screen_failed(snap_compare, size):
    app = make_app(run_id=FAILED)

    async def ready(pilot):
        await settle(
            pilot,
            lambda: getattr(app.screen, "terminal_polls", 0) >= 1,
            'getattr(app.screen, "terminal_polls", 0) >= 1',
        )

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_screen_config_tab(snap_compare, size):
    app = make_app(run_id=COMPLETED)

    async def ready(pilot):
        await settle(
            pilot,
            lambda: getattr(app.screen, "terminal_polls", 0) >= 1,
            'getattr(app.screen, "terminal_polls", 0) >= 1',
        )
        app.screen.query_one(TabbedContent).active = "tab-config"
        await quiet(pilot, workers=True)

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_volumes_screen(snap_compare, size):
    app = make_app(start="volumes")

    async def ready(pilot):
        await settle(
            pilot,
            lambda: app.state.volumes_loaded and "research" in app.state.sessions,
            'app.state.volumes_loaded and "research" in app.state.sessions',
        )

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_models_screen(snap_compare, size):
    app = make_app(start="models")

    async def ready(pilot):
        await settle(pilot, lambda: app.state.models is not None, "app.state.models is not None")

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_screen(snap_compare, size):
    app = make_app()

    async def ready(pilot):
        await settle(pilot, lambda: app.state.runs_loaded, "app.state.runs_loaded")
        await pilot.press("question_mark")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the key help")
        await quiet(pilot, workers=True)

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_welcome_screen(snap_compare, size):
    from primetui.commands.launch import Connector

    data = replay.load()
    app = PrimeApp(
        None,
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        connect=Connector(None, None),
    )

    async def ready(pilot):
        # The first-run screen is pushed on mount and focuses its key field: wait for both.
        await settle(
            pilot,
            lambda: type(app.screen).__name__ == "WelcomeScreen" and app.focused is not None,
            'type(app.screen).__name__ == "WelcomeScreen" and app.focused is not None',
        )
        # The field had the focus (above); the picture is taken without it, so no cursor is drawn: the
        # cursor's blink phase, and whether the field was repainted after it took the focus, depend on timing.
        app.screen.set_focus(None)
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=ready)
