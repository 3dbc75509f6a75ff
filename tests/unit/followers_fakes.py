"""A scripted stand-in for PrimeClient and a fake clock, so follower tests run instantly."""

from __future__ import annotations

from typing import Any

from primetui.api.models import LogsResponse, MetricsResponse, Progress, RLRun


def run_status(status: str, **extra: Any) -> RLRun:
    return RLRun(
        id="r1",
        user_id="u1",
        status=status,
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
        **extra,
    )


class FakeTime:
    """Monotonic clock + wall clock + sleep that only advances the clock."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def wall(self) -> float:
        return 1_700_000_000.0 + (self.now - 100.0)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _next(script: list[Any], what: str) -> Any:
    if not script:
        raise AssertionError(f"unexpected extra {what} call")
    item = script.pop(0)
    if isinstance(item, BaseException):
        raise item
    return item


class Scripted:
    """Each method returns (or raises) the next scripted item."""

    def __init__(self, *, logs=(), metrics=(), runs=(), progress=()) -> None:
        self.logs = list(logs)
        self.metrics = list(metrics)
        self.runs = list(runs)
        self.progress = list(progress)
        self.log_calls: list[tuple[int, dict[str, Any]]] = []
        self.metric_calls: list[dict[str, Any]] = []
        self.run_calls: list[str] = []
        self.progress_calls = 0

    async def get_logs(self, run_id: str, tail_lines: int = 1000, **kw: Any) -> LogsResponse:
        self.log_calls.append((tail_lines, kw))
        return LogsResponse(logs=_next(self.logs, "get_logs"))

    async def get_metrics(self, run_id: str, **kw: Any) -> MetricsResponse:
        self.metric_calls.append(kw)
        # Through the wire boundary, as PrimeClient.get_metrics does.
        from primetui.api.boundary import metric_rows

        rows, notes = metric_rows(_next(self.metrics, "get_metrics"))
        reply = MetricsResponse.model_construct(metrics=rows)
        reply.notes.extend(notes)
        return reply

    async def get_run(self, run_id: str) -> RLRun:
        self.run_calls.append(run_id)
        return _next(self.runs, "get_run")

    async def get_progress(self, run_id: str) -> Progress:
        self.progress_calls += 1
        return Progress(latest_step=_next(self.progress, "get_progress"))
