"""The dashboard's footer sets each key's compact style before it mounts (``SteadyFooter``): its keys end
with the classes and styles Textual's own footer gives them, compact or not, the palette key included."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from primetui.ui.widgets import SteadyFooter
from tests.waiting import until


class FooterApp(App[None]):
    BINDINGS = [Binding("a", "bell", "Bell"), Binding("b", "screenshot", "Shot"), Binding("q", "quit", "Quit")]

    def __init__(self, footer: Footer) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield self.footer


async def _keys(footer: Footer) -> list[tuple[str, bool, frozenset[str], int]]:
    app = FooterApp(footer)
    async with app.run_test(size=(100, 10)) as pilot:
        await until(pilot, lambda: len(footer.query(FooterKey)) >= 4, "the footer's keys")  # three and the palette
        return [
            (k.key, k.compact, frozenset(k.classes), k.get_content_width(footer.size, app.size))
            for k in footer.query(FooterKey)
        ]


@pytest.mark.parametrize("compact", [False, True])
async def test_keys_are_styled_as_textuals_own_footer_styles_them(compact: bool) -> None:
    ours, textuals = await _keys(SteadyFooter(compact=compact)), await _keys(Footer(compact=compact))
    assert ours == textuals
    assert {bound for key, bound, *_ in ours if key != "ctrl+p"} == {compact}
