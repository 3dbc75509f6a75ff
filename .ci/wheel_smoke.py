"""Smoke test of the installed wheel: the dashboard, headless, reaches the runs screen with no warning.

Run by `.ci/wheel-smoke` with the python of a fresh venv that holds only the built wheel, so it
sees what a user who ran `uv tool install primetui` sees: the app is built by the same
`primetui.commands.launch.build_app` that `primetui` uses, started with its own HOME, and driven by
Textual's headless runner.

    wheel_smoke.py platform   the base install, on the platform named by PRIME_BASE_URL and PRIME_API_KEY
    wheel_smoke.py local      `primetui --local` (needs primetui[local]); it stops the platform it started by its pid
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import tempfile
from argparse import Namespace
from pathlib import Path


async def drive(app) -> list[str]:
    problems: list[str] = []
    async with app.run_test(headless=True, size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.1)
            if type(app.screen).__name__ == "RunsScreen" and app.screen.query("#runs-table"):
                break
        else:
            problems.append(f"the runs screen did not appear (on {type(app.screen).__name__})")
        await pilot.pause(1.0)
        for note in app._notifications:
            if note.severity in ("warning", "error"):
                problems.append(f"{note.severity} toast: {note.message}")
        if app.theme != "primetui-dark":
            problems.append(f"theme is {app.theme!r}, not the shipped primetui-dark")
    return problems


def main(mode: str) -> int:
    import primetui
    from primetui.commands.launch import build_app

    if "site-packages" not in (primetui.__file__ or ""):
        print(f"wheel smoke: primetui was imported from {primetui.__file__}, not an installed wheel", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="primetui-smoke-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        data_dir = Path(tmp) / "local"
        os.environ.update(HOME=str(home), PRIMETUI_LOCAL_DATA_DIR=str(data_dir),
                          PRIMETUI_CONFIG_DIR=str(home / "config"), XDG_CACHE_HOME=str(home / "cache"))
        keep = {"PRIME_BASE_URL", "PRIME_API_KEY"} if mode == "platform" else set()
        for key in [k for k in os.environ if k.startswith("PRIME_") and k not in keep]:
            del os.environ[key]
        app, code = build_app(Namespace(local=mode == "local", command=None))
        try:
            if app is None:
                print(f"wheel smoke: the app did not start (exit {code})", file=sys.stderr)
                return 1
            problems = asyncio.run(drive(app))
        finally:
            info = data_dir / "server.json"
            if info.exists():
                pid = int(json.loads(info.read_text(encoding="utf-8"))["pid"])
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
    for problem in problems:
        print(f"wheel smoke: {problem}", file=sys.stderr)
    if not problems:
        what = "`primetui --local`" if mode == "local" else "`primetui` on the platform"
        print(f"wheel smoke: {what} reached the runs screen with no warning")
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:] not in (["platform"], ["local"]):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
