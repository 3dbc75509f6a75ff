"""Precision in the editor: a variant key offers its fixes on F4, and the chosen one clears the error."""

from __future__ import annotations

from editor_helpers import host, settle

from tests.waiting import quiet, until


async def test_f4_on_a_variant_key_offers_switch_or_remove(tmp_path):
    app = host(tmp_path, 'max_steps = 100\n[ckpt]\n[scheduler]\ntype = "cosine"\ndecay_steps = 5\n')
    async with app.run_test(size=(120, 30)) as pilot:
        ed = await settle(pilot)
        assert [d.code for d in ed.diagnostics if d.level == "error"] == ["variant-key"]
        ed.area.cursor_location = (4, 2)
        await quiet(pilot)
        assert "belongs to the `linear` variant" in str(ed.query_one("#editor-message").render())
        await pilot.press("f4")
        await until(pilot, lambda: type(app.screen).__name__ == "CompletionPicker", "the fix list")
        options = app.screen.query_one("#completion-list")
        titles = [str(options.get_option_at_index(i).prompt).strip() for i in range(options.option_count)]
        assert titles == ['Switch [scheduler] to type = "linear"', "Remove decay_steps"]
        await pilot.press("down", "enter")
        await until(pilot, lambda: "decay_steps" not in ed.text, "the key removed")
        ed = await settle(pilot)
        assert [d for d in ed.diagnostics if d.level == "error"] == []


async def test_a_key_in_the_wrong_table_moves_with_f4(tmp_path):
    app = host(tmp_path, '[ckpt]\n[renderer]\nname = "qwen3"\nmax_steps = 20\n')
    async with app.run_test(size=(120, 30)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (3, 1)
        await pilot.press("f4")
        await until(pilot, lambda: ed.text.startswith("max_steps = 20\n[ckpt]"), "max_steps moved to the top")
        ed = await settle(pilot)
        assert [d for d in ed.diagnostics if d.level == "error"] == []
