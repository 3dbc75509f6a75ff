"""The stop-and-sync dialog when the platform refuses or goes away: a clear sentence, never a hang."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Static

from primetui.ui.terminal.dialogs import StopSessionScreen
from tests.waiting import quiet, until


class RefusingClient:
    """Stands in for PrimeClient on the two calls the dialog makes; the platform says no."""

    async def stop_session(self, volume: str, session_id: str) -> None:
        raise RuntimeError(
            "The platform refused to stop session vs_1 (HTTP 409: already finalizing); wait for it on the volumes "
            "screen"
        )

    async def get_session(self, volume: str, session_id: str):  # pragma: no cover - never reached
        raise AssertionError("must not poll after a refused stop")


async def test_refused_stop_is_explained_and_esc_closes() -> None:
    app = App()
    async with app.run_test(size=(90, 20)) as pilot:
        results: list[str] = []
        dialog = StopSessionScreen(RefusingClient(), "research", "vs_1", poll=0.01)
        await app.push_screen(dialog, results.append)

        def phase() -> str:
            return str(dialog.query_one("#stop-phase", Static).render())

        await until(pilot, lambda: "Could not stop" in phase(), "the refusal in the stop dialog")
        assert "Could not stop the session: The platform refused" in phase()
        await pilot.press("escape")
        await quiet(pilot)
        assert results == ["background"]
