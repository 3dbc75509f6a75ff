"""The ratchet on private reads: tests see behaviour through public seams (docs/testing.md, "Public seams").

``scripts/private_reads.py`` counts the ``obj._name`` reads in tests/. The total may only fall: a new
read of a private attribute needs a read-only public property on the widget (or a look at what the
screen shows) instead. When the count falls, lower ``CEILING`` to it.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CEILING = 42  # was 107 in 40 files before issue 45


def _counter():
    spec = importlib.util.spec_from_file_location("private_reads", ROOT / "scripts" / "private_reads.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_suite_reads_no_more_private_attributes_than_before() -> None:
    counter = _counter()
    found = counter.count()
    total = sum(len(hits) for hits in found.values())
    worst = sorted(found.items(), key=lambda item: -len(item[1]))[:5]
    assert total <= CEILING, (
        f"tests read {total} private attributes (ceiling {CEILING}); give the widget a read-only property "
        f"or look at the screen instead. Most: {[(f, len(h)) for f, h in worst]}"
    )


def test_the_count_takes_private_reads_and_leaves_dunders_and_the_modules_own_names(tmp_path) -> None:
    source = textwrap.dedent(
        """
        def _helper():
            return 1

        class Fake:
            def __init__(self):
                self._mine = 0

        def test_it(screen, app):
            assert screen._columns and app.screen._compositor   # two private reads
            assert screen.__class__.__name__                     # dunders: not private
            assert _helper() and Fake()._mine == 0 and Fake._helper  # the module's own names
        """
    )
    path = tmp_path / "test_sample.py"
    path.write_text(source)
    assert sorted(name for _, name in _counter().reads(path)) == ["_columns", "_compositor"]
