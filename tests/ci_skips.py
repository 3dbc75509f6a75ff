"""A pytest plugin (loaded by tests/conftest.py): under ``CI=true`` a test that skips for a missing
tmux, Chromium or Playwright fails instead, so CI never goes green without the e2e or browser layer."""

from __future__ import annotations

import os
import re

import pytest

LAYERS = re.compile(r"\btmux\b|chromium|playwright", re.IGNORECASE)


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or os.environ.get("CI") != "true" or hasattr(report, "wasxfail"):
        return
    reason = _reason(report).removeprefix("Skipped: ")
    if LAYERS.search(reason):
        report.outcome = "failed"
        report.longrepr = f"CI=true and this test would skip ({reason}); CI must run it, so install what it needs."
