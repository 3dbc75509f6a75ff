"""primetui.ui.textual_fixes: a widget whose content is replaced twice with a layout of the screen in
between takes its new content's height (the run screen's summary once stayed one row high), and a
callback posted with ``call_later`` gets the arguments it takes without a signature read per call, and
CSS parsed once in a process serves every later stylesheet of the same theme."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.color import Color
from textual.widgets import Static

from primetui.ui import textual_fixes
from tests.waiting import quiet, until

TEN_ROWS = "\n".join(f"row {i}" for i in range(10))


class Load(Message):
    """Show "loading", let the screen lay out, then show the run: all before the summary idles."""


class Summary(Static):
    async def on_load(self, _: Load) -> None:
        self.update("Loading run r1…")
        below = self.app.query_one("#below", Static)
        below.update("below\nand more")  # a sibling grows: the next layout re-arranges both
        while below.size.height != 2:  # that layout has run, measuring this one's loading line
            await asyncio.sleep(0.01)
        self.update(TEN_ROWS)


class Overview(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Summary("Loading run…", id="summary")
            yield Static("below", id="below")


async def test_content_replaced_around_a_layout_gets_its_new_height() -> None:
    textual_fixes.install()  # as PrimeApp does before it starts
    app = Overview()
    async with app.run_test(size=(80, 30)) as pilot:
        summary = app.query_one("#summary", Summary)
        await until(pilot, lambda: summary.size.height == 1, "the first layout")
        summary.post_message(Load())
        await until(pilot, lambda: summary.size.height == 10, "the summary to take its ten rows")


class Counter:
    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def three(self, a: int, b: int, c: int) -> None:
        self.seen.append((a, b, c))


def test_a_partial_counts_what_its_function_takes_less_what_it_binds(monkeypatch) -> None:
    import textual._callback as callback

    textual_fixes.install()
    reads: list[object] = []
    real = callback.signature
    monkeypatch.setattr(callback, "signature", lambda f: reads.append(f) or real(f))

    def two(a: int, b: int) -> None:
        pass

    class Box:  # made here: no other test has counted its method yet
        def three(self, a: int, b: int, c: int) -> None:
            pass

    box = Box()
    assert callback.count_parameters(partial(two)) == 2
    assert callback.count_parameters(partial(two, 1)) == 1
    assert callback.count_parameters(partial(two, b=2)) == 1
    assert callback.count_parameters(partial(partial(two, 1), 2)) == 0
    assert callback.count_parameters(partial(box.three, 1)) == 2
    assert callback.count_parameters(partial(box.three, 1, 2)) == 1
    assert len(reads) == 2  # once for each function, however many partials of it
    seen: list[int] = []
    assert callback.count_parameters(partial(seen.append)) == 1  # a builtin method: read each time, as before
    assert callback.count_parameters(partial(seen.append, 1)) == 0

    class Ring:
        def __call__(self, a: int) -> None:
            pass

    assert callback.count_parameters(partial(Ring())) == 1


async def test_call_later_passes_each_callback_what_it_takes() -> None:
    textual_fixes.install()
    app = Overview()
    async with app.run_test(size=(80, 30)) as pilot:
        box = Counter()
        got: list[tuple] = []
        app.call_later(box.three, 1, 2, 3)
        app.call_later(partial(box.three, 4), 5, 6)
        app.call_later(lambda: got.append(()))
        app.call_later(lambda x: got.append((x,)), 7)
        app.call_later(got.append, (8,))  # a builtin method (one a stop dialog's wait once crashed on)
        await until(pilot, lambda: len(box.seen) == 2 and len(got) == 3, "the five callbacks")
        assert box.seen == [(1, 2, 3), (4, 5, 6)] and got == [(), (7,), (8,)]


class Badge(Static):
    DEFAULT_CSS = "Badge { background: $primary; }"


class Themed(App):
    def compose(self) -> ComposeResult:
        yield Badge("badge")


async def test_css_is_parsed_once_per_theme_and_each_theme_draws_its_own_colours(monkeypatch) -> None:
    import textual.css.stylesheet as stylesheet

    textual_fixes.install()
    parsed: list[str] = []
    real = stylesheet.parse

    def counted(scope: str, css: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(css)
        return real(scope, css, *args, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counted)

    def badge_parses() -> int:
        return parsed.count(Badge.DEFAULT_CSS)

    def primary(app: App) -> Color:
        return Color.parse(app.current_theme.primary)

    first = Themed()
    async with first.run_test(size=(40, 5)) as pilot:
        badge = first.query_one(Badge)
        await until(pilot, lambda: badge.styles.background == primary(first), "the badge in the dark theme's primary")
        await quiet(pilot)
    assert badge_parses() == 1
    second = Themed()
    async with second.run_test(size=(40, 5)) as pilot:
        badge = second.query_one(Badge)
        await until(pilot, lambda: badge.styles.background == primary(second), "the second app's badge")
        await quiet(pilot)  # the theme set on mount has been applied
        assert badge_parses() == 1  # the same source and theme: the first app's rules
        dark = primary(second)
        second.theme = "textual-light"
        light = primary(second)
        assert light != dark
        await until(pilot, lambda: badge.styles.background == light, "the badge in the light theme's primary")
        assert badge_parses() == 2  # other variables: parsed again, not taken from the dark theme
        second.theme = "textual-dark"
        await until(pilot, lambda: badge.styles.background == dark, "the badge back in the dark primary")
        assert badge_parses() == 2
