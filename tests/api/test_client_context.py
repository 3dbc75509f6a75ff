"""A finished request keeps nothing of its caller.

Every timer of an exchange (the whole-reply deadline, httpx's per-read timeouts) is a loop handle
that keeps the context it was made in, and asyncio keeps a cancelled handle until its time comes.
Made in the caller's context, the 60 s deadline of a request that ended at once kept that context
(a screen's worker, and through it the closed screen with its documents) for a minute more. Over
real HTTP to the local platform.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref

from tests.memory import released
from tests.waiting import wait_for

OWNER: contextvars.ContextVar[object] = contextvars.ContextVar("owner")


class Owner:
    """Stands for a screen whose worker makes a request."""


async def test_a_finished_request_keeps_nothing_of_the_callers_context(client):
    async def caller(owner: Owner) -> int:
        OWNER.set(owner)
        return len((await client.list_models()).models)

    # A live timer due before the request's deadlines, as a dashboard always has one: asyncio
    # drops a cancelled handle at once only when it is the earliest one waiting.
    loop = asyncio.get_running_loop()
    earlier = loop.call_later(20, lambda: None)
    owner = Owner()
    held = weakref.ref(owner)
    models = await asyncio.create_task(caller(owner))
    del owner
    assert models > 0, "the platform lists no model"
    try:
        await wait_for(lambda: released([held]), "the caller's context to be released", timeout=10)
    finally:
        earlier.cancel()


async def test_a_cancelled_caller_cancels_its_request(client):
    started = asyncio.Event()

    async def caller() -> None:
        started.set()
        await client.list_runs()

    task = asyncio.create_task(caller())
    await started.wait()  # the caller is awaiting its request's own task
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the request ended before it could be cancelled")
    mine = asyncio.current_task()
    assert not [t for t in asyncio.all_tasks() if t is not mine and "_within" in repr(t.get_coro())], (
        "a request's task outlived its cancelled caller"
    )
