"""Issue 23 item 9: a hostile-platform fuzz of the client, as the route fuzz is for the server.

A fake platform over real HTTP on 127.0.0.1 (:mod:`tests.wire_platform`) answers every route the
client reads, with fixed-seed mutations from :mod:`tests.wire_fuzz`: types changed, huge, deep,
non-finite and negative values, hostile strings, 100,000 rows, HTTP errors, cut, gzip-bombed,
trickled and non-JSON bodies.

- The headless commands (``runs --once``, ``run ID --once``, ``compare A B --once``, with and
  without ``--json``) run as subprocesses: they exit 0 or 1 (never a crash), print no control
  byte, say a failure in one ``primetui: …`` sentence, never "Unexpected problem" or a traceback,
  stay under ``RSS_LIMIT_MB`` and finish within their deadline; ``--json`` stays valid JSON.
- A Pilot walk of the dashboard (runs, a run and its tabs, volumes, models, compare) on each
  scenario: the app keeps running, no bug report is written, no toast says "Unexpected problem".

The cases are a fixed list (seed, route, kind): a failure names its seed and reproduces.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.cli_zygote import python
from tests.e2e.test_hostile_text import foreign_controls
from tests.wire_fuzz import KINDS, ROUTES, Scenario
from tests.wire_platform import RUN_ID, WirePlatform

pytestmark = pytest.mark.timeout(240)

HEADLESS_ROUTES = ["runs", "run", "metrics", "logs", "checkpoints"]
"""What the headless commands read."""
COMMANDS = [
    ["runs", "--once"],
    ["run", RUN_ID, "--once"],
    ["compare", RUN_ID, "run1fuzz", "--once"],
    ["runs", "--once", "--json"],
    ["run", RUN_ID, "--once", "--json"],
    ["compare", RUN_ID, "run1fuzz", "--once", "--json"],
]
HEADLESS_CASES = [
    (
        1000 + i,
        [(HEADLESS_ROUTES[i % 5], KINDS[i % len(KINDS)]), (HEADLESS_ROUTES[(i + 2) % 5], KINDS[(i + 8) % len(KINDS)])],
        COMMANDS[i % len(COMMANDS)],
    )
    for i in range(8)
]
"""Fixed cases: every headless route, every mutation kind, every command (plus one drawn route each)."""
DASHBOARD_CASES = [
    (2000 + i, [(ROUTES[i], KINDS[(3 * i) % len(KINDS)]), (ROUTES[i + 7], KINDS[(3 * i + 5) % len(KINDS)])])
    for i in range(7)
]
"""Every route the client reads is mutated in one dashboard walk (plus one drawn route each)."""

REPLY_DEADLINE = 2.0
HEADLESS_DEADLINE = 30.0  # the command gives up past it: room for reading a 32 MiB bomb on a loaded machine
RSS_LIMIT_MB = 600
WRAPPER = (
    "import atexit, resource, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nRSS_KB=%d\\n' % "
    "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
    "from primetui.commands.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
_RSS = re.compile(r"\nRSS_KB=(\d+)\n")


def _env(tmp_path: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRIME", "XDG_"))}
    env.update(
        HOME=str(tmp_path),
        PRIMETUI_CONFIG_DIR=str(tmp_path / "cfg"),
        PRIMETUI_CRASH_DIR=str(tmp_path / "crashes"),
        PRIME_BASE_URL=base_url,
        PRIME_API_KEY="pit_fuzz_key_0123456789",
        PRIMETUI_REPLY_DEADLINE=str(REPLY_DEADLINE),
        PRIMETUI_HEADLESS_DEADLINE=str(HEADLESS_DEADLINE),
        TERM="xterm-256color",
    )
    return env


def _id(seed: int, forced: list[tuple[str, str]]) -> str:
    return f"{seed}-" + "-".join(f"{r}={k}" for r, k in forced)


def test_the_cases_cover_every_route_and_every_kind():
    assert {k for _, forced, _ in HEADLESS_CASES for _, k in forced} == set(KINDS)
    assert {r for _, forced, _ in HEADLESS_CASES for r, _ in forced} == set(HEADLESS_ROUTES)
    assert {r for _, forced in DASHBOARD_CASES for r, _ in forced} == set(ROUTES)


@pytest.mark.parametrize(("seed", "forced", "command"), HEADLESS_CASES, ids=[_id(s, f) for s, f, _ in HEADLESS_CASES])
def test_headless_commands_survive_a_hostile_platform(seed, forced, command, tmp_path):
    scenario = Scenario.draw(seed, forced)
    with WirePlatform(scenario.reply) as wp:
        # A bound on a hang, not a speed check: past its deadline the command must have given up.
        # A process of its own, forked from a zygote that imported the commands once (tests/cli_zygote.py)
        out = python(["-c", WRAPPER, *command], _env(tmp_path, wp.base_url), timeout=HEADLESS_DEADLINE + 30)
    err = out.stderr.decode("utf-8", "replace")
    rss = _RSS.search(err)
    err = _RSS.sub("\n", err).strip()
    what = f"{scenario.describe()} · primetui {' '.join(command)} · exit {out.returncode}\n{err[:2000]}"
    assert out.returncode in (0, 1), what
    assert "Traceback" not in err and "Unexpected problem" not in err, what
    assert foreign_controls(out.stdout) == [] and foreign_controls(out.stderr) == [], what
    assert not (tmp_path / "crashes").exists(), what
    if out.returncode == 1:
        assert re.search(r"^primetui: \S.*[.]$", err, re.M), what
    elif "--json" in command:
        json.loads(out.stdout)
    assert rss and int(rss.group(1)) < RSS_LIMIT_MB * 1024, f"{int(rss.group(1)) // 1024 if rss else '?'} MB · {what}"
    assert b"pit_fuzz_key_0123456789" not in out.stdout + out.stderr


@pytest.mark.parametrize(("seed", "forced"), DASHBOARD_CASES, ids=[_id(s, f) for s, f in DASHBOARD_CASES])
async def test_the_dashboard_survives_a_hostile_platform(seed, forced, tmp_path, monkeypatch):
    from primetui.api.client import PrimeClient
    from primetui.ui.app import PrimeApp
    from tests.ui.dash_helpers import notifications
    from tests.waiting import until

    monkeypatch.setenv("PRIMETUI_REPLY_DEADLINE", str(REPLY_DEADLINE))
    monkeypatch.setenv("PRIMETUI_CRASH_DIR", str(tmp_path / "crashes"))
    scenario = Scenario.draw(seed, forced)
    with WirePlatform(scenario.reply) as wp:
        app = PrimeApp(PrimeClient(wp.base_url, "k"), None, None, poll_scale=0.1, platform_label="wire")
        async with app.run_test(size=(140, 44), notifications=True) as pilot:
            await until(
                pilot,
                lambda: app.state.runs_loaded or app.state.connection.last_error,
                what=f"the runs list · {scenario.describe()}",
                timeout=REPLY_DEADLINE * 4 + 10,
            )
            app.open_run(RUN_ID)
            await pilot.pause()
            for key in "1234567":
                await pilot.press(key)
                await pilot.pause()
            await pilot.press("escape")
            for key in ("v", "m", "r"):
                await pilot.press(key)
                await pilot.pause()
            from primetui.ui.screens.compare import CompareScreen

            app.push_screen(CompareScreen([RUN_ID, "run1fuzz"]))
            await pilot.pause()
            await until(pilot, lambda: len(wp.requests) > 6, what=f"the walk's requests · {scenario.describe()}")
            assert app.is_running, scenario.describe()
        toasts = notifications(app)
    assert app.crash_report is None, scenario.describe()
    assert not any("Unexpected problem" in t for t in toasts), f"{scenario.describe()}: {toasts}"
