"""`TransfersFollower`: a volume's S3 transfers (V12), one `TransfersUpdate` whenever the list changes.

It polls every ``interval`` seconds while a transfer is live (progress moves), and every
``idle_interval`` seconds when none is (a new one may start from another client). Each update
names the transfers that ended since the previous poll, so a screen can toast, ring the bell and
run ``--on-event`` exactly once per job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from primetui.api.errors import PrimeAPIError
from primetui.api.followers.polling import FollowerEvent, _Follower, _unexpected

if TYPE_CHECKING:
    from primetui.api.models import VolumeTransfer


@dataclass(frozen=True)
class TransfersUpdate(FollowerEvent):
    """The volume's transfers now (newest first), and those that ended since the last poll."""

    volume: str
    transfers: tuple[VolumeTransfer, ...]
    ended: tuple[VolumeTransfer, ...] = ()

    @property
    def live(self) -> tuple[VolumeTransfer, ...]:
        return tuple(t for t in self.transfers if not t.is_terminal)


class TransfersFollower(_Follower):
    """Polls V12 for one volume; never stops by itself (jobs may start at any time)."""

    def __init__(self, client: Any, volume: str, *, interval: float = 1.0, idle_interval: float = 5.0, **kw: Any):
        super().__init__(client, volume, interval=interval, **kw)
        self.volume = volume
        self.idle_interval = float(idle_interval)
        self.transfers: tuple[VolumeTransfer, ...] | None = None

    async def poll(self) -> list[FollowerEvent]:
        events: list[FollowerEvent] = []
        if self.done:
            return events
        try:
            self.polls += 1
            found = tuple(await self.client.list_volume_transfers(self.volume))
        except PrimeAPIError as exc:
            self._failed(exc, events)
            return events
        except Exception as exc:  # noqa: BLE001 - a poll loop must never die silently in a worker
            self._failed(_unexpected(exc), events)
            return events
        previous = {t.id: t for t in self.transfers or ()}
        # Ended since the last poll: live then, or new and already over (a short job between two polls).
        # The first poll announces nothing: those ended before anyone was watching.
        ended = (
            ()
            if self.transfers is None
            else tuple(t for t in found if t.is_terminal and (t.id not in previous or not previous[t.id].is_terminal))
        )
        if self.transfers is None or found != self.transfers:
            events.append(TransfersUpdate(self.volume, found, ended))
        self.transfers = found
        self._succeeded(events)
        if not any(not t.is_terminal for t in found):
            self.next_delay = self.idle_interval
        return events
