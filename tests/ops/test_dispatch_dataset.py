"""``primetui dispatch`` runs the pre-flight's dataset check: a missing dataset dispatches nothing."""

from __future__ import annotations

import pytest

from tests.ops.test_wait_dispatch import config, primetui, run_count, write

pytestmark = [pytest.mark.timeout(240)]


def test_dispatch_refuses_a_dataset_missing_on_the_volume(local_platform, tmp_path):
    before = run_count(local_platform)
    path = write(tmp_path, config(local_platform, name="datasets/reverse-txt"))
    out = primetui(local_platform, tmp_path, "dispatch", str(path), "--volume", "research")
    assert out.returncode == 3, out.stderr
    text = " ".join(out.stderr.split())
    assert "pre-flight FAIL Data" in text and "Dataset missing on the volume: /volume/datasets/reverse-txt" in text
    assert "Re-run step 2 and check the name matches" in text and "nothing was dispatched" in text
    assert run_count(local_platform) == before
