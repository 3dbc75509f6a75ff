"""PlainRun (the first frame's run, without pydantic) has the attributes of RLRun and reads the same values."""

from __future__ import annotations

import dataclasses

from primetui.api import models as m
from primetui.api.plainrun import PlainRun, PlainRunPage

WIRE = {
    "id": "r1",
    "userId": "u",
    "status": "RUNNING",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:01:00Z",
    "name": "demo",
    "rftClusterId": "c1",
    "maxSteps": 40,
    "baseModel": "Qwen/Qwen3-0.6B",
    "runConfig": {"model": {"name": "Qwen/Qwen3-0.6B"}},
    "teacherConfig": {"model": "t"},
    "volumeName": "research",
    "errorMessage": None,
    "loss": "sft",
}


def test_plain_run_has_every_attribute_of_the_model_and_no_other():
    assert {f.name for f in dataclasses.fields(PlainRun)} == set(m.RLRun.model_fields)


def test_plain_run_reads_what_the_model_reads():
    model = m.RLRun.model_validate(WIRE)
    plain = PlainRun.from_wire(model.model_dump(mode="json", by_alias=True, exclude_none=True))
    assert plain is not None
    for name in m.RLRun.model_fields:
        assert getattr(plain, name) == getattr(model, name), name
    assert (plain.is_terminal, plain.is_sft, plain.has_online_evals) == (
        model.is_terminal,
        model.is_sft,
        model.has_online_evals,
    )
    raw = PlainRun.from_wire(WIRE)  # the wire's own spellings (rftClusterId, teacherConfig) too
    assert raw is not None and raw.cluster_id == "c1" and raw.teacher == {"model": "t"}


def test_a_run_without_an_id_is_not_a_plain_run():
    assert PlainRun.from_wire({"status": "RUNNING"}) is None
    assert PlainRunPage.from_wire({"runs": [{"status": "RUNNING"}]}) is None
    page = PlainRunPage.from_wire({"runs": [WIRE], "total": 1, "total_pages": 1})
    assert page is not None and [r.id for r in page.runs] == ["r1"] and page.total_pages == 1
