"""The run screen's RL tabs: Rollouts and Distributions, for RL runs only (an SFT run has neither)."""

from __future__ import annotations

from typing import Any


def is_rl_run(run: Any) -> bool:
    """True for an RL run (the CLI's rule: every run that is not `loss = "sft"`)."""
    is_sft = getattr(run, "is_sft", None)
    if is_sft is None and isinstance(run, dict):
        is_sft = str(run.get("loss") or "rl").lower() == "sft"
    return is_sft is False


def rl_panes(client: Any, run: Any) -> list[tuple[str, str, Any]]:
    """(tab id, title, widget) of the RL tabs of ``run``; [] for an SFT run."""
    if not is_rl_run(run):
        return []
    from primetui.ui.monitor.distributions_pane import DistributionsPane
    from primetui.ui.monitor.rollouts_pane import RolloutsPane

    return [("tab-rollouts", "Rollouts", RolloutsPane(client, run)),
            ("tab-distributions", "Distributions", DistributionsPane(client, run))]
