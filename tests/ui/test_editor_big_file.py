"""Typing in a multi-megabyte sft.toml (issue 18 item 13): highlighting is switched off above a
size and the title bar says so, validation still runs (in the helper process), and a key press no
longer does work for every line of the file (Textual's text join, line widths and wrapped height
were each O(lines) per key)."""

from __future__ import annotations

import pytest
from editor_helpers import host, settle
from textual.app import App, ComposeResult
from textual.document import _document, _wrapped_document

from primetui.sft.templates import ONLINE_EVAL
from primetui.ui.editor.area import HIGHLIGHT_LIMIT, DiagnosticTextArea
from tests.waiting import input_applied, quiet

pytestmark = pytest.mark.timeout(120)


def big_text(sources: int) -> str:
    return ONLINE_EVAL + "".join(
        f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\n'
        "num_examples = 32\ngroup_size = 2\n"
        for i in range(sources)
    )


class AreaHost(App):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield DiagnosticTextArea(self.text, highlight=False)


async def test_a_key_press_does_not_visit_every_line(monkeypatch):
    # 7,200 lines: a visit of every line per key still counts 43,000 widths (with bigdoc's caches off), and the
    # joins and heights per rendered row do not depend on the length; 72,000 lines cost 3 CPU seconds more.
    text = big_text(1_200)
    counts = {"widths": 0, "height": 0}
    real_cell_len = _document.cell_len

    def counting_cell_len(s: str) -> int:
        counts["widths"] += 1
        return real_cell_len(s)

    real_height = _wrapped_document.WrappedDocument.height

    def counting_height(self) -> int:
        counts["height"] += 1
        return real_height.fget(self)

    app = AreaHost(text)
    async with app.run_test(size=(100, 30)) as pilot:
        area = app.query_one(DiagnosticTextArea)
        area.focus()
        area.cursor_location = (20, 0)
        await quiet(pilot)
        import primetui.ui.editor.bigdoc as bigdoc

        monkeypatch.setattr(_document, "cell_len", counting_cell_len)
        monkeypatch.setattr(bigdoc, "cell_len", counting_cell_len)
        monkeypatch.setattr(_wrapped_document.WrappedDocument, "height", property(counting_height))
        joins = 0
        real_join = _document.Document.text.fget

        def counting_text(self) -> str:
            nonlocal joins
            joins += 1
            return real_join(self)

        monkeypatch.setattr(_document.Document, "text", property(counting_text))
        for key in ("x", "y", "enter", "backspace", "backspace", "backspace"):
            await pilot.press(key)
        await input_applied(pilot)
        assert area.document.line_count == text.count("\n") + 1
        assert area.text.splitlines()[20] == text.splitlines()[20]  # the edits undone by hand
    assert counts["widths"] < 100, counts  # was ~72,000 per key
    assert counts["height"] == 0, counts  # was one full sum per rendered row
    assert joins <= 8, joins  # about one join per edit (6 here), not one per rendered row


async def test_big_file_is_plain_text_said_in_the_title_and_validated(tmp_path):
    text = big_text(3_000)
    assert len(text) > HIGHLIGHT_LIMIT
    app = host(tmp_path, text)
    async with app.run_test(size=(160, 30)) as pilot:
        editor = await settle(pilot)
        assert not editor.area.highlighting
        assert "plain text: no highlighting above 200,000 characters" in str(editor.query_one("#editor-title").render())
        editor.area.cursor_location = (0, 0)
        await pilot.press(*"bogus_key = 1", "enter")
        editor = await settle(pilot)
        assert any(d.code == "unknown-key" and d.span.line == 0 for d in editor.diagnostics)  # kept up
        assert editor.validator.pid is not None  # in the editor's helper
        # Cut back under the limit: highlighting comes back.
        editor.replace_all(ONLINE_EVAL)
        editor = await settle(pilot)
        assert editor.area.highlighting
        assert "plain text" not in str(editor.query_one("#editor-title").render())


async def test_small_file_keeps_highlighting(tmp_path):
    app = host(tmp_path, ONLINE_EVAL)
    async with app.run_test(size=(120, 30)) as pilot:
        editor = await settle(pilot)
        assert editor.area.highlighting
