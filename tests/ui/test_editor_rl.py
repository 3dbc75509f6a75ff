"""The editor on an rl.toml: RL problems inline on their key, the RL template, F1 help, and the RL pre-flight
and dispatch against a real local platform."""

from __future__ import annotations

from primetui.sft.templates import RL_REVERSE_TEXT, TEMPLATES

from editor_helpers import EditorHost, dispatched, host, idle, open_dispatch, pick_volume, settle
from tests.waiting import input_applied, quiet, until

BAD = RL_REVERSE_TEXT.replace("batch_size = 128", "batch_size = 100").replace(
    'id = "reverse-text"', 'id = "primeintellect/no-such-env"'
)


def _title(ed) -> str:
    return str(ed.query_one("#editor-title").render())


async def test_rl_problems_are_shown_inline_on_their_keys(tmp_path):
    app = host(tmp_path, BAD)
    async with app.run_test(size=(120, 40)) as pilot:
        ed = await settle(pilot)
        lines = BAD.split("\n")
        shown = {(d.level, d.span.line, d.span.col): d.message for d in ed.diagnostics}
        batch, taskset = lines.index("batch_size = 100"), lines.index('id = "primeintellect/no-such-env"')
        assert shown[("error", batch, 13)].startswith(
            "Batch size must be divisible by the number of samples per problem"
        )
        assert shown[("warning", taskset, 5)].startswith("taskset 'primeintellect/no-such-env' not found")
        assert len(shown) == 2
        assert " rl.toml editor " in _title(ed) and "1 error(s) · 1 warning(s)" in _title(ed)
        assert [d.span.line for d in ed.area.diagnostics_at_line(batch)] == [batch]  # drawn in the text area
        await pilot.press("f8")  # next problem: the cursor lands on the error's value
        await input_applied(pilot)
        assert ed.area.cursor_location == (batch, 13)


async def test_the_rl_template_is_offered_and_validates_clean(tmp_path):
    app = host(tmp_path, None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        picker = await until(
            pilot,
            lambda: type(pilot.app.screen).__name__ == "TemplatePicker" and pilot.app.screen,
            "the template picker",
        )
        listing = picker.query_one("#template-list")
        listing.highlighted = [t.key for t in TEMPLATES].index("rl-reverse-text")
        await pilot.press("enter")
        ed = await settle(pilot)
        assert ed.text == RL_REVERSE_TEXT and ed.diagnostics == []
        assert " rl.toml editor " in _title(ed)
        ed.area.cursor_location = (RL_REVERSE_TEXT.split("\n").index("group_size = 16"), 2)
        await pilot.press("f1")
        await quiet(pilot)
        body = str(app.screen.query_one("#help-body").render())
        assert "Output sequences returned per example during training." in body and "range: >= 1" in body


async def test_rl_preflight_and_dispatch(tmp_path, client):
    path = tmp_path / "rl.toml"
    path.write_text(RL_REVERSE_TEXT)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(120, 36)) as pilot:
        ed = await settle(pilot)
        await idle(pilot)
        screen = await open_dispatch(pilot)
        assert "Pick the volume the run writes its checkpoints to:" in [str(s.render()) for s in screen.query("Static")]
        preflight = await pick_volume(pilot, screen, "research")
        for line in (
            "✓ Model    PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT is in the cluster model cache",
            "✓ Taskset  reverse-text: known to the platform",
            "✓ Batch    128 rollouts a step = 8 prompts × 16 completions",
            "✓ GPUs     1 inference GPU(s) with [inference]",
            "✓ Config   no errors",
        ):
            assert line in preflight, preflight
        assert "Data" not in preflight  # an RL run reads no dataset from the volume
        run_id = await dispatched(pilot)
        assert isinstance(run_id, str), run_id
    run = await client.get_run(run_id)
    assert run.run_config["orchestrator"]["group_size"] == 16 and "data" not in run.run_config
    await client.stop_run(run_id)
    assert ed.config_kind == "rl"


async def test_rl_preflight_blocks_an_unknown_taskset_a_bad_batch_and_no_inference(tmp_path, client):
    path = tmp_path / "rl.toml"
    path.write_text(BAD.replace("[inference]\n", ""))
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await open_dispatch(pilot)
        preflight = await pick_volume(pilot, screen, "research")
        for line in (
            "✗ Taskset  primeintellect/no-such-env is not a taskset this platform runs (it has reverse-text)",
            "✗ Batch    batch_size 100 does not divide by group_size 16 — use 96 or 112.",
            "✗ GPUs     Hosted RL runs need inference GPUs",
        ):
            assert line in preflight, preflight
        assert screen.preflight.blocked
        await pilot.press("d")
        await quiet(pilot)
        assert app.screen is screen and "fix them first" in str(screen.query_one("#dispatch-status").render())


async def test_f4_renames_an_old_rl_key_and_completion_offers_rl_keys(tmp_path):
    from primetui.ui.editor.modals import CompletionPicker

    old = RL_REVERSE_TEXT.replace("group_size = 16", "rollouts_per_example = 16")
    app = host(tmp_path, old)
    async with app.run_test(size=(120, 36)) as pilot:
        ed = await settle(pilot)
        line = old.split("\n").index("rollouts_per_example = 16")
        assert [(d.code, d.span.line) for d in ed.diagnostics] == [("renamed-key", line)]
        ed.area.cursor_location = (line, 2)
        await pilot.press("f4")
        await until(pilot, lambda: "group_size = 16" in ed.text, "rollouts_per_example renamed to group_size")
        ed = await settle(pilot)
        assert ed.text == RL_REVERSE_TEXT and ed.diagnostics == []
        ed.area.cursor_location = (line + 1, 0)
        await pilot.press("enter", *"max_off")
        await pilot.press("ctrl+space")  # one candidate under [orchestrator]: inserted at once
        await until(pilot, lambda: "\nmax_off_policy_steps\n" in ed.text, "max_off_policy_steps completed")
        assert not isinstance(app.screen, CompletionPicker)
