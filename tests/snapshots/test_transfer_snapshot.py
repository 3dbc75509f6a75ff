"""SVG snapshot of the put dialog mid-way (fixed clock and figures; the live path is tested in
tests/ui/test_transfer.py)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input, ProgressBar, Static

from primetui.ui.transfer import TransferScreen
from tests.waiting import quiet

MIB = 1024 * 1024


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.now = 100.0

    def compose(self) -> ComposeResult:
        yield Static("volumes")

    def on_mount(self) -> None:
        self.push_screen(TransferScreen(None, "research", "put", clock=lambda: self.now))


async def mid_way(pilot) -> None:
    app = pilot.app
    await quiet(pilot)
    screen = app.screen
    assert isinstance(screen, TransferScreen)
    screen.query_one("#transfer-source", Input).value = "./my-dataset"
    # The state a put is in after 15 of 40 files, 5 s in (what _run/_copy set on the way).
    screen.state = "working"
    for box in screen.query(Input):
        box.disabled = True
    screen._set("transfer-phase", "Putting ./my-dataset → research:/datasets/ over session vs_1a2b3c4d5e6f")
    screen._set("transfer-hint", "esc: cancel (a half-written file is removed)")
    screen.query_one("#transfer-bar", ProgressBar).add_class("visible")
    screen._started, screen._files_total = 100.0, 40
    screen._names = {f"datasets/my-dataset/shard-{i:03d}.jsonl" for i in range(14)}
    app.now = 105.0
    screen._progress(45 * MIB, 120 * MIB, "datasets/my-dataset/shard-014.jsonl", force=True)
    await quiet(pilot)  # the progress painted


def test_put_dialog_mid_way(snap_compare) -> None:
    assert snap_compare(Host(), terminal_size=(96, 28), run_before=mid_way)
