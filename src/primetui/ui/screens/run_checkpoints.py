"""Acting on a run's checkpoints: resume from one as a new run (``n``), and the best-by-eval mark.

Mixed into ``RunScreen``. ``n`` writes the run's config with ``[resume].dir`` at the highlighted
checkpoint's step directory (``/volume/runs/<id>/checkpoints/step_<N>``, the walkthrough's form) to
a new file and opens it in the editor, so it can be changed before F5 dispatches it. With evals,
the checkpoint nearest the step of the best eval score is marked ``★ best eval``, and the cursor
starts on it.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import DataTable

from primetui.monitor_core.compare import summarize

BEST_MARK = "★ best eval"


def best_eval_checkpoint(steps: list[int], rows: list[dict[str, Any]]) -> tuple[int, str, float, int] | None:
    """(checkpoint step, eval metric, best score, its step) for the checkpoint nearest the best eval score."""
    if not steps:
        return None
    summary = summarize(rows)
    if summary.best_eval_step is None or summary.eval_key is None or summary.best_eval is None:
        return None
    best = summary.best_eval_step
    nearest = min(steps, key=lambda s: (abs(s - best), s))
    return nearest, summary.eval_key, summary.best_eval, best


def resume_text(run: Any, step: int) -> str | None:
    """The run's config as an sft.toml that resumes from checkpoint ``step``; None without a config."""
    import tomlkit

    from primetui.sft import run_name

    config = run.run_config
    if not isinstance(config, dict) or not config:
        return None
    run_id = run.id
    config = {k: v for k, v in config.items() if k != run_name.KEY}
    resume = dict(config.get("resume") or {}) if isinstance(config.get("resume"), dict) else {}
    resume.pop("step", None)  # prime-rl: step and dir are mutually exclusive (the step is in the dir name)
    resume["dir"] = f"/volume/runs/{run_id}/checkpoints/step_{step}"
    config["resume"] = resume
    source = run.name or run_id
    header = (
        f"# Resumes run {source} from its checkpoint at step {step}: a new run. Raise max_steps past {step}\n"
        "# to train further; F5 dispatches it.\n"
    )
    return header + tomlkit.dumps(config)


class RunCheckpointsMixin:
    CHECKPOINT_BINDINGS = [
        Binding("n", "resume_from_checkpoint", "New run from checkpoint", show=False, id="run.resume_from_checkpoint"),
        Binding("E", "export_checkpoint", "Export checkpoint to S3", show=False, id="run.export_checkpoint"),
    ]

    def highlighted_checkpoint_step(self) -> int | None:
        table = self.query_one("#run-checkpoints", DataTable)  # type: ignore[attr-defined]
        if not table.row_count or not self.checkpoints:  # type: ignore[attr-defined]
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - the cursor is outside the table after a clear
            return None
        return int(key) if key is not None and str(key).isdigit() else None

    _placed_checkpoint: int | None = None
    """The checkpoint the cursor was last put on by the screen (not moved there by the user)."""

    def place_checkpoint_cursor(self, table: DataTable, before: int | None, best: int | None) -> None:
        """After a refill: the row the user highlighted stays highlighted; until the user moves, the cursor
        is on the ``★ best eval`` checkpoint, so ``n``, ``g`` and ``E`` act on it (not on the first row)."""
        moved = before is not None and before != self._placed_checkpoint
        target = before if moved else (best if best is not None else before)
        if target is not None and any(key.value == str(target) for key in table.rows):
            table.move_cursor(row=table.get_row_index(str(target)), animate=False)
        if not moved:
            self._placed_checkpoint = self.highlighted_checkpoint_step()

    def best_eval_mark(self, steps: list[int]) -> int | None:
        """The checkpoint step to mark ``★ best eval`` (None without evals)."""
        progress = self.prime.state.progress.get(self.run_id)  # type: ignore[attr-defined]
        found = best_eval_checkpoint(steps, list(progress.rows.values()) if progress else [])
        return found[0] if found else None

    def action_export_checkpoint(self) -> None:
        """E: export the highlighted checkpoint's folder (``runs/<id>/checkpoints/step_<N>``) to S3."""
        from primetui.ui.s3_transfers import open_transfer_dialog

        step = self.highlighted_checkpoint_step()
        volume = self.run.volume_name  # type: ignore[attr-defined]
        if step is None or not volume:
            self.notify(  # type: ignore[attr-defined]
                "Highlight a checkpoint of a run on a volume first (the Overview's Checkpoints table).",
                severity="warning",
            )
            return
        client, run_id = self.client, self.run_id  # type: ignore[attr-defined]
        open_transfer_dialog(self, client, str(volume), "export", f"runs/{run_id}/checkpoints/step_{step}")

    def action_resume_from_checkpoint(self) -> None:
        from primetui.ui.screens.runs_table import open_new_config

        step = self.highlighted_checkpoint_step()
        if step is None:
            self.notify("Highlight a checkpoint in the Overview's Checkpoints table first.", severity="warning")  # type: ignore[attr-defined]
            return
        text = resume_text(self.run, step)  # type: ignore[attr-defined]
        if text is None:
            self.notify("This run has no config to resume from (the platform did not return one).", severity="warning")  # type: ignore[attr-defined]
            return
        name = self.run.name or self.run_id  # type: ignore[attr-defined]
        open_new_config(self, f"{name}-from-step_{step}", text)
