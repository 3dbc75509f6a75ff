"""Put and get from the Volumes screen through a session, against a real local platform (HTTP + SSH/SFTP
through the gateway) whose direct storage route is hidden (test_transfer_direct.py covers that route).

One app, one flow (the app start dominates the cost): a refused runs/ put that never connects, a
folder put, stop-and-sync, files on the volume with equal checksums, a get back with equal
checksums, and a cancelled get that leaves no half-written file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from tests.waiting import quiet, until
from textual.widgets import DataTable, Input, Static

asyncssh = pytest.importorskip("asyncssh")
httpx = pytest.importorskip("httpx")

from primetui.config.settings import Settings
from primetui.api.client import PrimeClient  # noqa: E402
from primetui.local.testing import LocalPlatform  # noqa: E402
from primetui.shell.paths import RUNS_READ_ONLY  # noqa: E402
from primetui.ui.app import PrimeApp  # noqa: E402
from primetui.ui.screens.volumes import VolumesScreen  # noqa: E402
from primetui.ui.terminal.dialogs import StopSessionScreen  # noqa: E402
from primetui.ui.transfer import TransferScreen, check_get, check_put  # noqa: E402
from ssh_platform import create_volume, ssh_platform  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with ssh_platform(tmp_path_factory.mktemp("transfer-platform")) as (lp, key):
        yield lp, key


class SessionOnlyClient(PrimeClient):
    """A platform without the direct storage route (V9 answers 404), so transfers go through a session."""

    async def route_transfer(self, *args, **kwargs):
        from primetui.api.errors import NotFoundError

        raise NotFoundError("no direct route here", status_code=404, method="POST", path="/transfer")


def make_app(lp: LocalPlatform, key: Path, client_class: type = SessionOnlyClient) -> PrimeApp:
    settings = Settings(api_key=lp.token, base_url=lp.base_url, ssh_key_path=key)
    return PrimeApp(client_class(lp.base_url, lp.token), settings, None, poll_scale=0.1, platform_label="local test")


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def text(screen, wid: str) -> str:
    return str(screen.query_one(f"#{wid}", Static).render())


async def open_volumes(pilot, app, name: str) -> VolumesScreen:
    await pilot.press("v")
    await until(
        pilot,
        lambda: (
            isinstance(app.screen, VolumesScreen)
            and name in [str(k.value) for k in app.screen.query_one("#volumes-table", DataTable).rows]
        ),
        "volume listed",
    )
    app.screen.selected = name
    return app.screen


async def fill(pilot, screen: TransferScreen, source: str, dest: str) -> None:
    screen.query_one("#transfer-source", Input).value = source
    screen.query_one("#transfer-dest", Input).value = dest
    screen.query_one("#transfer-dest", Input).focus()
    await pilot.press("enter")


def cancel_at_first_block(dialog: TransferScreen) -> None:
    """Cancel once the first block is copied (as escape does while copying): mid-way, deterministically."""
    show = dialog._progress

    def cancel_midway(done: int, total: int, name: str, force: bool = False) -> None:
        show(done, total, name, force)
        if 0 < done < total and not dialog.outcome.cancelled:
            dialog.outcome.cancelled = True
            dialog.action_cancel()

    dialog._progress = cancel_midway


def make_dataset(root: Path) -> Path:
    ds = root / "ds"
    (ds / "shards").mkdir(parents=True)
    (ds / "train.jsonl").write_text("".join(f'{{"prompt": "q{i}", "completion": "a{i}"}}\n' for i in range(2000)))
    (ds / "shards" / "part-0.bin").write_bytes(os.urandom(300_000))
    (ds / "README").write_text("tiny dataset\n")
    return ds


async def test_refused_put_then_put_folder_stop_and_sync_get_back_and_cancel(platform, tmp_path) -> None:
    lp, key = platform
    vol = create_volume(lp, "xfer")
    ds = make_dataset(tmp_path / "local")
    app = make_app(lp, key)
    async with app.run_test(size=(110, 36)) as pilot:
        await open_volumes(pilot, app, "xfer")
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "put dialog")
        dialog = app.screen
        assert dialog.query_one("#transfer-dest", Input).value == "datasets/"
        # The platform's rules are applied inline, before anything connects.
        await fill(pilot, dialog, str(ds), "runs/r1/")
        await quiet(pilot)
        assert text(dialog, "transfer-error") == RUNS_READ_ONLY
        assert dialog.state == "form" and dialog.session is None
        assert dialog.query_one("#transfer-source", Input).value == str(ds)  # nothing typed is lost
        await fill(pilot, dialog, str(ds), "data sets/")
        await quiet(pilot)
        assert "letters, digits" in text(dialog, "transfer-error")
        await fill(pilot, dialog, str(tmp_path / "missing"), "datasets/")
        await quiet(pilot)
        assert "No such local file or folder" in text(dialog, "transfer-error")
        assert await app.client.list_sessions("xfer") == []  # nothing connected
        # Cancel a put midway (what escape does while copying): the session stays, no half file lands.
        big = tmp_path / "big.bin"
        big.write_bytes(os.urandom(8 * 1024 * 1024))
        cancel_at_first_block(dialog)
        await fill(pilot, dialog, str(big), "datasets/")
        await until(pilot, lambda: "Cancelled" in text(dialog, "transfer-error"), "put cancel shown", timeout=60)
        assert "stays open (read-write)" in text(dialog, "transfer-error") and dialog.state == "form"
        first_session = dialog.session.id
        del dialog._progress  # the plain progress display again
        dialog.outcome.cancelled = False
        await fill(pilot, dialog, str(ds), "datasets/")
        await until(pilot, lambda: dialog.state == "done" or text(dialog, "transfer-error"), "put finished", timeout=60)
        assert text(dialog, "transfer-error") == ""
        assert "Put 3 file(s)" in text(dialog, "transfer-result") and "xfer:/datasets/ds" in text(
            dialog, "transfer-result"
        )
        assert "files 3/3" in text(dialog, "transfer-stats")
        assert "s: stop the session and sync now" in text(dialog, "transfer-hint")
        assert "ready" in dialog.phases
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, StopSessionScreen), "final sync shown")
        stop = app.screen
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "back on volumes", timeout=60)
        assert stop.phases[-1] == "stopped"
        assert dialog.outcome.stopped == "stopped" and dialog.outcome.files == 3
        assert dialog.session.id == first_session  # the live read-write session was reused
        assert digests(vol / "datasets" / "ds") == digests(ds)
        assert sorted(p.name for p in (vol / "datasets").iterdir()) == ["ds"]  # nothing of the cancelled put

        # Get it back into a local folder (a read-only session the dialog opens and frees).
        back = tmp_path / "back"
        back.mkdir()
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        dialog = app.screen
        await fill(pilot, dialog, "datasets/ds", str(back))
        await until(pilot, lambda: dialog.state == "done" or text(dialog, "transfer-error"), "get finished", timeout=60)
        assert text(dialog, "transfer-error") == ""
        assert "Got 3 file(s)" in text(dialog, "transfer-result") and str(back / "ds") in text(
            dialog, "transfer-result"
        )
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "closed")
        assert digests(back / "ds") == digests(ds)
        sessions = await app.client.list_sessions("xfer")
        ro = [s for s in sessions if s.read_only]
        assert ro and all(s.phase in ("stopped", "syncing", "finalizing") or s.is_dead for s in ro)

        # A path that is not on the volume: one sentence, the form back with what was typed.
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        dialog = app.screen
        await fill(pilot, dialog, "datasets/nope", str(back))
        await until(pilot, lambda: text(dialog, "transfer-error"), "missing path reported", timeout=60)
        assert "no such file or directory on the volume" in text(dialog, "transfer-error")
        assert dialog.state == "form" and dialog.query_one("#transfer-source", Input).value == "datasets/nope"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "closed")

        # Cancel a get midway (as escape does while copying): no half-written file is left.
        (vol / "big.bin").write_bytes(os.urandom(8 * 1024 * 1024))
        cancel_dir = tmp_path / "cancel"
        cancel_dir.mkdir()
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        dialog = app.screen
        cancel_at_first_block(dialog)
        await fill(pilot, dialog, "big.bin", str(cancel_dir))
        await until(pilot, lambda: "Cancelled" in text(dialog, "transfer-error"), "cancel shown", timeout=60)
        assert dialog.state == "form"
        assert list(cancel_dir.iterdir()) == []  # neither big.bin nor its partial
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "closed")


def test_path_checks_match_the_platform_rules(tmp_path) -> None:
    (tmp_path / "f.txt").write_text("x")
    assert check_put(str(tmp_path / "f.txt"), "datasets/") is None
    assert check_put(str(tmp_path / "f.txt"), "runs") == RUNS_READ_ONLY
    assert "climbs above" in check_put(str(tmp_path / "f.txt"), "../x")
    assert "No such local" in check_put(str(tmp_path / "nope"), "datasets/")
    assert check_get("datasets/f.txt", str(tmp_path)) is None
    assert "is a file" in check_get("datasets/f.txt", str(tmp_path / "f.txt"))
    assert "climbs above" in check_get("a/../../b", str(tmp_path))
