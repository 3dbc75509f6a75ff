"""The welcome line's disk figures are measured when each shell opens (issue 29 item 6: it said
80 KiB used while `df` said 296K, a figure taken when the session became ready)."""

from __future__ import annotations

import re

import pytest

from primetui.local.sessions import mountns
from primetui.local.sessions.staging import human_bytes
from primetui.local.testing import LocalPlatform
from primetui.shell import open_session_connection, open_shell
from tests.api.ssh_helpers import create_volume, make_key, read_until, wait_phase

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(
        not mountns.probe().namespaces, reason="needs root and mount namespaces: " + mountns.probe().why
    ),
]

USED = re.compile(rb"\(([0-9.]+ [KMGT]?i?B) used, ")


@pytest.fixture
def platform(tmp_path):
    key = make_key(tmp_path / "home" / ".ssh" / "id_ed25519")
    with LocalPlatform.start(
        tmp_path, demo=False, env={"HOME": str(tmp_path / "home"), "PRIME_SSH_KEY_PATH": str(key)}
    ) as lp:
        yield lp, key


async def test_each_shell_says_what_the_disk_holds_now(platform):
    lp, key = platform
    create_volume(lp, "research", {"a.txt": b"alpha\n"}, size="1Gi")
    async with lp.client() as api:
        s = await api.create_session("research", read_only=False)
        s = await wait_phase(api, "research", s.id, {"ready", "failed"}, timeout=60.0)
        conn = await open_session_connection(s, key)
        try:
            first = await open_shell(conn, "xterm", 120, 30)
            before = USED.search(await read_until(first, b"\n")).group(1).decode()
            first.write(b"head -c 300000 /dev/urandom > /volume/big.bin; sync; echo W$((1+1))ROTE\r")
            await read_until(first, b"W2ROTE")
            second = await open_shell(conn, "xterm", 120, 30)
            now = USED.search(await read_until(second, b"\n")).group(1).decode()
            second.write(b"df -B1 --output=used /volume | tail -1; echo D$((1+1))F\r")
            out = (await read_until(second, b"D2F")).decode()
            df_used = int(re.search(r"(\d+)\r\nD2F", out).group(1))
        finally:
            await conn.close()
        await api.stop_session("research", s.id)
    assert now != before
    assert now == human_bytes(df_used), (now, df_used)
