"""Volume sessions on the local platform (V5-V8): staging, an SSH endpoint per session, the TLS
gateway, the final sync and the idle reaper. See :mod:`primetui.local.sessions.manager`.

The two questions the rest of the platform asks (dispatch waits while a read-write session is
live; volume delete is refused while any session is live) are answered by :func:`live_read_write`
and :func:`live_session`. They are cheap, synchronous and safe to call from any route.
"""

from __future__ import annotations


def _manager():
    from primetui.local.sessions.manager import current_manager

    return current_manager()


def live_read_write(volume_key: str):
    """The live read-write session on the volume of ``volume_key`` (``paths.volume_key``), or None.

    The record has ``.id``/``.phase``.

    "Live" means any phase before stopped, including the final sync: a run must not start on a
    volume whose changes are still being written back.
    """
    manager = _manager()
    return manager.live_read_write(volume_key) if manager else None


def live_session(volume_key: str):
    """Any live session on the volume of ``volume_key`` (read-only ones too), or None."""
    manager = _manager()
    if manager is None:
        return None
    for rec in manager.list_all():
        if rec.volume_name == volume_key and rec.live:
            return rec
    return None
