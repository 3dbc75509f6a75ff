"""What the editor starts: templates, dispatch with its pre-flight, sweeps, and the platform's refusals.

A mixin of ``EditorScreen``.
"""

from __future__ import annotations

import tomllib
from typing import Any, TYPE_CHECKING

from primetui.ui.editor.mixin_base import EditorMixinBase

if TYPE_CHECKING:
    from collections.abc import Callable
    from textual.message import Message
    from pathlib import Path
    from primetui.sft.diagnostics import Diagnostic


class LaunchActions(EditorMixinBase):
    """Needs the screen's ``client``, ``path``, ``text``, ``note`` and ``_refresh_chrome``."""

    if TYPE_CHECKING:  # what the screen provides (declared here for the type checker; no attributes at run time)
        client: Any
        server_diagnostics: list[Diagnostic]
        Dispatched: Callable[[str, str | None], Message]  # EditorScreen.Dispatched (not imported: a circle)

        def _write(self, path: Path, *, make_dirs: bool = False) -> bool: ...
        def _show_diagnostics(self) -> None: ...
        def jump_to(self, d: Diagnostic) -> None: ...

    def action_templates(self) -> None:
        from primetui.sft.templates import get
        from primetui.ui.editor.modals import TemplatePicker

        def _chosen(key: str | None) -> None:
            if key:
                t = get(key)
                self.replace_all(t.text)
                self.note = f"Inserted the {t.title} template (ctrl+z undoes it)."
                self.area.cursor_location = (0, 0)
                self._refresh_chrome()

        self.app.push_screen(TemplatePicker(), _chosen)

    def action_dispatch(self) -> None:
        if self.client is None:
            self.note = (
                "Not connected to a platform: start primetui with an API key (prime login) or --local to dispatch."
            )
            self._refresh_chrome()
            return
        text = self.text
        config = _loads(text)
        if config is None:
            self.note = "The buffer is not valid TOML yet: fix the syntax error (F8), then dispatch."
            self._refresh_chrome()
            return
        saved = None
        if self.path is not None and self.modified and not self.load_error:
            if not self._write(self.path):
                return
            saved = self.path.name  # the dialog says so: F5 is not only a dispatch
        from primetui.ui.editor.dispatch import DispatchOutcome, DispatchScreen

        from primetui.sft.preflight_rl import config_model

        model = config_model(config)

        def _done(outcome: DispatchOutcome | None) -> None:
            if outcome is None:
                return
            if outcome.run_id:
                self.post_message(self.Dispatched(outcome.run_id, outcome.volume))
                self.dismiss(outcome.run_id)
                return
            self.show_server_error(outcome.status, outcome.detail or outcome.message, outcome.issues)

        self.app.push_screen(DispatchScreen(self.client, config, text, str(model), saved=saved), _done)

    def action_sweep(self) -> None:
        """F9: the sweep dialog on this buffer (saved first, as for F5)."""
        if self.client is None:
            self.note = "Not connected to a platform: start primetui with an API key (prime login) or --local to sweep."
            self._refresh_chrome()
            return
        if _loads(self.text) is None:
            self.note = "The buffer is not valid TOML yet: fix the syntax error (F8), then sweep."
            self._refresh_chrome()
            return
        if self.path is not None and self.modified and not self.load_error and not self._write(self.path):
            return
        from primetui.ui.editor.sweep import SweepScreen

        def _done(run_ids: list[str] | None) -> None:
            if run_ids:
                self.note = (
                    f"Dispatched {len(run_ids)} runs of the sweep: in the runs list, / and the prefix "
                    "show them, then C compares them."
                )
                self._refresh_chrome()

        self.app.push_screen(SweepScreen(self.client, self.text, self.path), _done)

    def show_server_error(self, status: int | None, message: str, issues: list[Any]) -> None:
        """Put a refused dispatch on the lines it names, and say it in the message line."""
        from primetui.sft.server_map import map_server_error

        self.server_diagnostics = map_server_error(self.text, status, message, issues)
        self.note = f"Dispatch refused: {message}"
        self._show_diagnostics()
        if self.server_diagnostics:
            self.jump_to(self.server_diagnostics[0])


def _loads(text: str) -> dict | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
