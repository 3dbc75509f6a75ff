"""The log view's pointer and selection: move a line pointer, mark a range, copy it (OSC 52),
save the lines in view, and send the pointed step to the charts."""

from __future__ import annotations

from pathlib import Path
import numpy as np

from primetui.config.fileio import atomic_write
from primetui.ui.monitor.logview.base import LogViewBase
from primetui.viewmodel.logview import plain_line, selection_range


class LogSelection(LogViewBase):
    """Pointer, range, copy and save of ``LogView`` (a mixin: the view's state is the widget's)."""

    def _move_pointer(self, delta: int) -> None:
        self._flush_size()
        if not self.row_count:
            return
        if self.pointer is None:
            top = int(self.scroll_offset.y)
            self.pointer = min(top + self.size.height - 1, self.row_count - 1) if delta < 0 else top
        else:
            self.pointer = max(0, min(self.row_count - 1, self.pointer + delta))
        top = int(self.scroll_offset.y)
        height = max(self.size.height, 1)
        if self.pointer < top:
            self.scroll_to(y=self.pointer, animate=False, immediate=True, force=True)
        elif self.pointer >= top + height:
            self.scroll_to(y=self.pointer - height + 1, animate=False, immediate=True, force=True)
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def action_pointer_up(self) -> None:
        self._move_pointer(-1)

    def action_pointer_down(self) -> None:
        self._move_pointer(1)

    def action_page_up(self) -> None:
        self._move_pointer(-max(self.size.height - 1, 1))

    def action_page_down(self) -> None:
        self._move_pointer(max(self.size.height - 1, 1))

    def action_mark(self) -> None:
        if self.pointer is None:
            self._move_pointer(-1)
        self.mark = None if self.mark is not None else self.pointer
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def selected_text(self) -> str:
        """The pointer line, or the marked range, as plain text (merged view: with components)."""
        if self.pointer is None or not self.row_count:
            return ""
        lo, hi = selection_range(self.pointer, self.mark)
        return "\n".join(self._plain(self.global_index(row)) for row in range(lo, hi + 1))

    def _plain(self, g: int) -> str:
        return plain_line(self.source, g, self.source_names)

    def row_text(self, row: int) -> str:
        """The plain text of the line at virtual row ``row`` (merged view: with its component), as
        copy and save write it."""
        return self._plain(self.global_index(row))

    def action_copy(self) -> None:
        text = self.selected_text()
        if not text:
            self.notify("Move to a line first (up/down), then copy; v marks a range.", timeout=3)
            return
        self.app.copy_to_clipboard(text)
        n = text.count("\n") + 1
        self.notify(f"Copied {n} line{'s' if n > 1 else ''} to the clipboard (OSC 52).", timeout=3)
        self.mark = None
        self._frame_key = None
        self.refresh()

    def action_save(self) -> None:
        self.post_message(self.Prompt(self, "save", ""))

    def save_to(self, path: str) -> int:
        """Write the lines in view (filtered or all) to ``path``; returns how many."""
        self._catch_up()
        lines = [self._plain(self.global_index(row)) + "\n" for row in range(self.row_count)]
        atomic_write(Path(path), "".join(lines))
        return len(lines)

    def on_click(self, event) -> None:
        row = int(self.scroll_offset.y) + event.y
        if 0 <= row < self.row_count and not self.wrap:
            self.pointer = row
            self._frame_key = None
            self.refresh()
            self.post_message(self.Changed(self))

    def step_of_pointer(self) -> int | None:
        """The step the pointed line belongs to: its own step line, else the nearest one above."""
        if self.pointer is None or not self.row_count:
            return None
        g = self.global_index(self.pointer)
        first = self.source.first
        steps = self.source.steps(first, g + 1)
        known = np.flatnonzero(steps >= 0)
        return int(steps[known[-1]]) if len(known) else None

    def action_step_to_charts(self) -> None:
        step = self.step_of_pointer()
        if step is None:
            self.notify("No step line at or above this line (point at a line with ↑/↓ or a click).", timeout=3)
            return
        self.post_message(self.StepPicked(self, step))
