"""A read-only, highlighted TextArea whose documents are collected once it closes.

Textual hands tree-sitter a syntax-aware document's bound ``_read_callable`` as the parse source;
the Tree keeps it, and a tree-sitter Tree takes no part in garbage collection, so document ->
tree -> bound method -> document is a cycle never collected. The run screen's Config tab built
three such documents per screen opened (one per text loaded) and each stayed after the screen
closed. A read-only view is never edited, so its one parse is redone once with a reader that holds
the document weakly (the editor does the same for its edits: ``primetui.ui.editor.bigdoc``).
"""

from __future__ import annotations

import weakref
from typing import Any

from textual.widgets import TextArea


def _weak_reader(document: Any) -> Any:
    ref = weakref.ref(document)
    read = type(document)._read_callable

    def read_source(byte_offset: int, point: tuple[int, int]) -> bytes:
        doc = ref()
        return b"" if doc is None else read(doc, byte_offset, point)

    return read_source


class CodeView(TextArea):
    """``CodeView.code_editor(text, language=..., read_only=True)``: TextArea's, released on close."""

    @property
    def document(self) -> Any:
        return self._document

    @document.setter
    def document(self, value: Any) -> None:
        tree = getattr(value, "_syntax_tree", None)
        if tree is not None and getattr(value, "_parser", None) is not None:
            value._syntax_tree = value._parser.parse(_weak_reader(value), tree)
        self._document = value
