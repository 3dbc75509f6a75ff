"""Simulated multi-node inference: ``num_infer_nodes`` nodes behind an ``[inference.router]``.

With ``[deployment] type = "multi_node"`` and ``num_infer_nodes = K``, the one inference server
process plays every inference node and the router in front of them (this machine has two
cores): node 0 logs to ``logs/inference.log``, node k to ``logs/inference@k.log``, the router to
``logs/router.log``. Each generation batch is routed round-robin to one node, which generates it
and logs it; every node loads each weight broadcast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from primetui.local.trainer.logs import ConsoleLog
from primetui.local.trainer.pods import pod_log_name


def infer_nodes(config: dict[str, Any]) -> int:
    """How many inference nodes the run simulates (1 unless multi_node with num_infer_nodes > 1)."""
    dep = found if isinstance(found := config.get("deployment"), dict) else {}
    if dep.get("type") != "multi_node":
        return 1
    n = dep.get("num_infer_nodes", dep.get("num_eval_nodes", 1))
    return n if isinstance(n, int) and n > 1 else 1


def has_router(config: dict[str, Any]) -> bool:
    inference = found if isinstance(found := config.get("inference"), dict) else {}
    dep = found if isinstance(found := config.get("deployment"), dict) else {}
    return dep.get("type") == "multi_node" and isinstance(inference.get("router"), dict)


@dataclass
class InferNodes:
    """The node logs and the router of one inference server."""

    logs: list[ConsoleLog]
    router: ConsoleLog | None
    routed: int = 0
    per_node: list[int] = field(default_factory=list)

    @classmethod
    def open(cls, logs_dir: Path, primary: ConsoleLog, config: dict[str, Any]) -> InferNodes:
        n = infer_nodes(config)
        logs = [primary] + [ConsoleLog(logs_dir / pod_log_name("inference", k)) for k in range(1, n)]
        router = ConsoleLog(logs_dir / "router.log") if has_router(config) else None
        return cls(logs, router, per_node=[0] * n)

    def announce(self, model_name: str) -> None:
        n = len(self.logs)
        for k, log in enumerate(self.logs):
            if n > 1:
                log.info(
                    f"Inference node {k} of {n} for {model_name} (local platform: every node is simulated "
                    "inside one inference server process)"
                )
        if self.router is not None:
            self.router.info(f"Router up in front of {n} inference node(s): round-robin over nodes 0..{n - 1}")

    def route(self, prompts: int) -> int:
        """The node the next batch goes to (and the router's line about it)."""
        node = self.routed % len(self.logs)
        self.routed += 1
        self.per_node[node] += 1
        if self.router is not None:
            self.router.info(f"Routed batch {self.routed} ({prompts} prompts) to inference node {node}")
        return node

    def each(self, message: str) -> None:
        for log in self.logs:
            log.info(message)
