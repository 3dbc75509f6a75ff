"""The runs filter (docs/dashboard.md, key `/`): every word must appear in id, name, status, model or volume.

Each term the docs promise has a test that matches through that term alone, so dropping it from the
filter fails exactly that test."""

from __future__ import annotations

from tests.runs import wire_run
from primetui.viewmodel.run_rows import run_matches, run_row

from datetime import UTC, datetime

import pytest


NOW = datetime(2026, 1, 2, tzinfo=UTC)
RUN = wire_run(
    id="cm8abc123",
    name="reverse-text-sft",
    status="RUNNING",
    base_model="Qwen/Qwen3-0.6B",
    volume_name="research-vol",
    max_steps=100,
)
OTHER = wire_run(
    id="cm8zzz999",
    name="math-rl",
    status="COMPLETED",
    base_model="meta-llama/Llama-3.2-1B",
    volume_name="scratch",
    max_steps=50,
)


def _shown(query: str) -> list[str]:
    """The ids the runs table keeps for ``query``, as the runs screen filters its rows."""
    rows = [run_row(r, None, NOW) for r in (RUN, OTHER)]
    return [row.id for row in rows if run_matches(row, query)]


@pytest.mark.parametrize(
    ("term", "query"),
    [
        ("id", "abc123"),
        ("name", "reverse-text"),
        ("status", "running"),
        ("model", "qwen3-0.6b"),
        ("volume", "research-vol"),
    ],
)
def test_each_promised_term_alone_finds_the_run(term, query):
    # Each query is found in that one field of RUN and in no other field of either run.
    assert _shown(query) == ["cm8abc123"], f"filtering on the {term} ({query!r})"


def test_the_model_is_matched_from_a_run_config_too():
    from_config = RUN.model_copy(update={"base_model": None, "run_config": {"model": {"name": "Org/Tiny-Model"}}})
    row = run_row(from_config, None, NOW)
    assert run_matches(row, "tiny-model")


def test_every_word_must_appear_in_some_term():
    assert _shown("qwen3 research-vol") == ["cm8abc123"]  # model and volume together
    assert _shown("qwen3 scratch") == []  # each word holds for a different run: none shows
    assert _shown("") == ["cm8abc123", "cm8zzz999"]


def test_case_does_not_matter():
    assert _shown("LLAMA-3.2 Completed") == ["cm8zzz999"]


def test_a_word_in_no_term_hides_every_run():
    assert _shown("nowhere") == []
