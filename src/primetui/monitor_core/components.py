"""Which log streams a run has, from its config and its env-server list (R8).

trainer always (one stream per node on multi-node runs); with ``runConfig.eval``: the
orchestrator, inference, and one env server per eval environment. An RL run has the orchestrator,
the trainer and inference, and one env server per train source then per eval source (a name
that repeats is ``name/N``, N its ``env_index``, as ``prime train components`` shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from primetui.api.plainrun import Run

if TYPE_CHECKING:
    from primetui.api.models import EnvServer

MAX_PODS = 32
"""Log streams per component at most (trainer or inference nodes): the config comes from the platform."""
MAX_ENV_STREAMS = 32
"""Env-server log streams at most."""


@dataclass(frozen=True, slots=True)
class LogSpec:
    """One log stream and how to ask R7 for it."""

    key: str  # stable id (tab id, store name)
    title: str  # what the tab says
    component: str  # R7 component
    pod_index: int | None = None
    env_name: str | None = None


def run_config(run: Run) -> dict[str, Any]:
    """The run's config dict (``runConfig``), or {}."""
    return run.run_config or {}


def has_evals(run: Run) -> bool:
    """True when the run has env servers: an RL run, or SFT dispatched with an [eval] block."""
    from primetui.monitor_core import rl

    return bool(run_config(run).get("eval")) or rl.is_rl(run)


def eval_env_names(run: Run) -> list[str]:
    """Env names of the [[eval.source]] entries, in order (best effort across config shapes)."""
    ev = run_config(run).get("eval")
    sources = ev.get("source") if isinstance(ev, dict) else None
    names: list[str] = []
    for src in sources if isinstance(sources, list) else []:
        if not isinstance(src, dict):
            continue
        env = src.get("env")
        name = None
        if isinstance(env, dict):
            name = env.get("name") or env.get("id") or env.get("env_id")
        elif isinstance(env, str):
            name = env
        name = name or src.get("name") or src.get("env_name")
        if name:
            names.append(str(name))
    return names


def rl_log_specs(run: Run, env_servers: list[EnvServer] | None = None) -> list[LogSpec]:
    """An RL run's streams: orchestrator, trainer, inference, then one per env server."""
    from primetui.monitor_core import rl

    specs = [
        LogSpec("orchestrator", "orchestrator", "orchestrator"),
        LogSpec("trainer", "trainer", "trainer"),
        LogSpec("inference", "inference", "inference"),
    ]
    servers: list[tuple[str, int]] = []
    for n, server in enumerate(env_servers or []):
        name = server.env_name or server.pod_name
        if name:
            servers.append((name, server.env_index if server.env_index is not None else n))
    if not servers:
        servers = [(name, i) for i, name in enumerate(rl.environments(run) + rl.eval_environments(run))]
    counts: dict[str, int] = {}
    for name, _ in servers:
        counts[name] = counts.get(name, 0) + 1
    seen: set[str] = set()
    for name, index in servers[:MAX_ENV_STREAMS]:
        # A repeated name is asked for as ``name/N`` (N its env_index), as ``prime train logs --env`` does.
        asked = f"{name}/{index}" if counts[name] > 1 else name
        if asked in seen:
            continue
        seen.add(asked)
        specs.append(LogSpec(f"env-{_slug(asked)}", f"env:{asked}", "env-server", env_name=asked))
    return specs


def log_specs(run: Run, env_servers: list[EnvServer] | None = None) -> list[LogSpec]:
    """The log streams to show for ``run`` (env servers from R8 when known, else the config)."""
    from primetui.monitor_core import rl

    if rl.is_rl(run):
        return rl_log_specs(run, env_servers)
    cfg = run_config(run)
    specs: list[LogSpec] = []
    deployment = _table(cfg, "deployment")
    nodes = deployment.get("num_train_nodes") if deployment.get("type") == "multi_node" else None
    if isinstance(nodes, int) and nodes > 1:
        specs += [LogSpec(f"trainer-{i}", f"trainer/{i}", "trainer", pod_index=i) for i in range(min(nodes, MAX_PODS))]
    else:
        specs.append(LogSpec("trainer", "trainer", "trainer"))
    if not cfg.get("eval"):
        return specs
    specs.append(LogSpec("orchestrator", "orchestrator", "orchestrator"))
    infer = deployment.get("num_infer_nodes") if deployment.get("type") == "multi_node" else None
    if isinstance(infer, int) and infer > 1:
        specs += [
            LogSpec(f"inference-{i}", f"inference/{i}", "inference", pod_index=i) for i in range(min(infer, MAX_PODS))
        ]
    else:
        specs.append(LogSpec("inference", "inference", "inference"))
    inference = _table(cfg, "inference")
    if deployment.get("type") == "multi_node" and isinstance(inference.get("router"), dict):
        specs.append(LogSpec("router", "router", "router"))
    names: list[str] = []
    for server in env_servers or []:
        name = server.env_name or server.pod_name
        if name and name not in names:
            names.append(name)
            if len(names) >= MAX_ENV_STREAMS:
                break
    if not names:
        names = eval_env_names(run)
    for name in names[:MAX_ENV_STREAMS]:
        short = name.split("/")[-1]
        specs.append(LogSpec(f"env-{_slug(name)}", f"env:{short}", "env-server", env_name=name))
    return specs


def _table(node: dict[str, Any], key: str) -> dict[str, Any]:
    value = node.get(key)
    return value if isinstance(value, dict) else {}


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text).strip("-").lower() or "env"
