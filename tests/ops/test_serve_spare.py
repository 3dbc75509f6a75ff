"""``primetui serve`` starts a tab's app process with its page request; the websocket takes it over.

In-process, on a stand-in app command: what matters here is which process runs and when
it ends, not the dashboard (tests/ops/test_serve_token.py and test_serve_browser.py run the real one).
"""

from __future__ import annotations

import asyncio
import shlex
import sys

import aiohttp
import pytest
from aiohttp import web

from primetui.commands import serve as serve_mod
from primetui.commands.serve import TokenServer

pytestmark = pytest.mark.timeout(60)

TOKEN = "spare-test-token"


# A stand-in app: says it is one (textual-serve waits for that line), quits on the first byte in.
APP = "exec " + shlex.join([sys.executable, "-c",
                            "import sys; print('__GANGLION__', flush=True); sys.stdin.buffer.read(1)"])


async def until(condition, what: str, timeout: float = 20.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(what) from None


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Running:
    def __init__(self, server: TokenServer) -> None:
        self.server = server

    async def __aenter__(self) -> str:
        self.runner = web.AppRunner(await self.server._make_app(), access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc: object) -> None:
        await self.server.drop_spare()
        await asyncio.gather(*(self.server.end_session(s) for s in list(self.server.sessions)))
        await self.runner.cleanup()


def spare_pid(server: TokenServer) -> int | None:
    spare = server.spare
    return spare._process.pid if spare is not None and spare._process is not None else None


async def test_the_page_request_starts_the_process_its_websocket_then_runs():
    server = TokenServer(APP, "127.0.0.1", 0, TOKEN)
    async with Running(server) as base, aiohttp.ClientSession() as session:
        async with session.get(base + "/") as refused:
            assert refused.status == 401
        assert server.spare is None, "a page request without the token started a process"
        async with session.get(base + "/", params={"token": TOKEN}) as page:
            assert page.status == 200
        await until(lambda: spare_pid(server) is not None, "the page request started no process")
        pid = spare_pid(server)
        async with session.get(base + "/", params={"token": TOKEN}) as again:  # a reload: still one waiting
            assert again.status == 200
        await asyncio.sleep(0)
        assert spare_pid(server) == pid
        ws = await session.ws_connect(f"{base}/ws/{TOKEN}?width=100&height=30")
        await until(lambda: len(server.sessions) == 1, "the websocket started no session")
        (session_service,) = server.sessions
        assert session_service._process is not None and session_service._process.pid == pid, \
            "the websocket started a second process instead of taking the page's"
        assert server.spare is None
        assert server.spare_size == (100, 30), "the next page's process does not start at this tab's size"
        await ws.close()
        await until(lambda: not alive(pid), "closing the tab did not end its process")


async def test_a_process_no_websocket_takes_is_ended(monkeypatch):
    monkeypatch.setattr(serve_mod, "SPARE_TTL", 0.3)
    server = TokenServer(APP, "127.0.0.1", 0, TOKEN)
    async with Running(server) as base, aiohttp.ClientSession() as session:
        async with session.get(base + "/", params={"token": TOKEN}) as page:
            assert page.status == 200
        await until(lambda: spare_pid(server) is not None, "the page request started no process")
        pid = spare_pid(server)
        assert pid is not None and alive(pid)
        await until(lambda: server.spare is None and not alive(pid), "the unclaimed process was not ended")


async def test_stopping_the_server_ends_a_waiting_process():
    server = TokenServer(APP, "127.0.0.1", 0, TOKEN)
    async with Running(server) as base, aiohttp.ClientSession() as session:
        async with session.get(base + "/", params={"token": TOKEN}) as page:
            assert page.status == 200
        await until(lambda: spare_pid(server) is not None, "the page request started no process")
        pid = spare_pid(server)
    assert pid is not None
    await until(lambda: not alive(pid), "the server stopped and left the waiting process running")
