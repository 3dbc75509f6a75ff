"""The put and get dialogs go straight to the volume's storage when the platform offers it (V9 via r2):
no session is opened, the dialog says so, and the files land where the session route puts them."""

from __future__ import annotations

import os

import pytest
from ssh_platform import create_volume, ssh_platform
from test_transfer import digests, fill, make_app, make_dataset, open_volumes, text
from textual.widgets import Input

from primetui.api.client import PrimeClient
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.transfer import TransferScreen
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with ssh_platform(tmp_path_factory.mktemp("direct-platform")) as (lp, key):
        yield lp, key


async def test_put_and_get_go_direct_and_open_no_session(platform, tmp_path) -> None:
    lp, key = platform
    vol = create_volume(lp, "direct")
    ds = make_dataset(tmp_path / "local")
    (ds / "empty").mkdir()
    app = make_app(lp, key, PrimeClient)
    async with app.run_test(size=(110, 36)) as pilot:
        await open_volumes(pilot, app, "direct")
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "put dialog")
        dialog = app.screen
        await fill(pilot, dialog, str(ds), "datasets/")
        await until(pilot, lambda: dialog.state == "done" or text(dialog, "transfer-error"), "put finished", timeout=60)
        assert text(dialog, "transfer-error") == ""
        assert dialog.outcome.route == "direct" and dialog.session is None
        assert "no session" in text(dialog, "transfer-phase") and "Put 3 file(s)" in text(dialog, "transfer-result")
        assert digests(vol / "datasets" / "ds") == digests(ds) and (vol / "datasets" / "ds" / "empty").is_dir()
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "closed")
        assert await app.client.list_sessions("direct") == []
        assert await app.client.create_session("direct", read_only=False)  # the lease was released
        sessions = await app.client.list_sessions("direct")
        await app.client.stop_session("direct", sessions[0].id)

        back = tmp_path / "back"
        back.mkdir()
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        dialog = app.screen
        await fill(pilot, dialog, "datasets/ds", str(back))
        await until(pilot, lambda: dialog.state == "done" or text(dialog, "transfer-error"), "get finished", timeout=60)
        assert text(dialog, "transfer-error") == "" and dialog.outcome.route == "direct"
        assert digests(back / "ds") == digests(ds) and (back / "ds" / "empty").is_dir()
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "closed")

        (vol / "big.bin").write_bytes(os.urandom(4 * 1024 * 1024))
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        dialog = app.screen
        await fill(pilot, dialog, "datasets/nope", str(back))
        await until(pilot, lambda: text(dialog, "transfer-error"), "missing path reported", timeout=60)
        assert "no such file or directory on the volume" in text(dialog, "transfer-error")
        assert dialog.query_one("#transfer-source", Input).value == "datasets/nope"


def test_a_direct_get_never_writes_through_a_symlink(local_platform, tmp_path) -> None:
    import httpx

    from primetui.api.volume_storage import VolumeStorage
    from primetui.shell import direct

    reply = httpx.post(
        f"{local_platform.api_url}/training/volumes/research/transfer",
        headers=local_platform.headers,
        json={"mode": "get", "path": ""},
        timeout=30,
    )
    from primetui.api.models import VolumeTransferRoute

    route = VolumeTransferRoute.model_validate(reply.json())
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "dest"
    (dest / "reverse-text").mkdir(parents=True)
    (dest / "reverse-text" / "data").symlink_to(outside)
    with VolumeStorage(route) as storage:
        result = direct.get(storage, "datasets/reverse-text", str(dest), "research")
    assert list(outside.iterdir()) == []  # as over SFTP: the linked folder is skipped and listed, the rest lands
    linked = [s for s in result.skipped if "reverse-text/data is a local symlink or file" in s.reason]
    assert linked and all(s.path.startswith("datasets/reverse-text/data/") for s in linked)
    assert result.files > 0 and (dest / "reverse-text" / "README.md").is_file()


async def test_a_direct_get_asks_before_replacing_and_lists_what_it_kept(platform, tmp_path) -> None:
    lp, key = platform
    vol = create_volume(lp, "directask")
    (vol / "datasets" / "ds").mkdir(parents=True)
    (vol / "datasets" / "ds" / "a.txt").write_text("from the volume")
    back = tmp_path / "back"
    (back / "ds").mkdir(parents=True)
    (back / "ds" / "a.txt").write_text("mine")
    app = make_app(lp, key, PrimeClient)
    async with app.run_test(size=(110, 36)) as pilot:
        await open_volumes(pilot, app, "directask")
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        dialog = app.screen
        await fill(pilot, dialog, "datasets/ds", str(back))
        await until(
            pilot, lambda: "already exists. Replace it?" in text(dialog, "transfer-result"), "asked", timeout=60
        )
        await pilot.press("n")
        await until(pilot, lambda: dialog.state == "done" or text(dialog, "transfer-error"), "get finished", timeout=60)
        assert dialog.outcome.route == "direct" and (back / "ds" / "a.txt").read_text() == "mine"
        assert "Skipped 1: datasets/ds/a.txt (already exists; kept, as you chose)" in text(dialog, "transfer-result")

        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "closed")
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog again")
        dialog = app.screen
        await fill(pilot, dialog, "datasets/ds", str(back))
        await until(
            pilot, lambda: "already exists. Replace it?" in text(dialog, "transfer-result"), "asked again", timeout=60
        )
        await pilot.press("escape")  # cancel while the copy waits on the question: it ends, nothing replaced
        await until(pilot, lambda: "Cancelled" in text(dialog, "transfer-error"), "cancelled", timeout=60)
        assert dialog.state == "form" and (back / "ds" / "a.txt").read_text() == "mine"
        assert sorted(p.name for p in (back / "ds").iterdir()) == ["a.txt"]  # no partial file left
