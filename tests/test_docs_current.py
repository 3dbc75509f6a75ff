"""Docs that cannot drift from the code: the keys page, the exit codes of `primetui wait`, and the options the
README's commands table names (every `serve` option, none that does not exist)."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from primetui.commands import waiting
from primetui.commands.exits import MEANING
from tests.cli_zygote import primetui_cli

ROOT = Path(__file__).resolve().parents[1]
WAIT_CODES = set(MEANING)
"""The one exit-code table of every command (primetui.commands.exits), 130 and 143 included."""


def test_keys_page_is_what_keys_doc_generates():
    from primetui.ui.keys_doc import keys_markdown

    assert (ROOT / "docs" / "keys.md").read_text(encoding="utf-8") == keys_markdown(), (
        "docs/keys.md is stale: run `uv run python -m primetui.ui.keys_doc > docs/keys.md`"
    )


def test_every_code_wait_returns_is_in_the_one_table():
    assert {
        waiting.EXIT_OK,
        waiting.EXIT_FAILED,
        waiting.EXIT_TIMEOUT,
        waiting.EXIT_SETUP,
        waiting.EXIT_SIGINT,
        128 + signal.SIGTERM,
    } <= WAIT_CODES
    assert set(waiting.OUTCOME) <= WAIT_CODES


def test_wait_help_lists_every_exit_code():
    out = primetui_cli(["wait", "--help"], dict(os.environ), timeout=60)
    listed = {int(m) for m in re.findall(r"^\s+(\d+)\s{2,}\S", out.stdout.split("exit codes", 1)[1], re.M)}
    assert listed == WAIT_CODES, out.stdout


def test_readme_and_ops_page_list_every_wait_exit_code():
    row = next(ln for ln in (ROOT / "README.md").read_text().splitlines() if ln.startswith("| `primetui wait"))
    assert {int(c) for c in re.findall(r"\b(\d+) ", row.split("|")[2])} == WAIT_CODES, row
    ops = (ROOT / "docs" / "ops.md").read_text()
    assert {int(c) for c in re.findall(r"^\| (\d+) \|", ops, re.M)} == WAIT_CODES


def _subcommand(parser, words: list[str]):
    """The (sub)parser that ``primetui <words…>`` reaches: nested subcommands, then options and arguments."""
    import argparse

    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            break
        parser = subs[0].choices[word]
    return parser


def _options(parser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"}


def _readme_commands() -> list[tuple[str, set[str]]]:
    """(the command line, the options it names) of each command in the README's Commands table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = [ln.split("|")[1] for ln in text.splitlines() if ln.startswith("| `primetui")]
    commands = [cmd for row in rows for cmd in re.findall(r"`(primetui[^`]*)`", row)]
    return [(cmd, set(re.findall(r"--[a-z][a-z-]*[a-z]", cmd))) for cmd in commands]


def test_readme_commands_name_only_options_that_exist():
    from primetui.commands.cli import build_parser

    parser = build_parser()
    commands = _readme_commands()
    assert len(commands) >= 15, commands
    wrong = {
        cmd: sorted(named - _options(_subcommand(parser, cmd.split()[1:])))
        for cmd, named in commands
        if named - _options(_subcommand(parser, cmd.split()[1:]))
    }
    assert not wrong, f"the README names options these commands do not have: {wrong}"


def test_readme_serve_row_names_every_serve_option():
    from primetui.commands.cli import build_parser

    serve = _subcommand(build_parser(), ["serve"])
    named = next(opts for cmd, opts in _readme_commands() if cmd.split()[:2] == ["primetui", "serve"])
    assert named == _options(serve), f"README's serve row: {sorted(named)}; serve --help: {sorted(_options(serve))}"
    ops = (ROOT / "docs" / "ops.md").read_text(encoding="utf-8").splitlines()
    synopsis = next(ln for ln in ops if ln.startswith("primetui serve ["))
    assert set(re.findall(r"--[a-z][a-z-]*[a-z]", synopsis)) == _options(serve), f"docs/ops.md: {synopsis}"
