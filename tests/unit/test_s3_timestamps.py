"""The transfers' S3 client reads reply timestamps without dateutil: the same instants as botocore's own parser."""

from __future__ import annotations

import pytest
from botocore.utils import parse_timestamp

from primetui.local.transfers import s3io


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-06T21:00:00.000Z",  # a listing's LastModified
        "2026-12-06T21:00:00Z",
        "2026-12-06T21:00:00.123456+02:00",
        "2026-12-06T21:00:00",
        "Sun, 06 Dec 2026 21:00:00 GMT",  # a Last-Modified header
        "1700000000",  # epoch seconds
    ],
)
def test_a_timestamp_reads_as_botocore_reads_it(text: str) -> None:
    ours, theirs = s3io.timestamp(text), parse_timestamp(text)
    assert (ours.utcoffset(), ours.replace(tzinfo=None)) == (theirs.utcoffset(), theirs.replace(tzinfo=None))
