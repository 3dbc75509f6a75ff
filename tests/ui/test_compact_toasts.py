"""Issue 18 #28: at 80x24 a toast is one line; on a large terminal it keeps its title and wraps."""

from __future__ import annotations

from textual.widgets._toast import Toast

from primetui.ui.app import PrimeApp
from tests.waiting import quiet, until

LONG = (
    "Run reverse-text-sft: RUNNING → STOPPED after 177 of 300 steps; checkpoints already saved stay on "
    "research under runs/abc/."
)


async def _toast_heights(size: tuple[int, int]) -> list[int]:
    app = PrimeApp(None, poll_scale=0)
    async with app.run_test(size=size, notifications=True) as pilot:
        app.notify(LONG, title="Watched run", timeout=30)
        await until(
            pilot,
            lambda: app.screen.query(Toast) and all(t.outer_size.height for t in app.screen.query(Toast)),
            "the toast laid out",
        )
        await quiet(pilot)
        return [t.outer_size.height for t in app.screen.query(Toast)]


async def test_a_toast_is_one_line_at_80x24():
    assert await _toast_heights((80, 24)) == [1]


async def test_a_toast_keeps_its_title_on_a_large_terminal():
    heights = await _toast_heights((160, 48))
    assert heights and heights[0] >= 4


async def test_a_narrow_terminal_alone_gives_one_line_toasts():
    assert await _toast_heights((99, 40)) == [1]


async def test_a_short_terminal_alone_gives_one_line_toasts():
    assert await _toast_heights((120, 29)) == [1]


async def test_at_100x30_a_toast_keeps_its_title():
    heights = await _toast_heights((100, 30))
    assert heights and heights[0] >= 4
