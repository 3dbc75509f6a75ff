"""Export docs/img/transfer.svg (a put mid-way) and docs/img/transfer-done.svg (the stop-and-sync offer).

    uv run python tests/snapshots/transfer_docshot.py

A real put from the Volumes screen to a local platform started for the purpose (the app's own SVG
export); the byte rate and the session id differ between runs, so this is a manual picture, not a
snapshot test.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import httpx
from textual.widgets import Input, ProgressBar

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests.api.ssh_helpers, via ssh_platform

from tests.waiting import quiet, until  # noqa: E402
from ssh_platform import make_key  # noqa: E402
from test_transfer import SessionOnlyClient  # noqa: E402  (these pictures show the session route)

from primetui.local.testing import LocalPlatform  # noqa: E402
from primetui.ui.app import PrimeApp  # noqa: E402
from primetui.ui.screens.volumes import VolumesScreen  # noqa: E402
from primetui.ui.transfer import TransferScreen  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "img"
SIZE = (110, 32)


async def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="transfer-docshot-"))
    key = make_key(tmp / "home" / ".ssh" / "id_ed25519")
    data = tmp / "work" / "my-dataset"
    data.mkdir(parents=True)
    for i in range(40):
        (data / f"shard-{i:03d}.jsonl").write_bytes(os.urandom(3 * 1024 * 1024))
    os.chdir(tmp / "work")
    with LocalPlatform.start(tmp, demo=False, env={"HOME": str(tmp / "home"), "PRIME_SSH_KEY_PATH": str(key)}) as lp:
        async with httpx.AsyncClient(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
            (
                await c.post("/training/volumes", json={"name": "research", "size": "100Gi", "warm": False})
            ).raise_for_status()
        settings = SimpleNamespace(ssh_key_path=str(key), base_url=lp.base_url)
        app = PrimeApp(
            SessionOnlyClient(lp.base_url, lp.token), settings, None, poll_scale=0.2, platform_label="local platform"
        )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("v")
            await until(
                pilot, lambda: isinstance(app.screen, VolumesScreen) and app.screen.selected == "research", "volumes"
            )
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, TransferScreen), "dialog")
            dialog = app.screen
            dialog.query_one("#transfer-source", Input).value = "./my-dataset"
            dialog.query_one("#transfer-dest", Input).focus()
            await pilot.press("enter")
            bar = dialog.query_one("#transfer-bar", ProgressBar)
            await until(pilot, lambda: bar.total and 0.35 < bar.progress / bar.total < 0.8, "mid-way", timeout=120)
            await quiet(pilot)
            app.save_screenshot(filename="transfer.svg", path=str(OUT))
            await until(pilot, lambda: dialog.state == "done", "done", timeout=120)
            await quiet(pilot)
            app.save_screenshot(filename="transfer-done.svg", path=str(OUT))
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "synced", timeout=120)
            await app.client.aclose()
    print(f"wrote {OUT / 'transfer.svg'} and {OUT / 'transfer-done.svg'}")


if __name__ == "__main__":
    asyncio.run(main())
