"""Export the dashboard screenshots used by docs/dashboard.md (the app's own SVG export).

    uv run python tests/snapshots/screens_data/docshots.py

Uses the same recorded reply set and fixed clock as the snapshot tests, so the pictures in the
manual are exactly what the app draws.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from screens_data import replay  # noqa: E402
from textual.widgets import TabbedContent  # noqa: E402

from primetui.prefs import Prefs  # noqa: E402
from primetui.ui.app import PrimeApp  # noqa: E402
from primetui.ui.themes import shipped_theme_dir  # noqa: E402

OUT = Path(__file__).resolve().parents[3] / "docs" / "img"
SIZE = (120, 34)


def make_app(theme: str = "primetui-dark", **kw) -> PrimeApp:
    data = replay.load()
    return PrimeApp(replay.client(data), None, Prefs(theme=theme), clock=replay.fixed_clock(data),
                    platform_label="local platform 127.0.0.1:8765", poll_scale=0, theme_dirs=[shipped_theme_dir()], **kw)


async def shot(name: str, app: PrimeApp, ready, after=None) -> None:
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(400):
            if ready(app):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.3)
        if after:
            await after(app, pilot)
            await pilot.pause(0.3)
        app.save_screenshot(f"{name}.svg", path=str(OUT))
        print("wrote", OUT / f"{name}.svg")


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    await shot("dashboard-runs", make_app(), lambda a: a.state.runs_loaded and len(a.state.progress) >= 2)
    await shot("dashboard-run", make_app(run_id="kqeggj5dl7k85bc0mk1i4y5i"), lambda a: getattr(a.screen, "terminal_polls", 0) >= 1)
    await shot("dashboard-run-failed", make_app(run_id="f4iled000000000000000000"), lambda a: getattr(a.screen, "terminal_polls", 0) >= 1)

    async def config_tab(app, pilot):
        app.screen.query_one(TabbedContent).active = "tab-config"

    await shot("dashboard-run-config", make_app(run_id="kqeggj5dl7k85bc0mk1i4y5i"), lambda a: getattr(a.screen, "terminal_polls", 0) >= 1, config_tab)
    await shot("dashboard-volumes", make_app(start="volumes"), lambda a: a.state.volumes_loaded and "research" in a.state.sessions)
    await shot("dashboard-models", make_app(start="models"), lambda a: a.state.models is not None)

    async def help_(app, pilot):
        await pilot.press("question_mark")

    await shot("dashboard-help", make_app(), lambda a: a.state.runs_loaded, help_)

    async def palette(app, pilot):
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"open run")

    await shot("dashboard-palette", make_app(), lambda a: a.state.runs_loaded, palette)
    await shot("dashboard-runs-light", make_app("primetui-light"), lambda a: a.state.runs_loaded and len(a.state.progress) >= 2)
    await shot("dashboard-runs-ansi", make_app("primetui-ansi"), lambda a: a.state.runs_loaded and len(a.state.progress) >= 2)


if __name__ == "__main__":
    asyncio.run(main())
