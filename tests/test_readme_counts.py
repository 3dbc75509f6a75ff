"""The README's test counts stay near what the suite really holds.

The README states the total and the count per folder of tests/ (from `uv run pytest --collect-only
-q -n 0`). A run of the whole suite has that collection already (``session.items``), so the check
costs nothing there; a run of some files skips it (it cannot know the counts). Each figure may lag
the suite a little (5 % of the total, 10 % or 10 tests of a folder) so that adding a test does not
force a README edit; past that, the test names the figures to write.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = "top"  # tests directly in tests/


def stated_counts(readme: str) -> dict[str, int]:
    """{"total": n, folder: n, …, "top": n} from the README's "The suite holds …" sentence."""
    m = re.search(r"The suite holds ([\d,]+) tests \(`[^`]+`\): (.+?) at the top of `tests/`", readme, re.S)
    assert m, "README.md: the sentence 'The suite holds N tests (`…`): … and N at the top of `tests/`' is gone"
    counts = {"total": int(m.group(1).replace(",", ""))}
    body = m.group(2).replace("\n", " ")
    for n, layer in re.findall(r"(\d[\d,]*) ([a-z][a-z0-9_]*)\b", body):
        counts[layer] = int(n.replace(",", ""))
    counts[TOP] = int(re.findall(r"([\d,]+)$", body.strip())[0].replace(",", ""))
    return counts


def real_counts(nodeids: list[str]) -> dict[str, int]:
    layers = Counter(parts[1] if len(parts := nid.split("::")[0].split("/")) > 2 else TOP for nid in nodeids)
    return {"total": len(nodeids), **layers}


def drift(stated: dict[str, int], real: dict[str, int]) -> list[str]:
    """The README's figures that are too far from the collection, each with the figure to write."""
    out = []
    for key in sorted(set(stated) | set(real)):
        s, r = stated.get(key), real.get(key, 0)
        slack = max(round(0.05 * r), 10) if key == "total" else max(round(0.10 * r), 10)
        if s is None or abs(s - r) > slack:
            out.append(f"{key}: README says {s}, the suite holds {r}")
    return out


def test_the_readme_names_every_test_folder():
    stated = stated_counts((ROOT / "README.md").read_text(encoding="utf-8"))
    folders = {
        p.relative_to(ROOT / "tests").parts[0]
        for p in (ROOT / "tests").rglob("test_*.py")
        if len(p.relative_to(ROOT / "tests").parts) > 1
    }
    assert folders | {"total", TOP} == set(stated), f"README folders {sorted(stated)}, tests/ has {sorted(folders)}"


def test_drift_is_found_past_the_slack_and_not_before():
    real = {"total": 1000, "unit": 400, "ui": 100, TOP: 500}
    assert drift({"total": 990, "unit": 395, "ui": 92, TOP: 480}, real) == []
    stale_total = ["total: README says 900, the suite holds 1000"]
    assert drift({"total": 900, "unit": 400, "ui": 100, TOP: 500}, real) == stale_total
    stale_unit = ["unit: README says 300, the suite holds 400"]
    assert drift({"total": 1000, "unit": 300, "ui": 100, TOP: 500}, real) == stale_unit
    assert drift({"total": 1000, "unit": 400, TOP: 500}, real) == ["ui: README says None, the suite holds 100"]


def test_the_readme_counts_are_near_the_collection(request):
    nodeids = [item.nodeid for item in request.session.items]
    every_file = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    if not every_file <= {nid.split("::")[0] for nid in nodeids}:
        pytest.skip("only a run of the whole suite holds the counts (uv run pytest)")
    problems = drift(stated_counts((ROOT / "README.md").read_text(encoding="utf-8")), real_counts(nodeids))
    assert not problems, (
        "README.md's test counts are stale (recount with `uv run pytest --collect-only -q -n 0`): "
        + "; ".join(problems)
    )
