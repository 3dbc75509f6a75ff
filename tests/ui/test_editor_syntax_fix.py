"""The editor's view of the syntax corners (issue 18 item 14): a BOM is named and F4 strips it;
an unclosed array is marked on its bracket."""

from __future__ import annotations

from editor_helpers import host, settle

from primetui.sft.templates import WALKTHROUGH


async def test_bom_is_named_and_f4_strips_it(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_bytes(b"\xef\xbb\xbf" + WALKTHROUGH.encode())
    app = host(tmp_path, None)
    async with app.run_test(size=(120, 30)) as pilot:
        ed = await settle(pilot)
        [d] = ed.diagnostics
        assert "byte-order mark" in d.message and d.fix is not None
        ed.area.cursor_location = (0, 0)
        await pilot.press("f4")
        ed = await settle(pilot)
        assert ed.text == WALKTHROUGH and ed.diagnostics == []


async def test_unclosed_array_is_marked_on_its_bracket(tmp_path):
    app = host(tmp_path, 'max_steps = 10\nfoo = [1, 2\n\n[model]\nname = "x"\n')
    async with app.run_test(size=(120, 30)) as pilot:
        ed = await settle(pilot)
        [d] = ed.diagnostics
        assert (d.span.line, d.span.col) == (1, 6)
        assert ed.area.diagnostics_at_line(1) == [d]
