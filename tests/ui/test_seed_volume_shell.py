"""The seed's steps 1-4 on a fresh volume (no demo data), typed into the dashboard's shell pane.

`hf download ...` as written in the walkthrough, `exit`, `prime volumes stop` (the API call it
makes), the final sync, the dispatch of the walkthrough's sft.toml, and COMPLETED on the
dataset the shell downloaded.
"""

from __future__ import annotations

import tomllib

import pytest
from tests.waiting import eventually, until
from test_terminal_session import Dashboard, pane_text, ready_session

from primetui.config.settings import Settings
from primetui.local.sessions import mountns
from primetui.sft.templates import WALKTHROUGH
from primetui.ui.terminal import ShellScreen
from ssh_platform import create_volume, ssh_platform

pytestmark = [
    pytest.mark.timeout(420),
    pytest.mark.skipif(not mountns.probe().namespaces, reason="/volume needs root and mount namespaces"),
]

SEED_LINES = [
    "hf download willcb/R1-reverse-wikipedia-paragraphs-v1-1000 \\",
    "  --repo-type dataset \\",
    "  --local-dir /volume/datasets/reverse-text",
]


async def test_fresh_volume_download_exit_stop_dispatch_completed(tmp_path) -> None:
    with ssh_platform(tmp_path) as (lp, key):
        root = create_volume(lp, "research", "100Gi")  # step 1
        assert not (root / "datasets").exists()
        client = lp.client()
        try:
            session = await ready_session(
                client, "research", read_only=False
            )  # prime volumes ssh research --read-write
            settings = Settings(api_key=lp.token, base_url=lp.base_url, ssh_key_path=key)
            app = Dashboard(client, session, settings)
            async with app.run_test(size=(120, 36)) as pilot:
                await until(
                    pilot,
                    lambda: (
                        isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running
                    ),
                    "isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running",
                )
                pane = app.screen.panes[0]
                await until(
                    pilot, lambda: "mounted at /volume" in pane_text(app), '"mounted at /volume" in pane_text(app)'
                )
                for line in SEED_LINES:
                    await pilot.press(*line, "enter")
                await until(
                    pilot,
                    lambda: "path: /volume/datasets/reverse-text" in pane_text(app),
                    '"path: /volume/datasets/reverse-text" in pane_text(app)',
                )
                await pilot.press(*"exit", "enter")
                await until(
                    pilot,
                    lambda: pane.has_class("-ended") or not pane.view.running,
                    'pane.has_class("-ended") or not pane.view.running',
                )
            # Exiting SSH alone leaves the read-write session open: stop it and wait for its final sync.
            assert (await client.get_session("research", session.id)).phase == "ready"
            await client.stop_session("research", session.id)

            async def stopped():
                got = await client.get_session("research", session.id)
                return got if got.phase in ("stopped", "failed") else None

            final = await eventually(stopped, "the session's final sync and stop", timeout=120)
            assert final.phase == "stopped", final.error_message
            assert (root / "datasets/reverse-text/data/train-00000-of-00001.parquet").is_file()
            reply = await client.create_run(tomllib.loads(WALKTHROUGH), mode="sft", volume="research")  # step 4

            async def ended():
                got = await client.get_run(reply.run_id)
                return got if got.status in ("COMPLETED", "FAILED", "STOPPED") else None

            run = await eventually(ended, f"run {reply.run_id} to end", timeout=300)
            assert run.status == "COMPLETED", run
            logs = await client.get_logs(reply.run_id)
            assert "/volume/datasets/reverse-text" in str(logs)
        finally:
            await client.aclose()
