"""The problems list: every diagnostic, by position, with its level; enter jumps to it."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from primetui.sft.diagnostics import Diagnostic
from primetui.ui.safe import clean

_VAR = {"error": "error", "warning": "warning", "hint": "accent"}
_LABEL = {"error": "error  ", "warning": "warning", "hint": "hint   "}


class ProblemsList(OptionList):
    """A list of diagnostics; posts ``ProblemsList.Jump`` with the chosen one."""

    DEFAULT_CSS = """
    ProblemsList { height: 8; border-top: solid $panel-lighten-2; padding: 0; display: none; }
    ProblemsList.visible { display: block; }
    """

    class Jump(Message):
        def __init__(self, diagnostic: Diagnostic) -> None:
            super().__init__()
            self.diagnostic = diagnostic

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[Diagnostic] = []

    def show(self, diagnostics: list[Diagnostic]) -> None:
        highlighted = self.highlighted
        self.items = list(diagnostics)
        variables = self.app.get_css_variables()
        self.clear_options()
        if not self.items:
            self.add_option(Option(Text("No problems.", style="dim"), disabled=True))
            return
        for i, d in enumerate(self.items):
            label = Text()
            label.append(_LABEL[d.level], style=f"bold {variables.get(_VAR[d.level], '')}".strip())
            label.append(f" {d.span.line + 1:>4}:{d.span.col + 1:<3} ", style="dim")
            label.append(clean(d.message))
            if d.fix is not None:
                label.append("  [F4 fix]", style="dim")
            self.add_option(Option(label, id=str(i)))
        if highlighted is not None:
            self.highlighted = min(highlighted, len(self.items) - 1)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Jump(self.items[int(event.option.id)]))
