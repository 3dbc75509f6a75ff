"""The first runs page read at start with http.client is what the wire models would give, or nothing."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest
from primetui.api import models as m
from primetui.api import prefetch
from primetui.api.prefetch import RunsPrefetch, fetch_runs_page, runs_page
from tests.unit.test_api_models import RUN_WIRE

MINIMAL = {k: RUN_WIRE[k] for k in ("id", "userId", "status", "createdAt", "updatedAt")}


def _model_dump(reply: dict) -> dict:
    return m.RLRunPage.model_validate(reply).model_dump(mode="json", by_alias=True, exclude_none=True)


def test_the_field_table_is_the_run_model():
    wire_names = {info.serialization_alias or info.alias or name for name, info in m.RLRun.model_fields.items()}
    assert set(prefetch.REQUIRED) | set(prefetch.OPTIONAL) == wire_names
    assert set(prefetch.REQUIRED) == {info.alias for info in m.RLRun.model_fields.values() if info.is_required()}
    assert set(prefetch.PAGE_KEYS) | {"runs"} == {info.alias or name for name, info in m.RLRunPage.model_fields.items()}


@pytest.mark.parametrize(
    "reply",
    [
        {"runs": [RUN_WIRE, MINIMAL], "total": 2, "page": 1, "limit": 20, "total_pages": 1},
        {"runs": [MINIMAL]},
        {"runs": []},
        {},
        {"runs": [{**MINIMAL, "teacher": {"a": 1}, "teacherConfig": {"b": 2}}]},
        {"runs": [{**MINIMAL, "environments": [{"id": "e"}], "learningRate": 1e-5, "extra": [1]}], "other": 3},
    ],
)
def test_an_accepted_reply_is_exactly_the_models_dump(reply):
    assert runs_page(reply) == _model_dump(reply)


@pytest.mark.parametrize(
    "reply",
    [
        {"runs": [{**MINIMAL, "maxSteps": "10"}]},  # pydantic would convert
        {"runs": [{**MINIMAL, "maxSteps": True}]},
        {"runs": [{**MINIMAL, "learningRate": 1}]},
        {"runs": [{**MINIMAL, "max_steps": 10}]},  # the Python spelling
        {"runs": [{**MINIMAL, "cluster_id": "c"}]},
        {"runs": [{**MINIMAL, "environments": ["x"]}]},  # pydantic would reject
        {"runs": [{k: v for k, v in MINIMAL.items() if k != "userId"}]},
        {"runs": [{**MINIMAL, "status": None}]},
        {"runs": "no"},
        {"runs": [], "total": "2"},
        {"runs": [], "totalPages": 2},
        ["not", "an", "object"],
    ],
)
def test_anything_the_models_might_read_differently_is_left_to_the_client(reply):
    assert runs_page(reply) is None


def _ensure_a_run(lp) -> None:
    from primetui.api.client import PrimeClient

    async def go() -> None:
        async with PrimeClient(lp.base_url, lp.token) as c:
            if not (await c.list_runs()).runs:
                cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
                await c.create_run(cfg, volume="research")

    asyncio.run(go())


def test_the_platform_reply_reads_like_the_client(local_platform):
    from primetui.api.client import PrimeClient

    _ensure_a_run(local_platform)
    got = fetch_runs_page(local_platform.base_url + "/api/v1/", local_platform.token, limit=20)

    async def by_client() -> dict:
        async with PrimeClient(local_platform.base_url, local_platform.token) as c:
            page = await c.list_runs(page=1, limit=20)
        return page.model_dump(mode="json", by_alias=True, exclude_none=True)

    want = asyncio.run(by_client())
    assert got is not None and got["runs"]
    # Run times and steps move on between the two reads; the shape and the ids are the contract.
    assert [r["id"] for r in got["runs"]] == [r["id"] for r in want["runs"]]
    # A run another test left going can start between the reads (its startedAt appears): compare the
    # keys of the runs whose status held, and there is always one (the first read's ended runs).
    held = [(g, w) for g, w in zip(got["runs"], want["runs"]) if g["status"] == w["status"]]
    assert held
    assert [sorted(g) for g, _ in held] == [sorted(w) for _, w in held]
    assert {k: v for k, v in got.items() if k != "runs"} == {k: v for k, v in want.items() if k != "runs"}


def test_no_reply_without_a_key_a_refusal_or_a_proxy(local_platform, monkeypatch):
    assert fetch_runs_page(local_platform.base_url, "") is None
    assert fetch_runs_page(local_platform.base_url, "wrong-key") is None
    assert fetch_runs_page("ftp://127.0.0.1:1", local_platform.token) is None
    assert fetch_runs_page("http://127.0.0.1:1", local_platform.token) is None  # nothing listens
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert fetch_runs_page(local_platform.base_url, local_platform.token) is None


def test_lazy_client_takes_the_prefetched_page_once(local_platform):
    from types import SimpleNamespace

    from primetui.commands.launch import LazyClient

    _ensure_a_run(local_platform)
    settings = SimpleNamespace(base_url=local_platform.base_url, api_key=local_platform.token, team_id=None)
    early = RunsPrefetch(local_platform.base_url, local_platform.token)
    assert early.future.result(timeout=30) is not None
    lazy = LazyClient(settings, prefetch=early)

    async def go() -> tuple:
        first = await lazy.list_runs(page=1, limit=early.limit)
        second = await lazy.list_runs(page=1, limit=early.limit)
        await lazy.aclose()
        return first, second

    first, second = asyncio.run(go())
    from primetui.api.plainrun import PlainRunPage

    assert isinstance(first, PlainRunPage)  # the prefetched page, read into attributes without pydantic
    assert [r.id for r in first.runs] == [r["id"] for r in early.future.result()["runs"]]
    assert isinstance(second, m.RLRunPage)  # then always the client
    assert [r.id for r in first.runs] == [r.id for r in second.runs]


def test_lazy_client_asks_the_client_when_the_prefetch_has_nothing(local_platform):
    from types import SimpleNamespace

    from primetui.commands.launch import LazyClient

    settings = SimpleNamespace(base_url=local_platform.base_url, api_key=local_platform.token, team_id=None)
    early = RunsPrefetch("http://127.0.0.1:1", local_platform.token)  # fails: nothing listens there
    lazy = LazyClient(settings, prefetch=early)

    async def go():
        try:
            return await lazy.list_runs(page=1, limit=early.limit)
        finally:
            await lazy.aclose()

    assert isinstance(asyncio.run(go()), m.RLRunPage)


def test_default_prefs_answer_like_the_model_until_it_is_built():
    from primetui.config.prefs import Prefs
    from primetui.commands.launch import DefaultPrefs

    model = Prefs()
    lazy = DefaultPrefs()
    for name, value in DefaultPrefs.FIRST_FRAME.items():
        real = getattr(model, name)
        seen = getattr(lazy, name)
        if name in ("refresh", "notify"):
            assert vars(seen) == real.model_dump() == value
        else:
            assert seen == real == value
    assert lazy.chart_marker == model.chart_marker  # anything else builds the model
    assert lazy.refresh == model.refresh
