"""SVG snapshots of the run monitor: log tabs (search hits, filter, error, gap), chart grid with the
cursor, and the eval view (issue 9: component tabs, eval charts, components)."""

from __future__ import annotations

import pytest

from tests.snapshots.monitor_scenes import SCENES, MonitorHost, prepare


@pytest.mark.parametrize("scene", list(SCENES))
def test_monitor_scene(snap_compare, scene):
    async def run_before(pilot) -> None:
        await prepare(pilot, scene)

    assert snap_compare(MonitorHost(scene), terminal_size=SCENES[scene], run_before=run_before)


@pytest.mark.parametrize("scene", list(SCENES))
def test_monitor_scene_at_80x24(snap_compare, scene):
    """Every monitor view at 80x24 too, the default size of most SSH clients (issue 18 #29)."""

    async def run_before(pilot) -> None:
        await prepare(pilot, scene)

    assert snap_compare(MonitorHost(scene), terminal_size=(80, 24), run_before=run_before)
