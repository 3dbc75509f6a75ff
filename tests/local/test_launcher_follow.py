"""The launcher reuses its last port, never leaves a zombie, and a ``--local`` client follows a restart."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
from pathlib import Path

import httpx
import pytest

from primetui.api.client import PrimeClient
from primetui.local.launcher import SERVER_FILE, ensure_running, following
from tests.ops.script_helpers import until_gone

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def server_pid(data_dir: Path) -> int:
    return int(json.loads((data_dir / SERVER_FILE).read_text())["pid"])


def stop(data_dir: Path) -> int:
    pid = server_pid(data_dir)
    os.kill(pid, signal.SIGTERM)
    until_gone(pid, "the stopped platform was not reaped by the process that started it")
    return pid


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def test_a_restart_takes_the_last_port_and_a_client_follows_when_it_cannot(tmp_path):
    data_dir = tmp_path / "data"
    first, token = ensure_running(data_dir, demo=False)
    try:
        stop(data_dir)
        again, _ = ensure_running(data_dir, demo=False)
        assert again == first, "the launcher did not reuse the free previous port"

        client = PrimeClient(first, token, rediscover=following(data_dir))
        stop(data_dir)
        with socket.socket() as squatter:  # someone else took the old port meanwhile
            squatter.bind(("127.0.0.1", port_of(first)))
            squatter.listen(1)
            moved, _ = ensure_running(data_dir, demo=False)
            assert port_of(moved) != port_of(first)

        async def ask() -> list:
            try:
                return await client.list_volumes()
            finally:
                await client.aclose()

        assert asyncio.run(ask()) == []
        assert client.base_url == moved, "the client did not move to where server.json says the platform is"
    finally:
        if (data_dir / SERVER_FILE).exists():
            stop(data_dir)


def test_the_dashboards_local_client_follows_a_restart_on_another_port(tmp_path, monkeypatch):
    from primetui.local.testing import LocalPlatform
    from primetui.commands.launch import Connector

    with LocalPlatform.start(tmp_path) as lp:  # no demo: its seeding and RL run prove nothing here
        made = httpx.post(
            lp.api_url + "/training/volumes", json={"name": "research", "size": "1Gi"}, headers=lp.headers
        )
        assert made.status_code == 200, made.text
        monkeypatch.setenv("PRIMETUI_LOCAL_DATA_DIR", str(lp.data_dir))
        client, _, _ = Connector(None, None).local_sync()  # what `primetui --local` does
        old = client.base_url
        lp.stop()  # by pid
        lp.restart()
        assert lp.base_url != old

        async def ask() -> list[str]:
            try:
                return [v.name for v in await client.list_volumes()]
            finally:
                await client.aclose()

        assert "research" in asyncio.run(ask())
        assert client.base_url == lp.base_url
