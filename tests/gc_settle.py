"""The collector's full passes run once per test module, over what the module made.

A worker runs hundreds of Pilot tests in one process. Each starts a dashboard (a hundred thousand
objects: widgets, styles, render caches, strips with their caches), and the collector's full passes
walk every object alive: the modules imported along the way, the worker's shared fixtures and the
current test's app. In a profile of 42 dashboard tests in one worker the collector took 12.0 s of
the worker's 53.4 s of CPU, 40 full passes of about 0.25 s each.

At the end of each test module (the next test is in another module, or none is left) this
collects once, then freezes what is alive (``gc.freeze``): modules, classes and the worker's
fixtures, which live as long as the worker. Later passes walk only what was made since. A frozen
object is still freed as usual once nothing refers to it; only a cycle among frozen objects waits
for :func:`thaw`, which the memory checks call (tests/memory.py) so that what they look for is seen
wherever it lives. Between those boundaries the collector's automatic passes are spaced out
(:data:`THRESHOLDS`: a young pass per 10,000 net allocations, not 700, and automatic full passes
in effect never), so a module's garbage waits for its end: the memory it holds is one module's.

The ui folder at four workers, with the CPU of the workers and of their collector measured by
``gc.callbacks``: 80.5 s of collector time in 323 s of worker CPU without this, 31.2 s in 277 s
with it; each worker's peak RSS was 266 to 298 MB. ``PRIMETUI_GC_SETTLE=0`` turns it off.
"""

from __future__ import annotations

import gc
import os

import pytest

ON = os.environ.get("PRIMETUI_GC_SETTLE", "1") != "0"
THRESHOLDS = (10_000, 50, 100)
"""``gc.set_threshold`` in each test process (Python's default: 700, 10, 10)."""

if ON:
    gc.set_threshold(*THRESHOLDS)


def thaw() -> None:
    """Put frozen objects back under the collector (a memory check sees and frees them all)."""
    gc.unfreeze()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if ON and (nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None)):
        gc.collect()
        gc.freeze()
