"""The config diff writes values as the sft.toml does, never as a Python repr."""

from __future__ import annotations

from primetui.sft.diff import Value


def test_lists_and_tables_read_as_toml():
    assert Value(["a", "b"], "set").text() == '["a", "b"]'
    assert Value({"x": 1, "y": [True, 0.5]}, "set").text() == "{x = 1, y = [true, 0.5]}"
    assert Value([], "default").text() == "[] (default)"
    assert Value("plain", "set").text() == "plain" and Value(2e-5, "set").text() == "2e-05"
