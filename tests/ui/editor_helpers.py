"""Shared helpers of the editor's UI tests: a bare host app and a wait-for-validation helper."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.worker import WorkerCancelled

from primetui.ui.editor import EditorScreen
from primetui.ui.editor.screen import VALIDATE_DELAY


class EditorHost(App):
    """A bare app that opens one editor and records what it was dismissed with."""

    def __init__(self, path: Path, **kwargs) -> None:
        super().__init__()
        self.path = path
        self.kwargs = kwargs
        self.result: object = "open"

    def on_mount(self) -> None:
        self.push_screen(EditorScreen(self.path, **self.kwargs), self._editor_done)

    def _editor_done(self, result: object) -> None:
        self.result = result


async def idle(pilot) -> None:
    """Wait until no worker runs (a worker replaced by a newer exclusive one counts as done)."""
    for _ in range(50):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass
        await pilot.pause()
        if not any(w.is_running for w in pilot.app.workers):
            return


async def settle(pilot) -> EditorScreen:
    """Wait for the debounce timer and the validation worker, then for the screen to repaint."""
    await pilot.pause(VALIDATE_DELAY + 0.05)
    await idle(pilot)
    return pilot.app.screen


def host(tmp_path: Path, text: str | None, **kwargs) -> EditorHost:
    path = tmp_path / "sft.toml"
    if text is not None:
        path.write_text(text)
    kwargs.setdefault("drafts_root", tmp_path / "drafts")
    return EditorHost(path, **kwargs)
