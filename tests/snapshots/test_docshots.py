"""The screenshots in docs/ are what the app draws now: each one the docshots script makes is
rendered again and compared with the file (regenerate with the script after an intended change)."""

from __future__ import annotations

import pytest
from screens_data.docshots import OUT, SHOTS, render


@pytest.mark.parametrize("shot", SHOTS, ids=lambda s: s.name)
async def test_docs_screenshot_is_what_the_app_draws(shot):
    path = OUT / f"{shot.name}.svg"
    assert path.read_text(encoding="utf-8") == await render(shot), (
        f"{path} is not what the app draws now; run `uv run python tests/snapshots/screens_data/docshots.py`"
    )
