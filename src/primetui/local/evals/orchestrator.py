"""The eval orchestrator: for each weight broadcast, decide which sources are due, have the
inference server load the weights, roll out the source's examples, score them on its env server
and append ``eval/<source>/...`` rows to metrics.jsonl at the trainer step.

It exits 0 once the step named by ``broadcasts/FINAL`` has been evaluated, which is what lets the
trainer mark the run completed only after the final evals have drained.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from primetui.local.evals.common import HTTPError, request_json, watch_parent
from primetui.local.trainer.config import EvalSource, parse_eval
from primetui.local.trainer.files import JsonlAppender, finite_row, read_json, write_json_atomic
from primetui.local.trainer.logs import ConsoleLog

STEP_DIR = re.compile(r"^step_(\d+)$")
RETRY_SECONDS = 10.0


class Orchestrator:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.log = ConsoleLog(run_dir / "logs" / "orchestrator.log")
        spec = read_json(run_dir / "config.json")
        config = spec.get("config") or {}
        self.eval = parse_eval(config.get("eval") or {})
        # prime-rl's [log] interval: seconds between periodic status lines of every component.
        self.log_interval = float((config.get("log") or {}).get("interval", 10.0))
        self.endpoints = read_json(run_dir / "evals" / "endpoints.json")
        self.metrics = JsonlAppender(run_dir / "metrics.jsonl")
        self.broadcasts = run_dir / "broadcasts"
        self.done: set[int] = set()

    def _call(self, url: str, body: Any | None = None) -> Any:
        """HTTP with a short retry window, so a dying peer is reported by the trainer, not mistaken here."""
        deadline = time.monotonic() + RETRY_SECONDS
        while True:
            try:
                return request_json(url, body)
            except HTTPError as exc:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} did not answer ({exc})") from exc
                time.sleep(0.2)

    def pending(self) -> list[int]:
        if not self.broadcasts.is_dir():
            return []
        steps = []
        for p in self.broadcasts.iterdir():
            m = STEP_DIR.match(p.name)
            if m and (p / "STABLE").exists() and int(m.group(1)) not in self.done:
                steps.append(int(m.group(1)))
        return sorted(steps)

    def final_step(self) -> int | None:
        try:
            return int(read_json(self.broadcasts / "FINAL")["step"])
        except (OSError, ValueError, KeyError):
            return None

    def due(self, step: int, final: int | None) -> list[EvalSource]:
        if step == 0 or step == final:
            return list(self.eval.sources)
        return [s for s in self.eval.sources if step % s.interval == 0]

    def evaluate(self, step: int, final: int | None) -> None:
        sources = self.due(step, final)
        path = self.broadcasts / f"step_{step}"
        self.log.info(f"Received weight broadcast for step {step}; asking inference to load it")
        self._call(f"{self.endpoints['inference']}/update_weights", {"path": str(path), "step": step})
        for src in sources:
            self.run_source(step, src)
        self.done.add(step)
        # Only the newest broadcast is kept on disk, as prime-rl does.
        for old in self.done:
            if old < step:
                shutil.rmtree(self.broadcasts / f"step_{old}", ignore_errors=True)

    def run_source(self, step: int, src: EvalSource) -> None:
        env_url = self.endpoints["envs"][src.name]
        t0 = time.perf_counter()
        examples = self._call(f"{env_url}/examples?n={src.num_examples}")["examples"]
        self.log.info(f"Evaluating step {step} on '{src.name}': {len(examples)} examples x {src.group_size} rollouts")
        max_tokens = src.max_completion_tokens or min(
            1024, max(len(m["content"].encode()) for ex in examples for m in ex["prompt"]) + 16
        )
        items = []
        for g in range(src.group_size):
            out = self._call(
                f"{self.endpoints['inference']}/v1/generate",
                {
                    "prompts": [ex["prompt"] for ex in examples],
                    "max_tokens": max_tokens,
                    "temperature": src.temperature or (1.0 if src.group_size > 1 else 0.0),
                    "seed": step * 1000 + g,
                },
            )
            items += [{"index": ex["index"], "completion": c} for ex, c in zip(examples, out["completions"])]
        rewards = self._call(f"{env_url}/score", {"items": items})["rewards"]
        elapsed = time.perf_counter() - t0
        n = len(rewards)
        mean = sum(rewards) / n if n else float("nan")
        std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / n) if n else float("nan")
        lengths = [len(it["completion"].encode()) for it in items]
        prefix = f"eval/{src.name}"
        self.metrics.append(
            finite_row(
                {
                    "step": step,
                    "time": time.time(),
                    f"{prefix}/reward/mean": mean,
                    f"{prefix}/reward/std": std,
                    f"{prefix}/count": n,
                    f"{prefix}/time": elapsed,
                    f"{prefix}/completion_len/mean": sum(lengths) / n if n else float("nan"),
                    f"{prefix}/policy_version": step,
                }
            )
        )
        self.log.success(
            f"Eval {src.name} | Step {step} | Reward {mean:.4f} ± {std:.4f} | {n} samples | {elapsed:.1f}s"
        )

    def idle_note(self) -> str:
        """What the orchestrator is waiting for, for the periodic status line."""
        try:
            trainer_step = int(read_json(self.run_dir / "status.json").get("step") or 0)
        except (OSError, ValueError, AttributeError):
            trainer_step = 0
        intervals = [s.interval for s in self.eval.sources]
        nxt = min(((trainer_step // i) + 1) * i for i in intervals) if intervals else None
        last = max(self.done) if self.done else None
        return f"Waiting for the next weight broadcast: trainer at step {trainer_step}, next eval at step {nxt}" + (
            f", last evaluated step {last}" if last is not None else ""
        )

    def run(self) -> int:
        names = ", ".join(f"{s.name} (every {s.interval} steps)" for s in self.eval.sources)
        self.log.info(f"Starting eval orchestrator: sources {names}; inference at {self.endpoints['inference']}")
        last_activity = time.monotonic()
        while True:
            final = self.final_step()
            for step in self.pending():
                self.evaluate(step, final)
                last_activity = time.monotonic()
            if final is not None and final in self.done:
                write_json_atomic(self.run_dir / "evals" / "done.json", {"step": final})
                self.log.success(f"Evals of the final checkpoint (step {final}) finished")
                return 0
            if time.monotonic() - last_activity >= self.log_interval:
                self.log.info(self.idle_note())
                last_activity = time.monotonic()
            time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.local.evals.orchestrator")
    parser.add_argument("--run-dir", required=True)
    args = parser.parse_args(argv)
    watch_parent()
    orch = Orchestrator(Path(args.run_dir))
    try:
        return orch.run()
    except Exception as exc:  # noqa: BLE001 - the trainer reads this line to explain the failure
        orch.log.error(f"Orchestrator failed: {type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
