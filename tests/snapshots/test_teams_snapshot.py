"""SVG snapshot of the account switcher (personal account + the local platform's team)."""

from __future__ import annotations

from tests.snapshots.teams_scene import SIZE, TeamsHost, prepare


def test_account_switcher(snap_compare):
    assert snap_compare(TeamsHost(), terminal_size=SIZE, run_before=prepare)
