"""``primetui serve`` keeps one app process ready for the next tab (``primetui.commands.spare``).

A tab takes the spare and draws at its own size; the next spare starts after that tab has drawn;
the spare ends with the server (asked, or killed); a spare that died is replaced by a process
started the old way; ``--no-spare`` keeps none. The spare's own protocol is checked on a real
``python -m primetui`` process.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from primetui.commands.serve import Spares
from primetui.commands.spare import BadStart, parse_go, read_line
from primetui.shell.term import Terminal
from tests.ops.serve_helpers import seed_run, serve
from tests.waiting import wait_for, wait_for_sync

pytestmark = [pytest.mark.timeout(240)]


def ended(pid: int) -> bool:
    """Gone, or a zombie (an orphan's parent may be a PID 1 that does not reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


class Tab:
    """One websocket tab: its frames fed to a terminal of the size it asked for."""

    def __init__(self, width: int, height: int) -> None:
        self.term = Terminal(width, height, scrollback=0)

    async def read_until(self, ws: aiohttp.ClientWebSocketResponse, needle: str, limit: float = 90.0) -> str:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            try:
                msg = await ws.receive(timeout=max(0.1, end - time.monotonic()))
            except TimeoutError:
                break
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.term.feed(msg.data)
                text = "\n".join(self.term.display())
                if needle in text:
                    return text
            elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                break
        raise AssertionError(f"{needle!r} never appeared; the tab shows:\n" + "\n".join(self.term.display()))


# --- the protocol, on a real process ------------------------------------------------------------


def spare_process(code: str, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PRIMETUI_SERVE_SPARE="1", **env),
    )


HOLD_THEN_REPORT = (
    "import os, sys\nfrom primetui.commands.spare import hold\nhold(['--version'])\n"
    "print(os.environ.get('PRIMETUI_SERVE_SPARE'), os.environ['COLUMNS'], os.environ['ROWS'],"
    " open('/proc/self/comm').read().strip(), sys.stdin.buffer.read().decode())"
)


def test_go_gives_the_size_drops_the_marker_and_leaves_the_rest_of_the_input_to_the_app():
    proc = spare_process(HOLD_THEN_REPORT)
    out, err = proc.communicate(b"go 132 41\nD\x00\x00\x00\x01q", timeout=120)
    assert proc.returncode == 0, err.decode()
    assert out.decode().split() == ["None", "132", "41", "primetui", "D\x00\x00\x00\x01q"]


def test_end_of_input_ends_a_waiting_spare_quietly_and_garbage_is_refused():
    quiet = spare_process(HOLD_THEN_REPORT)
    out, err = quiet.communicate(b"", timeout=120)
    assert (quiet.returncode, out, err) == (0, b"", b"")
    bad = spare_process(HOLD_THEN_REPORT)
    out, err = bad.communicate(b"\x1b[2Jgo now\n", timeout=120)
    assert bad.returncode == 2 and out == b""
    assert b"a spare expects 'go <width> <height>'" in err and b"\x1b" not in err.replace(b"\\x1b", b"")


def test_parse_go_clamps_like_the_server_and_read_line_stops_at_the_newline():
    assert parse_go(b"go 5 5000") == (10, 1000)
    for line in (b"", b"go", b"go 1", b"go -1 3", b"stop 80 24", b"go 80 24 1"):
        with pytest.raises(BadStart):
            parse_go(line)
    read, write = os.pipe()
    os.write(write, b"go 80 24\nrest")
    os.close(write)
    assert read_line(read) == b"go 80 24"
    assert os.read(read, 100) == b"rest"
    os.close(read)


async def test_a_tab_that_comes_while_the_spare_is_being_started_takes_that_spare():
    """The spare's process exists (a tab's test saw it) before the server's start of it has returned: a tab
    in that window once started a process of its own, and the spare waited for the next tab."""
    spares = Spares("exec cat")  # any command: a process that waits on its input
    starting = asyncio.ensure_future(spares.start())
    taken = asyncio.ensure_future(spares.take())  # runs once start() is inside its spawn
    process = await taken
    await starting
    assert process is not None and process.returncode is None, "the tab did not get the spare being started"
    assert await spares.take() is None  # one spare, now the tab's
    assert process.stdin is not None
    process.stdin.close()  # cat ends at end of input
    assert await process.wait() == 0
    await spares.close()


# --- the server ---------------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_tab_takes_the_spare_draws_at_its_size_and_the_next_spare_follows(local_platform, tmp_path):
    seed_run(local_platform, "spare-demo-run")
    with serve(local_platform, tmp_path) as s:
        spare = (await wait_for(s.spares, "the first spare"))[0]
        assert s.app_processes() == [], "a spare counted as a tab"
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(f"{s.base}/ws/{s.token}?width=100&height=30")
            tab = Tab(100, 30)
            text = await tab.read_until(ws, "spare-demo-run")
            assert s.app_processes() == [spare], "the tab did not run in the spare"
            rows = text.splitlines()
            assert len(rows) == 30 and "Runs" in text
            assert rows[-1].strip(), "the footer is not on the tab's last row: the app drew at another size"
            nxt = await wait_for(lambda: [p for p in s.spares() if p != spare], "the next spare")
            await ws.close()
            await wait_for(lambda: ended(spare), "the tab's process to end with its tab")
            # the second tab takes the spare started after the first tab's frame
            ws2 = await session.ws_connect(f"{s.base}/ws/{s.token}?width=90&height=25")
            await Tab(90, 25).read_until(ws2, "spare-demo-run")
            assert s.app_processes() == nxt
            await ws2.close()
        nxt_spare = await wait_for(s.spares, "the spare after the second tab")
    # the server stopped (SIGTERM): its spare went with it
    await wait_for(lambda: all(ended(p) for p in nxt_spare), "the spare to end with the server")


@pytest.mark.slow
def test_a_dead_spare_is_replaced_and_a_killed_server_leaves_no_spare(local_platform, tmp_path):
    seed_run(local_platform, "spare-dead-run")
    with serve(local_platform, tmp_path) as s:
        spare = wait_for_sync(s.spares, "the first spare")[0]
        os.kill(spare, signal.SIGKILL)
        wait_for_sync(lambda: ended(spare), "the killed spare")

        async def tab() -> None:
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(f"{s.base}/ws/{s.token}?width=100&height=30")
                await Tab(100, 30).read_until(ws, "spare-dead-run")
                await ws.close()

        asyncio.run(tab())
        assert "ended before a tab took it" in s.output()
        assert s.proc.poll() is None
        survivor = wait_for_sync(s.spares, "a spare started again after a tab started the old way")[0]
        os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait(10)
        wait_for_sync(lambda: ended(survivor), "the spare to end when its server was killed (end of its input)")


@pytest.mark.slow
async def test_no_spare_keeps_none_and_tabs_still_start(local_platform, tmp_path):
    seed_run(local_platform, "no-spare-run")
    with serve(local_platform, tmp_path, "--no-spare") as s:
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(f"{s.base}/ws/{s.token}?width=100&height=30")
            await Tab(100, 30).read_until(ws, "no-spare-run")
            assert len(s.app_processes()) == 1
            assert s.spares() == []
            await ws.close()
            await asyncio.to_thread(s.wait_processes, 0)
        assert s.spares() == [], "--no-spare started a spare"
