"""The stop-and-sync dialog when the platform refuses or goes away: a clear sentence, never a hang."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Static

from primetui.ui.terminal.dialogs import StopSessionScreen
from tests.waiting import quiet


class RefusingClient:
    """Stands in for PrimeClient on the two calls the dialog makes; the platform says no."""

    async def stop_session(self, volume: str, session_id: str) -> None:
        raise RuntimeError("The platform refused to stop session vs_1 (HTTP 409: already finalizing); wait for it on the volumes screen")

    async def get_session(self, volume: str, session_id: str):  # pragma: no cover - never reached
        raise AssertionError("must not poll after a refused stop")


async def test_refused_stop_is_explained_and_esc_closes() -> None:
    app = App()
    async with app.run_test(size=(90, 20)) as pilot:
        results: list[str] = []
        app.push_screen(StopSessionScreen(RefusingClient(), "research", "vs_1", poll=0.01), results.append)
        for _ in range(100):
            await pilot.pause(0.02)
            text = str(app.screen.query_one("#stop-phase", Static).render())
            if "Could not stop" in text:
                break
        assert "Could not stop the session: The platform refused" in text
        await pilot.press("escape")
        await quiet(pilot)
        assert results == ["background"]
