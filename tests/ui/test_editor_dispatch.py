"""Dispatch from the editor to a run on a real local platform, and a refusal mapped back to its line."""

from __future__ import annotations

from primetui.sft.templates import WALKTHROUGH

from editor_helpers import EditorHost, dispatched, idle, open_dispatch, pick_volume, settle
from tests.waiting import quiet, until


async def test_dispatch_lands_on_a_new_run(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        ed = await settle(pilot)
        await idle(pilot)
        assert ed.cached_models and "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" in ed.cached_models
        screen = await open_dispatch(pilot)
        preflight = await pick_volume(pilot, screen, "research")
        for line in (
            "✓ Volume   research is CREATED",
            "✓ Sessions no read-write session is open",
            "✓ Model    PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT is in the cluster model cache",
            "✓ Space    1 checkpoint(s) × 7.2 GB = 7.2 GB of 107.4 GB",
            "✓ Config   no errors",
        ):
            assert line in preflight, preflight
        run_id = await dispatched(pilot)
        assert isinstance(run_id, str), run_id
    run = await client.get_run(run_id)
    assert run.volume_name == "research" and run.base_model == "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
    assert run.run_config["data"]["name"] == "datasets/reverse-text"
    await client.stop_run(run_id)


async def test_refused_dispatch_is_shown_on_the_line_it_names(tmp_path, client):
    path = tmp_path / "sft.toml"
    # A path the pre-flight does not look at (its Data line blocks an outside data.name before dispatch).
    path.write_text(WALKTHROUGH.replace("keep_last = 1\n", 'keep_last = 1\noutput_dir = "../../outside"\n', 1))
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        ed = await settle(pilot)
        screen = await open_dispatch(pilot)
        await pick_volume(pilot, screen, "research")
        await pilot.press("d")
        server = await until(
            pilot,
            lambda: app.screen is ed and [d for d in ed.diagnostics if d.source == "platform"],
            "the platform's refusal shown in the editor",
        )
        assert app.result == "open"
        server = [d for d in server if d.code == "server-400"]
        assert len(server) == 1 and "points outside the volume" in server[0].message
        assert (server[0].span.line, server[0].span.col) == (5, 13)  # the ckpt.output_dir value
        assert ed.area.cursor_location == (5, 13)
        assert "Dispatch refused" in ed.note


async def test_preflight_blocks_an_uncached_model(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(
        WALKTHROUGH.replace("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "Qwen/Qwen3-8B").replace(
            'name = "prime-qwen3"', 'name = "qwen3"'
        )
    )
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        ed = await settle(pilot)
        await idle(pilot)
        assert [d.code for d in ed.diagnostics if d.level == "error"] == ["model-cache"]
        screen = await open_dispatch(pilot)
        preflight = await pick_volume(pilot, screen, "research")
        assert "✗ Model    Model 'Qwen/Qwen3-8B' is not available on this cluster." in preflight
        await pilot.press("d")
        await quiet(pilot)
        assert app.screen is screen and "fix them first" in str(screen.query_one("#dispatch-status").render())


async def test_preflight_blocks_a_data_name_outside_the_volume(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH.replace('name = "datasets/reverse-text"', 'name = "../../outside"'))
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot)
        screen = await open_dispatch(pilot)
        preflight = await pick_volume(pilot, screen, "research")
        assert "✗ Data     data.name '../../outside' points outside the volume" in preflight, preflight
        assert screen.preflight.blocked
