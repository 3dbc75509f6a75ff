"""The platform client, followers, settings and prefs load without any UI or CLI toolkit."""

import subprocess
import sys


def test_client_stack_imports_no_ui_toolkit():
    code = (
        "import sys\n"
        "import primetui.api.client, primetui.api.followers, primetui.settings, primetui.prefs\n"
        "import primetui.api as api\n"
        "assert api.PrimeClient is primetui.api.client.PrimeClient\n"
        "leaked = sorted(m for m in ('textual', 'rich', 'click', 'pygments') if m in sys.modules)\n"
        "print(','.join(leaked))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core imports pulled in: {out.stdout.strip()}"


def test_httpx_cli_stand_in_still_runs_the_real_cli():
    code = (
        "import sys, primetui.api.client, httpx\n"
        "assert 'rich' not in sys.modules\n"
        "import httpx._main as stub\n"
        "try:\n"
        "    stub.main(['--help'])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "Usage: httpx" in out.stdout and "exit 0" in out.stdout
