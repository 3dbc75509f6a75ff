"""A closed editor is released, with every document it built.

Each syntax-aware document (two per editor opened, each holding the whole file's lines) used to
stay in memory for good: Textual passes tree-sitter the document's bound ``_read_callable``, the
Tree keeps it as its source, and a tree-sitter Tree takes no part in garbage collection, so the
cycle document -> tree -> bound method -> document was never collected. Checked with weak
references after a collection, in the dashboard on the real local platform, with edits typed (each
one a re-parse) before every close.
"""

from __future__ import annotations

import weakref

import pytest
from dash_helpers import make_app
from textual.document._document import Document
from tests.memory import live, released, report_alive
from tests.waiting import quiet, until

from primetui.sft.templates import WALKTHROUGH
from primetui.ui.editor import EditorScreen

pytestmark = [pytest.mark.timeout(180)]

CYCLES = 2
"""A leaking editor keeps its own documents (with the weak reader replaced by the bound method, 2 of 2
documents of one closed editor stay alive), so one close shows it; the second is an editor opened after
another closed. A cycle costs about 1.7 CPU seconds alone, 4 in the full suite (4 cycles were 16.5 s)."""


async def test_editors_opened_edited_and_closed_keep_no_document_alive(local_platform, tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_DRAFTS_DIR", str(tmp_path / "drafts"))
    path = tmp_path / "sft.toml"
    path.write_text(WALKTHROUGH)
    app = make_app(local_platform)
    screens: list[weakref.ref] = []
    documents: list[weakref.ref] = []
    # documents of earlier tests in this worker process are theirs to answer for
    earlier = weakref.WeakSet(live(Document))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "the runs list")
        for _ in range(CYCLES):
            app.open_editor(path)
            await until(
                pilot,
                lambda: isinstance(app.screen, EditorScreen) and app.screen.validated,
                "the editor, its text validated",
            )
            await pilot.press("end", "#", "x")  # two edits, each a re-parse with the tree's source
            await until(pilot, lambda: app.screen.text != WALKTHROUGH and app.screen.validated, "the edits validated")
            built = [d for d in live(Document) if d not in earlier]
            documents += [weakref.ref(d) for d in built]
            earlier.update(built)
            del built
            screens.append(weakref.ref(app.screen))
            await pilot.press("ctrl+z", "ctrl+z")  # back to the file's text: Esc then closes at once
            await until(pilot, lambda: app.screen.text == WALKTHROUGH, "the edits undone")
            await quiet(pilot)
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, EditorScreen), "the editor closed")
        assert documents, "no document seen while the editors were open"
        # Only a condition: what winds down after a close (a check in flight, its timers) may take
        # a moment; a cycle that is never collected, or a long-lived holder, never lets go.
        try:
            await until(
                pilot,
                lambda: released(screens) and released(documents),
                "every closed editor and each of its documents to be released",
                timeout=30,
            )
        except AssertionError as exc:
            alive = sum(ref() is not None for ref in documents)
            raise AssertionError(
                f"{exc}; {alive} of {len(documents)} documents of {CYCLES} closed editors "
                f"still alive; held by: {report_alive(screens + documents)}"
            ) from None
