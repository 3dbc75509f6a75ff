"""The preferences file keeps only choices: a watch does not pin the theme, so the terminal is detected
on each start until the user picks one; NO_COLOR sends no colour at all."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import Monochrome, NoColor

from primetui.config.prefs import Prefs, load_prefs
from primetui.ui.app import PrimeApp
from primetui.ui.terminal_colours import pick_default_theme
from primetui.ui.themes import shipped_theme_dir


def app_with(prefs: Prefs, prefs_file) -> PrimeApp:  # noqa: ANN001
    return PrimeApp(None, None, prefs, poll_scale=0, prefs_file=prefs_file, theme_dirs=[shipped_theme_dir()])


async def test_a_watch_saves_no_theme_and_the_linux_console_is_detected_next_start(tmp_path, monkeypatch):
    prefs_file = tmp_path / "config.toml"
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    app = app_with(Prefs(), prefs_file)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.theme == "primetui-dark"
        app.watch_run("r1")  # what `w` does
        await pilot.pause()
    kept, problem = load_prefs(prefs_file)
    assert problem is None and kept.watched == ["r1"]
    assert kept.theme == "", "a watch pinned the detected theme"
    monkeypatch.setenv("TERM", "linux")
    again = app_with(kept, prefs_file)
    async with again.run_test(size=(100, 30)):
        assert again.theme == "primetui-ansi"


async def test_a_theme_the_user_picks_is_kept_and_beats_detection(tmp_path, monkeypatch):
    prefs_file = tmp_path / "config.toml"
    monkeypatch.setenv("TERM", "linux")
    app = app_with(Prefs(), prefs_file)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.theme == "primetui-ansi"
        await pilot.press("t")  # next theme: the user's choice
        await pilot.pause()
        chosen = app.theme
    assert chosen != "primetui-ansi"
    kept, _ = load_prefs(prefs_file)
    assert kept.theme == chosen
    again = app_with(kept, prefs_file)
    async with again.run_test(size=(100, 30)):
        assert again.theme == chosen


def test_detection_reads_term_colorterm_and_no_color():
    assert pick_default_theme({"TERM": "linux"}) == "primetui-ansi"
    assert pick_default_theme({"TERM": "xterm-16color"}) == "primetui-ansi"
    assert pick_default_theme({"TERM": "xterm-256color", "NO_COLOR": ""}) == "primetui-ansi"
    assert pick_default_theme({"TERM": "xterm-256color"}) == "primetui-dark"
    assert pick_default_theme({"TERM": "vt100", "COLORTERM": "truecolor"}) == "primetui-dark"


async def test_no_color_sends_no_colour_codes_not_even_greys(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    app = PrimeApp(None, None, Prefs(theme="primetui-dark"), poll_scale=0, theme_dirs=[shipped_theme_dir()])
    assert not any(isinstance(f, Monochrome) for f in app._filters)
    assert any(isinstance(f, NoColor) for f in app._filters)
    segments = [Segment("loss", Style(color="#ff8800", bgcolor="grey23", bold=True))]
    for line_filter in app._filters:
        segments = line_filter.apply(segments, Color(0, 0, 0))
    style = segments[0].style
    assert style.bold and (style.color is None or style.color.is_default)
    assert style.bgcolor is None or style.bgcolor.is_default
    rendered = style.render("x")
    assert "38;" not in rendered and "48;" not in rendered, rendered
