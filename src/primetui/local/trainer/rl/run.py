"""The RL run: one process plays prime-rl's orchestrator, trainer, inference engine and env servers.

Per step ``n`` (1-indexed, as prime-rl's orchestrator counts):

1. the orchestrator samples the batch with the inference engine's weights, which are one step
   stale (policy ``v(n-2)``, as prime-rl's async pipeline with one step in flight), scores every
   rollout on its env server's reward and computes GRPO advantages; it logs the ``Step`` line,
   writes the metrics row, the distributions line and, on sample steps, the samples file;
2. evals due at step ``n+1`` run on the same (stale) weights, as prime-rl fires them when it ships;
3. the trainer takes one AdamW step on the importance-weighted policy-gradient loss at ``v(n-1)``
   and logs its ``Step`` line (loss, entropy, mismatch KL, grad norm);
4. checkpoints, status, pause and stop are handled as in the SFT trainer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from primetui.local.trainer import ckpt as ckpt_mod
from primetui.local.trainer.errors import RunFailure
from primetui.local.trainer.loop import Trainer
from primetui.local.trainer.optim import Optimizer, clip_grad_norm
from primetui.local.trainer.perf import PerfCounter, cpu_peak_flops, peak_rss_gib
from primetui.local.trainer.pods import solo_pace
from primetui.local.trainer.rl import STANDIN
from primetui.local.trainer.rl import messages as msg
from primetui.local.trainer.rl import samples as smp
from primetui.local.trainer.rl.components import RLComponents
from primetui.local.trainer.rl.config import RLRunConfig, Source, parse_rl_config
from primetui.local.trainer.rl.loss import StepResult, policy_gradient
from primetui.local.trainer.rl.metrics import eval_metrics, train_metrics
from primetui.local.trainer.rl.policy import NUM_PARAMS, Dists, init_params
from primetui.local.trainer.rl.rollouts import Batch, Episode, TaskSampler, collect_batch, eval_examples, run_group
from primetui.local.trainer.rl.taskset import BadSplit, is_local, load, unknown_taskset_message
from primetui.local.trainer.files import JsonlAppender
from primetui.local.trainer.scheduler import Scheduler

LR_SCALE = 1e5
"""The policy's AdamW step is prime-rl's ``lr`` times this (3e-6 -> 0.3 per step on its logits)."""

FLOPS_PER_TOKEN = 6 * NUM_PARAMS  # 6 per weight per token, as the SFT stand-in counts


@dataclass
class Progress:
    step: int = 0
    total_tokens: int = 0
    total_rollouts: int = 0
    total_tasks: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "step": self.step,
            "total_tokens": self.total_tokens,
            "total_samples": self.total_rollouts,
            "total_problems": self.total_tasks,
        }


@dataclass
class Policy:
    """The trainer's weights and the (one step stale) weights the inference engine samples with."""

    current: dict[str, np.ndarray]
    behaviour: dict[str, np.ndarray]
    dists: dict[tuple[str, float], Dists] = field(default_factory=dict)

    def of(self, which: str, temperature: float) -> Dists:
        key = (which, temperature)
        if key not in self.dists:
            self.dists[key] = Dists.of(self.current if which == "current" else self.behaviour, temperature)
        return self.dists[key]

    def advance(self) -> None:
        """The trainer's new weights reach inference one step later: the old current becomes the behaviour."""
        self.behaviour = {k: v.copy() for k, v in self.current.items()}
        self.dists.clear()

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            **{f"current.{k}": v for k, v in self.current.items()},
            **{f"behaviour.{k}": v for k, v in self.behaviour.items()},
        }


class RLTrainer(Trainer):
    """``Trainer`` with the RL step; signals, status, failures and resume lookup are the SFT trainer's."""

    def _config(self, raw: dict[str, Any]) -> RLRunConfig:
        return parse_rl_config(raw)

    def _set_trainer_status(self, status: str) -> None:
        comps = getattr(self, "comps", None)
        if comps is not None:
            comps.set_status(status)
        else:
            super()._set_trainer_status(status)

    # -- setup ---------------------------------------------------------------------------------------
    def _train(self, spec: dict[str, Any], cfg: RLRunConfig) -> int:  # type: ignore[override]  # its own _config parses RLRunConfig
        self.cfg = cfg
        self.spec = spec
        # One step in flight, as prime-rl's pipeline runs; max_off_policy_steps = 0 forbids any staleness.
        self.lag = 1 if cfg.max_off_policy_steps >= 1 else 0
        model = str((spec.get("model") or {}).get("name") or cfg.model_name)
        self.seed = int(((spec.get("model") or {}).get("standin") or {}).get("seed", 0))
        self._check_sources(cfg)
        self.comps = RLComponents.start(self.files, cfg, self.trainer_comp, self.log)
        self._announce(model)
        self.pace = solo_pace(spec.get("config") or {})  # the slow-pod knob, as a single-node SFT run honours it
        if self.pace:
            self.log.info(f"Local pace: node 0 sleeps {self.pace:g} s per step (PRIMETUI_LOCAL_SLOW_POD)")
        self.tasks = {s.name: load(s.taskset, "train", s.dataset_split) for s in cfg.sources}
        self.eval_tasks = {
            s.name: eval_examples(load(s.taskset, "eval", s.dataset_split), s.num_examples)
            for s in (cfg.eval.sources if cfg.eval else [])
        }
        self.comps.envs_ready(self.tasks, self.eval_tasks)
        self.policy = Policy(init_params(), init_params())
        self.opt = Optimizer(cfg.optim, self.policy.current)
        if self.opt.fallback_note:
            self.log.warning(self.opt.fallback_note)
        self.sched = Scheduler(cfg.scheduler, cfg.optim.lr, cfg.max_steps)
        self.sampler = TaskSampler(cfg.sources, self.tasks, self.seed)
        self.progress = Progress()
        self.ckpt_root = self._ckpt_root(
            cfg,
            Path(spec.get("output_dir") or self.files.run_dir / "output"),
            Path(spec["volume_dir"]) if spec.get("volume_dir") else None,
        )
        resumed = self._resume(spec, cfg)
        self._check_signals()
        return self._loop(resumed)

    def _check_sources(self, cfg: RLRunConfig) -> None:
        if not cfg.sources:
            raise RunFailure(
                "The config has no [[orchestrator.train.source]], so there is nothing to train on; "
                'add one (e.g. env.taskset.id = "reverse-text").'
            )
        for s in cfg.all_sources:
            if not is_local(s.taskset):
                raise RunFailure(unknown_taskset_message(s.taskset, s.name))
            try:
                load(s.taskset, "train" if s in cfg.sources else "eval", s.dataset_split)
            except BadSplit as e:
                raise RunFailure(f"Source '{s.name}': {e}") from None

    def _announce(self, model: str) -> None:
        cfg, log = self.cfg, self.log
        log.warning(
            f"Local platform: training a stand-in policy instead of {model}; real weights cannot run on this "
            f"machine. Stand-in: a factorised {STANDIN.removeprefix('stand-in ')}."
        )
        log.info(
            f"Starting RL trainer in World(world_size=1, rank=0, local_rank=0, local_world_size=1, num_nodes=1) "
            f"in {self.files.run_dir}"
        )
        log.info("Setting up loss function (type='default', importance ratio against the sampling policy)")
        log.info(
            f"Initializing optimizer (type={cfg.optim.type}, lr={cfg.optim.lr}, weight_decay={cfg.optim.weight_decay}, "
            f"max_norm={cfg.optim.max_norm}; the policy steps lr x {LR_SCALE:.0e})"
        )
        self.comps.announce(model)

    def _resume(self, spec: dict[str, Any], cfg: RLRunConfig) -> bool:
        volume_dir = Path(spec["volume_dir"]) if spec.get("volume_dir") else None
        found = self._resume_dir(spec, cfg, self.ckpt_root, volume_dir)  # type: ignore[arg-type]
        if found is None:
            self.log.info("Training from scratch")
            self.comps.orch.info("Training from scratch")
            return False
        step_dir, shown = found
        state = ckpt_mod.load(step_dir, shown)
        self._restore(state, shown)
        self.log.info(f"Resuming training from checkpoint step {self.progress.step} ({shown})")
        self.comps.orch.info(f"Resuming orchestrator from checkpoint step {self.progress.step}")
        return True

    def _restore(self, state: ckpt_mod.TrainState, shown: str) -> None:
        p = self.policy
        for which, arrays in (("current", p.current), ("behaviour", p.behaviour)):
            for k in arrays:
                key = f"{which}.{k}"
                if key not in state.params or state.params[key].shape != arrays[k].shape:
                    raise RunFailure(
                        f"Checkpoint {shown} was not written by a local RL run; resume it with an SFT "
                        "config, or point [resume] at an RL checkpoint."
                    )
                arrays[k][...] = state.params[key]
        p.dists.clear()
        skip = self.cfg.ckpt
        if not (skip and skip.skip_optimizer):
            self.opt.load_state_arrays(state.optim_arrays, state.optim_t)
        if not (skip and skip.skip_progress):
            pr = state.progress
            self.progress = Progress(
                int(pr.get("step", 0)),
                int(pr.get("total_tokens", 0)),
                int(pr.get("total_samples", 0)),
                int(pr.get("total_problems", 0)),
            )
        if not (skip and skip.skip_dataloader):
            loader = state.dataloader
            # A checkpoint of an older local run holds only the standard samplers' cursors.
            self.sampler.load_state(
                loader.get("sampler") or {"envs": {k: {"cursor": v} for k, v in (loader.get("cursors") or {}).items()}}
            )

    # -- loop ----------------------------------------------------------------------------------------
    def _loop(self, resumed: bool) -> int:
        cfg = self.cfg
        start = self.progress.step + 1
        self.dist_file = JsonlAppender(self.files.run_dir / smp.DISTRIBUTIONS)
        self.perf = PerfCounter(cpu_peak_flops(self.threads))
        self.files.set_status("running", start - 1)
        steps_label = cfg.max_steps if cfg.max_steps is not None else "infinite"
        self.log.info(f"Starting training loop (max_steps={steps_label})")
        self.comps.orch.info(f"Starting orchestrator loop (max_steps={steps_label})")
        self._startup_evals(start, resumed)
        self.last_ship = time.perf_counter()
        step = start - 1
        while cfg.max_steps is None or step < cfg.max_steps:
            step += 1
            self.step = step
            self._check_signals()
            self._one_step(step)
            if self.pause_requested and step != cfg.max_steps:
                self._save(step)
                return self._finish_paused(step)
        return self._complete(step)

    def _one_step(self, step: int) -> None:
        if self.pace:
            self._sleep(self.pace)  # cut short by a stop request, which the next check raises
            self._check_signals()
        episodes = self._orchestrate(step)
        due = step + 1
        if self.cfg.max_steps is None or due <= self.cfg.max_steps:
            self._evals(due, version=self.progress.step)
        self._train_step(step, episodes)
        is_last = self.cfg.max_steps is not None and step >= self.cfg.max_steps
        ck = self.cfg.ckpt
        if ck is not None and (is_last or (ck.interval and step % ck.interval == 0)):
            self._save(step)
        self.files.set_status("running", step)

    # -- orchestrator --------------------------------------------------------------------------------
    def _orchestrate(self, step: int) -> list[Episode]:
        cfg = self.cfg
        version = max(0, step - 1 - self.lag)
        rng = np.random.default_rng([self.seed, step])
        target = cfg.batch_size
        half = {"logged": False}
        counted = [0]

        def on_progress(done: list[Episode], dispatched: Source) -> None:
            self.comps.count(done[counted[0] :])
            counted[0] = len(done)
            if not half["logged"] and len(done) * 2 >= target:
                half["logged"] = True
                per_env = {s.name: sum(e.env_name == s.name for e in done) for s in cfg.sources}
                inflight = {s.name: dispatched.group_size if s is dispatched else 0 for s in cfg.sources}
                self.comps.orch.info(msg.pipeline(len(done), target, per_env, inflight))
                self.comps.engine_stats(running=dispatched.group_size)

        self._check_signals()
        batch = collect_batch(
            self.sampler, self._behaviour_for, version, target, cfg.token_batch_size, rng, on_progress
        )
        self.comps.count(batch.episodes[counted[0] :])
        now = time.perf_counter()
        step_time, self.last_ship = now - self.last_ship, now
        self._orchestrator_outputs(step, batch, step_time, off_policy=step - 1 - version)
        return batch.episodes

    def _sampler(self) -> str:
        """Which weights the inference engine samples train batches with."""
        return "behaviour" if self.lag else "current"

    def _behaviour_for(self, source: Source) -> Dists:
        return self.policy.of(self._sampler(), source.sampling.temperature)

    def _orchestrator_outputs(self, step: int, batch: Batch, step_time: float, off_policy: int) -> None:
        eps = batch.episodes
        names = [s.name for s in self.cfg.sources]
        row = (
            train_metrics(eps, names)
            | self._progress_row(eps)
            | {
                "time/step": step_time,
                "time/wait_for_policy": 0.0,
                "off_policy/mean": float(off_policy),
                "off_policy/max": float(off_policy),
                "off_policy/in_flight/mean": float(off_policy),
                "off_policy/in_flight/max": float(off_policy),
                "off_policy/in_queue/mean": 0.0,
                "off_policy/in_queue/max": 0.0,
                "off_policy/dropped": 0.0,
            }
        )
        self.files.log_metrics(step, row)
        self.dist_file.append(smp.distributions_row(step, eps))
        if smp.is_sample_step(step, self.cfg.max_steps):
            smp.write_samples(self.files.run_dir, self.files.run_id, step, eps)
        self.comps.orch.success(msg.orchestrator_step(step, step_time, eps, off_policy, names))
        self._warn_trainable(step, eps)

    def _progress_row(self, eps: list[Episode]) -> dict[str, float]:
        p = self.progress
        tokens = sum(e.num_input_tokens + e.num_output_tokens for e in eps)
        tasks = len({e.group_id for e in eps})
        row: dict[str, float] = {
            "progress/tokens": tokens,
            "progress/input_tokens": sum(e.num_input_tokens for e in eps),
            "progress/output_tokens": sum(e.num_output_tokens for e in eps),
            "progress/rollouts": len(eps),
            "progress/tasks": tasks,
            "progress/total_tokens": p.total_tokens,
            "progress/total_rollouts": p.total_rollouts,
            "progress/total_tasks": p.total_tasks,
        }
        p.total_tokens += tokens
        p.total_rollouts += len(eps)
        p.total_tasks += tasks
        return row

    def _warn_trainable(self, step: int, eps: list[Episode]) -> None:
        k = sum(e.advantage != 0.0 for e in eps)
        if k / len(eps) <= 0.1:
            self.comps.orch.warning(
                f"Only {k}/{len(eps)} effective traces are trainable ({k / len(eps):.1%}) — "
                "consider reviewing task difficulty"
            )

    # -- evals ---------------------------------------------------------------------------------------
    def _startup_evals(self, start: int, resumed: bool) -> None:
        ev = self.cfg.eval
        if ev is None:
            return
        if not resumed and not ev.skip_first_step:
            self._evals(start, version=self.progress.step, force=True)
        elif resumed and ev.retrigger_on_resume:
            self._evals(start - 1, version=self.progress.step)

    def _evals(self, step: int, version: int, force: bool = False) -> None:
        ev = self.cfg.eval
        if ev is None:
            return
        fired = [s for s in ev.sources if force or step % s.interval == 0]
        if not fired:
            return
        total = sum(len(self.eval_tasks[s.name]) * s.group_size for s in fired)
        self.comps.orch.info(f"Starting evals in {', '.join(s.name for s in fired)} ({total} total rollouts)")
        for source in fired:
            self._eval_source(source, step, version)

    def _eval_source(self, source: Source, step: int, version: int) -> None:
        t0 = time.perf_counter()
        rng = np.random.default_rng([self.seed, 1_000_003, step, source.index])
        dists = self.policy.of("current", source.sampling.temperature)  # what inference serves when the eval fires
        eps: list[Episode] = []
        for task in self.eval_tasks[source.name]:
            eps += run_group(task, source, source.group_size, dists, version, rng)
        self.files.log_metrics(step, eval_metrics(source.name, eps, source.group_size, version))
        self.comps.orch.success(msg.evaluated(source.name, step, version, time.perf_counter() - t0, eps))
        self.comps.count(eps)

    # -- trainer -------------------------------------------------------------------------------------
    def _train_step(self, step: int, eps: list[Episode]) -> None:
        t0 = time.perf_counter()
        res = self._gradient(eps)
        grad_norm = clip_grad_norm(res.grads, self.cfg.optim.max_norm)
        lr = self.sched.lr_at(step)
        self.policy.advance()
        if np.isfinite(grad_norm) and res.tokens:
            self.opt.step(self.policy.current, res.grads, lr * LR_SCALE)
        self.policy.dists.clear()
        self.progress.step = step
        seconds = time.perf_counter() - t0
        self.perf.count(
            time.perf_counter(),
            sum(e.num_input_tokens + e.num_output_tokens for e in eps),
            float(FLOPS_PER_TOKEN) * res.tokens,
        )
        shown_norm = grad_norm if self.cfg.optim.max_norm is not None else None
        self.log.success(
            msg.trainer_step(
                step,
                seconds,
                res.loss,
                res.entropy,
                res.mismatch_kl,
                shown_norm,
                lr,
                self.perf.tokens_per_second() or 0.0,
                self.perf.mfu() or 0.0,
                peak_rss_gib(),
            )
        )

    def _gradient(self, eps: list[Episode]) -> StepResult:
        """One loss over the batch; rollouts sampled at different temperatures are weighted by their tokens."""
        by_t: dict[float, list[Episode]] = {}
        for e in eps:
            by_t.setdefault(self._temperature(e), []).append(e)
        parts = [
            policy_gradient(
                self.policy.of("current", t),
                self.policy.of(self._sampler(), t),
                [e.rollout for e in group],
                np.array([e.advantage for e in group]),
                t,
            )
            for t, group in by_t.items()
        ]
        return combine(parts)

    def _temperature(self, e: Episode) -> float:
        for s in self.cfg.sources:
            if s.name == e.env_name:
                return s.sampling.temperature
        return 1.0

    # -- checkpoints and the end ------------------------------------------------------------------------
    def _save(self, step: int) -> None:
        self.log.info(f"Saving checkpoint at step {step}")
        state = ckpt_mod.TrainState(
            params={k: v.astype(np.float64) for k, v in self.policy.arrays().items()},
            optim_arrays=self.opt.state_arrays(),
            optim_t=self.opt.t,
            scheduler={"type": self.cfg.scheduler.type, "last_step": step, "lr": self.sched.lr_at(step)},
            progress=self.progress.as_dict(),
            dataloader={"sampler": self.sampler.state()},
        )
        path, size = ckpt_mod.save(self.ckpt_root, step, state)
        self.files.log_checkpoint(step, path, size)
        if self.cfg.ckpt is not None:
            for gone in ckpt_mod.prune(self.ckpt_root, self.cfg.ckpt.keep_last, self.cfg.ckpt.keep_interval):
                self.files.log_checkpoint_deleted(gone)

    def _complete(self, step: int) -> int:
        self.comps.shutdown()
        self.comps.orch.success("Orchestrator finished.")
        self.log.success("RL trainer finished!")
        self.files.set_status("completed", step)
        self._set_trainer_status("completed")
        return 0


def combine(parts: list[StepResult]) -> StepResult:
    if len(parts) == 1:
        return parts[0]
    total = sum(p.tokens for p in parts) or 1
    grads = {k: cast(np.ndarray, sum(p.grads[k] * p.tokens for p in parts) / total) for k in parts[0].grads}
    avg = lambda name: sum(getattr(p, name) * p.tokens for p in parts) / total  # noqa: E731
    return StepResult(grads, avg("loss"), avg("entropy"), avg("mismatch_kl"), sum(p.tokens for p in parts))
