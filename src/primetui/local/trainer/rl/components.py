"""The RL run's components as prime-rl launches them: orchestrator, inference, one env server per source.

They all live in the trainer's process (two cores cannot host four servers per run); each still
has its component record, its pod name, its status and its own log file, and logs prime-rl's
lines for what it really does here. Env servers are listed train sources first, then eval sources,
with ``env_index`` their position; a name used by both a train and an eval source gets the
pod-index form for the second (``env-server-<name>@1``), as the platform names repeated pods.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from primetui.local.evals.common import env_log_name
from primetui.local.trainer.logs import ConsoleLog, format_time
from primetui.local.trainer.rl import messages as msg
from primetui.local.trainer.rl.config import RLRunConfig, Source
from primetui.local.trainer.rl.rollouts import Episode
from primetui.local.trainer.rl.taskset import Task, module_name
from primetui.local.trainer.runfiles import Component, RunFiles


def env_log_stem(source: Source, earlier: list[Source]) -> tuple[str, int]:
    """(log file stem, pod index) of a source's env server."""
    repeats = sum(s.name == source.name for s in earlier)
    stem = env_log_name(source.name)[: -len(".log")]
    return (f"{stem}@{repeats}" if repeats else stem), repeats


def address(source: Source) -> str:
    return f"inproc://env-server-{source.index}"


@dataclass
class EnvServer:
    source: Source
    comp: Component
    log: ConsoleLog


@dataclass
class RLComponents:
    files: RunFiles
    cfg: RLRunConfig
    trainer: Component | None
    trainer_log: ConsoleLog
    orch: ConsoleLog
    inference: ConsoleLog
    comps: list[Component] = field(default_factory=list)
    envs: list[EnvServer] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    last_stats: float = field(default_factory=time.perf_counter)
    prompt_tokens: int = 0
    output_tokens: int = 0

    @classmethod
    def start(
        cls, files: RunFiles, cfg: RLRunConfig, trainer: Component | None, trainer_log: ConsoleLog
    ) -> RLComponents:
        logs = files.logs_dir
        self = cls(
            files, cfg, trainer, trainer_log, ConsoleLog(logs / "orchestrator.log"), ConsoleLog(logs / "inference.log")
        )
        rid, pid = files.run_id, os.getpid()
        self.comps = [
            Component("orchestrator", f"{rid}-orchestrator-0", "running", pid),
            Component("inference", f"{rid}-inference-0", "running", pid),
        ]
        sources = cfg.all_sources
        for i, source in enumerate(sources):
            stem, pod = env_log_stem(source, sources[:i])
            comp = Component(
                "env-server",
                f"{rid}-env-server-{source.index}",
                "running",
                pid,
                env_name=source.name,
                env_index=source.index,
                pod_index=pod or None,
            )
            self.envs.append(EnvServer(source, comp, ConsoleLog(logs / f"{stem}.log")))
            self.comps.append(comp)
        files.components.extend(self.comps)
        files.write_components()
        return self

    def announce(self, model: str) -> None:
        self._inference_up(model)
        for env in self.envs:
            env.log.info(f"EnvServerPool up: address={address(env.source)} workers=1/inf multiplex=128 elastic=False")
            env.log.info(f"EnvServer up: taskset={module_name(env.source.taskset)} address={address(env.source)}")
        o = self.orch
        o.info("Starting orchestrator (algorithm: grpo)")
        o.info(f"Initializing tokenizer (name={model}; the stand-in counts one token per character)")
        o.info(f"Initializing monitors (file={self.files.run_dir / 'metrics.jsonl'})")

    def _inference_up(self, model: str) -> None:
        i = self.inference
        i.warning(
            f"Local platform: serving the stand-in policy instead of {model}; it samples in the trainer's "
            "process, so there is no HTTP server and no GPU KV cache."
        )
        i.info(
            "Initializing weight broadcast (type=filesystem): the engine samples with the weights the trainer "
            "had one step earlier"
        )

    def envs_ready(self, tasks: dict[str, list[Task]], eval_tasks: dict[str, list[Task]]) -> None:
        o = self.orch
        o.info("Loading training environments")
        for s in self.cfg.sources:
            o.info(f"Env {s.name} ready: num_tasks={len(tasks[s.name])}")
        o.success("Train environment(s) ready")
        if self.cfg.eval is not None:
            o.info("Loading eval environment(s)")
            for s in self.cfg.eval.sources:
                o.info(f"Env {s.name} ready: num_tasks={len(eval_tasks[s.name])}")
        o.info("Waiting for policy inference pool to be ready")
        o.success("Policy inference pool ready")

    def count(self, episodes: list[Episode]) -> None:
        """Rollouts the engine has finished since its last stats line."""
        self.prompt_tokens += sum(e.num_input_tokens for e in episodes)
        self.output_tokens += sum(e.num_output_tokens for e in episodes)

    def engine_stats(self, running: int) -> None:
        """vLLM's periodic line: the tokens finished since the last one over the time since, and the
        requests in flight now."""
        now = time.perf_counter()
        secs = max(now - self.last_stats, 1e-9)
        self.inference.info(msg.inference_stats(self.prompt_tokens / secs, self.output_tokens / secs, running, 0))
        self.prompt_tokens = self.output_tokens = 0
        self.last_stats = now

    def shutdown(self) -> None:
        self.orch.success(f"Orchestrator step loop done in {format_time(time.perf_counter() - self.started)}")
        for env in self.envs:
            env.log.info(f"EnvServer down: taskset={module_name(env.source.taskset)}")
            env.log.info("EnvServerPool down")

    def set_status(self, status: str) -> None:
        for comp in self.comps + ([self.trainer] if self.trainer else []):
            comp.status = status
        self.files.write_components()
