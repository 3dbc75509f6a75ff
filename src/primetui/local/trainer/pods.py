"""Simulated multi-node training: one trainer process plays every node of a ``multi_node`` run.

The hosted platform runs one trainer pod per node (``num_train_nodes`` x ``gpus_per_node`` ranks).
This machine has two cores, so the local trainer plays all of them in one process, honestly:

* each node is a pod with its own index, pod name (``<runId>-trainer-<N>``), log stream
  (``logs/trainer.log`` for pod 0, ``logs/trainer@<N>.log`` for the others), status and step time;
* the micro-batches of every step are sharded across the nodes round-robin (micro-batch ``i`` goes
  to node ``i % num_train_nodes``); each node really computes its shard and logs its own loss and
  the time it took; pod 0 logs the run's summary line (the global loss) as prime-rl's rank 0 does;
* a node can be made to fail on purpose, local-only debugging knobs set in the config's
  ``[env_vars]`` (the hosted platform passes them to its pods and ignores these names):
  ``PRIMETUI_LOCAL_FAIL_POD = "N"`` (with ``PRIMETUI_LOCAL_FAIL_STEP``, default 1) raises in node N
  at that step and fails the run naming the pod; ``PRIMETUI_LOCAL_SLOW_POD = "N"`` (with
  ``PRIMETUI_LOCAL_SLOW_SECONDS``, default 0.3) makes node N sleep that long per micro-batch (``"0"`` slows
  the one pod of a single-node run too: see ``solo_slow_seconds``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from primetui.local.trainer.errors import RunFailure
from primetui.local.trainer.logs import ConsoleLog, format_time
from primetui.local.trainer.runfiles import Component, RunFiles

FAIL_POD = "PRIMETUI_LOCAL_FAIL_POD"
FAIL_STEP = "PRIMETUI_LOCAL_FAIL_STEP"
SLOW_POD = "PRIMETUI_LOCAL_SLOW_POD"
SLOW_SECONDS = "PRIMETUI_LOCAL_SLOW_SECONDS"


def pod_log_name(component: str, pod_index: int) -> str:
    """The log file of one pod: ``trainer.log`` for pod 0, ``trainer@3.log`` for pod 3."""
    return f"{component}.log" if pod_index == 0 else f"{component}@{pod_index}.log"


def _int_env(env: dict[str, Any], key: str, default: int | None) -> int | None:
    value = env.get(key)
    if value is None or str(value).strip() == "":
        return default
    try:
        return int(str(value).strip())
    except ValueError as exc:
        raise RunFailure(f"[env_vars] {key} must be a whole number, not {value!r}.") from exc


@dataclass
class Topology:
    """The node layout of a multi_node run and its local debugging knobs."""

    nodes: int
    gpus_per_node: int
    cp: int = 1
    fail_pod: int | None = None
    fail_step: int = 1
    slow_pod: int | None = None
    slow_seconds: float = 0.3

    @property
    def world_size(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def dp_size(self) -> int:
        return max(1, self.world_size // max(1, self.cp))


def topology(config: dict[str, Any]) -> Topology | None:
    """The run's topology when ``[deployment] type = "multi_node"``, else None."""
    dep = found if isinstance(found := config.get("deployment"), dict) else {}
    if dep.get("type") != "multi_node":
        return None
    nodes = dep.get("num_train_nodes", 2)
    gpus = dep.get("gpus_per_node", 8)
    model = found if isinstance(found := config.get("model"), dict) else {}
    cp = model.get("cp", 1)
    env = found if isinstance(found := config.get("env_vars"), dict) else {}
    topo = Topology(
        nodes=int(nodes),
        gpus_per_node=int(gpus),
        cp=int(cp) if isinstance(cp, int) else 1,
        fail_pod=_int_env(env, FAIL_POD, None),
        fail_step=_int_env(env, FAIL_STEP, 1) or 1,
        slow_pod=_int_env(env, SLOW_POD, None),
    )
    _read_slow_seconds(env, topo)
    for key, pod in ((FAIL_POD, topo.fail_pod), (SLOW_POD, topo.slow_pod)):
        if pod is not None and not 0 <= pod < topo.nodes:
            raise RunFailure(f"[env_vars] {key} = {pod} names no pod: this run has pods 0..{topo.nodes - 1}.")
    return topo


def _read_slow_seconds(env: dict[str, Any], topo: Topology) -> None:
    if env.get(SLOW_SECONDS) is not None:
        try:
            topo.slow_seconds = max(0.0, min(5.0, float(str(env[SLOW_SECONDS]))))
        except ValueError as exc:
            raise RunFailure(
                f"[env_vars] {SLOW_SECONDS} must be a number of seconds, not {env[SLOW_SECONDS]!r}."
            ) from exc


def solo_slow_seconds(config: dict[str, Any]) -> float:
    """The seconds a single-node run's one pod (pod 0) sleeps per micro-batch: ``PRIMETUI_LOCAL_SLOW_POD = "0"``
    slows it as it slows node 0 of a multi-node run; 0 without the knob."""
    env = found if isinstance(found := config.get("env_vars"), dict) else {}
    topo = Topology(nodes=1, gpus_per_node=1, slow_pod=_int_env(env, SLOW_POD, None))
    _read_slow_seconds(env, topo)
    if topo.slow_pod is not None and topo.slow_pod != 0:
        raise RunFailure(f"[env_vars] {SLOW_POD} = {topo.slow_pod} names no pod: this run has pod 0 only.")
    return topo.slow_seconds if topo.slow_pod == 0 else 0.0


class PodFailure(RunFailure):
    """A node of a multi-node run failed; the message names its pod."""


@dataclass
class StepShard:
    """What one node did in one step."""

    seconds: float = 0.0
    loss_sum: float = 0.0
    tokens: int = 0
    micro_batches: int = 0


@dataclass
class Pods:
    """The pods of a simulated multi-node run: their logs, components and per-step accounting."""

    files: RunFiles
    topo: Topology
    primary_log: ConsoleLog
    logs: list[ConsoleLog] = field(default_factory=list)
    comps: list[Component] = field(default_factory=list)
    shards: list[StepShard] = field(default_factory=list)

    @classmethod
    def start(cls, files: RunFiles, topo: Topology, primary_log: ConsoleLog, primary: Component) -> Pods:
        pods = cls(files, topo, primary_log)
        pods.logs = [primary_log] + [
            ConsoleLog(files.logs_dir / pod_log_name("trainer", n)) for n in range(1, topo.nodes)
        ]
        primary.pod_index = 0
        pods.comps = [primary] + [
            Component("trainer", f"{files.run_id}-trainer-{n}", "running", os.getpid(), pod_index=n)
            for n in range(1, topo.nodes)
        ]
        for comp in pods.comps[1:]:
            files.components.append(comp)
        files.write_components()
        return pods

    def world_line(self, node: int) -> str:
        t = self.topo
        return (
            f"Starting SFT trainer in World(world_size={t.world_size}, rank={node * t.gpus_per_node}, local_rank=0, "
            f"local_world_size={t.gpus_per_node}, num_nodes={t.nodes}) on CPU (local platform: node {node} of "
            f"{t.nodes} is simulated inside one process)"
        )

    def announce(self, grad_accum: int) -> None:
        """Each pod's start-up lines (pod 0 logs its World line itself, in the trainer's order)."""
        t = self.topo
        for node, log in enumerate(self.logs):
            if node:
                log.info(self.world_line(node))
            mine = len(range(node, grad_accum, t.nodes))
            log.info(
                f"Data shard: micro-batches i with i % {t.nodes} == {node} of each step ({mine} of {grad_accum}; "
                f"dp_size={t.dp_size}, cp={t.cp})"
            )
            if mine == 0:
                log.warning(
                    f"Node {node} gets no micro-batch: batch_size / micro_batch_size = {grad_accum} is below "
                    f"num_train_nodes = {t.nodes}; this node idles every step."
                )

    def begin_step(self) -> None:
        self.shards = [StepShard() for _ in range(self.topo.nodes)]

    def node_of(self, micro_batch: int) -> int:
        return micro_batch % self.topo.nodes

    def before_micro_batch(self, step: int, node: int) -> None:
        """Local debugging knobs: the slow pod sleeps, the failing pod raises."""
        t = self.topo
        if t.slow_pod == node:
            time.sleep(t.slow_seconds)
        if t.fail_pod == node and step == t.fail_step:
            self.fail_pod(node, step, f"simulated node failure ({FAIL_POD}={node}, {FAIL_STEP}={t.fail_step})")

    def record(self, node: int, seconds: float, loss_sum: float, tokens: int) -> None:
        shard = self.shards[node]
        shard.seconds += seconds
        shard.loss_sum += loss_sum
        shard.tokens += tokens
        shard.micro_batches += 1

    def end_step(self, step: int) -> None:
        """Each node's own step line (pod 0's summary line is the trainer's usual one)."""
        slowest = max(range(self.topo.nodes), key=lambda n: self.shards[n].seconds)
        for node, log in enumerate(self.logs):
            shard = self.shards[node]
            loss = shard.loss_sum / shard.tokens if shard.tokens else float("nan")
            log.success(
                f"Step {step} | {format_time(shard.seconds):>7} | Node {node} | Local Loss {loss:.4f} | "
                f"Micro-batches {shard.micro_batches} | Tokens {shard.tokens}"
            )
        self.primary_log.info(
            f"Step {step} node times: "
            + ", ".join(f"{n}={self.shards[n].seconds:.2f}s" for n in range(self.topo.nodes))
            + f" (slowest: node {slowest})"
        )

    def fail_pod(self, node: int, step: int, cause: str) -> None:
        pod = self.comps[node].pod_name
        self.logs[node].error(f"RuntimeError: {cause}")
        self.logs[node].error(f"Node {node} ({pod}) exited at step {step}")
        for other, log in enumerate(self.logs):
            if other != node:
                log.error(f"Lost contact with node {node} ({pod}) at step {step}: collective timed out; stopping")
        for comp in self.comps:
            comp.status = "failed" if comp.pod_index == node else "stopped"
        self.files.write_components()
        raise PodFailure(
            f"Pod {pod} (node {node} of {self.topo.nodes}) failed at step {step}: {cause}; "
            f"read its log with pod_index={node}."
        )

    def set_status(self, status: str) -> None:
        """Every pod takes the run's final status (after a pod failure the others stay stopped)."""
        if status == "failed" and any(c.status == "failed" for c in self.comps):
            return
        for comp in self.comps:
            if comp.status != "failed":
                comp.status = status
        self.files.write_components()

    def close(self) -> None:
        for log in self.logs[1:]:
            log.close()
