"""A base install (no pyarrow) says what adds parquet reading instead of failing."""

from __future__ import annotations

import io
import sys

import pytest

from primetui.api.volume_browse import preview
from primetui.sft.parquet import ParquetUnavailable, parquet_file


class _Storage:
    def ranged(self, rel: str, size: int):
        return io.BytesIO(b"PAR1" + b"\0" * 16 + b"PAR1")


def test_without_pyarrow_parquet_is_a_sentence_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import now raises ImportError
    with pytest.raises(ParquetUnavailable, match=r"primetui\[local\]"):
        parquet_file(io.BytesIO())
    shown = preview(_Storage(), "data/train.parquet", 24)
    assert (
        shown.text == "train.parquet: reading parquet needs pyarrow, which the base install leaves out; installing "
        "primetui[local] adds it."
    )
