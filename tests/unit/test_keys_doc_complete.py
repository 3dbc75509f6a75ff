"""docs/keys.md lists every binding with an id, the compare screen's included (regenerate it with
``uv run python -m primetui.ui.keys_doc > docs/keys.md``)."""

from __future__ import annotations

from pathlib import Path

from primetui.ui.keys_doc import all_owners

KEYS_MD = Path(__file__).resolve().parents[2] / "docs" / "keys.md"


def test_every_binding_id_is_in_docs_keys_md():
    text = KEYS_MD.read_text(encoding="utf-8")
    areas = [area for area, _ in all_owners()]
    assert "Compare" in areas
    missing = [
        f"{area}: {b.id}"
        for area, owner in all_owners()
        for b in owner.__dict__.get("BINDINGS", [])
        if getattr(b, "id", None) and f"`{b.id}`" not in text
    ]
    assert not missing, f"docs/keys.md is out of date: {missing}"
