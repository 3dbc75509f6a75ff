"""The dashboard's memory: last good data per list, connection health, watched runs.

Plain Python (no textual) so it is easy to test. The app owns one :class:`DashboardState`;
screens write the replies they get into it and read from it to paint, so when the platform
is unreachable the last good data stays on screen with a staleness marker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from primetui.api.plainrun import Run
from primetui.viewmodel.fmt import Clock, fmt_duration
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.statuses import run_status

if TYPE_CHECKING:
    from primetui.api.models import AvailableFFTModelsResponse, Volume, VolumeSession

STALE_AFTER_SECONDS = 20.0
"""A list older than this (no good poll since) gets the staleness marker in the header."""


@dataclass
class Connection:
    """Health of the link to the platform, from the outcome of every poll and action."""

    last_ok: datetime | None = None
    last_error: str | None = None
    last_error_at: datetime | None = None
    failures: int = 0

    def ok(self, now: datetime) -> None:
        self.mistake = None
        self.cached_at = None
        self.last_ok = now
        self.last_error = None
        self.failures = 0

    def failed(self, message: str, now: datetime) -> None:
        self.last_error = message
        self.last_error_at = now
        self.failures += 1

    def age(self, now: datetime) -> float | None:
        return (now - self.last_ok).total_seconds() if self.last_ok else None

    cached_at: str | None = None
    """Set while the screen shows the on-disk cache and no live reply has arrived yet."""

    mistake: str | None = None
    """A setting that cannot work, in a few words (``bad setting: PRIME_API_KEY``): while set, the
    header names it; the platform is not "unreachable", it was never asked."""

    def mistaken(self, sentence: str, short: str, now: datetime) -> None:
        """A setting cannot work: ``sentence`` is the last error (screens say it), ``short`` the header's."""
        self.failed(sentence, now)
        self.mistake = short

    def describe(self, now: datetime) -> tuple[str, str]:
        """(tone, text) for the header: ``("success", "● live")``, ``("warning", "◌ stale 45s")``."""
        if self.mistake:
            return "error", f"✗ {self.mistake}"
        age = self.age(now)
        if self.cached_at and self.last_ok is None and not self.last_error:
            return "muted", f"◌ cached {self.cached_at} · refreshing"
        if self.last_error:
            stale = f" · data {fmt_duration(age)} old" if age is not None else ""
            return "error", f"✗ unreachable{stale} · retrying"
        if age is None:
            return "muted", "◌ connecting"
        if age > STALE_AFTER_SECONDS:
            return "warning", f"◌ stale {fmt_duration(age)}"
        return "success", "● live"


@dataclass
class DashboardState:
    """Last good replies and what the user watches."""

    clock: Clock
    connection: Connection = field(default_factory=Connection)
    runs: list[Run] = field(default_factory=list)
    runs_total: int | None = None
    runs_page: int = 1
    runs_total_pages: int | None = None
    runs_loaded: bool = False
    runs_complete: bool = False
    """Every run of the account is in ``runs`` (the runs list reads them page by page)."""
    progress: dict[str, RunProgress] = field(default_factory=dict)
    volumes: list[Volume] = field(default_factory=list)
    volumes_loaded: bool = False
    sessions: dict[str, list[VolumeSession]] = field(default_factory=dict)
    models: AvailableFFTModelsResponse | None = None
    watched: set[str] = field(default_factory=set)
    statuses: dict[str, str] = field(default_factory=dict)

    def now(self) -> datetime:
        return self.clock()

    def observe_run(self, run: Run) -> tuple[str, str] | None:
        """Remember a run's status; return (old, new) when a WATCHED run changed status."""
        run_id = run.id
        new = run_status(run)
        old = self.statuses.get(run_id)
        self.statuses[run_id] = new
        if old is not None and old != new and run_id in self.watched:
            return old, new
        return None

    def note_run(self, run: Run) -> None:
        """Put a run read on its own (its screen) into the runs list: replace it, or add it first."""
        run_id = run.id
        if not run_id:
            return
        for i, known in enumerate(self.runs):
            if known.id == run_id:
                self.runs[i] = run
                return
        self.runs.insert(0, run)

    def find_run(self, run_id: str) -> Run | None:
        return next((r for r in self.runs if r.id == run_id), None)

    def find_volume(self, name: str) -> Volume | None:
        return next((v for v in self.volumes if v.name == name), None)
