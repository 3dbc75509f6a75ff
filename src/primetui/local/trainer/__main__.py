"""``python -m primetui.local.trainer --run-dir RUN_DIR``: one local training run (see __init__)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def pin_blas_threads() -> None:
    """Pin BLAS threads before numpy loads: the machine is shared by the server, other runs and tests.

    Called by the trainer's process before anything imports numpy, never on import: a process that imports
    this module (the fork server, a test) keeps its environment."""
    threads = os.environ.get("PRIMETUI_TRAINER_THREADS", "1")
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, threads)


OUTPUT = "process.out"
"""The file the supervisor sends a trainer's stdout and stderr to, in its run dir."""


def _cap_output(path: Path) -> None:
    """When stdout is the supervisor's ``process.out``, rotate it at the platform's log cap from here on.

    The trainer writes its own output, so the cap holds while it outlives a restarted server.
    """
    try:
        same = os.path.samestat(os.fstat(1), os.stat(path))
    except OSError:
        return
    if same:
        from primetui.config.logcap import LOG_CAP, capture_output

        capture_output(path, LOG_CAP, backups=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.local.trainer")
    parser.add_argument("--run-dir", required=True, help="the run's platform directory (holds config.json)")
    args = parser.parse_args(argv)
    _cap_output(Path(args.run_dir) / OUTPUT)
    from primetui.local.trainer.rl.select import trainer_class

    run_dir = Path(args.run_dir)
    trainer = trainer_class(run_dir)(run_dir, threads=int(os.environ.get("OPENBLAS_NUM_THREADS", "1") or 1))
    trainer.install_signals()
    return trainer.run()


if __name__ == "__main__":
    pin_blas_threads()
    sys.exit(main())
