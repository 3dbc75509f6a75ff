"""A polled resource whose replies stop changing is asked less often; a change or a poke restores the interval."""

from __future__ import annotations

import asyncio

from primetui.api.hub import QUIET_CAP, FollowerHub


class Lists:
    """A platform list whose reply changes only when told to."""

    def __init__(self) -> None:
        self.calls = 0
        self.value = ["research"]

    async def list_volumes(self) -> list[str]:
        self.calls += 1
        return list(self.value)


async def until(condition, what: str, limit: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not condition():
        assert loop.time() < end, f"gave up waiting for {what}"
        await asyncio.sleep(0.01)


async def test_unchanged_replies_double_the_wait_up_to_the_cap_and_a_change_or_poke_resets_it():
    api = Lists()
    hub = FollowerHub(api)
    got: list[tuple[object, int]] = []
    owner: list[object] = []
    sub = hub.resource(
        ("volumes",), api.list_volumes, lambda r: got.append((r.value, owner[0].unchanged)), interval=0.01
    )
    owner.append(sub.owner)
    resource = sub.owner
    await until(lambda: len(got) >= 4, "four replies")
    assert [n for _, n in got[:4]] == [0, 1, 2, 3]  # the same list again and again
    assert resource.quiet_interval() == 0.01 * 2**resource.unchanged
    api.value = ["research", "scratch"]
    await until(lambda: got[-1][0] == ["research", "scratch"], "the changed list")
    assert got[-1][1] == 0  # a change restores the interval
    resource.unchanged = 40
    assert resource.quiet_interval() == QUIET_CAP
    sub.refresh()  # the refresh key: back to the plain interval at once
    assert resource.unchanged == 0 and resource.quiet_interval() == 0.01
    sub.close()


async def test_a_slow_interval_is_never_shortened():
    api = Lists()
    hub = FollowerHub(api)
    sub = hub.resource(("volumes",), api.list_volumes, lambda r: None, interval=60.0)
    sub.owner.unchanged = 3
    assert sub.owner.quiet_interval() == 60.0
    sub.close()
