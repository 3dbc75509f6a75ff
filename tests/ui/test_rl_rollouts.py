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
from tests.ui.dash_helpers import notifications
from tests.waiting import input_applied, quiet, until

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def rl_run(local_platform) -> dict[str, Any]:
    return demo_rl_run(local_platform)


def client_of(lp) -> PrimeClient:
    return PrimeClient(lp.base_url, lp.token)


async def open_rollouts(pilot, app) -> RolloutsPane:
    pane = app.query_one(RolloutsPane)
    await until(
        pilot, lambda: pane.current is not None and pane.current.complete and pane.step == 20, "every sample of step 20"
    )
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
        await until(pilot, lambda: all(f.done for f in pane.sample_followers), "the samples follower to stop")
    await client.aclose()


async def test_step_keys_move_between_sample_steps_and_f_follows_again(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        await pilot.press("left_square_bracket")
        await until(
            pilot,
            lambda: pane.current.complete and pane.step == 10 and "Step 10 (1/2) · f: latest" in screen_text(app),
            "step 10 read and shown",
        )
        assert not pane.following
        await pilot.press("f")
        await until(
            pilot, lambda: pane.step == 20 and "Step 20 (2/2) · live" in screen_text(app), "back on the latest step"
        )
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


async def test_the_same_prompt_at_step_10_and_20_side_by_side_shows_it_improved(local_platform, rl_run):
    """The issue's done-when: open the rollouts at step 20, then the same prompt at step 10, and see
    both steps' completions of it, the later ones scoring higher."""
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    at10, at20 = await fetch_step(client, run.id, 10, []), await fetch_step(client, run.id, 20, [])
    app = PaneApp(lambda: RolloutsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await open_rollouts(pilot, app)
        await pilot.press("shift+tab")  # the groups have the keys
        await pilot.press("down", "down")
        await input_applied(pilot)
        problem = pane.problem
        await pilot.press("c")
        await until(pilot, lambda: pane.compare_step == 10 and pane.cache[10].complete, "step 10 beside step 20")
        await quiet(pilot)
        text = screen_text(app)
        late, early = at20.group(problem), at10.group(problem)
        assert late.prompt == early.prompt and late.mean > early.mean
        assert "Step 20" in text and "Step 10" in text and "vs 10" in text
        assert f"mean {rv.fmt_num(late.mean)}" in text and f"mean {rv.fmt_num(early.mean)}" in text
        assert "Sampled at steps 10, 20 (of the 2 of 2 sample steps read" in text
        best = rv.sort_by(early.completions, rv.completion_key("reward"))[0]
        # step 10's best completion of the prompt (its reward and the start of its text), beside step 20's
        assert f"{rv.fmt_num(best.reward)} {rv.parsed_answer(best.text)[:8]}" in text
    await client.aclose()


def _rows(step: int, problems: list[int], first: int = 0) -> list[Any]:
    from primetui.api.rl import sample_rows

    raw = [
        {
            "step": step,
            "problem_id": p,
            "sample_id": first + i * 2 + k,
            "reward": 0.1 * step / 10 + 0.01 * k,
            "advantage": 0.0,
            "task": {"idx": p, "prompt": f"prompt {p}", "answer": f"{p} tpmorp"},
            "completion": [
                {"role": "user", "content": f"prompt {p}"},
                {"role": "assistant", "content": f"<reversed_text>{p} at {step}</reversed_text>"},
            ],
        }
        for i, p in enumerate(problems)
        for k in range(2)
    ]
    return sample_rows(raw, step)[0]


async def test_compare_reads_the_other_steps_one_at_a_time_until_one_holds_the_problem():
    """Step 20 lacks problem 7; c at step 30 reads step 20 (not there), then step 10, and shows step 10
    from its first page on, before that step is whole. Steps read are remembered: C reads nothing again."""
    app = PaneApp(lambda: RolloutsPane(None, {"id": "r"}, follow=False))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(RolloutsPane)
        pane.set_steps([10, 20, 30])
        pane.add_page(30, _rows(30, [7, 8, 11]), 6, True)
        pane.focus()
        await input_applied(pilot)
        assert pane.step == 30 and pane.problem in (7, 8, 11)
        pane.problem = 7
        await pilot.press("c")
        await input_applied(pilot)
        assert pane.hunt.looking == 20 and pane.compare_step is None
        assert "looking for problem 7 at step 20 (1/2)" in screen_text(app)
        pane.add_page(20, _rows(20, [8, 9]), 4, True)
        await input_applied(pilot)
        assert pane.hunt.looking == 10 and 10 in pane.cache and pane.compare_step is None
        pane.add_page(10, _rows(10, [7]), 6)  # the first of its pages: the problem is in it
        await input_applied(pilot)
        assert pane.compare_step == 10 and pane.hunt.looking is None
        assert "vs 10" in screen_text(app) and "7 at 10" in screen_text(app)
        pane.add_page(10, _rows(10, [5, 6], first=2), 6, True)
        await pilot.press("C")  # no other step holds it: said, and nothing is read again
        await input_applied(pilot)
        assert pane.compare_step == 10 and pane.hunt.looking is None
        assert pane.index.steps_with(7) == [10, 30]
        await pilot.press("c")
        await input_applied(pilot)
        assert pane.compare_step is None and pane.hunt is None
        pane.problem = 11  # a problem at no other step
        await pilot.press("c")
        await input_applied(pilot)
        assert pane.compare_step is None and pane.hunt is None
        said = notifications(app)
        assert "Problem 11 was not sampled at any of the 2 other sample steps." in said
        assert "Problem 7 is at no other sample step than 10 besides step 30." in said


async def test_distributions_cursor_type_overlay_and_strip(local_platform, rl_run):
    client = client_of(local_platform)
    run = await client.get_run(rl_run["id"])
    app = PaneApp(lambda: DistributionsPane(client, run))
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(DistributionsPane)
        await until(pilot, lambda: len(pane.data["rewards"]) == 20, "every step's rewards histogram")
        truth = await client.get_distribution(run.id, "rewards", 20)
        pane.focus()
        await quiet(pilot)
        assert pane.step == 20 and "Rewards · step 20 (20/20) · following latest" in screen_text(app)
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
            return {
                k[0]
                for k in hub_for(app.client).live_keys()
                if isinstance(k, tuple) and k and k[0] in ("samples", "distributions")
            }

        assert reading() == set()  # a hidden tab fetches nothing: a step's samples can be megabytes
        await pilot.press("6")
        await until(
            pilot, lambda: app.screen.query_one("#run-tabs", TabbedContent).active == "tab-rollouts", "the Rollouts tab"
        )
        pane = app.screen.query_one(RolloutsPane)
        await until(pilot, lambda: pane.current is not None and pane.current.complete, "the samples")
        await until(
            pilot,
            lambda: app.focused is not None and (app.focused is pane or pane in app.focused.ancestors),
            "the keys in the tab",
        )
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
