"""The Rollouts tab of an RL run: one step's samples grouped by problem, each completion readable.

Data: the run's shared progress follower (R12: ``stepsWithSamples``) and, for the step shown (and
the step compared with), that step's samples follower (R11, page by page). Pages are shown as they
arrive; the lists are tables of a few dozen rows (the groups, one group's completions), and only
the highlighted completion's text is laid out, so a step of 1,024 samples of 4 KB opens at once.

Keys (ids ``monitor.rollouts.*``): ``[``/``]`` previous/next step, ``f`` follow the latest step,
``s`` sort (reward, advantage, length, spread), ``r`` reverse, ``/`` search completions
(``n``/``N`` next/previous match), ``t``/``b`` top-k/bottom-k of the step, ``g`` back to the
groups, ``v`` diff against the answer, ``c`` the same problem at another step side by side
(``C`` the next step that has it), ``y`` copy the sample as JSON.

The samples route serves one step at a time, so ``c`` reads the other sample steps one by one
(nearest earlier first, then later), each page by page, until one holds the problem; the problems of
every step read are remembered, so no step is read twice for it and no two steps at once.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group as RichGroup
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import CellDoesNotExist

from primetui.api.followers import DataNotes, PollFailed
from primetui.api.followers.rl import ProgressUpdate, SamplePage
from primetui.api.hub import hub_for
from primetui.ui.hub_sink import HubSinks
from primetui.ui.safe import SafeTable, clean, plain
from primetui.ui.widgets import tone_style, update_static
from primetui.viewmodel import rollouts as rv

TOP_K = 20
"""Completions listed by top-k / bottom-k."""
STEPS_KEPT = 4
"""Steps whose samples stay in memory (the shown one, the compared one, the last looked at)."""
PREVIEW = 60
"""Characters of a completion in its list row."""
WIDE = 120
"""Columns from which the detail sits beside the lists instead of under them."""
SHORT = 24
"""Rows of the pane below which each list shows five rows (80x24: the detail keeps room to read)."""

GROUP_COLUMNS = (
    ("problem", "Problem"),
    ("mean", "Mean"),
    ("spread", "Spread"),
    ("adv", "|Adv|"),
    ("len", "Len"),
    ("signal", "Signal"),
    ("prompt", "Prompt"),
)
SAMPLE_COLUMNS = (
    ("id", "#"),
    ("reward", "Reward"),
    ("adv", "Adv"),
    ("tokens", "Tokens"),
    ("trunc", "Cut"),
    ("rubric", "Rubric"),
    ("text", "Completion"),
)


def _one_line(text: str, width: int = PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class RolloutsPane(HubSinks, Vertical, can_focus=True):
    """``RolloutsPane(client, run)``: the rollouts of the run's sample steps (see the module docstring)."""

    HELP_TITLE = "Rollouts tab"
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False, id="monitor.rollouts.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="monitor.rollouts.down"),
        Binding("pageup", "move(-10)", "Page up", show=False, id="monitor.rollouts.page_up"),
        Binding("pagedown", "move(10)", "Page down", show=False, id="monitor.rollouts.page_down"),
        Binding("tab", "switch_list", "Groups/completions", show=False, id="monitor.rollouts.switch"),
        Binding("shift+tab", "switch_list", "Groups/completions", show=False, id="monitor.rollouts.switch_back"),
        Binding("left_square_bracket", "step(-1)", "Step ←", id="monitor.rollouts.prev_step"),
        Binding("right_square_bracket", "step(1)", "Step →", id="monitor.rollouts.next_step"),
        Binding("f", "follow", "Follow latest", id="monitor.rollouts.follow"),
        Binding("s", "sort", "Sort", id="monitor.rollouts.sort"),
        Binding("r", "reverse", "Reverse", show=False, id="monitor.rollouts.reverse"),
        Binding("slash", "search", "Search", id="monitor.rollouts.search"),
        Binding("n", "match(1)", "Next match", show=False, id="monitor.rollouts.next_match"),
        Binding("N", "match(-1)", "Previous match", show=False, id="monitor.rollouts.prev_match"),
        Binding("t", "top(False)", "Top-k", id="monitor.rollouts.top"),
        Binding("b", "top(True)", "Bottom-k", show=False, id="monitor.rollouts.bottom"),
        Binding("g", "groups", "Groups", show=False, id="monitor.rollouts.groups"),
        Binding("v", "diff", "Diff", id="monitor.rollouts.diff"),
        Binding("c", "compare", "Compare step", id="monitor.rollouts.compare"),
        Binding("C", "compare_other", "Next step with it", show=False, id="monitor.rollouts.compare_other"),
        Binding("y", "copy_sample", "Copy JSON", id="monitor.rollouts.copy"),
        Binding("z", "zoom", "Zoom text", id="monitor.rollouts.zoom"),
        Binding("escape", "cancel", "Cancel", show=False, id="monitor.rollouts.cancel"),
    ]
    DEFAULT_CSS = """
    RolloutsPane { height: 1fr; }
    RolloutsPane > .rollouts--status { height: 1; padding: 0 1; background: $panel; }
    RolloutsPane > #rollouts-body { height: 1fr; layout: vertical; }
    RolloutsPane > #rollouts-body.-wide { layout: horizontal; }
    RolloutsPane #rollouts-lists { height: auto; }
    RolloutsPane #rollouts-body.-wide > #rollouts-lists { width: 1fr; height: 1fr; }
    RolloutsPane #rollouts-groups { height: auto; max-height: 7; }
    RolloutsPane #rollouts-samples { height: auto; max-height: 7; }
    RolloutsPane #rollouts-body.-short #rollouts-groups { max-height: 5; }
    RolloutsPane #rollouts-body.-short #rollouts-samples { max-height: 5; }
    RolloutsPane #rollouts-body.-zoom > #rollouts-lists { display: none; }
    RolloutsPane #rollouts-body.-wide #rollouts-groups { max-height: 50%; }
    RolloutsPane #rollouts-body.-wide #rollouts-samples { max-height: 1fr; }
    RolloutsPane #rollouts-detail { height: 1fr; padding: 0 1; border-top: solid $panel-lighten-2; }
    RolloutsPane #rollouts-body.-wide > #rollouts-detail {
        width: 1fr; border-top: none; border-left: solid $panel-lighten-2;
    }
    RolloutsPane SafeTable { scrollbar-size-horizontal: 0; }
    RolloutsPane SafeTable.-active > .datatable--cursor { background: $accent; color: $text; text-style: bold; }
    RolloutsPane > #rollouts-search { dock: bottom; display: none; }
    RolloutsPane > #rollouts-search.-shown { display: block; }
    """

    def __init__(self, client: Any, run: Any, *, follow: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.client = client
        self.run = run
        self.run_id = str(getattr(run, "id", None) or (run.get("id") if isinstance(run, dict) else "run"))
        self.follow_enabled = follow
        self.steps: list[int] = []
        self.step: int | None = None
        self.following = True
        self.sort = "reward"
        self.descending = True
        self.mode = "groups"  # groups | top | bottom | search
        self.search_text = ""
        self.diff = False
        self.compare_step: int | None = None
        self.hunt: rv.Hunt | None = None
        self.index = rv.ProblemIndex()
        self.cache: dict[int, rv.StepSamples] = {}
        self._subs: dict[int, Any] = {}
        self._progress_sub: Any = None
        self._watch_sub: Any = None
        self.problem: int | None = None
        self.sample_id: int | None = None
        self.listed: list[rv.Completion] = []
        self.error = ""

    def compose(self) -> ComposeResult:
        yield Static("", classes="rollouts--status", id="rollouts-status", markup=False)
        with Vertical(id="rollouts-body"):
            with Vertical(id="rollouts-lists"):
                yield SafeTable(id="rollouts-groups", cursor_type="row", zebra_stripes=True)
                yield SafeTable(id="rollouts-samples", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="rollouts-detail"):
                yield Static("", id="rollouts-detail-text")
        yield Input(placeholder="search the completions of this step (enter: find, esc: cancel)", id="rollouts-search")

    def on_mount(self) -> None:
        # One focusable widget, the pane: its keys move the cursor of the list that has them (tab
        # switches). Focusable tables inside a tab let Textual hand the focus from one hidden table to
        # its sibling while the tab is left, which pulled the run screen back to this tab.
        for widget in self.query("#rollouts-groups, #rollouts-samples, #rollouts-detail"):
            widget.can_focus = False
        self.query_one("#rollouts-groups").add_class("-active")
        for key, label in GROUP_COLUMNS:
            self.query_one("#rollouts-groups", DataTable).add_column(label, key=key)
        for key, label in SAMPLE_COLUMNS:
            self.query_one("#rollouts-samples", DataTable).add_column(label, key=key)
        self._layout()
        self.render_all()

    def on_show(self) -> None:
        """Start reading when the tab is first shown: a hidden tab fetches nothing (a step can be megabytes)."""
        if self.follow_enabled and self.client is not None and self._progress_sub is None:
            hub = hub_for(self.client)
            # The run's shared watcher tells the progress follower when the run has ended (its last fetch).
            self._watch_sub = hub.watch(self.run_id, self.sink(lambda _event: None))
            self._progress_sub = hub.progress(self.run_id, self.sink(self.on_progress))

    @property
    def sample_followers(self) -> tuple[Any, ...]:
        """The followers of the sample steps this pane reads now (one per step it shows). Read-only."""
        return tuple(sub.owner.follower for sub in self._subs.values())

    def on_unmount(self) -> None:
        for sub in [self._watch_sub, self._progress_sub, *self._subs.values()]:
            if sub is not None:
                sub.close()
        self._subs.clear()
        self._progress_sub = self._watch_sub = None

    def on_resize(self) -> None:
        self._layout()

    def _layout(self) -> None:
        body = self.query_one("#rollouts-body")
        body.set_class((self.size.width or 80) >= WIDE, "-wide")
        body.set_class((self.size.height or 24) < SHORT, "-short")

    # ---- data ----------------------------------------------------------------------------------
    def on_progress(self, event: Any) -> None:
        if isinstance(event, ProgressUpdate):
            self.set_steps(list(event.progress.steps_with_samples))
        elif isinstance(event, PollFailed):
            self.error = str(event.error)
            self.render_status()

    def set_steps(self, steps: list[int]) -> None:
        """The steps with samples (R12); the latest is shown while following."""
        self.steps = sorted(set(steps))
        self.error = ""
        if self.steps and (self.following or self.step is None):
            self.show_step(self.steps[-1])
        else:
            self.render_status()

    def show_step(self, step: int | None) -> None:
        if step is None:
            return
        changed = step != self.step
        self.step = step
        self._ensure(step)
        if changed:
            self.mode = "groups" if self.mode != "search" else "search"
            self.render_all()

    def _ensure(self, step: int) -> None:
        if step in self.cache:
            self.cache[step] = self.cache.pop(step)  # most recently used last
            return
        self.cache[step] = rv.StepSamples(step)
        for old in [s for s in self.cache if s not in (self.step, self.compare_step)][
            : max(0, len(self.cache) - STEPS_KEPT)
        ]:
            self.cache.pop(old, None)
            sub = self._subs.pop(old, None)
            if sub is not None:
                sub.close()
        if self.follow_enabled and self.client is not None:
            self._subs[step] = hub_for(self.client).samples(self.run_id, step, self.sink(self.on_samples))

    def on_samples(self, event: Any) -> None:
        if isinstance(event, SamplePage):
            self.add_page(event.step, list(event.samples), event.total, event.done)
        elif isinstance(event, DataNotes):
            say = getattr(self.app, "say_notes", None)
            if say is not None:
                say(f"samples of run {self.run_id}: {n}" for n in event.notes)
        elif isinstance(event, PollFailed):
            self.error = str(event.error)
            self.render_status()

    def add_page(self, step: int, samples: list[Any], total: int | None = None, done: bool = False) -> None:
        """Take a page of a step's samples (tests and replays feed pages here directly)."""
        held = self.cache.get(step)
        if held is None:
            held = self.cache[step] = rv.StepSamples(step)
        held.add(samples, total, done)
        self.index.note(held)
        if step == self.step:
            self.render_all()
        elif step == self.compare_step:
            self.render_detail()
        if self.hunt is not None and self.hunt.looking == step:
            self._hunt_page(held)

    # ---- what is shown ---------------------------------------------------------------------------
    @property
    def current(self) -> rv.StepSamples | None:
        return self.cache.get(self.step) if self.step is not None else None

    def group(self) -> rv.Group | None:
        held = self.current
        return held.group(self.problem) if held is not None else None

    def completion(self) -> rv.Completion | None:
        return next((c for c in self.listed if c.sample_id == self.sample_id), self.listed[0] if self.listed else None)

    def render_all(self) -> None:
        if not self.is_mounted:
            return
        self.render_status()
        self.render_groups()
        self.render_samples()
        self.render_detail()

    def render_status(self) -> None:
        if not self.is_mounted:
            return
        held = self.current
        if not self.steps and held is None:
            text = self.error or "No samples yet: the orchestrator uploads a step's rollouts every 10th step."
        else:
            text = " · ".join(self.status_parts(held))
        update_static(self.query_one("#rollouts-status", Static), clean(text), layout=False)

    def status_parts(self, held: rv.StepSamples | None) -> list[str]:
        where = f" ({self.steps.index(self.step) + 1}/{len(self.steps)})" if self.step in self.steps else ""
        parts = [f"Step {self.step}{where}", "live" if self.following else "f: latest"]
        if held is not None:
            info = held.summary()
            total = f"/{info['total']:,}" if info["total"] is not None and not held.complete else ""
            parts.append(f"{info['samples']:,}{total} samples")
            parts.append(
                f"{info['groups']} groups"
                + (f" ({info['no_signal_groups']} no signal)" if info["no_signal_groups"] else "")
            )
            if info["mean_reward"] is not None:
                parts.append(f"reward {info['mean_reward']:.3f}")
        parts.append(f"{self.sort} {'↓' if self.descending else '↑'}")
        if self.compare_step is not None:
            parts.append(f"vs {self.compare_step}")
        if self.hunt is not None and self.hunt.looking is not None:
            h = self.hunt
            parts.append(f"looking for problem {h.problem} at step {h.looking} ({h.position + 1}/{len(h.order)})")
        if self.error:
            parts.append(self.error)
        return parts

    def render_groups(self) -> None:
        table = self.query_one("#rollouts-groups", SafeTable)
        held = self.current
        table.clear()
        if held is None or not len(held):
            table.add_row("-", "", "", "", "", "", "loading…" if held is not None else "no step yet", key="none")
            return
        groups = held.sorted_groups(self.sort, self.descending)
        if self.problem is None or held.group(self.problem) is None:
            self.problem = groups[0].problem_id
        for g in groups:
            signal = "none" if g.no_signal else "ok"
            table.add_row(
                str(g.problem_id),
                rv.fmt_num(g.mean),
                rv.fmt_num(g.spread),
                rv.fmt_num(g.advantage),
                f"{g.mean_length:.0f}",
                signal,
                _one_line(g.prompt, 48),
                key=str(g.problem_id),
            )
        index = next((i for i, g in enumerate(groups) if g.problem_id == self.problem), 0)
        table.move_cursor(row=index, animate=False)

    def _listing(self) -> tuple[str, list[rv.Completion]]:
        held = self.current
        if held is None:
            return "", []
        if self.mode in ("top", "bottom"):
            k = self.mode == "bottom"
            return (
                f"{'Bottom' if k else 'Top'} {TOP_K} by {self.sort if self.sort != 'spread' else 'reward'}",
                held.top(TOP_K, k, self.sort),
            )
        if self.mode == "search":
            found = held.search(self.search_text)
            return f"{len(found)} completions hold {self.search_text!r}", found
        group = self.group()
        if group is None:
            return "", []
        return f"problem {group.problem_id}", rv.sort_by(
            group.completions, rv.completion_key(self.sort), self.descending
        )

    def render_samples(self) -> None:
        table = self.query_one("#rollouts-samples", SafeTable)
        title, self.listed = self._listing()
        table.clear()
        table.border_title = clean(title)
        for c in self.listed:
            rubric = " ".join(f"{k}={v:.2f}" for k, v in list(c.rubric.items())[:3])
            table.add_row(
                str(c.sample_id),
                rv.fmt_num(c.reward),
                rv.fmt_signed(c.advantage),
                "-" if c.tokens_out is None else str(c.tokens_out),
                "cut" if c.truncated else "",
                rubric,
                _one_line(c.text),
                key=str(c.sample_id),
            )
        if not self.listed:
            table.add_row(
                "-", "", "", "", "", "", "no completions" if self.mode != "search" else "no match", key="none"
            )
            return
        if self.sample_id not in [c.sample_id for c in self.listed]:
            self.sample_id = self.listed[0].sample_id
        index = next(i for i, c in enumerate(self.listed) if c.sample_id == self.sample_id)
        table.move_cursor(row=index, animate=False)

    def render_detail(self) -> None:
        if not self.is_mounted:
            return
        update_static(self.query_one("#rollouts-detail-text", Static), self.detail_renderable())

    def detail_renderable(self) -> Any:
        c = self.completion()
        if c is None:
            return Text("Pick a group, then a completion: its prompt, answer and text show here.", style="dim")
        held = self.current
        group = held.group(c.problem_id) if held is not None else None
        if self.compare_step is not None and group is not None:
            return self.compare_renderable(group)
        head = Text()
        head.append(f"Step {c.step} · problem {c.problem_id} · sample {c.sample_id}", style="bold")
        head.append(f"  reward {rv.fmt_num(c.reward)}  advantage {rv.fmt_signed(c.advantage)}")
        if c.tokens_out is not None:
            head.append(f"  {c.tokens_out} tokens")
        if c.truncated:
            head.append("  truncated", style=tone_style(self, "warning"))
        parts: list[Any] = [head]
        if c.rubric:
            parts.append(
                Text.assemble(("Rubric  ", "bold"), plain("  ".join(f"{k} {v:.4f}" for k, v in c.rubric.items())))
            )
        if group is not None:
            parts.append(Text.assemble(("Prompt  ", "bold"), plain(group.prompt)))
            if group.answer:
                parts.append(Text.assemble(("Answer  ", "bold"), plain(group.answer)))
        if self.diff and group is not None and group.answer:
            parts.append(self.diff_text(c.text, group.answer))
        else:
            parts.append(Text("Completion", style="bold"))
            parts.append(Text.assemble(plain(c.text)))
        return RichGroup(*parts)

    def diff_text(self, text: str, answer: str) -> Text:
        got = rv.parsed_answer(text)
        out = Text()
        out.append(f"Diff against the answer (ratio {rv.match_ratio(got, answer):.3f}; ", style="bold")
        out.append("missing", style=f"underline {tone_style(self, 'success')}")
        out.append(" · ")
        out.append("extra", style=f"strike {tone_style(self, 'error')}")
        out.append(")\n", style="bold")
        for op, run in rv.char_diff(got, answer):
            piece = clean(run) if "\n" not in run else run.replace("\n", "⏎")
            piece = clean(piece)
            if op == rv.MISSING:
                out.append(piece, style=f"underline {tone_style(self, 'success')}")
            elif op == rv.EXTRA:
                out.append(piece, style=f"strike {tone_style(self, 'error')}")
            else:
                out.append(piece)
        return out

    def compare_renderable(self, group: rv.Group) -> Any:
        other = self.cache.get(self.compare_step) if self.compare_step is not None else None
        theirs = other.group(group.problem_id) if other is not None else None
        grid = Table.grid(expand=True, padding=(0, 1))
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        grid.add_row(Text(f"Step {self.step}", style="bold"), Text(f"Step {self.compare_step}", style="bold"))
        grid.add_row(self._side(group), self._side(theirs, other))
        head = Text.assemble(
            ("Problem ", "bold"), plain(str(group.problem_id)), "  ", plain(_one_line(group.prompt, 70))
        )
        return RichGroup(head, self._where(group.problem_id), grid)

    def _where(self, problem: int | None) -> Text:
        """The sample steps found to hold the problem, among those read so far."""
        at = self.index.steps_with(problem)
        read = len([s for s in self.steps if s in self.index.by_step])
        found = ", ".join(str(s) for s in at) if at else "none"
        return Text(
            f"Sampled at steps {found} (of the {read} of {len(self.steps)} sample steps read; C: the next)", style="dim"
        )

    def _side(self, group: rv.Group | None, held: rv.StepSamples | None = None) -> Any:
        if group is None:
            if held is not None and not held.complete:
                return Text("loading…", style="dim")
            return Text("This problem was not sampled at that step; c twice looks for it at the others.", style="dim")
        out = Text()
        out.append(
            f"mean {rv.fmt_num(group.mean)} spread {rv.fmt_num(group.spread)}"
            + (" · no signal" if group.no_signal else "")
            + "\n",
            style="bold",
        )
        for c in rv.sort_by(group.completions, rv.completion_key("reward")):
            out.append(f"{rv.fmt_num(c.reward)} ", style="bold")
            out.append(clean(_one_line(rv.parsed_answer(c.text), 200)) + "\n")
        return out

    # ---- table cursors ---------------------------------------------------------------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        try:
            key = event.row_key.value
        except (AttributeError, CellDoesNotExist):
            return
        if key in (None, "none"):
            return
        if event.data_table.id == "rollouts-groups":
            problem = int(key)
            if problem != self.problem:
                self.problem = problem
                if self.mode == "groups":
                    self.sample_id = None
                    self.render_samples()
                    self.render_detail()
        elif event.data_table.id == "rollouts-samples":
            sample = int(key)
            if sample != self.sample_id:
                self.sample_id = sample
                c = self.completion()
                if c is not None and c.problem_id != self.problem and self.mode != "groups":
                    self.problem = c.problem_id
                self.render_detail()
        event.stop()

    # ---- actions ---------------------------------------------------------------------------------
    def _activate(self, selector: str) -> None:
        for table in self.query("#rollouts-groups, #rollouts-samples"):
            table.set_class(table.id == selector.lstrip("#"), "-active")

    @property
    def active_list(self) -> DataTable:
        return self.query_one(
            "#rollouts-samples" if self.query_one("#rollouts-samples").has_class("-active") else "#rollouts-groups",
            DataTable,
        )

    def action_move(self, delta: int) -> None:
        """Up/down in the list that has the keys; in the zoomed text, scroll it."""
        if self.query_one("#rollouts-body").has_class("-zoom"):
            detail = self.query_one("#rollouts-detail", VerticalScroll)
            detail.scroll_relative(y=delta * (1 if abs(delta) == 1 else max(1, detail.size.height - 1)), animate=False)
            return
        table = self.active_list
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + delta)), animate=False)

    def action_switch_list(self) -> None:
        self._activate("#rollouts-groups" if self.active_list.id == "rollouts-samples" else "#rollouts-samples")

    def action_step(self, delta: int) -> None:
        target = rv.neighbour_step(self.steps, self.step, delta)
        if target is None:
            self.app.bell()
            return
        self.following = target == self.steps[-1] and delta > 0 and self.following
        if target != self.steps[-1]:
            self.following = False
        self.show_step(target)
        self.render_status()

    def action_follow(self) -> None:
        self.following = True
        if self.steps:
            self.show_step(self.steps[-1])
        self.render_status()

    def action_sort(self) -> None:
        self.sort = rv.SORTS[(rv.SORTS.index(self.sort) + 1) % len(rv.SORTS)]
        self.render_all()

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self.render_all()

    def action_search(self) -> None:
        box = self.query_one("#rollouts-search", Input)
        box.add_class("-shown")
        box.value = self.search_text
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "rollouts-search":
            return
        event.stop()
        self.search_text = event.value
        event.input.remove_class("-shown")
        self.mode = "search" if self.search_text else "groups"
        self.sample_id = None
        self.render_samples()
        self.render_detail()
        self.render_status()
        self._activate("#rollouts-samples")
        self.focus()

    def action_cancel(self) -> None:
        box = self.query_one("#rollouts-search", Input)
        if box.has_class("-shown"):
            box.remove_class("-shown")
            self.focus()
        elif self.mode != "groups" or self.compare_step is not None:
            self.action_groups()

    def action_match(self, delta: int) -> None:
        if self.mode != "search" or not self.listed:
            self.app.bell()
            return
        ids = [c.sample_id for c in self.listed]
        index = ids.index(self.sample_id) if self.sample_id in ids else -1
        self.sample_id = ids[(index + delta) % len(ids)]
        self.render_samples()
        self.render_detail()

    def action_top(self, bottom: bool) -> None:
        self.mode = "bottom" if bottom else "top"
        self.sample_id = None
        self.render_samples()
        self.render_detail()

    def action_groups(self) -> None:
        self.mode = "groups"
        self.compare_step = None
        self.hunt = None
        self.sample_id = None
        self.render_all()

    def action_diff(self) -> None:
        self.diff = not self.diff
        self.render_detail()

    def action_compare(self) -> None:
        """The highlighted problem at another sample step, side by side (again: back to one step)."""
        if self.compare_step is not None or self.hunt is not None:
            self.compare_step = None
            self.hunt = None
            self.render_detail()
            self.render_status()
            return
        group = self.group() if self.mode == "groups" else None
        c = self.completion()
        problem = group.problem_id if group is not None else (c.problem_id if c is not None else None)
        if problem is None or not [s for s in self.steps if s != self.step]:
            self.notify("There is no other step with samples to compare with yet.", severity="warning")
            return
        self.hunt = rv.Hunt(problem, rv.other_steps(self.steps, self.step))
        self._hunt_on()

    def action_compare_other(self) -> None:
        """The next sample step (in the hunt's order, round again at its end) that holds the problem."""
        hunt = self.hunt
        if hunt is None:
            self.action_compare()
            return
        if hunt.looking is not None:
            self.app.bell()
            return
        if hunt.done:
            hunt.position = 0
        self._hunt_on()

    def _hunt_on(self) -> None:
        """Look in the steps already read; read the first one that is not (its pages come to add_page)."""
        hunt = self.hunt
        assert hunt is not None
        found = rv.hunt_next(hunt, self.index)
        if found is not None and found == self.compare_step:
            self._hunt_on()  # already beside it: on to the next
            return
        if found is not None:
            self._compare_with(found)
            return
        if hunt.position < len(hunt.order):
            hunt.looking = hunt.order[hunt.position]
            self._ensure(hunt.looking)
            held = self.cache.get(hunt.looking)
            self.render_status()
            if held is not None and len(held):
                self._hunt_page(held)
            return
        others = [s for s in self.index.steps_with(hunt.problem) if s != self.step]
        if not others:
            self.notify(
                f"Problem {hunt.problem} was not sampled at any of the {len(hunt.order)} other sample steps.",
                severity="warning",
            )
            self.hunt = None
        else:
            self.notify(
                f"Problem {hunt.problem} is at no other sample step than {', '.join(map(str, others))} "
                f"besides step {self.step}."
            )
        self.render_status()

    def _hunt_page(self, held: rv.StepSamples) -> None:
        """A page of the step being looked in has landed: show it as soon as it holds the problem."""
        hunt = self.hunt
        assert hunt is not None
        if held.group(hunt.problem) is not None:
            hunt.looking = None
            hunt.position += 1
            self._compare_with(held.step)
        elif held.complete:
            hunt.looking = None
            hunt.position += 1
            self._hunt_on()

    def _compare_with(self, step: int) -> None:
        self.compare_step = step
        self._ensure(step)
        self.render_detail()
        self.render_status()

    def action_zoom(self) -> None:
        """The detail alone (the lists hidden) to read a long completion; again: the lists back."""
        body = self.query_one("#rollouts-body")
        body.toggle_class("-zoom")
        self.focus()

    def action_copy_sample(self) -> None:
        c = self.completion()
        if c is None:
            self.app.bell()
            return
        from primetui.viewmodel.clipboard import refusal_reason

        text = rv.sample_json(c.sample)
        self.app.copy_to_clipboard(text)
        reason = refusal_reason()
        what = f"sample {c.sample_id} of step {c.step} as JSON ({len(text):,} characters)"
        if reason:
            self.notify(f"Could not copy {what}: {reason}.", severity="warning", timeout=8)
        else:
            self.notify(f"Copied {what}.", timeout=4)
