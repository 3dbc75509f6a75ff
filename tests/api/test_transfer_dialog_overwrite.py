"""The get dialog against a hostile server: it asks before replacing a local file ("a" replaces
all at once) and its result line says what was skipped and why, shown literally."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hostile_sftp import CONTENT, Tree, attrs, hostile_connection
from textual.app import App
from textual.widgets import Input, Static

from primetui.ui.transfer import GET, TransferScreen

pytestmark = pytest.mark.timeout(60)


class Platform:
    async def create_session(self, volume: str, **kw):
        return SimpleNamespace(
            id="vs_1",
            phase="ready",
            status="RUNNING",
            read_only=False,
            progress=None,
            ssh_connection="x",
            is_dead=False,
            error_message=None,
        )


def text(screen, wid: str) -> str:
    return str(screen.query_one(f"#{wid}", Static).render())


async def _until(pilot, cond, what: str) -> None:
    for _ in range(500):
        if cond():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"gave up waiting for {what}")


async def test_get_asks_before_replacing_and_lists_what_it_skipped(tmp_path, monkeypatch):
    import primetui.shell as shell

    tree = Tree(
        listings={
            b"/volume/d": [
                (b"a", attrs()),
                (b"b", attrs()),
                (b"c", attrs()),
                (b"../[bold]x[/]", attrs()),
                (b"link", attrs("link")),
            ]
        }
    )
    target = tmp_path / "dl"
    (target / "d").mkdir(parents=True)
    for name in "abc":
        (target / "d" / name).write_bytes(b"old")
    async with hostile_connection(tree, tmp_path / "server") as conn:
        conn.close = _noop

        async def connect(session, key):
            return conn

        monkeypatch.setattr(shell, "open_session_connection", connect)
        app = App()
        async with app.run_test(size=(110, 34)) as pilot:
            dialog = TransferScreen(Platform(), "research", GET, key_path="k", poll=0.01)
            app.push_screen(dialog)
            await pilot.pause()
            dialog.query_one("#transfer-source", Input).value = "d"
            dialog.query_one("#transfer-dest", Input).value = str(target)
            dialog.action_start()
            await _until(
                pilot, lambda: "already exists. Replace it?" in text(dialog, "transfer-result"), "the first question"
            )
            assert str(target / "d" / "a") in text(dialog, "transfer-result")
            assert "a: replace all" in text(dialog, "transfer-hint")
            await pilot.press("n")  # keep a
            await _until(
                pilot, lambda: str(target / "d" / "b") in text(dialog, "transfer-result"), "the second question"
            )
            await pilot.press("a")  # replace b and everything after without asking again
            await _until(pilot, lambda: dialog.state == "done", "the copy to finish")
            result = text(dialog, "transfer-result")
    assert (target / "d" / "a").read_bytes() == b"old"
    assert (target / "d" / "b").read_bytes() == CONTENT and (target / "d" / "c").read_bytes() == CONTENT
    assert "Got 2 file(s)" in result
    assert "Skipped 3:" in result
    assert "d/link (a symlink, not followed)" in result
    assert "d/../[bold]x[/] (refused name: it holds a /)" in result  # literal, never markup
    assert "d/a (already exists; kept, as you chose)" in result
    assert [s.path for s in dialog.outcome.skipped] == ["d/../[bold]x[/]", "d/link", "d/a"]


async def _noop() -> None:
    return None
