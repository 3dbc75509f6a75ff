"""The transfers follower: one update per change, and each ended job named once (live before, or new and over)."""

from __future__ import annotations

from primetui.api.followers import TransfersFollower, TransfersUpdate
from primetui.api.models import VolumeTransfer


def transfer(tid: str, status: str) -> VolumeTransfer:
    return VolumeTransfer.model_validate(
        {"id": tid, "volumeName": "v", "direction": "import", "path": "p", "url": "s3://b/p/", "status": status}
    )


class Client:
    def __init__(self, replies):
        self.replies = list(replies)

    async def list_volume_transfers(self, volume):
        return self.replies.pop(0)


async def test_ended_jobs_are_named_once_and_history_is_not():
    client = Client(
        [
            [transfer("a", "failed")],
            [transfer("b", "running"), transfer("a", "failed")],
            [transfer("c", "succeeded"), transfer("b", "succeeded"), transfer("a", "failed")],
            [transfer("c", "succeeded"), transfer("b", "succeeded"), transfer("a", "failed")],
        ]
    )
    follower = TransfersFollower(client, "v", sleep=lambda _d: None)
    updates = []
    for _ in range(4):
        updates += [e for e in await follower.poll() if isinstance(e, TransfersUpdate)]
    assert [tuple(t.id for t in u.ended) for u in updates] == [(), (), ("c", "b")]  # the 4th poll changed nothing
    assert follower.next_delay == follower.idle_interval  # nothing live: the slower interval
