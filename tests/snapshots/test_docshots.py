"""The screenshots in docs/ are what the app draws now: each one the docshots script makes is
rendered again and compared with the file (regenerate with the script after an intended change)."""

from __future__ import annotations

import time

import pytest
import diagnose_docshots
from rl_data.docshots import SHOTS as RL_SHOTS
from screens_data.docshots import OUT, SHOTS, render


@pytest.mark.parametrize("shot", SHOTS + RL_SHOTS, ids=lambda s: s.name)
async def test_docs_screenshot_is_what_the_app_draws(shot):
    path = OUT / f"{shot.name}.svg"
    assert path.read_text(encoding="utf-8") == await render(shot), (
        f"{path} is not what the app draws now; run `uv run python tests/snapshots/screens_data/docshots.py`"
    )


@pytest.fixture
def in_utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()  # the worker's later tests see the machine's zone again


@pytest.mark.parametrize("name", list(diagnose_docshots.SCENES))
async def test_diagnose_screenshot_is_what_the_app_draws(name, in_utc):
    make, steps = diagnose_docshots.SCENES[name]
    path = OUT / f"{name}.svg"
    assert path.read_text(encoding="utf-8") == await diagnose_docshots.render(make(), steps), (
        f"{path} is not what the app draws now; run `uv run python tests/snapshots/diagnose_docshots.py`"
    )
