"""``primetui validate FILE... [--json] [--offline] [--local]``: ``file:line:col: level: message``.

Exit 0: no errors; 1: a file has an error; 3: a file could not be read; 64: the arguments were wrong
(:mod:`primetui.commands.exits`).
Text output counts lines and columns from 1, the column in characters (Unicode code points);
``--json`` adds an LSP ``range`` (0-based, UTF-16 code units) and each fix's edits in that form.

The model-cache rule asks the configured platform (T1; the embedded one with ``--local``) for its
cached models unless ``--offline``;
when the platform cannot be reached it says so in one line (stderr) and skips that rule only.
When prime-rl's own config package (``prime_rl.configs``) is importable, the config is validated
with it too (``primetui.sft.installed``), and the output says so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from primetui.commands.exits import EXIT_REFUSED
from primetui.config.fileio import read_text_file
from primetui.monitor_core.escapes import clean
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Diagnostic, Span
from primetui.sft.positions import POSITION_ENCODING, LineIndex, diagnostic_json


@dataclass
class CacheResult:
    models: frozenset[str] | None
    note: str


def fetch_model_cache(timeout: float = 8.0, local: bool = False) -> CacheResult:
    """The platform's cached model ids (T1), or None with a one-line reason (``local``: the embedded platform's)."""
    try:
        from primetui.config.settings import load_settings
    except ImportError:
        return CacheResult(None, "model cache: skipped (platform settings are unavailable in this build).")
    try:
        settings = load_settings()
    except Exception as exc:  # noqa: BLE001 - a broken config file must not stop validation
        return CacheResult(None, f"model cache: skipped ({exc}).")
    from primetui.config.mistakes import first_mistake

    mistake = first_mistake(settings, local=local)
    if mistake is not None:  # the file's checks still hold; only the platform's cache is not asked
        return CacheResult(None, f"model cache: skipped: {mistake}")
    if local:
        from primetui.commands.headless import _settings

        try:
            settings = _settings(True)  # the local platform, started when it is not running
        except Exception as exc:  # noqa: BLE001 - the file's checks still hold without the cache
            return CacheResult(None, f"model cache: skipped (the local platform did not start: {exc}).")
    base_url = getattr(settings, "base_url", None)
    api_key = getattr(settings, "api_key", None)
    if not base_url or not api_key:
        return CacheResult(None, "model cache: skipped (no API key configured: run `prime login`, or pass --offline).")

    async def _get() -> frozenset[str]:
        from primetui.api.client import PrimeClient

        async with PrimeClient(base_url, api_key, getattr(settings, "team_id", None), timeout=timeout) as client:
            reply = await client.list_models()
            return frozenset(m.name for m in reply.models)

    try:
        models = asyncio.run(_get())
    except Exception as exc:  # noqa: BLE001 - PrimeAPIError or transport trouble: skip one rule, say why
        reason = str(exc).rstrip(".")
        return CacheResult(
            None, f"model cache: could not ask {base_url}, so the model-cache rule was skipped — {reason}."
        )
    return CacheResult(models, f"model cache: {len(models)} models from {base_url}.")


UNREADABLE = "unreadable"
POSITIONS_NOTE = "positions are line:column from 1, columns in characters"


def validate_file(path: Path, ctx: CheckContext) -> tuple[list[Diagnostic], str | None]:
    """Diagnostics for one file (``-`` is standard input); an unreadable file is one error at 1:1."""
    diags, note, _text = _check_file(path, ctx)
    return diags, note


def _check_file(path: Path, ctx: CheckContext) -> tuple[list[Diagnostic], str | None, str]:
    try:
        text = _read_stdin() if str(path) == "-" else read_text_file(path).text
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return (
            [
                Diagnostic(
                    "error", f"cannot read this file ({reason}) — check the path.", Span(0, 0, 0, 0), UNREADABLE, "io"
                )
            ],
            None,
            "",
        )
    from primetui.sft.check import check_text

    report = check_text(text, ctx)
    return list(report.diagnostics), report.note, text


def _read_stdin() -> str:
    """Standard input as UTF-8 text, whatever the locale says."""
    return sys.stdin.buffer.read().decode("utf-8")


def validate(args: argparse.Namespace) -> int:
    """Entry point of ``primetui validate``; returns the exit code (see the module docstring)."""
    try:
        return _validate(args)
    except BrokenPipeError:  # `primetui validate … | head`: the reader left, which is fine
        sys.stderr.close()
        return 1


def _validate(args: argparse.Namespace) -> int:
    from primetui.sft.schema import SCHEMA_NOTE

    cache = (
        CacheResult(None, "model cache: skipped (--offline).")
        if args.offline
        else fetch_model_cache(local=bool(getattr(args, "local", False)))
    )
    ctx = CheckContext(hosted=True, cached_models=cache.models)
    results: list[dict] = []
    errors = warnings = hints = 0
    notes: set[str] = set()
    lines: list[str] = []
    unreadable = False
    for name in args.files:
        diags, note, text = _check_file(Path(name), ctx)
        unreadable = unreadable or any(d.code == UNREADABLE for d in diags)
        index = LineIndex(text)
        if note:
            notes.add(note)
        errors += sum(d.level == "error" for d in diags)
        warnings += sum(d.level == "warning" for d in diags)
        hints += sum(d.level == "hint" for d in diags)
        results.append(
            {"file": "<stdin>" if name == "-" else name, "diagnostics": [diagnostic_json(d, index) for d in diags]}
        )
        lines.extend(d.format("<stdin>" if name == "-" else name) for d in diags)
    if args.json:
        out = {
            "files": results,
            "errors": errors,
            "warnings": warnings,
            "hints": hints,
            "schema": SCHEMA_NOTE,
            "model_cache": cache.note,
            "prime_rl": sorted(notes),
            "position_encoding": POSITION_ENCODING,
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        # A diagnostic quotes the config (key names, values) and the platform (model ids): outside text,
        # shown with its controls made visible so a hostile file cannot drive the terminal.
        for line in lines:
            print(clean(line))
        print(clean(cache.note), file=sys.stderr)
        for note in sorted(notes):
            print(note, file=sys.stderr)
        files = len(args.files)
        print(
            f"{errors} error(s), {warnings} warning(s), {hints} hint(s) in {files} file(s) — {SCHEMA_NOTE}; "
            f"{POSITIONS_NOTE}.",
            file=sys.stderr,
        )
    return EXIT_REFUSED if unreadable else 1 if errors else 0
