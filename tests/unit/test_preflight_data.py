"""The pre-flight's Data line: what a config shows about its dataset before dispatch."""

from __future__ import annotations

import pytest

from primetui.sft.preflight import data_check


@pytest.mark.parametrize(
    ("data", "state", "words"),
    [
        ({"type": "fake"}, "ok", "synthetic data"),
        ({"name": "datasets/reverse-text"}, "skip", "reads /volume/datasets/reverse-text at startup"),
        ({"name": "/volume/datasets/x"}, "skip", "reads /volume/datasets/x at startup"),
        ({"name": "PrimeIntellect/INTELLECT-3-SFT-10K"}, "warn", "--local-dir /volume/datasets/INTELLECT-3-SFT-10K"),
        ({"name": "/etc/passwd"}, "fail", "points outside the volume"),
        ({"name": "datasets/../../x"}, "fail", "points outside the volume"),
        ({"name": ""}, "fail", "data.name is empty"),
        ({"type": "sft"}, "warn", "defaults to PrimeIntellect/Reverse-Text-SFT"),
    ],
)
def test_data_line(data, state, words):
    check = data_check({"data": data})
    assert check.name == "Data" and check.state == state and words in check.detail, check
