"""The packaged stand-in of intellect-3-sft-10k: honest label, hf-download layout, a math split the generator made."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq

from primetui.local.math_standin import SPLIT_FILE, math_rows, packaged_folder


def test_the_packaged_shard_is_the_generators_output_and_every_answer_is_right():
    folder = packaged_folder()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["repo_type"] == "dataset" and manifest["repo_id"] == "PrimeIntellect/INTELLECT-3-SFT-10K"
    assert "**not**" in (folder / "README.md").read_text() and "stand-in" in (folder / "README.md").read_text()
    rows = pq.read_table(folder / SPLIT_FILE).to_pylist()
    assert rows == math_rows() and 100 <= len(rows) <= 1000
    for row in rows:
        text = row["completion"][0]["content"]
        for expr, result in re.findall(r"(\d+(?: [-+x/] \d+)+) = (\d+)", text):
            value = eval(expr.replace("x", "*").replace("/", "//"))  # digits and operators only
            assert value == int(result), text
