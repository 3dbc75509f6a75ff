"""Pilot tests for every log-view action, with deterministic lines fed straight into the pane."""

from __future__ import annotations


from tests.runs import wire_run
from tests.ui.dash_helpers import notifications
from primetui.ui.monitor import LogsPane
from primetui.ui.monitor.logview import LogView
from tests.ui.monitor_helpers import PaneApp, prime_rl_lines, screen_text
from tests.waiting import input_applied, quiet, until

EVAL_RUN = wire_run(id="run-eval", status="RUNNING", runConfig={"eval": {"source": [{"name": "reverse-text"}]}})
TRAINER_RUN = wire_run(id="run-plain", status="RUNNING", runConfig={})
ERROR_BLOCK = [
    "20:36:00   ERROR Trainer failed with exit code 1",
    "Traceback (most recent call last):",
    '  File "train.py", line 607, in train',
    "RuntimeError: CUDA out of memory",
]


def pane_app(run=TRAINER_RUN) -> PaneApp:
    return PaneApp(lambda: LogsPane(None, run, follow=False))


def trainer_view(app) -> LogView:
    return app.query_one(LogsPane).tabs["trainer"].view


async def ask(pilot, key: str, value: str) -> None:
    """Open a prompt with ``key``, type ``value`` into it and submit."""
    await pilot.press(key)
    pilot.app.query_one("LogTab Input.-open").value = value
    await pilot.press("enter")
    await input_applied(pilot)  # the prompt's value applied to the view


async def test_a_tab_per_component_plus_the_merged_view():
    app = pane_app(EVAL_RUN)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(LogsPane)
        pane.ingest("trainer", ["10:00:01    INFO trainer up", "10:00:03    INFO trainer step"])
        pane.ingest("inference", ["10:00:02    INFO inference up"])
        pane.ingest("env-reverse-text", ["10:00:04    INFO env scored"])
        tabs = ("trainer", "orchestrator", "inference", "env:reverse-text", "all")
        await until(pilot, lambda: all(tab in screen_text(app).splitlines()[0] for tab in tabs), "a tab per component")
        text = screen_text(app)
        for tab in tabs:
            assert tab in text.splitlines()[0]
        pane.query_one("TabbedContent").active = "log-all"
        await quiet(pilot)
        lines = [l for l in screen_text(app).splitlines() if "│ 10:00" in l]
        assert [l.split("│")[0].strip() for l in lines] == ["trainer", "inference", "trainer", "env:reverse-text"]


async def test_follow_sticks_only_at_the_bottom_and_counts_new_lines():
    app = pane_app()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(50))
        await quiet(pilot)
        assert view.at_bottom and view.following
        await pilot.press("up", "pageup", "pageup")
        await input_applied(pilot)
        assert not view.following
        top = view.scroll_offset.y
        pane.ingest("trainer", prime_rl_lines(5, start=51))
        await quiet(pilot)
        assert view.scroll_offset.y == top  # reading older lines: the view holds still
        assert view.new_lines == 10
        assert "↓ 10 new lines" in screen_text(app)
        await pilot.press("end")
        await input_applied(pilot)
        assert view.at_bottom and view.new_lines == 0
        pane.ingest("trainer", prime_rl_lines(5, start=56))
        await quiet(pilot)
        assert view.at_bottom  # back at the bottom: follows again


async def test_pause_and_resume():
    app = pane_app()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(30))
        await pilot.pause()
        await pilot.press("space")
        await input_applied(pilot)
        assert view.paused and "paused" in screen_text(app)
        before = view.scroll_offset.y
        pane.ingest("trainer", prime_rl_lines(10, start=31))
        await quiet(pilot)
        assert view.scroll_offset.y == before and view.new_lines == 20
        await pilot.press("space")
        await input_applied(pilot)
        assert not view.paused and view.at_bottom


async def test_search_highlights_every_match_and_moves_between_them():
    app = pane_app()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(40))
        await pilot.pause()
        await ask(pilot, "slash", "checkpoint")
        assert len(view.search_hits) == 8 and view.search_pos == 0
        assert "Saving checkpoint at step 5" in view.row_text(view.pointer)
        await pilot.press("n", "n")
        await input_applied(pilot)
        assert view.search_pos == 2 and "step 15" in view.row_text(view.pointer)
        await pilot.press("N")
        await input_applied(pilot)
        assert view.search_pos == 1
        assert "search 'checkpoint' 2/8" in screen_text(app)
        assert view.row_count == len(view.source)  # search never hides lines


async def test_filter_regex_invert_and_level_are_separate_from_search():
    app = pane_app()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(20) + ERROR_BLOCK)
        await pilot.pause()
        await ask(pilot, "f", "/Step 1\\d /")
        assert view.row_count == 10 and all("Step 1" in view.row_text(r) for r in range(view.row_count))
        await ask(pilot, "f", "!Step")
        assert view.row_count == 24 and not any("Step" in view.row_text(r) for r in range(view.row_count))
        await pilot.press("ctrl+l")
        await input_applied(pilot)
        assert view.row_count == 44
        for _ in range(4):  # all -> DEBUG -> INFO -> WARNING -> ERROR
            await pilot.press("L")
        await input_applied(pilot)
        assert view.row_count == 4 and "≥ERROR" in screen_text(app)  # the whole traceback stays with its error
        pane.ingest("trainer", ["20:40:00    INFO later", "20:40:01   ERROR again"])
        await quiet(pilot)
        assert view.row_count == 5  # live lines pass through the active filter


async def test_bad_regex_says_what_to_do_and_keeps_the_view():
    app = pane_app()
    async with app.run_test(size=(120, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(5))
        await ask(pilot, "f", "/(unclosed/")
        await until(pilot, lambda: "does not compile" in screen_text(app), "the filter's error")
        assert view.row_count == 10


async def test_jump_to_first_next_and_previous_error():
    app = pane_app()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest(
            "trainer",
            prime_rl_lines(30)
            + ERROR_BLOCK
            + prime_rl_lines(30, start=31)
            + ["20:50:00   ERROR second failure"]
            + prime_rl_lines(5, 61),
        )
        await pilot.pause()
        await pilot.press("e")
        await input_applied(pilot)
        assert view.row_text(view.pointer).endswith("Trainer failed with exit code 1")
        await pilot.press("right_square_bracket")
        await input_applied(pilot)
        assert view.row_text(view.pointer).endswith("second failure")
        await pilot.press("left_square_bracket")
        await input_applied(pilot)
        assert view.row_text(view.pointer).endswith("Trainer failed with exit code 1")


async def test_wrap_and_horizontal_scroll_for_long_lines():
    app = pane_app()
    long = "20:00:00    INFO " + "x" * 150 + " END"
    async with app.run_test(size=(80, 12)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", [long])
        await quiet(pilot)
        assert "END" not in screen_text(app)
        await pilot.press(*["right"] * 12)
        await input_applied(pilot)
        assert "END" in screen_text(app)
        await pilot.press("W")
        await quiet(pilot)
        text = screen_text(app)
        assert view.wrap and "END" in text and "20:00:00" in text


async def test_copy_a_line_and_a_range_with_osc52(monkeypatch):
    app = pane_app()
    copied: list[str] = []
    async with app.run_test(size=(100, 20)) as pilot:
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(3))
        await pilot.pause()
        await pilot.press("up", "c")
        await input_applied(pilot)
        assert copied[-1].startswith("20:35:03 SUCCESS Step 3")
        await pilot.press("v", "up", "up", "c")
        await input_applied(pilot)
        assert copied[-1].count("\n") == 2 and copied[-1].splitlines()[0].startswith("20:35:02 SUCCESS Step 2")


async def test_save_a_tab_to_a_file(tmp_path):
    app = pane_app()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = trainer_view(app)
        view.focus()
        pane.ingest("trainer", prime_rl_lines(10) + ERROR_BLOCK)
        await pilot.pause()
        await pilot.press("ctrl+s")
        target = tmp_path / "trainer.log"
        inp = app.query_one("LogTab Input.-open")
        inp.value = str(target)
        await pilot.press("enter")
        await input_applied(pilot)
        assert target.read_text().splitlines()[-1] == "RuntimeError: CUDA out of memory"
        assert len(target.read_text().splitlines()) == 24
        await pilot.press("ctrl+s")
        app.query_one("LogTab Input.-open").value = str(tmp_path / "missing-dir" / "x.log")
        await pilot.press("enter")
        await quiet(pilot)
        assert any("Could not write" in n for n in notifications(app))


async def test_gap_marker_is_shown_never_a_silent_hole():
    app = pane_app()
    async with app.run_test(size=(120, 20)) as pilot:
        pane = app.query_one(LogsPane)
        pane.ingest("trainer", prime_rl_lines(3))
        pane.ingest_gap(
            "trainer", "Some lines are missing here: more arrived between two fetches than one fetch returns."
        )
        pane.ingest("trainer", prime_rl_lines(3, start=40))
        await quiet(pilot)
        assert "── Some lines are missing here" in screen_text(app)


async def test_escape_sequences_in_a_log_line_render_as_plain_text():
    hostile = (
        "20:00:00    INFO \x1b[31mred?\x1b[0m \x1b]0;owned-title\x07 \x1b]52;c;ZXZpbA==\x07 "
        "\x1b[2J\x1b[1;1H\x1b[?1049h \x9b31m \x1bP+q\x1b\\ \u202eright-to-left\x07bell"
    )
    app = pane_app()
    async with app.run_test(size=(200, 10)) as pilot:
        pane = app.query_one(LogsPane)
        pane.ingest("trainer", [hostile])
        await quiet(pilot)
        view = trainer_view(app)
        strips = [view.render_line(y) for y in range(view.size.height)]
        drawn = "".join(seg.text for strip in strips for seg in strip)
        for bad in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert bad not in drawn  # nothing a terminal would interpret reaches it
        assert "␛]0;owned-title␇" in drawn and "␛]52;c;ZXZpbA==␇" in drawn and "␛[2J␛[1;1H␛[?1049h" in drawn
        assert "red?" in drawn and "[31m" not in drawn  # colour codes are dropped, never applied
        # Only the theme styles the line: the log's own red was not applied to "red?".
        red_seg = next(seg for strip in strips for seg in strip if "red?" in seg.text)
        assert red_seg.style is None or red_seg.style.color in (None, view.rich_style.color)
        assert all(seg.control is None for strip in strips for seg in strip)


async def test_escape_closes_a_prompt_without_leaving_and_otherwise_reaches_the_screen():
    from textual.app import App
    from textual.binding import Binding
    from textual.screen import Screen

    class Host(Screen):
        BINDINGS = [Binding("escape", "left", "Back")]
        left = False

        def compose(self):
            yield LogsPane(None, TRAINER_RUN, follow=False)

        def action_left(self) -> None:
            self.left = True

    class A(App):
        def on_mount(self) -> None:
            self.push_screen(Host())

    app = A()
    async with app.run_test(size=(100, 20)) as pilot:
        screen = app.screen
        view = screen.query_one(LogsPane).tabs["trainer"].view
        view.focus()
        await pilot.press("slash")
        await input_applied(pilot)
        assert len(screen.query("LogTab Input.-open")) == 1
        await pilot.press("escape")
        await input_applied(pilot)
        assert not screen.left and len(screen.query("LogTab Input.-open")) == 0 and view.has_focus
        await pilot.press("escape")
        await input_applied(pilot)
        assert screen.left


async def test_typing_a_query_never_fires_the_screens_letter_keys():
    from textual.app import App
    from textual.binding import Binding
    from textual.screen import Screen

    class Host(Screen):
        BINDINGS = [Binding("x", "stop_run", "Stop"), Binding("d", "delete_run", "Delete")]
        fired: list[str] = []

        def compose(self):
            yield LogsPane(None, TRAINER_RUN, follow=False)

        def action_stop_run(self) -> None:
            self.fired.append("stop")

        def action_delete_run(self) -> None:
            self.fired.append("delete")

    class A(App):
        def on_mount(self) -> None:
            self.push_screen(Host())

    app = A()
    async with app.run_test(size=(100, 20)) as pilot:
        screen = app.screen
        pane = screen.query_one(LogsPane)
        pane.ingest("trainer", ["20:00:00    INFO index xd", "20:00:01    INFO other"])
        view = pane.tabs["trainer"].view
        view.focus()
        await pilot.press("slash", "x", "d", "enter")
        await input_applied(pilot)
        assert screen.fired == [] and len(view.search_hits) == 1
