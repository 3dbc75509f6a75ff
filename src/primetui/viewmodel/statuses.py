"""What a run's status means on screen: its tone and glyph, its lifecycle, and the actions it allows.

Plain functions (no textual, no rich) over the runs :mod:`primetui.api.wire` validated
(:data:`primetui.api.plainrun.Run`), shared by the screens and the headless output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from primetui.api.plainrun import Run
from primetui.viewmodel.fmt import fmt_time

TERMINAL_RUN_STATUSES = frozenset({"COMPLETED", "FAILED", "STOPPED", "PAUSED"})
"""Run statuses after which nothing changes any more (the CLI's stop-wait set)."""

# Semantic tone per status: the UI maps a tone to a theme variable, headless prints the word.
# The word is always shown next to the colour, so a 16-colour or monochrome terminal loses nothing.
RUN_STATUS_TONE: dict[str, str] = {
    "QUEUED": "muted",
    "PENDING": "warning",
    "CREATING": "warning",
    "RUNNING": "accent",
    "PAUSING": "warning",
    "PAUSED": "muted",
    "COMPLETED": "success",
    "FAILED": "error",
    "STOPPED": "muted",
}

RUN_STATUS_GLYPH: dict[str, str] = {
    "QUEUED": "◌",
    "PENDING": "◌",
    "CREATING": "◐",
    "RUNNING": "▶",
    "PAUSING": "‖",
    "PAUSED": "‖",
    "COMPLETED": "✓",
    "FAILED": "✗",
    "STOPPED": "■",
}


def run_status(run: Run) -> str:
    return (run.status or "UNKNOWN").upper()


def status_tone(status: str) -> str:
    """Semantic tone (accent/success/warning/error/muted/plain) for a run status."""
    return RUN_STATUS_TONE.get(status.upper(), "plain")


def status_label(status: str) -> str:
    """Glyph plus word, readable without colour: ``▶ RUNNING``."""
    status = status.upper()
    return f"{RUN_STATUS_GLYPH.get(status, '?')} {status}"


@dataclass
class LifecycleEvent:
    label: str
    when: str


def run_end_time(run: Run) -> str | None:
    """When the run ended: its completion time, else (a run that ended without one) its last update."""
    if not run.completed_at and run_status(run) in TERMINAL_RUN_STATUSES:
        return run.updated_at
    return run.completed_at


def run_lifecycle(run: Run) -> list[LifecycleEvent]:
    """Created / Started / Completed (or Stopped/Failed/Paused) with timestamps, in order."""
    status = run_status(run)
    end_label = {"FAILED": "Failed", "STOPPED": "Stopped", "PAUSED": "Paused"}.get(status, "Completed")
    return [
        LifecycleEvent("Created", fmt_time(run.created_at)),
        LifecycleEvent("Started", fmt_time(run.started_at)),
        LifecycleEvent(end_label, fmt_time(run_end_time(run))),
    ]


_RESUMED_AS = re.compile(r"^Resumed as run (\S+?)\.$")


def resumed_as(run: Run) -> str | None:
    """The run a paused run was already resumed as (the platform then refuses another resume)."""
    match = _RESUMED_AS.match((run.notice or "").strip())
    return match.group(1) if match else None


def actions_for(run: Run) -> set[str]:
    """``run_actions`` for this run now: no resume once it was resumed as a run that still exists."""
    actions = run_actions(run_status(run))
    if resumed_as(run):
        actions.discard("resume")
    return actions


def run_actions(status: str) -> set[str]:
    """Actions the platform accepts for a run in this status (contract §2.5, CLI rules)."""
    status = status.upper()
    actions = {"copy_id", "copy_path"}
    if status in ("QUEUED", "PENDING", "CREATING", "RUNNING", "PAUSING"):
        actions.add("stop")
    if status == "RUNNING":
        actions |= {"pause", "restart"}
    if status == "PAUSED":
        actions.add("resume")
    if status in TERMINAL_RUN_STATUSES:
        actions.add("delete")
    return actions
