"""The dashboard screenshots of docs/dashboard.md, made from the app (its own SVG export).

    uv run python tests/snapshots/screens_data/docshots.py        # rewrite docs/img/dashboard-*.svg

Uses the same recorded reply set and fixed clock as the snapshot tests, so the pictures in the
manual are exactly what the app draws; tests/snapshots/test_docshots.py fails when one differs.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from screens_data import replay  # noqa: E402
from textual.command import CommandPalette  # noqa: E402
from textual.widgets import TabbedContent  # noqa: E402

from primetui.config.prefs import Prefs  # noqa: E402
from primetui.ui.app import PrimeApp  # noqa: E402
from primetui.ui.themes import shipped_theme_dir  # noqa: E402
from tests.waiting import quiet, until  # noqa: E402

OUT = Path(__file__).resolve().parents[3] / "docs" / "img"
SIZE = (120, 34)
COMPLETED, FAILED = "kqeggj5dl7k85bc0mk1i4y5i", "f4iled000000000000000000"


def make_app(theme: str = "primetui-dark", **kw) -> PrimeApp:
    data = replay.load()
    return PrimeApp(
        replay.client(data),
        None,
        Prefs(theme=theme),
        clock=replay.fixed_clock(data),
        platform_label="local platform 127.0.0.1:8765",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        **kw,
    )


@dataclass(frozen=True)
class Shot:
    name: str
    app: Callable[[], PrimeApp]
    ready: Callable[[PrimeApp], Any]
    what: str
    after: Callable[[PrimeApp, Any], Awaitable[None]] | None = None


def _runs_in(app: PrimeApp) -> bool:
    return app.state.runs_loaded and len(app.state.progress) >= 2


def _run_read(app: PrimeApp) -> bool:
    return getattr(app.screen, "terminal_polls", 0) >= 1


async def _config_tab(app: PrimeApp, pilot: Any) -> None:
    app.screen.query_one(TabbedContent).active = "tab-config"


async def _help(app: PrimeApp, pilot: Any) -> None:
    await pilot.press("question_mark")
    await until(pilot, lambda: type(app.screen).__name__ != "RunsScreen", "the key help")


async def _palette(app: PrimeApp, pilot: Any) -> None:
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
    await pilot.press(*"open run")


SHOTS = [
    Shot("dashboard-runs", make_app, _runs_in, "the runs and their progress"),
    Shot("dashboard-run", lambda: make_app(run_id=COMPLETED), _run_read, "the completed run read"),
    Shot("dashboard-run-failed", lambda: make_app(run_id=FAILED), _run_read, "the failed run read"),
    Shot("dashboard-run-config", lambda: make_app(run_id=COMPLETED), _run_read, "the completed run read", _config_tab),
    Shot(
        "dashboard-volumes",
        lambda: make_app(start="volumes"),
        lambda a: a.state.volumes_loaded and "research" in a.state.sessions,
        "the volumes and their sessions",
    ),
    Shot("dashboard-models", lambda: make_app(start="models"), lambda a: a.state.models is not None, "the models"),
    Shot("dashboard-help", make_app, lambda a: a.state.runs_loaded, "the runs list", _help),
    Shot("dashboard-palette", make_app, lambda a: a.state.runs_loaded, "the runs list", _palette),
    Shot("dashboard-runs-light", lambda: make_app("primetui-light"), _runs_in, "the runs and their progress"),
    Shot("dashboard-runs-ansi", lambda: make_app("primetui-ansi"), _runs_in, "the runs and their progress"),
]


async def render(shot: Shot) -> str:
    """The SVG the app draws for ``shot``, once its data is in and the screen has repainted."""
    app = shot.app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: shot.ready(app), shot.what)
        await quiet(pilot, workers=True)
        if shot.after:
            await shot.after(app, pilot)
            await quiet(pilot, workers=True)
        return app.export_screenshot()


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for shot in SHOTS:
        path = OUT / f"{shot.name}.svg"
        path.write_text(await render(shot), encoding="utf-8")
        print("wrote", path)


if __name__ == "__main__":
    asyncio.run(main())
