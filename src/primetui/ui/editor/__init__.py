"""The sft.toml editor screen (``EditorScreen``) and its parts."""

from primetui.ui.editor.screen import EditorScreen

__all__ = ["EditorScreen"]
