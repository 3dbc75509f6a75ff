"""Undo after a big paste (issue 43 finding 1): the app stays up and the text comes back exactly.

Undoing a paste that gave a short file its scrollbar restored the short text before the cursor, and
Textual then scrolled to a cursor row that no longer existed: ``ValueError: The document line index
.. is out of bounds`` ended the app (Textual issue #6686; the fix is carried in DiagnosticTextArea).
The paste here is the bytes a terminal sends for a bracketed paste, run through Textual's own input
parser, so the editor gets the Paste event the real terminal path delivers.
"""

from __future__ import annotations

import pytest
from editor_helpers import host, settle
from textual import events
from textual._xterm_parser import XTermParser

FILE = "".join(f"# line {i}\n" for i in range(26))  # fits the editor at 40 rows: no scrollbar yet


def pasted_lines(count: int) -> str:
    return "".join(f"key_{i} = {i}\n" for i in range(count))


def bracketed_paste(text: str) -> events.Paste:
    """The one Paste event Textual's input parser makes of a bracketed paste's bytes."""
    parsed = list(XTermParser().feed(f"\x1b[200~{text}\x1b[201~"))
    assert [type(m) for m in parsed] == [events.Paste]
    return parsed[0]


@pytest.mark.parametrize("count", [40, 2_000])
async def test_undo_and_redo_of_a_big_paste_at_the_end_of_the_file(tmp_path, count):
    app = host(tmp_path, FILE)
    async with app.run_test(size=(100, 40)) as pilot:
        ed = await settle(pilot)
        end = ed.area.document.end
        ed.area.cursor_location = end
        paste = bracketed_paste(pasted_lines(count))
        app.post_message(paste)  # as the driver posts what it parsed: the app hands it to the focused area
        ed = await settle(pilot)
        assert ed.text == FILE + pasted_lines(count)
        assert ed.area.show_vertical_scrollbar  # the paste gave the file its scrollbar

        await pilot.press("ctrl+z")
        ed = await settle(pilot)
        assert ed.text == FILE  # byte for byte
        assert not ed.modified and "modified" not in str(ed.query_one("#editor-title").render())
        assert ed.area.cursor_location == end
        assert not ed.area.show_vertical_scrollbar

        await pilot.press("ctrl+y")
        ed = await settle(pilot)
        assert ed.text == FILE + pasted_lines(count)
        await pilot.press("ctrl+z")
        ed = await settle(pilot)
        assert ed.text == FILE
        assert app.screen is ed and app.return_value is None  # still open, nothing ended the app
