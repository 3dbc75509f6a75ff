"""The room ledger's arithmetic: reservations, landing against them, credits for a replaced file,
and a walk of the volume that overlaps a landing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from primetui.local.paths import dir_size_bytes
from primetui.local.storage.room import Ledger, NoRoom


def _ledger(folder: Path, size: int) -> Ledger:
    ledger = Ledger("vol", lambda: dir_size_bytes(folder), lambda: size)
    ledger.refresh()
    return ledger


def _incoming(folder: Path, name: str, size: int) -> Path:
    path = folder / name
    path.write_bytes(b"x" * size)
    return path


def test_reservations_share_the_room_and_give_it_back(tmp_path: Path) -> None:
    volume = tmp_path / "vol"
    volume.mkdir()
    ledger = _ledger(volume, 100)
    a, b = ledger.reservation(), ledger.reservation()
    assert a.add(60) and not b.add(60) and b.add(40) and ledger.room == 0
    a.sub(10)
    assert ledger.room == 10 and ledger.reserved == 90
    a.release()
    assert ledger.room == 60 and not a.add(1)  # a released reservation takes nothing more
    b.release()
    assert ledger.reserved == 0 and ledger.room == 100


def test_landing_counts_the_file_once_and_an_overwrite_is_credited(tmp_path: Path) -> None:
    volume, staging = tmp_path / "vol", tmp_path / "staging"
    volume.mkdir()
    staging.mkdir()
    ledger = _ledger(volume, 100)
    first = ledger.reservation()
    assert first.add(70)
    incoming = _incoming(staging, "one", 70)
    ledger.land(first, volume / "f", 70, lambda: incoming.rename(volume / "f"))
    assert ledger.reserved == 0 and ledger.room == 30
    again = ledger.reservation(credit=70)  # the same key again: only growth beyond 70 needs room
    assert again.add(90) and ledger.reserved == 20 and not ledger.reservation().add(11)
    incoming = _incoming(staging, "two", 90)
    ledger.land(again, volume / "f", 90, lambda: incoming.rename(volume / "f"))
    assert ledger.room == 10 and dir_size_bytes(volume) == 90


def test_a_credit_whose_file_went_away_must_still_fit_when_landing(tmp_path: Path) -> None:
    volume, staging = tmp_path / "vol", tmp_path / "staging"
    volume.mkdir()
    staging.mkdir()
    (volume / "f").write_bytes(b"o" * 80)
    ledger = _ledger(volume, 100)
    held = ledger.reservation(credit=80)
    assert held.add(80) and ledger.reserved == 0
    (volume / "f").unlink()  # replaced by something outside the ledger; then 20 bytes of room are taken
    ledger.stale()
    ledger.refresh()
    other = ledger.reservation()
    assert other.add(90)
    incoming = _incoming(staging, "new", 80)
    with pytest.raises(NoRoom):
        ledger.land(held, volume / "f", 80, lambda: incoming.rename(volume / "f"))
    assert not (volume / "f").exists() and ledger.reserved == 90


def test_a_walk_that_overlaps_a_landing_keeps_the_growth(tmp_path: Path) -> None:
    volume, staging = tmp_path / "vol", tmp_path / "staging"
    volume.mkdir()
    staging.mkdir()
    walking, landed = threading.Event(), threading.Event()

    def slow_walk() -> int:  # counts the volume before the file lands, returns after it landed
        seen = dir_size_bytes(volume)
        walking.set()
        landed.wait(10)
        return seen

    ledger = Ledger("vol", slow_walk, lambda: 100)
    walk = threading.Thread(target=ledger.refresh)
    walk.start()
    assert walking.wait(10)
    held = ledger.reservation()
    assert held.add(60)
    incoming = _incoming(staging, "f", 60)
    ledger.land(held, volume / "f", 60, lambda: incoming.rename(volume / "f"))
    landed.set()
    walk.join(10)
    assert ledger.room == 40  # the walk missed the file; the ledger did not
