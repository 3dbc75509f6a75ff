"""The space check (issue 41, finding 11): the 8-node GLM example is checked, not skipped, and the editor and the
dispatch pre-flight give a walkthrough that does not fit its volume the same severity."""

from __future__ import annotations

import tomllib

from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.preflight import _space_check
from primetui.sft.sizing import GIB
from primetui.sft.templates import MULTI_NODE, WALKTHROUGH


def test_the_multi_node_glm_example_is_checked_against_its_volume_not_skipped():
    config = tomllib.loads(MULTI_NODE)
    check = _space_check(config, 100 * GIB)
    assert check.state == "fail", check  # was "skip": 'checkpoint size unknown'
    assert "TB" in check.detail and "> volume 107.4 GB" in check.detail, check.detail


def test_a_walkthrough_too_big_for_its_volume_is_an_error_in_the_editor_as_in_the_pre_flight():
    config = tomllib.loads(WALKTHROUGH)
    preflight = _space_check(config, 1 * GIB)
    assert preflight.state == "fail", preflight
    report = check_text(WALKTHROUGH, CheckContext(has_volume=True, volume_size_bytes=1 * GIB))
    found = [d for d in report.diagnostics if d.code == "ckpt-exceeds-volume"]
    assert found and found[0].level == "error", found  # the editor said "warning" for the same ✗


_HUGE_RUN = r"""
import resource
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # listing the saves would need far more
from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.sizing import GIB, checkpoints_kept
from primetui.sft.templates import WALKTHROUGH
assert checkpoints_kept(10**12, 1, None) == 10**12 and checkpoints_kept(10**40, 7, 3) == 3
text = WALKTHROUGH.replace("interval = 10", "interval = 1").replace("keep_last = 1\n", "")
text = text.replace("max_steps = ", "max_steps = 1000000000000 #", 1)
report = check_text(text, CheckContext(has_volume=True, volume_size_bytes=GIB))
found = [d.message for d in report.diagnostics if d.code == "ckpt-exceeds-volume"]
print(found[0][:40])
"""


def test_a_trillion_steps_saved_at_every_step_are_counted_not_listed():
    """A config being typed can say max_steps = 10**12 with a save every step: the checker listed every save
    step in a set, and a hypothesis draw of the editor's property test took 24 GB before the OOM killer.
    The check runs in a child capped at 1 GiB, so a regression fails here instead of taking the machine."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _HUGE_RUN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("1000000000000 checkpoint(s)"), done.stdout
