"""``primetui lsp``: the sft.toml checks as a language server on stdio (pygls).

It publishes the same diagnostics as the editor and ``primetui validate --offline`` (the model-cache
rule needs a platform and is skipped), F1's help on hover, completion of sections, keys, values and
variants, and the quick fixes as code actions. Positions use the encoding agreed at initialize
(UTF-16 unless the client prefers another). Imported only when the command runs, so pygls never
slows the dashboard's start.

Checks are debounced and coalesced: a change schedules a check of the document DEBOUNCE seconds
later, a newer change moves it, and the check runs in a thread so hover, completion and the next
changes are answered meanwhile. One check per document runs at a time; a result whose text is no
longer the document's is dropped (stale) and the latest text is checked next. On a 5 MB file a
burst of changes costs one check, not one per change (bench/lsp_burst.py).

Hover and completion never wait for a check: they read only the table around the cursor (see
``primetui.sft.assist``). A big document's check runs in the editor's helper process
(``primetui.viewmodel.validator``), not in a thread of this one: a thread running seconds of pure
Python holds the GIL, and a hover sent meanwhile waited on it (4.4 s on a 4.6 MB file). Changes are
applied by slicing the text (:class:`_Document`), not by pygls's copy of it line by line.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument, Workspace

from primetui.sft.assist import completions, help_at
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Diagnostic
from primetui.sft.positions import LineIndex, LspRange, line_start
from primetui.viewmodel.validator import Validator

_SEVERITY = {
    "error": T.DiagnosticSeverity.Error,
    "warning": T.DiagnosticSeverity.Warning,
    "hint": T.DiagnosticSeverity.Hint,
}
_KIND = {
    "table": T.CompletionItemKind.Module,
    "key": T.CompletionItemKind.Property,
    "value": T.CompletionItemKind.Value,
}


class SftServer(LanguageServer):
    def __init__(self) -> None:
        from importlib.metadata import version

        super().__init__("primetui-sft", version("primetui"))
        self.ctx = CheckContext(hosted=True, cached_models=None)
        self.open: set[str] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._checks: dict[str, asyncio.Task] = {}
        self._again: set[str] = set()  # changed while its check ran: check the latest text after it
        self._checked: dict[str, tuple[str, list[Diagnostic]]] = {}  # the last check's text and diagnostics
        self.validator = Validator()  # big documents are checked in its helper process

    def index(self, text: str) -> LineIndex:
        encoding = self.server_capabilities.position_encoding if self.server_capabilities else None
        return LineIndex(text, str(encoding or "utf-16"))

    def line_index(self, text: str, line: int) -> LineIndex:
        """A LineIndex of the one line ``line`` (for a position sent by the client): the whole text's
        index would split every line of a big document per request."""
        encoding = self.server_capabilities.position_encoding if self.server_capabilities else None
        return LineIndex.of_line(text, line, str(encoding or "utf-16"))

    def check(self, text: str) -> list[Diagnostic]:
        """The diagnostics of ``text``; blocks (call it from a thread): a big text goes to the helper."""
        return list(self.validator.validate(text, self.ctx).diagnostics)

    async def diagnostics_of(self, uri: str) -> tuple[str, list[Diagnostic]]:
        text = self.workspace.get_text_document(uri).source
        checked = self._checked.get(uri)
        if checked is not None and checked[0] == text:
            return checked
        return text, await asyncio.to_thread(self.check, text)

    def schedule(self, uri: str, delay: float = 0.0) -> None:
        """Check ``uri`` ``delay`` seconds from now, replacing a check scheduled before."""
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        self._timers[uri] = asyncio.get_running_loop().call_later(delay, self._start, uri)

    def forget(self, uri: str) -> None:
        if (timer := self._timers.pop(uri, None)) is not None:
            timer.cancel()
        self._again.discard(uri)
        self._checked.pop(uri, None)

    def _start(self, uri: str) -> None:
        self._timers.pop(uri, None)
        if uri not in self.open:
            return
        running = self._checks.get(uri)
        if running is not None and not running.done():
            self._again.add(uri)
            return
        self._checks[uri] = asyncio.ensure_future(self._check(uri))

    async def _check(self, uri: str) -> None:
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        try:
            diags = await asyncio.to_thread(self.check, text)
            if uri in self.open and self.workspace.get_text_document(uri).source == text:  # else stale: dropped
                self._checked[uri] = (text, diags)
                index = self.index(text)
                self.text_document_publish_diagnostics(
                    T.PublishDiagnosticsParams(
                        uri=uri, version=version, diagnostics=[_lsp_diagnostic(d, index) for d in diags]
                    )
                )
        finally:
            if uri in self._again:
                self._again.discard(uri)
                self._start(uri)


class _Document(TextDocument):
    """pygls's document with an incremental change applied by slicing the text once. pygls splits
    the text into lines and writes each through a StringIO: 0.13 s per change of a 4.6 MB file on a
    loaded machine, which held every request up behind a burst of changes. Lines end at "\\n" (LSP's
    line ends in a TOML file; pygls's ``splitlines`` also breaks at U+2028 and form feeds)."""

    def _apply_incremental_change(self, change: T.TextDocumentContentChangePartial) -> None:
        source, encoding = self.source, self._position_codec.encoding or "utf-16"
        start = _offset(source, change.range.start, encoding)
        end = max(start, _offset(source, change.range.end, encoding))
        self._source = source[:start] + change.text + source[end:]


def _offset(text: str, position: T.Position, encoding: str) -> int:
    """The index into ``text`` of an LSP position (clamped to its line; past the last line: the end)."""
    start = line_start(text, position.line)
    if start is None:
        return len(text)
    _line, col = LineIndex.of_line(text, position.line, encoding).code_point_col(position.line, position.character)
    return start + col


class _Workspace(Workspace):
    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None) -> TextDocument:  # noqa: ANN001
        return _Document(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def _range(r: LspRange) -> T.Range:
    return T.Range(T.Position(**r["start"]), T.Position(**r["end"]))


def _lsp_diagnostic(d: Diagnostic, index: LineIndex) -> T.Diagnostic:
    return T.Diagnostic(
        range=_range(index.range(d.span)),
        message=d.message,
        severity=_SEVERITY[d.level],
        code=d.code,
        source=f"primetui ({d.source})",
    )


server = SftServer()


DEBOUNCE = 0.15  # seconds after the last change before a check starts (the built-in editor's too)


@server.feature(T.INITIALIZE)
def _initialize(ls: SftServer, params: T.InitializeParams) -> None:
    # pygls has just made the workspace (it has no hook for the document class): ours makes _Documents
    ls.workspace.__class__ = _Workspace


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: SftServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.open.add(params.text_document.uri)
    ls.schedule(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def _did_change(ls: SftServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, DEBOUNCE)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: SftServer, params: T.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: SftServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.open.discard(params.text_document.uri)
    ls.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(T.TEXT_DOCUMENT_HOVER)
def _hover(ls: SftServer, params: T.HoverParams) -> T.Hover | None:
    text = ls.workspace.get_text_document(params.text_document.uri).source
    line, col = ls.line_index(text, params.position.line).code_point_col(
        params.position.line, params.position.character
    )
    _path, help_ = help_at(text, line, col)
    if help_ is None:
        return None
    body = f"**{help_.title}**\n\n" + "\n".join(f"- {x}" for x in help_.lines)
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=body))


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["[", ".", "=", '"']))
def _complete(ls: SftServer, params: T.CompletionParams) -> T.CompletionList:
    text = ls.workspace.get_text_document(params.text_document.uri).source
    index = ls.line_index(text, params.position.line)
    line, col = index.code_point_col(params.position.line, params.position.character)
    start, items = completions(text, line, col)
    where = T.Range(T.Position(**index.position(line, start)), T.Position(**index.position(line, col)))
    return T.CompletionList(
        is_incomplete=False,
        items=[
            T.CompletionItem(
                label=c.label,
                kind=_KIND[c.kind],
                detail=c.detail,
                documentation=T.MarkupContent(kind=T.MarkupKind.PlainText, value=c.documentation),
                text_edit=T.TextEdit(range=where, new_text=c.insert),
            )
            for c in items
        ],
    )


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
async def _code_actions(ls: SftServer, params: T.CodeActionParams) -> list[T.CodeAction]:
    uri = params.text_document.uri
    text, diags = await ls.diagnostics_of(uri)
    index = ls.index(text)
    first, last = params.range.start.line, params.range.end.line
    actions = []
    for d in diags:
        if d.span.end_line < first or d.span.line > last:
            continue
        for n, fix in enumerate(d.fixes):
            edits = [T.TextEdit(range=_range(e["range"]), new_text=e["newText"]) for e in index.fix(fix)["edits"]]
            actions.append(
                T.CodeAction(
                    title=fix.title,
                    kind=T.CodeActionKind.QuickFix,
                    diagnostics=[_lsp_diagnostic(d, index)],
                    is_preferred=n == 0,
                    edit=T.WorkspaceEdit(changes={uri: edits}),
                )
            )
    return actions


def serve_stdio() -> int:
    """Serve on stdin/stdout until the client says exit."""
    server.start_io()
    return 0
