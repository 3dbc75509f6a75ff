"""``primetui serve``: the token guards the page and the websocket; one app process per tab, ended with it."""

from __future__ import annotations

import asyncio
import os

import aiohttp
import httpx
import pytest

from tests.ops.serve_helpers import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


async def test_token_guards_page_and_websocket_and_each_tab_has_its_own_process(local_platform, tmp_path):
    with serve(local_platform, tmp_path) as s:
        async with httpx.AsyncClient(base_url=s.base, timeout=10) as h:
            assert (await h.get("/")).status_code == 401
            assert (await h.get("/", params={"token": "not-the-token"})).status_code == 403
            assert (await h.get("/static/js/textual.js")).status_code == 401
            page = await h.get("/", params={"token": s.token})
            assert page.status_code == 200
            assert f"/ws/{s.token}" in page.text
            assert "primetui_serve" in page.headers.get("set-cookie", "")
            assert "HttpOnly" in page.headers["set-cookie"] and "SameSite=Strict" in page.headers["set-cookie"]
            assert page.headers["referrer-policy"] == "no-referrer"
            # The cookie set by the page lets its scripts load.
            assert (await h.get("/static/js/textual.js")).status_code == 200

        async with aiohttp.ClientSession() as session:
            for path, code in (("/ws", 401), ("/ws/not-the-token", 403)):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(s.base + path + "?width=100&height=30")
                assert refused.value.status == code
            # A websocket from another site's page is refused even with the token.
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await session.ws_connect(f"{s.base}/ws/{s.token}", headers={"Origin": "http://evil.example"})
            # The refusal is decided before the handshake reply, so by now a refused tab has either
            # started a process or never will.
            assert s.app_processes() == [], "a refused websocket started an app process"

            tab1 = await session.ws_connect(f"{s.base}/ws/{s.token}?width=100&height=30")
            first = await asyncio.to_thread(s.wait_processes, 1)
            tab2 = await session.ws_connect(f"{s.base}/ws/{s.token}?width=100&height=30")
            both = await asyncio.to_thread(s.wait_processes, 2)
            assert set(first) < set(both)
            await tab1.close()
            left = await asyncio.to_thread(s.wait_processes, 1)
            assert left == [p for p in both if p not in first], "closing a tab ended another tab's process"
            await tab2.close()
            await asyncio.to_thread(s.wait_processes, 0)

    out = s.output()
    assert s.token not in out, f"the token was printed into a log file:\n{out}"


def test_non_loopback_host_needs_an_explicit_flag(tmp_path):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "primetui", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 64  # a usage error (docs/ops.md)
    assert "--allow-remote" in out.stderr
    assert "token=" not in out.stdout


def test_a_port_in_use_is_one_sentence(tmp_path):
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "primetui", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(tmp_path)},
        )
    assert out.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr and "pick another --port" in out.stderr
    assert "Traceback" not in out.stderr and "token=" not in out.stdout


def test_loopback_detection():
    from primetui.commands.serve import app_command, is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("127.3.4.5") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10") and not is_loopback("example.com")
    assert app_command(True, "/py").endswith("/py -m primetui --local")
    assert app_command(False, "/py").startswith("exec ")


async def test_serve_local_starts_the_platform_once_and_the_tab_uses_it(tmp_path, monkeypatch):
    import json
    import signal

    import pyte

    from primetui.local.testing import LocalPlatform

    data = tmp_path / "local-data"
    monkeypatch.setenv("PRIMETUI_LOCAL_DATA_DIR", str(data))
    holder = LocalPlatform(data_dir=data)  # not started: `serve --local` starts the platform itself
    with serve(holder, tmp_path, "--local", keep_local_dir=True) as s:
        platform_pid = int(json.loads((data / "server.json").read_text())["pid"])
        try:
            screen = pyte.Screen(120, 30)
            stream = pyte.ByteStream(screen)
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(f"{s.base}/ws/{s.token}?width=120&height=30")
                text = ""
                async with asyncio.timeout(60):
                    while "local platform 127.0.0.1" not in text:
                        msg = await ws.receive()
                        if msg.type == aiohttp.WSMsgType.BINARY:
                            stream.feed(msg.data)
                            text = "\n".join(screen.display)
                        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                            raise AssertionError(f"the tab closed early; it showed:\n{text}")
                assert int(json.loads((data / "server.json").read_text())["pid"]) == platform_pid, (
                    "a tab started a second platform"
                )
                await ws.close()
                await asyncio.to_thread(s.wait_processes, 0)
        finally:
            os.kill(platform_pid, signal.SIGTERM)
