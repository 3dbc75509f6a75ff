"""The Rollouts and Distributions tabs against a real finished reverse-text RL run (one for the module).

Each action of each tab, through the keys, on what the local platform serves over HTTP (R11-R13);
the numbers checked are the view model's over the same rows, fetched here with the client.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import DataTable, TabbedContent

from primetui.api.client import PrimeClient
from primetui.commands.rl_views import fetch_step
from primetui.ui.monitor.distributions_pane import DistributionsPane
from primetui.ui.monitor.rollouts_pane import RolloutsPane
from primetui.viewmodel import rollouts as rv
from tests.ui.monitor_helpers import PaneApp, screen_text
from tests.local.rl_run import demo_rl_run
from tests.waiting import input_applied, quiet, until

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def rl_run(local_platform) -> dict[str, Any]:
    return demo_rl_run(local_platform)


def client_of(lp) -> PrimeClient:
    return PrimeClient(lp.base_url, lp.token)


async def open_rollouts(pilot, app) -> RolloutsPane:
    pane = app.query_one(RolloutsPane)
    await until(pilot, lambda: pane.current is not None and pane.current.complete and pane.step == 20,
                "every sample of step 20")
    await quiet(pilot)
    pane.focus()
    await pilot.press("tab")  # the completions have the keys
    await input_applied(pilot)
    return pane


async def test_rollouts_open_on_the_latest_sample_step_grouped_by_problem(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    truth = await fetch_step(client, run.id, 20, [])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        assert pane.steps == [10, 20] and pane.following
        groups = pane.query_one("#rollouts-groups", DataTable)
        assert groups.row_count == len(truth.groups()) == 128 // 16
        best = truth.sorted_groups("reward")[0]
        assert groups.get_row_at(0)[0].plain == str(best.problem_id)
        text = screen_text(app)
        assert "Step 20 (2/2) · live · 128 samples · 8 groups" in text
        assert f"Prompt  {best.prompt[:40]}" in text and f"Answer  {best.answer[:40]}" in text
        # The step's follower read its pages and stopped; the run is over, so progress stopped too.
        await until(pilot, lambda: all(s.owner.follower.done for s in pane._subs.values()), "the samples follower to stop")
    await client.aclose()


async def test_step_keys_move_between_sample_steps_and_f_follows_again(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: pane.current.complete and pane.step == 10, "step 10 read")
        assert not pane.following and "Step 10 (1/2) · f: latest" in screen_text(app)
        await pilot.press("f")
        await until(pilot, lambda: pane.step == 20, "back on the latest step")
        assert "Step 20 (2/2) · live" in screen_text(app)
    await client.aclose()


async def test_sort_keys_order_the_groups(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    truth = await fetch_step(client, run.id, 20, [])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        groups = pane.query_one("#rollouts-groups", DataTable)
        for sort in ("advantage", "length", "spread"):
            await pilot.press("s")
            await input_applied(pilot)
            want = [str(g.problem_id) for g in truth.sorted_groups(sort)]
            assert pane.sort == sort and [groups.get_row_at(i)[0].plain for i in range(groups.row_count)] == want
        await pilot.press("r")
        await input_applied(pilot)
        assert groups.get_row_at(0)[0].plain == str(truth.sorted_groups("spread", descending=False)[0].problem_id)
        assert "spread ↑" in screen_text(app)
    await client.aclose()


async def test_search_lists_the_completions_that_hold_the_text(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    truth = await fetch_step(client, run.id, 20, [])
    word = rv.parsed_answer(truth.completions()[5].text)[:6]
    found = truth.search(word)
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        await pilot.press("slash")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "rollouts-search", "the search box")
        await pilot.press(*word, "enter")
        await until(pilot, lambda: pane.mode == "search", "the matches")
        samples = pane.query_one("#rollouts-samples", DataTable)
        assert samples.row_count == len(found) >= 1
        assert [c.sample_id for c in pane.listed] == [c.sample_id for c in found]
        first = pane.sample_id
        await pilot.press("n")
        await input_applied(pilot)
        assert pane.sample_id == (found[1].sample_id if len(found) > 1 else first)
        await pilot.press("g")
        await input_applied(pilot)
        assert pane.mode == "groups"
    await client.aclose()


async def test_top_and_bottom_k_list_the_steps_best_and_worst(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    truth = await fetch_step(client, run.id, 20, [])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        await pilot.press("t")
        await input_applied(pilot)
        assert [c.sample_id for c in pane.listed] == [c.sample_id for c in truth.top(20)]
        assert pane.query_one("#rollouts-samples", DataTable).border_title == "Top 20 by reward"
        await pilot.press("b")
        await input_applied(pilot)
        rewards = [c.reward for c in pane.listed]
        assert rewards == sorted(rewards) and rewards[0] == min(c.reward for c in truth.completions())
    await client.aclose()


async def test_diff_compare_zoom_and_copy(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        c = pane.completion()
        await pilot.press("v")
        await input_applied(pilot)
        ratio = rv.match_ratio(rv.parsed_answer(c.text), pane.group().answer)
        assert f"Diff against the answer (ratio {ratio:.3f}" in screen_text(app)
        assert abs(ratio - c.reward) < 1e-9  # the reverse-text reward is that ratio
        await pilot.press("c")
        await until(pilot, lambda: pane.compare_step == 10 and pane.cache[10].complete, "step 10 beside step 20")
        await quiet(pilot)
        text = screen_text(app)
        assert "Step 20" in text and "Step 10" in text and "vs 10" in text
        await pilot.press("c")
        await input_applied(pilot)
        assert pane.compare_step is None
        await pilot.press("z")
        await input_applied(pilot)
        assert not pane.query_one("#rollouts-lists").display
        await pilot.press("z")
        await input_applied(pilot)
        assert pane.query_one("#rollouts-lists").display
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await pilot.press("y")
        await input_applied(pilot)
        data = json.loads(copied[0])
        assert data["sample_id"] == pane.completion().sample_id and data["step"] == 20
        assert data["task"]["answer"] == pane.group().answer
    await client.aclose()


async def test_distributions_cursor_type_overlay_and_strip(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    app = PaneApp(lambda: DistributionsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(DistributionsPane)
        await until(pilot, lambda: len(pane.data["rewards"]) == 20, "every step's rewards histogram")
        pane.focus()
        await quiet(pilot)
        assert pane.step == 20 and "Rewards · step 20 (20/20) · following latest" in screen_text(app)
        truth = await client.get_distribution(run.id, "rewards", 20)
        assert f"n {truth.stats.total:g} · mean {truth.stats.mean:.3f}" in screen_text(app)
        assert "All steps (x: step 1–20, y: rewards" in screen_text(app)
        await pilot.press("o", "left", "left")
        await input_applied(pilot)
        text = screen_text(app)
        assert pane.step == 18 and "overlay 20" in text and "▀ step 18  ▄ step 20" in text
        await pilot.press("t")
        await until(pilot, lambda: len(pane.data["advantages"]) == 20, "every step's advantages histogram")
        await quiet(pilot)
        assert "Advantages · step" in screen_text(app)
        await pilot.press("end", "f")
        await input_applied(pilot)
        assert pane.following and pane.step == 20
    await client.aclose()


async def test_an_rl_run_screen_has_the_two_tabs_and_their_keys_in_the_help(local_platform, rl_run):
    from tests.ui.dash_helpers import make_app

    app = make_app(local_platform, run_id=rl_run["id"])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.screen.query("#tab-distributions"), "the RL tabs")
        await quiet(pilot)
        from primetui.api.hub import hub_for

        def reading() -> set[str]:
            return {k[0] for k in hub_for(app.client).live_keys() if isinstance(k, tuple) and k and k[0] in ("samples", "distributions")}

        assert reading() == set()  # a hidden tab fetches nothing: a step's samples can be megabytes
        await pilot.press("6")
        await until(pilot, lambda: app.screen.query_one("#run-tabs", TabbedContent).active == "tab-rollouts", "the Rollouts tab")
        pane = app.screen.query_one(RolloutsPane)
        await until(pilot, lambda: pane.current is not None and pane.current.complete, "the samples")
        await until(pilot, lambda: app.focused is not None and (app.focused is pane or pane in app.focused.ancestors),
                    "the keys in the tab")
        await pilot.press("question_mark")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        await quiet(pilot)
        help_text = screen_text(app)
        assert "Rollouts tab" in help_text and "monitor.rollouts.compare" in help_text
        assert reading() == {"samples"}
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ == "RunScreen", "the run screen again")
        # Leaving the tab by its key stays left: the focus inside the hidden tab does not pull it back.
        tabs = app.screen.query_one("#run-tabs", TabbedContent)
        await pilot.press("down", "7")
        await until(pilot, lambda: tabs.active == "tab-distributions", "the Distributions tab")
        await quiet(pilot)
        assert tabs.active == "tab-distributions" and reading() == {"samples", "distributions"}
