"""Export the screenshots of docs/compare-diagnose.md (the app's own SVG export).

    uv run python tests/snapshots/diagnose_docshots.py

The recorded reply set and fixed clock of the snapshot tests, with the trouble of
``diagnose_data`` added to the completed run (a CUDA error at step 13, a loss spike at step 14).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "screens_data"))
sys.path.insert(0, str(HERE.parents[1]))  # the repository: tests.waiting

from diagnose_data import feed  # noqa: E402
from test_compare_screen import RUNNING  # noqa: E402
from test_screens import COMPLETED  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from screens_data.docshots import make_app  # noqa: E402
from tests.waiting import quiet, until  # noqa: E402

OUT = HERE.parents[1] / "docs" / "img"
SIZE = (120, 34)


async def render(app, steps) -> str:
    """The SVG the app draws once ``steps`` set the scene and the screen has settled."""
    async with app.run_test(size=SIZE) as pilot:
        await steps(app, pilot)
        await quiet(pilot, workers=True)
        return app.export_screenshot()


async def shot(name: str, app, steps) -> None:
    (OUT / f"{name}.svg").write_text(await render(app, steps), encoding="utf-8")
    print("wrote", OUT / f"{name}.svg")


async def wait(pilot, cond) -> None:
    await until(pilot, cond, "the scene's data")
    await quiet(pilot, workers=True)


async def flagged(app, pilot) -> None:
    await wait(
        pilot,
        lambda: (
            getattr(app.screen, "terminal_polls", 0) >= 1
            and app.screen.links is not None
            and app.screen.links.feeder.table.last_step >= 10
            and app.screen.links.logs.stores["trainer"].end > 0
        ),
    )
    feed(app.screen)


async def cause_charts(app, pilot) -> None:
    await flagged(app, pilot)
    screen = app.screen
    screen.jump_to_cause(next(a for a in screen.links.anomalies if a.kind == "loss_spike"))


async def cause_logs(app, pilot) -> None:
    await flagged(app, pilot)
    screen = app.screen
    screen.jump_to_cause(next(a for a in screen.links.anomalies if a.kind == "cuda"))


async def compare(app, pilot) -> None:
    await wait(pilot, lambda: app.state.runs_loaded and len(app.state.progress) >= 2)
    table = app.screen.query_one("#runs-table", DataTable)
    for run_id in (RUNNING, COMPLETED):
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("space")
    await pilot.press("C")
    await wait(pilot, lambda: getattr(app.screen, "data", None) is not None)
    await pilot.press("c")


async def compare_sweep(app, pilot) -> None:
    from sweep_data import IDS
    from test_sweep_compare_snapshot import SweepCompare

    await app.push_screen(SweepCompare(IDS))
    await wait(pilot, lambda: bool(getattr(app.screen, "charts", None)))
    await pilot.press("y")


async def compare_twelve(app, pilot) -> None:
    from sweep12_data import IDS
    from test_compare_legend_snapshot import TwelveCompare

    await app.push_screen(TwelveCompare(IDS))
    await wait(pilot, lambda: bool(getattr(app.screen, "charts", None)))
    await pilot.press("L", *["right"] * 10, "space")
    await wait(pilot, lambda: IDS[10] in app.screen.hidden_runs)


SCENES = {
    "diagnose-run-flags": (lambda: make_app(run_id=COMPLETED), flagged),
    "diagnose-cause-charts": (lambda: make_app(run_id=COMPLETED), cause_charts),
    "diagnose-cause-logs": (lambda: make_app(run_id=COMPLETED), cause_logs),
    "compare": (make_app, compare),
    "compare-sweep": (make_app, compare_sweep),
    "compare-twelve": (make_app, compare_twelve),
}


def utc() -> None:
    """The pictures show times in UTC, whatever the machine's zone."""
    os.environ["TZ"] = "UTC"
    time.tzset()


async def main() -> None:
    utc()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (app, steps) in SCENES.items():
        await shot(name, app(), steps)


if __name__ == "__main__":
    asyncio.run(main())
