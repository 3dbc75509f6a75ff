"""Followers: UI-free poll loops that turn the platform's snapshots into streams of new things.

The platform has no streaming endpoints: run status (R2), metrics (R10) and logs (R7) are polled.
A follower owns one poll loop and its cursor, and yields only what is new, as typed events:

- `RunWatcher`: the run's status and step; `RunUpdate` whenever either (or the run) changes.
- `MetricsFollower`: new metric rows, fetched incrementally with `min_step`.
- `AllRuns` (in ``allruns``): every run of the account, page by page, for the runs list.
- `TransfersFollower`: a volume's S3 transfers; `TransfersUpdate` with the jobs that just ended.
- `LogFollower`: new log lines of one (component, pod_index, env_name), deduplicated across
  overlapping windows, with an explicit `LogGap` whenever continuity cannot be proved.

Every follower exposes `state`, `last_success` (monotonic and wall time of its last good poll,
for staleness in the UI), `error` (the last error, cleared on success), backs off on 429/5xx/
network trouble with exponential backoff and jitter (at most `transient_backoff`, 20 s, until
`outage_after` seconds pass without a good poll), and stops by itself only after a final fetch
that succeeded once the run is terminal (COMPLETED, FAILED, STOPPED, PAUSED). Consume one with

    async for event in follower: ...          # e.g. inside a Textual worker
    await follower.run(callback)              # or push events to a (sync or async) callback

Clock, sleep and randomness are injectable so tests run instantly and deterministically.

Split by resource around one polling core: ``polling`` (the loop and the events), ``runs``,
``metrics``, ``logs`` and ``windows`` (log-window continuity).
"""

from primetui.api.followers.logs import (
    MAX_TAIL_LINES,
    PLAIN_SNAPSHOT_LINES,
    SEARCH_LOOKBACK_SECONDS,
    SHRINK_AFTER_CALM_POLLS,
    LogFollower,
    stream_key,
)
from primetui.api.followers.metrics import MetricsFollower
from primetui.api.followers.polling import (
    DataNotes,
    FollowerEvent,
    FollowerState,
    LogGap,
    LogLines,
    MetricRows,
    PollFailed,
    PollStamp,
    RunUpdate,
    StateChanged,
    Stopped,
    UnexpectedPollError,
)
from primetui.api.followers.runs import RunWatcher
from primetui.api.followers.transfers import TransfersFollower, TransfersUpdate
from primetui.api.followers.windows import MIN_PROOF, WindowDiff, diff_windows

__all__ = [
    "TransfersFollower",
    "TransfersUpdate",
    "MAX_TAIL_LINES",
    "MIN_PROOF",
    "PLAIN_SNAPSHOT_LINES",
    "SEARCH_LOOKBACK_SECONDS",
    "SHRINK_AFTER_CALM_POLLS",
    "DataNotes",
    "FollowerEvent",
    "FollowerState",
    "LogFollower",
    "LogGap",
    "LogLines",
    "MetricRows",
    "MetricsFollower",
    "PollFailed",
    "PollStamp",
    "RunUpdate",
    "RunWatcher",
    "StateChanged",
    "Stopped",
    "UnexpectedPollError",
    "WindowDiff",
    "diff_windows",
    "stream_key",
]
