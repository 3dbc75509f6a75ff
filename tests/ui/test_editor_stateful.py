"""The editor under random sequences of what a user does (issue 43 deliverable 2): typing and
deleting, moving and selecting, pastes (bracketed, as the terminal delivers them, over a selection
or not, small or big enough to give the file a scrollbar), undo and redo, find/replace (one match
or all) and quick fixes, all through the real editor screen in a Pilot app.

After every step: no exception ended the app, the editor is still the screen shown, and both ends
of the selection are inside the document. At the end, undo back to the start gives the file
byte for byte (and the title no longer says modified).

A hypothesis RuleBasedStateMachine drives one app per example on an event loop of its own; the
examples are derandomized, so every machine runs the same ones.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest
from editor_helpers import host, settle
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from textual import events
from textual._xterm_parser import XTermParser
from textual.widgets import Input

from primetui.ui.editor import EditorScreen
from tests.waiting import POLL, input_applied, until

pytestmark = pytest.mark.timeout(600)

# short enough to have no scrollbar at 40 rows; problems with one quick fix and with two
SEED = """max_steps = 100

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[deployment]
num_gpus = 2

[scheduler]
warmup_steps = 5

[optim]
lr = 1e-5

[data]
batch_size = 0

[ckpt]
"""

EDIT_KEYS = [
    *"ab=1",
    "space",
    "quotation_mark",
    "left_square_bracket",
    "enter",
    "backspace",
    "delete",
    "tab",
    "shift+tab",
    "ctrl+underscore",
]
MOVE_KEYS = [
    "left",
    "right",
    "up",
    "down",
    "home",
    "end",
    "shift+right",
    "shift+down",
    "shift+left",
    "ctrl+home",
    "ctrl+end",
]
LINES = st.text(alphabet=st.sampled_from(list('abz_=1 .[]"#')), max_size=24)


def paste_event(text: str) -> events.Paste:
    """What Textual's input parser makes of a terminal's bracketed paste of ``text``."""
    (event,) = XTermParser().feed(f"\x1b[200~{text}\x1b[201~")
    assert isinstance(event, events.Paste)
    return event


class EditorMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.tmp = Path(tempfile.mkdtemp(prefix="editor-machine-"))
        self.app = host(self.tmp, SEED)
        self.calls: asyncio.Queue = asyncio.Queue()
        self.session = self.loop.create_task(self._session())
        self.editor: EditorScreen = self._run(lambda: settle(self.pilot))
        self.most_batches = 0

    async def _session(self) -> None:
        """The app's whole life in one task: Textual keeps its context variables per task, so each
        step runs in a child of this one (handed over through ``calls``), which inherits them."""
        async with self.app.run_test(size=(100, 40)) as pilot:
            self.pilot = pilot
            while (call := await self.calls.get()) is not None:
                step, done = call
                task = asyncio.ensure_future(step())
                # the step ends, or an exception ends the app under it (its waits would then hang)
                while not task.done() and self.app.return_code is None:
                    await asyncio.wait({task}, timeout=POLL)
                if not task.done():
                    task.cancel()
                    done.set_exception(AssertionError("the app ended during this step"))
                elif task.exception() is not None:
                    done.set_exception(task.exception())
                else:
                    done.set_result(task.result())

    def _run(self, step):
        """Run ``step()`` (a coroutine function) in the app's task; its result. If an exception
        ended the app, that exception is raised here."""
        done = self.loop.create_future()
        self.calls.put_nowait((step, done))
        self.loop.run_until_complete(asyncio.wait({done, self.session}, return_when=asyncio.FIRST_COMPLETED))
        if self.app.return_code is not None and not self.session.done():
            self.calls.put_nowait(None)
            self.loop.run_until_complete(asyncio.wait({self.session}))
        if self.session.done():
            self.session.result()  # run_test re-raises what ended the app
            raise AssertionError("the app ended")
        return done.result()

    @property
    def area(self):
        return self.editor.area

    async def _keys(self, *keys: str) -> None:
        for key in keys:
            await self.pilot.press(key)
        await input_applied(self.pilot)

    # -- rules -----------------------------------------------------------------------------------
    @rule(keys=st.lists(st.sampled_from(EDIT_KEYS + MOVE_KEYS), min_size=1, max_size=3))
    def press(self, keys):
        self._run(lambda: self._keys(*keys))

    @rule(row=st.integers(0, 400), col=st.integers(0, 40), span=st.integers(0, 3))
    def select(self, row, col, span):
        doc = self.area.document
        start = (min(row, doc.line_count - 1), 0)
        start = (start[0], min(col, len(doc.get_line(start[0]))))
        self.area.selection = type(self.area.selection)(start, self.area.clamp_visitable((start[0] + span, col)))

    @rule(lines=st.lists(LINES, min_size=1, max_size=60), end_newline=st.booleans(), at_end=st.booleans())
    def paste(self, lines, end_newline, at_end):
        if at_end:
            self.area.cursor_location = self.area.document.end
        text = "\n".join(lines) + ("\n" if end_newline else "")
        self.app.post_message(paste_event(text))  # as the driver posts it: the app hands it to the focused area
        self._run(lambda: input_applied(self.pilot))

    @rule(times=st.integers(1, 3))
    def undo(self, times):
        self._run(lambda: self._keys(*["ctrl+z"] * times))

    @rule(times=st.integers(1, 3))
    def redo(self, times):
        self._run(lambda: self._keys(*["ctrl+y"] * times))

    @rule(
        needle=st.sampled_from(["=", "1", "a", "[", "num_gpus", "\\d+", "^"]),
        replacement=st.sampled_from(["", "x", "==", "\\n"]),
        regex=st.booleans(),
        every=st.booleans(),
    )
    def find_replace(self, needle, replacement, regex, every):
        async def go() -> None:
            await self._keys("ctrl+h")
            bar = self.editor.findbar
            bar.regex = regex
            bar.query_one("#find-text", Input).value = needle
            field = bar.query_one("#find-replace", Input)
            field.value = replacement
            field.focus()
            await input_applied(self.pilot)
            await self._keys("alt+a" if every else "enter")
            await self._keys("escape")  # closes the bar; the text has the focus again
            await until(self.pilot, lambda: self.area.has_focus, "the text area to have the focus back")

        self._run(go)

    @rule(pick=st.integers(0, 10), choice=st.integers(0, 2))
    def quick_fix(self, pick, choice):
        async def go() -> None:
            await settle(self.pilot)  # the diagnostics belong to this text
            fixable = [d for d in self.editor.diagnostics if d.fix is not None]
            if not fixable:
                return
            d = fixable[pick % len(fixable)]
            self.area.cursor_location = (d.span.line, d.span.col)
            await self._keys("f4")
            if self.app.screen is not self.editor:  # more than one fix: the picker
                await self._keys(*["down"] * (choice % len(d.fixes)), "enter")
            await until(
                self.pilot,
                lambda: self.app.screen is self.editor and self.area.has_focus,
                "the editor back with the text focused after the fix",
            )

        self._run(go)

    # -- invariants -------------------------------------------------------------------------------
    @invariant()
    def still_up_and_cursor_inside(self):
        assert self.app.return_code is None, "the app ended"
        assert self.app.screen is self.editor
        doc = self.area.document
        for row, col in self.area.selection:
            assert 0 <= row < doc.line_count, (row, doc.line_count)
            assert 0 <= col <= len(doc.get_line(row)), (row, col, doc.get_line(row))
        self.most_batches = max(self.most_batches, len(self.area.history.undo_stack))

    def teardown(self) -> None:
        try:
            if not self.session.done():
                assert self.most_batches < self.area.history.max_checkpoints, "more steps than undo keeps"

                async def undo_all() -> None:
                    while self.area.history.undo_stack:
                        await self._keys("ctrl+z")
                    await settle(self.pilot)

                self._run(undo_all)
                assert self.editor.text == SEED  # byte for byte
                assert "modified" not in str(self.editor.query_one("#editor-title").render())
                assert (self.tmp / "sft.toml").read_text() == SEED  # nothing was saved
        finally:
            try:
                if not self.session.done():  # (when done, the step it ended under raised its exception)
                    self.calls.put_nowait(None)
                    self.loop.run_until_complete(self.session)  # re-raises what ended the app, if anything did
            finally:
                self.loop.close()
                shutil.rmtree(self.tmp, ignore_errors=True)  # each example's folder goes with it


TestEditorMachine = EditorMachine.TestCase
TestEditorMachine.settings = settings(
    max_examples=8,
    stateful_step_count=12,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
