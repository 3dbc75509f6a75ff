"""The marks that once had literal colours draw in each theme's own colours (docs/themes.md).

The conflict prompt's diff (added lines in the theme's success colour, removed ones in its error
colour), in each shipped theme. The runs list's and the run screen's "!" anomaly marks are checked
in tests/snapshots/test_diagnose_screens.py, the compare summary's in test_compare_screen.py, with
``theme_colour_at`` below.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import Color
from rich.console import Console
from rich.text import Text
from textual.app import App
from textual.widgets import Static

from primetui.ui.editor.modals import ConflictPrompt
from primetui.ui.themes import load_themes, shipped_theme_dir
from primetui.ui.widgets import rich_colour
from tests.waiting import until

THEMES = ["primetui-dark", "primetui-light", "primetui-ansi"]


def theme_colour_at(app: App, text: Text, needle: str, tone: str) -> tuple[Color | None, Color]:
    """(the colour ``text`` draws ``needle`` in, the colour the running theme gives ``tone``)."""
    style = text.get_style_at_offset(Console(), text.plain.index(needle))
    return style.color, Color.parse(rich_colour(app.theme_variables[tone]))


class ConflictHost(App):
    def __init__(self, theme: str) -> None:
        super().__init__()
        self.wanted = theme

    def on_mount(self) -> None:
        for theme in load_themes(shipped_theme_dir())[0]:
            self.register_theme(theme)
        self.theme = self.wanted
        diff = ["+max_steps = 10", "-max_steps = 1", " seed = 1"]
        self.push_screen(ConflictPrompt(Path("sft.toml"), gone=False, diff=diff))


@pytest.mark.parametrize("theme", THEMES)
async def test_the_conflict_diff_draws_in_the_theme_colours(theme):
    app = ConflictHost(theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConflictPrompt), "the conflict prompt")
        body = app.screen.query_one("#conflict-diff-body", Static).content
        assert isinstance(body, Text)
        drawn, wanted = theme_colour_at(app, body, "+max_steps", "success")
        assert drawn == wanted, f"{theme}: an added line draws in {drawn}, the theme's success is {wanted}"
        drawn, wanted = theme_colour_at(app, body, "-max_steps", "error")
        assert drawn == wanted, f"{theme}: a removed line draws in {drawn}, the theme's error is {wanted}"
        assert theme_colour_at(app, body, " seed", "error")[0] is None  # an unchanged line: the plain foreground
