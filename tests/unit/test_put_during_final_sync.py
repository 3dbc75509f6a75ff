"""A put asked for while a read-write session's final sync writes the volume back is refused with the
single-writer 409, as during the session itself; before, it got direct credentials and a lease, and the
sync could remove what the put had just landed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from fastapi import HTTPException

from primetui.local.storage.routes import _live_writer_session


def _request(phase: str | None) -> SimpleNamespace:
    rec = None if phase is None else SimpleNamespace(id="vs_abc", phase=phase)
    manager = SimpleNamespace(live_read_write=lambda volume: rec)
    return SimpleNamespace(
        app=SimpleNamespace(state=SimpleNamespace(platform=SimpleNamespace(extras={"sessions": manager})))
    )


@pytest.mark.parametrize("phase", ["syncing", "finalizing"])
def test_a_put_during_the_final_sync_is_a_single_writer_409(phase: str) -> None:
    with pytest.raises(HTTPException) as refused:
        _live_writer_session(_request(phase), "_teams/t1/research")
    assert refused.value.status_code == 409
    assert f"Volume 'research' is finishing a read-write session's final sync (vs_abc, {phase})" in str(
        refused.value.detail
    )


def test_no_writer_means_a_direct_put() -> None:
    assert _live_writer_session(_request(None), "research") is None
