"""The editor's problems: stepping through them, jumping to one, quick fixes. A mixin of ``EditorScreen``."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from primetui.sft.diagnostics import Diagnostic, Fix
from primetui.ui.editor.problems import ProblemsList

from primetui.ui.editor.mixin_base import EditorMixinBase


class ProblemActions(EditorMixinBase):
    """Needs the screen's ``area``, ``diagnostics``, ``note`` and ``_refresh_chrome``."""

    if TYPE_CHECKING:  # what the screen provides (declared here for the type checker; no attributes at run time)

        def _refresh_message(self) -> None: ...

    def apply_fix(self, fix: Fix) -> None:
        for edit in sorted(fix.edits, key=lambda e: e.start, reverse=True):
            self.area.replace(edit.text, self._clamp(edit.start), self._clamp(edit.end))

    def _clamp(self, pos: tuple[int, int]) -> tuple[int, int]:
        doc = self.area.document
        line = min(pos[0], doc.line_count - 1)
        if pos[0] > line:
            return doc.end
        return (line, min(pos[1], len(doc.get_line(line))))

    def jump_to(self, d: Diagnostic) -> None:
        self.area.cursor_location = (d.span.line, d.span.col)
        self.area.scroll_cursor_visible(center=True)
        self.area.focus()
        self._refresh_message()

    def action_quick_fix(self) -> None:
        line, col = self.area.cursor_location
        here = [d for d in self.area.diagnostics_at_line(line) if d.fix is not None]
        if not here:
            self.note = "No quick fix on this line (F8 jumps to the next problem)."
            self._refresh_chrome()
            return
        inside = [d for d in here if d.span.col <= col <= d.span.end_col] or here
        d = inside[0]
        if len(d.fixes) == 1:
            assert d.fix is not None  # ``here`` holds only diagnostics with a fix
            self._apply_titled(d.fix)
            return
        from primetui.ui.editor.modals import CompletionPicker

        def _chosen(index: int | None) -> None:
            if index is not None:
                self._apply_titled(d.fixes[index])
            self.area.focus()

        self.app.push_screen(CompletionPicker("Quick fixes", [(f.title, "") for f in d.fixes]), _chosen)

    def _apply_titled(self, fix: Fix) -> None:
        self.apply_fix(fix)
        self.note = f"Applied: {fix.title} (ctrl+z undoes it)."
        self._refresh_chrome()

    def _step(self, forward: bool) -> None:
        if not self.diagnostics:
            self.note = "No problems."
            self._refresh_chrome()
            return
        here = self.area.cursor_location
        ordered = self.diagnostics
        if forward:
            nxt = next((d for d in ordered if (d.span.line, d.span.col) > here), ordered[0])
        else:
            nxt = next((d for d in reversed(ordered) if (d.span.line, d.span.col) < here), ordered[-1])
        self.jump_to(nxt)

    def action_next_problem(self) -> None:
        self._step(True)

    def action_prev_problem(self) -> None:
        self._step(False)

    def action_toggle_problems(self) -> None:
        problems = self.query_one("#editor-problems", ProblemsList)
        if problems.has_class("visible") and problems.has_focus:
            problems.remove_class("visible")
            self.area.focus()
        else:
            problems.add_class("visible")
            problems.focus()
            if problems.highlighted is None and self.diagnostics:
                problems.highlighted = 0

    def _best_at(self, line: int, col: int) -> Diagnostic | None:
        here = self.area.diagnostics_at_line(line)
        inside = [d for d in here if (d.span.line, d.span.col) <= (line, col) <= (d.span.end_line, d.span.end_col)]
        return cast("list[Diagnostic | None]", inside or here or [None])[0]
