"""`AllRuns` (issue 41 #1) against the real local platform over HTTP: the first small page, then
pages of 100 until every run is held, newest first with none twice; a new run starts a new sweep;
and R1's hosted limits (``limit`` 1..1000, ``page`` from 1) that the pager keeps to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from primetui.api.client import PrimeClient
from primetui.api.errors import PrimeAPIError
from primetui.api.followers.allruns import CHUNK, AllRuns
from primetui.local.testing import LocalPlatform

pytestmark = pytest.mark.timeout(120)

TOTAL = 250


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(tmp_path_factory.mktemp("pager"), demo=False) as lp:
        lp.insert_runs([f"run-{i:03d}" for i in range(TOTAL)])
        yield lp


class Counting:
    """The real client, with the (page, limit) of each R1 request kept."""

    def __init__(self, client: PrimeClient) -> None:
        self.client = client
        self.asked: list[tuple[int, int]] = []

    async def list_runs(self, *, page: int = 1, limit: int = 20):
        self.asked.append((page, limit))
        return await self.client.list_runs(page=page, limit=limit)


async def test_pages_are_read_one_request_a_step_until_every_run_is_held(platform):
    async with PrimeClient(platform.base_url, platform.token) as client:
        counting = Counting(client)
        pager = AllRuns(counting, first=20)
        snap = await pager.step()
        assert (snap.loaded, snap.total, snap.loading) == (20, TOTAL, True)
        while snap.loading:
            snap = await pager.step()
        assert counting.asked == [(1, 20), (1, CHUNK), (2, CHUNK), (3, CHUNK)]
        names = [run.name for run in snap.runs]
        assert names == [f"run-{i:03d}" for i in reversed(range(TOTAL))]  # newest first, each once

        counting.asked.clear()
        again = await pager.step()  # complete, nothing new: the first page only (every run has ended)
        assert counting.asked == [(1, CHUNK)] and again == snap
        # the runs read again and unchanged are the objects held: the runs list keeps its rows for them
        assert all(a is b for a, b in zip(again.runs, snap.runs))

        platform.insert_runs(["run-new"])
        snap = await pager.step()
        assert snap.loading and snap.total == TOTAL + 1  # a run more: every later page moved
        while snap.loading:
            snap = await pager.step()
        assert snap.loaded == TOTAL + 1 and snap.runs[0].name == "run-new"
        assert len({run.id for run in snap.runs}) == TOTAL + 1


async def test_R1_keeps_the_hosted_limits_the_pager_stays_within(platform):
    async with PrimeClient(platform.base_url, platform.token) as client:
        for page, limit in ((1, 1001), (1, 0), (0, 20)):
            with pytest.raises(PrimeAPIError) as caught:
                await client.list_runs(page=page, limit=limit)
            assert caught.value.status_code == 422, (page, limit)
        reply = await client.list_runs(page=1, limit=1000)
        assert reply.total >= TOTAL and reply.total_pages == 1 and len(reply.runs) == reply.total
