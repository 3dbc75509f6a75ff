"""Under CI=true a test that skips for a missing tmux or Chromium fails (tests/ci_skips.py); elsewhere it skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SAMPLE = """
import pytest

@pytest.mark.skipif(True, reason="tmux is needed")
def test_marked():
    pass

def test_called():
    pytest.skip("chromium is not installed (apt-get install chromium)")

def test_imported():
    pytest.importorskip("playwright_that_is_not_there.sync_api")

def test_other_reason():
    pytest.skip("needs root and mount namespaces")
"""


def _run(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(TESTS.parent)}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.ci_skips",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rA",
            "test_sample.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ci_turns_a_missing_tmux_or_chromium_into_a_failure(tmp_path):
    done = _run(tmp_path, "true")
    assert done.returncode == 1, done.stdout
    assert "2 failed, 1 skipped, 1 error" in done.stdout, done.stdout
    assert "CI=true and this test would skip (tmux is needed); CI must run it" in done.stdout


def test_outside_ci_the_same_tests_skip(tmp_path):
    done = _run(tmp_path, "")
    assert done.returncode == 0, done.stdout
    assert "4 skipped" in done.stdout, done.stdout


def test_the_suite_loads_the_plugin():
    from tests import ci_skips, conftest

    assert conftest.pytest_runtest_makereport is ci_skips.pytest_runtest_makereport
