"""The keep-alive race (issue 17.3): a pooled connection the server closed is retried, not an outage.

The fault proxy's ``drop_reused`` closes every connection at its second request without answering,
which is exactly what a client sees when it reuses a pooled connection at the moment the server's
keep-alive timeout closes it.
"""

from __future__ import annotations

import pytest

from primetui.api import errors as e
from primetui.api.client import KEEPALIVE_EXPIRY, PrimeClient
from primetui.local.server import KEEP_ALIVE_SECONDS
from tests.api.faultproxy import FaultProxy


async def test_idempotent_requests_survive_a_connection_closed_at_reuse(local_platform):
    with FaultProxy(local_platform.base_url, drop_reused=True) as proxy:
        async with PrimeClient(proxy.base_url, local_platform.token) as client:
            first = await client.list_runs(limit=1)
            again = await client.list_runs(limit=1)  # reuses the pooled connection: dropped, retried at once
            assert again.page == first.page == 1
            assert proxy.faults["drop"] == 1 and proxy.requests == 3
            with pytest.raises(e.NotFoundError):  # DELETE is idempotent too: the retry reaches the server
                await client.delete_run("no-such-run-keepalive")
            assert proxy.faults["drop"] == 2


async def test_a_post_is_not_resent_when_the_connection_drops(local_platform):
    with FaultProxy(local_platform.base_url, drop_reused=True) as proxy:
        async with PrimeClient(proxy.base_url, local_platform.token) as client:
            await client.list_runs(limit=1)
            with pytest.raises(e.UnreachableError) as info:
                await client.pause_run("no-such-run-keepalive")  # POST: may have been served, never re-sent
            assert "the server closed the connection" in str(info.value)
            assert proxy.requests == 2


def test_the_local_servers_keep_alive_outlives_the_client_pool():
    assert KEEP_ALIVE_SECONDS > 2 * KEEPALIVE_EXPIRY
