"""Docs that cannot drift from the code: the keys page and the exit codes of `primetui wait`."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from primetui.commands import waiting

ROOT = Path(__file__).resolve().parents[1]
WAIT_CODES = {waiting.EXIT_OK, waiting.EXIT_FAILED, waiting.EXIT_TIMEOUT, waiting.EXIT_SETUP,
              130,  # KeyboardInterrupt (waiting.main)
              128 + signal.SIGTERM}  # the default SIGTERM action, as a shell reports it


def test_keys_page_is_what_keys_doc_generates():
    from primetui.ui.keys_doc import keys_markdown

    assert (ROOT / "docs" / "keys.md").read_text(encoding="utf-8") == keys_markdown(), (
        "docs/keys.md is stale: run `uv run python -m primetui.ui.keys_doc > docs/keys.md`"
    )


def test_wait_help_lists_every_exit_code():
    out = subprocess.run([sys.executable, "-m", "primetui", "wait", "--help"], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    listed = {int(m) for m in re.findall(r"^\s+(\d+)\s{2,}\S", out.stdout.split("exit codes", 1)[1], re.M)}
    assert listed == WAIT_CODES, out.stdout


def test_readme_and_ops_page_list_every_wait_exit_code():
    row = next(ln for ln in (ROOT / "README.md").read_text().splitlines() if ln.startswith("| `primetui wait"))
    assert {int(c) for c in re.findall(r"\b(\d+) ", row.split("|")[2])} == WAIT_CODES, row
    ops = (ROOT / "docs" / "ops.md").read_text()
    assert {int(c) for c in re.findall(r"^\| (\d+) \|", ops, re.M)} == WAIT_CODES
