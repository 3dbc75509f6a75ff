"""The base of the editor screen's topic mixins (files, editing actions, fixes, launching).

For the type checker it is a Screen that provides what every mixin reads from ``EditorScreen``; each
mixin declares only what it needs beyond that. At run time it is ``object``: no attribute is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from textual.screen import Screen

    from primetui.sft.diagnostics import Diagnostic
    from primetui.ui.editor.area import DiagnosticTextArea

    class EditorMixinBase(Screen[Any]):
        path: Path | None
        load_error: str | None
        diagnostics: list[Diagnostic]

        @property
        def area(self) -> DiagnosticTextArea: ...
        @property
        def text(self) -> str: ...
        @property
        def modified(self) -> bool: ...
        def _refresh_chrome(self) -> None: ...
        def replace_all(self, text: str) -> None: ...

else:
    EditorMixinBase = object
