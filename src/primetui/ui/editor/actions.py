"""Editing actions of the sft.toml editor: find/replace, go to line, comments, block indent and
dedent, start/end of file, completion. A mixin of ``EditorScreen`` (which owns the text area)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import re

from primetui.viewmodel import editing
from primetui.ui.editor.findbar import FindBar, regex_error

from primetui.ui.editor.mixin_base import EditorMixinBase


class EditingActions(EditorMixinBase):
    """Needs ``self.area`` (the text area), ``self.note`` and ``self._refresh_chrome`` from the screen."""

    if TYPE_CHECKING:  # what the screen provides (declared here for the type checker; no attributes at run time)
        cached_models: frozenset[str] | None

        def _validate_now(self) -> None: ...
        def reload_from_disk(self, note: str) -> bool: ...

    # -- line blocks -----------------------------------------------------------------------------
    def _line_block(self) -> tuple[int, int]:
        """First and last line the selection touches (a selection ending at column 0 stops above)."""
        (a, ac), (b, bc) = sorted(self.area.selection)
        if b > a and bc == 0:
            b -= 1
        return a, b

    def _rewrite_lines(self, first: int, last: int, change) -> None:
        doc = self.area.document
        old = [doc.get_line(i) for i in range(first, last + 1)]
        new = change(old)
        if new == old:
            return
        self.area.replace("\n".join(new), (first, 0), (last, len(old[-1])))
        self.area.selection = type(self.area.selection)((first, 0), (last, len(new[-1])))

    def action_toggle_comment(self) -> None:
        first, last = self._line_block()
        self._rewrite_lines(first, last, editing.toggle_comment)

    def action_indent(self) -> None:
        area = self.area
        if not area.has_focus:
            self.focus_next()
            return
        start, end = area.selection
        if start == end:
            width = area.indent_width
            area.insert(" " * (width - area.cursor_location[1] % width))
            return
        first, last = self._line_block()
        if (
            first == last
            and start[0] == end[0]
            and (min(start[1], end[1]) > 0 or max(start[1], end[1]) < len(area.document.get_line(first)))
        ):
            area.replace(" " * area.indent_width, start, end)  # part of one line: a tab replaces it, as anywhere
            return
        self._rewrite_lines(first, last, lambda lines: editing.indent(lines, " " * area.indent_width))

    def action_dedent(self) -> None:
        if not self.area.has_focus:
            self.focus_previous()
            return
        first, last = self._line_block()
        self._rewrite_lines(first, last, lambda lines: editing.dedent(lines, " " * self.area.indent_width))

    # -- moving ------------------------------------------------------------------------------------
    def action_file_start(self) -> None:
        self.area.move_cursor((0, 0))
        self.area.scroll_cursor_visible()

    def action_file_end(self) -> None:
        self.area.move_cursor(self.area.document.end)
        self.area.scroll_cursor_visible()

    def action_goto_line(self) -> None:
        from primetui.ui.editor.modals import GoToLinePrompt

        def _chosen(pos: tuple[int, int] | None) -> None:
            if pos is not None:
                line = pos[0]
                self.area.move_cursor((line, min(pos[1], len(self.area.document.get_line(line)))))
                self.area.scroll_cursor_visible(center=True)
            self.area.focus()

        self.app.push_screen(GoToLinePrompt(self.area.document.line_count), _chosen)

    def action_external_editor(self) -> None:
        """Open the file in $VISUAL / $EDITOR with the app suspended; reload and re-check on return."""
        import os
        import shlex
        import subprocess

        from textual.app import SuspendNotSupported

        command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not command:
            self.note = "Set $EDITOR (or $VISUAL) to the editor to open, e.g. export EDITOR=vim, then press F10."
        elif self.path is None or self.modified or self.load_error:
            self.note = "Save first (ctrl+s or F12): F10 opens the file as it is on disk in $EDITOR."
        else:
            try:
                with self.app.suspend():
                    result = subprocess.run([*shlex.split(command), str(self.path)], check=False)
            except SuspendNotSupported:
                self.note = "This terminal cannot hand over to another program (a browser session?): edit here."
            except (OSError, ValueError) as exc:
                self.note = f"Could not start `{command}` ({getattr(exc, 'strerror', None) or exc}); check $EDITOR."
            else:
                status = "" if result.returncode == 0 else f" (it exited with {result.returncode})"
                self.reload_from_disk(
                    f"Back from {shlex.split(command)[0]}{status}: {self.path.name} reloaded and checked."
                )
                self._validate_now()
                return
        self._refresh_chrome()

    def action_keys(self) -> None:
        from primetui.ui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self))

    # -- find / replace ----------------------------------------------------------------------------
    @property
    def findbar(self) -> FindBar:
        return self.query_one(FindBar)

    def action_find(self) -> None:
        self.findbar.open(replace=False, seed=self.area.selected_text)

    def action_replace(self) -> None:
        self.findbar.open(replace=True, seed=self.area.selected_text)

    def action_find_step(self, step: int) -> None:
        if not self.findbar.pattern:
            self.action_find()
            return
        self._search(step)

    def on_find_bar_search(self, event: FindBar.Search) -> None:  # by name: @on does not reach a mixin
        event.stop()
        if event.replace_all:
            self._replace_all()
        else:
            self._search(event.step, replace=event.replace)

    def _matches(self) -> list[editing.Match] | None:
        bar = self.findbar
        try:
            return editing.find_matches(
                self.area.text, bar.pattern, regex=bar.regex, case=bar.case, replace=bar.replacement
            )
        except (re.error, IndexError) as exc:  # IndexError: a \\3 the pattern has no group for
            bar.status(
                regex_error(exc)
                if isinstance(exc, re.error)
                else f"The replacement names a group the pattern lacks ({exc})."
            )
            return None

    def _search(self, step: int, replace: bool = False) -> None:
        matches = self._matches()
        if matches is None:
            return
        bar = self.findbar
        if not matches:
            bar.status("No match." if bar.pattern else "Type what to find.")
            return
        doc = self.area.document
        sel_start, sel_end = sorted(self.area.selection)
        here = _offset(doc, sel_start)
        current = next((m for m in matches if m.start == here and m.end == _offset(doc, sel_end)), None)
        if replace and current is not None:
            self.area.replace(current.replacement, sel_start, sel_end)
            matches = self._matches() or []
            here += len(current.replacement)
            if not matches:
                bar.status("Replaced the last match.")
                return
            target = next((m for m in matches if m.start >= here), matches[0])
        elif step >= 0:
            after = here + (1 if step > 0 and current is not None else 0)
            target = next((m for m in matches if m.start >= after), matches[0])
        else:
            target = next((m for m in reversed(matches) if m.start < here), matches[-1])
        self.area.selection = type(self.area.selection)(_location(doc, target.start), _location(doc, target.end))
        self.area.scroll_cursor_visible(center=True)
        bar.status(f"{matches.index(target) + 1} of {len(matches)}")

    def _replace_all(self) -> None:
        matches = self._matches()
        if not matches:
            if matches is not None:
                self.findbar.status("No match.")
            return
        self.replace_all(editing.replace_all(self.area.text, matches))
        self.findbar.status(f"Replaced {len(matches)} match(es) (ctrl+z undoes it).")

    # -- completion ------------------------------------------------------------------------------------
    def action_complete(self) -> None:
        from primetui.sft.assist import completions
        from primetui.ui.editor.modals import CompletionPicker

        line, col = self.area.cursor_location
        start, items = completions(self.area.text, line, col, self.cached_models)
        if not items:
            self.note = "Nothing to complete here."
            self._refresh_chrome()
            return
        if len(items) == 1:
            self._insert_completion(line, start, col, items[0].insert)
            return

        def _chosen(index: int | None) -> None:
            if index is not None:
                self._insert_completion(line, start, col, items[index].insert)
            self.area.focus()

        title = f"Complete ({len(items)})"
        self.app.push_screen(CompletionPicker(title, [(c.label, c.detail) for c in items]), _chosen)

    def _insert_completion(self, line: int, start: int, col: int, text: str) -> None:
        self.area.replace(text, (line, start), (line, col))


def _offset(doc, loc: tuple[int, int]) -> int:
    return sum(len(doc.get_line(i)) + 1 for i in range(loc[0])) + loc[1]


def _location(doc, offset: int) -> tuple[int, int]:
    line = 0
    while line < doc.line_count - 1 and offset > len(doc.get_line(line)):
        offset -= len(doc.get_line(line)) + 1
        line += 1
    return line, offset
