"""Export docs/img/s3-transfers.svg (the Transfers panel) and docs/img/s3-import.svg (the import dialog).

    uv run python tests/snapshots/s3_docshot.py

The app's own SVG export of the volumes screen on the recorded reply set (tests/snapshots/screens_data,
the same data as the volumes snapshot): a fixed clock, so the pictures are the same on every run.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from screens_data import replay  # noqa: E402

from primetui.config.prefs import Prefs  # noqa: E402
from primetui.ui.app import PrimeApp  # noqa: E402
from primetui.ui.screens.volumes import VolumesScreen  # noqa: E402
from primetui.ui.themes import shipped_theme_dir  # noqa: E402
from primetui.ui.widgets import FormScreen  # noqa: E402
from tests.waiting import quiet, until  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "img"


async def main() -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        os.environ.pop(name, None)
    os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"] = "AKIA-doc-example", "not-shown"
    data = replay.load()
    app = PrimeApp(
        replay.client(data),
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        platform_label="local platform 127.0.0.1:8765",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        start="volumes",
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, VolumesScreen)
                and app.state.volumes_loaded
                and app.screen.query_one("#transfers-table").row_count >= 3
            ),
            "the transfers listed",
        )
        await quiet(pilot, workers=True)
        app.save_screenshot(filename="s3-transfers.svg", path=str(OUT))
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the import dialog")
        await quiet(pilot)
        app.save_screenshot(filename="s3-import.svg", path=str(OUT))
    print(f"wrote {OUT / 's3-transfers.svg'} and {OUT / 's3-import.svg'}")


if __name__ == "__main__":
    asyncio.run(main())
