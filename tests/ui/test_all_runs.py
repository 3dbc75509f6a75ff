"""The runs list sees every run, not one page (issue 41 #1): the filter, the palette, the counts
and "filter then C" work over all 334 runs of a platform whose runs fill 17 pages of 20, and the
info line says "N of M loaded" while the later pages are still being read."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from dash_helpers import make_app, notifications, screen_text
from tests.waiting import input_applied, until
from textual.widgets import DataTable, Static

from primetui.local.testing import LocalPlatform
from primetui.ui.palette import PrimeCommands
from primetui.ui.screens.compare import CompareScreen
from primetui.ui.screens.runs import RunsScreen

pytestmark = pytest.mark.timeout(150)

TOTAL = 334
SWEEP = [f"lrbs-lr{lr}-bs{bs}" for lr in ("1e-4", "3e-4", "1e-3") for bs in (8, 16)]


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalPlatform, dict[str, str]]]:
    """One platform for the module: the oldest run "broken-one", a 6-run sweep spread over the
    middle pages, and filler runs; newest first, "broken-one" is on the last page of 20."""
    with LocalPlatform.start(tmp_path_factory.mktemp("many-runs"), demo=False) as lp:
        names = ["broken-one"]
        filler = iter(range(TOTAL))
        while len(names) < TOTAL:
            if len(names) % 50 == 7 and len(names) // 50 < len(SWEEP):
                names.append(SWEEP[len(names) // 50])
            else:
                names.append(f"bulk-{next(filler):03d}")
        ids = lp.insert_runs(names)
        yield lp, dict(zip(names, ids, strict=True))


def info_text(app) -> str:
    return str(app.screen.query_one("#runs-info", Static).content)


def table_rows(app) -> list[str]:
    table = app.screen.query_one("#runs-table", DataTable)
    return [str(key.value) for key in table.rows]


async def all_loaded(pilot, app) -> None:
    # (``runs_complete`` is new: the list before it had one page, which the info line's count names.)
    await until(
        pilot,
        lambda: (
            isinstance(app.screen, RunsScreen)
            and getattr(app.state, "runs_complete", True)
            and f"{TOTAL} runs" in info_text(app)
        ),
        f"all {TOTAL} runs loaded",
    )


async def test_the_filter_finds_a_run_on_the_last_page_and_the_info_counts_all(many):
    lp, ids = many
    app = make_app(lp)
    async with app.run_test(size=(120, 32)) as pilot:
        await all_loaded(pilot, app)
        await until(pilot, lambda: f"{TOTAL} runs" in info_text(app) and "page 1/17" in info_text(app), "the info line")
        await pilot.press("slash", *"broken")
        await input_applied(pilot)
        await until(pilot, lambda: table_rows(app) == [ids["broken-one"]], "the oldest run, alone")
        assert "1 shown" in info_text(app)
        assert "No run matches" not in screen_text(app)


async def test_a_sweep_prefix_then_C_compares_every_run_of_the_sweep_and_says_how_many(many):
    lp, ids = many
    app = make_app(lp)
    async with app.run_test(size=(120, 32)) as pilot:
        await all_loaded(pilot, app)
        await pilot.press("slash", *"lrbs-", "enter")
        await input_applied(pilot)
        await until(pilot, lambda: len(table_rows(app)) == len(SWEEP), "the 6 sweep runs")
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "compare")
        assert sorted(app.screen.run_ids) == sorted(ids[name] for name in SWEEP)
        assert any("Comparing the 6 runs matching “lrbs-”" in n for n in notifications(app)), notifications(app)


async def test_the_palette_offers_a_run_of_the_last_page(many):
    lp, ids = many
    app = make_app(lp)
    async with app.run_test(size=(120, 32)) as pilot:
        await all_loaded(pilot, app)
        offered = [text for text, _, _ in PrimeCommands(app.screen).commands()]
        assert any(text.startswith("Open run broken-one ") and ids["broken-one"] in text for text in offered)


async def test_N_of_M_loaded_shows_while_later_pages_are_read_and_goes_when_done(many):
    lp, ids = many
    app = make_app(lp)
    gate = asyncio.Event()
    real = app.client.list_runs

    async def held(*, page: int = 1, limit: int = 20, mine: bool = False):
        if (page, limit) != (1, 20):
            await gate.wait()  # the later pages wait until the test has seen the partial list
        return await real(page=page, limit=limit, mine=mine)

    app.client.list_runs = held
    async with app.run_test(size=(120, 32)) as pilot:
        await until(pilot, lambda: f"20 of {TOTAL} loaded" in info_text(app), "the partial count")
        assert len(table_rows(app)) == 20
        gate.set()
        await all_loaded(pilot, app)
        await until(pilot, lambda: "loaded" not in info_text(app), "the count gone once every run is here")


async def test_s_and_S_sort_every_run_and_the_filtered_ones_by_name(many):
    """``s`` sorts all 334 runs, not a page; ``S`` reverses (its sort values are kept, not worked out
    again); a filter typed after keeps the order, over the runs it keeps."""
    lp, ids = many
    by_name = sorted(ids, key=str.lower)
    app = make_app(lp)
    async with app.run_test(size=(160, 32)) as pilot:
        await all_loaded(pilot, app)
        for _ in range(12):
            if app.screen.sort_key == "name":
                break
            before = app.screen.sort_key
            await pilot.press("s")
            await until(pilot, lambda b=before: app.screen.sort_key != b, "the next column's sort")
        assert app.screen.sort == ("name", False)
        await until(pilot, lambda: table_rows(app) == [ids[n] for n in by_name[:20]], "the 20 first names of all")
        await pilot.press("S")
        await until(pilot, lambda: table_rows(app) == [ids[n] for n in by_name[::-1][:20]], "the 20 last, reversed")
        await pilot.press("slash", *"bulk-1", "enter")
        await input_applied(pilot)
        kept = [n for n in by_name if "bulk-1" in n][::-1]
        await until(pilot, lambda: table_rows(app) == [ids[n] for n in kept[:20]], "the filtered runs, still reversed")
        await pilot.press("]")
        await until(pilot, lambda: table_rows(app) == [ids[n] for n in kept[20:40]], "their second page")


async def test_s_says_which_column_it_sorted_by(many):
    lp, ids = many
    app = make_app(lp)
    async with app.run_test(size=(160, 32)) as pilot:
        await all_loaded(pilot, app)
        await pilot.press("s")
        await until(pilot, lambda: app.screen.sort_key is not None, "a sort")
        key = app.screen.sort_key
        await until(
            pilot, lambda: f"Sorted by {key} (S reverses)." in notifications(app), "the toast naming the column"
        )
