"""Online evals on the local platform: inference server, env servers and the orchestrator.

All three are child processes of the trainer (``primetui.local.trainer``), which starts them when
the config has an ``[eval]`` block, supervises them by pid and fails the run if one dies:

- ``python -m primetui.local.evals.inference --run-dir D``: HTTP on 127.0.0.1; serves generations
  from the latest broadcast weights (``D/broadcasts/step_N``), logs each weight load.
- ``python -m primetui.local.evals.env_server --run-dir D --index I``: HTTP on 127.0.0.1; serves
  the eval examples of ``[[eval.source]]`` number I and scores answers in [0, 1].
- ``python -m primetui.local.evals.orchestrator --run-dir D``: watches broadcasts, has inference
  load each one, runs the due sources, and appends ``eval/<source>/...`` rows to metrics.jsonl.
"""
