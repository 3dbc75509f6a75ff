"""The training process: setup, the step loop, checkpoints, pause/stop, and the eval components."""

from __future__ import annotations

import errno
import math
import os
import signal
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from primetui.local.trainer import ckpt as ckpt_mod
from primetui.local.trainer.config import CkptConfig, TrainConfig, parse_config
from primetui.local.trainer.errors import RunFailure
from primetui.local.trainer.data import (
    DatasetError,
    FakeStream,
    Row,
    SampleStream,
    load_sources,
    pack_row,
    tokenize_rows,
    volume_path,
)
from primetui.local.trainer.logs import ConsoleLog, format_time
from primetui.local.trainer.model import ModelShape, contexts, forward_backward, init_params, loss_sum
from primetui.local.trainer.optim import Optimizer, clip_grad_norm
from primetui.local.trainer.pods import Pods, solo_slow_seconds, topology
from primetui.local.trainer.perf import PerfCounter, cpu_peak_flops, peak_rss_gib, total_memory_gib
from primetui.local.trainer.runfiles import Component, RunFiles
from primetui.local.trainer.scheduler import Scheduler

CHUNK = 4096  # positions per forward/backward call: bounds memory for long packed rows


class Interrupted(Exception):
    """SIGTERM arrived: stop now."""


@dataclass
class _StepStats:
    """What one step measured, for its log line and its metrics rows."""

    src_samples: list[int]
    src_tokens: list[int]
    ce_sum: float = 0.0
    nan_count: int = 0
    loss: float = math.nan
    grad_norm: float = math.nan
    lr: float = 0.0
    t_fb: float = 0.0
    step_time: float = 0.0
    tok_s: float | None = None
    mfu: float | None = None
    peak: float = 0.0
    save_time: float | None = None
    bcast_time: float | None = None


@dataclass
class _SftRun:
    """One SFT run's training state, shared by the step loop, its checkpoints and its validation."""

    cfg: TrainConfig
    files: RunFiles
    log: ConsoleLog
    shape: ModelShape
    model_name: str
    params: dict[str, np.ndarray]
    opt: Optimizer
    sched: Scheduler
    stream: SampleStream | FakeStream
    source_labels: list[str]
    val_rows: list[Any]
    ckpt_root: Path
    volume_dir: Path | None
    row_len: int
    grad_accum: int
    steps_label: int | str
    total_tokens: int = 0
    total_samples: int = 0

    def save(self, step_n: int) -> float:
        """Write the checkpoint of ``step_n`` (and prune old ones); the seconds it took."""
        t0 = time.perf_counter()
        self.log.info(f"Saving checkpoint at step {step_n}")
        cfg = self.cfg
        state = ckpt_mod.TrainState(
            params={k: v.astype(np.float32) for k, v in self.params.items()},
            optim_arrays={k: v.astype(np.float32) for k, v in self.opt.state_arrays().items()},
            optim_t=self.opt.t,
            scheduler={"type": cfg.scheduler.type, "last_step": step_n, "lr": self.sched.lr_at(step_n)},
            progress={
                "step": step_n,
                "total_tokens": self.total_tokens,
                "total_samples": self.total_samples,
                "epoch": self.stream.epoch,
            },
            dataloader=self.stream.state(),
        )
        try:
            path, size = ckpt_mod.save(self.ckpt_root, step_n, state)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise RunFailure(
                    f"No space left on the volume while saving the checkpoint of step {step_n}; expand the "
                    "volume (prime volumes expand) or lower ckpt.keep_last, then resume from the last checkpoint."
                ) from exc
            raise
        self.files.log_checkpoint(step_n, path, size)
        if cfg.ckpt is not None:
            for gone in ckpt_mod.prune(self.ckpt_root, cfg.ckpt.keep_last, cfg.ckpt.keep_interval):
                self.files.log_checkpoint_deleted(gone)
        return time.perf_counter() - t0

    def validate(self, step_n: int) -> None:
        """The validation loss over the val rows, logged and written as val/ metrics."""
        total, count = 0.0, 0
        for row in self.val_rows:
            pos = np.flatnonzero(row.mask)
            for c in range(0, len(pos), CHUNK):
                p = pos[c : c + CHUNK]
                ctx = contexts(row.ids, row.doc_start, p, self.shape.context)
                total += loss_sum(self.params, ctx, row.ids[p].astype(np.int64))
                count += len(p)
        val_loss = total / count if count else float("nan")
        self.log.success(f"Validation | Step {step_n} | Loss {val_loss:.4f}")
        self.files.log_metrics(step_n, {"val/loss": val_loss, "val/perplexity": math.exp(min(val_loss, 20.0))})


class HasCkpt(Protocol):
    """A run config with a ``[ckpt]`` table: the SFT trainer's and the RL trainer's both are."""

    ckpt: CkptConfig | None


class Trainer:
    def __init__(self, run_dir: Path, *, threads: int = 1) -> None:
        self.files = RunFiles(run_dir)
        self.log = ConsoleLog(self.files.logs_dir / "trainer.log")
        self.threads = threads
        self.stop_requested = False
        self.pause_requested = False
        self.step = 0
        self.evals: Any = None
        self.trainer_comp: Component | None = None
        self.pods: Pods | None = None
        self.solo_slow = 0.0  # seconds a single-node run sleeps per micro-batch (the slow-pod knob on pod 0)

    # -- signals ---------------------------------------------------------------------------------
    def install_signals(self) -> None:
        signal.signal(signal.SIGTERM, self._on_term)
        signal.signal(signal.SIGINT, self._on_term)
        signal.signal(signal.SIGUSR1, self._on_pause)

    def _on_term(self, signum: int, frame: Any) -> None:
        self.stop_requested = True

    def _on_pause(self, signum: int, frame: Any) -> None:
        self.pause_requested = True

    # -- entry -----------------------------------------------------------------------------------
    def run(self) -> int:
        self.files.set_status("starting", 0)
        try:
            spec = self.files.read_input()
        except (OSError, ValueError) as exc:
            return self._fail(
                f"Cannot read {self.files.run_dir / 'config.json'} ({exc}); the platform must write it before "
                f"starting the trainer."
            )
        self.files.run_id = str(spec.get("run_id", ""))
        self.trainer_comp = self.files.add_component(
            Component("trainer", f"{self.files.run_id}-trainer-0", "running", os.getpid())
        )
        try:
            cfg = self._config(spec.get("config") or {})
            self.files.max_steps = cfg.max_steps
            return self._train(spec, cfg)
        except Interrupted:
            return self._finish_stopped()
        except (RunFailure, DatasetError, ckpt_mod.CheckpointError) as exc:
            return self._fail(str(exc))
        except Exception as exc:  # noqa: BLE001 - a crash must still leave a reason behind
            for line in traceback.format_exc().rstrip().splitlines():
                self.log.error(line)
            return self._fail(f"Trainer crashed: {type(exc).__name__}: {exc}")

    def _config(self, raw: dict[str, Any]) -> Any:
        """The run's config as this trainer reads it (the RL trainer overrides this and ``_train``)."""
        return parse_config(raw)

    # -- setup -----------------------------------------------------------------------------------
    def _train(self, spec: dict[str, Any], cfg: TrainConfig) -> int:
        log = self.log
        run = self._setup_sft(spec, cfg)
        self._check_signals()
        resumed = self._resume_dir(spec, cfg, run.ckpt_root, run.volume_dir)
        progress = self._resume_sft(run, resumed)
        start = int(progress["step"]) + 1
        log.info(
            f"Starting from step {start} (total_tokens={progress['total_tokens']}, "
            f"total_samples={progress['total_samples']}, "
            f"dataset_state={run.stream.state()})"
        )
        last_broadcast = self._start_evals(run, resumed is not None, start)

        self.files.set_status("running", start - 1)
        log.info(f"Starting training loop (max_steps={run.steps_label})")
        perf = PerfCounter(cpu_peak_flops(self.threads))
        mem_total = total_memory_gib()
        grads = {k: np.zeros_like(v) for k, v in run.params.items()}
        run.total_tokens = int(progress["total_tokens"])
        run.total_samples = int(progress["total_samples"])
        last_saved = -1
        step = start - 1
        if run.val_rows and cfg.val is not None and cfg.val.eval_on_start and resumed is None:
            run.validate(0)

        while cfg.max_steps is None or step < cfg.max_steps:
            step += 1
            self.step = step
            stats = self._sft_step(run, step, grads, perf, mem_total)
            is_last = cfg.max_steps is not None and step >= cfg.max_steps
            if cfg.ckpt is not None and (is_last or (cfg.ckpt.interval and step % cfg.ckpt.interval == 0)):
                stats.save_time = run.save(step)
                last_saved = step
            stats.bcast_time = self._broadcast_if_due(run, step, is_last)
            if stats.bcast_time is not None:
                last_broadcast = step
            if run.val_rows and cfg.val is not None and step % cfg.val.interval == 0:
                run.validate(step)
            self._log_step_metrics(run, step, stats)
            self.files.set_status("running", step)

            if self.pause_requested and not is_last:
                if last_saved != step:
                    run.save(step)
                return self._finish_paused(step)
            self._check_signals()
        return self._finish_sft(run, step, last_broadcast)

    def _setup_sft(self, spec: dict[str, Any], cfg: TrainConfig) -> _SftRun:
        """Build the stand-in model, its optimizer, scheduler and data, logging each as prime-rl's trainer does."""
        log = self.log
        model_spec = spec.get("model") or {}
        model_name = str(model_spec.get("name") or cfg.model_name)
        shape = ModelShape.from_standin(model_spec.get("standin"))
        volume_dir = Path(spec["volume_dir"]) if spec.get("volume_dir") else None
        output_dir = Path(spec.get("output_dir") or self.files.run_dir / "output")
        data_cfg = cfg.data
        row_len = data_cfg.seq_len * data_cfg.micro_batch_size
        if data_cfg.batch_size % data_cfg.micro_batch_size:
            raise RunFailure(
                "Batch size must be divisible by micro batch size; fix data.batch_size or data.micro_batch_size."
            )
        grad_accum = data_cfg.batch_size // data_cfg.micro_batch_size

        log.warning(
            f"Local platform: training a stand-in model instead of {model_name}; real weights cannot run "
            f"on this machine. Stand-in: {shape.describe()}."
        )
        self._start_world(spec, grad_accum)
        log.info(f"Initializing monitors (file={self.files.run_dir / 'metrics.jsonl'})")
        ckpt_root = self._ckpt_root(cfg, output_dir, volume_dir)
        if cfg.ckpt is not None:
            log.info(
                f"Initializing checkpoint manager (dir={ckpt_root}, interval={cfg.ckpt.interval}, "
                f"keep_last={cfg.ckpt.keep_last})"
            )
        log.info(f"Initializing model ({model_name} -> stand-in, {shape.num_params:,} parameters, dtype=float32)")
        params = init_params(shape, seed=int((model_spec.get("standin") or {}).get("seed", 0)))
        log.info("Initializing tokenizer (byte-level, vocab 260)")
        log.info(f"Initialized ByteChatRenderer for {model_name}")
        opt = Optimizer(cfg.optim, params)
        log.info(
            f"Initializing optimizer (type={cfg.optim.type}, lr={cfg.optim.lr}, "
            f"weight_decay={cfg.optim.weight_decay}, max_norm={cfg.optim.max_norm})"
        )
        if opt.fallback_note:
            log.warning(opt.fallback_note)
        sched = Scheduler(cfg.scheduler, cfg.optim.lr, cfg.max_steps)
        steps_label = cfg.max_steps if cfg.max_steps is not None else "infinite"
        log.info(f"Setting up {cfg.scheduler.type} scheduler with {steps_label} steps ({sched.describe()})")
        stream, source_labels = self._data(cfg, volume_dir, row_len)
        val_rows = self._val_rows(cfg, volume_dir)
        return _SftRun(
            cfg=cfg,
            files=self.files,
            log=log,
            shape=shape,
            model_name=model_name,
            params=params,
            opt=opt,
            sched=sched,
            stream=stream,
            source_labels=source_labels,
            val_rows=val_rows,
            ckpt_root=ckpt_root,
            volume_dir=volume_dir,
            row_len=row_len,
            grad_accum=grad_accum,
            steps_label=steps_label,
        )

    def _start_world(self, spec: dict[str, Any], grad_accum: int) -> None:
        """Start the simulated pods of a multi-node run, or say the run has a world of one."""
        topo = topology(spec.get("config") or {})
        if topo is not None:
            assert self.trainer_comp is not None  # run() added it before reading the config
            self.pods = Pods.start(self.files, topo, self.log, self.trainer_comp)
            self.log.info(self.pods.world_line(0))
            self.pods.announce(grad_accum)
        else:
            self.solo_slow = solo_slow_seconds(spec.get("config") or {})
            self.log.info(
                "Starting SFT trainer in World(world_size=1, rank=0, local_rank=0, local_world_size=1, num_nodes=1) "
                "on CPU"
            )

    def _resume_sft(self, run: _SftRun, resumed: tuple[Path, str] | None) -> dict[str, int]:
        """Load the checkpoint to resume from (what ckpt.skip_* leaves out stays fresh); the progress to start at."""
        progress = {"step": 0, "total_tokens": 0, "total_samples": 0}
        if resumed is None:
            return progress
        step_dir, shown = resumed
        state = ckpt_mod.load(step_dir, shown)
        params = run.params
        if set(state.params) != set(params) or any(state.params[k].shape != params[k].shape for k in params):
            raise RunFailure(
                f"Checkpoint {shown} was written by a stand-in of a different shape; resume it with the same model."
            )
        skip = run.cfg.ckpt or None
        for k in params:
            params[k][...] = state.params[k]
        if not (skip and skip.skip_optimizer):
            run.opt.load_state_arrays(state.optim_arrays, state.optim_t)
        if not (skip and skip.skip_progress):
            progress = {k: state.progress.get(k, 0) for k in progress}
        if not (skip and skip.skip_dataloader) and state.dataloader:
            try:
                run.stream.load_state(state.dataloader)
            except (KeyError, TypeError, ValueError):
                self.log.warning(
                    "The checkpoint's dataloader state does not fit this run's [data]; the data starts from the "
                    "beginning."
                )
        self.log.info(f"Resuming training from checkpoint step {state.progress.get('step', 0)} ({shown})")
        return progress

    def _start_evals(self, run: _SftRun, resuming: bool, start: int) -> int:
        """Start the online eval components, with the startup eval when it is due.

        Returns the step last broadcast (-1: none)."""
        cfg = run.cfg
        if cfg.eval is None or not cfg.eval.sources:
            return -1
        from primetui.local.evals.launcher import EvalComponents

        self.evals = EvalComponents(self.files, cfg, run.shape, run.model_name, self.log, self._check_signals)
        self.evals.start()
        # The startup eval (before any step); on resume only with eval.retrigger_on_resume.
        if (not resuming and not cfg.eval.skip_first_step) or (resuming and cfg.eval.retrigger_on_resume):
            self.evals.broadcast(start - 1, run.params)
            return start - 1
        return -1

    def _sft_step(
        self, run: _SftRun, step: int, grads: dict[str, np.ndarray], perf: PerfCounter, mem_total: float
    ) -> _StepStats:
        """One optimizer step over ``grad_accum`` micro batches, logged as prime-rl's trainer logs it."""
        cfg = run.cfg
        t_start = time.perf_counter()
        for g in grads.values():
            g.fill(0.0)
        stats = _StepStats(src_samples=[0] * len(run.source_labels), src_tokens=[0] * len(run.source_labels))
        n_tok = self._forward_backward(run, step, grads, stats)
        stats.t_fb = time.perf_counter() - t_start
        if n_tok:
            for g in grads.values():
                g /= n_tok
        stats.loss = stats.ce_sum / n_tok if n_tok else float("nan")
        stats.grad_norm = clip_grad_norm(grads, cfg.optim.max_norm)
        stats.lr = run.sched.lr_at(step)
        if math.isfinite(stats.loss) and math.isfinite(stats.grad_norm):
            run.opt.step(run.params, grads, stats.lr)
        else:
            self.log.warning(f"Local loss is nan, excluding this micro step from backward (step {step})")
        stats.step_time = time.perf_counter() - t_start
        tokens_per_step = cfg.data.batch_size * cfg.data.seq_len
        run.total_tokens += tokens_per_step
        perf.count(time.perf_counter(), tokens_per_step, float(run.shape.flops_per_token) * n_tok)
        stats.tok_s = perf.tokens_per_second()
        stats.mfu = perf.mfu()
        stats.peak = peak_rss_gib()
        msg = f"Step {step} | {format_time(stats.step_time):>7} | Loss {stats.loss:.4f}"
        if cfg.optim.max_norm is not None:
            msg += f" | Grad. Norm {stats.grad_norm:.4f}"
        pct = stats.peak / mem_total * 100 if mem_total else 0.0
        msg += (
            f" | LR {stats.lr:.2e} | Throughput {stats.tok_s or 0:.0f} tokens/s | MFU {stats.mfu or 0:.1f}%"
            f" | Peak Mem. {stats.peak:.1f}/{mem_total:.1f} GiB ({pct:.1f}%)"
        )
        self.log.success(msg)
        if self.pods is not None:
            self.pods.end_step(step)
        return stats

    def _forward_backward(self, run: _SftRun, step: int, grads: dict[str, np.ndarray], stats: _StepStats) -> int:
        """Accumulate the gradients of ``grad_accum`` packed rows into ``grads``; the tokens trained on."""
        n_tok = 0
        pods = self.pods
        if pods is not None:
            pods.begin_step()
        for micro in range(run.grad_accum):
            self._check_signals()
            node = pods.node_of(micro) if pods is not None else 0
            t_micro = time.perf_counter()
            if pods is not None:
                pods.before_micro_batch(step, node)
            elif self.solo_slow:
                self._sleep(self.solo_slow)
            ce_before, tok_before = stats.ce_sum, n_tok
            row = pack_row(run.stream, run.row_len)
            run.total_samples += row.num_samples
            for src, ntok in row.parts:
                stats.src_samples[src] += 1
                stats.src_tokens[src] += ntok
            pos = np.flatnonzero(row.mask)
            for c in range(0, len(pos), CHUNK):
                p = pos[c : c + CHUNK]
                ctx = contexts(row.ids, row.doc_start, p, run.shape.context)
                ls, nn = forward_backward(run.params, ctx, row.ids[p].astype(np.int64), grads)
                stats.ce_sum += ls
                stats.nan_count += nn
            n_tok += len(pos)
            if pods is not None:
                pods.record(node, time.perf_counter() - t_micro, stats.ce_sum - ce_before, n_tok - tok_before)
        return n_tok

    def _broadcast_if_due(self, run: _SftRun, step: int, is_last: bool) -> float | None:
        """Hand the weights to the eval components when an eval is due; the seconds it took, None when not due."""
        cfg_eval = run.cfg.eval
        if self.evals is None or cfg_eval is None:  # evals start only for a config with [eval]
            return None
        self.evals.check()
        due = is_last or step % cfg_eval.interval == 0 or any(step % s.interval == 0 for s in cfg_eval.sources)
        if not due:
            return None
        t0 = time.perf_counter()
        self.evals.broadcast(step, run.params, final=is_last)
        return time.perf_counter() - t0

    def _log_step_metrics(self, run: _SftRun, step: int, stats: _StepStats) -> None:
        files, source_labels = self.files, run.source_labels
        progress_row: dict[str, Any] = {
            "progress/epoch": run.stream.epoch,
            "progress/num_samples": run.total_samples,
            "progress/num_tokens": run.total_tokens,
        }
        if len(source_labels) > 1:
            for i, label in enumerate(source_labels):
                progress_row[f"progress/{label}/ratio_samples"] = stats.src_samples[i] / max(1, sum(stats.src_samples))
                progress_row[f"progress/{label}/ratio_tokens"] = stats.src_tokens[i] / max(1, sum(stats.src_tokens))
        files.log_metrics(step, progress_row)
        files.log_metrics(
            step,
            {
                "perf/throughput": stats.tok_s,
                "perf/throughput_per_gpu": stats.tok_s,
                "perf/peak_memory": stats.peak,
                "perf/mfu": stats.mfu,
            },
        )
        files.log_metrics(
            step,
            {"optim/lr": stats.lr, "optim/grad_norm": stats.grad_norm if run.cfg.optim.max_norm is not None else None},
        )
        loss = stats.loss
        perplexity = math.exp(min(loss, 20.0)) if math.isfinite(loss) else None
        files.log_metrics(step, {"loss/mean": loss, "loss/perplexity": perplexity, "loss/nan_count": stats.nan_count})
        files.log_metrics(
            step,
            {
                "time/step": stats.step_time,
                "time/forward_backward": stats.t_fb,
                "time/save_ckpt": stats.save_time,
                "time/broadcast_weights": stats.bcast_time,
            },
        )

    def _finish_sft(self, run: _SftRun, step: int, last_broadcast: int) -> int:
        log = self.log
        log.info(f"Peak memory: {peak_rss_gib():.1f} GiB")
        if self.evals is not None:
            if last_broadcast != step:
                log.info("Broadcasting final weights")
                self.evals.broadcast(step, run.params, final=True)
            self.evals.finish(step)
        log.success("SFT trainer finished!")
        self.files.set_status("completed", step)
        self._set_trainer_status("completed")
        return 0

    # -- helpers ---------------------------------------------------------------------------------
    def _check_signals(self) -> None:
        if self.stop_requested:
            raise Interrupted()

    def _sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` (the slow-pod knob), stopping at once when SIGTERM arrives meanwhile."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self._check_signals()
            time.sleep(min(0.2, left))
        self._check_signals()

    def _ckpt_root(self, cfg: HasCkpt, output_dir: Path, volume_dir: Path | None) -> Path:
        if cfg.ckpt is not None and cfg.ckpt.output_dir:
            name = cfg.ckpt.output_dir
            if volume_dir is not None and (name.startswith("/volume") or not name.startswith("/")):
                return volume_path(name, volume_dir)[0] / "checkpoints"
            return Path(name) / "checkpoints"
        return output_dir / "checkpoints"

    def _data(
        self, cfg: TrainConfig, volume_dir: Path | None, row_len: int
    ) -> tuple[SampleStream | FakeStream, list[str]]:
        d = cfg.data
        if d.type == "fake":
            self.log.info(
                f"Initializing data (type=fake, length={d.length}, input_ids={d.input_ids}, seq_len={d.seq_len}, "
                f"batch_size={d.batch_size}, micro_batch_size={d.micro_batch_size})"
            )
            return FakeStream(d), ["fake"]
        self.log.info(
            f"Initializing data (name={d.name}, splits={d.splits or ['train']}, seq_len={d.seq_len}, "
            f"batch_size={d.batch_size}, micro_batch_size={d.micro_batch_size}, shuffle={d.shuffle}, seed={d.seed})"
        )
        sources = []
        labels = []

        def files_note(label: str, paths: list[str]) -> None:
            shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
            self.log.info(f"Reading split '{label}' from {shown}")

        for label, rows in load_sources(d, volume_dir, files_note):
            labels.append(label)
            samples = tokenize_rows(rows, d, row_len, self.log.warning)
            if not samples:
                raise RunFailure(
                    f"No example in split '{label}' of {d.name} has trainable tokens within seq_len {d.seq_len}; "
                    f"raise data.seq_len or check the loss mask."
                )
            self.log.info(
                f"Loaded {len(samples)} examples from split '{label}' ({sum(len(s.ids) for s in samples):,} tokens)"
            )
            sources.append(samples)
        stream = SampleStream(sources, d)
        if cfg.log_data:
            from primetui.local.trainer.tokenizer import decode

            first = stream.peek()
            self.log.info(f"First data sample: {decode(first.ids)[:500]!r}")
        return stream, labels

    def _val_rows(self, cfg: TrainConfig, volume_dir: Path | None) -> list[Any]:
        """``[val]``: one pass over the validation data, packed like training rows (at most 16 rows)."""
        if cfg.val is None:
            return []
        d = cfg.val.data
        row_len = d.seq_len * d.micro_batch_size
        samples = []
        for _, rows in load_sources(d, volume_dir):
            samples += tokenize_rows(rows, d, row_len, self.log.warning)
        if not samples:
            raise RunFailure(f"The validation data {d.name} has no example with trainable tokens; check [val.data].")
        d.shuffle = False
        stream = SampleStream([samples], d)
        rows_out: list[Row] = []
        while stream.epoch == 0 and stream.pos < len(samples) and len(rows_out) < 16:
            rows_out.append(pack_row(stream, row_len))
        self.log.info(
            f"Initialized validation data ({d.name}: {len(samples)} examples, {len(rows_out)} rows, every "
            f"{cfg.val.interval} steps)"
        )
        return rows_out

    def _resume_dir(
        self, spec: dict[str, Any], cfg: TrainConfig, ckpt_root: Path, volume_dir: Path | None
    ) -> tuple[Path, str] | None:
        if spec.get("resume_from"):
            p = Path(spec["resume_from"])
            return p, str(p)
        r = cfg.resume
        if r is None:
            return None
        if r.dir:
            if volume_dir is not None and (r.dir.startswith("/volume") or not r.dir.startswith("/")):
                return volume_path(r.dir, volume_dir)
            return Path(r.dir), r.dir
        if r.step:
            if not (ckpt_root / f"step_{r.step}").is_dir():
                raise RunFailure(
                    f"resume.step = {r.step} looks in this run's own checkpoints, which has no step_{r.step}; to "
                    f"continue "
                    f'another run, set [resume] dir = "/volume/runs/<runId>/checkpoints/step_{r.step}" instead.'
                )
            return ckpt_root / f"step_{r.step}", f"checkpoints/step_{r.step}"
        steps = ckpt_mod.list_steps(ckpt_root)
        if not steps:
            self.log.warning(f"No checkpoints found in {ckpt_root}. Starting from scratch.")
            return None
        return ckpt_root / f"step_{steps[-1]}", f"checkpoints/step_{steps[-1]}"

    def _set_trainer_status(self, status: str) -> None:
        if self.pods is not None:
            self.pods.set_status(status)
        elif self.trainer_comp is not None:
            self.trainer_comp.status = status
            self.files.write_components()

    def _finish_paused(self, step: int) -> int:
        self.log.info(f"Paused at step {step}: checkpoint saved; resume continues at step {step + 1}")
        if self.evals is not None:
            self.evals.stop("stopped")
        self.files.set_status("paused", step)
        self._set_trainer_status("stopped")
        return 0

    def _finish_stopped(self) -> int:
        self.log.warning(f"Stop requested: stopping at step {self.step}")
        if self.evals is not None:
            self.evals.stop("stopped")
        self.files.set_status("stopped", self.step)
        self._set_trainer_status("stopped")
        return 0

    def _fail(self, reason: str) -> int:
        self.log.error(reason)
        if self.evals is not None:
            try:
                self.evals.stop("stopped")
            except Exception:  # noqa: BLE001 - the original reason matters more
                pass
        self.files.set_status("failed", self.step, reason)
        self._set_trainer_status("failed")
        return 1
