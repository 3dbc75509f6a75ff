"""Hostile text never reaches the terminal as a control: proven on the bytes the app writes.

The platform is the real local platform behind :class:`tests.hostile_platform.HostileProxy` on
127.0.0.1, so every name, message, model id, env name, log line and metric name carries OSC 0/2/8/52,
CSI, C1, DCS, APC, bidi overrides and isolates, BEL, DEL and ``[bold red]markup[/]``.

- The dashboard runs in tmux; ``pipe-pane`` records every byte it writes while the test walks the
  runs list, a run and all its tabs, volumes and sessions, models, the palette, help, the editor and
  its problems, and a toast carrying a hostile error. Every ESC in that stream must begin a CSI
  sequence (what Textual itself emits); no OSC/DCS/APC/PM/SOS, BEL, C1 or bidi character may appear.
  The pane title must not become "pwned", no clipboard buffer may be set, and the hostile text must
  be on screen in its visible form (``␛]0;pwned␇``, literal ``[bold red]markup[/]``).
- ``primetui runs --once`` and ``primetui run ID --once`` print no control byte; ``--json`` keeps
  the hostile name exactly.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.cli_zygote import python
from tests.hostile_platform import HOSTILE, HostileProxy
from tests.e2e.test_dashboard_tmux import Tmux as DashboardTmux

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

VISIBLE = "␛]0;pwned␇"
# One CSI sequence: ESC [ parameter bytes, intermediate bytes, final byte.
_CSI = re.compile(rb"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
# Textual's own OSC 22 (mouse pointer shape, e.g. ``ESC ] 22 ; default BEL``): the only OSC it emits.
_OWN_OSC = re.compile(rb"\x1b\]22;[a-z-]+\x07")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def foreign_controls(raw: bytes) -> list[str]:
    """Every control in ``raw`` that is not a CSI sequence, Textual's pointer OSC 22, \\r, \\n or \\b."""
    rest = _CSI.sub(b"", _OWN_OSC.sub(b"", raw))
    problems = []
    for m in re.finditer(rb"[\x00-\x07\x0b-\x0c\x0e-\x1f\x7f]", rest):
        problems.append(repr(rest[max(0, m.start() - 20) : m.end() + 20]))
    text = rest.decode("utf-8", "replace")
    for m in re.finditer("[\x80-\x9f]", text):
        problems.append(repr(text[max(0, m.start() - 20) : m.end() + 20]))
    for m in _BIDI.finditer(text):
        problems.append(repr(text[max(0, m.start() - 20) : m.end() + 20]))
    return problems


def test_foreign_controls_sees_each_hostile_sequence():
    # The detector itself must catch what the hostile text carries.
    assert foreign_controls(b"\x1b[2J\x1b[31mok\r\n\x1b]22;default\x07") == []
    assert foreign_controls(b"\x1b]22;x\x1b]0;pwned\x07")
    assert len(foreign_controls(HOSTILE.encode())) >= 10
    assert (
        foreign_controls("\u202e".encode()) and foreign_controls("\x9b".encode()) and foreign_controls(b"\x1b]0;x\x07")
    )


async def _completed_run(lp) -> str:
    """A short walkthrough run on the demo volume, finished, so logs, metrics and checkpoints exist."""
    from primetui.api.client import PrimeClient

    cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
    cfg["max_steps"] = 5
    async with PrimeClient(lp.base_url, lp.token) as c:
        run_id = (await c.create_run(cfg, mode="sft", volume="research", name="team-run")).run_id
        for _ in range(600):
            if (await c.get_run(run_id)).status in ("COMPLETED", "FAILED"):
                return run_id
            await asyncio.sleep(0.1)
    raise AssertionError("the run did not finish")


@pytest.fixture(scope="module")
def hostile(local_platform):
    run_id = asyncio.run(_completed_run(local_platform))
    with HostileProxy(local_platform.base_url) as proxy:
        yield local_platform, proxy, run_id


def _env(tmp_path: Path, lp, proxy) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIME")}
    env.update(
        HOME=str(tmp_path),
        PRIMETUI_CONFIG_DIR=str(tmp_path / "cfg"),
        PRIME_BASE_URL=proxy.base_url,
        PRIME_API_KEY=lp.token,
        TERM="xterm-256color",
    )
    return env


def test_headless_commands_print_no_control_and_json_stays_exact(hostile, tmp_path):
    lp, proxy, run_id = hostile
    env = _env(tmp_path, lp, proxy)

    def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        return python(["-m", "primetui", *args], env, timeout=120)  # forked from tests/cli_zygote.py's zygote

    for args in (("runs", "--once"), ("run", run_id, "--once")):
        out = cli(*args)
        assert out.returncode == 0, out.stderr
        assert foreign_controls(out.stdout) == [], args
        assert VISIBLE in out.stdout.decode(), out.stdout.decode()
        assert "[bold red]markup[/]" in out.stdout.decode()
        assert foreign_controls(out.stderr) == []
    listing = json.loads(cli("runs", "--once", "--json").stdout)
    row = next(r for r in listing["runs"] if r["id"] == run_id)
    assert row["name"].endswith(HOSTILE) and row["model"].endswith(HOSTILE)  # exact, through JSON escaping
    detail = json.loads(cli("run", run_id, "--once", "--json").stdout)
    assert detail["volume"] == "research" + HOSTILE
    # A platform error message with controls: one clean sentence on stderr.
    missing = cli("run", "no-such-run", "--once")
    assert missing.returncode == 1
    assert foreign_controls(missing.stderr) == [] and b"\x1b" not in missing.stderr


# The run screen's tabs (as its header lists them), and what each one's key must bring up.
RUN_TABS = (
    "Overview  Config  Logs  Charts  Components",
    {"2": "max_steps = 5", "3": "Starting SFT trainer", "4": "loss/mean", "5": "Kind      Status"},
)


class Tmux(DashboardTmux):
    """The e2e tmux driver on its session ``h``, plus pressing a key until its effect shows."""

    def __init__(self, sock: str) -> None:
        super().__init__(sock)
        self.target = "h"

    def press_until(self, what: str, *keys: str, tries: int = 4) -> str:
        """Press ``keys`` until ``what`` shows (a key can land while focus is still moving)."""
        for _ in range(tries - 1):
            self.keys(*keys)
            try:
                return self.wait(what, limit=5.0)
            except AssertionError:
                pass
        self.keys(*keys)
        return self.wait(what)


def test_dashboard_writes_no_outside_control_to_the_terminal(hostile, tmp_path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    lp, proxy, run_id = hostile
    env = _env(tmp_path, lp, proxy)
    raw = tmp_path / "pane.raw"
    shutil.copy(Path(lp.data_dir) / "sft.toml", tmp_path / "sft.toml")  # what `e` opens
    tmux = Tmux(f"primetui-hostile-{os.getpid()}-{time.monotonic_ns()}")
    command = " ".join(
        f"{k}={json.dumps(v)}"
        for k, v in env.items()
        if k in ("HOME", "PRIMETUI_CONFIG_DIR", "PRIME_BASE_URL", "PRIME_API_KEY", "TERM", "PATH")
    )
    try:
        tmux.run(
            "new-session",
            "-d",
            "-s",
            "h",
            "-x",
            "230",
            "-y",
            "50",
            "-c",
            str(tmp_path),
            f"sleep 0.5; env -i {command} {sys.executable} -m primetui",
        )
        tmux.run("set-option", "-t", "h", "set-clipboard", "on")
        tmux.run("pipe-pane", "-t", "h", "-o", f"cat >> {raw}")
        # The runs list: names shown as text (a long name is shortened there, so the symbols of
        # its tail are checked on the run screen, which shows the whole name).
        screens = [tmux.wait("[bold red]markup[", limit=60)]
        tmux.keys("Enter")  # the run and each tab
        screens.append(tmux.wait("Lifecycle"))
        screens.append(tmux.wait(VISIBLE))
        header = [line.split() for line in screens[-1].splitlines()]
        assert RUN_TABS[0].split() in header, "the run screen's tabs changed: give each its mark in RUN_TABS"
        for tab, shows in RUN_TABS[1].items():
            screens.append(tmux.press_until(shows, tab))  # the tab's own content, not the one before it
        tmux.keys("Escape")
        screens.append(tmux.press_until("Sessions of", "v"))  # volumes and sessions
        tmux.press_until("Create a volume", "c")
        tmux.run("send-keys", "-t", "h", "-l", "newvol")
        tmux.keys("Enter")
        screens.append(tmux.wait("quota"))  # a toast with a hostile error
        screens.append(tmux.press_until("Models in the cluster cache", "m"))  # models
        tmux.press_until("New config / open editor", "C-p")  # the palette lists runs and volumes by name
        # One query each: the shared platform may hold more runs than the palette shows at once.
        # The input's own line ("🔎 …") proves what was typed has landed: the unfiltered list holds
        # "Open run …" entries too, and keys typed while the previous ones are still queued race them.
        tmux.run("send-keys", "-t", "h", "-l", "Open run")
        tmux.wait("🔎 Open run")
        tmux.wait("Open run team-run")
        tmux.press_until("🔎 Search for commands", *["BSpace"] * len("Open run"))  # emptied: the placeholder is back
        tmux.run("send-keys", "-t", "h", "-l", "Open volume")
        tmux.wait("🔎 Open volume")
        screens.append(tmux.wait("Open volume research"))
        tmux.keys("Escape")
        screens.append(tmux.press_until("Keys ·", "F1"))  # help
        tmux.press_until("On-demand capacity", "Escape")
        tmux.keys("e")
        screens.append(tmux.wait("max_steps"))  # the editor and its problems (hostile model list)
        screens.append(tmux.wait("1 error(s)"))  # checked against the hostile model list
        title = tmux.run("display-message", "-p", "-t", "h", "#{pane_title}")
        buffers = tmux.run("list-buffers")
    finally:
        tmux.run("kill-server")
    stream = raw.read_bytes()
    assert len(stream) > 10_000, "the raw stream was not captured"
    problems = foreign_controls(stream)
    assert problems == [], f"{len(problems)} outside controls reached the terminal, e.g. {problems[:5]}"
    own = _OWN_OSC.sub(b"", stream)
    assert b"\x1b]" not in own and b"\x07" not in own
    assert "pwned" not in title
    assert buffers.strip() == "", f"an OSC 52 clipboard write got through: {buffers!r}"
    seen = "\n".join(screens)
    assert "Traceback" not in seen
    assert seen.count(VISIBLE) >= 3, seen
