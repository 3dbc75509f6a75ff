"""The local platform's training process: a small numpy stand-in model trained for real.

Process contract with the supervisor (``primetui.local`` runs/supervisor):

Entry: ``python -m primetui.local.trainer --run-dir RUN_DIR``.

An RL config (the CLI's rule, ``primetui.sft.kind``) runs the RL trainer instead; what it adds to
these files is described in ``primetui.local.trainer.rl``.

Input, ``RUN_DIR/config.json``::

    {"run_id": str,
     "config": <the sft.toml as a dict>,
     "volume_dir": abs path or null,            # what /volume means for this run
     "output_dir": abs path,                     # <volume_dir>/runs/<runId>, or a dir under RUN_DIR
     "model": {"name": str, "standin": {...}},   # standin keys below, all optional
     "resume_from": abs checkpoint step dir or null}

``model.standin`` keys the stand-in honours (others are ignored): ``vocab`` (ignored: the
byte-level tokenizer fixes it at 260), ``context`` (tokens of left context, default 16, clamped
to 1..64), ``embed`` (embedding width, default 32), ``hidden`` (MLP width, default 256),
``seed`` (init seed, default 0).

Output, all under RUN_DIR (JSON files are written atomically: temp file + rename; logs and
JSONL files are appended and flushed line by line):

- ``logs/trainer.log`` and, with ``[eval]``: ``logs/orchestrator.log``, ``logs/inference.log``,
  ``logs/env-server-<name>.log``, in prime-rl's console format (``HH:MM:SS    INFO message``).
- ``metrics.jsonl``: one row per monitor call ``{"step", "time", <prime-rl keys>}``. Eval rows
  (``eval/<source>/reward/mean`` ...) are appended by the orchestrator process at the trainer
  step they evaluate, so they can arrive after training rows of later steps.
- ``checkpoints.jsonl``: ``{"step","path","size_bytes","time"}`` per saved checkpoint and
  ``{"step","deleted":true,"time"}`` when ``keep_last`` prunes one.
- ``components.json``: ``[{"component","env_name"?,"env_index"?,"pod_name","status","pid"}]``;
  status is one of starting|running|completed|failed|stopped.
- ``status.json``: ``{"state": starting|running|completed|failed|paused|stopped, "step",
  "max_steps", "error", "time"}`` (``error`` is the one-sentence reason when failed; ``time`` is
  when it was written, unix seconds).
- ``broadcasts/step_N/`` (online evals only): the weights the inference server loads, with a
  ``STABLE`` marker written last; ``broadcasts/FINAL`` names the last step, and
  ``evals/`` holds the eval servers' readiness files (cleared when a restarted run starts).

Signals: SIGTERM stops promptly (state ``stopped``, exit 0). SIGUSR1 pauses: a checkpoint is
written at the next step boundary, then the process exits 0 with state ``paused``. Any failure
exits non-zero with the reason in ``status.json`` and an ERROR line in ``trainer.log``.

This module imports nothing heavy: ``__main__`` pins numpy's thread count before numpy loads.
"""
