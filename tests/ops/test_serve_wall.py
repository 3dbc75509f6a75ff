"""``primetui serve``: the URL's token decides whatever the cookie holds, the Host header must name
loopback, and the URL reaches only a terminal or a 0600 file."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import aiohttp
import httpx
import pytest

from primetui.api._httpx import shared_ssl_context
from primetui.commands.serve import COOKIE, host_name
from tests.ops.serve_helpers import URL_RE, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def served(local_platform, tmp_path_factory):
    """One server for the tests that only knock on it (each refused; none opens a tab, stops or kills it)."""
    with serve(local_platform, tmp_path_factory.mktemp("serve-wall")) as s:
        yield s


async def test_a_wrong_url_token_is_refused_whatever_the_cookie_holds(served):
    s = served
    right = {COOKIE: s.token}
    async with httpx.AsyncClient(base_url=s.base, timeout=10, cookies=right) as h:
        assert (await h.get("/static/js/textual.js")).status_code == 200  # the cookie alone serves the page's files
        assert (await h.get("/", params={"token": "not-the-token"})).status_code == 403
    async with aiohttp.ClientSession(cookies=right) as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"{s.base}/ws/not-the-token?width=80&height=24")
        assert refused.value.status == 403
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # the right path, a wrong query
            await session.ws_connect(f"{s.base}/ws/{s.token}?token=not-the-token&width=80&height=24")
        assert refused.value.status == 403
    assert s.app_processes() == [], "a websocket with a wrong path token started an app process"


HOSTS = [
    ("localhost:{port}", True),
    ("127.0.0.1:{port}", True),
    ("[::1]:{port}", True),
    ("LOCALHOST", True),
    ("evil.example:{port}", False),
    ("evil.example", False),
    ("127.0.0.1.nip.io:{port}", False),
    ("localhost.evil.example", False),
    ("[::1", False),
    ("0.0.0.0:{port}", False),
]


def test_the_host_header_must_name_loopback(served):
    s = served
    with httpx.Client(timeout=10, verify=shared_ssl_context()) as client:
        for host, allowed in HOSTS:
            reply = client.get(f"{s.base}/", params={"token": s.token}, headers={"Host": host.format(port=s.port)})
            assert reply.status_code == (200 if allowed else 403), (host, reply.text)
            if not allowed:
                assert "--allow-remote" in reply.text


async def test_a_websocket_under_another_host_name_is_refused(served):
    s = served
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(
                f"{s.base}/ws/{s.token}?width=80&height=24",
                headers={"Host": f"rebound.example:{s.port}", "Origin": f"http://rebound.example:{s.port}"},
            )
        assert refused.value.status == 403
    assert s.app_processes() == []


def test_allow_remote_accepts_any_host_name(local_platform, tmp_path):
    with serve(local_platform, tmp_path, "--allow-remote") as s:
        reply = httpx.get(f"{s.base}/", params={"token": s.token}, headers={"Host": f"my-box.lan:{s.port}"}, timeout=10)
        assert reply.status_code == 200
        assert (
            httpx.get(f"{s.base}/", headers={"Host": "my-box.lan"}, timeout=10).status_code == 401
        )  # token still needed
        assert "WARNING: --allow-remote" in s.output()


def test_the_url_goes_to_a_0600_file_when_output_is_not_a_terminal(local_platform, tmp_path):
    with serve(local_platform, tmp_path) as s:
        assert s.token not in s.output()
        assert (s.url_file.stat().st_mode & 0o777) == 0o600
        assert s.url_file.parent == tmp_path / "cfg"
        assert httpx.get(s.url, timeout=10).status_code == 200  # the file's URL is the working one
        os.kill(s.proc.pid, 15)
        s.proc.wait(30)
    assert not s.url_file.exists(), "the URL file outlived the server (its token is dead)"


def test_the_url_is_printed_to_a_terminal_and_no_file_is_written(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), PRIMETUI_CONFIG_DIR=str(tmp_path / "cfg"), PRIME_API_KEY="x")
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "primetui", "serve", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    out = b""
    try:
        deadline = time.monotonic() + 60
        while not URL_RE.search(out.decode(errors="replace")) and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    out += os.read(master, 4096)
                except OSError:
                    break
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)
        os.close(master)
    assert URL_RE.search(out.decode(errors="replace")), out
    assert not list((tmp_path / "cfg").glob("serve-*.url"))


def test_host_name_takes_the_port_and_brackets_off():
    assert host_name("localhost:8080") == "localhost" and host_name("[::1]:80") == "::1" and host_name("[::1]") == "::1"
    assert host_name("127.0.0.1") == "127.0.0.1" and host_name("[::1") == "" and host_name(" evil:1 ") == "evil"
