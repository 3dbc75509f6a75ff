"""Run names: the editor's dispatch dialog sends the name typed in it (it starts as the file's ``name``)."""

from __future__ import annotations

import pytest

from primetui.sft.templates import WALKTHROUGH

from editor_helpers import EditorHost, dispatched, idle, open_dispatch, pick_volume, settle

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


async def _dispatch_with_name(pilot, typed: str | None) -> tuple[str, object]:
    """Open the dialog, type ``typed`` as the name (None: keep it), dispatch; the name the dialog
    started with, and what the editor closed with (the run id)."""
    screen = await open_dispatch(pilot)
    name_box = screen.query_one("#run-name")
    started_with = name_box.value
    if typed is not None:
        name_box.value = typed
    await pick_volume(pilot, screen, "research")
    return started_with, await dispatched(pilot)


async def test_the_name_typed_in_the_dialog_names_the_run(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot)
        _, run_id = await _dispatch_with_name(pilot, "lr-sweep-a")
        assert isinstance(run_id, str) and run_id
    run = await client.get_run(run_id)
    assert run.name == "lr-sweep-a"
    await client.stop_run(run_id)


async def test_the_file_name_is_the_dialog_default_and_is_not_a_schema_error(tmp_path, client):
    path = tmp_path / "sft.toml"
    path.write_text('name = "from-the-file"\n' + WALKTHROUGH)
    app = EditorHost(path, client=client, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(110, 32)) as pilot:
        ed = await settle(pilot)
        await idle(pilot)
        assert not [d for d in ed.report.diagnostics if d.level == "error"], ed.report.diagnostics
        started_with, run_id = await _dispatch_with_name(pilot, None)
        assert started_with == "from-the-file"
        assert isinstance(run_id, str) and run_id
    run = await client.get_run(run_id)
    assert run.name == "from-the-file" and run.run_config["name"] == "from-the-file"
    await client.stop_run(run_id)
