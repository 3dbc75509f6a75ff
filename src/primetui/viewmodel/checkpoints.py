"""Where a run's checkpoints are on its volume, and the command that downloads one."""

from __future__ import annotations

import shlex


def checkpoint_command(volume: str | None, run_id: str, step: int) -> str:
    """The exact command that downloads one checkpoint (seed step 5).

    The volume name and run id come from the platform, so each word is quoted for the shell: a
    name such as ``x; rm -rf ~`` is pasted as one argument, never run.
    """
    vol = shlex.quote(volume) if volume else "<volume>"
    return f"prime volumes get {vol} {shlex.quote(checkpoint_path(run_id, step))} ./step_{int(step)}"


def checkpoint_path(run_id: str, step: int | None = None) -> str:
    """A run's folder on its volume, or one checkpoint's (unquoted: quote it where it becomes a command)."""
    return f"runs/{run_id}/" if step is None else f"runs/{run_id}/checkpoints/step_{int(step)}/"
