"""`primetui validate` output and exit codes, the dispatch verdict, and the sizing helper."""

from __future__ import annotations

import json
import sys
import textwrap

from primetui.commands.cli import build_parser
from primetui.commands.validate import validate
from primetui.sft.server import server_checks
from primetui.sft.sizing import checkpoint_bytes, checkpoints_kept, params_from_model_name, volume_size_for
from primetui.sft.templates import MULTI_NODE, ONLINE_EVAL, WALKTHROUGH

import tomllib


def _args(*files, json_out=False, offline=True):
    """``primetui validate FILES [--json] [--offline]``, through the CLI's own parser."""
    flags = (["--json"] if json_out else []) + (["--offline"] if offline else [])
    return build_parser().parse_args(["validate", *map(str, files), *flags])


def test_validate_prints_file_line_col_and_fails_on_errors(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("max_steps = 10\n[scheduler]\nwarmup_steps = 5\n[ckpt]\n")
    good = tmp_path / "sft.toml"
    good.write_text(WALKTHROUGH)
    assert validate(_args(good, bad)) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{bad}:3:1: error: scheduler.warmup_steps: Extra inputs are not permitted — [scheduler] has no `type`, so "
        'prime-rl uses the default `constant` variant, which has no `warmup_steps`; add `type = "linear"` or '
        '`type = "cosine"`.'
    ]
    assert "model cache: skipped (--offline)." in err
    assert "1 error(s), 0 warning(s), 0 hint(s) in 2 file(s)" in err and "559b44772" in err


def test_validate_clean_file_exits_zero(tmp_path, capsys):
    f = tmp_path / "sft.toml"
    f.write_text(WALKTHROUGH)
    assert validate(_args(f)) == 0
    assert capsys.readouterr().out == ""


def test_validate_json_and_unreadable_file(tmp_path, capsys):
    missing = tmp_path / "nope.toml"
    warn = tmp_path / "glm.toml"
    warn.write_text(MULTI_NODE)
    assert validate(_args(missing, warn, json_out=True)) == 3  # unreadable beats invalid
    data = json.loads(capsys.readouterr().out)
    assert data["errors"] == 1 and data["warnings"] == 2
    first = data["files"][0]["diagnostics"][0]
    assert first["line"] == 1 and first["col"] == 1 and "cannot read this file" in first["message"]
    glm = data["files"][1]["diagnostics"]
    assert [(d["line"], d["col"], d["level"], d["code"]) for d in glm] == [
        (27, 16, "warning", "warmup-too-long"),
        (39, 26, "warning", "force-balanced-routing"),
    ]


def test_validate_uses_installed_prime_rl_configs(tmp_path, capsys, monkeypatch):
    pkg = tmp_path / "site" / "prime_rl" / "configs"
    pkg.mkdir(parents=True)
    (tmp_path / "site" / "prime_rl" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("__version__ = '0.4.0-test'\n")
    (pkg / "sft.py").write_text(
        textwrap.dedent("""
        from pydantic import BaseModel, ConfigDict, field_validator
        class SFTConfig(BaseModel):
            model_config = ConfigDict(extra="allow")
            max_steps: int | None = None
            @field_validator("max_steps")
            @classmethod
            def odd(cls, v):
                if v is not None and v % 2:
                    raise ValueError("odd max_steps are not allowed here")
                return v
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    for mod in [m for m in sys.modules if m.startswith("prime_rl")]:
        monkeypatch.delitem(sys.modules, mod)
    from primetui.sft import installed

    installed.installed.cache_clear()  # look for prime_rl again (and again after the test)
    f = tmp_path / "sft.toml"
    f.write_text("max_steps = 3\n[ckpt]\n")
    try:
        assert validate(_args(f)) == 1
    finally:
        for mod in [m for m in sys.modules if m.startswith("prime_rl")]:
            del sys.modules[mod]  # later tests must not see the fake package
        installed.installed.cache_clear()
    out, err = capsys.readouterr()
    assert f"{f}:1:13: error: max_steps: Value error, odd max_steps are not allowed here [prime_rl.configs]" in out
    assert "also validated with prime-rl's own config package (prime_rl.configs, 0.4.0-test)." in err


def test_server_checks_verdicts():
    cache = {"PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"}
    for text in (WALKTHROUGH, ONLINE_EVAL):
        v = server_checks(tomllib.loads(text), has_volume=True, cached_models=cache)
        assert v.ok and v.schema_errors == [] and v.rejection is None
    v = server_checks(tomllib.loads(WALKTHROUGH), has_volume=False, cached_models=cache)
    assert v.rejection.startswith("data.name requires `--volume <name>`.")
    v = server_checks(
        {"model": {"name": "Qwen/Qwen3-0.6B"}, "data": {"type": "fake"}}, has_volume=False, cached_models=cache
    )
    assert (
        v.rejection
        == "Model 'Qwen/Qwen3-0.6B' is not available on this cluster. Reach out to Prime support to get it added."
    )
    v = server_checks({"data": {"type": "fake"}, "inference": {}}, has_volume=False, cached_models=None)
    assert v.rejection == "[inference] is only used for online evals — add an [eval] block or remove it."
    v = server_checks(
        {"scheduler": {"warmup_steps": 5}, "data": {"type": "fake", "batch_size": 3, "micro_batch_size": 2}},
        has_volume=True,
        cached_models=None,
    )
    assert v.schema_errors == [
        {
            "loc": ["body", "config", "scheduler", "constant", "warmup_steps"],
            "msg": "Extra inputs are not permitted",
            "type": "extra_forbidden",
        },
        {
            "loc": ["body", "config", "data", "batch_size"],
            "msg": "Value error, Batch size must be divisible by micro batch size",
            "type": "value_error",
        },
    ]
    bad = tomllib.loads(ONLINE_EVAL.replace("num_infer_gpus = 4 ", "num_infer_gpus = 6 "))
    assert server_checks(bad, has_volume=True, cached_models=None).rejection == (
        "Total GPU count (10 = 4 train + 6 infer) exceeds gpus_per_node (8)."
    )


def test_sizing_matches_the_seed():
    params = params_from_model_name("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT")
    assert params == 0.6e9
    assert checkpoint_bytes(params) == 7_200_000_000  # "the 0.6B smoke run writes ~7.2 GB"
    assert checkpoint_bytes(params, "sign_sgd") == 2_400_000_000
    assert (
        params_from_model_name("Qwen/Qwen3-30B-A3B") == 30e9
        and params_from_model_name("zai-org/GLM-5.3-BF16") == 744e9  # a known family: its id states no count
    )
    assert (
        checkpoints_kept(10, 10, 1) == 1 and checkpoints_kept(100, 10, None) == 10 and checkpoints_kept(100, 30, 2) == 2
    )
    assert volume_size_for(params, 1) == 9 * 1024**3  # 7.2 GB * 1.2 rounded up to whole GiB


def test_parse_size():
    from primetui.sft.sizing import GIB, parse_size

    assert parse_size("100Gi") == 100 * GIB and parse_size("5Ti") == 5 * 1024**4 and parse_size("500G") == 500 * 10**9
    assert parse_size("lots") is None and parse_size(None) is None


def test_server_errors_map_back_to_lines():
    from primetui.api.errors import ValidationIssue
    from primetui.sft.server_map import map_server_error

    text = WALKTHROUGH
    d = map_server_error(
        text,
        400,
        "Model 'PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT' is not available on this cluster. "
        "Reach out to Prime support to get it added.",
    )[0]
    assert (d.span.line + 1, d.span.col + 1) == (8, 8) and d.message.startswith("platform (400): Model '")
    d = map_server_error(
        text,
        400,
        "data.name requires `--volume <name>`. Create a volume with `prime volumes create "
        "<name>`, then rerun `prime train sft.toml --volume <name>`.",
    )[0]
    assert (d.span.line + 1, d.span.col + 1) == (11, 8)
    d = map_server_error(text, 409, "A read-write session is open on volume research; stop it first.")[0]
    assert (d.span.line, d.span.col) == (0, 0) and d.code == "server-409"
    issues = [
        ValidationIssue(("body", "config", "data", "sft", "seq_len"), "Input should be a valid integer", "int_parsing")
    ]
    d = map_server_error(text, 422, "The platform rejected the config.", issues)[0]
    assert (d.span.line + 1, d.span.col + 1) == (
        13,
        11,
    ) and d.message == "platform: data.seq_len: Input should be a valid integer"


def test_validate_asks_the_platform_for_its_model_cache(tmp_path, capsys, monkeypatch, local_platform):
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.prime/config.json: the environment decides
    monkeypatch.setenv("PRIME_API_KEY", local_platform.token)
    monkeypatch.setenv("PRIME_BASE_URL", local_platform.base_url)
    monkeypatch.delenv("PRIME_API_BASE_URL", raising=False)
    monkeypatch.delenv("PRIME_CONTEXT", raising=False)
    good = tmp_path / "sft.toml"
    good.write_text(WALKTHROUGH)
    bad = tmp_path / "other.toml"
    bad.write_text(
        WALKTHROUGH.replace("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "Qwen/Qwen3-8B").replace(
            '"prime-qwen3"', '"qwen3"'
        )
    )
    assert validate(_args(good, bad, offline=False)) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{bad}:8:8: error: Model 'Qwen/Qwen3-8B' is not available on this cluster. "
        "Reach out to Prime support to get it added."
    ]
    assert f"models from {local_platform.base_url}" in err


def test_validate_says_when_the_platform_is_unreachable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PRIME_API_KEY", "test-key")
    monkeypatch.setenv("PRIME_BASE_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    monkeypatch.delenv("PRIME_API_BASE_URL", raising=False)
    monkeypatch.delenv("PRIME_CONTEXT", raising=False)
    f = tmp_path / "sft.toml"
    f.write_text(
        WALKTHROUGH.replace("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "Qwen/Qwen3-8B").replace(
            '"prime-qwen3"', '"qwen3"'
        )
    )
    assert validate(_args(f, offline=False)) == 0
    out, err = capsys.readouterr()
    assert out == ""
    line = next(x for x in err.splitlines() if x.startswith("model cache:"))
    assert line.startswith("model cache: could not ask http://127.0.0.1:9, so the model-cache rule was skipped — ")
    assert "test-key" not in err


def test_validate_shows_a_hostile_key_without_executing_it(tmp_path, capsys):
    # A config is outside text: an unknown key that carries a title-setting OSC and a screen clear is
    # quoted in the diagnostic, with its controls shown as symbols, never written raw to the terminal.
    bad = tmp_path / "hostile.toml"
    bad.write_text('max_steps = 10\n"\\u001b]0;pwned\\u0007\\u001b[2J\\u202e" = 1\n', encoding="utf-8")
    assert validate(_args(bad)) == 1
    out, err = capsys.readouterr()
    assert "pwned" in out
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in out and raw not in err
    validate(_args(bad, json_out=True))
    as_json = capsys.readouterr().out
    assert "\x1b" not in as_json  # JSON escapes controls itself ...
    messages = " ".join(d["message"] for d in json.loads(as_json)["files"][0]["diagnostics"])
    assert "\x1b]0;pwned\x07" in messages  # ... and --json stays exact
