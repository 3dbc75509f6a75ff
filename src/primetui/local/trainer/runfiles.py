"""The run directory a trainer process owns: its input, status, components and metric files."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from primetui.local.trainer.files import JsonlAppender, read_json, write_json_atomic


@dataclass
class Component:
    component: str
    pod_name: str
    status: str = "starting"
    pid: int | None = None
    env_name: str | None = None
    env_index: int | None = None
    pod_index: int | None = None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"component": self.component, "pod_name": self.pod_name, "status": self.status}
        if self.env_name is not None:
            d["env_name"] = self.env_name
            d["env_index"] = self.env_index
        if self.pod_index is not None:
            d["pod_index"] = self.pod_index
        if self.pid is not None:
            d["pid"] = self.pid
        return d


@dataclass
class RunFiles:
    run_dir: Path
    run_id: str = ""
    max_steps: int | None = None
    components: list[Component] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        self.metrics = JsonlAppender(self.run_dir / "metrics.jsonl")
        self.checkpoints = JsonlAppender(self.run_dir / "checkpoints.jsonl")

    @property
    def logs_dir(self) -> Path:
        return self.run_dir / "logs"

    def read_input(self) -> dict[str, Any]:
        return read_json(self.run_dir / "config.json")

    def set_status(self, state: str, step: int, error: str | None = None) -> None:
        write_json_atomic(
            self.run_dir / "status.json",
            {"state": state, "step": step, "max_steps": self.max_steps, "error": error, "time": time.time()},
        )

    def add_component(self, comp: Component) -> Component:
        self.components.append(comp)
        self.write_components()
        return comp

    def write_components(self) -> None:
        write_json_atomic(self.run_dir / "components.json", [c.as_dict() for c in self.components])

    def log_metrics(self, step: int, values: dict[str, Any]) -> None:
        from primetui.local.trainer.files import finite_row

        row = finite_row({k: v for k, v in values.items() if v is not None})
        if row:
            self.metrics.append({"step": step, "time": time.time(), **row})

    def log_checkpoint(self, step: int, path: Path, size: int) -> None:
        self.checkpoints.append({"step": step, "path": str(path), "size_bytes": size, "time": time.time()})

    def log_checkpoint_deleted(self, step: int) -> None:
        self.checkpoints.append({"step": step, "deleted": True, "time": time.time()})
