"""Parquet files for the pre-flight and the volume browser, where the install has pyarrow.

pyarrow comes with the `primetui[local]` extra (it is most of that extra's size), so a base install
reads a parquet file's columns only once the extra is added; it says so instead of failing.
"""

from __future__ import annotations

from typing import Any


class ParquetUnavailable(ValueError):
    """This install cannot read parquet (pyarrow is not installed)."""


def parquet_file(fh: Any) -> Any:
    """A ``pyarrow.parquet.ParquetFile`` over the open file ``fh``."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ParquetUnavailable(
            "reading parquet needs pyarrow, which the base install leaves out; installing primetui[local] adds it"
        ) from None
    return pq.ParquetFile(fh)
