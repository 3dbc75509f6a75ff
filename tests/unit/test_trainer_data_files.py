"""The trainer's data files: a parquet file is read as one file, and one it cannot read fails the run with
a sentence naming it (no trainer crash, no platform path)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from primetui.local.trainer.data import DatasetError, read_rows


def test_a_parquet_file_gives_its_rows_in_order(tmp_path: Path) -> None:
    path = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.table({"prompt": ["abc", "de"], "completion": ["cba", "ed"]}), path)
    assert read_rows(path) == [{"prompt": "abc", "completion": "cba"}, {"prompt": "de", "completion": "ed"}]


@pytest.mark.parametrize(("content", "why"), [(b"", "size is 0 bytes"), (b"not parquet", "magic bytes not found")])
def test_an_unreadable_parquet_file_is_a_dataset_error_naming_it(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "deep" / "train.parquet"
    path.parent.mkdir()
    path.write_bytes(content)
    with pytest.raises(DatasetError) as raised:
        read_rows(path)
    message = str(raised.value)
    assert message.startswith("train.parquet is not a readable parquet file (") and why in message
    assert str(tmp_path) not in message
