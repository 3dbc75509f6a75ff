"""The Distributions tab of an RL run: the reward (or advantage) histogram at the cursor's step, its
stats, and every step's histogram as one heat strip (step on x, bins on y), so a drift or a collapse
shows at a glance. A second step can be overlaid on the histogram.

Data: the run's shared distributions follower per type (R13, each step once; the steps from the
shared progress follower, R12). Keys (ids ``monitor.dist.*``): ``←``/``→`` (``h``/``l``) the cursor
step, ``home``/``end`` first/last, ``f`` follow the latest, ``t`` rewards/advantages, ``o`` overlay
the cursor's step (then move the cursor to compare; ``o`` again clears it).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group as RichGroup
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from primetui.api.followers import DataNotes, PollFailed
from primetui.api.followers.rl import DistributionRows
from primetui.api.hub import hub_for
from primetui.api.rl import DISTRIBUTION_TYPES
from primetui.ui.hub_sink import HubSinks
from primetui.ui.safe import clean
from primetui.ui.widgets import tone_style, update_static
from primetui.viewmodel import distributions as dv
from primetui.viewmodel import rollouts as rv

LABEL_WIDTH = 13
"""Cells of a bin's label (``-0.25–+0.25``) left of its bar and of the strip."""


class DistributionsPane(HubSinks, Vertical, can_focus=True):
    """``DistributionsPane(client, run)``: histograms by step (see the module docstring)."""

    HELP_TITLE = "Distributions tab"
    BINDINGS = [
        Binding("left,h", "cursor(-1)", "Step ←", id="monitor.dist.prev_step"),
        Binding("right,l", "cursor(1)", "Step →", id="monitor.dist.next_step"),
        Binding("home", "edge(False)", "First step", show=False, id="monitor.dist.first"),
        Binding("end", "edge(True)", "Last step", show=False, id="monitor.dist.last"),
        Binding("f", "follow", "Follow latest", id="monitor.dist.follow"),
        Binding("t", "toggle_type", "Rewards/advantages", id="monitor.dist.type"),
        Binding("o", "overlay", "Overlay step", id="monitor.dist.overlay"),
    ]
    DEFAULT_CSS = """
    DistributionsPane { height: 1fr; }
    DistributionsPane > .dist--status { height: 1; padding: 0 1; background: $panel; }
    DistributionsPane > VerticalScroll { height: 1fr; padding: 0 1; }
    """

    def __init__(self, client: Any, run: Any, *, follow: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.client = client
        self.run = run
        self.run_id = str(getattr(run, "id", None) or (run.get("id") if isinstance(run, dict) else "run"))
        self.follow_enabled = follow
        self.kind = DISTRIBUTION_TYPES[0]
        self.data: dict[str, dict[int, Any]] = {k: {} for k in DISTRIBUTION_TYPES}
        self.step: int | None = None
        self.following = True
        self.overlay: int | None = None
        self._subs: dict[str, Any] = {}
        self.error = ""

    def compose(self) -> ComposeResult:
        yield Static("", classes="dist--status", id="dist-status", markup=False)
        with VerticalScroll():
            yield Static("", id="dist-hist")
            yield Static("", id="dist-strip")

    def on_mount(self) -> None:
        self.render_all()

    def on_show(self) -> None:
        """Start reading when the tab is first shown: a hidden tab fetches nothing."""
        self._subscribe(self.kind)

    def on_unmount(self) -> None:
        for sub in self._subs.values():
            sub.close()
        self._subs.clear()

    def on_resize(self) -> None:
        self.render_all()

    def _subscribe(self, kind: str) -> None:
        if kind in self._subs or not self.follow_enabled or self.client is None:
            return
        if "watch" not in self._subs:  # the run's shared watcher: the followers learn from it that the run ended
            self._subs["watch"] = hub_for(self.client).watch(self.run_id, self.sink(lambda _event: None))

        def on_event(event: Any) -> None:
            if isinstance(event, DistributionRows):
                self.add_distributions(event.kind, list(event.distributions))
            elif isinstance(event, DataNotes):
                say = getattr(self.app, "say_notes", None)
                if say is not None:
                    say(f"{kind} histograms of run {self.run_id}: {n}" for n in event.notes)
            elif isinstance(event, PollFailed):
                self.error = str(event.error)
                self.render_status()

        self._subs[kind] = hub_for(self.client).distributions(self.run_id, kind, self.sink(on_event))

    # ---- data --------------------------------------------------------------------------------
    def add_distributions(self, kind: str, dists: list[Any]) -> None:
        """Take histograms of ``kind`` (tests and replays feed them here directly)."""
        held = self.data.setdefault(kind, {})
        for dist in dists:
            if dist.step is not None:
                held[dist.step] = dist
        self.error = ""
        if kind == self.kind:
            steps = self.steps()
            if steps and (self.following or self.step is None):
                self.step = steps[-1]
            self.render_all()

    def steps(self) -> list[int]:
        return sorted(self.data.get(self.kind, {}))

    # ---- drawing -----------------------------------------------------------------------------
    def render_all(self) -> None:
        if not self.is_mounted:
            return
        self.render_status()
        update_static(self.query_one("#dist-hist", Static), self.hist_renderable())
        update_static(self.query_one("#dist-strip", Static), self.strip_renderable())

    def render_status(self) -> None:
        if not self.is_mounted:
            return
        steps = self.steps()
        parts = [self.kind.capitalize()]
        if self.step is not None and steps:
            where = f" ({steps.index(self.step) + 1}/{len(steps)})" if self.step in steps else ""
            parts.append(f"step {self.step}{where}")
            parts.append("following latest" if self.following else "f: follow latest")
        else:
            parts.append("no histograms yet")
        if self.overlay is not None:
            parts.append(f"overlay {self.overlay}")
        other = [k for k in DISTRIBUTION_TYPES if k != self.kind][0]
        parts.append(f"t {other}")
        if self.error:
            parts.append(self.error)
        update_static(self.query_one("#dist-status", Static), clean(" · ".join(parts)), layout=False)

    def _short(self) -> bool:
        """Too few rows for ten bins and the strip: both take five (80x24)."""
        return (self.size.height or 24) < 30

    def _bar_width(self) -> int:
        return max(8, (self.size.width or 80) - LABEL_WIDTH - 16)

    def hist_renderable(self) -> Any:
        dist = self.data.get(self.kind, {}).get(self.step) if self.step is not None else None
        if dist is None:
            return Text(
                "The orchestrator posts each step's rewards and advantages; their histograms show here.", style="dim"
            )
        other = (
            self.data[self.kind].get(self.overlay) if self.overlay is not None and self.overlay != self.step else None
        )
        accent, muted = tone_style(self, "accent"), "dim"
        stats = dv.hist_stats(dist)
        table = Table.grid(padding=(0, 1))
        table.add_column(width=LABEL_WIDTH, no_wrap=True)
        table.add_column(no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
        for row in reversed(dv.bar_rows(dist, self._bar_width(), other, nbins=5 if self._short() else None)):
            count = f"{row.count:g}" if other is None else f"{row.count:g} / {row.other_count:g}"
            table.add_row(Text(row.label, style="dim"), Text(row.bar, style=accent), count)
        parts: list[Any] = [Text(dv.stats_line(dist.step, stats))]
        if other is not None:
            parts.append(Text(dv.stats_line(other.step, dv.hist_stats(other)), style=muted))
            parts.append(
                Text(f"{dv.OVERLAY_FIRST} step {dist.step}  {dv.OVERLAY_SECOND} step {other.step}  █ both", style=muted)
            )
        return RichGroup(*parts, table)

    def strip_renderable(self) -> Any:
        held = self.data.get(self.kind, {})
        if len(held) < 2:
            return Text("")
        width = max(4, (self.size.width or 80) - LABEL_WIDTH - 4)
        strip = dv.heat_strip(held, width, nbins=5 if self._short() else None)
        if not strip.steps:
            return Text("")
        out = Text()
        out.append(
            f"All steps (x: step {strip.steps[0]}–{strip.steps[-1]}, y: {self.kind}; darker = more of the step's "
            f"values)\n",
            style="bold",
        )
        scale = max(1, min(4, width // len(strip.steps)))
        lines = strip.lines(scale)
        edges = strip.edges
        accent = tone_style(self, "accent")
        for i, line in enumerate(lines):
            label = dv.fmt_edge(edges[-1]) if i == 0 else (dv.fmt_edge(edges[0]) if i == len(lines) - 1 else "")
            out.append(f"{label:>{LABEL_WIDTH - 1}} ", style="dim")
            out.append(line + "\n", style=accent)
        marks = [" "] * len(strip.steps)
        for step, glyph in ((self.overlay, "△"), (self.step, "▲")):
            if step is not None and strip.steps:
                col = min(range(len(strip.steps)), key=lambda c: abs(strip.steps[c] - step))
                marks[col] = glyph
        out.append(" " * LABEL_WIDTH + "".join(m.ljust(scale) for m in marks), style="bold")
        return out

    # ---- actions -----------------------------------------------------------------------------
    def action_cursor(self, delta: int) -> None:
        steps = self.steps()
        target = rv.neighbour_step(steps, self.step, delta)
        if target is None:
            self.app.bell()
            return
        self.step = target
        self.following = target == steps[-1] and self.following
        self.render_all()

    def action_edge(self, last: bool) -> None:
        steps = self.steps()
        if not steps:
            return
        self.step = steps[-1] if last else steps[0]
        self.following = last
        self.render_all()

    def action_follow(self) -> None:
        self.following = True
        steps = self.steps()
        if steps:
            self.step = steps[-1]
        self.render_all()

    def action_toggle_type(self) -> None:
        self.kind = [k for k in DISTRIBUTION_TYPES if k != self.kind][0]
        self._subscribe(self.kind)
        steps = self.steps()
        if steps and (self.following or self.step not in steps):
            self.step = steps[-1]
        self.render_all()

    def action_overlay(self) -> None:
        self.overlay = None if self.overlay is not None else self.step
        self.render_all()
