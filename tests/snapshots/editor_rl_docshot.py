"""Export docs/img/editor-rl.svg: the editor on an rl.toml with an RL error and a deferred warning.

    uv run python tests/snapshots/editor_rl_docshot.py

The same scene as tests/snapshots/test_editor_rl_snapshots.py (the app's own SVG export), at the
manual's size.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.snapshots.test_editor_rl_snapshots import RL_BAD, RLSnapHost  # noqa: E402
from tests.snapshots.test_editor_snapshots import _at  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "img"
SIZE = (110, 34)


async def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="editor-rl-docshot-"))
    os.chdir(tmp)
    app = RLSnapHost(RL_BAD, tmp)
    async with app.run_test(size=SIZE) as pilot:
        await _at(RL_BAD.split("\n").index("batch_size = 100"), 13)(pilot)
        app.save_screenshot(filename="editor-rl.svg", path=str(OUT))


if __name__ == "__main__":
    asyncio.run(main())
