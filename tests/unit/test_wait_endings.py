"""``wait`` keeps a script informed: a retry note at least every minute, ``--timeout`` from the start."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from types import SimpleNamespace

from primetui.commands import waiting
from primetui.commands.cli import build_parser
from primetui.api.errors import UnreachableError
from primetui.api.followers import PollFailed


class Clock:
    now = 0.0

    def monotonic(self) -> float:
        return self.now


def test_a_run_that_cannot_be_polled_is_noted_at_least_once_a_minute(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(waiting, "time", SimpleNamespace(monotonic=clock.monotonic, strftime=time.strftime))

    class Unreachable:
        """A watcher of a platform that stays away for 40 retries, 20 s apart (the follower's longest backoff)."""

        def __init__(self, client, run_id, interval):  # noqa: ANN001
            pass

        async def _events(self):
            for attempt in range(1, 41):
                clock.now += 20.0
                yield PollFailed(
                    UnreachableError("Cannot reach http://127.0.0.1:1 (connection refused)"), 20.0, attempt
                )

        def __aiter__(self):
            return self._events()

        def stop(self) -> None:
            pass

    monkeypatch.setattr(waiting, "RunWatcher", Unreachable)
    out = io.StringIO()
    noted: list[float] = []

    class Recording(waiting.Reporter):
        def problem(self, message: str) -> None:
            noted.append(clock.now)
            super().problem(message)

    code = asyncio.run(waiting.wait_runs(None, ["r1"], Recording(out, io.StringIO(), as_json=True)))
    assert code == waiting.EXIT_TIMEOUT
    gaps = [b - a for a, b in zip([0.0, *noted], [*noted, clock.now], strict=True)]
    assert max(gaps) <= waiting.RETRY_NOTE_EVERY, f"silent for {max(gaps)} s: notes at {noted}"
    warnings = [json.loads(ln) for ln in out.getvalue().splitlines() if '"warning"' in ln]
    attempts = [int(w["message"].split("(attempt ")[1].split(";")[0]) for w in warnings]
    assert attempts[-1] > 35, f"notes stopped after attempt {attempts[-1]}"


def test_the_timeout_counts_from_the_start_even_while_the_platform_starts(monkeypatch):
    release = threading.Event()

    def slow_start(local: bool):  # noqa: ANN202 - a local platform that takes for ever to start
        release.wait(60)
        raise AssertionError("the command waited for the start past its --timeout")

    monkeypatch.setattr(waiting, "_local_settings", slow_start)
    args = build_parser().parse_args(["wait", "r1", "--timeout", "0.5", "--json", "--interval", "1", "--local"])
    out, err = io.StringIO(), io.StringIO()
    try:
        code = waiting.main(args, out, err)
    finally:
        release.set()
    assert code == waiting.EXIT_TIMEOUT
    assert "timed out after 0.5 s while the platform was starting" in err.getvalue()
    lines = [json.loads(ln) for ln in out.getvalue().splitlines()]
    # each run gets its end line, its status never seen (docs/ops.md), then done
    assert [(e["event"], e.get("run_id"), e.get("status")) for e in lines] == [
        ("end", "r1", None),
        ("done", None, "TIMEOUT"),
    ]
    assert lines[-1] == {"event": "done", "status": "TIMEOUT", "exit": 2, "timed_out": ["r1"]}


def test_a_setup_failure_still_ends_the_json_stream(monkeypatch):
    monkeypatch.setattr(waiting, "_local_settings", lambda local: (SimpleNamespace(api_key=""), None))
    args = build_parser().parse_args(["dispatch", "x.toml", "--volume", "v", "--wait", "--json", "--interval", "1"])
    out, err = io.StringIO(), io.StringIO()
    assert waiting.main(args, out, err) == waiting.EXIT_CONFIG  # no API key: configuration, 78
    lines = [json.loads(ln) for ln in out.getvalue().splitlines()]
    assert lines[0]["event"] == "refused" and lines[0]["reason"] == "settings" and "No API key" in lines[0]["message"]
    assert lines[-1] == {"event": "done", "status": "MISCONFIGURED", "exit": 78}
