"""`primetui validate` for other tools: LSP ranges (UTF-16), fixes with their edits, exit codes 0/1/2."""

from __future__ import annotations

import json

from primetui.sft.check import check_text
from primetui.commands.cli import build_parser
from primetui.commands.validate import validate
from primetui.sft.positions import LineIndex


def _args(*files, json_out=True):
    """``primetui validate FILES --offline [--json]``, through the CLI's own parser."""
    return build_parser().parse_args(["validate", *map(str, files), "--offline", *(["--json"] if json_out else [])])


def _apply_lsp(text: str, edits: list[dict]) -> str:
    """Apply LSP edits the way an editor does: UTF-16 positions, bottom-up."""
    lines = text.split("\n")

    def offset(pos: dict) -> int:
        line = lines[pos["line"]]
        units = cps = 0
        while units < pos["character"]:
            units += 2 if ord(line[cps]) > 0xFFFF else 1
            cps += 1
        return sum(len(x) + 1 for x in lines[: pos["line"]]) + cps

    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
        text = text[: offset(e["range"]["start"])] + e["newText"] + text[offset(e["range"]["end"]) :]
    return text


def test_json_ranges_count_utf16_units_after_an_emoji(tmp_path, capsys):
    f = tmp_path / "sft.toml"
    f.write_text(
        'max_steps = 10\nmodel = { name = "Qwen/Qwen3-0.6B", "x😀y" = 1, bogus = 2 }\n[ckpt]\n', encoding="utf-8"
    )
    assert validate(_args(f)) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["position_encoding"] == "utf-16"
    d = next(d for d in doc["files"][0]["diagnostics"] if d["loc"] == ["model", "bogus"])
    line = f.read_text(encoding="utf-8").split("\n")[1]
    cp = line.index("bogus")
    assert d["col"] == cp + 1  # text columns: characters
    assert d["range"]["start"] == {"line": 1, "character": cp + 1}  # the emoji is 2 UTF-16 units


def test_json_fixes_carry_edits_a_tool_can_apply(tmp_path, capsys):
    text = "max_steps = 100\n[scheduler]\nwarmup_steps = 5\n[ckpt]\n"
    f = tmp_path / "sft.toml"
    f.write_text(text)
    assert validate(_args(f)) == 1
    d = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"][0]
    assert d["fix"]["title"] and d["fix"]["edits"] and set(d["fix"]["edits"][0]) == {"range", "newText"}
    fixed = _apply_lsp(text, d["fix"]["edits"])
    assert [x for x in check_text(fixed).diagnostics if x.level == "error"] == []


def test_text_output_states_its_unit(tmp_path, capsys):
    f = tmp_path / "sft.toml"
    f.write_text("max_steps = 10\n[ckpt]\n")
    validate(_args(f, json_out=False))
    assert "columns in characters" in capsys.readouterr().err


def test_exit_codes_separate_invalid_from_unreadable(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("max_steps = 'x'\n")
    assert validate(_args(bad)) == 1
    assert validate(_args(tmp_path / "missing.toml")) == 3
    assert validate(_args(bad, tmp_path / "missing.toml")) == 3


def test_wrong_usage_exits_64():
    from primetui.commands.cli import main

    assert main(["validate", "--no-such-flag", "x.toml"]) == 64  # the one usage code (docs/ops.md)


def test_line_index_round_trips_astral_characters():
    idx = LineIndex("a😀b\n")
    assert idx.position(0, 2) == {"line": 0, "character": 3}
    assert idx.code_point_col(0, 3) == (0, 2)
    assert idx.position(5, 0) == {"line": 1, "character": 0}  # past the end: the end of the text
