"""The core (api, sft, shell) must stay importable without textual or rich: fast and headless."""

import subprocess
import sys


def test_core_does_not_import_ui_toolkit():
    code = (
        "import sys, primetui.api, primetui.sft, primetui.shell\n"
        "leaked = sorted(m for m in ('textual', 'rich') if m in sys.modules)\n"
        "print(','.join(leaked))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core imports pulled in: {out.stdout.strip()}"
