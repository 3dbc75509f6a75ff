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
