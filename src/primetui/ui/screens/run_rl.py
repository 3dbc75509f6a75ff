"""The run screen's RL tabs: Rollouts and Distributions, for RL runs only (an SFT run has neither)."""

from __future__ import annotations

from typing import Any


def rl_panes(client: Any, run: Any) -> list[tuple[str, str, Any]]:
    """(tab id, title, widget) of the RL tabs of ``run``; [] for an SFT run (the one kind rule: monitor_core.rl)."""
    from primetui.monitor_core.rl import is_rl

    if not is_rl(run):
        return []
    from primetui.ui.monitor.distributions_pane import DistributionsPane
    from primetui.ui.monitor.rollouts_pane import RolloutsPane

    return [
        ("tab-rollouts", "Rollouts", RolloutsPane(client, run)),
        ("tab-distributions", "Distributions", DistributionsPane(client, run)),
    ]
