"""Typing in a big highlighted sft.toml (issue 30 item 6): the editor's text area runs the highlight
query only for the 64-line blocks it draws, an edit forgets only the blocks and rendered lines it
touched, and what is drawn is what Textual's whole-document highlighting gives (the same tuples per
line, the same strips). No timing here: ``bench/validate.py --typing`` measures key-to-echo."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import TextArea

from primetui.sft.diagnostics import Diagnostic, Span
from primetui.sft.templates import ONLINE_EVAL
from primetui.ui.editor.area import DiagnosticTextArea
from primetui.ui.editor.highlight import BLOCK, LazyHighlights
from tests.waiting import input_applied, quiet, until

pytestmark = pytest.mark.timeout(120)

TRICKY = '''
# a comment with é and 漢字 (multi-byte: highlight columns are bytes)
[notes]
text = """
several lines
of one string
"""
when = 1979-05-27T07:32:00Z
ratio = 0.5
on = true
list = [1, 2, { a = "b" }]
"quoted key" = 'literal'
= broken line
'''


def big_text(sources: int = 830) -> str:
    """About 5,000 lines: the online-eval config, tricky TOML at a block edge, then eval sources."""
    body = "".join(
        f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\n'
        "num_examples = 32\ngroup_size = 2\n"
        for i in range(sources)
    )
    head = ONLINE_EVAL.rstrip("\n") + "\n" * (BLOCK - 4 - ONLINE_EVAL.rstrip("\n").count("\n"))
    return head + TRICKY + body


class Pair(App):
    """The editor's text area beside a plain Textual TextArea built the same way (whole-document
    highlighting), on the same text, the same size."""

    CSS = "TextArea { height: 30; width: 100; }"

    def __init__(self, text: str, focus: bool = True) -> None:
        super().__init__()
        self.text = text
        self.focus = focus

    def compose(self) -> ComposeResult:
        ours = DiagnosticTextArea(self.text, id="ours")
        textual = TextArea(
            self.text, language="toml", soft_wrap=False, tab_behavior="indent", show_line_numbers=True, id="textual"
        )
        ours.can_focus = textual.can_focus = self.focus  # without focus neither draws a cursor
        yield ours
        yield textual


def areas(app: Pair) -> tuple[DiagnosticTextArea, TextArea]:
    return app.query_one("#ours", DiagnosticTextArea), app.query_one("#textual", TextArea)


def same_view(ours: DiagnosticTextArea, textual: TextArea) -> None:
    """Every line's highlights, and every drawn row, agree with Textual's whole-document map."""
    for line in range(ours.document.line_count):
        # the same tuples; their order (which style wins where captures overlap) is the query's
        # capture order here, the order names first occur in the document in Textual: the strips agree
        assert sorted(ours.highlights[line], key=str) == sorted(textual._highlights.get(line, []), key=str), (
            f"line {line}"
        )
    for y in range(ours.size.height):
        a, b = ours.render_line(y), textual.render_line(y)
        assert a.text == b.text and list(a) == list(b), f"row {y} at scroll {ours.scroll_offset.y}"


async def scrolled(pilot, ours: TextArea, textual: TextArea, y: int) -> None:
    for area in (ours, textual):
        area.scroll_to(y=y, animate=False, immediate=True)
    await until(pilot, lambda: ours.scroll_offset.y == textual.scroll_offset.y == y, f"both areas at row {y}")


async def test_lazy_highlighting_draws_what_whole_document_highlighting_draws():
    text = big_text()
    assert 4_900 <= text.count("\n") <= 5_200
    app = Pair(text, focus=False)
    async with app.run_test(size=(110, 70)) as pilot:
        ours, textual = areas(app)
        await quiet(pilot)
        assert isinstance(ours.highlights, LazyHighlights)
        # only what was drawn was highlighted: the first block of a 5,000-line file
        assert ours.highlights.blocks() == {0}
        for y in (0, BLOCK - 10, 2_500, ours.document.line_count - 40):
            await scrolled(pilot, ours, textual, y)
            same_view(ours, textual)
        # edits: a character, a new line, a quote that opens a string to the end of the file, undo, ...
        await scrolled(pilot, ours, textual, BLOCK - 10)
        for edit in (
            lambda a: a.insert("x", (BLOCK + 2, 3)),
            lambda a: a.insert("\nk = 1", (BLOCK + 8, 0)),
            lambda a: a.insert('"""', (BLOCK + 1, 0)),
            lambda a: a.undo(),
            lambda a: a.delete((BLOCK + 3, 0), (BLOCK + 6, 0)),
            # the longest line grows past the widget, then shrinks: every row's padding changes
            lambda a: a.insert("y" * 150, (BLOCK + 2, 0)),
            lambda a: a.insert("z", (BLOCK + 9, 0)),
            lambda a: a.delete((BLOCK + 2, 0), (BLOCK + 2, 150)),
        ):
            for area in (ours, textual):
                area.history.checkpoint()
                edit(area)
            await input_applied(pilot)
            assert ours.text == textual.text
            same_view(ours, textual)


async def test_an_edit_rehighlights_only_the_block_it_touched():
    app = Pair(big_text())
    async with app.run_test(size=(110, 70)) as pilot:
        ours, _ = areas(app)
        ours.focus()
        ours.scroll_to(y=3 * BLOCK - 5, animate=False, immediate=True)
        row = 3 * BLOCK + 10
        ours.cursor_location = (row, 0)
        await until(pilot, lambda: {2, 3} <= ours.highlights.blocks(), "rows 187-216 drawn (blocks 2 and 3)")
        await quiet(pilot)
        before, blocks = ours.highlights.queries, ours.highlights.blocks()
        rendered: list[int] = []
        real = ours._render_line

        def counted(y: int):
            rendered.append(ours.scroll_offset.y + y)
            return real(y)

        ours._render_line = counted  # type: ignore[method-assign]
        await pilot.press("x")
        await input_applied(pilot)
        await until(pilot, lambda: row in rendered, "the edited row redrawn")
        assert ours.document.get_line(row).startswith("x")
        assert ours.highlights.queries == before + 1  # block 3 again, not block 2, not the file
        assert ours.highlights.blocks() == blocks
        assert set(rendered) <= {row - 1, row, row + 1}  # the other rows came from the line cache


async def test_a_new_line_forgets_the_blocks_below_but_queries_only_what_is_drawn():
    app = Pair(big_text())
    async with app.run_test(size=(110, 70)) as pilot:
        ours, _ = areas(app)
        ours.focus()
        for y in (2_000, 0):  # draw blocks far below, then come back to the top
            ours.scroll_to(y=y, animate=False, immediate=True)
            await until(pilot, lambda y=y: y // BLOCK in ours.highlights.blocks(), f"row {y}'s block drawn")
        far = 2_000 // BLOCK
        ours.cursor_location = (5, 0)
        before = ours.highlights.queries
        await pilot.press("enter")
        await input_applied(pilot)
        await until(pilot, lambda: 0 in ours.highlights.blocks(), "the top block highlighted again")
        assert far not in ours.highlights.blocks()  # its lines moved down one row
        assert ours.highlights.queries == before + 1


async def test_new_diagnostics_redraw_only_the_lines_they_change():
    app = Pair(big_text(), focus=False)  # no cursor blinking: every redraw is the diagnostics'
    async with app.run_test(size=(110, 70)) as pilot:
        ours, _ = areas(app)
        ours.set_diagnostics(
            [Diagnostic("error", "bad", Span(3, 0, 3, 5), "x"), Diagnostic("warning", "meh", Span(7, 2, 8, 1), "y")]
        )
        await quiet(pilot)
        assert ours.render_line(3).text == ours.render_line(3).text  # drawn, cached
        rendered: list[int] = []
        real = ours._render_line

        def counted(y: int):
            rendered.append(ours.scroll_offset.y + y)
            return real(y)

        ours._render_line = counted  # type: ignore[method-assign]
        # line 3's problem is gone, line 7-8's is the same, line 12 gets one
        ours.set_diagnostics(
            [Diagnostic("warning", "meh", Span(7, 2, 8, 1), "y"), Diagnostic("hint", "hm", Span(12, 0, 12, 3), "z")]
        )
        await until(pilot, lambda: {3, 12} <= set(rendered), "lines 3 and 12 redrawn")
        await quiet(pilot)
        assert set(rendered) == {3, 12}
        underlined = [seg for seg in ours.render_line(12) if seg.style and seg.style.underline]
        assert underlined and not [seg for seg in ours.render_line(3) if seg.style and seg.style.underline]


async def test_the_footer_keeps_its_keys_when_what_it_shows_is_unchanged(tmp_path):
    """The screen's bindings are refreshed on many things that change no key shown (a dialog opened over
    the editor and closed again, the find bar opened: twice where once would do); Textual's footer
    rebuilt its dozen keys, each styled, every time. The editor's footer keeps them then."""
    from textual.widgets._footer import FooterKey

    from primetui.ui.editor import EditorScreen
    from tests.ui.editor_helpers import host, settle

    app = host(tmp_path, ONLINE_EVAL)
    async with app.run_test(size=(120, 30)) as pilot:
        editor = await settle(pilot)
        keys = list(editor.query(FooterKey))
        shown = [(k.key, k.description, k.disabled) for k in keys]
        assert shown, "the footer shows keys"
        await pilot.press("f1")  # the key help, over the editor
        await until(pilot, lambda: app.screen is not editor, "the key help shown")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen), "the editor back")
        await quiet(pilot)
        assert [(k.key, k.description, k.disabled) for k in editor.query(FooterKey)] == shown
        assert list(editor.query(FooterKey)) == keys, "the footer was rebuilt for the same keys"
