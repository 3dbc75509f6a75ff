"""Shared helpers of the editor's UI tests: a bare host app and a wait-for-validation helper."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from primetui.ui.editor import EditorScreen
from primetui.ui.editor.keyorder import KeysToDialogs
from tests.waiting import input_applied, quiet, until


class EditorHost(KeysToDialogs, App):  # as PrimeApp: keys for a dialog reach the dialog (keyorder.py)
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
    """Wait until every key sent so far is applied and no worker runs."""
    await input_applied(pilot)
    await until(pilot, lambda: not any(w.is_running for w in pilot.app.workers), "the app's workers to finish")


async def settle(pilot) -> EditorScreen:
    """Wait until every key sent so far is applied and the diagnostics shown belong to the text shown."""
    await input_applied(pilot)
    screen = pilot.app.screen
    if isinstance(screen, EditorScreen):
        await until(pilot, lambda: screen.validated, "the editor's diagnostics to match its current text")
    await idle(pilot)
    return pilot.app.screen


def host(tmp_path: Path, text: str | None, **kwargs) -> EditorHost:
    path = tmp_path / "sft.toml"
    if text is not None:
        path.write_text(text)
    kwargs.setdefault("drafts_root", tmp_path / "drafts")
    return EditorHost(path, **kwargs)


async def open_dispatch(pilot):
    """F5: the dispatch dialog, once it lists the platform's volumes."""
    from primetui.ui.editor.dispatch import DispatchScreen

    await pilot.press("f5")
    return await until(
        pilot,
        lambda: isinstance(s := pilot.app.screen, DispatchScreen) and s.volumes and s,
        "the dispatch dialog with its volumes listed",
    )


async def pick_volume(pilot, screen, volume: str) -> str:
    """Highlight ``volume``, press enter and wait for its pre-flight; the pre-flight's text."""
    listing = screen.query_one("#volumes")
    listing.focus()
    names = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
    listing.highlighted = names.index(volume)
    await pilot.press("enter")
    await until(
        pilot, lambda: screen.preflight is not None and screen.preflight.volume == volume, f"the pre-flight of {volume}"
    )
    await quiet(pilot)  # its lines drawn
    return str(screen.query_one("#preflight").render())


async def dispatched(pilot) -> object:
    """Press d in the dialog; what the editor closed with (a run id), once the platform answered."""
    await pilot.press("d")
    return await until(
        pilot, lambda: pilot.app.result != "open" and pilot.app.result, "the editor closed on the dispatched run"
    )
