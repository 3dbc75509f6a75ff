"""SVG snapshots of the RL tabs (Rollouts with its diff and its compare of two steps, Distributions with an overlay) at
160x48 and
80x24, from a recording of a real reverse-text RL run (tests/snapshots/rl_scenes.py)."""

from __future__ import annotations

import pytest

from tests.snapshots.rl_scenes import RLHost, prepare

SCENES = ["rollouts", "rollouts-diff", "rollouts-compare", "distributions"]


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
@pytest.mark.parametrize("scene", SCENES)
def test_rl_scene(snap_compare, scene, size):
    async def run_before(pilot) -> None:
        await prepare(pilot, scene)

    assert snap_compare(RLHost(scene), terminal_size=size, run_before=run_before)
