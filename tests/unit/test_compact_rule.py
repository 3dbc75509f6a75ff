"""The compact rule: toasts shrink below 100 columns OR below 30 rows; each dimension alone is enough."""

from __future__ import annotations

import pytest

from primetui.viewmodel.compact import is_compact


@pytest.mark.parametrize(
    ("width", "height", "compact"),
    [
        (99, 40, True),  # narrow alone
        (120, 29, True),  # short alone
        (100, 30, False),  # the smallest full size
        (80, 24, True),
        (160, 48, False),
        (99, 300, True),
        (400, 29, True),
    ],
)
def test_each_dimension_alone_makes_it_compact(width, height, compact):
    assert is_compact(width, height) is compact
