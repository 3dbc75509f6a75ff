"""The put/get dialog's own states (issue 18 #11): Enter starts from the first field, a failed get
stops its progress bar, and the stop dialog says one thing once the session has stopped."""

from __future__ import annotations

from types import SimpleNamespace

from textual.app import App
from textual.widgets import Input, ProgressBar, Static

from primetui.ui.terminal.dialogs import StopSessionScreen
from primetui.ui.transfer import GET, PUT, TransferScreen
from tests.waiting import quiet, until


class Platform:
    """The few calls the dialogs make, answered here; ``fail_list`` makes the put's first call fail."""

    def __init__(self, fail_list: str | None = None) -> None:
        self.fail_list = fail_list
        self.stopped: list[str] = []

    async def list_sessions(self, volume: str):
        raise RuntimeError(self.fail_list or "no")

    async def create_session(self, volume: str, **kw):
        return SimpleNamespace(
            id="vs_1",
            phase="ready",
            status="RUNNING",
            read_only=True,
            progress=None,
            ssh_connection="x",
            is_dead=False,
            error_message=None,
        )

    async def stop_session(self, volume: str, session_id: str) -> None:
        self.stopped.append(session_id)

    async def get_session(self, volume: str, session_id: str):
        return SimpleNamespace(id=session_id, phase="stopped", status="STOPPED", progress=None)


def text(screen, wid: str) -> str:
    return str(screen.query_one(f"#{wid}", Static).render())


async def test_first_enter_in_put_starts_the_transfer(tmp_path) -> None:
    src = tmp_path / "data.jsonl"
    src.write_text("{}\n")
    app = App()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = TransferScreen(
            Platform(fail_list="The platform is unreachable"), "research", PUT, key_path="k", poll=0.01
        )
        await app.push_screen(dialog)  # mounted: its widgets can be queried
        await quiet(pilot)
        box = dialog.query_one("#transfer-source", Input)
        assert box.has_focus
        box.value = str(src)
        await pilot.press("enter")
        await until(
            pilot,
            lambda: "unreachable" in text(dialog, "transfer-error"),
            '"unreachable" in text(dialog, "transfer-error")',
        )


async def test_a_failed_get_stops_its_progress_bar(tmp_path, monkeypatch) -> None:
    import primetui.shell as shell

    class Conn:
        endpoint = SimpleNamespace(session_id="vs_1")

        async def close(self) -> None:
            pass

    async def connect(session, key):
        return Conn()

    async def get(conn, source, dest, progress, **options):
        raise RuntimeError("runs/nope/step_1/ is not on research")

    monkeypatch.setattr(shell, "open_session_connection", connect)
    monkeypatch.setattr(shell, "get", get)
    app = App()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = TransferScreen(Platform(), "research", GET, key_path="k", poll=0.01)
        await app.push_screen(dialog)
        dialog.query_one("#transfer-source", Input).value = "runs/nope/step_1/"
        dialog.query_one("#transfer-dest", Input).value = str(tmp_path)
        dialog.action_start()
        await until(
            pilot,
            lambda: "is not on research" in text(dialog, "transfer-error"),
            '"is not on research" in text(dialog, "transfer-error")',
        )
        await quiet(pilot)
        bar = dialog.query_one("#transfer-bar", ProgressBar)
        assert not bar.has_class("visible")
        assert "%" not in text(dialog, "transfer-stats")


async def stop_dialog_lines(platform: Platform) -> tuple[list[str], list[tuple[str, str]]]:
    """Stop session vs_1 through the dialog until it closes itself: its result, and every (phase, hint)
    pair it showed on the way."""
    app = App()
    async with app.run_test(size=(90, 20)) as pilot:
        results: list[str] = []
        dialog = StopSessionScreen(platform, "research", "vs_1", poll=0.01)
        await app.push_screen(dialog, results.append)
        seen: list[tuple[str, str]] = []

        def look() -> bool:
            if dialog.is_attached and dialog.query("#stop-hint"):
                seen.append((text(dialog, "stop-phase"), text(dialog, "stop-hint")))
            return bool(results)

        await until(pilot, look, "the dialog closes itself once stopped")
    return results, seen


async def test_stop_dialog_says_one_thing_once_stopped() -> None:
    results, seen = await stop_dialog_lines(Platform())
    assert results == ["stopped"]
    final = [hint for phase, hint in seen if "stopped; your changes are saved" in phase]
    assert final and all("until it says stopped" not in hint for hint in final), final


class ReadOnlyPlatform(Platform):
    async def get_session(self, volume: str, session_id: str):
        return SimpleNamespace(id=session_id, phase="stopped", status="STOPPED", progress=None, read_only=True)


async def test_stopping_a_read_only_session_does_not_say_changes_were_saved() -> None:
    """Issue 41, finding 11: it said "your changes are saved" of a session that could change nothing."""
    results, seen = await stop_dialog_lines(ReadOnlyPlatform())
    assert results == ["stopped"]
    assert ("Session vs_1 stopped; it was read-only, so research is unchanged.", "This closes by itself.") in seen
    assert not [pair for pair in seen if "changes are saved" in pair[0]], seen
