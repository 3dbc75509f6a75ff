"""The trainer's side of online evals: start, watch and stop the eval processes; broadcast weights.

Each process is a child of the trainer, tracked by pid; ``check()`` turns an unexpected exit into
a run failure that names the component (``env server 'reverse-text' exited with code -9``).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from primetui.config.fileio import atomic_write
from primetui.local.environ import worker_environment
from primetui.local.evals.common import env_log_name, ready_file
from primetui.local.trainer.config import TrainConfig
from primetui.local.trainer.errors import RunFailure
from primetui.local.trainer.files import read_json, write_json_atomic
from primetui.local.trainer.logs import ConsoleLog
from primetui.local.trainer.model import ModelShape
from primetui.local.trainer.runfiles import Component, RunFiles

READY_TIMEOUT = 60.0


@dataclass
class Child:
    label: str  # how errors name it: "inference server", "env server 'x'", "orchestrator"
    key: str  # readiness file key
    log_path: Path
    comp: Component
    proc: subprocess.Popen[bytes]
    expected_exit: bool = False


class EvalComponents:
    def __init__(
        self,
        files: RunFiles,
        cfg: TrainConfig,
        shape: ModelShape,
        model_name: str,
        log: ConsoleLog,
        check_signals: Callable[[], None],
    ) -> None:
        assert cfg.eval is not None
        self.files = files
        self.run_dir = files.run_dir
        self.cfg = cfg
        self.eval = cfg.eval
        self.log = log
        self.check_signals = check_signals
        self.children: list[Child] = []
        self.broadcast_dir = self.run_dir / "broadcasts"
        self.final_written = False
        self.simulated: list[Component] = []  # inference pods and router played by the inference process
        self.cfg_dict: dict = read_json(self.run_dir / "config.json").get("config") or {}

    # -- processes -------------------------------------------------------------------------------
    def _spawn(self, label: str, key: str, module: str, log_name: str, comp: Component, *extra: str) -> Child:
        log_path = self.files.logs_dir / log_name
        env = worker_environment(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        # stderr goes to the component's own log so a crash's traceback is visible where users look.
        with open(log_path, "ab") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", module, "--run-dir", str(self.run_dir), *extra],
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
                env=env,
                start_new_session=True,
            )
        comp.pid = proc.pid
        comp.status = "starting"
        self.files.add_component(comp)
        child = Child(label, key, log_path, comp, proc)
        self.children.append(child)
        return child

    def start(self) -> None:
        rid = self.files.run_id
        names = [s.name for s in self.eval.sources]
        self.log.info(
            f"Online evals: starting inference, {len(names)} env server(s) ({', '.join(names)}) and the orchestrator"
        )
        # A restarted run reuses its run dir: readiness files, endpoints and broadcasts of the
        # previous attempt would point at dead servers and old weights.
        for stale in (self.run_dir / "evals", self.broadcast_dir):
            shutil.rmtree(stale, ignore_errors=True)
        (self.run_dir / "evals").mkdir(parents=True, exist_ok=True)
        inference = self._spawn(
            "inference server",
            "inference",
            "primetui.local.evals.inference",
            "inference.log",
            Component("inference", f"{rid}-inference-0"),
        )
        self._add_simulated_nodes(inference)
        for i, src in enumerate(self.eval.sources):
            self._spawn(
                f"env server '{src.name}'",
                f"env-{i}",
                "primetui.local.evals.env_server",
                env_log_name(src.name),
                Component("env-server", f"{rid}-env-{src.name}-0", env_name=src.name, env_index=i),
                "--index",
                str(i),
            )
        endpoints: dict[str, object] = {"envs": {}}
        deadline = time.monotonic() + READY_TIMEOUT
        for child in self.children:
            while not ready_file(self.run_dir, child.key).exists():
                self.check()
                self.check_signals()
                if time.monotonic() > deadline:
                    raise RunFailure(
                        f"The {child.label} did not become ready within {READY_TIMEOUT:.0f}s; see its log."
                    )
                time.sleep(0.05)
            url = read_json(ready_file(self.run_dir, child.key))["base_url"]
            child.comp.status = "running"
            if child.key == "inference":
                endpoints["inference"] = url
            else:
                endpoints["envs"][self.eval.sources[int(child.key.split("-")[1])].name] = url  # type: ignore[index]
        self.files.write_components()
        write_json_atomic(self.run_dir / "evals" / "endpoints.json", endpoints)
        orch = self._spawn(
            "orchestrator",
            "orchestrator",
            "primetui.local.evals.orchestrator",
            "orchestrator.log",
            Component("orchestrator", f"{rid}-orchestrator-0"),
        )
        orch.comp.status = "running"
        self.files.write_components()

    def _add_simulated_nodes(self, inference: Child) -> None:
        """Multi-node evals: inference pods 1..K-1 and the router, played by the inference process."""
        from primetui.local.evals.infer_nodes import has_router, infer_nodes

        rid = self.files.run_id
        config = self.cfg_dict
        n = infer_nodes(config)
        if n == 1 and not has_router(config):
            return
        inference.comp.pod_index = 0
        extra = [
            Component("inference", f"{rid}-inference-{k}", "running", inference.proc.pid, pod_index=k)
            for k in range(1, n)
        ]
        if has_router(config):
            extra.append(Component("router", f"{rid}-router-0", "running", inference.proc.pid))
        for comp in extra:
            self.files.components.append(comp)
        self.simulated = extra
        self.files.write_components()

    def _last_error(self, child: Child) -> str:
        try:
            lines = child.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        for line in reversed(lines[-50:]):
            if " ERROR " in line[:20]:
                return line.split(" ERROR ", 1)[1].strip()
        return ""

    def check(self) -> None:
        """Raise RunFailure naming the first component that exited when it should not have."""
        dead = [c for c in self.children if not c.expected_exit and c.proc.poll() is not None]
        if not dead:
            return
        if all(c.label == "orchestrator" for c in dead):
            # The orchestrator usually dies *because* a server died: give that exit a moment to show.
            time.sleep(0.5)
            dead = [c for c in self.children if not c.expected_exit and c.proc.poll() is not None]
        dead.sort(key=lambda c: c.label == "orchestrator")
        child = dead[0]
        child.comp.status = "failed"
        self.files.write_components()
        detail = self._last_error(child)
        reason = f"{child.label} exited with code {child.proc.returncode}"
        raise RunFailure(f"{reason}: {detail}" if detail else f"{reason}; see its log for details.")

    # -- weights ---------------------------------------------------------------------------------
    def broadcast(self, step: int, params: dict[str, np.ndarray], final: bool = False) -> None:
        """Write ``broadcasts/step_N`` (weights, then the STABLE marker) for the inference server."""
        self.log.info(f"Broadcasting weights at step {step}")
        if final:
            self._write_final(step)
        tmp = self.broadcast_dir / f".step_{step}.tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        np.savez(tmp / "model.npz", **{k: v.astype(np.float32) for k, v in params.items()})  # type: ignore[arg-type]  # numpy stub: a **dict might fill allow_pickle
        dest = self.broadcast_dir / f"step_{step}"
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
        atomic_write(dest / "STABLE", str(step))

    def _write_final(self, step: int) -> None:
        write_json_atomic(self.broadcast_dir / "FINAL", {"step": step})
        self.final_written = True

    def finish(self, step: int) -> None:
        """Wait until the orchestrator has evaluated the final broadcast, then stop the servers."""
        if not self.final_written:
            self._write_final(step)
        self.log.info(f"Waiting for the evals of the final checkpoint (step {step}) to finish")
        orch = next(c for c in self.children if c.key == "orchestrator")
        while True:
            rc = orch.proc.poll()
            if rc == 0:
                orch.expected_exit = True
                orch.comp.status = "completed"
                break
            self.check()
            self.check_signals()
            time.sleep(0.1)
        self.stop("completed")
        self.log.info("Online evals finished")

    def stop(self, status: str) -> None:
        """Terminate every still-running child (SIGTERM, then SIGKILL after 5 s)."""
        live = [c for c in self.children if c.proc.poll() is None]
        for c in live:
            c.expected_exit = True
            try:
                c.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5.0
        for c in live:
            try:
                c.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                c.proc.kill()
                c.proc.wait()
        for c in self.children:
            if c in live or c.comp.status in ("starting", "running"):
                c.comp.status = status
        for comp in self.simulated:
            comp.status = status
        self.files.write_components()
