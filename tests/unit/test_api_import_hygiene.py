"""The platform client, followers, settings and prefs load without any UI or CLI toolkit."""

import subprocess
import sys


def test_client_stack_imports_no_ui_toolkit_and_httpx_cli_still_works():
    code = (
        "import sys\n"
        "import primetui.api.client, primetui.api.followers, primetui.config.settings, primetui.config.prefs\n"
        "import primetui.api as api\n"
        "assert api.PrimeClient is primetui.api.client.PrimeClient\n"
        "leaked = sorted(m for m in ('textual', 'rich', 'click', 'pygments') if m in sys.modules)\n"
        "print('leaked:' + ','.join(leaked))\n"
        # the stand-in for httpx's own command line still runs the real one when called
        "import httpx._main as stub\n"
        "try:\n"
        "    stub.main(['--help'])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "leaked:\n" in out.stdout, f"core imports pulled in: {out.stdout.splitlines()[:1]} {out.stderr[-500:]}"
    assert "Usage: httpx" in out.stdout and "exit 0" in out.stdout
